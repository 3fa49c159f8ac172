"""The file layouts that more than one module reads, defined once: the header of trie and DAWG
files, the limits of their counts, the manifest's name and version.

`docs/formats.md` describes the layouts in prose. Everything is little-endian.
The node and edge words are laid out in `solver.layout`; the rest of each
format's layout lives in its module (`trie`, `dawg`, `adtdawg`); the compiler
imports these definitions to write files, the solver to read them.

Trie and DAWG files: a 64-byte `HEADER`, then (format version 2) the alphabet block, then the
body. Version 1 holds charsets of up to 26 letters a-z with the implied Qu die
(`Charset.legacy`: every English build, byte for byte as before alphabets); version 2 any
charset: the header's `charset` field is zero and the `alphabet_bytes` after the header hold
the letters and tiles (`alphabet_block`), and `node_words` says the node layout.
"""

from __future__ import annotations

from ..charset import Charset
from ..layout import INDEX_MASK
from ..record import Record

LEGACY_VERSION = 1  # charsets `Charset.legacy` accepts, narrow nodes, no alphabet block
FORMAT_VERSION = 2  # any charset: the alphabet block, narrow or wide nodes
FORMAT_VERSIONS = (LEGACY_VERSION, FORMAT_VERSION)

HEADER = Record(
    ("magic", "8s"),
    ("version", "H"),
    ("charset_size", "B"),
    ("max_length", "B"),
    ("charset", "26s"),
    ("alphabet_bytes", "H"),  # version 2: bytes of the alphabet block after the header (version 1: 0)
    ("words", "I"),
    ("nodes", "I"),
    ("edges", "I"),
    ("crc32", "I"),
    ("node_words", "B"),  # version 2: u64 words per node (1 narrow, 2 wide; version 1: 0, narrow)
    ("reserved1", "7s"),
)
assert HEADER.size == 64
MAX_WORD_LENGTH = 255  # the header's max_length is one byte

NODE_DTYPE = "<u8"  # a node word (numpy's name for it)
NODE_BYTES = 8
MAX_INDEX = INDEX_MASK  # node, edge and word counts must stay below this

MANIFEST_FILE = "manifest.msgpack"
MANIFEST_VERSION = 1


def alphabet_block(charset: Charset) -> bytes:
    """The version-2 alphabet block: UTF-8 lines, the letters in code order, then one line per
    tile (its symbol, a space, its face), NUL-padded to a multiple of 8 bytes (the body stays
    aligned)."""
    text = "\n".join([charset.letters, *(f"{symbol} {face}" for symbol, face in charset.tiles)]).encode()
    return text + b"\0" * (-len(text) % 8)


def read_alphabet(block: bytes) -> Charset:
    """The charset of an alphabet block; ValueError when it is not one."""
    lines = block.rstrip(b"\0").decode("utf-8").split("\n")
    tiles = tuple(tuple(line.split(" ")) for line in lines[1:])
    if any(len(tile) != 2 for tile in tiles):
        raise ValueError("malformed tile line")
    charset = Charset(lines[0], tiles)
    if charset.tiles != tiles:
        raise ValueError("tile of a symbol outside the letters")
    return charset
