"""Open a compiled lexicon and validate it once, completely.

`open_lexicon(path)` accepts a build directory, its manifest, one format's
file, or a directory holding the four reference ADTDAWG part files (read as
JPA14). Validation checks sizes, checksums, every index, the word numbering
equations and that every walk ends (no cycles, no node that leads to no
word), in the integer types the kernels use, so that the kernels can walk the
arrays with no bounds checks: after it, every reachable child index is inside
its array and every word number a walk can produce lies in the stamp array.
Any failure raises `DawgError` naming the file and what is wrong.

What each format checks is in its module (solver/formats/); the files of a
directory are read from one snapshot of it (`formats.base.Snapshot`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .errors import DawgError, ParameterError, reading
from .formats import FORMATS, Lexicon
from .formats.base import MAX_WORD_IDS, Snapshot, verify_sha256
from .formats.common import MANIFEST_FILE
from .manifest import Manifest, parse_manifest
from .written import WRITTEN_FILE, WrittenForms

__all__ = ["Lexicon", "open_all", "open_lexicon", "read_manifest"]

T = TypeVar("T")
WORD_LIST_SAMPLE = 4096  # bytes of an unknown file read to tell a word list given by mistake


def read_manifest(path: Path) -> Manifest:
    """Read and check a manifest file (every field's type and range, see solver.manifest)."""
    path = Path(path)
    snap = Snapshot(path.parent)
    try:
        return parse_manifest(path, snap.read(path.name, "manifest").tobytes())
    finally:
        snap.close()


def _available(snap: Snapshot, name: str | None) -> tuple[Manifest | None, dict[str, list[str]]]:
    """The manifest (if it covers what is opened) and the file names of each format present,
    in registry order. `name` is a single file asked for, else None."""
    manifest = None
    if snap.is_file(MANIFEST_FILE):
        manifest = parse_manifest(snap.path / MANIFEST_FILE, snap.read(MANIFEST_FILE, "manifest").tobytes())
    if name is not None:
        if manifest and name not in manifest.file_names():
            manifest = None  # a file renamed or copied next to another build's manifest
        fmt = _format_of_file(snap, name)
        if manifest:
            return manifest, {fmt: [e["file"] for e in manifest.files(fmt)]}
        names = FORMATS[fmt].files(snap, name)
        return None, {fmt: names} if names and all(snap.is_file(n) for n in names) else {}
    if manifest:
        return manifest, {fmt: [e["file"] for e in manifest.files(fmt)] for fmt in FORMATS}
    found = {}
    for fmt, spec in FORMATS.items():
        names = spec.files(snap, None)
        if names and all(snap.is_file(n) for n in names):
            found[fmt] = names
    return None, found


def _load(snap: Snapshot, fmt: str, names: list[str], manifest: Manifest | None) -> Lexicon:
    lex = FORMATS[fmt].lexicon.load(snap, names, manifest.entry(fmt) if manifest else None)
    if manifest and (lex.charset != manifest.charset or lex.word_count != manifest.data["words"]):
        raise DawgError(f"{lex.path}: charset or word count differs from {manifest.path}")
    if manifest:
        lex.language_section = manifest.language_section
        lex.rules_section = manifest.rules_section
        if manifest.written:
            data = snap.read(WRITTEN_FILE, "written forms file")
            verify_sha256(snap.path / WRITTEN_FILE, data, manifest.written)
            lex.written_forms = WrittenForms(snap.path / WRITTEN_FILE, data, lex.charset, lex.word_count)
    if lex.id_count > MAX_WORD_IDS:
        raise DawgError(f"{lex.path}: {lex.id_count} word numbers, more than the {MAX_WORD_IDS} the "
                        f"solver can stamp (4 bytes each per scoring thread)")
    snap.hand_over(lex)
    return lex


OPEN_ATTEMPTS = 10  # a rebuild takes far longer than an open: a reader that loses this often is starved


def _from_one_build(path: Path, load: Callable[[Snapshot, str | None, Manifest | None, dict[str, list[str]]], T]) -> T:
    """`load(snapshot, file asked for or None, manifest, formats present)` on one snapshot of the
    directory of `path` (see `_available`), closed after.

    A rebuild swaps the directory out and then deletes its files, perhaps while they are being
    opened. A result is whole when its manifest vouched for every file it read (their SHA-256),
    or when `path` still names the directory it was read from (nothing of it deleted yet);
    otherwise, and on any failure after such a swap, it starts again on what `path` names now.
    """
    with reading(path, "lexicon"):  # a name too long, a loop of links: one line
        present = path.exists()
    if not present:
        raise DawgError(f"{path}: no such file or directory")
    for _ in range(OPEN_ATTEMPTS):
        if path.is_dir():
            snap, name = Snapshot(path), None
        else:
            snap, name = Snapshot(path.parent), None if path.name == MANIFEST_FILE else path.name
        try:
            manifest, found = _available(snap, name)
            if not found:
                raise DawgError(f"{path}: no lexicon here (no {MANIFEST_FILE}, and no complete files of any "
                                f"format: {', '.join(FORMATS)})")
            result = load(snap, name, manifest, found)
            if manifest or _still_named(snap):
                return result
        except DawgError:
            if _still_named(snap):
                raise
        finally:
            snap.close()
    raise DawgError(f"{path}: replaced by another build {OPEN_ATTEMPTS} times while being opened; try again")


def _still_named(snap: Snapshot) -> bool:
    """Whether the snapshot's path still names the directory it holds open."""
    try:
        return os.path.samestat(os.stat(snap.path), os.fstat(snap.fd))
    except OSError:
        return False


def open_lexicon(path: str | Path, fmt: str | None = None) -> Lexicon:
    """Open and validate a lexicon: a build directory, its manifest, a format file or reference parts.
    Without `fmt` (a format name, in any case), a directory gives the first format of the registry
    it holds (the trie first)."""
    path = _path(path)
    if fmt is not None:
        if not isinstance(fmt, str) or fmt.lower() not in FORMATS:
            raise ParameterError("format", f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        fmt = fmt.lower()

    def load(snap, name, manifest, found):
        chosen = fmt or next(iter(found))
        if chosen not in found:
            raise DawgError(f"{path}: is a {next(iter(found))} file, not {chosen}" if name else
                            f"{path}: no {chosen} lexicon here (holds {', '.join(found)})")
        return _load(snap, chosen, found[chosen], manifest)

    return _from_one_build(path, load)


def open_all(path: str | Path) -> tuple[Manifest | None, list[Lexicon]]:
    """The manifest (if any) and every lexicon present at `path` (one file: that one), each opened
    and validated, all from one snapshot of the directory."""
    return _from_one_build(_path(path), lambda snap, _, manifest, found: (
        manifest, [_load(snap, fmt, names, manifest) for fmt, names in found.items()]))


def _path(path: object) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError("path", f"must be a path (a str or a Path), got {type(path).__name__}")
    return Path(path)


def _format_of_file(snap: Snapshot, name: str) -> str:
    with reading(snap.path / name, "lexicon file"), snap.open(name) as fh:
        head = fh.read(WORD_LIST_SAMPLE)
    for fmt, spec in FORMATS.items():
        if spec.owns(name, head[:8]):
            return fmt
    path = snap.path / name
    if _looks_like_word_list(head):
        raise DawgError(f"{path}: not a lexicon file but, by the look of it, a word list: "
                        f"compile it first (dawgc build {path})")
    raise DawgError(f"{path}: not a lexicon file (unknown magic number)")


def _looks_like_word_list(head: bytes) -> bool:
    """Whether a file's first bytes read as a word list: lines of letters, blank lines, '#' comments
    and perhaps a leading word count (the last line may be cut short)."""
    lines = head.decode("utf-8", "replace").removeprefix("\ufeff").splitlines()
    entries = [line.strip() for line in lines]
    return any(entries) and all(not e or e.isalpha() or e.isdigit() or e.startswith("#") for e in entries)
