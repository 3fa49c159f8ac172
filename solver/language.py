"""Languages: the letters a lexicon is written in, how a word list's spellings fold into them,
its multi-letter dice faces and its vowels.

A language is a small TOML file (the built-in ones are in solver/languages/;
`--language FILE` takes a copy of one, edited):

    name = "de"                      # short name: build directories, the manifest
    title = "Deutsch"                # what a person reads
    letters = "abcdefghijklmnopqrstuvwxyz"  # the alphabet, in code order
    tiles = [["q", "qu"]]            # a letter that stands for a multi-letter die face
    folds = [["ä", "ae"], ["ß", "ss"]]  # letters a list may hold, and what they count as
    vowels = "aeiou"                 # the proof's default split puts these in one bucket
    capitalised_nouns = true         # optional: a capital letter does not make a proper noun
    rules = "big"                    # optional: the rules its builds score under (solver/rules.py)
    dice = { file = "/usr/share/tanglet/gamedata/hu/dice", package = "tanglet-data" }  # optional: its own

A word's game form (`game_form`) is its NFC form in lower case, with the folds
applied, then Unicode case folding for anything left (ſ -> s, ligatures) and
NFC again; the lexicon's charset then turns each tile face into its letter
(`Charset.fold`). Letters must be single code points that case folding keeps
(so 'ß', which folds to "ss", cannot be a letter), fold sources single lower-case
letters outside the alphabet, and fold results letters of the alphabet. What a
file may hold is what a build's manifest may record (solver.manifest checks that
record with the limits defined here), so every build that reads a file opens.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from .charset import MAX_LETTERS, Charset, letter_problem, tiles_problem, upper
from .errors import DawgError, ParameterError
from .rules import DEFAULT_RULES, builtin_rules_names
from .schema import shown
from .toml_file import named_file, read_toml

DEFAULT_LANGUAGE = "en"
LETTERS_ALONE = "letters"  # the name a build of letters alone (no language file) records
# The vowels of the Latin, Greek and Cyrillic scripts: a letter of a build of letters alone is a vowel
# when its base letter (the first code point of its NFD form: 'á' -> 'a', 'ő' -> 'o') is one of them.
# Cyrillic й and ў are consonants built on и and у.
VOWEL_BASES = frozenset("aeiouyæøœ" "αεηιουω" "аеиоуыэюяіє")
NOT_VOWELS = frozenset("йў")
MAX_LANGUAGE_BYTES = 64 << 10  # a language file is a dozen lines
NAME_PATTERN = r"[a-z][a-z0-9_-]{0,39}"
MAX_TITLE = 200  # characters
MAX_FOLDS = 1000
MAX_FOLD_LETTERS = 8  # what one letter folds to
LONG_TEXT = 4096  # characters from which `game_form` folds by replacing, not translating (`_apply_folds`)
_NAME = re.compile(NAME_PATTERN)
_DICTIONARY = re.compile(r"https?://[^\s%]+(?:%(?!s)[^\s%]*)*%s[^\s%]*(?:%(?!s)[^\s%]*)*", re.ASCII)
_FIELDS = {"name", "title", "letters", "tiles", "folds", "vowels", "capitalised_nouns", "rules", "dice", "dictionary"}
_DICE_FIELDS = {"file", "package"}


def _directory() -> Path:
    return Path(__file__).with_name("languages")


def own_language(language: Language) -> Language:
    """The built-in language of `language`'s name where there is one (with its dice and its dictionary,
    which no manifest records), else `language` itself."""
    return load_language(language.name) if language.name in builtin_language_names() else language


def builtin_language_names() -> list[str]:
    """Names of the languages shipped in solver/languages/."""
    return sorted(p.stem for p in _directory().glob("*.toml"))


@dataclass(frozen=True)
class Language:
    """A language definition (see the module); `source` is the file it was read from."""

    name: str
    title: str
    letters: str
    tiles: tuple[tuple[str, str], ...]
    folds: tuple[tuple[str, str], ...]
    vowels: str
    capitalised_nouns: bool = False
    rules: str = DEFAULT_RULES  # a built-in rule set's name: what its builds score under by default
    source: str = field(default="", compare=False)
    # its own dice (a file another package may ship, named for the error when it is missing): what
    # `roll --language` rolls; not a property of a lexicon, so no manifest records it
    dice_file: str = field(default="", compare=False)
    dice_package: str = field(default="", compare=False)
    # where a player looks a word up (a URL template, %s the word as written, as Tanglet's language.ini
    # `Dictionary=` gives it); not a property of a lexicon either
    dictionary: str = field(default="", compare=False)

    def dice(self) -> str | None:
        """The language's own dice file, None where it names none; a DawgError naming the package
        that ships it where the file is missing."""
        if not self.dice_file or Path(self.dice_file).is_file():
            return self.dice_file or None
        hint = f": install the {self.dice_package} package (apt-get install {self.dice_package})" \
            if self.dice_package else ""
        raise DawgError(f"{self.source}: the dice of {self.title}, {self.dice_file}, not found{hint}")

    @cached_property
    def _fold_table(self) -> dict[int, str]:
        return {ord(letter): to for letter, to in self.folds}

    def game_form(self, word: str) -> str:
        """The word as the game spells it: NFC, lower case, folds, case folding (tiles not yet folded)."""
        return game_form(word, self._fold_table)

    def letter_folds(self, charset: Charset) -> dict[int, str]:
        """The characters a board or a die may show that fold to one letter of `charset` ('Ú' to 'u' in
        Spanish, Catalan's '·' to 'ŀ'), in either case: a str.translate table."""
        table = {}
        for source, target in self.folds:
            if len(target) == 1 and target in charset and source not in charset:
                table[ord(source)] = table[ord(upper(source))] = target
        return table

    def charset(self, letters: str | None = None) -> Charset:
        """The charset of all the language's letters, or of some of them, in the language's order."""
        chosen = self.letters if letters is None else "".join(ch for ch in self.letters if ch in letters)
        return Charset(chosen, self.tiles)

    @property
    def alphabet(self) -> str:
        """How messages name the alphabet: 'A-Z' for a-z, else the title."""
        if self.name == LETTERS_ALONE:
            return f"of the letters {''.join(map(upper, self.letters))}"
        return "A-Z" if self.letters == "abcdefghijklmnopqrstuvwxyz" else f"of {self.title}"

    def manifest_section(self) -> dict:
        """What a build's manifest records of its language: all of it (a charset may hold some of
        its letters only), so that it reads back without the file it came from."""
        return {"name": self.name, "title": self.title, "letters": self.letters,
                "tiles": [list(pair) for pair in self.tiles], "folds": [list(pair) for pair in self.folds],
                "vowels": self.vowels, "capitalised_nouns": self.capitalised_nouns}

    @classmethod
    def from_manifest(cls, section: dict, where: str) -> Language:
        """The language a manifest records (`where` names it in errors)."""
        return _parse(section, where)


def game_form(word: str, folds: dict[int, str] | None = None) -> str:
    """`word` in NFC, lower case, with `folds` (a str.translate table) applied, then case folding:
    a language's game form, and with no folds that of a build of letters alone."""
    lowered = unicodedata.normalize("NFC", word).lower()
    if folds:
        lowered = _apply_folds(lowered, folds)
    lowered = lowered.casefold()
    return lowered if lowered.isascii() else unicodedata.normalize("NFC", lowered)


def _apply_folds(text: str, folds: dict[int, str]) -> str:
    """`text.translate(folds)`. A long text (a block of a word list) has each folded letter replaced
    throughout instead, one fold after another, which gives the same since no fold's result holds a
    letter that folds (results are letters of the alphabet, sources never are: `_parse`); translating
    looks up every character in the table, a second for German's list of 675,650 words, where a
    replace scans at memory speed."""
    if len(text) < LONG_TEXT:
        return text.translate(folds)
    for source, target in folds.items():
        letter = chr(source)
        if letter in text:
            text = text.replace(letter, target)
    return text


def inferred_vowels(letters: str) -> str:
    """The letters whose base letter is a Latin, Greek or Cyrillic vowel (VOWEL_BASES, less NOT_VOWELS); where none is,
    the first letter alone, so that the proof's split still has a first bucket."""
    return "".join(ch for ch in letters if unicodedata.normalize("NFD", ch)[0] in VOWEL_BASES
                   and ch not in NOT_VOWELS) or letters[:1]


def letters_alone(letters: str, vowels: str | None = None, where: str = "--charset") -> Language:
    """The language of a build of letters alone (no language file): those letters in code point order,
    no folds, no tiles, `vowels` or those `inferred_vowels` finds. Checked as a language file is, so
    that a bad letter is one line naming `where`, and the build's manifest reads back."""
    ordered = "".join(sorted(set(letters)))
    chosen = inferred_vowels(ordered) if vowels is None else game_form(vowels)
    if not chosen or not set(chosen) <= set(ordered) or len(set(chosen)) != len(chosen):
        raise ParameterError("vowels", f"{shown(vowels)}: distinct letters of {ordered.upper()}, at least one")
    return _parse({"name": LETTERS_ALONE, "title": "letters alone, no folds or tiles", "letters": ordered,
                   "tiles": [], "folds": [], "vowels": chosen}, where)


def load_language(spec: str | Path) -> Language:
    """A built-in language by name (en, de, ...) or a language file by path."""
    path = named_file(str(spec), _directory(), "language", "a built-in language")
    return _builtin(path) if path.parent == _directory() else _read(path)


@cache
def _builtin(path: Path) -> Language:
    return _read(path)


def _read(path: Path) -> Language:
    return _parse(read_toml(path, "language file", MAX_LANGUAGE_BYTES), str(path))


def _parse(table: dict, where: str) -> Language:
    """A checked Language from a TOML table; the first bad field raises a DawgError naming it."""
    def bad(name: str, problem: str) -> DawgError:
        return DawgError(f"{where}: field {name}: {problem}")

    unknown = sorted(set(table) - _FIELDS)
    if unknown:
        raise bad(unknown[0], f"unknown (the fields are {', '.join(sorted(_FIELDS))})")
    for name in ("name", "title", "letters", "tiles", "folds", "vowels"):
        if name not in table:
            raise bad(name, "missing" + (f" (write {name} = [] for none)" if name in ("tiles", "folds") else ""))
    for name in ("name", "title", "letters", "vowels"):
        if not isinstance(table[name], str):
            raise bad(name, f"expected a string, got {shown(table[name])}")
    name, title = table["name"], table["title"]
    if not _NAME.fullmatch(name):
        raise bad("name", f"{shown(name)} is not a short name (a-z first, then a-z, 0-9, '-', '_'; 40 at most)")
    if not title.strip() or not title.isprintable() or len(title) > MAX_TITLE:
        raise bad("title", f"{shown(title)} is not a one-line title of {MAX_TITLE} characters at most")
    letters = _letters(table["letters"], bad)
    tiles = tuple(_pairs(table["tiles"], "tiles", bad))
    for symbol, face in tiles:
        if len(symbol) != 1 or symbol not in letters:
            raise bad("tiles", f"[{symbol!r}, {face!r}]: {symbol!r} is not one of the letters")
        outside = next((ch for ch in face if ch not in letters), None)
        if outside is not None:
            raise bad("tiles", f"[{symbol!r}, {face!r}]: {outside!r} in the face is not one of the letters")
    problem = tiles_problem(tiles)
    if problem:
        raise bad("tiles", problem)
    folds = tuple(_pairs(table["folds"], "folds", bad))
    if len(folds) > MAX_FOLDS:
        raise bad("folds", f"{len(folds)} pairs, more than the {MAX_FOLDS} a build records")
    for source, target in folds:
        pair = f"[{source!r}, {target!r}]"
        if len(source) != 1 or not (source.isalpha() or unicodedata.category(source) == "Po") \
                or source != source.lower():
            raise bad("folds", f"{pair}: what is folded is one lower-case letter, or one mark inside words "
                               f"(Catalan's middle dot '·')")
        if source in letters:
            raise bad("folds", f"{pair}: {source!r} is a letter of the alphabet, it cannot fold")
        outside = next((ch for ch in target if ch not in letters), None)
        if outside is not None:
            raise bad("folds", f"{pair}: folds to {outside!r}, which is not one of the letters")
        if not target:
            raise bad("folds", f"{pair}: folds to nothing")
        if len(target) > MAX_FOLD_LETTERS:
            raise bad("folds", f"{pair}: a letter folds to {MAX_FOLD_LETTERS} letters at most")
    vowels = table["vowels"]
    outside = next((ch for ch in vowels if ch not in letters), None)
    if not vowels or outside is not None or len(set(vowels)) != len(vowels):
        raise bad("vowels", f"{shown(vowels)}: distinct letters of the alphabet, at least one")
    capitalised = table.get("capitalised_nouns", False)
    if not isinstance(capitalised, bool):
        raise bad("capitalised_nouns", f"expected true or false, got {shown(capitalised)}")
    rules = table.get("rules", DEFAULT_RULES)
    if rules not in builtin_rules_names():
        raise bad("rules", f"{shown(rules)} is not a built-in rule set ({', '.join(builtin_rules_names())})")
    dice = table.get("dice", {})
    if not isinstance(dice, dict) or set(dice) - _DICE_FIELDS or not all(isinstance(v, str) for v in dice.values()) \
            or ("package" in dice and "file" not in dice):
        raise bad("dice", f"{shown(dice)} is not a table such as {{ file = \"/usr/share/x/dice\", package = \"x\" }}")
    dictionary = table.get("dictionary", "")
    if not isinstance(dictionary, str) or dictionary and (len(dictionary) > 300 or not _DICTIONARY.fullmatch(dictionary)):
        raise bad("dictionary", f"{shown(dictionary)} is not a URL template such as "
                                f"\"https://de.wiktionary.org/wiki/%s\" (http or https, one %s for the word)")
    return Language(name, title, letters, tiles, folds, vowels, capitalised, rules, where,
                    dice.get("file", ""), dice.get("package", ""), dictionary)


def _letters(text: str, bad) -> str:
    if not text:
        raise bad("letters", "empty")
    if len(text) > MAX_LETTERS:
        raise bad("letters", f"{len(text)} letters, more than the {MAX_LETTERS} a lexicon can hold")
    for ch in text:
        if letter_problem(ch) or ch.casefold() != ch:
            raise bad("letters", f"{ch!r} (U+{ord(ch):04X}) is not a lower-case letter that case folding "
                                 f"keeps (write it in NFC; 'ß' folds to 'ss')")
    repeated = next((ch for ch in text if text.count(ch) > 1), None)
    if repeated is not None:
        raise bad("letters", f"{repeated!r} repeated")
    return text


def _pairs(value, name: str, bad):
    """The (from, to) pairs of a list such as [["q", "qu"]], each string in NFC."""
    if not isinstance(value, list):
        raise bad(name, f"expected a list of pairs such as [[\"q\", \"qu\"]], got {shown(value)}")
    for pair in value:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise bad(name, f"{shown(pair)} is not a pair of strings such as [\"q\", \"qu\"]")
        yield unicodedata.normalize("NFC", pair[0]), unicodedata.normalize("NFC", pair[1])


ENGLISH = load_language(DEFAULT_LANGUAGE)
