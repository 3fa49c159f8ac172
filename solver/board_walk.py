"""Running the walks: board preparation and the single-board engine.

One board runs the kernels in CPython (`solve_one`): no numba import, no
threads, a few milliseconds of walking; a process that has numba loaded anyway
(the warm server) runs the same walk compiled (`compiled=True`). Batches run
the numba-compiled drivers in a backend (`backends/cpu.py`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cache
from types import FunctionType
from typing import TYPE_CHECKING, NamedTuple

from . import walk_kernels
from .charset import Charset
from .errors import ParameterError

if TYPE_CHECKING:  # boards and rules are read where one is walked: opening a lexicon needs neither
    import numpy as np

    from .board import Board, Shape
    from .rules import Rules

FOUND_PER_CELL = 256  # room for words found per board cell before a rerun with more


def shown_spelling(word: str, written: tuple[str, ...]) -> str:
    """A word as a page or a listing shows it: its spellings as the list wrote them, joined, else the word."""
    return " / ".join(written) if written else word


class Found(NamedTuple):
    """A word on a board: as spelled, its points, the cells of one path spelling it, and how the list
    wrote it where it wrote it otherwise ("gläsern" for "glaesern"; `Lexicon.written`)."""

    word: str
    points: int
    path: tuple[int, ...]  # 0-based cell indices, row by row; `Board.cell_name` gives the CLI's 'row,col'
    written: tuple[str, ...] = ()  # (): as spelled

    @property
    def shown(self) -> str:
        """The word as a page or a listing shows it: as the list wrote it, its spellings joined."""
        return shown_spelling(self.word, self.written)


class Walk(NamedTuple):
    """What a format gives the kernels: its board walk, the walk's leading arguments, the range of
    the word ids it produces, its batch lookup (`numbers_kernel(*inputs, codes, starts, ends,
    numbers)`: each word's id, or -1) and its word listing (`words_kernel(*inputs, prefix, status,
    frames, codes, numbers)`: the words below a prefix, a chunk a call), which take the same leading
    arguments."""

    board_kernel: Callable
    inputs: tuple      # leading kernel arguments (arrays and ints)
    id_count: int      # stamps needed: word ids are 0..id_count-1
    numbers_kernel: Callable
    words_kernel: Callable


def neighbour_bits_array(shape: Shape) -> np.ndarray:
    """`neighbour_bits` as int64 for compiled code (cell 63 is the sign bit)."""
    import numpy as np

    from .board import neighbour_bits

    return np.array(neighbour_bits(shape), np.uint64).view(np.int64)


def python_inputs(values: tuple) -> tuple:
    """Kernel inputs for the CPython engine: arrays as memoryviews, whose items index as Python
    ints without copying the mapped file into a list first."""
    import numpy as np

    return tuple(memoryview(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v for v in values)


def _lowest_bit(x: int) -> int:
    return (x & -x).bit_length() - 1


# The helpers of walk_kernels take int() of their argument, for the numpy integers a walk meets where it
# runs uncompiled on arrays (NUMBA_DISABLE_JIT); the CPython engine's values are Python ints already, so it
# calls these instead (for `unsigned`, which only marks an index for numba, the cheapest call that returns
# an int as it is).
_INT_HELPERS = {"popcount": int.bit_count, "lowest_bit": _lowest_bit, "unsigned": operator.index}


@cache
def python_kernel(kernel: Callable) -> Callable:
    """`kernel` (a format's walk, or a helper of walk_kernels) as the CPython engine runs it: the same code
    with _INT_HELPERS for the helpers it calls, at any depth, which takes a sixth off a one-board walk."""
    rebound = {}
    for name in kernel.__code__.co_names:
        value = kernel.__globals__.get(name)
        if name in _INT_HELPERS:
            rebound[name] = _INT_HELPERS[name]
        elif isinstance(value, FunctionType) and value.__module__ == walk_kernels.__name__:
            rebound[name] = python_kernel(value)
    return FunctionType(kernel.__code__, {**kernel.__globals__, **rebound}, kernel.__name__) if rebound else kernel


def solve_one(walk: Walk, inputs: tuple, board: Board, charset: Charset, rules: Rules, skip_foreign: bool,
              want_words: bool, neighbours: list[int] | None = None,
              compiled: bool = False) -> tuple[int, int, list[Found]]:
    """Points and number of words of one board under `rules` in plain Python; with want_words also
    each word found and a path. `neighbours` replaces the board's adjacency (as `neighbour_bits`
    gives it, root last). `compiled`: run the numba-compiled walk (`jit.compiled_kernel`) on numpy
    arrays instead, where numba is loaded anyway (`inputs` are then the walk's own, `Walk.inputs`)."""
    import numpy as np

    from .board import encode, neighbour_bits

    codes = encode([board], charset, skip_foreign)[0].tolist()
    cells = board.shape.cells
    bits = neighbours or neighbour_bits(board.shape)
    cell_len, nbr_mask, near = [0] * cells, [0] * (cells + 1), [0] * ((cells + 1) * walk_kernels.NEAR)
    python_kernel(walk_kernels.prepare_board)(codes, rules.code_lengths(charset).tolist(), bits, cell_len, nbr_mask,
                                              near)
    board_args = (codes, cell_len, nbr_mask, near, rules.card(cells * charset.cell_letters).tolist())
    run, zeros, stamp_set = python_kernel(walk.board_kernel), (lambda n: [0] * n), bytearray
    if compiled:
        from . import jit

        run, zeros, stamp_set = jit.compiled_kernel(walk.board_kernel), (lambda n: np.zeros(n, np.int64)), \
            (lambda n: np.zeros(n, np.uint8))
        board_args = tuple(np.array(values, np.int64) for values in board_args)
    width = cells + 2
    capacity = FOUND_PER_CELL * cells if want_words else 0
    while True:
        found = zeros(capacity * width)
        count = zeros(1)
        # Stamp 1 marks a word found on this board; a set of zero bytes is the cheapest fresh one.
        stamps = stamp_set(walk.id_count)
        score = int(run(*inputs, *board_args, zeros(walk_kernels.FRAME * cells), stamps, 1, found, capacity, width, count))
        if count[0] <= capacity:
            break
        capacity = int(count[0])
    found = found[:count[0] * width].tolist() if compiled else found
    words = []
    for row in range(count[0] if want_words else 0):
        cols = found[row * width: (row + 1) * width]
        path = tuple(c for c in cols[2:] if c >= 0)
        words.append(Found(board.spell(path), rules.word_points(cols[1]), path))
    words.sort(key=lambda f: (-len(f.word), f.word))
    # a word's id is stamped once, however many paths spell it
    return score, int(np.count_nonzero(np.frombuffer(stamps, np.uint8))), words


@cache
def valid_codes(letters: int) -> np.ndarray:
    """valid[c] for every c below 64 * (letters + 1), the codes' bound: whether c is a cell code of a
    charset of `letters` letters (a letter index, NO_LETTER, or first + 64 * (second + 1))."""
    import numpy as np

    codes = np.arange(64 * (letters + 1))
    first, second = codes & walk_kernels.NO_LETTER, (codes >> 6) - 1
    valid = (first < letters) | ((first == walk_kernels.NO_LETTER) & (second < 0))
    valid.flags.writeable = False
    return valid


def checked_codes(codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset,
                  dtype: type[np.integer] | str = "int64") -> tuple[Shape, np.ndarray]:
    """The shape and the codes as contiguous `dtype` (int64 for the CPU's kernels, int16 for the GPU's),
    checked to be (boards, cells) cell codes of `charset` (what every backend's `score_codes` accepts);
    ParameterError otherwise. Two passes and a table lookup: a million boards take milliseconds."""
    import numpy as np

    from .board import Shape

    shape = Shape.of(shape)
    try:
        codes = np.asarray(codes)
        with np.errstate(invalid="ignore"):  # a value too large for int64 fails the range check below
            if codes.dtype.kind == "f" and not (np.isfinite(codes).all() and (codes == np.trunc(codes)).all()):
                raise ValueError("not whole numbers")  # 0.9 is no code; truncated, it would read as 'a'
            if codes.dtype.kind not in "iu":
                codes = codes.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError("codes", "must be an array of integer cell codes") from None
    if codes.ndim != 2 or codes.shape[1] != shape.cells:
        raise ParameterError("codes", f"must have shape (boards, {shape.cells}) for a {shape} board, "
                                      f"got {codes.shape}")
    valid = valid_codes(len(charset))
    if codes.size and (codes.min() < 0 or codes.max() >= len(valid) or not valid[codes].all()):
        raise ParameterError("codes", "cell codes must be letter indices of the charset, two-letter codes "
                                      "or NO_LETTER")
    return shape, np.ascontiguousarray(codes, dtype=dtype)
