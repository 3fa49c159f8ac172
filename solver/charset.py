"""Charsets: which letters a lexicon holds, its tiles, and the one rule from letters to codes.

A charset is a set of lower-case letters (any Unicode letters, NFC) in code
order, the order of the language: a letter's index (its code) is its position,
which is the order children are stored in every format. For English and every
charset of `--charset` that order is alphabetical, as files before alphabets
existed have it.

A tile is a die face of several letters that stands for one symbol of the
charset: English's ("q", "qu"), the Qu die, so a word's "qu" is one symbol
'q' and a bare 'q' on a board is that die. Tiles are a property of the
charset (hence of its language): Polish has none, so its 'q' is a plain
letter. Everything that turns letters, faces or folded words into codes and
back (boards, dice, search, proof, the kernels' spelled lengths) goes through
a `Charset`, as does the one wording of a letter outside it.

`--charset N` picks the first N letters of `RANKING`, a fixed order: letter
frequency in TWL06 (E S I A R N T O L C D U P M G ...), except that U is moved
after G. With that one move N = 14 gives exactly the JPA14 set of the reference
ADTDAWG (A C D E G I L M N O P R S T), N = 26 gives the whole alphabet, and
every other N is a prefix of the same list, independent of the word list.
"""

from __future__ import annotations

import unicodedata
from functools import cached_property
from typing import TYPE_CHECKING

from .errors import ParameterError
from .walk_kernels import MAX_CODES, NO_LETTER, SECOND

if TYPE_CHECKING:
    import numpy as np

ALPHABET = "abcdefghijklmnopqrstuvwxyz"  # string.ascii_lowercase, without importing `string`
JPA14 = "acdegilmnoprst"
RANKING = "esiarntolcdpmguhbyfvkwzxjq"
MAX_LETTERS = 62  # letter codes 0..61: below NO_LETTER and inside a 62-bit letter mask (kernels.MAX_CODES)
MAX_FACE_LETTERS = 8  # a die face fits a few letters; a tile's drop reason must fit the manifest's 40 characters
ENGLISH_TILES: tuple[tuple[str, str], ...] = (("q", "qu"),)  # the Qu die

assert sorted(RANKING) == list(ALPHABET)
assert sorted(RANKING[:14]) == list(JPA14)
assert MAX_LETTERS <= MAX_CODES


def upper(letter: str) -> str:
    """A letter as the language writes it in capitals: its upper case where that is one letter
    ('ß' stays 'ß', whose upper case is 'SS')."""
    up = letter.upper()
    return up if len(up) == 1 else letter


def lower(letter: str) -> str:
    """A letter in lower case where that is one letter ('İ' stays, whose lower case is two)."""
    low = letter.lower()
    return low if len(low) == 1 else letter


def face_text(face: str) -> str:
    """How a die face reads: its first letter in capitals ('A', 'Qu', 'Th'); '' stays ''."""
    return upper(face[0]) + face[1:] if face else face


def letter_problem(letter: str) -> str | None:
    """Why `letter` cannot be a letter of a charset (one lower-case NFC letter), or None."""
    if len(letter) != 1 or not letter.isalpha():
        return f"{letter!r} is not a letter"
    if unicodedata.normalize("NFC", letter) != letter:
        return f"{letter!r} is not in NFC form"
    if lower(letter) != letter:
        return f"{letter!r} is not lower case"
    return None


