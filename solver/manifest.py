"""The build manifest: one schema check of every field, used by every reader.

`parse_manifest` decodes `manifest.msgpack` and checks each field's type and
range (bool is not an integer here), so that no command meets a value of the
wrong kind later. The first bad field raises a one-line `DawgError` naming
the manifest and the field, e.g. `build/x/manifest.msgpack: field
source.sha256: expected a 64-digit hex string, got nil`. The checked
manifest keeps only the fields described in docs/formats.md, in that order.
The fields of every build are defined here; each format's section (its schema,
its file entries, what it must agree with) comes from its registry entry in
`solver.formats`, which never imports this module.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import msgpack

from .charset import MAX_FACE_LETTERS, MAX_LETTERS, Charset, letter_problem
from .errors import DawgError
from .formats import FORMATS, ManifestEntry
from .formats.common import MANIFEST_VERSION, MAX_INDEX, MAX_WORD_LENGTH
from .schema import BadField, fields, integer, list_of, optional, pair, sha256, shown, text
from .written import WRITTEN_FILE

MAX_REASON = 40  # characters of a drop reason: a tile's ("q_without_u") fits with a face of MAX_FACE_LETTERS


def counts(value, name):
    """A map of reason -> count, as `dropped` is. A tile's reason is named after its letters, which
    are lower case, or have no case (Hebrew's 'ש_without_ת')."""
    if not isinstance(value, dict):
        raise BadField(name, "a map", value)
    for key in value:
        if not isinstance(key, str) or not 0 < len(key) <= MAX_REASON or any(
                ch != "_" and letter_problem(ch) for ch in key):
            raise BadField(name, f"reasons named in lower-case letters and '_', {MAX_REASON} at most", key)
    return {key: integer()(v, f"{name}.{key}") for key, v in value.items()}


def charset_letters(value, name):
    if isinstance(value, str):
        try:
            return Charset(value, ()).letters
        except ValueError:
            pass
    raise BadField(name, f"1..{MAX_LETTERS} distinct lower-case letters", value)


def tile(value, name):
    """A [symbol, face] pair: one letter and the 2 to MAX_FACE_LETTERS letters it stands for."""
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)
            and len(value[0]) == 1 and 2 <= len(value[1]) <= MAX_FACE_LETTERS):
        return value
    raise BadField(name, f"a [symbol, face] pair of a letter and the 2 to {MAX_FACE_LETTERS} letters it stands for",
                   value)


def flag(value, name):
    if not isinstance(value, bool):
        raise BadField(name, "true or false", value)
    return value


def rules_section(value, name):
    """A build's rules (solver.rules' `Rules.manifest_section`), checked by that module's schema."""
    from .rules import MANIFEST_SCHEMA

    return MANIFEST_SCHEMA(value, name)


def language_section(value, name):
    """A build's language (solver.language's `Language.manifest_section`), within that module's limits."""
    from .language import MAX_FOLD_LETTERS, MAX_FOLDS, MAX_TITLE, NAME_PATTERN

    return fields(name=text(NAME_PATTERN, "a language's short name"),
                  title=text(rf"[^\x00-\x1f\x7f]{{1,{MAX_TITLE}}}", "a one-line title"),
                  letters=charset_letters, tiles=list_of(tile, most=MAX_LETTERS),
                  folds=list_of(pair(text(r"[^\x00-\x1f\x7f]", "a letter"),
                                     text(rf"[^\x00-\x1f\x7f]{{1,{MAX_FOLD_LETTERS}}}", "letters"),
                                     "a [letter, letters] pair"),
                                most=MAX_FOLDS),
                  vowels=charset_letters, capitalised_nouns=flag)(value, name)


# Written only where a build needs them, so that an English build keeps its bytes: `tiles` where
# they differ from what the letters imply (the Qu die exactly when 'q' is a letter), `language`
# for a language other than English, `rules` for rules other than the standard ones, `written`
# (solver.written's file) where the list wrote some words otherwise than the game plays them.
# The language and rules modules are imported only to check a build that records them.
OPTIONAL_FIELDS = dict(
    rules=rules_section,
    written=fields(file=text(re.escape(WRITTEN_FILE), f"{WRITTEN_FILE!r}"), bytes=integer(), sha256=sha256,
                   words=integer(1, MAX_INDEX - 1)),
    tiles=list_of(tile, most=MAX_LETTERS),
    language=language_section,
)
# How the list was read, in `options`, where not the default (compiler.wordlist.ListOptions).
OPTIONAL_OPTIONS = dict(input_format=text(r"[a-z_]{1,20}", "an input format's name"), lenient=flag)


