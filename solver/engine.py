"""Running the walks: board preparation, the single-board and batch engines.

One board runs the kernels in CPython (`solve_one`): no numba import, a few
milliseconds of walking. Many boards run the numba-compiled batch drivers
(`score_batch`), each thread on its own chunk with its own stamps, because
the drivers release the GIL.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

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
    path: tuple[int, ...]


@dataclass(frozen=True)
class Walk:
    """What a format gives the kernels: its board walk, batch driver name and word-id range."""

    board_kernel: Callable
    batch_name: str
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
              want_words: bool) -> tuple[int, list[Found]]:
    """Score one board in plain Python; with want_words also list each word found and a path."""
    codes = encode([board], charset, skip_foreign)[0].tolist()
    cells = board.shape.cells
    bits = neighbour_bits(board.shape)
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
    """Per-thread stamps and stack, and the next unused stamp value."""

    def __init__(self) -> None:
        self.stamps = None
        self.stack = None
        self.next_stamp = 1


def score_codes(walk: Walk, codes: np.ndarray, shape: Shape, charset: Charset, jobs: int = 1,
                progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Scores of boards given as a (B, cells) array of letter indices (NO_LETTER = unusable cell),
    with the compiled kernels in `jobs` threads."""
    from . import jit

    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[1] != shape.cells:
        raise ValueError(f"codes must have shape (boards, {shape.cells})")
    if len(codes) == 0:
        return np.zeros(0, np.int64)
    first, second = codes & kernels.NO_LETTER, (codes >> 6) - 1
    if ((codes < 0) | ((first >= len(charset)) & (first != kernels.NO_LETTER))
            | (second >= len(charset)) | ((codes > kernels.NO_LETTER) & (first == kernels.NO_LETTER))).any():
        raise ValueError("cell codes must be letter indices of the charset, two-letter codes or NO_LETTER")
    bits = _neighbour_bits_array(shape)
    q_code = charset.letters.find("q")
    card = card_table(shape.cells)
    scores = np.zeros(len(codes), np.int64)
    batch = getattr(jit, walk.batch_name)
    scratch = _Scratch()

    def run(lo: int, hi: int) -> int:
        if scratch.stamps is None:
            scratch.stamps = np.zeros(walk.id_count, np.uint32)
            scratch.stack = np.zeros(kernels.FRAME * 64, np.int64)
        if scratch.next_stamp + (hi - lo) >= 2**32:
            scratch.stamps[:] = 0
            scratch.next_stamp = 1
        batch(*walk.inputs, codes[lo:hi], q_code, bits, card, scratch.stack, scratch.stamps,
              scratch.next_stamp, scores[lo:hi])
        scratch.next_stamp += hi - lo
        return hi - lo

    spans = [(lo, min(lo + CHUNK, len(codes))) for lo in range(0, len(codes), CHUNK)]
    if jobs <= 1 or len(spans) == 1:
        for lo, hi in spans:
            done = run(lo, hi)
            if progress:
                progress(done)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for done in pool.map(lambda span: run(*span), spans):
                if progress:
                    progress(done)
    return scores
