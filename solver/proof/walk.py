"""Compiled kernels of the deep end of the branch and bound: the sum/choice tree as nodes, and
the walk that forces the remaining cells without merging row lists.

`build_tree` turns a subclass's sorted entry rows (solver.proof.kernels) into
the explicit sum/choice tree, one node array set in preorder: a sum node's
`tag` is its letter (the root's -1) and `value` its points; a choice node's
`tag` is its cell's rank; `skip` is one past the node's subtree, so a node's
children are node + 1, then each one's skip, up to its own skip (a choice's
children in letter order, a sum's choices in rank order); `bound` is U of the
node.

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
the target: 35% less walk time on ENABLE2K 3x4 classes with whole-charset
corners. Trying the next letter of a rank restores the ranks below to their
state on arriving there from a copy (a few KB) instead of undoing each push:
a further 27% less. Pruning below the target is sound; a full board reaching
the target has points equal to its multi-path score, at least its true score,
and is written out to be scored exactly. Allocation free inside: explicit
stacks, no recursion.
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(**_JIT)
def _row_length(tokens, i):
    for k in range(tokens.shape[1]):
        if tokens[i, k] < 0:
            return k
    return tokens.shape[1]


@numba.njit(**_JIT)
def _common(tokens, i, prev, ln):
    """The length of the prefix row i shares with row i - 1 (of length prev)."""
    p = 0
    if i > 0:
        m = min(prev, ln)
        while p < m and tokens[i, p] == tokens[i - 1, p]:
            p += 1
    return p


@numba.njit(**_JIT)
def _count_nodes(tokens):
    """The nodes of the tree of sorted, distinct rows: a sum node per new token, a choice node
    unless the previous row's choice at that depth is for the same cell, and the root."""
    size = 1
    prev = 0
    for i in range(tokens.shape[0]):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        size += 2 * (ln - p)
        if p < prev and p < ln and (tokens[i, p] >> 5) == (tokens[i - 1, p] >> 5):
            size -= 1
        prev = ln
    return size


@numba.njit(inline="always", **_JIT)
def _close_choice(k, choice, best, total, bound, skip, count):
    """Close the open choice under the sum node at depth k: its bound is the max over its
    letters, which adds to the sum node's."""
    h = choice[k]
    if h >= 0:
        bound[h] = best[k]
        skip[h] = count
        total[k] += best[k]
        choice[k] = -1


@numba.njit(inline="always", **_JIT)
def _close_sums(prev, p, sums, choice, best, total, bound, skip, count):
    """Close the sum nodes deeper than depth p, deepest first, each into its parent choice."""
    for k in range(prev, p, -1):
        _close_choice(k, choice, best, total, bound, skip, count)
        bound[sums[k]] = total[k]
        skip[sums[k]] = count
        if total[k] > best[k - 1]:
            best[k - 1] = total[k]


@numba.njit(**_JIT)
def build_tree(tokens, pts, base):
    """The sum/choice tree of sorted, distinct rows plus `base` points at the root: (is_choice,
    tag, value, skip, bound) per node in preorder, node 0 the root (see the module). One pass
    after counting: a node's bound is final when the rows leave its subtree."""
    n, width = tokens.shape
    size = _count_nodes(tokens)
    is_choice = np.zeros(size, np.bool_)
    tag = np.empty(size, np.int8)
    value = np.zeros(size, np.int32)
    skip = np.empty(size, np.int32)
    bound = np.empty(size, np.int32)
    sums = np.zeros(width + 1, np.int64)       # the open sum node at each depth (row prefix length)
    total = np.zeros(width + 1, np.int64)      # its points and closed choices so far
    choice = np.full(width + 1, -1, np.int64)  # its open choice
    best = np.zeros(width + 1, np.int64)       # the max over that choice's closed letters so far
    tag[0] = -1
    value[0] = base
    total[0] = base
    count = 1
    prev = 0
    for i in range(n):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        _close_sums(prev, p, sums, choice, best, total, bound, skip, count)
        if p < ln and choice[p] >= 0 and tag[choice[p]] != tokens[i, p] >> 5:
            _close_choice(p, choice, best, total, bound, skip, count)
        for k in range(p, ln):
            t = tokens[i, k]
            if choice[k] < 0:
                h = count
                count += 1
                is_choice[h] = True
                tag[h] = t >> 5
                choice[k] = h
                best[k] = 0
            s = count
            count += 1
            tag[s] = t & 31
            sums[k + 1] = s
            total[k + 1] = 0
            choice[k + 1] = -1
        value[sums[ln]] += pts[i]
        total[ln] += pts[i]
        prev = ln
    _close_sums(prev, 0, sums, choice, best, total, bound, skip, count)
    _close_choice(0, choice, best, total, bound, skip, count)
    bound[0] = total[0]
    skip[0] = count
    return is_choice, tag, value, skip, bound


