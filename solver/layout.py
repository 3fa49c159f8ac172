"""The bit layout of the words lexicon nodes and edges are made of, defined once.

The compiler packs with it, the readers check and unpack with it, the board walks (CPU and CUDA)
decode it and the proof's tables (a word of their own, solver/proof/tables.py) are made from it.
It sits below every package of the solver (it imports numpy only where it makes arrays) so that each of them can read
it without importing the others. docs/formats.md describes
the layouts in prose; everything is little-endian.

Trie and DAWG node words, in one of two `NodeLayout`s:
  NARROW (charsets of up to 26 letters, and every file of format version 1), one u64 per node:
    bits 0-31  first child (trie) or first edge (DAWG), 0 if no letters;
    bits 32-57 letter mask (bit 32+i set = has a child for letter i);
    bits 58-62 reserved, zero in files;
    bit 63     end of word (so a node word read as int64 is negative exactly when it ends a word).
  WIDE (27 to MAX_CODES letters), two u64 per node:
    word 0: the narrow word with bits 32-57 zero (first child or edge, reserved 58-62, end of word);
    word 1: bits 0-61 the letter mask, bits 62-63 zero.
  Children or edges are contiguous in letter order, so the one for letter i is
  first + popcount(mask & ((1 << i) - 1)). The walks take a layout's `kernel_args` (`wide`, 0 or
  1) as an integer, so one compiled walk reads both.
DAWG edge word (u64): bits 0-31 child state, bits 32-63 skip (words ranked before the child's).
ADTDAWG node word: first child, child-set index and end of word, in the widths of an `AdtLayout`;
  a child-set entry holds each letter's 1-based place in its block (`child_set_fields`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

INDEX_MASK = 0xFFFF_FFFF  # the first child, first edge or edge child field, from bit 0
LETTERS_SHIFT = 32
LETTER_MASK = (1 << 26) - 1
RESERVED_SHIFT = 58
RESERVED_MASK = 0x1F
EOW_SHIFT = 63
SKIP_SHIFT = 32  # of a DAWG edge word
WIDE_LETTERS = 62  # letters a wide node's mask word holds (kernels.MAX_CODES)


class NodeLayout(NamedTuple):
    """Where a trie/DAWG node's fields sit (see the module docstring): `words` u64 per node, the
    letter mask in word `mask_word` from bit `mask_shift`, `mask_bits` wide."""

    words: int
    mask_word: int
    mask_shift: int
    mask_bits: int

    @property
    def letter_mask(self) -> int:
        return (1 << self.mask_bits) - 1

    @property
    def kernel_args(self) -> tuple[int]:
        """What a walk takes to read this layout: `wide`, 0 or 1. Node n's first word is at n << wide;
        a wide node's mask is the word after it, a narrow one's is read from the word the walk
        holds with the constants above, as before wide nodes existed (so English walks as fast)."""
        return (self.words - 1,)

    def pack(self, first: np.ndarray, mask: np.ndarray, eow: np.ndarray) -> np.ndarray:
        """Node words (flat, `words` per node) from their fields."""
        import numpy as np

        head = np.asarray(first).astype(np.uint64) | (np.asarray(eow).astype(np.uint64) << np.uint64(EOW_SHIFT))
        letters = np.asarray(mask).astype(np.uint64) << np.uint64(self.mask_shift)
        if self.words == 1:
            return head | letters
        return np.column_stack([head, letters]).ravel()

    def split(self, words: np.ndarray):
        """(first child or edge, letter mask, end-of-word) of each node, as int64 arrays."""
        import numpy as np

        w = np.asarray(words, dtype=np.uint64).reshape(-1, self.words)
        # Every field is below 2**63, so viewing each fresh uint64 result as int64 is exact and copies nothing.
        first = (w[:, 0] & np.uint64(INDEX_MASK)).view(np.int64)
        mask = ((w[:, self.mask_word] >> np.uint64(self.mask_shift)) & np.uint64(self.letter_mask)).view(np.int64)
        eow = (w[:, 0] >> np.uint64(EOW_SHIFT)).view(np.int64)
        return first, mask, eow

    def children(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first child or edge, number of letters, end-of-word) of each node whose reserved bits are
        zero (validation checks them first), as a uint32 view, uint8 and bool arrays: `split` makes an
        int64 copy of each field, which costs more than reading the words."""
        import numpy as np

        w = np.asarray(words, dtype="<u8").reshape(-1, self.words)
        halves = w.view("<u4")  # column 2k is word k's low half, 2k + 1 its high half
        eow = halves[:, 1] >= np.uint32(1 << (EOW_SHIFT - 32))
        if self.words == 2:
            return halves[:, 0], np.bitwise_count(w[:, 1]), eow
        kids = np.bitwise_count(halves[:, 1])  # the high half holds the letter mask and the end of word
        kids -= eow
        return halves[:, 0], kids, eow

    def reserved(self, words: np.ndarray) -> np.ndarray:
        """Per node, the bits that must be zero in a file (non-zero where any is set)."""
        import numpy as np

        w = np.asarray(words, dtype=np.uint64).reshape(-1, self.words)
        head = w[:, 0] >> np.uint64(RESERVED_SHIFT if self.words == 1 else LETTERS_SHIFT)
        head &= np.uint64(RESERVED_MASK if self.words == 1 else (1 << (EOW_SHIFT - LETTERS_SHIFT)) - 1)
        return head if self.words == 1 else head | (w[:, 1] >> np.uint64(self.mask_bits))


NARROW = NodeLayout(words=1, mask_word=0, mask_shift=LETTERS_SHIFT, mask_bits=26)
WIDE = NodeLayout(words=2, mask_word=1, mask_shift=0, mask_bits=WIDE_LETTERS)


