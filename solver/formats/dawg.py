"""The DAWG format: the minimal automaton of the words, with Lucchesi-Kao skips on its edges.

Layout (after the shared 64-byte header and, in format version 2, its alphabet block,
solver/formats/common.py): states (N node words of one or two u64, narrow or wide), edges
(E x u64 edge words), counts (N x u32). State 0
is the root; a word's id is its rank (0-based, alphabetical), the sum of the
edge skips along its path. Node and edge words are laid out in solver/layout.py.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import DawgError
from ..layout import EOW_SHIFT, INDEX_MASK, LETTER_MASK, LETTERS_SHIFT, SKIP_SHIFT, NodeLayout, split_edge_words
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
    Field,
    Format,
    Lexicon,
    ManifestEntry,
    Snapshot,
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
    spans,
    verify_sha256,
    wide_quarters,
)
from .common import NODE_BYTES, NODE_DTYPE

if TYPE_CHECKING:
    import numpy as np

    from ..board_walk import Walk

DAWG_MAGIC = b"BOGDAWG\x00"
DAWG_FILE = "dawg.bin"
EDGE_DTYPE, EDGE_BYTES = "<u8", 8
COUNT_DTYPE, COUNT_BYTES = "<u4", 4


def dawg_sections(states: int, edges: int, layout: NodeLayout) -> dict[str, tuple[int, int]]:
    """Byte (offset, length) of each DAWG body section, relative to the start of the body."""
    state_bytes = states * layout.words * NODE_BYTES
    edge_bytes = edges * EDGE_BYTES
    return {
        "states": (0, state_bytes),
        "edges": (state_bytes, edge_bytes),
        "counts": (state_bytes + edge_bytes, states * COUNT_BYTES),
    }


class DawgLexicon(Lexicon):
    states: np.ndarray  # flat node words, layout.words per state
    layout: NodeLayout
    edges: np.ndarray
    counts: np.ndarray
    format = "dawg"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], recorded: ManifestEntry | None) -> DawgLexicon:
        import numpy as np

        path, data = snap.path / names[0], snap.read(names[0])
        if recorded:
            verify_sha256(path, data, recorded.section)
        head = read_header(path, data, DAWG_MAGIC, "DAWG")
        n_states, n_edges, layout, charset = int(head.fields["nodes"]), int(head.fields["edges"]), head.layout, head.charset
        sections = dawg_sections(n_states, n_edges, layout)
        body = head.body
        if len(body) != sum(size for _, size in sections.values()) or n_states < 1:
            raise DawgError(f"{path}: size does not match its state and edge counts (truncated or corrupt)")

        def section(name, dtype):
            offset, size = sections[name]
            return np.frombuffer(body[offset:offset + size], dtype)

        states, edges, counts = section("states", NODE_DTYPE), section("edges", EDGE_DTYPE), section("counts", COUNT_DTYPE)
        check_node_bits(path, states, layout, len(charset), "DAWG state")
        eow, has, start, end, points_at_none, in_range = child_ranges(states, layout, 0, n_edges)
        check(points_at_none, path, "DAWG state without children points at children")
        check(in_range, path, "DAWG state children out of range")
        child, skip = split_edge_words(edges)
        count = counts.astype(np.int64)
        check(child < n_states, path, "DAWG edge points outside the states")
        kids = end - start
        owner = np.repeat(has, kids)
        edge = spans(start, kids)
        check(child[edge] > owner, path, "DAWG edge goes back to an earlier state (cycle?)")
        # Skips and counts must number the words 0..W-1: skip(first edge) = eow,
        # each next skip adds the previous child's count, count = last skip + last count.
        is_first = np.r_[True, owner[1:] != owner[:-1]] if len(owner) else np.zeros(0, bool)
        expected = np.where(is_first, eow[owner], np.r_[0, skip[edge[:-1]] + count[child[edge[:-1]]]] if len(edge) else 0)
        check(skip[edge] == expected, path, "DAWG edge skips do not number the words")
        total = eow.astype(np.int64)
        if len(edge):
            is_last = np.r_[owner[1:] != owner[:-1], True]
            total[owner[is_last]] = skip[edge[is_last]] + count[child[edge[is_last]]]
        check(total == count, path, "DAWG word counts disagree with the edges")
        # Acyclic (children after parents) with exact counts: count >= 1 means every state
        # leads to a word, so a walk follows only prefixes of words.
        check(count >= 1, path, "DAWG state that leads to no word")
        check(count[0] == int(head.fields["words"]), path, "word count in header differs from the root's count")
        lex = cls(path, charset, int(head.fields["words"]), int(head.fields["max_length"]))
        lex.states, lex.edges, lex.counts, lex.layout = states, edges, counts, layout
        return lex

    @cached_property
    def walk(self) -> Walk:
        import numpy as np

        from ..board_walk import Walk

        return Walk(dawg_board, (self.states.view(np.int64), *self.layout.kernel_args, self.edges.view(np.int64)),
                    self.id_count, dawg_numbers, dawg_words)

    @property
    def id_count(self) -> int:
        return self.word_count  # a word's id is its rank

    def info(self) -> dict:
        return {**super().info(), "states": len(self.counts), "edges": len(self.edges),
                "node_words": self.layout.words}

    @cached_property
    def _descents(self) -> Descents:
        """Descents in one loop, `number` adding the edges' skips up to the word's rank. The edges are
        read as 32-bit halves, narrow states too (`narrow_halves`), wide ones as 32-bit quarters and
        64-bit words (`wide_quarters`), others a word at a time."""
        import numpy as np

        bits, halves, eow = self._letter_bits, narrow_halves(self.states, self.layout), HALF_EOW_SHIFT
        edge_halves = np.ascontiguousarray(self.edges).view(np.uint32).data  # an edge's child at 2e, its skip at 2e + 1
        if halves is not None:

            def number_narrow(folded: str) -> int | None:
                at, letters, rank = 0, halves[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    edge = (halves[at] + (letters & bit[1]).bit_count()) << 1
                    rank += edge_halves[edge + 1]
                    at = edge_halves[edge] << 1
                    letters = halves[at + 1]
                return rank if letters >> eow else None

            def has_narrow(folded: str) -> int | None:  # the end state: no ranks
                at, letters = 0, halves[1]
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    at = edge_halves[(halves[at] + (letters & bit[1]).bit_count()) << 1] << 1
                    letters = halves[at + 1]
                return at if letters >> eow else None

            def word_ends_narrow(folded: str) -> list[int]:
                ends, at, letters, end = [], 0, halves[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        break
                    at = edge_halves[(halves[at] + (letters & bit[1]).bit_count()) << 1] << 1
                    letters = halves[at + 1]
                    end += 1
                    if letters >> eow:
                        ends.append(end)
                return ends

            return Descents(number_narrow, has_narrow, word_ends_narrow)
        wide = wide_quarters(self.states, self.layout)
        if wide is not None:
            quarters, masks = wide

            def number_wide(folded: str) -> int | None:
                at, letters, rank = 0, masks[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    edge = (quarters[at << 2] + (letters & bit[1]).bit_count()) << 1
                    rank += edge_halves[edge + 1]
                    at = edge_halves[edge]
                    letters = masks[(at << 1) + 1]
                return rank if quarters[(at << 2) + 1] >> eow else None

            def has_wide(folded: str) -> int | None:  # the end state: no ranks
                at, letters = 0, masks[1]
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        return None
                    at = edge_halves[(quarters[at << 2] + (letters & bit[1]).bit_count()) << 1]
                    letters = masks[(at << 1) + 1]
                return at if quarters[(at << 2) + 1] >> eow else None

            def word_ends_wide(folded: str) -> list[int]:
                ends, at, letters, end = [], 0, masks[1], 0
                for letter in folded:
                    bit = bits.get(letter)
                    if bit is None or not letters & bit[0]:
                        break
                    at = edge_halves[(quarters[at << 2] + (letters & bit[1]).bit_count()) << 1]
                    letters = masks[(at << 1) + 1]
                    end += 1
                    if quarters[(at << 2) + 1] >> eow:
                        ends.append(end)
                return ends

            return Descents(number_wide, has_wide, word_ends_wide)
        words, edges = np.ascontiguousarray(self.states).data, np.ascontiguousarray(self.edges).data
        lay = self.layout
        stride, mask_word, shift, letters_mask = lay.words, lay.mask_word, lay.mask_shift, lay.letter_mask

        def number(folded: str) -> int | None:
            base, head, rank = 0, words[0], 0
            for letter in folded:
                bit = bits.get(letter)
                letters = ((words[base + mask_word] if mask_word else head) >> shift) & letters_mask
                if bit is None or not letters & bit[0]:
                    return None
                edge = edges[(head & INDEX_MASK) + (letters & bit[1]).bit_count()]
                rank += edge >> SKIP_SHIFT
                base = (edge & INDEX_MASK) * stride
                head = words[base]
            return rank if head >> EOW_SHIFT else None

        def has(folded: str) -> int | None:  # the end state's first word: no ranks
            base, head = 0, words[0]
            for letter in folded:
                bit = bits.get(letter)
                letters = ((words[base + mask_word] if mask_word else head) >> shift) & letters_mask
                if bit is None or not letters & bit[0]:
                    return None
                base = (edges[(head & INDEX_MASK) + (letters & bit[1]).bit_count()] & INDEX_MASK) * stride
                head = words[base]
            return head if head >> EOW_SHIFT else None

        def word_ends(folded: str) -> list[int]:
            ends, base, head = [], 0, words[0]
            for end, letter in enumerate(folded, 1):
                bit = bits.get(letter)
                letters = ((words[base + mask_word] if mask_word else head) >> shift) & letters_mask
                if bit is None or not letters & bit[0]:
                    break
                base = (edges[(head & INDEX_MASK) + (letters & bit[1]).bit_count()] & INDEX_MASK) * stride
                head = words[base]
                if head >> EOW_SHIFT:
                    ends.append(end)
            return ends

        return Descents(number, has, word_ends)

    def word_steps(self) -> WordSteps:
        # a state of the walk: (DAWG state, rank of the first word at or below it)
        import numpy as np

        first, mask, eow = node_columns(self.states, self.layout)
        child, skip = Field(self.edges, 0, INDEX_MASK), Field(self.edges, SKIP_SHIFT)

        def children(state):
            node, rank = state
            for letter, e in popcount_children(first[node], mask[node]):
                yield letter, (child[e], rank + skip[e])

        step, edges = letter_step(self.states, self.layout), np.ascontiguousarray(self.edges).data

        def one_child(state, letter: int):
            e = step(state[0], letter)
            if e is None:
                return None
            edge = edges[e]
            return edge & INDEX_MASK, state[1] + (edge >> SKIP_SHIFT)

        return WordSteps((0, 0), children, one_child, lambda state: state[1] if eow[state[0]] else None,
                         rank=lambda state: state[1], rank_of=lambda number: number)  # a word's number is its rank


def dawg_numbers(states, wide, edges, codes, starts, ends, numbers):
    """The number of each word (letter codes codes[starts[i]:ends[i]]) in a DAWG, its rank, or -1
    where it is none: the batch lookup (`Lexicon.key_ids`)."""
    for i in range(len(numbers)):
        state = 0
        rank = 0
        word = states[0]
        j = starts[i]
        while j < ends[i]:
            letter = int(codes[j])  # int(): a uint8 would shift as a uint8 in CPython
            mask = states[state + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if letter >= NO_LETTER or not (mask >> letter) & 1:
                break
            edge = edges[(word & INDEX_MASK) + popcount(mask & ((1 << letter) - 1))]
            rank += edge >> SKIP_SHIFT
            state = (edge & INDEX_MASK) << wide
            word = states[state]
            j += 1
        numbers[i] = rank if j == ends[i] and word < 0 else -1


def dawg_words(states, wide, edges, prefix, status, frames, codes, numbers):
    """The words that start with `prefix`, as `trie_words` lists a trie's; a word's number is its rank."""
    words = 0
    used = 0
    if status[0] == NOT_STARTED:
        state = 0
        rank = 0
        word = states[0]
        for j in range(len(prefix)):
            letter = int(prefix[j])
            mask = states[state + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if letter >= NO_LETTER or not (mask >> letter) & 1:
                status[0] = DONE
                return 0, 0
            edge = edges[(word & INDEX_MASK) + popcount(mask & ((1 << letter) - 1))]
            rank += edge >> SKIP_SHIFT
            state = (edge & INDEX_MASK) << wide
            word = states[state]
        mask = states[state + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
        frames[0, 0] = word & INDEX_MASK
        frames[0, 1] = mask
        frames[0, 2] = mask
        frames[0, 4] = rank
        status[0] = RUNNING
        status[1] = 0
        if word < 0 and len(prefix):
            codes[0] = WORD_END
            numbers[0] = rank
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
        edge = edges[frames[d, 0] + popcount(frames[d, 1] & ((1 << letter) - 1))]
        rank = frames[d, 4] + (edge >> SKIP_SHIFT)
        state = (edge & INDEX_MASK) << wide
        word = states[state]
        if word < 0 and listing_full(numbers, words, codes, used, d):
            break  # full: this letter is the next call's first
        frames[d, 2] = remaining & (remaining - 1)
        frames[d, 3] = letter
        if word < 0:
            used = list_word(frames, d, codes, used)
            numbers[words] = rank
            words += 1
        mask = states[state + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
        if mask:
            if d + 2 == len(frames):
                status[0] = TOO_DEEP
                break
            d += 1
            frames[d, 0] = word & INDEX_MASK
            frames[d, 1] = mask
            frames[d, 2] = mask
            frames[d, 4] = rank
    status[1] = d
    return words, used


def dawg_board(states, wide, edges, board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
               found, capacity, width, found_count):
    """Score one board on a DAWG (states and edges as int64, the states in the layout `wide` says,
    0 or 1: `NodeLayout.kernel_args`; a word's id is its rank)."""
    score = 0
    cells = len(board)
    # the current position: cell, neighbours to try, first edge, edge letters, letters, rank
    word = states[0]
    cell = -1
    first = word & INDEX_MASK
    mask = states[1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
    todo = neighbours_with(near, cells, mask & nbr_mask[cells], 0)
    length = 0
    rank = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[unsigned(nb)]
            letter = code & NO_LETTER
            edge = edges[unsigned(first + popcount(mask & ((1 << letter) - 1)))]
            child_rank = rank + (edge >> SKIP_SHIFT)
            state = (edge & INDEX_MASK) << wide
            word = states[unsigned(state)]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                inner = states[unsigned(state + 1)] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
                if not (inner >> letter) & 1:
                    continue
                edge = edges[unsigned((word & INDEX_MASK) + popcount(inner & ((1 << letter) - 1)))]
                child_rank += edge >> SKIP_SHIFT
                state = (edge & INDEX_MASK) << wide
                word = states[unsigned(state)]
            child_length = length + cell_len[unsigned(nb)]
            if word < 0 and stamps[unsigned(child_rank)] != stamp and card[unsigned(child_length)] >= 0:
                stamps[unsigned(child_rank)] = stamp
                score += card[unsigned(child_length)]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, child_rank,
                           child_length)
            child_mask = states[unsigned(state + 1)] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK
            if child_mask & nbr_mask[unsigned(nb)]:
                prefetch_row(edges, word & INDEX_MASK)
                top = sp * FRAME
                stack[unsigned(top)] = cell
                stack[unsigned(top + 1)] = todo
                stack[unsigned(top + 2)] = first
                stack[unsigned(top + 3)] = mask
                stack[unsigned(top + 4)] = length
                stack[unsigned(top + 5)] = rank
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_mask & nbr_mask[unsigned(nb)], used)
                first = word & INDEX_MASK
                mask = child_mask
                length = child_length
                rank = child_rank
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[unsigned(top)]
            todo = stack[unsigned(top + 1)]
            first = stack[unsigned(top + 2)]
            mask = stack[unsigned(top + 3)]
            length = stack[unsigned(top + 4)]
            rank = stack[unsigned(top + 5)]
        else:
            return score


def is_dawg_file(name: str, magic: bytes) -> bool:
    return magic == DAWG_MAGIC


def dawg_files(snap: Snapshot, name: str | None) -> list[str] | None:
    """The DAWG's file: the one asked for, or dawg.bin of the directory."""
    if name is not None:
        return [name]
    return [DAWG_FILE] if snap.is_file(DAWG_FILE) else None


FORMAT = Format("dawg", "the minimal automaton with numbered words; smaller", DawgLexicon, is_dawg_file, dawg_files,
                section=fields(**FILE_ENTRY, states=index_count, edges=index_count),
                numbering=lambda i, count: i)  # a word's number is its rank
