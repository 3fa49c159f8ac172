"""Deep forcing, compiled, at the deep end of the branch and bound: it forces the remaining cells
of a subclass's sum/choice tree (solver.proof.tree) without building any tree (no merging).

`force_remaining` forces the cells of ranks rank0.. in split order, one letter at a time,
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
What each step saved: benchmarks/results/prove.md, "The walk's steps" (deep forcing's old name).
Pruning below the target is sound; a full board reaching the target has
points equal to its multi-path score, at least its true score, and is written
out to be scored exactly. Explicit stacks, no recursion; nothing is allocated
after the start, and the tables of pending choices are the caller's, who widens
them when a rank outgrows them (a shared arena gives no count of a subtree's
choices ahead).
"""

from __future__ import annotations

import numpy as np

from ..walk_kernels import prefetch_row, unsigned
from .entries import SYMBOL_BITS
from .tree import CHILD, NO_ROOM, POINTS, bound_of, key_of


def _push(q, r, pend, top, by_letter, rank_max, choices):
    """Make choice q (of rank r) pending, adding its letters' bounds to its rank's per-letter sums
    (and their max: sums only grow between restores, so the max follows them). Deep forcing's most
    frequent step: indexed unsigned and with the max kept in a local, it took 12% off class 1989748."""
    rank = unsigned(r)
    pend[rank, unsigned(top[rank])] = q
    top[rank] += 1
    best = rank_max[rank]
    for e in range(q + 1, q + 1 + key_of(choices, q)):
        a = unsigned(key_of(choices, e))
        total = by_letter[rank, a] + bound_of(choices, e)
        by_letter[rank, a] = total
        if total > best:
            best = total
    rank_max[rank] = best


FIRST_ROOM = 64  # pending choices a rank has room for at first (`pend`, `cur`), doubled while too few


def force_remaining(sums, choices, root, rank0, letters, letter_count, wide, target, out, pend, cur):
    """Every full board of the subclass whose tree is `root` in the arena (solver.proof.tree;
    ranks below rank0 forced) whose bound reaches `target`: writes the letters of ranks rank0..
    of each to a row of `out` (indexed by rank) while there is room; returns (boards, bounds
    computed). letters[r, :letter_count[r]]: the letters the cell of rank r may hold, in
    increasing order; wide: the charset's layout (solver.proof.tables): by_letter has room for
    32 letter codes, or 64 when wide.

    by_letter[r, a] is the sum of U over the children for letter a of the choices pending at
    rank r; a partial board's bound is its points + the sum over the ranks still open of the
    max over their letters of by_letter.

    pend and cur: (ranks, room) scratch for the choices pending at each rank, pend[r, :top[r]],
    and the next edge to look at of each. Returns (NO_ROOM, 0) when a rank's choices outgrow the
    room: call again with wider ones. (Tables grown here, inside the loop, would cost two atomic
    updates of their reference counts at each of its steps in compiled code: about half its time.)"""
    ranks = letters.shape[0]
    cap = out.shape[0]
    top = np.zeros(ranks, np.int64)
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
    hit = np.zeros(pend.shape[1], np.int64)  # the sum nodes a letter reaches from the rank's pending choices
    for e in range(root + 1, root + 1 + key_of(sums, root)):
        r = key_of(sums, e)
        if top[r] == pend.shape[1]:
            return NO_ROOM, 0
        _push(sums[e, CHILD], r, pend, top, by_letter, rank_max, choices)
    points[rank0] = sums[root, POINTS]
    found = 0
    nodes = 1
    if points[rank0] + _open_bound(rank0, rank_max) < target:
        return found, nodes
    d = rank0
    # on arriving at a depth (here and at the loop's end): the ranks below kept to restore, their open
    # bound, each pending choice of the rank started at its first edge
    _keep(d, top, by_letter, rank_max, saved, snap, snap_max)
    dirty[d] = False
    rest[d] = _open_bound(d + 1, rank_max)
    for i in range(top[d]):
        cur[d, i] = pend[d, i] + 1
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
        if dirty[d]:  # back to the state on arriving at this depth (element by element, as `_keep` keeps it)
            for r in range(d + 1, ranks):
                top[r] = saved[d, r]
                for s in range(span):
                    by_letter[r, s] = snap[d, r, s]
                rank_max[r] = snap_max[d, r]
        dirty[d] = True
        hits = 0
        for i in range(top[d]):  # each pending choice's edge for a, the sum node it leads to prefetched
            q = pend[d, i]
            e = cur[d, i]
            end = q + 1 + key_of(choices, q)
            while e < end and key_of(choices, e) < a:
                e += 1
            cur[d, i] = e
            if e < end and key_of(choices, e) == a:
                hit[hits] = choices[e, CHILD]
                prefetch_row(sums, hit[hits])
                hits += 1
        gain = 0
        for h in range(hits):
            # the choices of the sum node after this one prefetched (the first's too), so that their rows
            # come in while this one's are pushed
            for n in range(h if h == 0 else h + 1, min(h + 2, hits)):
                j = hit[n]
                for c in range(j + 1, j + 1 + key_of(sums, j)):
                    prefetch_row(choices, sums[c, CHILD])
            j = hit[h]
            gain += sums[j, POINTS]
            for c in range(j + 1, j + 1 + key_of(sums, j)):
                r = key_of(sums, c)
                if top[r] == pend.shape[1]:
                    return NO_ROOM, 0
                _push(sums[c, CHILD], r, pend, top, by_letter, rank_max, choices)
        nodes += 1
        p = points[d] + gain
        if p + _open_bound(d + 1, rank_max) < target:
            continue
        board[d] = a
        d += 1
        points[d] = p
        if d < ranks:
            _keep(d, top, by_letter, rank_max, saved, snap, snap_max)
            dirty[d] = False
            rest[d] = _open_bound(d + 1, rank_max)
            for i in range(top[d]):
                cur[d, i] = pend[d, i] + 1
    return found, nodes


def _keep(d, top, by_letter, rank_max, saved, snap, snap_max):
    """On arriving at depth d: the pending counts, and the per-letter sums and maxima of the ranks
    below it, kept to restore (element by element: a slice would be a new array view, with its
    reference count updated, at every step)."""
    for r in range(top.shape[0]):
        saved[d, r] = top[r]
    for r in range(d + 1, by_letter.shape[0]):
        for a in range(by_letter.shape[1]):
            snap[d, r, a] = by_letter[r, a]
        snap_max[d, r] = rank_max[r]


def _open_bound(rank, rank_max):
    """The sum over ranks rank.. of the max of their by_letter (kept as the sums grow)."""
    total = 0
    for r in range(rank, rank_max.shape[0]):
        total += rank_max[r]
    return total
