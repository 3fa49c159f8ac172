"""The trie format: one file, a node per prefix, a word's number is its end node.

Layout (after the shared 64-byte header and, in format version 2, its alphabet block,
solver/formats/common.py): nodes, N node words of one or two u64 each (solver/layout.py: narrow
or wide). Node 0 is the root; children of a node are contiguous in letter order, placed after
their parent; a word's id is its end node.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import DawgError
from ..layout import EOW_SHIFT, INDEX_MASK, LETTER_MASK, LETTERS_SHIFT, NodeLayout
from ..schema import FILE_ENTRY, fields
from ..walk_kernels import (
    DONE,
    FRAME,
    NO_LETTER,
    NOT_STARTED,
    RUNNING,
    TOO_DEEP,
    WORD_END,
    list_word,
    listing_full,
    lowest_bit,
    neighbours_with,
    popcount,
    prefetch_row,
    record,
    unsigned,
)
from .base import (
    HALF_EOW_SHIFT,
    Descents,
    Format,
    Lexicon,
    ManifestEntry,
    Snapshot,
    TrieNodes,
    WordSteps,
    check,
    check_node_bits,
    child_ranges,
    index_count,
    letter_step,
    narrow_halves,
    node_columns,
    popcount_children,
    read_header,
    verify_sha256,
    wide_quarters,
)
from .common import NODE_BYTES, NODE_DTYPE

if TYPE_CHECKING:
    import numpy as np

    from ..board_walk import Walk

TRIE_MAGIC = b"BOGTRIE\x00"
TRIE_FILE = "trie.bin"
CHUNK_NODES = 1 << 13  # nodes the checks of `TrieLexicon.load` read at a time


class TrieLexicon(Lexicon):
    nodes: np.ndarray  # flat node words, layout.words per node
    layout: NodeLayout
    format = "trie"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], recorded: ManifestEntry | None) -> TrieLexicon:
        path, data = snap.path / names[0], snap.read(names[0])
        if recorded:
            verify_sha256(path, data, recorded.section)
        head = read_header(path, data, TRIE_MAGIC, "trie")
        count, layout, charset = int(head.fields["nodes"]), head.layout, head.charset
        if len(head.body) != count * layout.words * NODE_BYTES or count < 1:
            raise DawgError(f"{path}: size does not match its node count (truncated or corrupt)")
        import numpy as np  # here, after the checks of the bytes: the process imports it at its last moment

        nodes = np.frombuffer(head.body, NODE_DTYPE)
        check_node_bits(path, nodes, layout, len(charset), "trie node")
        # A tree (every node but the root has one parent) whose leaves all end words: every
        # node leads to a word, so a walk follows only prefixes of words. The child blocks
        # [start, end), each inside 1..count-1, tile it exactly when they start at distinct nodes,
        # end at distinct nodes, and the starts with count are the ends with 1: counting +1 at each
        # start and -1 at each end then leaves +1 at 1 and -1 at count, so each node from 1 on is
        # in one block. The checks read CHUNK_NODES nodes at a time, so that their temporaries stay
        # small enough for malloc to reuse (a fresh page costs more than the arithmetic on it), and
        # each is reported after the last chunk, in the order below.
        is_start, is_end = np.zeros(count + 1, bool), np.zeros(count + 1, bool)
        points_at_none = in_range = after_parent = leaves_end_words = True
        with_children = words = 0
        for lo in range(0, count, CHUNK_NODES):
            eow, inner, start, end, chunk_points, chunk_in_range = child_ranges(
                nodes[lo * layout.words:(lo + CHUNK_NODES) * layout.words], layout, 1, count)
            chunk_words = np.count_nonzero(eow)
            leaves_end_words &= chunk_words - np.count_nonzero(eow[inner]) == len(eow) - len(inner)
            points_at_none &= chunk_points
            in_range &= chunk_in_range
            after_parent &= bool((start > inner + lo).all())
            if in_range:  # else that is reported first, and the ranges may lie outside the maps
                is_start[start] = is_end[end] = True
            with_children += len(inner)
            words += chunk_words
        check(points_at_none, path, "trie node without children points at children")
        check(in_range, path, "trie node children out of range")
        check(after_parent, path, "trie child placed before its parent")
        check(int(nodes[0]) >> EOW_SHIFT == 0, path, "root marked as a word")
        is_start[count] = is_end[1] = True
        check(np.count_nonzero(is_start) == np.count_nonzero(is_end) == with_children + 1
              and np.array_equal(is_start, is_end), path, "trie node without exactly one parent (not a tree)")
        check(leaves_end_words, path, "trie leaf that ends no word")
        check(words == int(head.fields["words"]), path, "word count in header differs from end-of-word marks")
        lex = cls(path, charset, int(head.fields["words"]), int(head.fields["max_length"]))
        lex.nodes, lex.layout = nodes, layout
        return lex

    @cached_property
    def walk(self) -> Walk:
        import numpy as np

        from ..board_walk import Walk

        return Walk(trie_board, (self.nodes.view(np.int64), *self.layout.kernel_args), self.id_count, trie_numbers,
                    trie_words)

    @property
    def node_count(self) -> int:
        return len(self.nodes) // self.layout.words

    @property
    def id_count(self) -> int:
        return self.node_count  # a word's id is its end node

    def as_trie(self) -> TrieNodes:
        return TrieNodes(self.nodes, self.layout)

    def info(self) -> dict:
        return {**super().info(), "nodes": self.node_count, "node_words": self.layout.words}

    @cached_property
    def _descents(self) -> Descents:
        """Descents in one loop; a word's number is its end node, so `has` is `number`. Narrow nodes
        are read as 32-bit halves (`narrow_halves`), others a word at a time."""
        bits, halves, eow = self._letter_bits, narrow_halves(self.nodes, self.layout), HALF_EOW_SHIFT
        if halves is not None:
            def number_narrow(folded: str) -> int | None:  # `folded` is not empty
                at, letters = 0, halves[1]
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    at = (halves[at] + (letters & bit[1]).bit_count()) << 1
                    letters = halves[at + 1]
                return at >> 1 if letters >> eow else None

            def word_ends_narrow(folded: str) -> list[int]:
                ends, at, letters, end = [], 0, halves[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        break
                    at = (halves[at] + (letters & bit[1]).bit_count()) << 1
                    letters = halves[at + 1]
                    end += 1
                    if letters >> eow:
                        ends.append(end)
                return ends

            return Descents(number_narrow, number_narrow, word_ends_narrow)
        wide = wide_quarters(self.nodes, self.layout)
        if wide is not None:
            quarters, masks = wide

            def number_wide(folded: str) -> int | None:
                at, letters = 0, masks[1]
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    at = quarters[at << 2] + (letters & bit[1]).bit_count()
                    letters = masks[(at << 1) + 1]
                return at if quarters[(at << 2) + 1] >> eow else None

            def word_ends_wide(folded: str) -> list[int]:
                ends, at, letters, end = [], 0, masks[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        break
                    at = quarters[at << 2] + (letters & bit[1]).bit_count()
                    letters = masks[(at << 1) + 1]
                    end += 1
                    if quarters[(at << 2) + 1] >> eow:
                        ends.append(end)
                return ends

            return Descents(number_wide, number_wide, word_ends_wide)
        words, lay = memoryview(self.nodes), self.layout
        stride, mask_word, shift, letters_mask = lay.words, lay.mask_word, lay.mask_shift, lay.letter_mask

        def number(folded: str) -> int | None:
            base, head = 0, words[0]
            for letter in folded:
                bit = bits.get(letter)
                letters = (words[base + mask_word] >> shift) & letters_mask
                if bit is None or not letters & bit[0]:
                    return None
                node = (head & INDEX_MASK) + (letters & bit[1]).bit_count()
                base = node * stride
                head = words[base]
            return node if head >> EOW_SHIFT else None

        def word_ends(folded: str) -> list[int]:
            ends, base, head = [], 0, words[0]
            for end, letter in enumerate(folded, 1):
                bit = bits.get(letter)
                letters = (words[base + mask_word] >> shift) & letters_mask
                if bit is None or not letters & bit[0]:
                    break
                base = ((head & INDEX_MASK) + (letters & bit[1]).bit_count()) * stride
                head = words[base]
                if head >> EOW_SHIFT:
                    ends.append(end)
            return ends

        return Descents(number, number, word_ends)

    def word_steps(self) -> WordSteps:
        first, mask, eow = node_columns(self.nodes, self.layout)
        return WordSteps(0, lambda node: popcount_children(first[node], mask[node]), letter_step(self.nodes, self.layout),
                         lambda node: node if eow[node] else None)


def trie_numbers(nodes, wide, codes, starts, ends, numbers):
    """The number of each word (letter codes codes[starts[i]:ends[i]]) in a trie, its end node, or -1
    where it is none: the batch lookup (`Lexicon.key_ids`)."""
    for i in range(len(numbers)):
        node = 0
        word = nodes[0]
        j = starts[i]
        while j < ends[i]:
            letter = int(codes[j])  # int(): a uint8 would shift as a uint8 in CPython
            mask = nodes[(node << 1) + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if letter >= NO_LETTER or not (mask >> letter) & 1:
                break
            node = (word & INDEX_MASK) + popcount(mask & ((1 << letter) - 1))
            word = nodes[node << wide]
            j += 1
        numbers[i] = node if j == ends[i] and word < 0 else -1


def trie_words(nodes, wide, prefix, status, frames, codes, numbers):
    """The words that start with `prefix` (letter codes), in order, as many as `codes` and `numbers`
    hold, resumed from `status` and `frames` where the last call stopped (`words_below` says how):
    returns (words, codes written); each word's letters after the prefix then WORD_END go to
    `codes`, its number (end node) to `numbers`."""
    words = 0
    used = 0
    if status[0] == NOT_STARTED:
        node = 0
        word = nodes[0]
        for j in range(len(prefix)):
            letter = int(prefix[j])
            mask = nodes[(node << 1) + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if letter >= NO_LETTER or not (mask >> letter) & 1:
                status[0] = DONE
                return 0, 0
            node = (word & INDEX_MASK) + popcount(mask & ((1 << letter) - 1))
            word = nodes[node << wide]
        mask = nodes[(node << 1) + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
        frames[0, 0] = word & INDEX_MASK
        frames[0, 1] = mask
        frames[0, 2] = mask
        status[0] = RUNNING
        status[1] = 0
        if word < 0 and len(prefix):
            codes[0] = WORD_END
            numbers[0] = node
            words = used = 1
    d = status[1]
    while status[0] == RUNNING:
        remaining = frames[d, 2]
        if remaining == 0:
            if d == 0:
                status[0] = DONE
            else:
                d -= 1
            continue
        letter = lowest_bit(remaining)
        child = frames[d, 0] + popcount(frames[d, 1] & ((1 << letter) - 1))
        word = nodes[child << wide]
        if word < 0 and listing_full(numbers, words, codes, used, d):
            break  # full: this letter is the next call's first
        frames[d, 2] = remaining & (remaining - 1)
        frames[d, 3] = letter
        if word < 0:
            used = list_word(frames, d, codes, used)
            numbers[words] = child
            words += 1
        mask = nodes[(child << 1) + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
        if mask:
            if d + 2 == len(frames):
                status[0] = TOO_DEEP
                break
            d += 1
            frames[d, 0] = word & INDEX_MASK
            frames[d, 1] = mask
            frames[d, 2] = mask
    status[1] = d
    return words, used


def trie_board(nodes, wide, board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
               found, capacity, width, found_count):
    """Score one board on a trie (node words as signed int64, in the layout `wide` says, 0 or 1:
    `NodeLayout.kernel_args`; a word's id is its node)."""
    score = 0
    cells = len(board)
    # the current position: cell, neighbours to try, first child, child letters, letters so far
    word = nodes[0]
    cell = -1
    first = word & INDEX_MASK
    mask = nodes[1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
    todo = neighbours_with(near, cells, mask & nbr_mask[cells], 0)
    length = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[unsigned(nb)]
            letter = code & NO_LETTER
            node = first + popcount(mask & ((1 << letter) - 1))
            word = nodes[unsigned(node << wide)]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                inner = nodes[unsigned((node << 1) + 1)] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
                if not (inner >> letter) & 1:
                    continue
                node = (word & INDEX_MASK) + popcount(inner & ((1 << letter) - 1))
                word = nodes[unsigned(node << wide)]
            child_length = length + cell_len[unsigned(nb)]
            if word < 0 and stamps[unsigned(node)] != stamp and card[unsigned(child_length)] >= 0:
                stamps[unsigned(node)] = stamp
                score += card[unsigned(child_length)]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, node, child_length)
            child_mask = nodes[unsigned((node << 1) + 1)] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if child_mask & nbr_mask[unsigned(nb)]:
                prefetch_row(nodes, (word & INDEX_MASK) << wide)
                top = sp * FRAME
                stack[unsigned(top)] = cell
                stack[unsigned(top + 1)] = todo
                stack[unsigned(top + 2)] = first
                stack[unsigned(top + 3)] = mask
                stack[unsigned(top + 4)] = length
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_mask & nbr_mask[unsigned(nb)], used)
                first = word & INDEX_MASK
                mask = child_mask
                length = child_length
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[unsigned(top)]
            todo = stack[unsigned(top + 1)]
            first = stack[unsigned(top + 2)]
            mask = stack[unsigned(top + 3)]
            length = stack[unsigned(top + 4)]
        else:
            return score


def is_trie_file(name: str, magic: bytes) -> bool:
    return magic == TRIE_MAGIC


def trie_files(snap: Snapshot, name: str | None) -> list[str] | None:
    """The trie's file: the one asked for, or trie.bin of the directory."""
    if name is not None:
        return [name]
    return [TRIE_FILE] if snap.is_file(TRIE_FILE) else None


FORMAT = Format("trie", "a node per prefix; the fastest walk", TrieLexicon, is_trie_file, trie_files,
                section=fields(**FILE_ENTRY, nodes=index_count))
