"""The lexicon as the proof kernels read it: a compact trie over the charset.

`nodes[n]` is one int64 per node of the trie (node 0 the root): its first child in bits
0-27, the points of the word ending at node n in bits 28-31 (0 when none does; at most 11)
and its letter mask from bit 32 (up to MAX_LETTERS letters), so the class walk reads one
word per step in any charset a proof can take, narrow or wide in the files
(solver/layout.py). The node number is the word's identity. A tile is one letter ('q'),
its face's letters long when scored. A lexicon that holds a trie (`Lexicon.as_trie`) gives
the arrays straight from its node words, vectorised; the others build them from their word
list.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass

import numpy as np

from ..board import points
from ..errors import DawgError
from ..layout import NodeLayout

MAX_LETTERS = 30  # the class walk's row keys hold 1 + a letter code in 5 bits, 31 and 0 being marks
INDEX_MASK = (1 << 28) - 1  # the first child
POINTS_SHIFT = 28
POINTS_MASK = 0xF  # points of a word: at most 11
LETTERS_SHIFT = 32
LETTER_MASK = (1 << MAX_LETTERS) - 1


@dataclass(frozen=True)
class Tables:
    nodes: np.ndarray    # int64 per node: first child | points << POINTS_SHIFT | letter mask << LETTERS_SHIFT


_cache: dict[int, tuple[weakref.ref, Tables]] = {}


def tables_of(lexicon) -> Tables:
    """The compact trie of `lexicon`, made once per open lexicon."""
    key = id(lexicon)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is lexicon:
        return hit[1]
    check_letters(lexicon)
    trie = lexicon.as_trie()
    tables = _from_trie(lexicon, trie.nodes, trie.layout) if trie is not None else _from_words(lexicon)
    _cache[key] = (weakref.ref(lexicon, lambda _, key=key: _cache.pop(key, None)), tables)
    return tables


def check_letters(lexicon) -> None:
    """DawgError unless the proof can take the lexicon's charset (MAX_LETTERS letters at most)."""
    if len(lexicon.charset) > MAX_LETTERS:
        raise DawgError(f"{lexicon.path}: {len(lexicon.charset)} letters; proofs take lexicons of up to "
                        f"{MAX_LETTERS} letters")


def _spelled_points(lengths: np.ndarray) -> np.ndarray:
    table = np.array([points(n) for n in range(int(lengths.max(initial=0)) + 1)], np.int32)
    return table[lengths]


def _from_trie(lexicon, nodes: np.ndarray, layout: NodeLayout) -> Tables:
    first, mask, eow = layout.split(nodes)
    count = len(first)
    parent = np.zeros(count, np.int64)
    step = np.zeros(count, np.int64)  # letters a node adds to a word: 2 for Qu
    for letter in range(len(lexicon.charset)):
        has = np.flatnonzero((mask >> letter) & 1)
        kid = first[has] + np.bitwise_count(mask[has] & ((1 << letter) - 1)).astype(np.int64)
        parent[kid] = has
        step[kid] = len(lexicon.charset.face(letter))
    length = np.zeros(count, np.int64)
    for _ in range(int(lexicon.max_length) + 1):  # a fixed point, one level deeper each time
        length[1:] = length[parent[1:]] + step[1:]
    pts = np.where(eow == 1, _spelled_points(length), 0).astype(np.int64)
    return _tables(first, mask, pts)


def _tables(first: np.ndarray, mask: np.ndarray, pts: np.ndarray) -> Tables:
    if pts.max(initial=0) > POINTS_MASK:
        raise DawgError("word points do not fit the proof's compact trie (4 bits)")
    if len(first) > INDEX_MASK:
        raise DawgError(f"{len(first):,} trie nodes; the proof's compact trie holds {INDEX_MASK:,}")
    return Tables(np.ascontiguousarray(first | (pts << POINTS_SHIFT) | (mask << LETTERS_SHIFT)))


def _from_words(lexicon) -> Tables:
    kids: list[dict[int, int]] = [{}]
    pts = [0]
    for word, _ in lexicon.numbered_words():
        node = 0
        for code in lexicon.charset.codes(word):
            nxt = kids[node].get(code)
            if nxt is None:
                nxt = kids[node][code] = len(kids)
                kids.append({})
                pts.append(0)
            node = nxt
        pts[node] = points(lexicon.charset.spelled_length(word))
    # renumber breadth first so that each node's children are contiguous, in letter order
    order, new = [0], {0: 0}
    for old in order:
        for letter in sorted(kids[old]):
            new[kids[old][letter]] = len(order)
            order.append(kids[old][letter])
    first = np.zeros(len(order), np.int64)
    mask = np.zeros(len(order), np.int64)
    for old in order:
        if kids[old]:
            mask[new[old]] = sum(1 << letter for letter in kids[old])
            first[new[old]] = new[kids[old][min(kids[old])]]
    return _tables(first, mask, np.array([pts[old] for old in order], np.int64))


def lexicon_digest(lexicon) -> str:
    """SHA-256 of the charset and the words (as folded, 'q' for Qu): the same words give the
    same digest in every format."""
    digest = hashlib.sha256(lexicon.charset.letters.encode() + b"\0")
    for word, _ in lexicon.numbered_words():
        digest.update(word.encode() + b"\n")
    return digest.hexdigest()