def tiles_problem(tiles: tuple[tuple[str, str], ...]) -> str | None:
    """Why `tiles` ((letter, face) pairs) cannot be a charset's, or None. So that every word folds
    one way and unfolds to itself, a face holds no tile's letter but its own, first, and no two
    faces overlap (['a', 'ab'] with ['b', 'ba'] would read "aba" as 'a' + 'a' and as 'a' + 'b')."""
    for i, (symbol, face) in enumerate(tiles):
        shown = f"[{symbol!r}, {face!r}]"
        if not 2 <= len(face) <= MAX_FACE_LETTERS or any(letter_problem(ch) for ch in face):
            return f"{shown}: a face is 2 to {MAX_FACE_LETTERS} lower-case letters"
        if any(symbol == other for other, _ in tiles[:i]):
            return f"{symbol!r} is the letter of two tiles"
        if any(face == other for _, other in tiles[:i]):
            return f"{face!r} is the face of two tiles"
    for symbol, face in tiles:
        holder = next((other for letter, other in tiles if symbol in (other[1:] if letter == symbol else other)), None)
        if holder is not None:
            return (f"[{symbol!r}, {face!r}]: the face {holder!r} holds {symbol!r}, a tile's letter, which only "
                    f"its own face may hold, first")
    faces = [face for _, face in tiles]
    for face in faces:
        for other in faces:
            if (face != other and face in other) or any(face.endswith(other[:k]) for k in range(1, len(other))):
                return f"the faces {face!r} and {other!r} overlap, so a word could fold two ways"
    return None


