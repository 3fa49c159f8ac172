"""The writer of each format, keyed and ordered as the reader's registry (`solver.formats.FORMATS`).

A build runs them in this order (a writer may build from the structures of
those before it) and the manifest records their sections in it. Adding a
format is its reader module and entry in `solver.formats`, and its writer
(a `format_writer.Writer`) and entry here.
"""

from __future__ import annotations

from . import adtdawg, dawg, trie
from .format_writer import Writer

WRITERS: dict[str, Writer] = {w.name: w for w in (trie.WRITER, dawg.WRITER, adtdawg.WRITER)}
