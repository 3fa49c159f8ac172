"""The sum/choice tree as an arena of shared nodes, and forcing a cell on the tree itself.

A class's tree is built once from its sorted entry rows (solver.proof.entries) into an
arena (`Tree`) of two int32 tables of two columns (8 bytes a row, eight rows a cache
line), where a node is a header row followed by a row per child, so that a node and its
child list are read together:

- `sums`: a sum node's header (points, children | bound), then per choice child (its
  node, its rank | its bound), in rank order;
- `choices`: a choice node's header (0, children | 0), then per letter (its sum node,
  the letter | its bound), in letter order.

"k | b" is one int32, k << KEY_SHIFT | b: a key (a rank, a letter or a count, below
2^7) over a bound that saturates at BOUND_CAP (a stored bound is min(bound, BOUND_CAP):
sums and maxima of saturated bounds stay saturated, so a bound compares with a target
of at most BOUND_CAP as the true bound does; check_min_score keeps targets there).
Twelve bytes a row before this packing made the arena the largest part of a class's
memory (benchmarks/results/prove.md, "Proof memory at or below the published prover's").
A node's id is its header's row. A child's rank or letter and its bound are on the
parent's row for it, so merging two child lists and deep forcing's pushes read rows in
order and visit a child only to descend into it. A node can be the child of several
parents: a forced tree shares every subtree it does not change with the tree it came
from, and a leaf (points, no choices) of 1 to LEAVES points is one shared node.

Forcing the next cell of the split order (rank r, the smallest rank left: every path
through a cell of a smaller rank was forced away above) to a letter: the root's first
choice, if it has rank r, is the only choice of that rank in the tree (the tree is
orderly: ranks increase down every path). Its child for the letter is merged into the
root without that choice: points add, choices of the same rank merge letter by letter,
sum nodes under the same letter merge in turn, and a node present on one side only is
shared, not copied. New nodes go on top of the arena; `mark`/`reset` drop them when the
branch is done, so memory follows the branch being explored, not the whole search. The
forced tree is the one merging the rows and building anew gives (the tests check it
against that), at the cost of the nodes the merge touches rather than of every row of
the subclass.
"""

from __future__ import annotations

import numpy as np

from ..walk_kernels import prefetch_row
from .compiled import kernels
from .entries import LETTER_OF, TOKEN_SHIFT
from .memory import grow, release, small_pages

POINTS, PACKED = 0, 1              # a header's columns: points; its count over its bound (a choice's bound: 0)
CHILD = 0                          # a child's row: the child, then its rank or letter over its bound (PACKED)
KEY_SHIFT = 24                     # a row's key (rank, letter or count) sits above this many bits of bound
BOUND_CAP = (1 << KEY_SHIFT) - 1   # bounds saturate here; also the mask of a packed column's bound
SUM, CHOICE = 0, 1                 # the kinds of tasks and of nodes in a merge's log
NO_ROOM, LOG_FULL, STACK_FULL = -1, -2, -3  # what `force_cell` returns when the arena, its log or its stack is full
# (NO_ROOM: also what deep forcing returns when a rank outgrows its tables of pending choices)
LEAVES = 64                        # leaves of 1 .. LEAVES points are shared nodes
LAG = 4                            # tasks the merge takes from below the top of its stack
ROWS_A_LINE = 8                    # rows of 8 bytes a 64-byte cache line holds
AHEAD = 8                          # nodes the bounds' pass prefetches ahead
GROWTH = 2                         # the arena grows by this factor when a force does not fit


def _copy_row(table, to, row):
    table[to, CHILD], table[to, PACKED] = table[row, CHILD], table[row, PACKED]


def key_of(table, row):
    """The key (rank, letter or count) of a row."""
    return table[row, PACKED] >> KEY_SHIFT


def bound_of(table, row):
    """The bound of a row (saturated at BOUND_CAP)."""
    return table[row, PACKED] & BOUND_CAP


def set_bound(table, row, bound):
    """Put min(bound, BOUND_CAP) under the row's key."""
    table[row, PACKED] = (table[row, PACKED] & ~BOUND_CAP) | min(bound, BOUND_CAP)