class Charset:
    """Letters in code order (index i is the i-th letter) and the tiles among them.

    `tiles` are (symbol, face) pairs; a tile whose symbol is not a letter of the charset is
    left out, so Charset("abc") has no Qu. ValueError for letters that are not distinct
    lower-case NFC letters, more than MAX_LETTERS of them, or tiles `tiles_problem` refuses.
    Compared and hashed by its letters and tiles. A plain class rather than a dataclass: opening a
    lexicon makes no other dataclass, so it need not import `dataclasses`."""

    def __init__(self, letters: str, tiles: tuple[tuple[str, str], ...] = ENGLISH_TILES) -> None:
        if not isinstance(letters, str) or not letters or len(set(letters)) != len(letters):
            raise ValueError(f"charset letters must be distinct letters: {letters!r}")
        problem = next(filter(None, map(letter_problem, letters)), None)
        if problem:
            raise ValueError(f"charset letters: {problem}")
        if len(letters) > MAX_LETTERS:
            raise ValueError(f"{len(letters)} letters, more than the {MAX_LETTERS} a lexicon can hold")
        odd = next((symbol for symbol, _ in tiles if len(symbol) != 1), None)
        if odd is not None:
            raise ValueError(f"tile letter {odd!r} is not one letter")
        kept = tuple((str(symbol), str(face)) for symbol, face in tiles if symbol in letters)
        problem = tiles_problem(kept)
        if problem:
            raise ValueError(f"tiles: {problem}")
        self.letters, self.tiles = letters, kept

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Charset):
            return NotImplemented
        return (self.letters, self.tiles) == (other.letters, other.tiles)

    def __hash__(self) -> int:
        return hash((self.letters, self.tiles))

    def __repr__(self) -> str:
        return f"Charset(letters={self.letters!r}, tiles={self.tiles!r})"

    def __len__(self) -> int:
        return len(self.letters)

    def __contains__(self, letter: str) -> bool:
        return letter in self.letters

    @cached_property
    def _faces(self) -> dict[str, str]:
        return dict(self.tiles)

    @cached_property
    def _symbols(self) -> dict[str, str]:
        return {face: symbol for symbol, face in self.tiles}

    @property
    def label(self) -> str:
        """Short name for directory names: the size when it is a ranked set, else the letters."""
        n = len(self.letters)
        return str(n) if self.letters == "".join(sorted(RANKING[:n])) else self.letters

    @cached_property
    def legacy(self) -> bool:
        """Whether the format-version-1 headers can hold this charset: at most 26 letters a-z in
        alphabetical order, and the Qu die exactly when 'q' is one of them (what those files imply)."""
        return (set(self.letters) <= set(ALPHABET) and list(self.letters) == sorted(self.letters)
                and self.tiles == Charset(self.letters).tiles)

    # --- words: spelled (as written) and folded (one symbol per tile) ---------------------

    @cached_property
    def tiles_longest_first(self) -> tuple[tuple[str, str], ...]:
        """The tiles, longest face first: the order folding replaces faces in."""
        return tuple(sorted(self.tiles, key=lambda tile: -len(tile[1])))

    def fold(self, spelled: str) -> str:
        """A spelled word with each tile face as its symbol ("queen" -> "qeen")."""
        for symbol, face in self.tiles_longest_first:
            if face in spelled:
                spelled = spelled.replace(face, symbol)
        return spelled

    def unfold(self, folded: str) -> str:
        """A folded word (or many, in one string) as spelled. No face holds another tile's letter, so each
        tile's letter is replaced by its face in turn (str.replace: a listing of words at a time)."""
        for symbol, face in self.tiles:
            if symbol in folded:
                folded = folded.replace(symbol, face)
        return folded

    def face_of(self, symbol: str) -> str:
        """The face a one-letter symbol stands for ('q' -> 'qu' in English)."""
        return self._faces.get(symbol, symbol)

    def symbol_of(self, face: str) -> str:
        """The symbol of a face ('qu' -> 'q' in English); other faces are their own."""
        return self._symbols.get(face, face)

    def spelled_length(self, folded: str) -> int:
        """Letters of a folded word as spelled (a tile counts its face's letters: "qu" two)."""
        return len(self.unfold(folded))

    def display(self, symbols: str) -> str:
        """Symbols as the language writes them on dice: capitals, tiles as their face ('Qu')."""
        return "".join(face_text(self.face_of(ch)) for ch in symbols)

    # --- codes -------------------------------------------------------------------------

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
        return self.face_of(self.letters[code])

    @cached_property
    def tile_letters(self) -> frozenset[str]:
        """The symbols that stand for tiles (never a plain letter of a board or a word)."""
        return frozenset(self._faces)

    @cached_property
    def code_lengths(self) -> np.ndarray:
        """Letters each first-letter code spells (the kernels' cell lengths): 1, a tile its face's
        letters; NO_LETTER and unused codes 0."""
        import numpy as np

        lengths = np.zeros(NO_LETTER + 1, np.int64)
        lengths[:len(self.letters)] = [len(self.face(c)) for c in range(len(self.letters))]
        return lengths

    @cached_property
    def cell_letters(self) -> int:
        """The most letters one cell code can spell: a face of a letter or tile, then a second letter."""
        return 1 + max([1, *(len(face) for _, face in self.tiles)])

    def cell_code(self, face: str) -> int:
        """The kernels' code of a board face: its letter code ('a', 'qu'), NO_LETTER for a
        blank, first + SECOND * (second + 1) for a two-letter face; -1 if it uses a letter
        outside the charset."""
        if not face:
            return NO_LETTER
        symbol = self.symbol_of(face)
        if len(symbol) == 1:
            return self.code(symbol)
        if len(face) != 2:
            return -1
        first, second = self.code(face[0]), self.code(face[1])
        return first + SECOND * (second + 1) if first >= 0 and second >= 0 else -1

    @cached_property
    def _points(self) -> tuple[np.ndarray, np.ndarray]:
        """Code points of the letters in either case, sorted, and the code of each. A capital reads
        as its lower case (`lower`), as `parse_board` reads it: Turkish 'I' is 'i', never 'ı', whose
        capital it also is, and Greek 'Σ' is 'σ', not 'ς'; one board reads one way everywhere."""
        import numpy as np

        pairs = {}
        for code, ch in enumerate(self.letters):
            pairs[ord(ch)] = code
            if lower(upper(ch)) == ch:
                pairs[ord(upper(ch))] = code
        keys = np.array(sorted(pairs), np.uint32)
        return keys, np.array([pairs[k] for k in keys.tolist()], np.int64)

    def encode_text(self, text: str, missing: int = NO_LETTER) -> np.ndarray:
        """The code of every character of `text` (a letter in either case), `missing` for any
        other character: vectorised, for word lists and plain boards. ASCII text, a byte a
        character, indexes a table of the 128 ASCII characters' codes (on a file of boards, a
        tenth of the time of looking each character up)."""
        import numpy as np

        if text.isascii():
            ascii_points = np.arange(128, dtype=np.uint32)  # the code points of ASCII text, a byte a character
            return self._codes_of(ascii_points, missing)[np.frombuffer(text.encode("ascii"), np.uint8)]
        return self._codes_of(np.frombuffer(text.encode("utf-32-le"), np.uint32), missing)

    def _codes_of(self, points: np.ndarray, missing: int) -> np.ndarray:
        """The code of each code point, `missing` for a point that is not a letter."""
        import numpy as np

        keys, codes = self._points
        at = np.minimum(np.searchsorted(keys, points), len(keys) - 1)
        return np.where(keys[at] == points, codes[at], missing)

    @cached_property
    def _order(self) -> dict[int, str] | None:
        """Each letter's code as a character (a str.translate table); None where the letters are in
        code point order already, so that symbols are their own key."""
        if list(self.letters) == sorted(self.letters):
            return None
        return {ord(ch): chr(1 + code) for code, ch in enumerate(self.letters)}

    def order_key(self, symbols: str) -> str:
        """A key that sorts strings of symbols in code order, the order of the formats' words (code
        point order only where the letters are alphabetical: Polish puts 'ą' after 'a')."""
        order = self._order
        return symbols if order is None else symbols.translate(order)

    @cached_property
    def _letter_set(self) -> frozenset[str]:
        return frozenset(self.letters)

    def outside(self, symbols: str) -> bool:
        """Whether a string of symbols uses a letter outside the charset."""
        return not self._letter_set.issuperset(symbols)

    def foreign(self, shown: str | None = None) -> str:
        """The one wording of a letter outside the charset; `shown` (a letter, face or board as
        the user wrote it) names what uses it, else the sentence's subject is the caller's."""
        problem = f"uses a letter outside the lexicon's charset {''.join(map(upper, self.letters))}"
        return problem if shown is None else f"{shown!r} {problem}"


