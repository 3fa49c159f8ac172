"""The lexicon formats, one module each, and the registry everything else iterates over.

A format module holds everything about its format that the reader needs (its
layout constants, the `Lexicon` subclass that opens and validates it, lists
its words and hands the walk its arrays, the board walk that the batch driver
compiles, its manifest section's schema and its word numbering) and ends with
its registry entry, `FORMAT`. `FORMATS` maps each name to its `Format`;
`open_lexicon`, the manifest, the JIT layer, `dawgc` and every `--format` help
text read it. Adding a format is one module here, one entry below and its
writer in the compiler's registry (`compiler.writers.WRITERS`), under the same name.
"""

from __future__ import annotations

from . import adtdawg, dawg, trie
from .base import Format, Lexicon, ManifestEntry, Snapshot

__all__ = ["DEFAULT_FORMAT", "FORMATS", "Format", "Lexicon", "ManifestEntry", "Snapshot", "format_help"]

FORMATS: dict[str, Format] = {f.name: f for f in (trie.FORMAT, dawg.FORMAT, adtdawg.FORMAT)}
DEFAULT_FORMAT = "trie"  # the fastest (benchmarks/results/solver.md); a directory offers it first


def format_help(default: str | None = DEFAULT_FORMAT) -> str:
    """The `--format` help text, from the registry."""
    names = ", ".join(FORMATS)
    return f"Lexicon format: {names}" + (f" [default: {default}, the fastest]." if default else ".")