def _merge_rows(table, out, ia, a_end, ib, b_end, stack, depth, kind, children):
    """Write the union of two key-sorted runs of child rows from row `out` on: a key on one side
    only keeps its row (the child shared); a key on both gets a task (kind, the two children,
    the row) pushed on the stack, its child and bound filled in when the task is done, and the
    two children's header and first rows (in the table `children`) prefetched: the merge waits
    on memory, and the tasks pushed before them give those loads time (prefetching past the
    table's end is harmless: a prefetch never faults). Returns (the rows written, the stack's
    new depth)."""
    first = out
    while ia < a_end and ib < b_end:
        ka, kb = key_of(table, ia), key_of(table, ib)
        if ka < kb:
            _copy_row(table, out, ia)
            ia += 1
        elif kb < ka:
            _copy_row(table, out, ib)
            ib += 1
        else:
            table[out, PACKED] = ka << KEY_SHIFT
            a, b = table[ia, CHILD], table[ib, CHILD]
            for ahead in range(0, 3 * ROWS_A_LINE, ROWS_A_LINE):  # a node's first three cache lines
                prefetch_row(children, a + ahead)
                prefetch_row(children, b + ahead)
            stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3] = kind, a, b, out
            depth += 1
            ia += 1
            ib += 1
        out += 1
    for i in range(ia, a_end):
        _copy_row(table, out, i)
        out += 1
    for i in range(ib, b_end):
        _copy_row(table, out, i)
        out += 1
    return out - first, depth


def force_cell(sums, choices, tops, root, rank, letter, stack, log):
    """The root of the tree `root` with the cell of `rank` (the smallest rank in it) forced to
    `letter`: `root` itself when no path goes through that cell, else a new sum node on top of
    the arena (tops: the used rows of sums and of choices, advanced; tops[2]: the row of the
    shared leaf of 1 point). Returns NO_ROOM, LOG_FULL or STACK_FULL, with tops unchanged, when
    the arena, the log or the stack is too small. stack: (n, 4) int64 scratch for the tasks
    waiting; log: (m, 2) int64 scratch, a row per node made."""
    saved_sums, saved_choices = tops[0], tops[1]
    if key_of(sums, root) == 0 or key_of(sums, root + 1) != rank:
        return root
    forced = sums[root + 1, CHILD]
    child = -1
    for e in range(forced + 1, forced + 1 + key_of(choices, forced)):
        if key_of(choices, e) == letter:
            child = choices[e, CHILD]
            break
    # tasks: (kind, a, b, the row its result goes to, -1 for the root); the root's task skips the
    # root's first choice (a < 0 marks it: ~root); b = -1: nothing to merge in
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = SUM, ~root, child, -1
    depth = 1
    logged = 0
    result = -1
    while depth > 0:
        depth -= 1
        if depth >= LAG:  # take a task LAG below the top: the rows of those above, prefetched when pushed, get time to arrive
            for k in range(4):
                stack[depth, k], stack[depth - LAG, k] = stack[depth - LAG, k], stack[depth, k]
        kind, a, b, dest = stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3]
        points = 0
        if kind == SUM:
            skip = 0
            if a < 0:
                a, skip = ~a, 1
            ia, a_end = a + 1 + skip, a + 1 + key_of(sums, a)
            ib, b_end, points = 0, 0, points + sums[a, POINTS]
            if b >= 0:
                ib, b_end = b + 1, b + 1 + key_of(sums, b)
                points += sums[b, POINTS]
            if ia == a_end and ib == b_end and 1 <= points <= LEAVES:  # the shared leaf
                node = tops[2] + points - 1
                if dest < 0:
                    result = node
                else:
                    choices[dest, CHILD] = node
                    set_bound(choices, dest, points)
                continue
        else:
            ia, a_end = a + 1, a + 1 + key_of(choices, a)
            ib, b_end = b + 1, b + 1 + key_of(choices, b)
        node = tops[kind]
        rows = (a_end - ia) + (b_end - ib)
        room = len(sums) if kind == SUM else len(choices)
        if node + 1 + rows > room or logged >= len(log) or depth + rows > len(stack):
            tops[0], tops[1] = saved_sums, saved_choices
            return NO_ROOM if node + 1 + rows > room else LOG_FULL if logged >= len(log) else STACK_FULL
        # each table named in its own branch: an array chosen by a condition costs two atomic
        # reference-count updates a task in compiled code
        if kind == SUM:
            n, depth = _merge_rows(sums, node + 1, ia, a_end, ib, b_end, stack, depth, CHOICE, choices)
            sums[node, POINTS], sums[node, PACKED] = points, n << KEY_SHIFT
        else:
            n, depth = _merge_rows(choices, node + 1, ia, a_end, ib, b_end, stack, depth, SUM, sums)
            choices[node, POINTS], choices[node, PACKED] = points, n << KEY_SHIFT
        tops[kind] += n + 1
        log[logged, 0], log[logged, 1] = node << 1 | kind, dest
        logged += 1
        if dest < 0:
            result = node
    # bounds bottom up: a node's merged children were made after it, the rest have theirs on its rows
    for i in range(logged - 1, -1, -1):
        if i >= AHEAD:  # the node read AHEAD steps on, whose rows may have left the caches
            ahead = log[i - AHEAD, 0]
            if ahead & 1 == SUM:
                prefetch_row(sums, ahead >> 1)
            else:
                prefetch_row(choices, ahead >> 1)
        node, kind, dest = log[i, 0] >> 1, log[i, 0] & 1, log[i, 1]
        if kind == SUM:
            bound = sums[node, POINTS]
            for e in range(node + 1, node + 1 + key_of(sums, node)):
                bound += bound_of(sums, e)
            set_bound(sums, node, bound)
            if dest >= 0:
                choices[dest, CHILD] = node
                set_bound(choices, dest, bound)
        else:
            bound = 0
            for e in range(node + 1, node + 1 + key_of(choices, node)):
                bound = max(bound, bound_of(choices, e))
            sums[dest, CHILD] = node
            set_bound(sums, dest, bound)
    return result


