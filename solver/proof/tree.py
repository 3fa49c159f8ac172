"""The sum/choice tree as an arena of shared nodes, and forcing a cell on the tree itself.

A class's tree is built once from its listed rows sorted by key (solver.proof.entries),
each distinct key's tokens read from the key itself, into an arena (`Tree`) of two int32
tables of two columns (8 bytes a row, eight rows a cache line), where a node is a header
row followed by a row per child, so that a node and its child list are read together:

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
from, and a leaf (points, no choices) of 1 to LEAVES points is one shared node, the
first rows of `sums` (a fifth of a 4x4 class's sum nodes were such leaves). The build
writes each node once its rows are done, children first (post-order), so that every
subtree of the class's tree is one run of rows in each table: a merge reads the two
subtrees it merges from two runs, not from every level of the tree (forcing took 10-13%
longer with the nodes numbered level by level: benchmarks/results/prove.md, "The tree in
post-order").

Forcing the next cell of the split order (rank r, the smallest rank left: every path
through a cell of a smaller rank was forced away above) to a letter: the root's first
choice, if it has rank r, is the only choice of that rank in the tree (the tree is
orderly: ranks increase down every path). Its child for the letter is merged into the
root without that choice: points add, choices of the same rank merge letter by letter,
sum nodes under the same letter merge in turn, and a node present on one side only is
shared, not copied. The merge's tasks (a pair of nodes to merge) wait in a queue, the log,
and are done in the order queued (breadth first), so that the nodes of the task QUEUE_AHEAD
on are known and prefetched while the task in hand is done: the merge waits on memory, and a
stack (depth first, a task's nodes prefetched as it was pushed) gave them less time (classes
of more than 2 s took 10-32% longer: benchmarks/results/prove.md, "The merge breadth first").
New nodes go on top of the arena; `mark`/`reset` drop them when the branch is done, so memory
follows the branch being explored, not the whole search. The forced tree is the one merging
the rows and building anew gives (the tests check it against that), at the cost of the nodes
the merge touches rather than of every row of the subclass.
"""

from __future__ import annotations

import numpy as np

from ..walk_kernels import highest_bit, prefetch_row
from .compiled import kernels
from .entries import KEY_BITS, LETTER_OF, POINTS_OF, TOKEN_SHIFT, WORD_SHIFT, _key_places
from .memory import grow, release, small_pages

POINTS, PACKED = 0, 1              # a header's columns: points; its count over its bound (a choice's bound: 0)
CHILD = 0                          # a child's row: the child, then its rank or letter over its bound (PACKED)
KEY_SHIFT = 24                     # a row's key (rank, letter or count) sits above this many bits of bound
BOUND_CAP = (1 << KEY_SHIFT) - 1   # bounds saturate here; also the mask of a packed column's bound
SUM, CHOICE = 0, 1                 # the kinds of tasks and of nodes in a merge's log
NO_ROOM, LOG_FULL = -1, -2          # what `force_cell` returns when the arena or its log is full
# (NO_ROOM: also what deep forcing returns when a rank outgrows its tables of pending choices)
LEAVES = 64                        # leaves of 1 .. LEAVES points are shared nodes
A, B, DEST, FLAGS = range(4)       # a merge task's row in the log: the nodes merged (A: then the node made, or -1
# for none), the row its result goes to (-1: the root), and its kind | SKIP
SKIP = 2                           # (in FLAGS) the root's task: its first choice left out
QUEUE_AHEAD = 16                   # tasks on from the one done whose nodes the merge prefetches
ROWS_A_LINE = 8                    # rows of 8 bytes a 64-byte cache line holds
AHEAD = 8                          # nodes the bounds' pass prefetches ahead
GROWTH = 2                         # the arena grows by this factor when a force or the build does not fit
ROWS_A_ENTRY = 4                   # rows of each table a tree takes per entry row, to start with (ENABLE2K 4x4: 3.3 and 4.2)
LOG_SHARE = 16                     # the merge's log has a task's row for every LOG_SHARE rows of the tree built, to
# start with (the most tasks one force of ENABLE2K 4x4 classes 1989748 and 865222 queued: at most 1/24 and 1/30 of them)


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


