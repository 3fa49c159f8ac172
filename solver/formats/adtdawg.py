"""The ADTDAWG format: the four part files of the JPA14 reference layout, generalised.

Parts (docs/formats.md; ../shared/docs/adtdawg-format.md for the reference):
node words, child sets, wide tracking numbers, narrow tracking numbers. A
word's id is its tracking marker. `AdtLayout` widens the reference fields when
counts or letters outgrow them; the manifest records the layout, and a
directory without a manifest is read with the reference layout (JPA14), its
longest word found from the graph.
"""

from __future__ import annotations

import fnmatch
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..charset import JPA14, Charset
from ..errors import DawgError
from ..layout import WIDE_LETTERS, AdtLayout, child_set_fields, child_set_positions
from ..schema import FILE_ENTRY, fields, integer, list_of
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
from .base import Descents, Field, Format, Lexicon, ManifestEntry, Snapshot, WordSteps, check, index_count, spans, verify_sha256
from .common import MAX_WORD_LENGTH

if TYPE_CHECKING:
    import numpy as np

    from ..board_walk import Walk

ADT_FILES = tuple(f"adtdawg-{part}.dat" for part in (1, 2, 3, 4))
REFERENCE_ADT_GLOB = "Four_Part_{part}_DTDAWG_For_Lexicon_*.dat"
TRACKING_DTYPE, TRACKING_BITS = "<i4", 32  # the walk's tracking numbers, hence its word ids
TRACKING_BYTE_MAX = 255  # part 4 holds tracking numbers that fit a byte
# The board walk's node entries (`walk_entries`): first child in bits 0-31, end of word at ENTRY_EOW, and
# the letters of its children (its child set's mask) from ENTRY_KIDS up; above NARROW_ENTRY_LETTERS letters
# the mask is a second int64 of its own.
ENTRY_EOW, ENTRY_KIDS = 32, 33
ENTRY_FIRST = (1 << ENTRY_EOW) - 1  # an entry's first child: entry & ENTRY_FIRST
NARROW_ENTRY_LETTERS = 63 - ENTRY_KIDS


