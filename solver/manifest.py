"""The build manifest: one schema check of every field, used by every reader.

`parse_manifest` decodes `manifest.msgpack` and checks each field's type and
range (bool is not an integer here), so that no command meets a value of the
wrong kind later. The first bad field raises a one-line `DawgError` naming
the manifest and the field, e.g. `build/x/manifest.msgpack: field
source.sha256: expected a 64-digit hex string, got nil`. The checked
manifest keeps only the fields described in docs/formats.md, in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgpack
import numpy as np

from .charset import Charset
from .errors import DawgError
from .formats.common import HEADER, MANIFEST_VERSION, MAX_INDEX, AdtLayout
from .schema import MAX_COUNT, BadField, fields, integer, list_of, optional, shown, text

MAX_LENGTH = int(np.iinfo(HEADER["max_length"]).max)  # 255: the headers store word lengths in one byte

BUILD_FORMATS = ("trie", "dawg", "adtdawg")  # the formats a build writes, each with its manifest entry


def counts(value, name):
    """A map of reason -> count, as `dropped` is."""
    if not isinstance(value, dict):
        raise BadField(name, "a map", value)
    for key in value:
        if not isinstance(key, str) or not re.fullmatch(r"[a-z_]{1,40}", key):
            raise BadField(name, "reasons named in lower-case letters and '_'", key)
    return {key: integer(0, MAX_COUNT)(v, f"{name}.{key}") for key, v in value.items()}


def charset_letters(value, name):
    if isinstance(value, str):
        try:
            return Charset(value).letters
        except ValueError:
            pass
    raise BadField(name, "letters a-z, distinct and in alphabetical order", value)


# A file name the readers open inside the build directory: no path, no control characters.
file_name = text(r"(?!\.\.?\Z)[^/\x00-\x1f\x7f]{1,255}", "a plain file name")
sha256 = text(r"[0-9a-f]{64}", "a 64-digit hex string")
size = integer(0, MAX_COUNT)
index_count = integer(0, MAX_INDEX)
file_entry = {"file": file_name, "bytes": size, "sha256": sha256}

SCHEMA = fields(
    manifest_version=integer(MANIFEST_VERSION, MANIFEST_VERSION),
    tool=text(r"[^\x00-\x1f\x7f]{1,200}", "a one-line tool name"),
    source=fields(name=text(r"[^/\x00-\x1f\x7f]{1,255}", "a file name"), sha256=sha256, bytes=size,
                  lines=size, entries=size),
    options=fields(charset=charset_letters, min_length=integer(1, MAX_LENGTH),
                   max_length=optional(integer(1, MAX_LENGTH))),
    charset=charset_letters,
    words=integer(1, MAX_INDEX - 1),
    max_length=integer(1, MAX_LENGTH),
    dropped=counts,
    trie=fields(**file_entry, nodes=index_count),
    dawg=fields(**file_entry, states=index_count, edges=index_count),
    adtdawg=fields(
        files=list_of(fields(**file_entry), length=4), bytes=size, nodes=index_count, child_sets=index_count,
        wide_nodes=index_count,
        layout=fields(letters=integer(1, 26), first_child_bits=integer(15, 32), child_set_bits=integer(11, 31),
                      node_bytes=integer(4, 8), child_set_words=integer(1, 2)),
    ),
)


@dataclass(frozen=True)
class Manifest:
    """A checked manifest: `data` holds only the documented fields, each of its documented type."""

    path: Path
    data: dict

    @property
    def charset(self) -> Charset:
        return Charset(self.data["charset"])

    @property
    def layout(self) -> AdtLayout:
        lay = self.data["adtdawg"]["layout"]
        return AdtLayout(lay["letters"], lay["first_child_bits"], lay["child_set_bits"])

    def entry(self, fmt: str) -> dict:
        return self.data[fmt]

    def has(self, fmt: str) -> bool:
        """Whether the build recorded files of this format."""
        return fmt in BUILD_FORMATS

    def files(self, fmt: str) -> list[dict]:
        """The file entries (file, bytes, sha256) of one format."""
        return self.data["adtdawg"]["files"] if fmt == "adtdawg" else [self.data[fmt]]

    def file_names(self) -> set[str]:
        return {e["file"] for fmt in BUILD_FORMATS for e in self.files(fmt)}


def parse_manifest(path: Path, raw: bytes) -> Manifest:
    """Decode and check a manifest's bytes; any problem is a DawgError naming `path` and the field."""
    try:
        data = msgpack.unpackb(raw, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise DawgError(f"{path}: not a msgpack manifest (corrupt or foreign file)") from None
    version = data.get("manifest_version") if isinstance(data, dict) else None
    if type(version) is not int or version != MANIFEST_VERSION:
        raise DawgError(f"{path}: manifest version {shown(version, null='nil')}, this reader knows {MANIFEST_VERSION}")
    try:
        checked = SCHEMA(data, "")
    except BadField as bad:
        raise DawgError(f"{path}: field {bad.name}: {bad.problem(null='nil')}") from None
    _check_agreement(path, checked)
    return Manifest(path, checked)


def _check_agreement(path: Path, data: dict) -> None:
    """Fields that restate others must agree; the ADTDAWG layout must be possible and agree with
    the charset and its own derived sizes."""
    if data["options"]["charset"] != data["charset"]:
        raise DawgError(f"{path}: fields charset and options.charset differ "
                        f"({data['charset']!r}, {data['options']['charset']!r})")
    lay = data["adtdawg"]["layout"]
    try:
        layout = AdtLayout(lay["letters"], lay["first_child_bits"], lay["child_set_bits"])
    except ValueError:
        raise DawgError(f"{path}: field adtdawg.layout: impossible layout "
                        f"(first_child_bits + child_set_bits must be at most 62)") from None
    for key, derived in (("letters", len(data["charset"])), ("node_bytes", layout.node_bytes),
                         ("child_set_words", layout.child_set_words)):
        if lay[key] != derived:
            raise DawgError(f"{path}: field adtdawg.layout.{key}: expected {derived} (from field "
                            f"{'charset' if key == 'letters' else 'adtdawg.layout'}), got {lay[key]}")
