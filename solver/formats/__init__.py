"""The lexicon formats, one module each, and the registry everything else iterates over.

A format module holds everything about its format that the reader needs (its
layout constants, the `Lexicon` subclass that opens and validates it, lists
its words and hands the walk its arrays, and the board walk that the batch
driver compiles) and what the writer imports. `FORMATS` maps each name to its
`Format`; `open_lexicon`, the JIT layer, `dawgc` and every `--format` help
text read it. Adding a format is one module here, one entry below and its
writer in the compiler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .adtdawg import AdtLexicon, adtdawg_files, is_adtdawg_file
from .base import Lexicon, Snapshot
from .dawg import DawgLexicon, dawg_files, is_dawg_file
from .trie import TrieLexicon, is_trie_file, trie_files


@dataclass(frozen=True)
class Format:
    """A lexicon format as the reader knows it.

    `lexicon.load(snapshot, file names, manifest or None)` opens and validates it;
    `owns(name, first 8 bytes)` says whether a single file is one of its files;
    `files(snapshot, name)` lists its files that go with the file `name` (or, with
    None, its files in the directory), complete, or None.
    """

    name: str
    summary: str
    lexicon: type[Lexicon]
    owns: Callable[[str, bytes], bool]
    files: Callable[[Snapshot, str | None], list[str] | None]


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("trie", "a node per prefix; the fastest walk", TrieLexicon, is_trie_file, trie_files),
    Format("dawg", "the minimal automaton with numbered words; smaller", DawgLexicon, is_dawg_file, dawg_files),
    Format("adtdawg", "the four-part reference layout (JPA14); smallest", AdtLexicon, is_adtdawg_file, adtdawg_files),
)}
DEFAULT_FORMAT = "trie"  # the fastest (benchmarks/results/solver.md); a directory offers it first


def format_help(default: str | None = DEFAULT_FORMAT) -> str:
    """The `--format` help text, from the registry."""
    names = ", ".join(FORMATS)
    return f"Lexicon format: {names}" + (f" [default: {default}, the fastest]." if default else ".")