class AdtLexicon(Lexicon):
    layout: AdtLayout
    nodes: np.ndarray       # node words, index 0 = null node
    child_sets: np.ndarray  # (M, words)
    tracking: np.ndarray    # T[0..N], as uint32
    wide_nodes: int
    format = "adtdawg"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], recorded: ManifestEntry | None) -> AdtLexicon:
        import numpy as np

        paths = [snap.path / name for name in names]
        parts = [snap.read(name) for name in names]
        if recorded:
            for p, data, expected in zip(paths, parts, recorded.section["files"]):
                verify_sha256(p, data, expected)
            # their letter counts agree (`agree`)
            layout, charset = AdtLayout.from_manifest(recorded.section["layout"]), recorded.charset
        else:
            charset, layout = Charset(JPA14), AdtLayout()
        p1, p2, p3, p4 = (np.frombuffer(part, np.uint8) for part in parts)
        n = header_count(paths[0], p1, "<u4")
        m = header_count(paths[1], p2, "<u8")
        k = header_count(paths[2], p3, "<u4")
        words_per_set = layout.child_set_words
        expect = [(p1, 4 + n * layout.node_bytes), (p2, 8 + m * 8 * words_per_set), (p3, 4 + k * 4),
                  (p4, n - k)]
        for p, (data, size) in zip(paths, expect):
            if len(data) != size:
                raise DawgError(f"{p}: {len(data)} bytes, the part headers call for {size} "
                                f"(truncated, corrupt or parts of different builds)")
        letters = len(charset)
        if n < letters or m < 1:
            raise DawgError(f"{paths[0]}: {n} nodes cannot hold the {letters} start nodes")
        raw = p1[4:].view(layout.node_dtype)
        nodes = np.concatenate([np.zeros(1, layout.node_dtype), raw])
        child_sets = p2[8:].view("<u8").reshape(m, words_per_set)
        tracking = np.concatenate([np.zeros(1, np.uint32), p3[4:].view("<u4"), p4.astype(np.uint32)])
        lex = cls(snap.path, charset, int(tracking[1]), recorded.max_length if recorded else 0)
        lex.layout, lex.nodes, lex.child_sets, lex.tracking, lex.wide_nodes = layout, nodes, child_sets, tracking, k
        lex._validate(paths)
        if not recorded:
            lex.max_length = lex._longest_word(paths[0])
        if recorded and lex.word_count != recorded.words:
            raise DawgError(f"{paths[2]}: holds {lex.word_count} words, the manifest says {recorded.words}")
        return lex

    @cached_property
    def walk(self) -> Walk:
        import numpy as np

        from ..board_walk import Walk

        letters = self.layout.letters
        # one extra row: the start block as a virtual child set (letter i -> node i + 1)
        pos = np.vstack([self.positions(), np.arange(1, letters + 1)])
        set_mask = ((pos > 0).astype(np.int64) << np.arange(letters)).sum(axis=1)
        nodes = self.nodes if self.nodes.dtype.itemsize == 4 else self.nodes.view(np.int64)
        lay = self.layout
        entries, wide = walk_entries(self.fields(), set_mask, letters)
        inputs = (nodes, self.tracking.astype(TRACKING_DTYPE), pos.astype(np.uint8).ravel(), set_mask, letters,
                  lay.first_child_bits, lay.child_set_bits, lay.eow_shift, entries, wide)
        return Walk(adtdawg_board, inputs, self.id_count, adtdawg_numbers, adtdawg_words)

    @property
    def id_count(self) -> int:
        return self.word_count + 1  # tracking markers count down from the word count to 1

    def fields(self):
        """(first child, child-set index, end-of-word) of every node, as int64 arrays."""
        return self.layout.split_node_words(self.nodes)

    def positions(self) -> np.ndarray:
        """(M, letters) 1-based position of each letter's child in a child block, 0 = none."""
        return child_set_positions(self.child_sets, self.layout.letters)

    def _validate(self, paths: list[Path]) -> None:
        import numpy as np

        p1, p2, p3, _ = paths
        lay = self.layout
        n = len(self.nodes) - 1
        w = self.nodes.astype(np.uint64)
        check(w >> np.uint64(lay.eow_shift + 1) == 0, p1, "node word has bits set beyond end-of-word")
        first, child_set, eow = self.fields()
        m = len(self.child_sets)
        check(child_set < m, p1, "node points outside the child sets")
        used_bits = int(child_set_fields(lay.letters)[1][-1] + child_set_fields(lay.letters)[2][-1])
        if self.child_sets.shape[1] == 1 and used_bits < 64:
            check(self.child_sets[:, 0] >> np.uint64(used_bits) == 0, p2, "child set has bits beyond the last letter")
        pos = self.positions()
        present = pos > 0
        kids = present.sum(axis=1)
        check(np.where(present, pos == np.cumsum(present, axis=1), True), p2,
               "child set positions are not 1, 2, ... in letter order")
        nk = kids[child_set]
        check((first == 0) == (nk == 0), p1, "node's first child and child set disagree")
        check((nk == 0) | (first + nk - 1 <= n), p1, "node's children out of range")
        # Tracking numbers: T[p] = words(p) + T[p+1] inside a child block, = words(p) at its end,
        # where words(p) = eow(p) + T[first child of p]. The start block is nodes 1..letters.
        tracking = self.tracking.astype(np.int64)
        check(tracking[self.wide_nodes + 1:] <= TRACKING_BYTE_MAX, p3, "tracking number too large for part 4")
        limit = np.iinfo(TRACKING_DTYPE).max
        check(tracking <= limit, p3, f"tracking number above {limit}: more words than the walk's "
               f"{TRACKING_BITS}-bit word numbers can count")
        words = eow + np.where(first > 0, tracking[first], 0)
        # The child blocks, each (first child, children) once, in that order: unique keys first * 64 + children
        # (a block has fewer than 64 children), a sort of integers rather than of rows.
        blocks = np.unique((first * 64 + nk)[first > 0])
        starts = np.r_[1, blocks >> 6]
        lengths = np.r_[len(self.charset), blocks & 63]
        at = spans(starts, lengths)
        last = np.zeros(len(at), bool)
        last[np.cumsum(lengths) - 1] = True
        after = np.where(last, 0, tracking[np.minimum(at + 1, n)])
        check(tracking[at] == words[at] + after, p3, "tracking numbers do not number the words")
        check(tracking[1] >= 1, p3, "holds no words")
        # Every child leads to a word, so T strictly decreases along a child block and never
        # grows from a node to its children: a cycle would keep T constant, which only the
        # edge from a non-word node p to its first child with T[p] = T[first] does. Those
        # edges form chains (one per node); following each 2^k times for 2^k > N ends every
        # chain at 0 unless a cycle holds it.
        children = at[len(self.charset):]
        check(words[children] >= 1, p1, "child node that leads to no word")
        in_block = np.zeros(n + 1, bool)
        in_block[children] = True
        chain = np.where(in_block & (eow == 0) & (first > 0) & (tracking == tracking[first]), first, 0)
        for _ in range(n.bit_length() + 1):
            chain = chain[chain]
        check(chain == 0, p1, "nodes form a cycle (a walk would never end)")

    def _longest_word(self, path: Path) -> int:
        """Letters in the longest word, from the graph: the longest path from a start node (every node
        leads to a word), found by relaxing all edges at once, a letter more each round."""
        import numpy as np

        first, child_set, eow = self.fields()
        pos = self.positions()
        parents = np.flatnonzero(first)
        blocks = pos[child_set[parents]]
        row, letter = np.nonzero(blocks)  # row by row: each parent's children together, every parent has one
        child = first[parents[row]] + blocks[row, letter] - 1
        each_parent = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])  # where each parent's children start
        below = np.zeros(len(self.nodes), np.int64)  # letters on the longest path under each node
        for _ in range(MAX_WORD_LENGTH):
            deeper = np.zeros_like(below)
            deeper[parents] = np.maximum.reduceat(below[child], each_parent) + 1
            if np.array_equal(deeper, below):
                starts = np.arange(1, len(self.charset) + 1)
                live = eow[starts] + np.where(first[starts] > 0, self.tracking[first[starts]], 0) > 0
                return 1 + int(below[starts[live]].max())
            below = deeper
        raise DawgError(f"{path}: a word longer than {MAX_WORD_LENGTH} letters, or a cycle")

    @cached_property
    def _descents(self) -> Descents:
        """Descents in one loop, as `adtdawg_numbers` descends: the start block, then child-set
        positions; `number` follows the tracking markers, the others need none."""
        import numpy as np

        lay = self.layout
        nodes, tracking = np.ascontiguousarray(self.nodes).data, np.ascontiguousarray(self.tracking).data
        positions = np.ascontiguousarray(self.walk.inputs[2]).data
        codes = self._codes
        fc_mask, cs_mask = (1 << lay.first_child_bits) - 1, (1 << lay.child_set_bits) - 1
        fc_bits, eow_shift, width, start = lay.first_child_bits, lay.eow_shift, lay.letters, len(self.child_sets)

        def number(folded: str) -> int | None:
            first, row, base, marker, eow = 1, start * width, 0, 0, 0
            for letter in folded:
                code = codes.get(letter)
                place = positions[row + code] if code is not None else 0
                if not place:
                    return None
                node = first + place - 1
                word = nodes[node]
                marker = base + tracking[node]
                eow = (word >> eow_shift) & 1
                first = word & fc_mask
                row = ((word >> fc_bits) & cs_mask) * width
                base = marker - eow - tracking[first]
            return marker if eow else None

        def has(folded: str) -> int | None:  # the end node: no markers
            first, row, node = 1, start * width, 0
            for letter in folded:
                code = codes.get(letter)
                place = positions[row + code] if code is not None else 0
                if not place:
                    return None
                node = first + place - 1
                word = nodes[node]
                first = word & fc_mask
                row = ((word >> fc_bits) & cs_mask) * width
            return node if (nodes[node] >> eow_shift) & 1 else None

        def word_ends(folded: str) -> list[int]:
            ends, first, row = [], 1, start * width
            for end, letter in enumerate(folded, 1):
                code = codes.get(letter)
                place = positions[row + code] if code is not None else 0
                if not place:
                    break
                word = nodes[first + place - 1]
                if (word >> eow_shift) & 1:
                    ends.append(end)
                first = word & fc_mask
                row = ((word >> fc_bits) & cs_mask) * width
            return ends

        return Descents(number, has, word_ends)

    def word_steps(self) -> WordSteps:
        # a state of the walk: (node, its tracking marker: the number it has if it ends a word)
        import numpy as np

        lay = self.layout
        first, child_set, eow = (Field(self.nodes, shift, (1 << bits) - 1) for shift, bits in
                                 ((0, lay.first_child_bits), (lay.first_child_bits, lay.child_set_bits),
                                  (lay.eow_shift, 1)))
        pos = PositionRows(self.walk.inputs[2], lay.letters)  # the walk's decoded positions, made once
        flat = np.ascontiguousarray(self.walk.inputs[2]).data
        t = Field(self.tracking)

        count = self.word_count
        letters, width = len(self.charset), self.layout.letters  # a child set's row: `width` positions
        root = (0, count)  # the virtual start: node 0 is no node; its children are the letters' start nodes

        def children(state):
            node, marker = state
            if not node:
                yield from ((letter, (letter + 1, t[letter + 1])) for letter in range(letters))
                return
            f = first[node]
            if f:
                base = marker - eow[node] - t[f]
                for letter, p in enumerate(pos[child_set[node]]):
                    if p:
                        c = f + p - 1
                        yield letter, (c, base + t[c])

        def child(state, letter: int):
            node, marker = state
            if not node:
                return letter + 1, t[letter + 1]
            f = first[node]
            p = flat[child_set[node] * width + letter] if f else 0
            if not p:
                return None
            c = f + p - 1
            return c, marker - eow[node] - t[f] + t[c]

        # markers count down from the word count: a word's marker is count - rank
        return WordSteps(root, children, child, lambda state: state[1] if state[0] and eow[state[0]] else None,
                         rank=lambda state: count - state[1], rank_of=lambda number: count - number)

    def info(self) -> dict:
        return {**super().info(), "nodes": len(self.nodes) - 1, "child_sets": len(self.child_sets),
                "wide_nodes": self.wide_nodes, "layout": self.layout.to_manifest(),
                "reference_layout": self.layout.is_reference}


