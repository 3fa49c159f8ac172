"""The sum/choice tree as an arena of shared nodes, and forcing a cell on the tree itself.

A class's tree is built once from its sorted entry rows (solver.proof.entries) into an
arena (`Tree`) of two int32 tables of three columns, where a node is a header row
followed by a row per child, so that a node and its child list are read together (one
or two cache lines):

- `sums`: a sum node's header (points, bound, children), then per choice child (its
  node, its rank, its bound), in rank order;
- `choices`: a choice node's header (-, -, children), then per letter (its sum node, the
  letter, its bound), in letter order.

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

from ..jit import kernel
from ..walk_kernels import prefetch_row
from .entries import LETTER_OF, TOKEN_SHIFT
from .memory import grow, small_pages

POINTS, BOUND, COUNT = 0, 1, 2     # a sum node's header (a choice node's: its count, at COUNT)
CHILD, KEY, CHILD_BOUND = 0, 1, 2  # a child's row: the child, its rank or letter, its bound
SUM, CHOICE = 0, 1                 # the kinds of tasks and of nodes in a merge's log
NO_ROOM, LOG_FULL, STACK_FULL = -1, -2, -3  # what `force_cell` returns when the arena, its log or its stack is full
LEAVES = 64                        # leaves of 1 .. LEAVES points are shared nodes
LAG = 4                            # tasks the merge takes from below the top of its stack
ROWS_A_LINE = 5                    # rows of 12 bytes a 64-byte cache line holds (a few straddle two)
AHEAD = 8                          # nodes the bounds' pass prefetches ahead
GROWTH = 2                         # the arena grows by this factor when a force does not fit


@kernel(inline="always")
def _copy_row(table, to, row):
    table[to, CHILD], table[to, KEY], table[to, CHILD_BOUND] = table[row, CHILD], table[row, KEY], table[row, CHILD_BOUND]


@kernel(inline="always")
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
        ka, kb = table[ia, KEY], table[ib, KEY]
        if ka < kb:
            _copy_row(table, out, ia)
            ia += 1
        elif kb < ka:
            _copy_row(table, out, ib)
            ib += 1
        else:
            table[out, KEY] = ka
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


@kernel
def force_cell(sums, choices, tops, root, rank, letter, stack, log):
    """The root of the tree `root` with the cell of `rank` (the smallest rank in it) forced to
    `letter`: `root` itself when no path goes through that cell, else a new sum node on top of
    the arena (tops: the used rows of sums and of choices, advanced; tops[2]: the row of the
    shared leaf of 1 point). Returns NO_ROOM, LOG_FULL or STACK_FULL, with tops unchanged, when
    the arena, the log or the stack is too small. stack: (n, 4) int64 scratch for the tasks
    waiting; log: (m, 2) int64 scratch, a row per node made."""
    saved_sums, saved_choices = tops[0], tops[1]
    if sums[root, COUNT] == 0 or sums[root + 1, KEY] != rank:
        return root
    forced = sums[root + 1, CHILD]
    child = -1
    for e in range(forced + 1, forced + 1 + choices[forced, COUNT]):
        if choices[e, KEY] == letter:
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
            ia, a_end = a + 1 + skip, a + 1 + sums[a, COUNT]
            ib, b_end, points = 0, 0, points + sums[a, POINTS]
            if b >= 0:
                ib, b_end = b + 1, b + 1 + sums[b, COUNT]
                points += sums[b, POINTS]
            if ia == a_end and ib == b_end and 1 <= points <= LEAVES:  # the shared leaf
                node = tops[2] + points - 1
                if dest < 0:
                    result = node
                else:
                    choices[dest, CHILD], choices[dest, CHILD_BOUND] = node, points
                continue
        else:
            ia, a_end = a + 1, a + 1 + choices[a, COUNT]
            ib, b_end = b + 1, b + 1 + choices[b, COUNT]
        table = sums if kind == SUM else choices
        node = tops[kind]
        rows = (a_end - ia) + (b_end - ib)
        if node + 1 + rows > len(table) or logged >= len(log) or depth + rows > len(stack):
            tops[0], tops[1] = saved_sums, saved_choices
            return NO_ROOM if node + 1 + rows > len(table) else LOG_FULL if logged >= len(log) else STACK_FULL
        if kind == SUM:
            n, depth = _merge_rows(sums, node + 1, ia, a_end, ib, b_end, stack, depth, CHOICE, choices)
        else:
            n, depth = _merge_rows(choices, node + 1, ia, a_end, ib, b_end, stack, depth, SUM, sums)
        tops[kind] += n + 1
        table[node, COUNT] = n
        if kind == SUM:
            sums[node, POINTS] = points
        log[logged, 0], log[logged, 1] = node << 1 | kind, dest
        logged += 1
        if dest < 0:
            result = node
    # bounds bottom up: a node's merged children were made after it, the rest have theirs on its rows
    for i in range(logged - 1, -1, -1):
        if i >= AHEAD:  # the node read AHEAD steps on, whose rows may have left the caches
            ahead = log[i - AHEAD, 0]
            prefetch_row(sums if ahead & 1 == SUM else choices, ahead >> 1)
        node, kind, dest = log[i, 0] >> 1, log[i, 0] & 1, log[i, 1]
        if kind == SUM:
            bound = sums[node, POINTS]
            for e in range(node + 1, node + 1 + sums[node, COUNT]):
                bound += sums[e, CHILD_BOUND]
            sums[node, BOUND] = bound
            if dest >= 0:
                choices[dest, CHILD], choices[dest, CHILD_BOUND] = node, bound
        else:
            bound = 0
            for e in range(node + 1, node + 1 + choices[node, COUNT]):
                bound = max(bound, choices[e, CHILD_BOUND])
            sums[dest, CHILD], sums[dest, CHILD_BOUND] = node, bound
    return result


@kernel
def _row_length(tokens, i):
    for k in range(tokens.shape[1]):
        if tokens[i, k] < 0:
            return k
    return tokens.shape[1]


@kernel
def _common(tokens, i, prev, ln):
    """The length of the prefix row i shares with row i - 1 (of length prev)."""
    p = 0
    if i > 0:
        m = min(prev, ln)
        while p < m and tokens[i, p] == tokens[i - 1, p]:
            p += 1
    return p


@kernel
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


@kernel(inline="always")
def _close_choice(k, slot, choice, best, total, sums):
    """Close the open choice under the sum node at depth k: the max over its letters is its
    bound, on its row in the sum node, and adds to the sum node's bound."""
    if choice[k] >= 0:
        sums[slot[k] + choice[k] + 1, CHILD_BOUND] = best[k]
        total[k] += best[k]
        choice[k] = -1


