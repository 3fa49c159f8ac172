"""Boards: notation, geometry, cell codes, the score card.

Notation: the cells row by row, in any case, read in NFC and with a charset
(English's unless the lexicon's is given). A letter is one cell; a tile's
symbol is its die ('q' the Qu die in English, a plain Q in Polish); '(th)' is
a cell whose face shows two letters (as on Super Big Boggle's Th, In, Er, He,
An die) and '(qu)' a tile written as its face; '.' is a blank face. Rows may
be separated by '/', ',', spaces or new lines, which also gives the size;
otherwise the board is square or its size is given as RxC (1..8 each).
Canonical notation writes the Qu face as 'q', as English boards always have
it, and every other face of several letters in parentheses.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Callable
from contextlib import suppress
from functools import cache, cached_property
from typing import NamedTuple

import numpy as np

from .charset import ENGLISH_CHARSET, Charset, face_text, lower
from .errors import DawgError, ParameterError
from .walk_kernels import NO_LETTER

MAX_SIDE = 8
MAX_NEIGHBOURS = 8  # cells a cell touches at most
BLANK = "."
_SEPARATORS = re.compile(r"[\s/,]+")
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


class Shape(NamedTuple):
    """A board's size, rows by columns."""

    rows: int
    cols: int

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def square(self) -> bool:
        return self.rows == self.cols

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    @classmethod
    def of(cls, value: Shape | tuple[int, int]) -> Shape:
        """A Shape from itself or a (rows, cols) pair, checked to be 1x1 .. 8x8 (ParameterError
        `shape` otherwise)."""
        pair: tuple[int, ...] | None = None
        if isinstance(value, Shape):
            pair = value.rows, value.cols
        elif not isinstance(value, str):  # "14" is no (rows, cols) pair
            with suppress(TypeError, ValueError):
                pair = tuple(operator.index(v) for v in value)  # whole numbers: 4.5 rows is no size
        if pair is None or len(pair) != 2:
            raise ParameterError("shape", f"{value!r} is not a Shape or a (rows, cols) pair")
        rows, cols = pair
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise ParameterError("shape", f"{rows}x{cols} is outside 1x1 .. {MAX_SIDE}x{MAX_SIDE}")
        return value if isinstance(value, Shape) else cls(rows, cols)

    def cell_name(self, cell: int) -> str:
        """How the command line names a cell: 1-based 'row,col' (cell 0 is '1,1')."""
        if not 0 <= cell < self.cells:
            raise DawgError(f"cell {cell}: a {self} board has cells 0..{self.cells - 1}")
        row, col = divmod(cell, self.cols)
        return f"{row + 1},{col + 1}"


def parse_size(text: str) -> Shape:
    match = _SIZE.match(text)
    if not match:
        raise ParameterError("size", f"{text!r} is not RxC (e.g. 4x4, 3x5)")
    shape = Shape(int(match[1]), int(match[2]))
    if not (1 <= shape.rows <= MAX_SIDE and 1 <= shape.cols <= MAX_SIDE):
        raise ParameterError("size", f"{shape} is outside 1x1 .. {MAX_SIDE}x{MAX_SIDE}")
    return shape


def face_token(face: str) -> str:
    """How a face is written in canonical notation: 'a', 'q' (Qu), '(th)', '.' (blank)."""
    symbol = ENGLISH_CHARSET.symbol_of(face)
    if len(symbol) > 1:
        return f"({face})"
    return symbol or BLANK


