"""Compiled kernels of the deep end of the branch and bound: the sum/choice tree as nodes, and
the walk that forces the remaining cells without merging row lists.

`build_tree` turns a subclass's sorted entry rows (solver.proof.kernels) into
the explicit sum/choice tree in level order (breadth first), so that what the
walk reads together lies together: the letter children of a choice are
consecutive slots (a slot is a sum node: `s_letter`, its points `s_value`, U
of it `s_bound`), and so are the choices of a slot (a choice: its cell's rank
`q_rank`). Choice q's slots are q_slot[q]..q_slot[q + 1], in letter order;
slot j's choices are s_choice[j]..s_choice[j + 1]; slot 0 is the root. The
walk's scans of a choice's letters and its pushes of a slot's choices read a
few adjacent entries instead of one node per cache line, faster than the
preorder layout with skip links it replaced and than a depth-first order with
consecutive children (benchmarks/results/prove.md has both measurements).

`walk` forces the cells of ranks rank0.. in split order, one letter at a time,
keeping per rank the choice nodes reached so far (pending): forcing a letter
of rank r replaces each pending choice of rank r by its child for that letter
(its points added, its choices made pending) and drops those without one. Per
rank it also keeps, for each letter, the sum of U over the pending choices'
children for that letter. A board with letter a at rank r gets at most that
sum from the choices pending there, so a partial board's bound is its points
plus, over the ranks still open, the max over their letters of those sums:
what merging the pending choices of each rank would give at its top, without
merging anything. Before a letter is forced, the cheaper bound points +
by_letter[r, a] + the open bound below rank r (taken on arriving at rank r)
skips, without touching the pending choices, the letters that cannot reach
the target. Trying the next letter of a rank restores the ranks below to their
state on arriving there from a copy (a few KB) instead of undoing each push.
What each step saved: benchmarks/results/prove.md, "The walk's steps". Pruning below the target is sound; a full board reaching
the target has points equal to its multi-path score, at least its true score,
and is written out to be scored exactly. Allocation free inside: explicit
stacks, no recursion.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from .kernels import LETTER_OF, SYMBOL_BITS, TOKEN_SHIFT


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
    """How many slots and choices each level of the tree of sorted, distinct rows has: level t
    holds the slots of row prefixes of t tokens and the choices under them. A row adds a slot
    per token past its common prefix with the row before, and a choice for each, except at the
    common prefix when the row goes on through the same cell as the row before."""
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
def _close_choice(k, choice, best, total):
    """Close the open choice under the slot at depth k: the max over its letters adds to the
    slot's bound."""
    if choice[k] >= 0:
        total[k] += best[k]
        choice[k] = -1


@kernel(inline="always")
def _close_slots(prev, p, sums, choice, best, total, s_bound):
    """Close the slots deeper than depth p, deepest first, each into its parent choice."""
    for k in range(prev, p, -1):
        _close_choice(k, choice, best, total)
        s_bound[sums[k]] = total[k]
        if total[k] > best[k - 1]:
            best[k - 1] = total[k]


