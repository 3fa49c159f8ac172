"""The lexicon as the proof kernels read it: a compact trie over the charset.

Node n of the trie (node 0 the root) has its first child in bits 0-27 of an int64 and the
points of the word ending at n in bits 28-31 (0 when none does; at most 11). Its letter mask
(bit i: a child for letter i) sits in one of two layouts, chosen by the charset's size and
given to the kernels as `wide` (0 or 1), as the files' node layouts are (solver/layout.py):
narrow (up to NARROW_LETTERS letters, English among them) from bit 32 of that same word, one
word a node, so listing a class's entries reads one word per step; wide (up to the charset's
MAX_LETTERS) the whole of a second word, two words a node (node n's first at n << wide). The
width of a letter in the listed rows' keys follows the same choice (solver/proof/entries.py).
The node number is the word's identity. A tile is one letter ('q'), as long as the rules count
it when scored (its face's letters, or one). A word's points are the rules' (0 for a word too
short to count, so it adds nothing to a bound); a rule set whose words score more than
POINTS_MASK cannot be proved with these nodes. A lexicon that holds a trie (`Lexicon.as_trie`)
gives the arrays straight from its node words, vectorised; the others build them from their
word list.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..errors import DawgError
from ..layout import NodeLayout

NARROW_LETTERS = 30  # a narrow node's mask fits bits 32-62, a narrow key's 5-bit letter symbol 1..30
INDEX_MASK = (1 << 28) - 1  # the first child
POINTS_SHIFT = 28
POINTS_MASK = 0xF  # points of a word: at most 15
LETTERS_SHIFT = 32  # of a narrow node's mask


def wide_of(letters: int) -> int:
    """The layout of a charset of `letters` letters: 0 (narrow) up to NARROW_LETTERS, else 1."""
    return int(letters > NARROW_LETTERS)


@dataclass(frozen=True)
class Tables:
    nodes: np.ndarray  # int64: first child | points << POINTS_SHIFT, then mask << LETTERS_SHIFT (narrow) or a mask word
    wide: int          # 0 or 1: the layout (see the module)


_cache: dict[tuple, tuple[weakref.ref, Tables]] = {}


def tables_of(lexicon, rules) -> Tables:
    """The compact trie of `lexicon` under `rules`, made once per open lexicon and rule set."""
    key = id(lexicon), rules
    hit = _cache.get(key)
    if hit is not None and hit[0]() is lexicon:
        return hit[1]
    worst = max(p for _, p in rules.points)
    if worst > POINTS_MASK:
        raise DawgError(f"rules {rules.name}: a word scores up to {worst} points; a proof takes rules whose words "
                        f"score at most {POINTS_MASK}")
    trie = lexicon.as_trie()
    tables = _from_trie(lexicon, trie.nodes, trie.layout, rules) if trie is not None else _from_words(lexicon, rules)
    _cache[key] = (weakref.ref(lexicon, lambda _, key=key: _cache.pop(key, None)), tables)
    return tables


def _from_trie(lexicon, nodes: np.ndarray, layout: NodeLayout, rules) -> Tables:
    first, mask, eow = layout.split(nodes)
    count = len(first)
    parent = np.zeros(count, np.int64)
    step = np.zeros(count, np.int64)  # letters a node adds to a word as the rules count them: 2 for Qu, or 1
    code_lengths = rules.code_lengths(lexicon.charset)
    for letter in range(len(lexicon.charset)):
        has = np.flatnonzero((mask >> letter) & 1)
        kid = first[has] + np.bitwise_count(mask[has] & ((1 << letter) - 1)).astype(np.int64)
        parent[kid] = has
        step[kid] = code_lengths[letter]
    length = np.zeros(count, np.int64)
    for _ in range(int(lexicon.max_length) + 1):  # a fixed point, one level deeper each time
        length[1:] = length[parent[1:]] + step[1:]
    card = np.maximum(rules.card(int(length.max(initial=0))), 0)
    pts = np.where(eow == 1, card[length], 0).astype(np.int64)
    return _tables(first, mask, pts, wide_of(len(lexicon.charset)))


def _tables(first: np.ndarray, mask: np.ndarray, pts: np.ndarray, wide: int) -> Tables:
    if pts.max(initial=0) > POINTS_MASK:
        raise DawgError("word points do not fit the proof's compact trie (4 bits)")
    if len(first) > INDEX_MASK:
        raise DawgError(f"{len(first):,} trie nodes; the proof's compact trie holds {INDEX_MASK:,}")
    head = first | (pts << POINTS_SHIFT)
    nodes = np.column_stack([head, mask]).ravel() if wide else head | (mask << LETTERS_SHIFT)
    return Tables(np.ascontiguousarray(nodes), wide)


def _from_words(lexicon, rules) -> Tables:
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
        pts[node] = rules.word_points(rules.word_length(lexicon.charset, lexicon.charset.unfold(word)))
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
    return _tables(first, mask, np.array([pts[old] for old in order], np.int64), wide_of(len(lexicon.charset)))
