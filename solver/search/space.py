"""The boards a search may visit, as rows of letter codes, and the moves between them."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from ..board import Board, Shape
from ..charset import Charset, face_text, lower
from ..errors import DawgError, ParameterError


def codes_to_board(codes: np.ndarray, charset: Charset, shape: Shape) -> Board:
    return Board(tuple(charset.face(c) for c in codes.tolist()), shape)


def board_to_codes(board: Board, charset: Charset) -> np.ndarray:
    """Letter codes of a board of single letters (and Qu) from the charset."""
    codes = []
    for cell in range(board.shape.cells):
        symbol = charset.symbol_of(board.faces[cell])
        if len(symbol) != 1:
            raise DawgError(f"board {board.notation!r}: {board.cell_text(cell)!r} is not a letter of the "
                            f"lexicon's charset {charset.display(charset.letters)}")
        code = charset.code(symbol)
        if code < 0:
            raise DawgError(f"board {board.notation!r}: {charset.foreign(board.cell_text(cell))}")
        codes.append(code)
    return np.array(codes, np.int64)


def parse_letters(text: str, charset: Charset, what: str) -> list[int]:
    """Codes of the letters of `text` (a tile's symbol is its die, 'q' Qu's in English; case, spaces
    and commas ignored)."""
    codes = []
    for ch in map(lower, unicodedata.normalize("NFC", text)):
        if ch in " ,":
            continue
        if not ch.isalpha():
            raise ParameterError(what, f"{ch!r} is not a letter")
        code = charset.code(ch)
        if code < 0:
            raise ParameterError(what, charset.foreign(face_text(ch)))
        codes.append(code)
    if not codes:
        raise ParameterError(what, "no letters given")
    return codes


@dataclass
class BoardSpace:
    """The boards a search may visit: any letters of `letters` on every cell, or (rearranging)
    only the arrangements of the letters of `multiset`, reached by swaps."""

    shape: Shape
    letters: np.ndarray
    multiset: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.pairs = np.array(np.triu_indices(self.shape.cells, 1)).T

    def random(self, rng: np.random.Generator, count: int) -> np.ndarray:
        if self.multiset is not None:
            return rng.permuted(np.tile(self.multiset, (count, 1)), axis=1)
        return self.letters[rng.integers(0, len(self.letters), (count, self.shape.cells))]

    def single_changes(self, board: np.ndarray) -> np.ndarray:
        """Every board with one cell's letter changed to another letter of the alphabet."""
        if self.multiset is not None:
            return np.zeros((0, len(board)), board.dtype)
        cells, count = self.shape.cells, len(self.letters)
        cell = np.repeat(np.arange(cells), count)
        letter = np.tile(self.letters, cells)
        keep = letter != board[cell]
        out = np.tile(board, (int(keep.sum()), 1))
        out[np.arange(len(out)), cell[keep]] = letter[keep]
        return out

    def swaps(self, board: np.ndarray) -> np.ndarray:
        """Every board with two cells of different letters exchanged."""
        first, second = self.pairs[:, 0], self.pairs[:, 1]
        keep = board[first] != board[second]
        first, second = first[keep], second[keep]
        out = np.tile(board, (len(first), 1))
        rows = np.arange(len(out))
        out[rows, first] = board[second]
        out[rows, second] = board[first]
        return out

    def neighbours(self, board: np.ndarray) -> np.ndarray:
        return np.concatenate([self.single_changes(board), self.swaps(board)])

    def double_changes(self, board: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """Every board with both cells of each given pair changed to other letters."""
        count = len(self.letters)
        first = np.repeat(pairs[:, 0], count * count)
        second = np.repeat(pairs[:, 1], count * count)
        letter_a = np.tile(np.repeat(self.letters, count), len(pairs))
        letter_b = np.tile(self.letters, count * len(pairs))
        keep = (letter_a != board[first]) & (letter_b != board[second])
        out = np.tile(board, (int(keep.sum()), 1))
        rows = np.arange(len(out))
        out[rows, first[keep]] = letter_a[keep]
        out[rows, second[keep]] = letter_b[keep]
        return out

    def mutate(self, rng: np.random.Generator, boards: np.ndarray, swap_share: float) -> np.ndarray:
        """One random move per board: a swap with probability `swap_share` (always, when
        rearranging), else a cell changed to a different random letter."""
        count, cells = boards.shape
        rows = np.arange(count)
        swap = rng.random(count) < (1.0 if self.multiset is not None else swap_share)
        cell = rng.integers(0, cells, count)
        other = (cell + rng.integers(1, cells, count)) % cells if cells > 1 else cell
        pick = rng.integers(0, len(self.letters) - 1, count) if len(self.letters) > 1 else np.zeros(count, int)
        letter = self.letters[pick]
        # Drawing from all but the last letter and mapping the current letter to the last one
        # gives a uniform choice among the letters other than the current one.
        letter = np.where(letter == boards[rows, cell], self.letters[-1], letter)
        out = boards.copy()
        out[rows, cell] = np.where(swap, boards[rows, other], letter)
        out[rows[swap], other[swap]] = boards[rows[swap], cell[swap]]
        return out