class Board:
    """A board: its cells' faces row by row ('a', 'qu', 'th', or '' for blank) and its shape, by which
    it is compared and hashed. A plain class rather than a dataclass, as `Charset` is: one board is
    scored without importing `dataclasses`."""

    def __init__(self, faces: tuple[str, ...], shape: Shape) -> None:
        self.faces, self.shape = faces, shape

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.faces, self.shape) == (other.faces, other.shape)

    def __hash__(self) -> int:
        return hash((self.faces, self.shape))

    def __repr__(self) -> str:
        return f"Board(faces={self.faces!r}, shape={self.shape!r})"

    @cached_property
    def notation(self) -> str:
        """Canonical notation: cells without separators, rows split by '/' unless square."""
        tokens = [face_token(f) for f in self.faces]
        if self.shape.square:
            return "".join(tokens)
        cols = self.shape.cols
        return "/".join("".join(tokens[r * cols:(r + 1) * cols]) for r in range(self.shape.rows))

    def __str__(self) -> str:
        return self.notation

    def cell_text(self, cell: int) -> str:
        """How a cell reads on the die: 'Qu', 'Th', 'A', 'Ł', or '.' for a blank."""
        return face_text(self.faces[cell]) or BLANK

    def grid(self) -> str:
        """The board as rows of cells, Qu and two-letter faces spelled out."""
        cols = self.shape.cols
        wide = max(len(self.cell_text(c)) for c in range(self.shape.cells))
        rows = []
        for r in range(self.shape.rows):
            cells = [self.cell_text(r * cols + c) for c in range(cols)]
            rows.append(" ".join(f"{cell:<{wide}}" for cell in cells).rstrip())
        return "\n".join(rows)

    def cell_name(self, cell: int) -> str:
        """1-based 'row,col' of a 0-based cell index (API paths are cell indices, row by row)."""
        return self.shape.cell_name(cell)

    def spell(self, path) -> str:
        """The word a path of cells spells."""
        return "".join(self.faces[c] for c in path)


def _group_face(letters: str, shown: str, charset: Charset) -> str:
    """The face of a parenthesised cell: a tile's face, two letters, or one letter (as written alone)."""
    if len(letters) == 1 or charset.symbol_of(letters) != letters:
        return charset.face_of(letters) if len(letters) == 1 else letters
    tile = next((ch for ch in letters if ch in charset.tile_letters), None)
    if tile is not None:
        raise DawgError(f"board {shown!r}: face '({letters})': '{tile}' is written alone, as the "
                        f"{face_text(charset.face_of(tile))} die")
    if len(letters) != 2:
        raise DawgError(f"board {shown!r}: face '({letters})': a face shows one or two letters, or a tile's")
    return letters


def _faces_of(row: str, shown: str, charset: Charset) -> list[str]:
    faces = []
    at = 0
    while at < len(row):
        ch = row[at]
        end = row.find(")", at) if ch == "(" else at
        if ch == BLANK or ch.isalpha():
            faces.append("" if ch == BLANK else charset.face_of(ch))
        elif end > at + 1 and row[at + 1:end].isalpha():
            faces.append(_group_face(row[at + 1:end], shown, charset))
        else:
            tiles = "".join(f", '{symbol}' for {face_text(face)}" for symbol, face in charset.tiles)
            raise DawgError(f"board {shown!r}: {ch!r} is not a cell (use {'a-z' if charset.legacy else 'letters'}"
                            f"{tiles}, '(th)' for a two-letter face, '.' for a blank)")
        at = end + 1
    return faces