@numba.njit(inline="always", **_JIT)
def _push(c, pend, top, by_letter, tag, skip, bound):
    """Make choice c pending, adding its letters' bounds to its rank's per-letter sums."""
    r = tag[c]
    pend[top[r]] = c
    top[r] += 1
    s = c + 1
    while s < skip[c]:
        by_letter[r, tag[s]] += bound[s]
        s = skip[s]


@numba.njit(**_JIT)
def walk(is_choice, tag, value, skip, bound, rank0, letters, letter_count, target, out):
    """Every full board of the subclass (ranks below rank0 forced, the tree's root its sum node)
    whose walk bound reaches `target`: writes the letters of ranks rank0.. of each to a row of
    `out` (indexed by rank) while there is room; returns (boards, bounds computed).
    letters[r, :letter_count[r]]: the letters the cell of rank r may hold.

    by_letter[r, a] is the sum of U over the children for letter a of the choices pending at
    rank r; a partial board's bound is its points + the sum over the ranks still open of the
    max over their letters of by_letter."""
    ranks = letters.shape[0]
    cap = out.shape[0]
    per_rank = np.zeros(ranks, np.int64)
    for v in range(len(tag)):
        if is_choice[v]:
            per_rank[tag[v]] += 1
    top = np.zeros(ranks, np.int64)  # one past the last pending choice of each rank in pend
    for r in range(1, ranks):
        top[r] = top[r - 1] + per_rank[r - 1]
    first = top.copy()               # where each rank's pending choices begin
    pend = np.empty(max(1, top[ranks - 1] + per_rank[ranks - 1]), np.int64)
    cur = np.empty(len(pend), np.int64)  # the next letter child to look at of each pending choice
    by_letter = np.zeros((ranks, 32), np.int64)
    saved = np.zeros((ranks + 1, ranks), np.int64)
    snap = np.zeros((ranks + 1, ranks, 32), np.int64)  # by_letter of the ranks below each depth, on entry
    dirty = np.zeros(ranks + 1, np.bool_)  # whether a letter of the depth has pushed since
    points = np.zeros(ranks + 1, np.int64)
    li = np.zeros(ranks + 1, np.int64)
    board = np.zeros(ranks, np.int64)
    rest = np.zeros(ranks + 1, np.int64)  # at each depth on entry, the open bound of the ranks below it
    h = 1
    while h < skip[0]:
        _push(h, pend, top, by_letter, tag, skip, bound)
        h = skip[h]
    points[rank0] = value[0]
    found = 0
    nodes = 1
    if points[rank0] + _open_bound(rank0, by_letter) < target:
        return found, nodes
    d = rank0
    saved[d, :] = top
    snap[d, d + 1:, :] = by_letter[d + 1:, :]
    dirty[d] = False
    rest[d] = _open_bound(d + 1, by_letter)
    for i in range(first[d], top[d]):
        cur[i] = pend[i] + 1
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
        dirty[d] = True
        gain = 0
        for i in range(first[d], top[d]):
            h = pend[i]
            s = cur[i]
            end = skip[h]
            while s < end and tag[s] < a:
                s = skip[s]
            cur[i] = s
            if s < end and tag[s] == a:
                gain += value[s]
                c = s + 1
                while c < skip[s]:
                    _push(c, pend, top, by_letter, tag, skip, bound)
                    c = skip[c]
        nodes += 1
        p = points[d] + gain
        if p + _open_bound(d + 1, by_letter) < target:
            continue
        board[d] = a
        d += 1
        points[d] = p
        if d < ranks:
            saved[d, :] = top
            snap[d, d + 1:, :] = by_letter[d + 1:, :]
            dirty[d] = False
            rest[d] = _open_bound(d + 1, by_letter)
            for i in range(first[d], top[d]):
                cur[i] = pend[i] + 1
    return found, nodes


@numba.njit(inline="always", **_JIT)
def _open_bound(rank, by_letter):
    """The sum over ranks rank.. of the max of by_letter over all 32 columns (a letter outside a
    rank's bucket has no children there, so its column stays 0): contiguous, no indirection."""
    total = 0
    for r in range(rank, by_letter.shape[0]):
        best = 0
        for a in range(32):
            if by_letter[r, a] > best:
                best = by_letter[r, a]
        total += best
    return total
