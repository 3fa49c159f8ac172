"""Reduced character sets: which letters a lexicon holds and the index of each.

A charset is a set of lower-case letters kept in alphabetical order; a letter's
index is its position in that order, which is the order children are stored in
every format. 'q' stands for the Qu die, so a word's "qu" is one symbol.

`--charset N` picks the first N letters of `RANKING`, a fixed order: letter
frequency in TWL06 (E S I A R N T O L C D U P M G ...), except that U is moved
after G. With that one move N = 14 gives exactly the JPA14 set of the reference
ADTDAWG (A C D E G I L M N O P R S T), N = 26 gives the whole alphabet, and
every other N is a prefix of the same list, independent of the word list.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from .errors import DawgError

ALPHABET = string.ascii_lowercase
JPA14 = "acdegilmnoprst"
RANKING = "esiarntolcdpmguhbyfvkwzxjq"
MAX_LETTERS = 26

assert sorted(RANKING) == list(ALPHABET)
assert sorted(RANKING[:14]) == list(JPA14)


@dataclass(frozen=True)
class Charset:
    """An alphabetically ordered set of letters; index i is the i-th letter."""

    letters: str

    def __post_init__(self) -> None:
        if not self.letters or list(self.letters) != sorted(set(self.letters)):
            raise ValueError(f"charset letters must be distinct and sorted: {self.letters!r}")
        if not set(self.letters) <= set(ALPHABET):
            raise ValueError(f"charset letters must be a-z: {self.letters!r}")

    def __len__(self) -> int:
        return len(self.letters)

    @property
    def label(self) -> str:
        """Short name for directory names: the size when it is a ranked set, else the letters."""
        n = len(self.letters)
        return str(n) if self.letters == "".join(sorted(RANKING[:n])) else self.letters

    def __contains__(self, letter: str) -> bool:
        return letter in self.letters


def ranked(n: int) -> Charset:
    """The first n letters of RANKING, in alphabetical order."""
    if not 1 <= n <= MAX_LETTERS:
        raise DawgError(f"--charset: size must be 1..{MAX_LETTERS}, got {n}")
    return Charset("".join(sorted(RANKING[:n])))


def parse_charset(spec: str | int) -> Charset:
    """A charset from a size ("14") or an explicit list of letters ("ACDEGILMNOPRST")."""
    text = str(spec).strip()
    if text.isdigit() or (text[:1] in "+-" and text[1:].isdigit()):
        return ranked(int(text))
    if not text:
        raise DawgError("--charset: empty; give a size 1..26 or letters such as ACDEGILMNOPRST")
    lower = text.lower()
    bad = sorted({ch for ch in lower if ch not in ALPHABET})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise DawgError(f"--charset: {shown} not letters a-z (give a size 1..26 or letters)")
    repeated = sorted({ch for ch in lower if lower.count(ch) > 1})
    if repeated:
        raise DawgError(f"--charset: letter{'s' if len(repeated) > 1 else ''} "
                        f"{', '.join(ch.upper() for ch in repeated)} repeated")
    return Charset("".join(sorted(lower)))