class PositionRows:
    """The rows of the flat child-set positions of the walk (`AdtLexicon.positions`), as lists, when read."""

    def __init__(self, flat: np.ndarray, letters: int) -> None:
        self.flat, self.letters = flat, letters

    def __getitem__(self, row: int) -> list[int]:
        return self.flat[row * self.letters:(row + 1) * self.letters].tolist()


def walk_entries(fields: tuple[np.ndarray, np.ndarray, np.ndarray], set_mask: np.ndarray,
                 letters: int) -> tuple[np.ndarray, int]:
    """The board walk's node entries and `wide` (0 or 1): node n's first child and end of word at
    entries[n << wide], the letters of its children (its child set's mask) in the same int64 above
    them or, wide, in the next one. The walk then reads a node's children from the node itself:
    the child for a letter is the first child plus the node's child letters below it (a popcount),
    with no child-set table between a node and its children (15% more JPA14 boards a CPU-second).
    fields: `AdtLexicon.fields()`."""
    import numpy as np

    first, child_set, eow = fields
    kids = set_mask[child_set]
    head = first | (eow << ENTRY_EOW)
    if letters <= NARROW_ENTRY_LETTERS:
        return head | (kids << ENTRY_KIDS), 0
    return np.column_stack([head, kids]).ravel(), 1


