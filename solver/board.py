"""Boards: notation, geometry, the score card.

Notation: the letters row by row, one letter per cell, any case; 'q' is the
Qu die and '.' a cell without a letter (a blank die face). Rows may be
separated by '/', ',', spaces or new lines, which also gives the size;
otherwise the size is square or set with `--size RxC` (1..8 each).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .charset import Charset
from .errors import DawgError
from .kernels import NO_LETTER

MAX_SIDE = 8
BLANK = "."
CARD = (0, 0, 0, 1, 1, 2, 3, 5)  # points by length in letters; 8 or more letters score 11
LONG_WORD_POINTS = 11
_SEPARATORS = re.compile(r"[\s/,]+")
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def points(length: int) -> int:
    """Points for a word of `length` letters ("qu" counts two)."""
    return CARD[length] if length < len(CARD) else LONG_WORD_POINTS


def card_table(cells: int) -> np.ndarray:
    """Points for every length a path over `cells` cells can spell (Qu counts two)."""
    return np.array([points(n) for n in range(2 * cells + 1)], np.int64)


@dataclass(frozen=True)
class Shape:
    rows: int
    cols: int

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"


def parse_size(text: str) -> Shape:
    match = _SIZE.match(text)
    if not match:
        raise DawgError(f"--size: {text!r} is not RxC (e.g. 4x4, 3x5)")
    shape = Shape(int(match[1]), int(match[2]))
    if not (1 <= shape.rows <= MAX_SIDE and 1 <= shape.cols <= MAX_SIDE):
        raise DawgError(f"--size: {shape} is outside 1x1 .. {MAX_SIDE}x{MAX_SIDE}")
    return shape


@dataclass(frozen=True)
class Board:
    """Cells row by row as lower-case letters ('q' = Qu, '.' = blank) and the shape."""

    letters: str
    shape: Shape

    def __str__(self) -> str:
        return self.letters

    def cell_text(self, cell: int) -> str:
        """How a cell reads: 'Qu' for the Qu die, the upper-case letter otherwise."""
        ch = self.letters[cell]
        return "Qu" if ch == "q" else ch.upper()

    def grid(self) -> str:
        """The board as rows of cells, Qu spelled out."""
        rows = []
        for r in range(self.shape.rows):
            cells = [self.cell_text(r * self.shape.cols + c) for c in range(self.shape.cols)]
            rows.append(" ".join(f"{cell:<2}" for cell in cells).rstrip())
        return "\n".join(rows)

    def spell(self, path) -> str:
        """The word a path of cells spells, Qu expanded."""
        return "".join(self.letters[c] for c in path).replace("q", "qu")


def parse_board(text: str, shape: Shape | None = None) -> Board:
    """A board from its notation; the size comes from `shape`, row separators or squareness."""
    rows = [r for r in _SEPARATORS.split(text.strip()) if r]
    letters = "".join(rows).lower()
    shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
    bad = sorted({ch for ch in letters if not (ch.isascii() and ch.isalpha()) and ch != BLANK})
    if not letters:
        raise DawgError("board: empty")
    if bad:
        raise DawgError(f"board {shown!r}: {' '.join(repr(ch) for ch in bad)} not a letter "
                        f"(use a-z, 'q' for Qu, '.' for a blank cell)")
    if shape is None:
        if len(rows) > 1:
            if len({len(r) for r in rows}) != 1:
                raise DawgError(f"board {shown!r}: rows have different lengths")
            shape = Shape(len(rows), len(rows[0]))
        else:
            side = int(round(len(letters) ** 0.5))
            if side * side != len(letters):
                raise DawgError(f"board {shown!r}: {len(letters)} cells is not square; give --size RxC")
            shape = Shape(side, side)
    if not (1 <= shape.rows <= MAX_SIDE and 1 <= shape.cols <= MAX_SIDE):
        raise DawgError(f"board {shown!r}: size {shape} is outside 1x1 .. {MAX_SIDE}x{MAX_SIDE}")
    if len(letters) != shape.cells:
        raise DawgError(f"board {shown!r}: {len(letters)} cells, size {shape} needs {shape.cells}")
    return Board(letters, shape)


@lru_cache(maxsize=None)
def neighbours(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """(nbr, deg): the neighbours of cell c are nbr[8c .. 8c + deg[c] - 1], in reading order."""
    n = shape.cells
    nbr = np.zeros(n * 8, np.int64)
    deg = np.zeros(n, np.int64)
    for cell in range(n):
        r, c = divmod(cell, shape.cols)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < shape.rows and 0 <= cc < shape.cols:
                    nbr[cell * 8 + deg[cell]] = rr * shape.cols + cc
                    deg[cell] += 1
    nbr.flags.writeable = False
    deg.flags.writeable = False
    return nbr, deg


def letter_table(charset: Charset) -> np.ndarray:
    """Byte -> letter index for board text; NO_LETTER for blanks and letters outside the charset."""
    table = np.full(256, NO_LETTER, np.int64)
    for i, ch in enumerate(charset.letters):
        table[ord(ch)] = i
    return table


def encode(boards: list[Board], charset: Charset, skip_foreign: bool = False) -> np.ndarray:
    """(B, cells) letter indices of same-shape boards; letters outside the charset are an error
    unless `skip_foreign`, which makes those cells unusable like blanks."""
    if not boards:
        return np.zeros((0, 0), np.int64)
    text = "".join(b.letters for b in boards).encode("ascii")
    codes = letter_table(charset)[np.frombuffer(text, np.uint8)].reshape(len(boards), -1)
    if not skip_foreign:
        foreign = (codes == NO_LETTER) & (np.frombuffer(text, np.uint8).reshape(codes.shape) != ord(BLANK))
        if foreign.any():
            b, cell = map(int, np.argwhere(foreign)[0])
            letter = boards[b].letters[cell]
            raise DawgError(f"board {boards[b].letters!r}: letter {letter.upper()!r} is not in the lexicon's "
                            f"charset {charset.letters.upper()} (--skip-foreign scores the other cells)")
    return codes


def cell_lengths(codes: np.ndarray, charset: Charset) -> np.ndarray:
    """Letters on each cell: 2 on the Qu die, else 1."""
    q = charset.letters.find("q")
    return np.where(codes == q, 2, 1).astype(np.int64) if q >= 0 else np.ones_like(codes)


def neighbour_masks(codes: np.ndarray, shape: Shape) -> np.ndarray:
    """For each board and cell, the bit set of letters on its neighbours."""
    nbr, deg = neighbours(shape)
    n = shape.cells
    slots = nbr.reshape(n, 8)
    valid = np.arange(8)[None, :] < deg[:, None]
    letters = codes[:, slots]                                   # (B, n, 8)
    bits = np.where(valid[None] & (letters != NO_LETTER), np.left_shift(1, letters), 0)
    return np.bitwise_or.reduce(bits, axis=2)
