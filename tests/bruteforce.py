"""An independent Boggle scorer for the tests: plain sets and every path, nothing shared with the solver.

It reads the raw word list itself, keeps words of 3+ letters, and follows
every path of adjacent, unused cells, pruning only on a set of all prefixes.
A cell's face is spelled out ('qu', 'th'), so the Qu die and two-letter faces
need no special case; a word's points go by its spelled length.
"""

from __future__ import annotations

from pathlib import Path

POINTS = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5}


def word_points(word: str) -> int:
    return POINTS.get(len(word), 11 if len(word) >= 8 else 0)


class Reference:
    def __init__(self, words):
        self.words = {w.strip().lower() for w in words if len(w.strip()) >= 3}
        self.prefixes = {w[:i] for w in self.words for i in range(1, len(w) + 1)}

    @classmethod
    def from_file(cls, path: Path) -> Reference:
        text = Path(path).read_text(encoding="utf-8-sig")
        return cls(w for w in text.split() if w.isalpha())

    def found(self, faces: list[str], rows: int, cols: int) -> set[str]:
        """Every word some path of the board spells."""
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