def header_count(path: Path, data: np.ndarray, dtype: str) -> int:
    import numpy as np

    size = np.dtype(dtype).itemsize
    if len(data) < size:
        raise DawgError(f"{path}: truncated (no count header)")
    return int(data[:size].view(dtype)[0])


def adtdawg_numbers(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits, eow_shift, entries, wide,
                    codes, starts, ends, numbers):
    """The number of each word (letter codes codes[starts[i]:ends[i]]) in an ADTDAWG, its tracking
    marker, or -1 where it is none: the batch lookup (`Lexicon.key_ids`); steps as `adtdawg_board`'s."""
    fc_mask = (1 << fc_bits) - 1
    cs_mask = (1 << cs_bits) - 1
    for i in range(len(numbers)):
        first = 1
        row = (len(set_mask) - 1) * letters  # the start block's virtual child set
        base = 0
        marker = 0
        eow = 0
        j = starts[i]
        while j < ends[i]:
            letter = int(codes[j])  # int(): a uint8 would shift as a uint8 in CPython
            place = int(positions[row + letter]) if letter < letters else 0
            if place == 0:
                break
            node = first + place - 1
            word = nodes[node]
            marker = base + int(tracking[node])
            eow = (word >> eow_shift) & 1
            first = word & fc_mask
            row = ((word >> fc_bits) & cs_mask) * letters
            base = marker - eow - int(tracking[first])
            j += 1
        numbers[i] = marker if j == ends[i] and eow else -1