def _row_length(tokens, i):
    for k in range(tokens.shape[1]):
        if tokens[i, k] < 0:
            return k
    return tokens.shape[1]


def _common(tokens, i, prev, ln):
    """The length of the prefix row i shares with row i - 1 (of length prev)."""
    p = 0
    if i > 0:
        m = min(prev, ln)
        while p < m and tokens[i, p] == tokens[i - 1, p]:
            p += 1
    return p


def _level_sizes(tokens):
    """How many sum and choice nodes each level of the tree of sorted, distinct rows has: level t
    holds the sum nodes of row prefixes of t tokens and the choices under them. A row adds a sum
    node per token past its common prefix with the row before, and a choice for each, except at
    the common prefix when the row goes on through the same cell as the row before."""
    n, width = tokens.shape
    slots = np.zeros(width + 1, np.int64)
    choices = np.zeros(width + 1, np.int64)
    slots[0] = 1
    prev = 0
    for i in range(n):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        for k in range(p, ln):
            slots[k + 1] += 1
            choices[k] += 1
        if p < prev and p < ln and (tokens[i, p] >> TOKEN_SHIFT) == (tokens[i - 1, p] >> TOKEN_SHIFT):
            choices[p] -= 1
        prev = ln
    return slots, choices


# the rows of `_build_state`
(AT_NEXT_SLOT, AT_NEXT_CHOICE, AT_SLOT, AT_HEAD, AT_TOTAL, AT_CHOICE, AT_CHOICE_HEAD, AT_RANK, AT_BEST,
 AT_CHOICES, AT_LETTERS, AT_LETTER, AT_PREV) = range(13)
BUILD_CHUNK = 1 << 16  # rows built per call, after which a large class's rows read give their pages back


def _pack(key, bound):
    """A packed column: key over min(bound, BOUND_CAP)."""
    return (key << KEY_SHIFT) | min(bound, BOUND_CAP)


def _close_choice(k, st, sums, choices):
    """Close the open choice under the sum node at depth k: the max over its letters is its
    bound, on its row in the sum node, and adds to the sum node's bound; its letter count goes
    on its header. (Rows are written whole, never read back: a row written long ago would be a
    cache miss to read.)"""
    if st[AT_CHOICE][k] >= 0:
        sums[st[AT_SLOT][k] + st[AT_CHOICE][k] + 1, PACKED] = _pack(st[AT_RANK][k], st[AT_BEST][k])
        choices[st[AT_CHOICE_HEAD][k], PACKED] = st[AT_LETTERS][k] << KEY_SHIFT
        st[AT_TOTAL][k] += st[AT_BEST][k]
        st[AT_CHOICE][k] = -1


def _close_sums(prev, p, st, sums, choices):
    """Close the sum nodes deeper than depth p, deepest first: each one's bound is final, on its
    header (with its choice count) and on its row in its parent choice, whose max it feeds."""
    for k in range(prev, p, -1):
        _close_choice(k, st, sums, choices)
        total = st[AT_TOTAL][k]
        sums[st[AT_HEAD][k], PACKED] = _pack(st[AT_CHOICES][k], total)
        choices[st[AT_CHOICE][k - 1] + st[AT_SLOT][k], PACKED] = _pack(st[AT_LETTER][k], total)
        if total > st[AT_BEST][k - 1]:
            st[AT_BEST][k - 1] = total


