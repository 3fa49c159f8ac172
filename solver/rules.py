"""The rules of play as data: which words count on a board and what each scores.

A rule set is a small TOML file (the built-in ones are in solver/rule_sets/;
`--rules FILE` takes a copy of one, edited):

    name = "standard"                # short name: outputs, checkpoint headers
    title = "Boggle"                 # what a person reads
    min_length = 3                   # the shortest word that counts
    points = { 3 = 1, 5 = 2, 6 = 3, 7 = 5, 8 = 11 }  # by word length: a length scores the entry
                                     # of the longest length at or below it (4 letters: 1, 9: 11)
    tiles_count = "letters"          # a tile (Qu) counts its letters ("letters") or one ("one")
    source = "..."                   # optional: where the rules are printed

Every scorer reads a rule set through `card` (points by word length for the
kernels, -1 for a length that is not a word) and `code_lengths` (how many
letters each letter code counts for), so the one-board engine, the batch
backends, the proof's bounds and the game score alike. `as_dict` is what JSON
outputs, manifests and checkpoint headers record: a run under one rule set
never resumes under another. The card is kept as the lengths where the points
change, so the same card written with more entries is the same rule set, and a
minimum set apart from the card (`with_min_length`) keeps the card's points.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np

from .errors import DawgError
from .schema import BadField, fields, integer, list_of, one_of, pair, shown, text
from .toml_file import named_file, read_toml

DEFAULT_RULES = "standard"
MAX_RULES_BYTES = 16 << 10
MAX_POINTS = 1_000_000  # a word's points at most: a board's sum stays far inside int64
MAX_MIN_LENGTH = 255    # the longest word a lexicon holds
MAX_CARD = 64           # entries of `points` at most
TILES_COUNT = ("letters", "one")
_NAME = r"[a-z][a-z0-9_-]{0,39}"
_REQUIRED = ("name", "title", "min_length", "points")
_OPTIONAL = ("tiles_count", "source")

# What a rule set records in JSON outputs and checkpoint headers (`as_dict`), checked as every reader checks it;
# a build's manifest records its title too (`manifest_section`).
_RECORD = dict(name=text(_NAME, "a short name"), min_length=integer(1, MAX_MIN_LENGTH),
               points=list_of(pair(integer(1, MAX_MIN_LENGTH), integer(0, MAX_POINTS), "a [length, points] pair"),
                              most=MAX_CARD),
               tiles_count=one_of(*TILES_COUNT))
RULES_SCHEMA = fields(**_RECORD)
MANIFEST_SCHEMA = fields(**_RECORD, title=text(r"[^\x00-\x1f\x7f]{1,200}", "a one-line title"))


def _directory() -> Path:
    return Path(__file__).with_name("rule_sets")


def builtin_rules_names() -> list[str]:
    """Names of the rule sets shipped in solver/rule_sets/."""
    return sorted(p.stem for p in _directory().glob("*.toml"))


class Rules:
    """A rule set (see the module): the shortest word, points by length from there, and how a tile counts.
    Compared and hashed by all but `source`. A plain class rather than a dataclass, as `Charset` is: one
    board is scored without importing `dataclasses`."""

    def __init__(self, name: str, title: str, min_length: int, points: tuple[tuple[int, int], ...],
                 tiles_count: str = "letters", source: str = "") -> None:
        self.name, self.title, self.min_length = name, title, min_length
        self.points = points  # (length, points) where the points change, shortest first
        self.tiles_count, self.source = tiles_count, source

    def _key(self) -> tuple:
        return self.name, self.title, self.min_length, self.points, self.tiles_count

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rules):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Rules(name={self.name!r}, title={self.title!r}, min_length={self.min_length!r}, "
                f"points={self.points!r}, tiles_count={self.tiles_count!r}, source={self.source!r})")

    def word_points(self, length: int) -> int:
        """Points of a word of `length` letters (as this rule set counts them); 0 below the minimum."""
        if length < self.min_length:
            return 0
        return next((p for at, p in reversed(self.points) if at <= length), self.points[0][1])

    def with_min_length(self, min_length: int) -> Rules:
        """These rules with another shortest word (the card unchanged), as `play --min-length` asks."""
        if min_length == self.min_length:
            return self
        return _parse({"name": f"{self.name}-min{min_length}"[:40], "title": self.title, "min_length": min_length,
                       "points": {str(at): p for at, p in self.points}, "tiles_count": self.tiles_count},
                      f"rules {self.name}")

    def counts(self, length: int) -> bool:
        """Whether a word of `length` letters counts at all."""
        return length >= self.min_length

    def card(self, longest: int) -> np.ndarray:
        """Points by length 0..`longest` for the kernels (int64), -1 where a length is not a word."""
        return np.array([self.word_points(n) if self.counts(n) else -1 for n in range(longest + 1)], np.int64)

    def code_lengths(self, charset) -> np.ndarray:
        """Letters each first-letter code of `charset` counts for: a tile its face's letters, or one."""
        lengths = charset.code_lengths
        return lengths if self.tiles_count == "letters" else np.minimum(lengths, 1)

    def word_length(self, charset, spelled: str) -> int:
        """Letters a word as spelled ("quit") counts for under these rules, `charset` giving its tiles."""
        return len(spelled) if self.tiles_count == "letters" else len(charset.fold(spelled))

    def as_dict(self) -> dict:
        """What outputs and checkpoint headers record: everything that changes a score."""
        return {"name": self.name, "min_length": self.min_length, "points": [list(p) for p in self.points],
                "tiles_count": self.tiles_count}

    def manifest_section(self) -> dict:
        """What a build's manifest records of the rules it scores under: `as_dict` and the title."""
        return {**self.as_dict(), "title": self.title}

    def describe(self) -> str:
        """One line for messages: 'standard (3+ letters; 3: 1, 5: 2, 6: 3, 7: 5, 8+: 11)'."""
        lengths = [self.min_length] + [at for at, _ in self.points if at > self.min_length]
        parts = [f"{at}: {self.word_points(at)}" for at in lengths]
        parts[-1] = parts[-1].replace(":", "+:", 1)
        tiles = "; a tile counts one letter" if self.tiles_count == "one" else ""
        return f"{self.name} ({self.min_length}+ letters; {', '.join(parts)}{tiles})"

    @classmethod
    def from_dict(cls, value: dict, where: str) -> Rules:
        """The rule set an output (RULES_SCHEMA) or a manifest (MANIFEST_SCHEMA, with its title) recorded."""
        try:
            checked = (MANIFEST_SCHEMA if isinstance(value, dict) and "title" in value else RULES_SCHEMA)(value, "rules")
        except BadField as bad:
            raise DawgError(f"{where}: field {bad.name}: {bad.problem()}") from None
        points = {str(at): p for at, p in checked["points"]}
        if len(points) != len(checked["points"]):
            raise DawgError(f"{where}: field rules.points: a length given twice")
        return _parse({"title": checked["name"], **checked, "points": points}, where)