def adtdawg_words(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits, eow_shift, entries, wide,
                  prefix, status, frames, codes, numbers):
    """The words that start with `prefix`, as `trie_words` lists a trie's; a word's number is its
    tracking marker. A frame: first child, letters, letters left, letter taken, marker base, child-set row."""
    words = 0
    used = 0
    fc_mask = (1 << fc_bits) - 1
    cs_mask = (1 << cs_bits) - 1
    if status[0] == NOT_STARTED:
        first = 1
        child_set = len(set_mask) - 1  # the start block's virtual child set
        base = 0
        marker = 0
        eow = 0
        for j in range(len(prefix)):
            letter = int(prefix[j])
            place = int(positions[child_set * letters + letter]) if letter < letters else 0
            if place == 0:
                status[0] = DONE
                return 0, 0
            node = first + place - 1
            word = nodes[node]
            marker = base + int(tracking[node])
            eow = (word >> eow_shift) & 1
            first = word & fc_mask
            child_set = (word >> fc_bits) & cs_mask
            base = marker - eow - int(tracking[first])
        frames[0, 0] = first
        frames[0, 1] = set_mask[child_set]
        frames[0, 2] = set_mask[child_set]
        frames[0, 4] = base
        frames[0, 5] = child_set * letters
        status[0] = RUNNING
        status[1] = 0
        if eow and len(prefix):
            codes[0] = WORD_END
            numbers[0] = marker
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
        node = frames[d, 0] + int(positions[frames[d, 5] + letter]) - 1
        word = nodes[node]
        marker = frames[d, 4] + int(tracking[node])
        eow = (word >> eow_shift) & 1
        if eow and listing_full(numbers, words, codes, used, d):
            break  # full: this letter is the next call's first
        frames[d, 2] = remaining & (remaining - 1)
        frames[d, 3] = letter
        if eow:
            used = list_word(frames, d, codes, used)
            numbers[words] = marker
            words += 1
        child_set = (word >> fc_bits) & cs_mask
        mask = set_mask[child_set]
        if mask:
            if d + 2 == len(frames):
                status[0] = TOO_DEEP
                break
            d += 1
            first = word & fc_mask
            frames[d, 0] = first
            frames[d, 1] = mask
            frames[d, 2] = mask
            frames[d, 4] = marker - eow - int(tracking[first])
            frames[d, 5] = child_set * letters
    status[1] = d
    return words, used


