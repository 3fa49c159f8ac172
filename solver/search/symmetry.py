"""Rotations and reflections of boards, canonical forms, and fingerprints of boards seen.

Boards that are rotations or reflections of each other (8 symmetries of a
square board, 4 of other rectangles) are one board. They are kept and printed
in canonical form: the image whose notation is lexicographically smallest.
Letter codes are alphabetical indices and 'q' (the Qu die) is written 'q', so
the smallest code sequence is the smallest notation.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..board import Board, Shape


@cache
def symmetries(shape: Shape) -> np.ndarray:
    """The distinct cell permutations mapping a board onto its rotations and reflections,
    identity first: `board[perm]` is an image of `board`."""
    grid = np.arange(shape.cells).reshape(shape.rows, shape.cols)
    images = []
    for turns in range(4):
        turned = np.rot90(grid, turns)
        for image in (turned, np.fliplr(turned)):
            if image.shape == grid.shape:
                images.append(image.ravel())
    perms = np.unique(np.array(images), axis=0)  # rows sorted: the identity comes first
    perms.flags.writeable = False
    return perms


def canonical_codes(codes: np.ndarray, shape: Shape) -> np.ndarray:
    """The canonical form of each board of a (B, cells) code array: its lexicographically
    smallest image under the symmetries of the shape."""
    codes = np.asarray(codes)
    perms = symmetries(shape)
    best = codes[:, perms[0]]
    rows = np.arange(len(codes))
    for perm in perms[1:]:
        image = codes[:, perm]
        differs = image != best
        first = differs.argmax(axis=1)
        smaller = differs[rows, first] & (image[rows, first] < best[rows, first])
        best[smaller] = image[smaller]
    return best


def canonical_board(board: Board) -> Board:
    """The image of a board (any faces) with the lexicographically smallest notation."""
    images = [Board(tuple(board.faces[c] for c in perm), board.shape) for perm in symmetries(board.shape)]
    return min(images, key=lambda b: b.notation)


@cache
def _fingerprint_weights() -> np.ndarray:
    """Fixed odd 64-bit weights, one per cell (made on first use: `dawg-solve BOARD` never needs them)."""
    return np.random.Generator(np.random.PCG64(0xB0661E)).integers(0, 2**64, 64, dtype=np.uint64) | np.uint64(1)


def fingerprints(canonical: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each canonical board (a random linear form mod 2^64: two given
    boards collide with probability below 2^-57)."""
    weights = _fingerprint_weights()[:canonical.shape[1]]
    return (canonical.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


class SeenBoards:
    """Fingerprints of the boards scored so far, kept as sorted runs merged like a binary
    counter: a lookup is a few binary searches and a fingerprint is re-merged O(log n)
    times; 8 bytes per board."""

    def __init__(self) -> None:
        self._runs: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(run) for run in self._runs)

    def known(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(len(keys), bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            found |= run[at] == keys
        return found

    def add(self, keys: np.ndarray) -> None:
        """Remember new fingerprints (distinct, and not known yet)."""
        if not len(keys):
            return
        run = np.sort(keys)
        while self._runs and len(self._runs[-1]) <= len(run):
            run = np.concatenate([self._runs.pop(), run])
            run.sort(kind="stable")  # timsort: a linear merge of the two sorted halves
        self._runs.append(run)

