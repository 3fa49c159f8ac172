"""Minimise a trie into a DAWG: the smallest automaton accepting the same words.

Two trie nodes are merged when they agree on end-of-word and on the letters
and classes of their children. Classes are found level by level, from the
leaves up (by height), with exact row-wise `np.unique` over
(end-of-word, letter mask, child classes...) — no hashing, so no collisions.

States are then numbered in reverse postorder from the root, which puts every
state before its children, and each state's edges carry the Lucchesi-Kao skip:
how many of the state's words sort before those reached through the edge, so
the sum of skips along a path is the word's alphabetical rank.

`WRITER`, the DAWG's entry in compiler.writers, minimises the build's trie and writes
dawg.bin with its manifest section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver.charset import Charset
from ..solver.formats.dawg import DAWG_FILE, DAWG_MAGIC
from ..solver.layout import edge_word
from .format_writer import BuildWords, Writer, Written, file_bytes, file_entry, nodes_layout
from .trie import Trie


@dataclass
class Dawg:
    """DAWG states in file order (root = 0, parents before children) and their edges."""

    eow: np.ndarray         # per state
    mask: np.ndarray        # per state: letters of its edges
    count: np.ndarray       # per state: words accepted from it
    first_edge: np.ndarray  # per state: index of its first edge
    edge_child: np.ndarray  # per edge, in letter order within each state
    edge_letter: np.ndarray
    edge_skip: np.ndarray

    @property
    def states(self) -> int:
        return len(self.eow)

    @property
    def edges(self) -> int:
        return len(self.edge_child)

    def children(self, state: int) -> list[tuple[int, int]]:
        """(letter, child state) pairs of a state, in letter order."""
        lo = int(self.first_edge[state])
        hi = lo + int(self.mask[state]).bit_count()
        return list(zip(self.edge_letter[lo:hi].tolist(), self.edge_child[lo:hi].tolist()))


def minimise(trie: Trie) -> Dawg:
    """The minimal DAWG of a trie."""
    size = trie.size
    kids = np.array([int(m).bit_count() for m in trie.mask.tolist()], np.int64)
    height = np.zeros(size, np.int64)
    for d in range(int(trie.depth.max()), 0, -1):
        at = np.flatnonzero(trie.depth == d)
        np.maximum.at(height, trie.parent[at], height[at] + 1)

    cls = np.full(size, -1, np.int64)
    representative: list[np.ndarray] = []
    classes = 0
    for h in range(int(height.max()) + 1):
        level = np.flatnonzero(height == h)
        for k in np.unique(kids[level]).tolist():
            group = level[kids[level] == k]
            child_cls = cls[trie.first[group][:, None] + np.arange(k)] if k else np.empty((len(group), 0), np.int64)
            key = np.column_stack([trie.eow[group], trie.mask[group], child_cls])
            rows, first_at, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
            cls[group] = classes + inverse.ravel()
            representative.append(group[first_at])
            classes += len(rows)
    rep = np.concatenate(representative)        # trie node standing for each class

    # Children of each class, as class ids, in letter order.
    rep_kids = kids[rep]
    class_child = [cls[trie.first[r] + np.arange(k)].tolist() if k else []
                   for r, k in zip(rep.tolist(), rep_kids.tolist())]

    order = _reverse_postorder(int(cls[0]), class_child)
    new_id = np.empty(classes, np.int64)
    new_id[order] = np.arange(classes)
    rep = rep[order]
    eow = trie.eow[rep]
    mask = trie.mask[rep]
    count = trie.count[rep]
    n_edges = rep_kids[order]
    edge_start = np.concatenate(([0], np.cumsum(n_edges)[:-1]))
    first_edge = np.where(n_edges > 0, edge_start, 0)   # 0 when a state has no edges

    edge_child_old = np.concatenate([np.asarray(class_child[c], np.int64) for c in order] or [np.empty(0, np.int64)])
    edge_child = new_id[edge_child_old] if len(edge_child_old) else edge_child_old
    edge_owner = np.repeat(np.arange(classes), n_edges)
    edge_letter = trie.letter[trie.first[np.repeat(rep, n_edges)] + (np.arange(len(edge_child)) - np.repeat(edge_start, n_edges))]
    # skip = owner's end-of-word + words under the owner's earlier edges.
    child_words = count[edge_child]
    before = np.cumsum(child_words) - child_words
    edge_skip = eow[edge_owner] + before - before[edge_start[edge_owner]] if len(edge_child) else child_words
    return Dawg(eow=eow, mask=mask, count=count, first_edge=first_edge, edge_child=edge_child,
                edge_letter=edge_letter, edge_skip=edge_skip)


def _reverse_postorder(root: int, children: list[list[int]]) -> list[int]:
    """States ordered so that each comes before all of its children (children in letter order)."""
    seen = bytearray(len(children))
    post: list[int] = []
    stack = [(root, 0)]
    seen[root] = 1
    while stack:
        node, i = stack[-1]
        kids = children[node]
        # Visit children last-letter first so that, reversed, earlier letters come first.
        j = len(kids) - 1 - i
        if j >= 0:
            stack[-1] = (node, i + 1)
            child = kids[j]
            if not seen[child]:
                seen[child] = 1
                stack.append((child, 0))
        else:
            stack.pop()
            post.append(node)
    post.reverse()
    return post


def dawg_bytes(dawg: Dawg, charset: Charset, max_length: int) -> bytes:
    states = nodes_layout(charset).pack(dawg.first_edge, dawg.mask, dawg.eow)
    edges = edge_word(dawg.edge_child, dawg.edge_skip)
    body = states.tobytes() + edges.astype("<u8").tobytes() + dawg.count.astype("<u4").tobytes()
    return file_bytes(DAWG_MAGIC, charset, max_length, int(dawg.count[0]), dawg.states, dawg.edges, body)


def write_dawg(words: BuildWords, built: dict[str, object]) -> Written:
    dawg = minimise(built["trie"])
    data = dawg_bytes(dawg, words.charset, words.max_length)
    return Written({DAWG_FILE: data}, {**file_entry(DAWG_FILE, data), "states": dawg.states, "edges": dawg.edges},
                   dawg)


WRITER = Writer("dawg", "minimising DAWG", (DAWG_FILE,), write_dawg, lambda section: (
    f"{section['states']:>9} states {section['edges']:>9} edges      {section['bytes']:>10} bytes  {section['file']}"))