def _merge_rows(table, out, ia, a_end, ib, b_end, log, tail, kind):
    """Write the union of two key-sorted runs of child rows from row `out` on: a key on one side
    only keeps its row (the child shared); a key on both gets a task (the two children, the row,
    kind) queued at row `tail` of the log, its child and bound filled in when the task is done.
    Returns (the rows written, the log's new tail)."""
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
            log[tail, A], log[tail, B], log[tail, DEST], log[tail, FLAGS] = table[ia, CHILD], table[ib, CHILD], out, kind
            tail += 1
            ia += 1
            ib += 1
        out += 1
    for i in range(ia, a_end):
        _copy_row(table, out, i)
        out += 1
    for i in range(ib, b_end):
        _copy_row(table, out, i)
        out += 1
    return out - first, tail


def force_cell(sums, choices, tops, root, rank, letter, log):
    """The root of the tree `root` with the cell of `rank` (the smallest rank in it) forced to
    `letter`: `root` itself when no path goes through that cell, else a new sum node on top of
    the arena (tops: the used rows of sums and of choices, advanced; tops[2]: the row of the
    shared leaf of 1 point). Returns NO_ROOM or LOG_FULL, with tops unchanged, when the arena or
    the log is too small. log: (m, 4) int32 scratch, a row per task (see the module)."""
    saved_sums, saved_choices = tops[0], tops[1]
    if key_of(sums, root) == 0 or key_of(sums, root + 1) != rank:
        return root
    if len(log) == 0:
        return LOG_FULL
    forced = sums[root + 1, CHILD]
    child = -1
    for e in range(forced + 1, forced + 1 + key_of(choices, forced)):
        if key_of(choices, e) == letter:
            child = choices[e, CHILD]
            break
    # the root's task skips the root's first choice (SKIP); b = -1: nothing to merge in; dest -1: the root
    log[0, A], log[0, B], log[0, DEST], log[0, FLAGS] = root, child, -1, SUM | SKIP
    tail = 1
    result = -1
    for i in range(len(log)):  # the tasks in the order queued (breadth first), until none is left
        if i == tail:
            break
        j = i + QUEUE_AHEAD  # the nodes of the task done QUEUE_AHEAD tasks on: their loads get that long
        if j < tail:
            if log[j, FLAGS] & 1 == SUM:
                for ahead in range(0, 2 * ROWS_A_LINE, ROWS_A_LINE):  # a node's first two cache lines
                    prefetch_row(sums, log[j, A] + ahead)
                    prefetch_row(sums, log[j, B] + ahead)
            else:
                for ahead in range(0, 2 * ROWS_A_LINE, ROWS_A_LINE):
                    prefetch_row(choices, log[j, A] + ahead)
                    prefetch_row(choices, log[j, B] + ahead)
        a, b, dest, kind = log[i, A], log[i, B], log[i, DEST], log[i, FLAGS] & 1
        points = 0
        if kind == SUM:
            ia, a_end = a + 1 + (log[i, FLAGS] >> 1), a + 1 + key_of(sums, a)
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
                log[i, A] = -1  # no node made
                continue
        else:
            ia, a_end = a + 1, a + 1 + key_of(choices, a)
            ib, b_end = b + 1, b + 1 + key_of(choices, b)
        node = tops[kind]
        rows = (a_end - ia) + (b_end - ib)
        room = len(sums) if kind == SUM else len(choices)
        if node + 1 + rows > room or tail + rows > len(log):
            tops[0], tops[1] = saved_sums, saved_choices
            return NO_ROOM if node + 1 + rows > room else LOG_FULL
        # each table named in its own branch: an array chosen by a condition costs two atomic
        # reference-count updates a task in compiled code
        if kind == SUM:
            n, tail = _merge_rows(sums, node + 1, ia, a_end, ib, b_end, log, tail, CHOICE)
            sums[node, POINTS], sums[node, PACKED] = points, n << KEY_SHIFT
        else:
            n, tail = _merge_rows(choices, node + 1, ia, a_end, ib, b_end, log, tail, SUM)
            choices[node, POINTS], choices[node, PACKED] = points, n << KEY_SHIFT
        tops[kind] += n + 1
        log[i, A] = node
        if dest < 0:
            result = node
    # bounds bottom up: a node's merged children were queued after it, the rest have theirs on its rows
    for i in range(tail - 1, -1, -1):
        if i >= AHEAD:  # the node read AHEAD steps on, whose rows may have left the caches
            ahead = log[i - AHEAD, A]
            if log[i - AHEAD, FLAGS] & 1 == SUM:
                prefetch_row(sums, ahead)
            else:
                prefetch_row(choices, ahead)
        node, kind, dest = log[i, A], log[i, FLAGS] & 1, log[i, DEST]
        if node < 0:
            continue
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


