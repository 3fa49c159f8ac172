"""Running the walks: board preparation, the single-board and batch engines.

One board runs the kernels in CPython (`solve_one`): no numba import, a few
milliseconds of walking. Many boards run the numba-compiled batch drivers
(`score_codes`), each thread on its own chunks with its own stamps, because
the drivers release the GIL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from . import kernels
from .board import Board, Shape, card_table, encode, neighbour_bits, points
from .charset import Charset

FOUND_PER_CELL = 256  # room for words found per board cell before a rerun with more
CHUNK = 512  # boards per task: small enough for progress and balance, large enough to amortise


@dataclass(frozen=True)
class Found:
    """A word on a board: as spelled, its points and the cells of one path spelling it."""

    word: str
    points: int
    path: tuple[int, ...]  # 0-based cell indices, row by row; `Board.cell_name` gives the CLI's 'row,col'


@dataclass(frozen=True)
class Walk:
    """What a format gives the kernels: its board walk, the walk's leading arguments and the
    range of the word ids it produces."""

    board_kernel: Callable
    inputs: tuple      # leading kernel arguments (arrays and ints)
    id_count: int      # stamps needed: word ids are 0..id_count-1


def _neighbour_bits_array(shape: Shape) -> np.ndarray:
    """`neighbour_bits` as int64 for compiled code (cell 63 is the sign bit)."""
    return np.array(neighbour_bits(shape), np.uint64).view(np.int64)


def python_inputs(values: tuple) -> tuple:
    """Kernel inputs for the CPython engine: arrays as memoryviews, whose items index as Python
    ints without copying the mapped file into a list first."""
    return tuple(memoryview(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v for v in values)


def solve_one(walk: Walk, inputs: tuple, board: Board, charset: Charset, skip_foreign: bool,
              want_words: bool, neighbours: list[int] | None = None) -> tuple[int, list[Found]]:
    """Score one board in plain Python; with want_words also list each word found and a path.
    `neighbours` replaces the board's adjacency (as `neighbour_bits` gives it, root last)."""
    codes = encode([board], charset, skip_foreign)[0].tolist()
    cells = board.shape.cells
    bits = neighbours or neighbour_bits(board.shape)
    cell_len, nbr_mask, near = [0] * cells, [0] * (cells + 1), [0] * ((cells + 1) * kernels.NEAR)
    kernels.prepare_board(codes, charset.letters.find("q"), bits, cell_len, nbr_mask, near)
    board_args = (codes, cell_len, nbr_mask, near, card_table(cells).tolist())
    width = cells + 2
    capacity = FOUND_PER_CELL * cells if want_words else 0
    while True:
        found = [0] * (capacity * width)
        count = [0]
        # Stamp 1 marks a word found on this board; a bytearray of zeros is the cheapest fresh set.
        score = walk.board_kernel(*inputs, *board_args, [0] * (kernels.FRAME * cells),
                                  bytearray(walk.id_count), 1, found, capacity, width, count)
        if count[0] <= capacity:
            break
        capacity = count[0]
    words = []
    for row in range(count[0] if want_words else 0):
        cols = found[row * width: (row + 1) * width]
        path = tuple(c for c in cols[2:] if c >= 0)
        words.append(Found(board.spell(path), points(cols[1]), path))
    words.sort(key=lambda f: (-len(f.word), f.word))
    return score, words


class _Scratch(threading.local):
    """Per-thread work space kept between calls: stamps (grown to the largest word-id range
    seen; larger is harmless) and the next unused stamp value, so no call clears anything."""

    def __init__(self) -> None:
        self.stamps = np.zeros(0, np.uint32)
        self.stack = np.zeros(kernels.FRAME * 64, np.int64)
        self.next_stamp = 1

    def take(self, id_count: int, boards: int) -> int:
        """Make room for `id_count` word ids and reserve `boards` stamps; returns the first."""
        if len(self.stamps) < id_count:
            self.stamps = np.zeros(id_count, np.uint32)
            self.next_stamp = 1
        if self.next_stamp + boards >= 2**32:
            self.stamps[:] = 0
            self.next_stamp = 1
        first = self.next_stamp
        self.next_stamp += boards
        return first


_scratch = _Scratch()


def checked_codes(codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset) -> tuple[Shape, np.ndarray]:
    """The shape and the codes as contiguous int64, checked to be (boards, cells) cell codes of
    `charset` (what every backend's `score_codes` accepts); ValueError otherwise."""
    shape = Shape.of(shape)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[1] != shape.cells:
        raise ValueError(f"codes must have shape (boards, {shape.cells})")
    first, second = codes & kernels.NO_LETTER, (codes >> 6) - 1
    if ((codes < 0) | ((first >= len(charset)) & (first != kernels.NO_LETTER))
            | (second >= len(charset)) | ((codes > kernels.NO_LETTER) & (first == kernels.NO_LETTER))).any():
        raise ValueError("cell codes must be letter indices of the charset, two-letter codes or NO_LETTER")
    return shape, codes


def score_codes(walk: Walk, codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset,
                threads: int = 1, pool: ThreadPoolExecutor | None = None,
                progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Scores of boards given as a (B, cells) array of letter indices (NO_LETTER = unusable cell),
    with the compiled kernels on the `threads` threads of `pool` (None: in this thread).

    The boards are cut into chunks, at least four per thread so that threads finish
    together, at most CHUNK boards so that progress is reported often.
    """
    from . import jit

    shape, codes = checked_codes(codes, shape, charset)
    if len(codes) == 0:
        return np.zeros(0, np.int64)
    bits = _neighbour_bits_array(shape)
    q_code = charset.letters.find("q")
    card = card_table(shape.cells)
    scores = np.zeros(len(codes), np.int64)
    batch = jit.batch_driver(walk.board_kernel)

    def run(lo: int, hi: int) -> int:
        first_stamp = _scratch.take(walk.id_count, hi - lo)
        batch(walk.inputs, codes[lo:hi], q_code, bits, card, _scratch.stack, _scratch.stamps,
              first_stamp, scores[lo:hi])
        return hi - lo

    chunk = max(1, min(CHUNK, -(-len(codes) // (4 * threads))))
    spans = [(lo, min(lo + chunk, len(codes))) for lo in range(0, len(codes), chunk)]
    done_counts = (pool.map if pool is not None and len(spans) > 1 else map)(lambda span: run(*span), spans)
    for done in done_counts:
        if progress:
            progress(done)
    return scores