def node_layout(letters: int) -> NodeLayout:
    """The layout of a charset of `letters` letters: narrow while the mask fits bits 32-57."""
    return NARROW if letters <= NARROW.mask_bits else WIDE


def edge_word(child: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """Pack DAWG edge words from their fields."""
    import numpy as np

    return np.asarray(child, np.uint64) | (np.asarray(skip, np.uint64) << np.uint64(SKIP_SHIFT))


def split_edge_words(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(child state, skip) of DAWG edge words, as int64."""
    import numpy as np

    w = np.asarray(edges, dtype=np.uint64)
    return (w & np.uint64(INDEX_MASK)).astype(np.int64), (w >> np.uint64(SKIP_SHIFT)).astype(np.int64)


# --- ADTDAWG field layout ------------------------------------------------------------


class AdtLayout(NamedTuple):
    """How an ADTDAWG packs its node and child-set words.

    The reference files use 15 first-child bits, 11 child-set bits, end-of-word
    at bit 26, 32-bit node words and one 64-bit child-set word. A lexicon whose
    node or child-set count does not fit those fields gets wider fields (and
    64-bit node words if they no longer fit 32 bits); more than 18 letters
    continue the child-set fields in a second 64-bit word. The manifest records
    the layout; a directory without a manifest is read with the reference layout.
    `fitting` and `from_manifest` check that the fields can be packed (`checked`).
    """

    letters: int = 14
    first_child_bits: int = 15
    child_set_bits: int = 11

    def checked(self) -> AdtLayout:
        """This layout; ValueError where its fields cannot be packed."""
        if not (1 <= self.letters <= WIDE_LETTERS and 15 <= self.first_child_bits <= 32
                and 11 <= self.child_set_bits <= 31 and self.eow_shift <= 62):
            raise ValueError(f"impossible ADTDAWG layout {self}")
        return self

    @property
    def eow_shift(self) -> int:
        return self.first_child_bits + self.child_set_bits

    @property
    def node_bytes(self) -> int:
        return 4 if self.eow_shift < 32 else 8

    @property
    def node_dtype(self) -> np.dtype:
        import numpy as np

        return np.dtype("<u4" if self.node_bytes == 4 else "<u8")

    @property
    def child_set_words(self) -> int:
        return child_set_field_list(self.letters)[0][-1] + 1

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
        ).checked()

    @classmethod
    def from_manifest(cls, entry: dict) -> AdtLayout:
        """The layout a manifest records (`to_manifest`); ValueError if it is impossible."""
        return cls(entry["letters"], entry["first_child_bits"], entry["child_set_bits"]).checked()

    def to_manifest(self) -> dict:
        return {"letters": self.letters, "first_child_bits": self.first_child_bits,
                "child_set_bits": self.child_set_bits, "node_bytes": self.node_bytes,
                "child_set_words": self.child_set_words}

    def node_words(self, first: np.ndarray, child_set: np.ndarray, eow: np.ndarray) -> np.ndarray:
        """Pack node words from their fields."""
        import numpy as np

        return (np.asarray(first, np.uint64) | (np.asarray(child_set, np.uint64) << np.uint64(self.first_child_bits))
                | (np.asarray(eow, np.uint64) << np.uint64(self.eow_shift))).astype(self.node_dtype)

    def split_node_words(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first child, child-set index, end-of-word) of node words, as int64 arrays."""
        import numpy as np

        w = np.asarray(words).astype(np.uint64)
        first = (w & np.uint64((1 << self.first_child_bits) - 1)).astype(np.int64)
        child_set = ((w >> np.uint64(self.first_child_bits)) & np.uint64((1 << self.child_set_bits) - 1)).astype(np.int64)
        eow = ((w >> np.uint64(self.eow_shift)) & np.uint64(1)).astype(np.int64)
        return first, child_set, eow


def child_set_fields(letters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(word, shift, width) of each letter's field in a child-set entry (`child_set_field_list`), as int64 arrays."""
    import numpy as np

    word, shift, width = child_set_field_list(letters)
    return np.array(word, np.int64), np.array(shift, np.int64), np.array(width, np.int64)


def child_set_field_list(letters: int) -> tuple[list[int], list[int], list[int]]:
    """(word, shift, width) of each letter's field in a child-set entry, as lists.

    Letter i's field is wide enough to hold i + 1 (its largest possible
    1-based position in a child block). Fields are packed from bit 0 of word 0
    and continue in the next 64-bit word when one is full: 18 letters fill
    exactly one word (the reference layout), 26 letters need two, 62 six.
    """
    word, shift, width = [], [], []
    w = s = 0
    for i in range(letters):
        bits = (i + 1).bit_length()
        if s + bits > 64:
            w, s = w + 1, 0
        word.append(w)
        shift.append(s)
        width.append(bits)
        s += bits
    return word, shift, width


def child_set_entries(positions: np.ndarray, letters: int) -> np.ndarray:
    """Child-set entries (M, words) from an (M, letters) table of 1-based places (0 = no child)."""
    import numpy as np

    word, shift, width = child_set_fields(letters)
    out = np.zeros((len(positions), int(word.max()) + 1), np.uint64)
    for letter in range(letters):
        field = np.asarray(positions)[:, letter].astype(np.uint64) & np.uint64((1 << int(width[letter])) - 1)
        out[:, word[letter]] |= field << np.uint64(shift[letter])
    return out


def child_set_positions(entries: np.ndarray, letters: int) -> np.ndarray:
    """(M, letters) 1-based place of each letter's child in its block (0 = none), from entries (M, words)."""
    import numpy as np

    word, shift, width = child_set_fields(letters)
    sets = entries[:, word]
    return ((sets >> shift.astype(np.uint64)) & ((np.uint64(1) << width.astype(np.uint64)) - np.uint64(1))).astype(np.int64)
