"""The lexicon as the proof kernels read it: a compact trie over the charset.

`nodes[n]` is the trie node word of node n (solver/layout.py: first child,
letter mask) without the end-of-word bit, and in its reserved bits 58-62 the
points of the word ending at node n (0 when none does; at most 11), so the class walk
reads one word per step; node 0 is the root. The node number is the word's
identity. Qu is one letter ('q'), two letters
long when scored. A lexicon that holds a trie (`Lexicon.as_trie`) gives the
arrays straight from its node words, vectorised; the others build them from
their word list.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass

import numpy as np

from ..board import points
from ..charset import spelled_length
from ..errors import DawgError
from ..layout import LETTERS_SHIFT, RESERVED_MASK, RESERVED_SHIFT, split_node_words

POINTS_SHIFT = RESERVED_SHIFT  # a word's points sit in the node word's reserved bits


@dataclass(frozen=True)
class Tables:
    nodes: np.ndarray    # int64 per node: first child | letter mask << LETTERS_SHIFT | points << POINTS_SHIFT


_cache: dict[int, tuple[weakref.ref, Tables]] = {}


def tables_of(lexicon) -> Tables:
    """The compact trie of `lexicon`, made once per open lexicon."""
    key = id(lexicon)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is lexicon:
        return hit[1]
    trie = lexicon.as_trie()
    tables = _from_trie(lexicon, trie.nodes) if trie is not None else _from_words(lexicon)
    _cache[key] = (weakref.ref(lexicon, lambda _, key=key: _cache.pop(key, None)), tables)
    return tables


def _spelled_points(lengths: np.ndarray) -> np.ndarray:
    table = np.array([points(n) for n in range(int(lengths.max(initial=0)) + 1)], np.int32)
    return table[lengths]


def _from_trie(lexicon, nodes: np.ndarray) -> Tables:
    first, mask, eow = split_node_words(nodes)
    count = len(nodes)
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
    if pts.max(initial=0) > RESERVED_MASK:
        raise DawgError("word points do not fit the proof's compact trie (5 bits)")
    return Tables(np.ascontiguousarray(first | (mask << LETTERS_SHIFT) | (pts << POINTS_SHIFT)))


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
        pts[node] = points(spelled_length(word))
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