# the rows of `_build_state`, each a value per depth (a row prefix's length); TOPS: the tables' used rows;
# ROW: the tokens of the row being built; HELD, per rank r: how many of the last row's tokens come before r
(AT_POINTS, AT_TOTAL, AT_CHOICES, AT_LETTER, AT_RANK, AT_LETTERS, AT_BEST, ROW, HELD, TOPS) = range(10)
PREV, ROOT, GROUP = 2, 3, 4  # TOPS' other elements: the last row's length, the root once built, and the first
# of the sorted rows with the last row's key
BUILD_CHUNK = 1 << 16  # rows built per call, after which a large class's rows read give their pages back


def _pack(key, bound):
    """A packed column: key over min(bound, BOUND_CAP)."""
    return (key << KEY_SHIFT) | min(bound, BOUND_CAP)


def _build_state(cells, base):
    """The state `_build_rows` carries from row to row: per depth (a row prefix's length), the
    open sum node's points, its bound so far (points and closed choices), its closed choices and
    its letter; the open choice under it (its rank, or -1), its closed letters and their max; the
    tokens of the row, and per rank how many of the last row's come before it (two rows share
    their tokens up to the first rank whose symbols differ, so only the rest are read from the
    key); the tables' used rows (after the shared leaves), the
    last row's length, the root and the first row of the last key. And `made`: per depth, the rows
    of the open sum node's closed choices and of its open choice's closed letters, written out
    when the node closes. The root's points are `base`."""
    st = np.zeros((TOPS + 1, max(cells + 1, GROUP + 1)), np.int64)
    st[AT_RANK, :] = -1
    st[AT_POINTS, 0] = st[AT_TOTAL, 0] = base
    st[TOPS, 0] = LEAVES
    made = np.zeros((cells + 1, 2, max(cells, LETTER_OF + 1), 2), np.int64)  # a node: a choice a cell, or a letter
    return st, made


