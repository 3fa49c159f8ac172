"""Build the prefix tree of a sorted word list with whole-array numpy steps.

Sorted input makes the trie easy to read off: word i adds one node for each of
its letters past the longest common prefix with word i-1, and the order in
which nodes are added is the trie's preorder. The file layout stores each
node's children as one contiguous block, blocks in the preorder of their
parents, so a depth-first walk of a board mostly moves forward in memory.

`WRITER`, the trie's entry in compiler.writers, writes it as trie.bin with its manifest section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver.charset import Charset
from ..solver.formats.trie import TRIE_FILE, TRIE_MAGIC
from .format_writer import BuildWords, Writer, Written, file_bytes, file_entry, nodes_layout

PAD = 255


@dataclass
class Trie:
    """Trie nodes in file order; node 0 is the root, children lie in letter order."""

    first: np.ndarray   # first child id, 0 = leaf
    mask: np.ndarray    # bit i set = child for letter i
    eow: np.ndarray     # 1 where a word ends
    letter: np.ndarray  # letter of the edge into the node (root: -1)
    parent: np.ndarray  # parent id (root: -1)
    depth: np.ndarray   # letters from the root (root: 0)
    count: np.ndarray   # words at or below the node

    @property
    def size(self) -> int:
        return len(self.first)


def encode_words(words: list[str], charset: Charset) -> tuple[np.ndarray, np.ndarray]:
    """Words as a (W, L) array of letter indices padded with PAD, and their lengths."""
    lens = np.fromiter(map(len, words), np.int64, count=len(words))
    flat = charset.encode_text("".join(words), PAD)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
    grid = np.full((len(words), int(lens.max())), PAD, np.uint8)
    rows = np.repeat(np.arange(len(words)), lens)
    grid[rows, np.arange(len(flat)) - np.repeat(starts, lens)] = flat
    return grid, lens


def build_trie(words: list[str], charset: Charset) -> Trie:
    """The trie of sorted, unique words over `charset`."""
    grid, lens = encode_words(words, charset)
    n_words = len(words)
    lcp = np.zeros(n_words, np.int64)
    if n_words > 1:
        lcp[1:] = (grid[1:] != grid[:-1]).argmax(axis=1)
    added = lens - lcp                       # new nodes per word, always >= 1
    start = np.concatenate(([0], np.cumsum(added)[:-1]))
    total = int(added.sum())
    # Nodes in creation (pre)order: node c belongs to word node_word[c] at depth node_depth[c] (0-based).
    node_word = np.repeat(np.arange(n_words), added)
    node_depth = np.arange(total) - np.repeat(start, added) + np.repeat(lcp, added)
    node_letter = grid[node_word, node_depth].astype(np.int64)
    node_eow = (node_depth == lens[node_word] - 1).astype(np.int64)

    # Parent in creation order (-1 = root): the node for the prefix one letter
    # shorter was added by the last word k <= i with lcp[k] <= depth - 1.
    parent_c = np.full(total, -1, np.int64)
    order = np.arange(n_words)
    for depth in range(1, int(lens.max())):
        at = np.flatnonzero(node_depth == depth)
        if not len(at):
            continue
        creator = np.maximum.accumulate(np.where(lcp <= depth - 1, order, 0))
        k = creator[node_word[at]]
        parent_c[at] = start[k] + (depth - 1 - lcp[k])

    # File order: blocks of siblings, blocks in preorder of their parents.
    file_order = np.argsort(parent_c, kind="stable")   # creation index of the node at file id 1 + j
    file_id = np.empty(total, np.int64)
    file_id[file_order] = np.arange(1, total + 1)
    size = total + 1
    parent = np.full(size, -1, np.int64)
    parent[1:] = np.where(parent_c[file_order] < 0, 0, file_id[parent_c[file_order]])
    letter = np.full(size, -1, np.int64)
    letter[1:] = node_letter[file_order]
    eow = np.zeros(size, np.int64)
    eow[1:] = node_eow[file_order]
    depth = np.zeros(size, np.int64)
    depth[1:] = node_depth[file_order] + 1

    first = np.zeros(size, np.int64)
    parents, first_index = np.unique(parent[1:], return_index=True)
    first[parents] = first_index + 1
    mask = np.zeros(size, np.int64)
    np.bitwise_or.at(mask, parent[1:], np.int64(1) << letter[1:])  # exact for 62-bit masks too

    count = eow.copy()
    for d in range(int(depth.max()), 0, -1):
        at = np.flatnonzero(depth == d)
        np.add.at(count, parent[at], count[at])
    return Trie(first=first, mask=mask, eow=eow, letter=letter, parent=parent,
                depth=depth, count=count)


def trie_bytes(trie: Trie, charset: Charset, max_length: int, words: int) -> bytes:
    body = nodes_layout(charset).pack(trie.first, trie.mask, trie.eow).tobytes()
    return file_bytes(TRIE_MAGIC, charset, max_length, words, trie.size, 0, body)


def write_trie(words: BuildWords, built: dict[str, object]) -> Written:
    trie = build_trie(words.words, words.charset)
    data = trie_bytes(trie, words.charset, words.max_length, len(words.words))
    return Written({TRIE_FILE: data}, {**file_entry(TRIE_FILE, data), "nodes": trie.size}, trie)


WRITER = Writer("trie", "building trie", (TRIE_FILE,), write_trie, lambda section: (
    f"{section['nodes']:>9} nodes                       {section['bytes']:>10} bytes  {section['file']}"))
