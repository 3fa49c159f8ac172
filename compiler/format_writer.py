"""What a format's writer is, and what the writers share: the trie/DAWG file header and node
layout, a file's manifest entry.

The formats are defined once, on the reader side (`solver.formats`: layouts,
validation, manifest schema, numbering). The solver never imports the compiler,
so the writing half of each format lives here, in the compiler module that
builds its structure (`compiler.trie`, `compiler.dawg`, `compiler.adtdawg`), as
a `Writer` registered in `compiler.writers.WRITERS` under the reader's name.
A build runs the writers in registry order, each from the word list and the
structures the writers before it built (the DAWG is minimised from the trie).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from ..solver.charset import Charset
from ..solver.errors import DawgError
from ..solver.formats.common import FORMAT_VERSION, HEADER, LEGACY_VERSION, MAX_INDEX, MAX_WORD_LENGTH, alphabet_block
from ..solver.layout import NodeLayout, node_layout


@dataclass(frozen=True)
class BuildWords:
    """What every writer builds from: the sorted, unique, folded words, their charset and the
    word length recorded in the headers."""

    words: list[str]
    charset: Charset
    max_length: int


@dataclass(frozen=True)
class Written:
    """A writer's output: its files (name -> bytes), its manifest section, and the structure it
    built, which later writers may build from."""

    files: dict[str, bytes]
    section: dict
    built: object


@dataclass(frozen=True)
class Writer:
    """A format's writing half (see the module docstring).

    `stage` names the build step; `file_names` are the files it writes;
    `write(words, built)` makes them, with `built` the structures of the
    formats written before it, by name; `summary(section)` is the format's line
    of `dawgc build`, from its manifest section.
    """

    name: str
    stage: str
    file_names: tuple[str, ...]
    write: Callable[[BuildWords, dict[str, object]], Written]
    summary: Callable[[dict], str]


def file_entry(name: str, data: bytes) -> dict:
    """A file as the manifest records it (solver.schema.FILE_ENTRY)."""
    return {"file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def nodes_layout(charset: Charset) -> NodeLayout:
    """The node layout a trie or DAWG of `charset` is written in (narrow up to 26 letters)."""
    return node_layout(len(charset))


def file_bytes(magic: bytes, charset: Charset, max_length: int, words: int, nodes: int,
               edges: int, body: bytes) -> bytes:
    """A whole trie or DAWG file: the 64-byte header (solver.formats.common.HEADER), the alphabet
    block where the charset needs format version 2 (`Charset.legacy` files keep version 1, byte
    for byte), and `body`."""
    if max(words, nodes, edges) >= MAX_INDEX:
        raise DawgError(f"lexicon too large for the format ({nodes} nodes, {edges} edges)")
    if not 0 < max_length <= MAX_WORD_LENGTH:
        raise DawgError(f"max_length {max_length} does not fit the header's byte")
    if charset.legacy:
        version, letters, block, node_words = LEGACY_VERSION, charset.letters.upper().encode("ascii"), b"", 0
    else:
        version, letters, block, node_words = FORMAT_VERSION, b"", alphabet_block(charset), nodes_layout(charset).words
    head = HEADER.pack(magic=magic, version=version, charset_size=len(charset), max_length=max_length, charset=letters,
                       alphabet_bytes=len(block), words=words, nodes=nodes, edges=edges,
                       crc32=zlib.crc32(block + body), node_words=node_words)
    return head + block + body