def _build_rows(table, lo, hi, last, cells, wide, st, made, sums, choices):
    """Build the tree of columns lo..hi of `table`, the listed rows sorted by key (solver.proof.entries'
    sort_entries: payloads, then key words), into the tables (see the module), going on from `st`
    and `made` (`_build_state`): a row per distinct key, its tokens read from the key, its points
    those of its distinct words. With `last`, then close every node still open, the root last
    (st[TOPS, ROOT]). Returns the column it stopped before: hi (hi + 1 with `last`) when done,
    else the one whose nodes might not fit in the tables (grow them and go on from there). A node
    is written when the rows leave it, its children before it (post-order), so that every subtree
    is one run of rows in each table, read in order by the merge. A sum node with no choices and
    1 to LEAVES points is the shared leaf instead. (One loop, no helpers: arrays passed to a
    helper in the loop cost atomic reference-count updates at each call.)"""
    key_word, key_shift, bits = _key_places(cells, wide)
    per_word = KEY_BITS // bits
    rank_at = np.empty(64, np.int64)  # rank_at[b]: the place in its key word of the rank whose symbol holds bit b
    for b in range(64):
        rank_at[b] = per_word - 1 - b // bits  # (a table: a division by `bits` took 3% of the build)
    skipped = (np.int64(1) << bits) - 1  # also the mask of a symbol
    words = table.shape[0] - 1
    pay = table[0]
    prev, group = st[TOPS, PREV], st[TOPS, GROUP]
    widest = 1 + made.shape[2]  # the most rows a node can take
    for i in range(lo, hi + last):
        ln, p, rank = 0, 0, -1  # past the last row: close everything
        if i < hi:
            r0 = 0  # the first rank whose symbol differs from the last row's (cells: none)
            if i > 0:
                r0 = cells
                for w in range(words):
                    diff = table[1 + w, i] ^ table[1 + w, i - 1]
                    if diff:
                        r0 = w * per_word + rank_at[highest_bit(diff)]
                        break
            if r0 == cells:  # the last row's key again: its points, for a word not counted yet
                seen = False
                for b in range(group, i):
                    if pay[b] >> WORD_SHIFT == pay[i] >> WORD_SHIFT:
                        seen = True
                        break
                if not seen:
                    st[AT_POINTS, prev] += pay[i] & POINTS_OF
                    st[AT_TOTAL, prev] += pay[i] & POINTS_OF
                continue
            # the row's tokens from the first rank whose symbol is not the last row's: before it
            # the two rows share their tokens, HELD[r0] of them
            p = st[HELD, r0]
            ln = p
            w, shift = key_word[r0], key_shift[r0]
            word = table[1 + w, i]
            for r in range(r0, cells):
                st[HELD, r] = ln
                symbol = (word >> shift) & skipped
                if symbol == 0:
                    break
                if symbol != skipped:
                    st[ROW, ln] = (r << TOKEN_SHIFT) | (symbol - 1)
                    ln += 1
                if shift > 0:
                    shift -= bits
                elif r + 1 < cells:  # the word's last rank: the next word's first
                    w, shift = w + 1, bits * (per_word - 1)
                    word = table[1 + w, i]
            rank = st[ROW, p] >> TOKEN_SHIFT
        closing = (prev - p + 1) * widest  # the rows the nodes this row closes (and the root) can take
        if st[TOPS, 0] + closing > len(sums) or st[TOPS, 1] + closing > len(choices):
            st[TOPS, PREV], st[TOPS, GROUP] = prev, group
            return i
        group = i
        # close the sum nodes deeper than p (deepest first) and their open choices, and at depth p
        # the open choice if the row goes on through another cell
        for k in range(prev, p - 1, -1):
            open_rank = st[AT_RANK, k]
            if open_rank >= 0 and (k > p or open_rank != rank):
                node, letters = st[TOPS, 1], st[AT_LETTERS, k]
                choices[node, POINTS], choices[node, PACKED] = 0, letters << KEY_SHIFT
                for j in range(letters):
                    choices[node + 1 + j, CHILD], choices[node + 1 + j, PACKED] = made[k, 1, j, 0], made[k, 1, j, 1]
                st[TOPS, 1] = node + 1 + letters
                n = st[AT_CHOICES, k]
                made[k, 0, n, 0], made[k, 0, n, 1] = node, _pack(open_rank, st[AT_BEST, k])
                st[AT_CHOICES, k] = n + 1
                st[AT_TOTAL, k] += st[AT_BEST, k]
                st[AT_RANK, k], st[AT_LETTERS, k], st[AT_BEST, k] = -1, 0, 0
            if k > p:
                n, points, total = st[AT_CHOICES, k], st[AT_POINTS, k], st[AT_TOTAL, k]
                if n == 0 and 1 <= points <= LEAVES:
                    node = points - 1  # the shared leaves are the first rows of sums
                else:
                    node = st[TOPS, 0]
                    sums[node, POINTS], sums[node, PACKED] = points, _pack(n, total)
                    for j in range(n):
                        sums[node + 1 + j, CHILD], sums[node + 1 + j, PACKED] = made[k, 0, j, 0], made[k, 0, j, 1]
                    st[TOPS, 0] = node + 1 + n
                m = st[AT_LETTERS, k - 1]
                made[k - 1, 1, m, 0], made[k - 1, 1, m, 1] = node, _pack(st[AT_LETTER, k], total)
                st[AT_LETTERS, k - 1] = m + 1
                if total > st[AT_BEST, k - 1]:
                    st[AT_BEST, k - 1] = total
        for k in range(p, ln):
            t = st[ROW, k]
            if st[AT_RANK, k] < 0:
                st[AT_RANK, k] = t >> TOKEN_SHIFT
            st[AT_POINTS, k + 1], st[AT_TOTAL, k + 1], st[AT_CHOICES, k + 1] = 0, 0, 0
            st[AT_LETTER, k + 1] = t & LETTER_OF
        if i < hi:
            st[AT_POINTS, ln] += pay[i] & POINTS_OF
            st[AT_TOTAL, ln] += pay[i] & POINTS_OF
        prev = ln
    st[TOPS, PREV], st[TOPS, GROUP] = prev, group
    if last:
        root, n = st[TOPS, 0], st[AT_CHOICES, 0]
        sums[root, POINTS], sums[root, PACKED] = st[AT_POINTS, 0], _pack(n, st[AT_TOTAL, 0])
        for j in range(n):
            sums[root + 1 + j, CHILD], sums[root + 1 + j, PACKED] = made[0, 0, j, 0], made[0, 0, j, 1]
        st[TOPS, 0] = root + 1 + n
        st[TOPS, ROOT] = root
    return hi + last


