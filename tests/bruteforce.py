"""An independent Boggle scorer for the tests: plain sets and every path, nothing shared with the solver.

It reads the raw word list itself, keeps words of 3+ letters, and follows
every path of adjacent, unused cells, pruning only on a set of all prefixes.
A cell's face is spelled out ('qu', 'th'), so the Qu die and two-letter faces
need no special case; a word's points go by its spelled length, under the
classic card or any `Card` (a minimum length, points by length, and the tile
faces that count as one letter each when a rule set says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

POINTS = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5}


def word_points(word: str) -> int:
    return POINTS.get(len(word), 11 if len(word) >= 8 else 0)


@dataclass(frozen=True)
class Card:
    """Rules as the tests write them: words of `min_length` letters or more count; a word scores the
    points of the longest length in `points` at or below its own (the shortest entry's below them
    all); each face in `one_letter` counts as one letter."""

    min_length: int = 3
    points: dict = field(default_factory=lambda: {3: 1, 5: 2, 6: 3, 7: 5, 8: 11})
    one_letter: tuple = ()

    def length(self, word: str) -> int:
        return len(word) - sum(word.count(face) * (len(face) - 1) for face in self.one_letter)

    def counts(self, word: str) -> bool:
        return self.length(word) >= self.min_length

    def score(self, word: str) -> int:
        below = [at for at in self.points if at <= self.length(word)]
        return self.points[max(below)] if below else self.points[min(self.points)]


class Reference:
    def __init__(self, words):
        self.words = {w.strip().lower() for w in words if len(w.strip()) >= 3}
        self.prefixes = {w[:i] for w in self.words for i in range(1, len(w) + 1)}
        self.boards: dict[tuple, frozenset[str]] = {}  # (faces, rows, cols) -> found: see `found`

    @classmethod
    def from_file(cls, path: Path) -> Reference:
        text = Path(path).read_text(encoding="utf-8-sig")
        return cls(w for w in text.split() if w.isalpha())

    def found(self, faces: list[str], rows: int, cols: int) -> frozenset[str]:
        """Every word some path of the board spells; kept, since tests ask again for the same boards (under
        other rules, other formats) and every path of a big board takes a while."""
        key = (tuple(faces), rows, cols)
        if key not in self.boards:
            self.boards[key] = frozenset(self._paths(faces, rows, cols))
        return self.boards[key]

    def _paths(self, faces: list[str], rows: int, cols: int) -> set[str]:
        found: set[str] = set()

        def extend(cell: int, used: frozenset, prefix: str) -> None:
            text = prefix + faces[cell]
            if not faces[cell] or text not in self.prefixes:
                return
            if text in self.words:
                found.add(text)
            r, c = divmod(cell, cols)
            for rr in range(max(r - 1, 0), min(r + 2, rows)):
                for cc in range(max(c - 1, 0), min(c + 2, cols)):
                    nxt = rr * cols + cc
                    if nxt not in used:
                        extend(nxt, used | {nxt}, text)

        for start in range(rows * cols):
            extend(start, frozenset({start}), "")
        return found

    def score(self, faces: list[str], rows: int, cols: int) -> int:
        return sum(word_points(w) for w in self.found(faces, rows, cols))

    def found_under(self, card: Card, faces: list[str], rows: int, cols: int) -> dict[str, int]:
        """Every word on the board that counts under `card`, with its points."""
        return {w: card.score(w) for w in self.found(faces, rows, cols) if card.counts(w)}
