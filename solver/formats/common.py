"""The byte layout the trie and DAWG files share, and the manifest's name, defined once.

`docs/formats.md` describes the layouts in prose. Everything is little-endian.
Each format's own layout lives in its module (`trie`, `dawg`, `adtdawg`); the
compiler imports these definitions to write files, the solver to read them.

Trie and DAWG files: a 64-byte `HEADER`, then the body.
  node word: bits 0-31 first child (trie) or first edge (dawg), 0 if no letters;
             bits 32-57 letter mask (bit 32+i set = has a child for letter i);
             bit 63 end of word. Children/edges are contiguous in letter order,
             so the one for letter i is first + popcount(mask & ((1 << i) - 1)).
"""

from __future__ import annotations

import numpy as np

FORMAT_VERSION = 1

HEADER = np.dtype([
    ("magic", "S8"),
    ("version", "<u2"),
    ("charset_size", "u1"),
    ("max_length", "u1"),
    ("charset", "S26"),
    ("reserved0", "<u2"),
    ("words", "<u4"),
    ("nodes", "<u4"),
    ("edges", "<u4"),
    ("crc32", "<u4"),
    ("reserved1", "<u8"),
])
assert HEADER.itemsize == 64

NODE_DTYPE = np.dtype("<u8")
INDEX_MASK = 0xFFFF_FFFF
LETTERS_SHIFT = 32
EOW_SHIFT = 63
MAX_INDEX = INDEX_MASK  # node, edge and word counts must stay below this

MANIFEST_FILE = "manifest.msgpack"
MANIFEST_VERSION = 1


def node_word(first: np.ndarray, mask: np.ndarray, eow: np.ndarray) -> np.ndarray:
    """Pack trie/DAWG node words from their fields."""
    return (first.astype(np.uint64)
            | (mask.astype(np.uint64) << np.uint64(LETTERS_SHIFT))
            | (eow.astype(np.uint64) << np.uint64(EOW_SHIFT)))


def split_node_words(words: np.ndarray):
    """(first child or edge, letter mask, end-of-word) of trie/DAWG node words."""
    w = np.asarray(words, dtype=np.uint64)
    first = (w & np.uint64(INDEX_MASK)).astype(np.int64)
    mask = ((w >> np.uint64(LETTERS_SHIFT)) & np.uint64((1 << 26) - 1)).astype(np.int64)
    eow = (w >> np.uint64(EOW_SHIFT)).astype(np.int64)
    return first, mask, eow


def reserved_bits(words: np.ndarray) -> np.ndarray:
    """Bits 58-62 of trie/DAWG node words, which must be zero."""
    return (np.asarray(words, dtype=np.uint64) >> np.uint64(58)) & np.uint64(0x1F)