class Tree:
    """A sum/choice tree in a growable arena (see the module); `root` is the class's root."""

    def __init__(self, table: np.ndarray, n: int, cells: int, wide: int, base: int = 0, reuse: Tree | None = None,
                 spare: float = 0.5, give_back: bool = False) -> None:
        """The tree of the first n columns of `table`, a class's listed rows sorted by key
        (solver.proof.entries.sort_entries, on a board of `cells` cells in the charset layout
        `wide`), plus `base` points at the root, with room for `spare` times its rows more before
        the arena first grows; in the tables of `reuse` (a tree done with, and emptied) when they are large
        enough, so that their memory is touched once for many classes. give_back: `table` is a
        large class's `memory.small_pages` scratch, read once: its pages are given back as the
        build passes them, so that the sorted rows and the whole tree are never resident together."""
        compiled = kernels()
        log = reuse.log if reuse else None
        start = LEAVES + ROWS_A_ENTRY * n  # most classes' trees fit without growing
        self.sums = _table(reuse.sums if reuse else None, start, spare)
        self.choices = _table(reuse.choices if reuse else None, start, spare)
        if reuse:  # its tables are this tree's now: a second reference would keep them from growing in place
            reuse.sums = reuse.choices = reuse.log = None
        leaves = np.arange(1, LEAVES + 1)
        self.sums[:LEAVES] = np.stack([leaves, leaves], axis=1)  # no choices, bound = points
        state, made = _build_state(cells, base)
        lo, hi = 0, min(BUILD_CHUNK, n)
        while lo <= n:
            reached = compiled._build_rows(table, lo, hi, int(hi == n), cells, wide, state, made, self.sums,
                                           self.choices)
            if reached < hi + (hi == n):  # out of room
                self._grow()
                lo = reached
                continue
            if give_back:  # the columns read, short of the last key's (its words are compared with the next)
                for column in table:
                    release(column[:state[TOPS, GROUP]])
            lo, hi = hi + (hi == n), min(hi + BUILD_CHUNK, n)
        self.root = int(state[TOPS, ROOT])
        self.tops = np.array([state[TOPS, 0], state[TOPS, 1], 0], np.int64)  # tops[2]: the shared leaves' first row
        self._make_room(spare)
        tasks = int(self.tops[0] + self.tops[1]) // LOG_SHARE
        # the merge's tasks (grown by `force`): untouched rows cost address space only, and a force that
        # outgrew the log would be done again
        self.log = log if log is not None and len(log) >= tasks else small_pages((tasks, 4), np.int32)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The arena's tables, in the order the kernels take them."""
        return self.sums, self.choices

    @property
    def nbytes(self) -> int:
        return self.sums.nbytes + self.choices.nbytes + self.log.nbytes

    def bound(self, root: int) -> int:
        return int(self.sums[root, PACKED] & BOUND_CAP)

    def mark(self) -> tuple[int, ...]:
        """Where the arena ends now: `reset(mark)` drops every node made since."""
        return tuple(int(t) for t in self.tops)

    def reset(self, mark: tuple[int, ...]) -> None:
        self.tops[:] = mark

    def force(self, root: int, rank: int, letter: int) -> int:
        """The root of `root`'s tree with the cell of `rank` forced to `letter` (see the module),
        growing the arena or the log when it is full."""
        while True:
            node = kernels().force_cell(self.sums, self.choices, self.tops, root, rank, letter, self.log)
            if node == LOG_FULL:
                grow(self, "log", max(GROWTH * len(self.log), 1 << 16))
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

    def _make_room(self, spare: float) -> None:
        """Grow each table, if need be, to `spare` times its used rows free past them."""
        for name, used in (("sums", self.tops[0]), ("choices", self.tops[1])):
            rows = int(used + spare * used)
            if len(getattr(self, name)) < rows:
                grow(self, name, rows)


def _table(old: np.ndarray | None, rows: int, spare: float) -> np.ndarray:
    """A table of at least `rows` rows: `old` when it has them, else a new one with room to spare."""
    if old is not None and len(old) >= rows:
        return old
    return small_pages((rows + int(rows * spare) + 64, 2), np.int32)