def parse_board(text: str, shape: Shape | tuple[int, int] | None = None, charset: Charset | None = None) -> Board:
    """A board from its notation, read with `charset` (English's by default: 'q' is the Qu die);
    the size comes from `shape` (a Shape or a (rows, cols) pair), row separators or squareness."""
    if shape is not None:
        shape = Shape.of(shape)
    charset = charset or ENGLISH_CHARSET
    stripped = unicodedata.normalize("NFC", text.strip())
    shown = stripped if len(stripped) <= 40 else stripped[:37] + "..."
    lowered = "".join(map(lower, stripped))
    rows = [_faces_of(r, shown, charset) for r in _SEPARATORS.split(lowered) if r]
    faces = tuple(f for row in rows for f in row)
    if not faces:
        raise DawgError("board: empty")
    if shape is None:
        if len(rows) > 1:
            if len({len(r) for r in rows}) != 1:
                raise DawgError(f"board {shown!r}: rows have different lengths")
            shape = Shape(len(rows), len(rows[0]))
        else:
            side = int(round(len(faces) ** 0.5))
            if side * side != len(faces):
                raise DawgError(f"board {shown!r}: {len(faces)} cells is not square; give the size RxC")
            shape = Shape(side, side)
    if not (1 <= shape.rows <= MAX_SIDE and 1 <= shape.cols <= MAX_SIDE):
        raise DawgError(f"board {shown!r}: size {shape} is outside 1x1 .. {MAX_SIDE}x{MAX_SIDE}")
    if len(faces) != shape.cells:
        raise DawgError(f"board {shown!r}: {len(faces)} cells, size {shape} needs {shape.cells}")
    return Board(faces, shape)


@cache
def neighbours(shape: Shape) -> tuple[tuple[int, ...], ...]:
    """The neighbour cells of each cell, in reading order."""
    out = []
    for cell in range(shape.cells):
        r, c = divmod(cell, shape.cols)
        out.append(tuple(rr * shape.cols + cc
                         for rr in (r - 1, r, r + 1) for cc in (c - 1, c, c + 1)
                         if (rr, cc) != (r, c) and 0 <= rr < shape.rows and 0 <= cc < shape.cols))
    return tuple(out)


