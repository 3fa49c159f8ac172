"""The file layouts that more than one module reads, defined once: the header of trie and DAWG
files, the limits of their counts, the manifest's name and version.

`docs/formats.md` describes the layouts in prose. Everything is little-endian.
The node and edge words are laid out in `solver.layout`; the rest of each
format's layout lives in its module (`trie`, `dawg`, `adtdawg`); the compiler
imports these definitions to write files, the solver to read them.

Trie and DAWG files: a 64-byte `HEADER`, then the body.
"""

from __future__ import annotations

import numpy as np

from ..layout import INDEX_MASK

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
MAX_INDEX = INDEX_MASK  # node, edge and word counts must stay below this

MANIFEST_FILE = "manifest.msgpack"
MANIFEST_VERSION = 1
