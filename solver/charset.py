"""Reduced character sets: which letters a lexicon holds, and the one rule from letters to codes.

A charset is a set of lower-case letters kept in alphabetical order; a letter's
index (its code) is its position in that order, which is the order children are
stored in every format. 'q' stands for the Qu die, so a word's "qu" is one
symbol. Everything that turns letters, faces or folded words into codes and back
(boards, dice, search, proof, the kernels' Qu code) goes through this module, as
does the one wording of a letter outside the charset.

`--charset N` picks the first N letters of `RANKING`, a fixed order: letter
frequency in TWL06 (E S I A R N T O L C D U P M G ...), except that U is moved
after G. With that one move N = 14 gives exactly the JPA14 set of the reference
ADTDAWG (A C D E G I L M N O P R S T), N = 26 gives the whole alphabet, and
every other N is a prefix of the same list, independent of the word list.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import ParameterError
from .kernels import NO_LETTER, SECOND

ALPHABET = string.ascii_lowercase
JPA14 = "acdegilmnoprst"
RANKING = "esiarntolcdpmguhbyfvkwzxjq"
MAX_LETTERS = 26

assert sorted(RANKING) == list(ALPHABET)
assert sorted(RANKING[:14]) == list(JPA14)

QU = "q"        # the Qu die's symbol: one letter of a folded word, one cell of board notation
QU_FACE = "qu"  # what that die shows, and what the symbol spells in a word


def face_of(symbol: str) -> str:
    """The face a one-letter symbol stands for ('q' -> 'qu')."""
    return QU_FACE if symbol == QU else symbol


def symbol_of(face: str) -> str:
    """The symbol of a face ('qu' -> 'q'); other faces are their own."""
    return QU if face == QU_FACE else face


def fold(word: str) -> str:
    """A spelled word with each "qu" as the one symbol 'q'."""
    return word.replace(QU_FACE, QU)


def unfold(word: str) -> str:
    """A folded word as it is spelled."""
    return word.replace(QU, QU_FACE)


def spelled_length(word: str) -> int:
    """Letters of a folded word as spelled ("qu" counts two)."""
    return len(word) + word.count(QU)


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

    def code(self, symbol: str) -> int:
        """The code of a one-letter symbol ('q' for Qu), or -1 when the charset lacks it."""
        return self.letters.find(symbol) if len(symbol) == 1 else -1

    def codes(self, symbols: str) -> list[int]:
        """The codes of a string of symbols, each in the charset."""
        return [self.letters.index(ch) for ch in symbols]

    def symbols(self, codes) -> str:
        """The symbols of letter codes, as one string ('q' for Qu)."""
        return "".join(self.letters[c] for c in codes)

    def face(self, code: int) -> str:
        """The face a letter code shows ('qu' for Qu's)."""
        return face_of(self.letters[code])

    @cached_property
    def qu_code(self) -> int:
        """The code of the Qu die (a cell of two letters), or -1 when the charset lacks it."""
        return self.code(QU)

    def cell_code(self, face: str) -> int:
        """The kernels' code of a board face: its letter code ('a', 'qu'), NO_LETTER for a
        blank, first + SECOND * (second + 1) for a two-letter face; -1 if it uses a letter
        outside the charset."""
        if not face:
            return NO_LETTER
        symbol = symbol_of(face)
        if len(symbol) == 1:
            return self.code(symbol)
        first, second = self.code(face[0]), self.code(face[1])
        return first + SECOND * (second + 1) if first >= 0 and second >= 0 else -1

    def code_table(self, missing: int = NO_LETTER, dtype=np.int64) -> np.ndarray:
        """Byte -> code of one-letter notation in either case; `missing` for every other byte."""
        table = np.full(256, missing, dtype)
        for code, ch in enumerate(self.letters):
            table[ord(ch)] = table[ord(ch.upper())] = code
        return table

    def outside(self, symbols: str) -> bool:
        """Whether a string of symbols uses a letter outside the charset."""
        return not set(symbols) <= set(self.letters)

    def foreign(self, shown: str | None = None) -> str:
        """The one wording of a letter outside the charset; `shown` (a letter, face or board as
        the user wrote it) names what uses it, else the sentence's subject is the caller's."""
        problem = f"uses a letter outside the lexicon's charset {self.letters.upper()}"
        return problem if shown is None else f"{shown!r} {problem}"


def ranked(n: int) -> Charset:
    """The first n letters of RANKING, in alphabetical order."""
    if not 1 <= n <= MAX_LETTERS:
        raise ParameterError("charset", f"size must be 1..{MAX_LETTERS}, got {n}")
    return Charset("".join(sorted(RANKING[:n])))


def parse_charset(spec: str | int) -> Charset:
    """A charset from a size ("14") or an explicit list of letters ("ACDEGILMNOPRST")."""
    text = str(spec).strip()
    if text.isdigit() or (text[:1] in "+-" and text[1:].isdigit()):
        return ranked(int(text))
    if not text:
        raise ParameterError("charset", "empty; give a size 1..26 or letters such as ACDEGILMNOPRST")
    lower = text.lower()
    bad = sorted({ch for ch in lower if ch not in ALPHABET})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise ParameterError("charset", f"{shown} not letters a-z (give a size 1..26 or letters)")
    repeated = sorted({ch for ch in lower if lower.count(ch) > 1})
    if repeated:
        raise ParameterError("charset", f"letter{'s' if len(repeated) > 1 else ''} "
                        f"{', '.join(ch.upper() for ch in repeated)} repeated")
    return Charset("".join(sorted(lower)))
