"""Compiled kernels of the deep end of the branch and bound: the sum/choice tree as nodes, and
the walk that forces the remaining cells without merging row lists.

`build_tree` turns a subclass's sorted entry rows (solver.proof.kernels) into
the explicit sum/choice tree, one node array set in preorder: a sum node's
`tag` is its letter (the root's -1) and `value` its points; a choice node's
`tag` is its cell's rank; `first` is a node's first child and `after` its next
sibling (a choice's children in letter order, a sum's choices in rank order);
`bound` is U of the node.

`walk` forces the cells of ranks rank0.. in split order, one letter at a time,
keeping per rank the choice nodes reached so far (pending): forcing a letter
of rank r replaces each pending choice of rank r by its child for that letter
(its points added, its choices made pending) and drops those without one. The
bound of a partial board, points + the sum of U over every pending choice,
is at least the bound of the merged tree of that subclass (no merging: each
choice keeps its own max), so pruning below the target is sound; a full board
reaching the target has points equal to its multi-path score, at least its
true score, and is written out to be scored exactly. Allocation free inside:
explicit stacks, no recursion.
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
def build_tree(tokens, pts, base):
    """The sum/choice tree of sorted, distinct rows plus `base` points at the root: (is_choice,
    tag, value, first, after, bound) per node, node 0 the root (see the module)."""
    n, width = tokens.shape
    size = 1
    prev = 0
    for i in range(n):  # count the nodes: a sum node per new token, a choice node unless shared
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        size += 2 * (ln - p)
        if p < prev and p < ln and (tokens[i, p] >> 5) == (tokens[i - 1, p] >> 5):
            size -= 1
        prev = ln
    is_choice = np.zeros(size, np.bool_)
    tag = np.full(size, -1, np.int8)
    value = np.zeros(size, np.int32)
    first = np.full(size, -1, np.int32)
    after = np.full(size, -1, np.int32)
    parent = np.full(size, -1, np.int32)
    sums = np.zeros(width + 1, np.int64)      # the sum node at each prefix length of the current row
    choice = np.full(width + 1, -1, np.int64)  # the last choice made under sums[k]
    last = np.full(width + 1, -1, np.int64)    # the last sum child made under choice[k]
    value[0] = base
    count = 1
    prev = 0
    for i in range(n):
        ln = _row_length(tokens, i)
        p = _common(tokens, i, prev, ln)
        for k in range(p, ln):
            t = tokens[i, k]
            h = choice[k]
            if k == p and h >= 0 and tag[h] == t >> 5:
                s = count
                count += 1
                after[last[k]] = s
            else:
                h = count
                s = count + 1
                count += 2
                is_choice[h] = True
                tag[h] = t >> 5
                parent[h] = sums[k]
                if choice[k] < 0:
                    first[sums[k]] = h
                else:
                    after[choice[k]] = h
                choice[k] = h
                first[h] = s
            tag[s] = t & 31
            parent[s] = h
            last[k] = s
            sums[k + 1] = s
            choice[k + 1] = -1
        value[sums[ln]] += pts[i]
        prev = ln
    bound = np.zeros(size, np.int32)
    for v in range(size - 1, -1, -1):  # children come after their parent
        if not is_choice[v]:
            bound[v] += value[v]
        up = parent[v]
        if up < 0:
            continue
        if is_choice[up]:
            if bound[v] > bound[up]:
                bound[up] = bound[v]
        else:
            bound[up] += bound[v]
    return is_choice, tag, value, first, after, bound


@numba.njit(**_JIT)
def walk(is_choice, tag, value, first, after, bound, rank0, letters, letter_count, target, out):
    """Every full board of the subclass (ranks below rank0 forced, the tree's root its sum node)
    whose walk bound reaches `target`: writes the letters of ranks rank0.. of each to a row of
    `out` (indexed by rank) while there is room; returns (boards, bounds computed).
    letters[r, :letter_count[r]]: the letters the cell of rank r may hold."""
    ranks = letters.shape[0]
    cap = out.shape[0]
    per_rank = np.zeros(ranks, np.int64)
    for v in range(len(tag)):
        if is_choice[v]:
            per_rank[tag[v]] += 1
    room = max(1, per_rank.max())
    pend = np.empty((ranks, room), np.int64)
    cur = np.empty((ranks, room), np.int64)
    top = np.zeros(ranks, np.int64)
    saved = np.zeros((ranks + 1, ranks), np.int64)
    points = np.zeros(ranks + 1, np.int64)
    pending = np.zeros(ranks + 1, np.int64)  # sum of U over the pending choices
    li = np.zeros(ranks + 1, np.int64)
    board = np.zeros(ranks, np.int64)
    h = first[0]
    while h >= 0:
        pend[tag[h], top[tag[h]]] = h
        top[tag[h]] += 1
        pending[rank0] += bound[h]
        h = after[h]
    points[rank0] = value[0]
    found = 0
    nodes = 1
    if points[rank0] + pending[rank0] < target:
        return found, nodes
    d = rank0
    saved[d, :] = top
    for i in range(top[d]):
        cur[d, i] = first[pend[d, i]]
    while d >= rank0:
        if d == ranks:
            if found < cap:
                out[found, :] = board
            found += 1
            d -= 1
            continue
        if li[d] >= letter_count[d]:
            li[d] = 0
            d -= 1
            continue
        a = letters[d, li[d]]
        li[d] += 1
        for r in range(d + 1, ranks):
            top[r] = saved[d, r]
        gain = 0
        drop = 0
        more = 0
        for i in range(top[d]):
            h = pend[d, i]
            drop += bound[h]
            s = cur[d, i]
            while s >= 0 and tag[s] < a:
                s = after[s]
            cur[d, i] = s
            if s >= 0 and tag[s] == a:
                gain += value[s]
                c = first[s]
                while c >= 0:
                    pend[tag[c], top[tag[c]]] = c
                    top[tag[c]] += 1
                    more += bound[c]
                    c = after[c]
        nodes += 1
        p = points[d] + gain
        b = pending[d] - drop + more
        if p + b < target:
            continue
        board[d] = a
        d += 1
        points[d] = p
        pending[d] = b
        if d < ranks:
            saved[d, :] = top
            for i in range(top[d]):
                cur[d, i] = first[pend[d, i]]
    return found, nodes