def describe_dict(value) -> str:
    """`Rules.describe` of a recorded rule set, or what the value is when it is not one."""
    try:
        return Rules.from_dict(value, "rules").describe()
    except DawgError:
        return shown(value)


# The rules everything scores under unless told otherwise, built in: scoring a board then needs no TOML
# parser, whose import is a good part of a one-board run. solver/rule_sets/standard.toml is the same rule
# set written out, the file to copy for rules of one's own (tests/test_library.py checks that they agree).
STANDARD = Rules(DEFAULT_RULES, "Boggle", 3, ((3, 1), (5, 2), (6, 3), (7, 5), (8, 11)), "letters",
                 "Boggle instructions (Parker Brothers; Hasbro): 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8+: 11")


def load_rules(spec: str | Path | Rules | None) -> Rules:
    """A built-in rule set by name (standard, big, words), a rules file by path, or the default."""
    if isinstance(spec, Rules):
        return spec
    if spec is None or spec == DEFAULT_RULES:
        return STANDARD
    path = named_file(str(spec), _directory(), "rules", "built-in rules")
    return _builtin(path) if path.parent == _directory() else _read(path)


@cache
def _builtin(path: Path) -> Rules:
    return _read(path)


def _read(path: Path) -> Rules:
    return _parse(read_toml(path, "rules file", MAX_RULES_BYTES), str(path))


def _parse(table: dict, where: str) -> Rules:
    """A checked Rules from a TOML table; the first bad field raises a DawgError naming it."""
    def bad(name: str, problem: str) -> DawgError:
        return DawgError(f"{where}: field {name}: {problem}")

    unknown = sorted(set(table) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise bad(unknown[0], f"unknown (the fields are {', '.join(sorted(_REQUIRED + _OPTIONAL))})")
    missing = next((name for name in _REQUIRED if name not in table), None)
    if missing:
        raise bad(missing, "missing")
    name, title = table["name"], table["title"]
    if not isinstance(name, str) or not re.fullmatch(_NAME, name):
        raise bad("name", f"{shown(name)} is not a short name (a-z first, then a-z, 0-9, '-', '_'; 40 at most)")
    if not isinstance(title, str) or not title.strip() or not title.isprintable() or len(title) > 200:
        raise bad("title", f"{shown(title)} is not a one-line title of 200 characters at most")
    min_length = table["min_length"]
    if isinstance(min_length, bool) or not isinstance(min_length, int) or not 1 <= min_length <= MAX_MIN_LENGTH:
        raise bad("min_length", f"expected an integer 1..{MAX_MIN_LENGTH}, got {shown(min_length)}")
    points = _card(table["points"], bad)
    tiles_count = table.get("tiles_count", "letters")
    if tiles_count not in TILES_COUNT:
        raise bad("tiles_count", f"expected \"letters\" or \"one\", got {shown(tiles_count)}")
    source = table.get("source", "")
    if not isinstance(source, str) or not source.isprintable() or len(source) > 400:
        raise bad("source", f"expected one line of text, got {shown(source)}")
    return Rules(name, title, min_length, points, tiles_count, source)


def _card(table, bad) -> tuple[tuple[int, int], ...]:
    """The (length, points) pairs of a `points` table, shortest first, only where the points change."""
    if not isinstance(table, dict) or not 1 <= len(table) <= MAX_CARD:
        raise bad("points", f"expected a table of 1 to {MAX_CARD} word lengths and their points, such as "
                            f"{{ 3 = 1, 5 = 2 }}, got {shown(table)}")
    card = []
    for key, value in table.items():
        if not re.fullmatch(r"[1-9][0-9]{0,2}", key) or int(key) > MAX_MIN_LENGTH:
            raise bad("points", f"{key!r} is not a word length 1..{MAX_MIN_LENGTH}")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_POINTS:
            raise bad(f"points.{key}", f"expected an integer 0..{MAX_POINTS}, got {shown(value)}")
        card.append((int(key), value))
    card.sort()
    return tuple(entry for i, entry in enumerate(card) if i == 0 or entry[1] != card[i - 1][1])