@kernel
def build_tree(tokens, pts, base):
    """The sum/choice tree of sorted, distinct rows plus `base` points at the root, in level
    order (see the module): (q_rank, q_slot, s_letter, s_value, s_bound, s_choice); the root is
    slot 0 and its bound, s_bound[0], the subclass's. One pass after counting the levels: rows
    in sorted order create each level's nodes in order, so a node's children are the next
    nodes created on the level below, and a slot's bound is final when the rows leave it."""
    n, width = tokens.shape
    level_slots, level_choices = _level_sizes(tokens)
    slots, choices = level_slots.sum(), level_choices.sum()
    next_slot = np.zeros(width + 1, np.int64)    # the next slot number of each level
    next_choice = np.zeros(width + 1, np.int64)  # the next choice number of each level
    for t in range(1, width + 1):
        next_slot[t] = next_slot[t - 1] + level_slots[t - 1]
        next_choice[t] = next_choice[t - 1] + level_choices[t - 1]
    q_rank = np.empty(choices, np.int8)
    q_slot = np.empty(choices + 1, np.int32)
    s_letter = np.empty(slots, np.int8)
    s_value = np.zeros(slots, np.int32)
    s_bound = np.empty(slots, np.int32)
    s_choice = np.empty(slots + 1, np.int32)
    sums = np.zeros(width + 1, np.int64)       # the open slot at each depth (row prefix length)
    total = np.zeros(width + 1, np.int64)      # its points and closed choices so far
    choice = np.full(width + 1, -1, np.int64)  # its open choice
    best = np.zeros(width + 1, np.int64)       # the max over that choice's closed letters so far
    s_letter[0], s_value[0], s_choice[0] = -1, base, 0
    total[0] = base
    next_slot[0] = 1
    prev = 0
    for i in range(n):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        _close_slots(prev, p, sums, choice, best, total, s_bound)
        if p < ln and choice[p] >= 0 and q_rank[choice[p]] != tokens[i, p] >> TOKEN_SHIFT:
            _close_choice(p, choice, best, total)
        for k in range(p, ln):
            t = tokens[i, k]
            if choice[k] < 0:
                h = next_choice[k]
                next_choice[k] += 1
                q_rank[h] = t >> TOKEN_SHIFT
                q_slot[h] = next_slot[k + 1]
                choice[k] = h
                best[k] = 0
            s = next_slot[k + 1]
            next_slot[k + 1] += 1
            s_letter[s] = t & LETTER_OF
            s_choice[s] = next_choice[k + 1]
            sums[k + 1] = s
            total[k + 1] = 0
            choice[k + 1] = -1
        s_value[sums[ln]] += pts[i]
        total[ln] += pts[i]
        prev = ln
    _close_slots(prev, 0, sums, choice, best, total, s_bound)
    _close_choice(0, choice, best, total)
    s_bound[0] = total[0]
    q_slot[choices] = slots
    s_choice[slots] = choices
    return q_rank, q_slot, s_letter, s_value, s_bound, s_choice


def root_bound(tree) -> int:
    """U of the tree's root: the bound of the whole subclass."""
    return int(tree[4][0])


@kernel(inline="always")
def _push(q, pend, top, by_letter, rank_max, q_rank, q_slot, s_letter, s_bound):
    """Make choice q pending, adding its letters' bounds to its rank's per-letter sums (and their
    max: sums only grow between restores, so the max follows them)."""
    r = q_rank[q]
    pend[top[r]] = q
    top[r] += 1
    for j in range(q_slot[q], q_slot[q + 1]):
        a = s_letter[j]
        by_letter[r, a] += s_bound[j]
        if by_letter[r, a] > rank_max[r]:
            rank_max[r] = by_letter[r, a]


