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

import numpy as np

from ..solver.charset import Charset
from ..solver.errors import DawgError
from ..solver.formats.common import FORMAT_VERSION, HEADER, LEGACY_VERSION, MAX_INDEX, alphabet_block
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
    head = np.zeros((), HEADER)
    head["magic"] = magic
    head["charset_size"] = len(charset)
    if not 0 < max_length <= np.iinfo(HEADER["max_length"]).max:
        raise DawgError(f"max_length {max_length} does not fit the header's byte")
    head["max_length"] = max_length
    if charset.legacy:
        head["version"] = LEGACY_VERSION
        head["charset"] = charset.letters.upper().encode("ascii")
        block = b""
    else:
        head["version"] = FORMAT_VERSION
        block = alphabet_block(charset)
        head["alphabet_bytes"] = len(block)
        head["node_words"] = nodes_layout(charset).words
    head["words"] = words
    head["nodes"] = nodes
    head["edges"] = edges
    head["crc32"] = zlib.crc32(block + body)
    return head.tobytes() + block + body
