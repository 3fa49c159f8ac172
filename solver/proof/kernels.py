"""Compiled kernels of the proof: the class walk, the sum/choice tree bound and forcing a cell.

All three work on "entries": one row per distinct (set of (cell, letter) pairs,
word) a path of the class can spell, aggregated by pair set. A pair is a token
`rank * 32 + letter`, where rank is the cell's place in the split order; a row
holds its tokens in increasing order, padded with -1, and the rows are sorted
lexicographically, so a row comes right before the rows it is a prefix of.

The sum/choice ("orderly") tree is the trie of these rows: a sum node is a row
prefix, its choice children are grouped by the cell of the next token, and a
choice node's children are the letters of that cell. The bound is U(sum) =
points ending there + the sum of U over its choices, U(choice) = the max over
its letters. `tree_bound` computes it in one pass over the sorted rows with a
stack of running sums and maxima per depth, without building nodes.

Forcing the next cell of the split order (the one of rank r, the smallest rank
still in any row) to a letter keeps the rows that do not name that cell and the
rows whose first token is (cell, letter) with that token dropped, merged back
into one sorted list (equal rows add their points): the entries of the
subclass, so its tree and bound follow from the same kernels.

Plain functions, compiled by numba with its disk cache (explicit stacks, no
recursion, no Python objects).
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(**_JIT)
def class_walk(child, letters, masks, points, bucket_mask, nbrs, nbr_count, rank, letter_len, tokens, words, pts):
    """Every path of the class that spells a word: writes (sorted tokens, word node, points)
    rows while there is room and returns how many there are (rerun with more room when the
    count exceeds len(words)). masks[node] is the set of letters the node has children for;
    bucket_mask[cell] the letters the cell may hold."""
    cells = len(bucket_mask)
    cap = len(words)
    width = tokens.shape[1]
    cell = np.empty(cells, np.int64)
    todo = np.empty(cells, np.int64)   # letters still to try at this depth
    ni = np.empty(cells, np.int64)     # next neighbour to try for the current letter
    node = np.empty(cells, np.int64)
    let = np.empty(cells, np.int64)
    length = np.empty(cells, np.int64)
    row = np.empty(cells, np.int64)
    count = 0
    for start in range(cells):
        d = 0
        cell[0] = start
        todo[0] = masks[0] & bucket_mask[start]
        ni[0] = nbr_count[start]
        used = np.int64(1) << start
        while d >= 0:
            c = cell[d]
            if ni[d] >= nbr_count[c]:
                if todo[d] == 0:
                    used &= ~(np.int64(1) << c)
                    d -= 1
                    continue
                bits = todo[d]
                letter = lowest(bits)
                todo[d] = bits & (bits - 1)
                parent = 0 if d == 0 else node[d - 1]
                kid = child[parent * letters + letter]
                node[d] = kid
                let[d] = letter
                length[d] = (0 if d == 0 else length[d - 1]) + letter_len[letter]
                if points[kid] > 0:
                    if count < cap:
                        for k in range(d + 1):  # insertion sort of the path's tokens
                            tok = rank[cell[k]] * 32 + let[k]
                            j = k
                            while j > 0 and row[j - 1] > tok:
                                row[j] = row[j - 1]
                                j -= 1
                            row[j] = tok
                        for k in range(width):
                            tokens[count, k] = row[k] if k <= d else -1
                        words[count] = kid
                        pts[count] = points[kid]
                    count += 1
                ni[d] = 0 if masks[kid] else nbr_count[c]
                continue
            nb = nbrs[c, ni[d]]
            ni[d] += 1
            if (used >> nb) & 1:
                continue
            nxt = masks[node[d]] & bucket_mask[nb]
            if nxt == 0:
                continue
            d += 1
            cell[d] = nb
            todo[d] = nxt
            ni[d] = nbr_count[nb]
            used |= np.int64(1) << nb
    return count


@numba.njit(**_JIT)
def lowest(x):
    """Index of the lowest set bit of a non-zero int."""
    n = 0
    while not (x >> n) & 1:
        n += 1
    return n


@numba.njit(**_JIT)
def tree_bound(tokens, pts, base):
    """U of the sum/choice tree of sorted, distinct rows (see the module), plus `base`."""
    n, width = tokens.shape
    total = np.zeros(width + 1, np.int64)
    best = np.zeros(width + 1, np.int64)
    total[0] = base
    prev = 0  # length of the previous row
    for i in range(n):
        ln = width
        for k in range(width):
            if tokens[i, k] < 0:
                ln = k
                break
        p = 0
        if i > 0:
            m = min(prev, ln)
            while p < m and tokens[i, p] == tokens[i - 1, p]:
                p += 1
        # close the sum nodes below the common prefix, deepest first
        for k in range(prev, p, -1):
            if total[k] > best[k - 1]:
                best[k - 1] = total[k]
            if k - 1 > p:
                total[k - 1] += best[k - 1]
                best[k - 1] = 0
        # a new cell at depth p closes the choice open there
        if i > 0 and prev > p and (tokens[i, p] >> 5) != (tokens[i - 1, p] >> 5):
            total[p] += best[p]
            best[p] = 0
        for k in range(p + 1, ln + 1):
            total[k] = 0
            best[k] = 0
        total[ln] += pts[i]
        prev = ln
    for k in range(prev, 0, -1):
        if total[k] > best[k - 1]:
            best[k - 1] = total[k]
        total[k - 1] += best[k - 1]
        best[k - 1] = 0
    return total[0]


@numba.njit(**_JIT)
def _compare(a, i, shift_a, b, j, width):
    """Compare row i of a (its first token dropped when shift_a) with row j of b: -1, 0, 1."""
    for k in range(width):
        x = a[i, k + shift_a] if k + shift_a < width else -1
        y = b[j, k]
        if x != y:
            return -1 if x < y else 1
        if x < 0:
            return 0
    return 0


@numba.njit(**_JIT)
def force(tokens, pts, token, out_tokens, out_pts):
    """The entries of the subclass with the first cell of the split order set: `token` is
    (its rank, the letter). Writes the merged rows to out_* (room for len(tokens) rows) and
    returns (rows, points of rows left empty: words wholly on forced cells)."""
    n, width = tokens.shape
    cell = token >> 5
    end = 0  # rows naming the cell come first
    while end < n and (tokens[end, 0] >> 5) == cell:
        end += 1
    lo = 0
    while lo < end and tokens[lo, 0] < token:
        lo += 1
    hi = lo
    while hi < end and tokens[hi, 0] == token:
        hi += 1
    base = 0
    i = lo
    if i < hi and tokens[i, 1] < 0:  # the row that was (cell, letter) alone
        base += pts[i]
        i += 1
    j = end
    out = 0
    while i < hi or j < n:
        if i < hi and j < n:
            order = _compare(tokens, i, 1, tokens, j, width)
        else:
            order = -1 if i < hi else 1
        if order <= 0:
            for k in range(width - 1):
                out_tokens[out, k] = tokens[i, k + 1]
            out_tokens[out, width - 1] = -1
            out_pts[out] = pts[i]
            i += 1
            if order == 0:
                out_pts[out] += pts[j]
                j += 1
        else:
            for k in range(width):
                out_tokens[out, k] = tokens[j, k]
            out_pts[out] = pts[j]
            j += 1
        out += 1
    return out, base