@kernel(inline="always")
def _close_sums(prev, p, slot, head, choice, best, total, sums, choices):
    """Close the sum nodes deeper than depth p, deepest first: each one's bound is final, on its
    header and on its row in its parent choice, whose max it feeds."""
    for k in range(prev, p, -1):
        _close_choice(k, slot, choice, best, total, sums)
        sums[head[k], BOUND] = total[k]
        choices[choice[k - 1] + slot[k], CHILD_BOUND] = total[k]
        if total[k] > best[k - 1]:
            best[k - 1] = total[k]


@kernel
def _build(tokens, pts, base, level_slots, level_choices, sums, choices):
    """Write the sum/choice tree of sorted, distinct rows plus `base` points at the root into the
    tables (see the module); returns the rows used of each. Nodes are numbered level by level
    (rows in sorted order create each level's nodes in order), so that a sum node's choices and
    a choice's letters are numbered consecutively: sum node s (its choices numbered from c_s)
    has its header at row s + c_s, after the rows of the nodes before it, its choice c at row
    s + c + 1; choice c (its letters' sum nodes numbered from s_c) its header at c + s_c - 1
    (the root is no letter's), its letter's sum node s at row c + s. A node's bound is final
    when the rows leave it. level_slots, level_choices: `_level_sizes` of the rows."""
    n, width = tokens.shape
    next_slot = np.zeros(width + 1, np.int64)    # the next sum node number of each level
    next_choice = np.zeros(width + 1, np.int64)  # the next choice number of each level
    for t in range(1, width + 1):
        next_slot[t] = next_slot[t - 1] + level_slots[t - 1]
        next_choice[t] = next_choice[t - 1] + level_choices[t - 1]
    slot = np.zeros(width + 1, np.int64)         # the open sum node at each depth (row prefix length)
    head = np.zeros(width + 1, np.int64)         # ... its header row
    total = np.zeros(width + 1, np.int64)        # ... its points and closed choices so far
    choice = np.full(width + 1, -1, np.int64)    # ... its open choice
    choice_head = np.zeros(width + 1, np.int64)  # ... that choice's header row
    rank = np.zeros(width + 1, np.int64)         # ... and its rank
    best = np.zeros(width + 1, np.int64)         # the max over that choice's closed letters so far
    sums[0, POINTS], sums[0, COUNT] = base, 0
    total[0] = base
    next_slot[0] = 1
    prev = 0
    for i in range(n):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        _close_sums(prev, p, slot, head, choice, best, total, sums, choices)
        if p < ln and choice[p] >= 0 and rank[p] != tokens[i, p] >> TOKEN_SHIFT:
            _close_choice(p, slot, choice, best, total, sums)
        for k in range(p, ln):
            t = tokens[i, k]
            if choice[k] < 0:
                c = next_choice[k]
                next_choice[k] += 1
                choice[k], rank[k], best[k] = c, t >> TOKEN_SHIFT, 0
                choice_head[k] = c + next_slot[k + 1] - 1
                sums[slot[k] + c + 1, CHILD] = choice_head[k]
                sums[slot[k] + c + 1, KEY] = rank[k]
                sums[head[k], COUNT] += 1
                choices[choice_head[k], COUNT] = 0
            s = next_slot[k + 1]
            next_slot[k + 1] += 1
            slot[k + 1], head[k + 1] = s, s + next_choice[k + 1]
            sums[head[k + 1], POINTS], sums[head[k + 1], COUNT] = 0, 0
            choices[choice[k] + s, CHILD] = head[k + 1]
            choices[choice[k] + s, KEY] = t & LETTER_OF
            choices[choice_head[k], COUNT] += 1
            total[k + 1] = 0
            choice[k + 1] = -1
        sums[head[ln], POINTS] += pts[i]
        total[ln] += pts[i]
        prev = ln
    _close_sums(prev, 0, slot, head, choice, best, total, sums, choices)
    _close_choice(0, slot, choice, best, total, sums)
    sums[0, BOUND] = total[0]