def _build_state(width, base, level_slots, level_choices, sums):
    """The state `_build_rows` carries from row to row, per depth (a row prefix's length): the
    next sum node and choice number of each level; the open sum node (its number, header row,
    points and closed choices so far, choices so far, letter); its open choice (number, header
    row, rank, letters so far) and the max over that choice's closed letters; AT_PREV's first
    element holds the last row's length. The root's points are written (`base`).
    level_slots, level_choices: `_level_sizes` of the rows."""
    st = (np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64),
          np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64),
          np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64),
          np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64), np.zeros(width + 1, np.int64),
          np.zeros(width + 1, np.int64))
    for t in range(1, width + 1):
        st[AT_NEXT_SLOT][t] = st[AT_NEXT_SLOT][t - 1] + level_slots[t - 1]
        st[AT_NEXT_CHOICE][t] = st[AT_NEXT_CHOICE][t - 1] + level_choices[t - 1]
    st[AT_CHOICE][:] = -1
    sums[0, POINTS], sums[0, PACKED] = base, 0
    st[AT_TOTAL][0] = base
    st[AT_NEXT_SLOT][0] = 1
    return st


def _build_rows(tokens, pts, lo, hi, st, sums, choices):
    """Write rows lo..hi of the sorted, distinct rows into the tree's tables (see the module),
    going on from `st` (`_build_state`). Nodes are numbered level by level (rows in sorted
    order create each level's nodes in order), so that a sum node's choices and a choice's
    letters are numbered consecutively: sum node s (its choices numbered from c_s) has its
    header at row s + c_s, after the rows of the nodes before it, its choice c at row
    s + c + 1; choice c (its letters' sum nodes numbered from s_c) its header at c + s_c - 1
    (the root is no letter's), its letter's sum node s at row c + s. A node's bound is final
    when the rows leave it."""
    prev = st[AT_PREV][0]
    for i in range(lo, hi):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        _close_sums(prev, p, st, sums, choices)
        if p < ln and st[AT_CHOICE][p] >= 0 and st[AT_RANK][p] != tokens[i, p] >> TOKEN_SHIFT:
            _close_choice(p, st, sums, choices)
        for k in range(p, ln):
            t = np.int64(tokens[i, k])  # (int16 in plain Python: its shifts would overflow)
            if st[AT_CHOICE][k] < 0:
                c = st[AT_NEXT_CHOICE][k]
                st[AT_NEXT_CHOICE][k] += 1
                st[AT_CHOICE][k], st[AT_RANK][k], st[AT_BEST][k], st[AT_LETTERS][k] = c, t >> TOKEN_SHIFT, 0, 0
                st[AT_CHOICE_HEAD][k] = c + st[AT_NEXT_SLOT][k + 1] - 1
                sums[st[AT_SLOT][k] + c + 1, CHILD] = st[AT_CHOICE_HEAD][k]
                st[AT_CHOICES][k] += 1
                choices[st[AT_CHOICE_HEAD][k], POINTS] = 0
            s = st[AT_NEXT_SLOT][k + 1]
            st[AT_NEXT_SLOT][k + 1] += 1
            head = s + st[AT_NEXT_CHOICE][k + 1]
            st[AT_SLOT][k + 1], st[AT_HEAD][k + 1] = s, head
            sums[head, POINTS] = 0
            choices[st[AT_CHOICE][k] + s, CHILD] = head
            st[AT_LETTER][k + 1] = t & LETTER_OF
            st[AT_LETTERS][k] += 1
            st[AT_TOTAL][k + 1], st[AT_CHOICES][k + 1] = 0, 0
            st[AT_CHOICE][k + 1] = -1
        sums[st[AT_HEAD][ln], POINTS] += pts[i]
        st[AT_TOTAL][ln] += pts[i]
        prev = ln
    st[AT_PREV][0] = prev


def _build_end(st, sums, choices):
    """Close the nodes the last row left open, the root last."""
    _close_sums(st[AT_PREV][0], 0, st, sums, choices)
    _close_choice(0, st, sums, choices)
    sums[0, PACKED] = _pack(st[AT_CHOICES][0], st[AT_TOTAL][0])