@cache
def neighbour_table(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """`neighbours` as arrays for compiled code: a (cells, MAX_NEIGHBOURS) table, -1 padding, and
    each cell's count. Shared between callers: read only."""
    around = neighbours(shape)
    table = np.full((shape.cells, MAX_NEIGHBOURS), -1, np.int64)
    for cell, cells in enumerate(around):
        table[cell, :len(cells)] = cells
    return table, np.array([len(c) for c in around], np.int64)


@cache
def neighbour_bits(shape: Shape) -> tuple[int, ...]:
    """Bit set of the neighbours of each cell, then of all cells (the walk's virtual root)."""
    return tuple(sum(1 << nb for nb in cell) for cell in neighbours(shape)) + ((1 << shape.cells) - 1,)


def blank_foreign(board: Board, charset: Charset) -> Board:
    """`board` as `skip_foreign` scores it: each face that uses a letter outside `charset` blank."""
    faces = tuple(face if charset.cell_code(face) >= 0 else "" for face in board.faces)
    return board if faces == board.faces else Board(faces, board.shape)


def _foreign_error(index: int, notation: str, shape: Shape, cell: int, face: str, charset: Charset) -> ForeignLetterError:
    """The one error of a board cell whose face uses a letter outside the charset, naming the cell."""
    return ForeignLetterError(index, f"board {notation!r}: cell {shape.cell_name(cell)} "
                                     f"{charset.foreign(face_text(face))}")


def encode(boards: list[Board], charset: Charset, skip_foreign: bool = False) -> np.ndarray:
    """(B, cells) cell codes of same-shape boards. A letter outside the charset is an error
    (ForeignLetterError) unless `skip_foreign`, which makes its cell unusable, like a blank."""
    if not boards:
        return np.zeros((0, 0), np.int64)
    known: dict[str, int] = {}  # face -> code: a few dozen faces serve any number of boards

    def code(face: str) -> int:
        found = known.get(face)
        if found is None:
            found = known[face] = charset.cell_code(face)
        return found

    codes = np.array([[code(face) for face in b.faces] for b in boards], np.int64)
    foreign = codes < 0
    if foreign.any():
        if not skip_foreign:
            b, cell = map(int, np.argwhere(foreign)[0])
            board = boards[b]
            raise _foreign_error(b, board.notation, board.shape, cell, board.faces[cell], charset)
        codes[foreign] = NO_LETTER
    return codes


class BoardError(DawgError):
    """A bad board in a batch; `index` is its position, so callers can name the line."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class ForeignLetterError(BoardError):
    """A board letter outside the lexicon's charset. The message says that the `skip_foreign`
    parameter would score the other cells; `worded` names that parameter otherwise (the command
    line's flag)."""

    PARAMETER = "skip_foreign"

    def __init__(self, index: int, problem: str) -> None:
        self.problem = problem
        super().__init__(index, self.worded(lambda parameter: f"{parameter}=True"))

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with the parameter written as `name(parameter)`."""
        return f"{self.problem} ({name(self.PARAMETER)} scores the other cells)"


def encode_texts(texts: list[str], charset: Charset, shape: Shape | None = None,
                 skip_foreign: bool = False) -> dict[Shape, tuple[np.ndarray, np.ndarray]]:
    """Cell codes of boards in notation, grouped by shape: {shape: (indices, codes)}; `shape`
    (a Shape or a (rows, cols) pair) sets the size of every board.

    Plain boards (letters only, no separators) take a vectorised path with no
    Board objects; anything else is parsed one by one. A bad board raises
    BoardError with its index.
    """
    if shape is not None:
        shape = Shape.of(shape)
    plain: dict[Shape, list[int]] = {}
    parsed: dict[Shape, list[tuple[int, Board]]] = {}
    shape_of_length: dict[int, Shape | None] = {}
    every = _one_plain_size(texts, shape)
    if every is not None:  # the usual file of boards, classified at once
        plain[every] = list(range(len(texts)))
    for i, text in enumerate(texts if every is None else ()):
        if text.isalpha() and (text.isascii() or unicodedata.is_normalized("NFC", text)):
            length = len(text)
            if length not in shape_of_length:
                size = shape or _square(length)
                shape_of_length[length] = size if size is not None and size.cells == length else None
            size = shape_of_length[length]
            if size is not None:
                plain.setdefault(size, []).append(i)
                continue
        try:
            board = parse_board(text, shape, charset)
        except DawgError as err:
            raise BoardError(i, str(err)) from None
        parsed.setdefault(board.shape, []).append((i, board))
    groups: dict[Shape, tuple[np.ndarray, np.ndarray]] = {}
    for size, indices in plain.items():
        codes = charset.encode_text("".join(texts[i] for i in indices), -1).reshape(len(indices), -1)
        bad = codes < 0
        if bad.any():
            if not skip_foreign:
                row, cell = map(int, np.argwhere(bad)[0])
                text = texts[indices[row]]
                raise _foreign_error(indices[row], text, size, cell, charset.face_of(lower(text[cell])), charset)
            codes[bad] = NO_LETTER
        groups[size] = (np.array(indices, np.int64), codes)
    for size, items in parsed.items():
        try:
            codes = encode([b for _, b in items], charset, skip_foreign)
        except BoardError as err:
            err.index = items[err.index][0]  # its position among `texts`
            raise
        where = np.array([i for i, _ in items], np.int64)
        if size in groups:
            old_where, old_codes = groups[size]
            where, codes = np.concatenate([old_where, where]), np.concatenate([old_codes, codes])
        groups[size] = (where, codes)
    return groups


def _one_plain_size(texts: list[str], shape: Shape | None) -> Shape | None:
    """The size of every board when all are ASCII letters of one length that makes a board
    (`shape`, else a square), else None: `encode_texts`' test of each board made once for all."""
    lengths = set(map(len, texts))
    if len(lengths) != 1:
        return None
    joined = "".join(texts)
    if not (joined.isascii() and joined.isalpha()):
        return None
    length = lengths.pop()
    size = shape or _square(length)
    return size if size is not None and size.cells == length else None


def _square(cells: int) -> Shape | None:
    side = int(round(cells ** 0.5))
    return Shape(side, side) if side * side == cells and 1 <= side <= MAX_SIDE else None