class Tree:
    """A sum/choice tree in a growable arena (see the module); `root` is the class's root."""

    def __init__(self, tokens: np.ndarray, pts: np.ndarray, base: int = 0, reuse: Tree | None = None,
                 spare: float = 0.5) -> None:
        """The tree of sorted, distinct entry rows (solver.proof.entries) plus `base` points at the
        root, with room for `spare` times its rows more before the arena first grows; in the tables
        of `reuse` (a tree done with) when they are large enough, so that their memory is touched
        once for many classes."""
        level_slots, level_choices = _level_sizes(tokens)
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
        _build(tokens, pts, base, level_slots, level_choices, self.sums, self.choices)
        leaves = np.arange(1, LEAVES + 1)
        self.sums[used_sums:used_sums + LEAVES] = np.stack([leaves, leaves, 0 * leaves], axis=1)
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
        return int(self.sums[root, BOUND])

    def mark(self) -> tuple[int, ...]:
        """Where the arena ends now: `reset(mark)` drops every node made since."""
        return tuple(int(t) for t in self.tops)

    def reset(self, mark: tuple[int, ...]) -> None:
        self.tops[:] = mark

    def force(self, root: int, rank: int, letter: int) -> int:
        """The root of `root`'s tree with the cell of `rank` forced to `letter` (see the module),
        growing the arena when it is full."""
        while True:
            node = force_cell(self.sums, self.choices, self.tops, root, rank, letter, self.stack, self.log)
            if node == LOG_FULL:
                self.log = np.empty((max(GROWTH * len(self.log), 1 << 16), 2), np.int64)
            elif node == STACK_FULL:
                self.stack = np.empty((GROWTH * len(self.stack), 4), np.int64)
            elif node == NO_ROOM:
                self._grow()
            else:
                return int(node)

    def _grow(self) -> None:
        """Both tables GROWTH times larger, their contents kept (`memory.grow`: in place)."""
        for name in ("sums", "choices"):
            grow(self, name, GROWTH * len(getattr(self, name)))


def _table(old: np.ndarray | None, rows: int, spare: float) -> np.ndarray:
    """A table of at least `rows` rows: `old` when it has them, else a new one with room to spare."""
    if old is not None and len(old) >= rows:
        return old
    return small_pages((rows + int(rows * spare) + 64, 3), np.int32)