# The fields of every build; each format's section follows, under its name, in registry order.
BUILD_FIELDS = dict(
    manifest_version=integer(MANIFEST_VERSION, MANIFEST_VERSION),
    tool=text(r"[^\x00-\x1f\x7f]{1,200}", "a one-line tool name"),
    source=fields(name=text(r"[^/\x00-\x1f\x7f]{1,255}", "a file name"), sha256=sha256, bytes=integer(),
                  lines=integer(), entries=integer()),
    options=fields(charset=charset_letters, min_length=integer(1, MAX_WORD_LENGTH),
                   max_length=optional(integer(1, MAX_WORD_LENGTH))),
    charset=charset_letters,
    words=integer(1, MAX_INDEX - 1),
    max_length=integer(1, MAX_WORD_LENGTH),
    dropped=counts,
)


def manifest_charset(data: dict) -> Charset:
    """The charset a checked manifest records: its letters, and its tiles or the implied ones."""
    letters = data["charset"]
    return Charset(letters, tuple(map(tuple, data["tiles"]))) if "tiles" in data else Charset(letters)


def manifest_fields(charset: Charset, language: dict | None, rules: dict | None = None) -> dict:
    """The optional fields a build of `charset` for `language` (None: English) scoring under `rules`
    (None: the standard ones) writes (OPTIONAL_FIELDS)."""
    extra = {} if charset.tiles == Charset(charset.letters).tiles else {"tiles": [list(t) for t in charset.tiles]}
    return {**extra, **({"language": language} if language else {}), **({"rules": rules} if rules else {})}


class Manifest(NamedTuple):
    """A checked manifest: `data` holds only the documented fields, each of its documented type."""

    path: Path
    data: dict

    @property
    def charset(self) -> Charset:
        return manifest_charset(self.data)

    @property
    def language_section(self) -> dict | None:
        """The language the build was made for (`Language.manifest_section`); None for English."""
        return self.data.get("language")

    @property
    def rules_section(self) -> dict | None:
        """The rules the build scores under (`Rules.manifest_section`); None for the standard ones."""
        return self.data.get("rules")

    def entry(self, fmt: str) -> ManifestEntry:
        """What the manifest records for the loader of one format."""
        return ManifestEntry(self.charset, self.data["words"], self.data["max_length"], self.data[fmt])

    def files(self, fmt: str) -> list[dict]:
        """The file entries (file, bytes, sha256) of one format."""
        return FORMATS[fmt].section_files(self.data[fmt])

    @property
    def written(self) -> dict | None:
        """The file of the words' spellings as written (solver.written), where the build keeps any."""
        return self.data.get("written")

    def file_names(self) -> set[str]:
        return {e["file"] for fmt in FORMATS for e in self.files(fmt)} | ({WRITTEN_FILE} if self.written else set())


def parse_manifest(path: Path, raw: bytes) -> Manifest:
    """Decode and check a manifest's bytes; any problem is a DawgError naming `path` and the field."""
    try:
        data = msgpack.unpackb(raw, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise DawgError(f"{path}: not a msgpack manifest (corrupt or foreign file)") from None
    version = data.get("manifest_version") if isinstance(data, dict) else None
    if type(version) is not int or version != MANIFEST_VERSION:
        raise DawgError(f"{path}: manifest version {shown(version, null='nil')}, this reader knows {MANIFEST_VERSION}")
    schema = fields(**BUILD_FIELDS, **{name: spec.section for name, spec in FORMATS.items()})
    try:
        checked = schema(data, "")
        checked.update({key: check(data[key], key) for key, check in OPTIONAL_FIELDS.items() if key in data})
        checked["options"].update({key: check(data["options"][key], f"options.{key}")
                                   for key, check in OPTIONAL_OPTIONS.items() if key in data["options"]})
    except BadField as bad:
        raise DawgError(f"{path}: field {bad.name}: {bad.problem(null='nil')}") from None
    try:
        charset = manifest_charset(checked)
    except ValueError as err:
        raise DawgError(f"{path}: field tiles: {err}") from None
    if "tiles" in checked and list(charset.tiles) != list(map(tuple, checked["tiles"])):
        raise DawgError(f"{path}: field tiles: a tile's symbol is not one of the letters")
    if checked["options"]["charset"] != checked["charset"]:
        raise DawgError(f"{path}: fields charset and options.charset differ "
                        f"({checked['charset']!r}, {checked['options']['charset']!r})")
    for spec in FORMATS.values():
        if spec.agree:
            spec.agree(path, checked)
    return Manifest(path, checked)
