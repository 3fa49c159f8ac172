"""The lexicon as the proof kernels read it: a dense child table over the charset.

`child[node * letters + letter]` is the child of a trie node for a letter (-1
for none); node 0 is the root; `points[node]` is the points of the word ending
at that node (0 when none does) and the node number is the word's identity.
Qu is one letter ('q'), two letters long when scored. A trie lexicon gives
the table straight from its node words (vectorised); other formats build it
from their word list. ENABLE2K: 389k nodes, 40 MB.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass

import numpy as np

from ..board import points

MAX_LETTERS = 32  # a token is rank * 32 + letter


@dataclass(frozen=True)
class Tables:
    child: np.ndarray    # int32, nodes * letters
    points: np.ndarray   # int32 per node
    masks: np.ndarray    # int64 per node: the letters it has children for
    letters: int


_cache: dict[int, tuple[weakref.ref, Tables]] = {}


def tables_of(lexicon) -> Tables:
    """The child table of `lexicon`, made once per open lexicon."""
    key = id(lexicon)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is lexicon:
        return hit[1]
    tables = _from_trie(lexicon) if getattr(lexicon, "format", "") == "trie" else _from_words(lexicon)
    _cache[key] = (weakref.ref(lexicon, lambda _, key=key: _cache.pop(key, None)), tables)
    return tables


def _spelled_points(lengths: np.ndarray) -> np.ndarray:
    table = np.array([points(n) for n in range(int(lengths.max(initial=0)) + 1)], np.int32)
    return table[lengths]


def _from_trie(lexicon) -> Tables:
    words = lexicon.nodes.view(np.int64)
    count = len(words)
    letters = len(lexicon.charset)
    first = words & 0xFFFFFFFF
    mask = (words >> 32) & ((1 << 26) - 1)
    child = np.full((count, letters), -1, np.int32)
    below = np.zeros(count, np.int64)  # children of lower letters seen so far
    parent = np.zeros(count, np.int64)
    step = np.zeros(count, np.int64)  # letters this node adds to a word
    q = lexicon.charset.letters.find("q")
    for letter in range(letters):
        has = (mask >> letter) & 1 == 1
        kid = first[has] + below[has]
        child[has, letter] = kid
        parent[kid] = np.flatnonzero(has)
        step[kid] = 2 if letter == q else 1
        below += has
    length = np.zeros(count, np.int64)
    for _ in range(int(lexicon.max_length) + 1):  # children come after parents: a fixed point by depth
        length[1:] = length[parent[1:]] + step[1:]
    pts = np.where(words < 0, _spelled_points(length), 0).astype(np.int32)
    return Tables(child.ravel(), pts, _masks(child), letters)


def _from_words(lexicon) -> Tables:
    letters = lexicon.charset.letters
    index = {ch: i for i, ch in enumerate(letters)}
    rows: list[list[int]] = [[-1] * len(letters)]
    pts = [0]
    for word, _ in lexicon.numbered_words():
        node = 0
        for ch in word:
            nxt = rows[node][index[ch]]
            if nxt < 0:
                nxt = len(rows)
                rows[node][index[ch]] = nxt
                rows.append([-1] * len(letters))
                pts.append(0)
            node = nxt
        pts[node] = points(len(word) + word.count("q"))
    child = np.array(rows, np.int32)
    return Tables(child.ravel(), np.array(pts, np.int32), _masks(child), len(letters))


def _masks(child: np.ndarray) -> np.ndarray:
    return ((child >= 0).astype(np.int64) << np.arange(child.shape[1], dtype=np.int64)).sum(axis=1)


def lexicon_digest(lexicon) -> str:
    """SHA-256 of the charset and the words (as folded, 'q' for Qu): the same words give the
    same digest in every format."""
    digest = hashlib.sha256(lexicon.charset.letters.encode() + b"\0")
    for word, _ in lexicon.numbered_words():
        digest.update(word.encode() + b"\n")
    return digest.hexdigest()