@kernel
def walk(q_rank, q_slot, s_letter, s_value, s_bound, s_choice, rank0, letters, letter_count, wide, target, out):
    """Every full board of the subclass (ranks below rank0 forced, the tree's root its sum node)
    whose walk bound reaches `target`: writes the letters of ranks rank0.. of each to a row of
    `out` (indexed by rank) while there is room; returns (boards, bounds computed).
    letters[r, :letter_count[r]]: the letters the cell of rank r may hold, in increasing order;
    wide: the charset's layout (solver.proof.tables): by_letter has room for 32 letter codes, or
    64 when wide.

    by_letter[r, a] is the sum of U over the children for letter a of the choices pending at
    rank r; a partial board's bound is its points + the sum over the ranks still open of the
    max over their letters of by_letter."""
    ranks = letters.shape[0]
    cap = out.shape[0]
    per_rank = np.zeros(ranks, np.int64)
    for q in range(len(q_rank)):
        per_rank[q_rank[q]] += 1
    top = np.zeros(ranks, np.int64)  # one past the last pending choice of each rank in pend
    for r in range(1, ranks):
        top[r] = top[r - 1] + per_rank[r - 1]
    first = top.copy()               # where each rank's pending choices begin
    pend = np.empty(max(1, top[ranks - 1] + per_rank[ranks - 1]), np.int64)
    cur = np.empty(len(pend), np.int64)  # the next letter slot to look at of each pending choice
    span = 1 << (SYMBOL_BITS + wide)  # the letter codes by_letter has room for
    by_letter = np.zeros((ranks, span), np.int64)
    rank_max = np.zeros(ranks, np.int64)  # the max of each rank's by_letter
    saved = np.zeros((ranks + 1, ranks), np.int64)
    snap = np.zeros((ranks + 1, ranks, span), np.int64)  # by_letter of the ranks below each depth, on entry
    snap_max = np.zeros((ranks + 1, ranks), np.int64)  # ... and their maxima
    dirty = np.zeros(ranks + 1, np.bool_)  # whether a letter of the depth has pushed since
    points = np.zeros(ranks + 1, np.int64)
    li = np.zeros(ranks + 1, np.int64)
    board = np.zeros(ranks, np.int64)
    rest = np.zeros(ranks + 1, np.int64)  # at each depth on entry, the open bound of the ranks below it
    for q in range(s_choice[0], s_choice[1]):
        _push(q, pend, top, by_letter, rank_max, q_rank, q_slot, s_letter, s_bound)
    points[rank0] = s_value[0]
    found = 0
    nodes = 1
    if points[rank0] + _open_bound(rank0, rank_max) < target:
        return found, nodes
    d = rank0
    saved[d, :] = top
    snap[d, d + 1:, :] = by_letter[d + 1:, :]
    snap_max[d, d + 1:] = rank_max[d + 1:]
    dirty[d] = False
    rest[d] = _open_bound(d + 1, rank_max)
    for i in range(first[d], top[d]):
        cur[i] = q_slot[pend[i]]
    while d >= rank0:
        if d == ranks:
            if found < cap:
                out[found, :] = board
            found += 1
            d -= 1
            continue
        if li[d] >= letter_count[d]:
            li[d] = 0  # what the last letter made pending is dropped by the next letter above
            d -= 1
            continue
        a = letters[d, li[d]]
        li[d] += 1
        if points[d] + by_letter[d, a] + rest[d] < target:
            continue  # forcing a adds at most by_letter[d, a] here and below
        if dirty[d]:  # back to the state on arriving at this depth
            for r in range(d + 1, ranks):
                top[r] = saved[d, r]
                by_letter[r, :] = snap[d, r, :]
                rank_max[r] = snap_max[d, r]
        dirty[d] = True
        gain = 0
        for i in range(first[d], top[d]):
            q = pend[i]
            j = cur[i]
            end = q_slot[q + 1]
            while j < end and s_letter[j] < a:
                j += 1
            cur[i] = j
            if j < end and s_letter[j] == a:
                gain += s_value[j]
                for c in range(s_choice[j], s_choice[j + 1]):
                    _push(c, pend, top, by_letter, rank_max, q_rank, q_slot, s_letter, s_bound)
        nodes += 1
        p = points[d] + gain
        if p + _open_bound(d + 1, rank_max) < target:
            continue
        board[d] = a
        d += 1
        points[d] = p
        if d < ranks:
            saved[d, :] = top
            snap[d, d + 1:, :] = by_letter[d + 1:, :]
            snap_max[d, d + 1:] = rank_max[d + 1:]
            dirty[d] = False
            rest[d] = _open_bound(d + 1, rank_max)
            for i in range(first[d], top[d]):
                cur[i] = q_slot[pend[i]]
    return found, nodes


@kernel(inline="always")
def _open_bound(rank, rank_max):
    """The sum over ranks rank.. of the max of their by_letter (kept as the sums grow)."""
    total = 0
    for r in range(rank, rank_max.shape[0]):
        total += rank_max[r]
    return total