def adtdawg_board(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits, eow_shift, entries, wide,
                  board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
                  found, capacity, width, found_count):
    """Score one board on an ADTDAWG; a word's id is its tracking marker.

    The walk reads `entries` (`walk_entries`): a node's first child, end of
    word and child letters, so that its child for a letter is the first child
    plus its child letters below that one (the CPU's popcount). The start
    block's nodes are 1..letters, one a letter, as if a node's children.
    """
    score = 0
    cells = len(board)
    # the current position: cell, neighbours to try, first child, its block's letters, letters so far,
    # and marker base = marker - eow - T[first child] (a child's marker is base + T[child]); the root's
    # base is 0 since T[1] is the word count
    cell = -1
    first = 1
    kids = (1 << letters) - 1
    todo = neighbours_with(near, cells, kids & nbr_mask[cells], 0)
    length = 0
    base = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[unsigned(nb)]
            node = first + popcount(kids & ((1 << (code & NO_LETTER)) - 1))
            at = node << wide
            head = entries[unsigned(at)]
            marker = base + tracking[unsigned(node)]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                inner_kids = entries[at + 1] if wide else head >> ENTRY_KIDS
                if not (inner_kids >> letter) & 1:
                    continue
                inner = head & ENTRY_FIRST
                marker -= ((head >> ENTRY_EOW) & 1) + tracking[inner]
                node = inner + popcount(inner_kids & ((1 << letter) - 1))
                at = node << wide
                head = entries[at]
                marker += tracking[node]
            child_length = length + cell_len[unsigned(nb)]
            eow = (head >> ENTRY_EOW) & 1
            if eow and stamps[unsigned(marker)] != stamp and card[unsigned(child_length)] >= 0:
                stamps[unsigned(marker)] = stamp
                score += card[unsigned(child_length)]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, marker,
                           child_length)
            child_kids = entries[at + 1] if wide else head >> ENTRY_KIDS
            child_letters = child_kids & nbr_mask[unsigned(nb)]
            if child_letters:
                prefetch_row(entries, (head & ENTRY_FIRST) << wide)
                prefetch_row(tracking, head & ENTRY_FIRST)
                top = sp * FRAME
                stack[unsigned(top)] = cell
                stack[unsigned(top + 1)] = todo
                stack[unsigned(top + 2)] = first
                stack[unsigned(top + 3)] = kids
                stack[unsigned(top + 4)] = length
                stack[unsigned(top + 5)] = base
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_letters, used)
                first = head & ENTRY_FIRST
                kids = child_kids
                base = marker - eow - tracking[unsigned(first)]
                length = child_length
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[unsigned(top)]
            todo = stack[unsigned(top + 1)]
            first = stack[unsigned(top + 2)]
            kids = stack[unsigned(top + 3)]
            length = stack[unsigned(top + 4)]
            base = stack[unsigned(top + 5)]
        else:
            return score


def reference_parts(snap: Snapshot) -> list[str] | None:
    """The four reference part files of a directory, if it holds exactly one of each."""
    names = snap.names()
    found = []
    for part in (1, 2, 3, 4):
        matches = fnmatch.filter(names, REFERENCE_ADT_GLOB.format(part=part))
        if len(matches) != 1 or not snap.is_file(matches[0]):
            return None
        found.append(matches[0])
    return found


def is_adtdawg_file(name: str, magic: bytes) -> bool:
    return name in ADT_FILES or fnmatch.fnmatch(name, REFERENCE_ADT_GLOB.format(part="[1234]"))


def adtdawg_files(snap: Snapshot, name: str | None) -> list[str] | None:
    """The four parts: ours (adtdawg-1..4.dat) or the reference files, complete, or None."""
    ours = list(ADT_FILES) if all(snap.is_file(n) for n in ADT_FILES) else None
    if name is not None:
        return ours if name in ADT_FILES else reference_parts(snap)
    return reference_parts(snap) or ours


def agree(path: Path, data: dict) -> None:
    """The recorded layout must be possible and agree with the charset and its own derived sizes."""
    lay = data["adtdawg"]["layout"]
    try:
        layout = AdtLayout.from_manifest(lay)
    except ValueError:
        raise DawgError(f"{path}: field adtdawg.layout: impossible layout "
                        f"(first_child_bits + child_set_bits must be at most 62)") from None
    for key, derived in (("letters", len(data["charset"])), ("node_bytes", layout.node_bytes),
                         ("child_set_words", layout.child_set_words)):
        if lay[key] != derived:
            raise DawgError(f"{path}: field adtdawg.layout.{key}: expected {derived} (from field "
                            f"{'charset' if key == 'letters' else 'adtdawg.layout'}), got {lay[key]}")


FORMAT = Format(
    "adtdawg", "the four-part reference layout (JPA14); smallest", AdtLexicon, is_adtdawg_file, adtdawg_files,
    section=fields(
        files=list_of(fields(**FILE_ENTRY), length=len(ADT_FILES)), bytes=integer(), nodes=index_count,
        child_sets=index_count, wide_nodes=index_count,
        layout=fields(letters=integer(1, WIDE_LETTERS), first_child_bits=integer(15, 32),
                      child_set_bits=integer(11, 31), node_bytes=integer(4, 8),
                      child_set_words=integer(1, AdtLayout(WIDE_LETTERS).child_set_words)),
    ),
    section_files=lambda section: section["files"],
    agree=agree,
    numbering=lambda i, count: count - i,  # a word's number is its tracking marker
)