ENGLISH_CHARSET = Charset(ALPHABET)  # how a board is read and written when no lexicon says otherwise


def ranked(n: int) -> Charset:
    """The first n letters of RANKING, in alphabetical order."""
    if not 1 <= n <= len(RANKING):
        raise ParameterError("charset", f"size must be 1..{len(RANKING)}, got {n}")
    return Charset("".join(sorted(RANKING[:n])))


def parse_charset(spec: str | int, alphabet: str = ALPHABET) -> Charset:
    """A charset from a size ("14", of the English ranking) or an explicit list of letters
    ("ACDEGILMNOPRST", any case) of `alphabet` (a language's letters in code order; English's
    a-z by default), which also gives their order. A size must be the alphabet's own unless the
    alphabet is a-z."""
    text = unicodedata.normalize("NFC", str(spec).strip())
    if text.isdigit() or (text[:1] in "+-" and text[1:].isdigit()):
        n = int(text)
        if set(alphabet) == set(ALPHABET):  # a few of a-z would take ranked letters they lack
            return ranked(n)
        if n != len(alphabet):
            raise ParameterError("charset", f"a size picks from the English ranking; this alphabet has "
                                            f"{len(alphabet)} letters: give {len(alphabet)} or the letters")
        return Charset(alphabet)
    if not text:
        raise ParameterError("charset", "empty; give a size 1..26 or letters such as ACDEGILMNOPRST")
    lowered = "".join(map(lower, text))
    bad = sorted({ch for ch in lowered if ch not in alphabet})
    if bad:
        shown = " ".join(repr(upper(ch)) for ch in bad)
        where = "a-z" if alphabet == ALPHABET else f"of the alphabet {''.join(map(upper, alphabet))}"
        raise ParameterError("charset", f"{shown} not letters {where} (give a size 1..26 or letters)")
    repeated = sorted({ch for ch in lowered if lowered.count(ch) > 1})
    if repeated:
        raise ParameterError("charset", f"letter{'s' if len(repeated) > 1 else ''} "
                        f"{', '.join(map(upper, repeated))} repeated")
    return Charset("".join(ch for ch in alphabet if ch in lowered))
