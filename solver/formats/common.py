"""The byte layouts that more than one module reads, defined once: the header and node word of
trie and DAWG files, the ADTDAWG field layout (which the manifest records), the manifest's name.

`docs/formats.md` describes the layouts in prose. Everything is little-endian.
The rest of each format's layout lives in its module (`trie`, `dawg`,
`adtdawg`); the compiler imports these definitions to write files, the solver
to read them.

Trie and DAWG files: a 64-byte `HEADER`, then the body.
  node word: bits 0-31 first child (trie) or first edge (dawg), 0 if no letters;
             bits 32-57 letter mask (bit 32+i set = has a child for letter i);
             bit 63 end of word. Children/edges are contiguous in letter order,
             so the one for letter i is first + popcount(mask & ((1 << i) - 1)).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    # Every field is below 2**63, so viewing each fresh uint64 result as int64 is exact and copies nothing.
    first = (w & np.uint64(INDEX_MASK)).view(np.int64)
    mask = ((w >> np.uint64(LETTERS_SHIFT)) & np.uint64((1 << 26) - 1)).view(np.int64)
    eow = (w >> np.uint64(EOW_SHIFT)).view(np.int64)
    return first, mask, eow


def reserved_bits(words: np.ndarray) -> np.ndarray:
    """Bits 58-62 of trie/DAWG node words, which must be zero."""
    return (np.asarray(words, dtype=np.uint64) >> np.uint64(58)) & np.uint64(0x1F)


# --- ADTDAWG field layout ------------------------------------------------------------

ADT_TRACKING_BYTE_MAX = 255  # part 4 holds tracking numbers that fit a byte


@dataclass(frozen=True)
class AdtLayout:
    """How an ADTDAWG packs its node and child-set words.

    The reference files use 15 first-child bits, 11 child-set bits, end-of-word
    at bit 26, 32-bit node words and one 64-bit child-set word. A lexicon whose
    node or child-set count does not fit those fields gets wider fields (and
    64-bit node words if they no longer fit 32 bits); more than 18 letters
    continue the child-set fields in a second 64-bit word. The manifest records
    the layout; a directory without a manifest is read with the reference layout.
    """

    letters: int = 14
    first_child_bits: int = 15
    child_set_bits: int = 11

    def __post_init__(self) -> None:
        if not (1 <= self.letters <= 26 and 15 <= self.first_child_bits <= 32
                and 11 <= self.child_set_bits <= 31 and self.eow_shift <= 62):
            raise ValueError(f"impossible ADTDAWG layout {self}")

    @property
    def eow_shift(self) -> int:
        return self.first_child_bits + self.child_set_bits

    @property
    def node_bytes(self) -> int:
        return 4 if self.eow_shift < 32 else 8

    @property
    def node_dtype(self) -> np.dtype:
        return np.dtype("<u4" if self.node_bytes == 4 else "<u8")

    @property
    def child_set_words(self) -> int:
        return int(child_set_fields(self.letters)[0].max()) + 1

    @property
    def is_reference(self) -> bool:
        return self.first_child_bits == 15 and self.child_set_bits == 11 and self.letters <= 18

    @classmethod
    def fitting(cls, letters: int, nodes: int, child_sets: int) -> AdtLayout:
        """The reference field widths when they suffice, else the narrowest wider ones."""
        return cls(
            letters=letters,
            first_child_bits=max(15, nodes.bit_length()),
            child_set_bits=max(11, (child_sets - 1).bit_length()),
        )

    def to_manifest(self) -> dict:
        return {"letters": self.letters, "first_child_bits": self.first_child_bits,
                "child_set_bits": self.child_set_bits, "node_bytes": self.node_bytes,
                "child_set_words": self.child_set_words}


def child_set_fields(letters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(word, shift, width) of each letter's field in a child-set entry.

    Letter i's field is wide enough to hold i + 1 (its largest possible
    1-based position in a child block). Fields are packed from bit 0 of word 0
    and continue in the next 64-bit word when one is full: 18 letters fill
    exactly one word (the reference layout), 26 letters need two.
    """
    word = np.zeros(letters, np.int64)
    shift = np.zeros(letters, np.int64)
    width = np.zeros(letters, np.int64)
    w = s = 0
    for i in range(letters):
        bits = (i + 1).bit_length()
        if s + bits > 64:
            w, s = w + 1, 0
        word[i], shift[i], width[i] = w, s, bits
        s += bits
    return word, shift, width