class Tree:
    """A sum/choice tree in a growable arena (see the module); `root` is the class's root."""

    def __init__(self, tokens: np.ndarray, pts: np.ndarray, base: int = 0, reuse: Tree | None = None,
                 spare: float = 0.5, give_back: bool = False) -> None:
        """The tree of sorted, distinct entry rows (solver.proof.entries) plus `base` points at the
        root, with room for `spare` times its rows more before the arena first grows; in the tables
        of `reuse` (a tree done with) when they are large enough, so that their memory is touched
        once for many classes. give_back: the rows are a large class's `memory.small_pages`
        buffers, read once: their pages are given back as the build passes them, so that the rows
        and the whole tree are never resident together."""
        compiled = kernels()
        level_slots, level_choices = compiled._level_sizes(tokens)
        nodes, letters = int(level_slots.sum()), int(level_choices.sum())
        used_sums, used_choices = nodes + letters, letters + nodes - 1
        self.sums = _table(reuse.sums if reuse else None, used_sums + LEAVES, spare)
        self.choices = _table(reuse.choices if reuse else None, used_choices, spare)
        self.log = reuse.log if reuse else np.empty((0, 2), np.int64)
        # the merge's stack, to start with (it grows when a force needs more): a path holds at most one
        # choice a rank, a node at most 64 letters or a choice a rank, and the merge takes tasks LAG below its top
        ranks = (int(tokens.max()) >> TOKEN_SHIFT) + 1 if tokens.size else 0
        depth = 2 * (ranks + 1) * (max(LETTER_OF + 1, ranks) + 1)
        self.stack = reuse.stack if reuse and len(reuse.stack) >= depth else np.empty((depth, 4), np.int64)
        state = compiled._build_state(tokens.shape[1], base, level_slots, level_choices, self.sums)
        for lo in range(0, len(tokens), BUILD_CHUNK):
            hi = min(lo + BUILD_CHUNK, len(tokens))
            compiled._build_rows(tokens, pts, lo, hi, state, self.sums, self.choices)
            if give_back:  # the next row compares itself with row hi - 1
                release(tokens[:hi - 1])
                release(pts[:hi])
        compiled._build_end(state, self.sums, self.choices)
        leaves = np.arange(1, LEAVES + 1)
        self.sums[used_sums:used_sums + LEAVES] = np.stack([leaves, leaves], axis=1)  # no choices, bound = points
        self.tops = np.array([used_sums + LEAVES, used_choices, used_sums], np.int64)
        self.root = 0

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The arena's tables, in the order the kernels take them."""
        return self.sums, self.choices

    @property
    def nbytes(self) -> int:
        return self.sums.nbytes + self.choices.nbytes + self.log.nbytes + self.stack.nbytes

    def bound(self, root: int) -> int:
        return int(self.sums[root, PACKED] & BOUND_CAP)

    def mark(self) -> tuple[int, ...]:
        """Where the arena ends now: `reset(mark)` drops every node made since."""
        return tuple(int(t) for t in self.tops)

    def reset(self, mark: tuple[int, ...]) -> None:
        self.tops[:] = mark

    def force(self, root: int, rank: int, letter: int) -> int:
        """The root of `root`'s tree with the cell of `rank` forced to `letter` (see the module),
        growing the arena when it is full."""
        while True:
            node = kernels().force_cell(self.sums, self.choices, self.tops, root, rank, letter, self.stack, self.log)
            if node == LOG_FULL:
                self.log = np.empty((max(GROWTH * len(self.log), 1 << 16), 2), np.int64)
            elif node == STACK_FULL:
                self.stack = np.empty((GROWTH * len(self.stack), 4), np.int64)
            elif node == NO_ROOM:
                self._grow()
            else:
                return int(node)

    def give_back(self) -> None:
        """Give the arena's pages back (memory.release), its address space kept for the next tree."""
        release(self.sums)
        release(self.choices)

    def _grow(self) -> None:
        """Both tables GROWTH times larger, their contents kept (`memory.grow`: in place)."""
        for name in ("sums", "choices"):
            grow(self, name, GROWTH * len(getattr(self, name)))


def _table(old: np.ndarray | None, rows: int, spare: float) -> np.ndarray:
    """A table of at least `rows` rows: `old` when it has them, else a new one with room to spare."""
    if old is not None and len(old) >= rows:
        return old
    return small_pages((rows + int(rows * spare) + 64, 2), np.int32)
