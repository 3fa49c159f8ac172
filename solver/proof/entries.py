"""The entries of a proof's class, compiled: listing them (`list_entries`), sorting them, and the
sum/choice tree bound of sorted entries.

They work on "entries": one row per distinct (set of (cell, letter) pairs,
word) a path of the class can spell, aggregated by pair set. A pair is a token
`token(rank, letter)` (rank << 6 | letter, room for every letter code), where
rank is the cell's place in the split order; a row holds its tokens in
increasing order, padded with -1, and the rows are sorted lexicographically,
so a row comes right before the rows it is a prefix of.

The sum/choice ("orderly") tree is the trie of these rows: a sum node is a row
prefix, its choice children are grouped by the cell of the next token, and a
choice node's children are the letters of that cell. The bound is U(sum) =
points ending there + the sum of U over its choices, U(choice) = the max over
its letters. `tree_bound` computes it in one pass over the sorted rows with a
stack of running sums and maxima per depth, without building nodes.

The prover builds the tree as nodes once per class from the sorted keys themselves (solver.proof.tree,
no rows of tokens written in between) and forces cells on it, and forces the deep subclasses without
merging (solver.proof.deep_forcing); `emit_rows` writes the rows as tokens for `class_entries`.

Plain functions (explicit stacks, no recursion, no Python objects), which
solver.proof.compiled compiles: Python calls them through its `kernels()`.
"""

from __future__ import annotations

import numpy as np

from ..charset import MAX_LETTERS
from ..walk_kernels import lowest_bit, popcount
from .compiled import kernels
from .memory import release, small_pages
from .tables import INDEX_MASK, LETTERS_SHIFT, NARROW_LETTERS, POINTS_MASK, POINTS_SHIFT

TOKEN_SHIFT = 6     # a token is rank << TOKEN_SHIFT | letter
LETTER_OF = (1 << TOKEN_SHIFT) - 1  # token & LETTER_OF: its letter
SYMBOL_BITS = 5     # of a rank in a narrow row key; a wide one's take one more (see `list_entries`)
SCRATCH_PAD = (4096 + 64) // 8  # int64s a row of the sort's scratch has beyond its rows (see `sort_scratch`)
KEY_BITS = 60       # of a key word that hold ranks: 12 narrow ones, 10 wide
WORD_SHIFT = 16     # a listed row's payload: its word's node << WORD_SHIFT | the word's points
POINTS_OF = (1 << WORD_SHIFT) - 1  # payload & POINTS_OF: the points

assert NARROW_LETTERS == (1 << SYMBOL_BITS) - 2 and MAX_LETTERS <= (1 << (SYMBOL_BITS + 1)) - 2 <= LETTER_OF


def token(rank: int, letter: int) -> int:
    """The token of the pair (the cell of `rank` in the split order, `letter`)."""
    return (rank << TOKEN_SHIFT) | letter


def key_words(cells: int, wide: int) -> int:
    """How many int64 words a row's key takes on a board of `cells` cells."""
    per_word = KEY_BITS // (SYMBOL_BITS + wide)
    return (cells + per_word - 1) // per_word


def _key_places(cells, wide):
    """Where the symbol of each rank sits in a row's key: (its key word, its shift), rank 0 the
    most significant; and the symbol's width."""
    bits = SYMBOL_BITS + wide
    per_word = KEY_BITS // bits
    word = np.empty(cells, np.int64)
    shift = np.empty(cells, np.int64)
    for r in range(cells):
        word[r] = r // per_word
        shift[r] = bits * (per_word - 1 - r % per_word)
    return word, shift, bits


def list_entries(nodes, wide, bucket_mask, nbrs, nbr_count, rank, listed):
    """Every path of the class that spells a word, as a row: its payload (word node << WORD_SHIFT |
    points) and key, written as a column of `listed` (listed[0] payloads, listed[1 + w] key words w:
    the sort's columns, `sort_scratch`) while there is room; returns (how many there are, the longest
    row's length); rerun with more room when the count exceeds its columns. nodes, wide: the compact
    trie (solver.proof.tables), points in its words; bucket_mask[cell]: the letters the cell may
    hold.

    A row's key spells its (rank, letter) tokens in rank order, one symbol per rank, rank 0 the
    most significant: 5 bits a rank, 12 ranks per int64 word, or 6 bits and 10 when wide (more
    letters than a 5-bit symbol names): 1 + the letter for a rank the path holds, the largest
    symbol (all ones) for one it passes over (a later rank is held) and 0 after its last; so
    keys compare as the token rows do, a row before the rows it is a prefix of, and the listing
    needs no sorting of tokens."""
    cells = len(bucket_mask)
    kw = listed.shape[0] - 1
    cap = listed.shape[1]
    key_word, key_shift, bits = _key_places(cells, wide)
    skipped = (np.int64(1) << bits) - 1
    per_word = KEY_BITS // bits
    # passed[v]: a key word's symbols all ones at the ranks (of the word) whose bits v holds
    passed = np.zeros(1 << per_word, np.int64)
    for v in range(1, 1 << per_word):
        low = lowest_bit(v)
        passed[v] = passed[v & (v - 1)] | (skipped << (bits * (per_word - 1 - low)))
    mask_shift = LETTERS_SHIFT * (1 - wide)  # a node's mask: in its first word, or all of its second
    around = np.zeros(cells, np.int64)  # around[c]: c's neighbours (bits)
    for c in range(cells):
        for j in range(nbr_count[c]):
            around[c] |= np.int64(1) << nbrs[c, j]
    cell = np.empty(cells, np.int64)
    todo = np.empty(cells, np.int64)   # letters still to try at this depth
    ahead = np.empty(cells, np.int64)  # the free neighbours still to try for the current letter (bits)
    node = np.empty(cells, np.int64)
    kids = np.empty(cells, np.int64)   # the letters the node's children are for
    held = np.zeros(cells + 1, np.int64)   # the ranks the path holds (bits), per depth
    top = np.zeros(cells + 1, np.int64)    # one more than the highest of them
    acc = np.zeros((cells + 1, kw), np.int64)  # the key's letter symbols so far
    count = 0
    longest = 0
    for start in range(cells):
        d = 0
        cell[0] = start
        todo[0] = (nodes[wide] >> mask_shift) & bucket_mask[start]
        ahead[0] = 0
        used = np.int64(1) << start
        while d >= 0:
            c = cell[d]
            if ahead[d] == 0:
                if todo[d] == 0:
                    used &= ~(np.int64(1) << c)
                    d -= 1
                    continue
                bits = todo[d]
                letter = lowest_bit(bits)
                todo[d] = bits & (bits - 1)
                parent = 0 if d == 0 else node[d - 1] << wide
                mask = nodes[parent + wide] >> mask_shift
                kid = (nodes[parent] & INDEX_MASK) + popcount(mask & ((np.int64(1) << letter) - 1))
                node[d] = kid
                word = nodes[kid << wide]
                kids[d] = nodes[(kid << wide) + wide] >> mask_shift
                r = rank[c]
                held[d + 1] = held[d] | (np.int64(1) << r)
                top[d + 1] = max(top[d], r + 1)
                for w in range(kw):
                    acc[d + 1, w] = acc[d, w]
                acc[d + 1, key_word[r]] |= np.int64(letter + 1) << key_shift[r]
                points = (word >> POINTS_SHIFT) & POINTS_MASK
                if points > 0:
                    if count < cap:
                        gaps = ~held[d + 1] & ((np.int64(1) << top[d + 1]) - 1)
                        for w in range(kw):
                            listed[1 + w, count] = acc[d + 1, w] | passed[(gaps >> (w * per_word)) & (len(passed) - 1)]
                        listed[0, count] = (kid << WORD_SHIFT) | points
                    count += 1
                    longest = max(longest, d + 1)
                ahead[d] = around[c] & ~used if kids[d] else 0  # (the cells in use stay so below d)
                continue
            free = ahead[d]
            nb = lowest_bit(free)
            ahead[d] = free & (free - 1)
            nxt = kids[d] & bucket_mask[nb]
            if nxt == 0:
                continue
            d += 1
            cell[d] = nb
            todo[d] = nxt
            ahead[d] = 0
            used |= np.int64(1) << nb
    return count, longest


def _bound_row(tokens, i, points, total, best, prev):
    """Add row i (its points given) to the running bound (see tree_bound); returns its length."""
    width = tokens.shape[1]
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
    if i > 0 and prev > p and (tokens[i, p] >> TOKEN_SHIFT) != (tokens[i - 1, p] >> TOKEN_SHIFT):
        total[p] += best[p]
        best[p] = 0
    for k in range(p + 1, ln + 1):
        total[k] = 0
        best[k] = 0
    total[ln] += points
    return ln


def _bound_end(total, best, prev):
    for k in range(prev, 0, -1):
        if total[k] > best[k - 1]:
            best[k - 1] = total[k]
        total[k - 1] += best[k - 1]
        best[k - 1] = 0
    return total[0]


def tree_bound(tokens, pts, base):
    """U of the sum/choice tree of sorted, distinct rows (see the module), plus `base`: one pass
    with, per depth, the running sum of the open sum node and the running max of its open choice."""
    n, width = tokens.shape
    total = np.zeros(width + 1, np.int64)
    best = np.zeros(width + 1, np.int64)
    total[0] = base
    prev = 0
    for i in range(n):
        prev = _bound_row(tokens, i, pts[i], total, best, prev)
    return _bound_end(total, best, prev)


DIGIT = 12                  # bits a pass of the radix sort sorts on
DIGITS = 1 << DIGIT         # the values of a digit: also the buckets the first pass spreads the rows into
TOP = KEY_BITS - DIGIT      # the first key word's top digit, by which the first pass spreads the rows


def _spread(listed, n, spare, starts):
    """The first n listed columns (`list_entries`') copied into the same rows of `spare`, spread
    stably by the top DIGIT bits of their first key word into buckets, in order: starts[b]..starts[b + 1]
    the columns of bucket b."""
    fields = listed.shape[0]
    first = listed[1]
    starts[:] = 0
    for i in range(n):
        starts[1 + ((first[i] >> TOP) & (DIGITS - 1))] += 1
    for d in range(DIGITS):
        starts[d + 1] += starts[d]
    at = starts[:DIGITS].copy()
    for i in range(n):
        d = (first[i] >> TOP) & (DIGITS - 1)
        c = at[d]
        for j in range(fields):
            spare[j, c] = listed[j, i]
        at[d] = c + 1


def _bucket_pass(table, s, e, k, shift, out, count):
    """One stable counting-sort pass of columns s..e of `table` on the DIGIT bits of its row k from
    `shift`, into the same columns of `out`; returns False (writing nothing) when those bits are
    all alike."""
    key = table[k]
    count[:] = 0
    for i in range(s, e):
        count[(key[i] >> shift) & (DIGITS - 1)] += 1
    for d in range(DIGITS):  # all alike: the first digit present holds them all
        if count[d] == e - s:
            return False
        if count[d]:
            break
    total = s
    for d in range(DIGITS):
        c = count[d]
        count[d] = total
        total += c
    fields = table.shape[0]
    if fields == 3:  # (a key of two words) written out: a loop over the fields would run for each column
        for i in range(s, e):
            d = (key[i] >> shift) & (DIGITS - 1)
            at = count[d]
            out[0, at], out[1, at], out[2, at] = table[0, i], table[1, i], table[2, i]
            count[d] = at + 1
    else:
        for i in range(s, e):
            d = (key[i] >> shift) & (DIGITS - 1)
            at = count[d]
            for j in range(fields):
                out[j, at] = table[j, i]
            count[d] = at + 1
    return True


def _sort_buckets(spare, table, starts, cells, wide):
    """Sort each bucket of `_spread` by the rest of its key into the same columns of `table`: a stable
    radix sort, the last key word first, DIGIT bits a pass from the word's lowest rank bit, passes
    whose bits are all alike in the bucket skipped. A bucket (some thousands of rows) stays in the
    caches through its passes, where a pass over every row would not."""
    key_word, key_shift, bits = _key_places(cells, wide)
    per_word = KEY_BITS // bits
    kw = table.shape[0] - 1
    count = np.empty(DIGITS, np.int64)
    for b in range(DIGITS):
        s, e = starts[b], starts[b + 1]
        in_table = False
        if e - s > 1:
            for w in range(kw - 1, -1, -1):
                low = key_shift[min(cells, (w + 1) * per_word) - 1]
                for shift in range(low, TOP if w == 0 else KEY_BITS, DIGIT):
                    if in_table and _bucket_pass(table, s, e, 1 + w, shift, spare, count):
                        in_table = False
                    elif not in_table and _bucket_pass(spare, s, e, 1 + w, shift, table, count):
                        in_table = True
        if not in_table:
            for j in range(kw + 1):
                for i in range(s, e):
                    table[j, i] = spare[j, i]


def sort_scratch(rows: int, words: int) -> np.ndarray:
    """The scratch that listing a class (`list_entries`) and sorting its rows (`sort_entries`) need
    for `rows` rows of `words` key words: the payloads and the key words as rows (a listed row per
    column; the listing writes them there), and their spares. Its rows are a page and a cache line
    longer than needed: rows of a power of two apart would map the same index of each to the same
    cache set, and the sort reads them side by side."""
    return small_pages((2 * (1 + words), rows + SCRATCH_PAD), np.int64)


def listed_rows(scratch: np.ndarray) -> np.ndarray:
    """The rows of a `sort_scratch` that `list_entries` writes its columns into (whole rows:
    C-contiguous, which compiles to faster loops)."""
    return scratch[:len(scratch) // 2]


def sort_entries(scratch: np.ndarray, n: int, cells: int, wide: int, give_back: bool = False) -> np.ndarray:
    """Sort the n rows listed into `scratch` (`listed_rows`) by key: returns the rows that hold them
    sorted, as columns (the payloads, then the key words; the first n columns), equal keys side by
    side with their words (solver.proof.tree builds the tree from them, `emit_rows` writes them as
    tokens). The columns are spread into the spares by the top DIGIT bits of their key (`_spread`),
    and each bucket sorted back in the caches by a stable radix sort of the rest (`_sort_buckets`),
    every field travelling with its key. (A radix sort of every row, pass by pass, took 1.6 times as
    long: benchmarks/results/prove.md, "The merge breadth first".) give_back (a large class): the
    spares' pages are given back once sorted, so that they are not resident beside the tree."""
    compiled = kernels()
    table = listed_rows(scratch)
    spare = scratch[len(table):]
    starts = np.empty(DIGITS + 1, np.int64)
    compiled._spread(table, n, spare, starts)
    compiled._sort_buckets(spare, table, starts, cells, wide)
    if give_back:
        release(spare)
    return table


def emit_rows(table: np.ndarray, n: int, cells: int, wide: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The first n sorted columns of `table` (`sort_entries`') as rows of tokens (`width` the longest,
    padded with -1) and their points: one row per distinct key, the points of its distinct words
    added up. (For `class_entries` and the checks that read rows; the prover builds its tree from
    the columns themselves, solver.proof.tree.)"""
    payload, keys = table[0, :n], table[1:, :n]
    fresh = np.ones(n, bool)  # the first column of each distinct key
    fresh[1:] = (keys[:, 1:] != keys[:, :-1]).any(axis=0)
    row = np.cumsum(fresh) - 1
    word = payload >> WORD_SHIFT
    order = np.lexsort((word, row))
    row, word = row[order], word[order]
    counted = np.ones(n, bool)  # a (key, word) pair's first column
    counted[1:] = (row[1:] != row[:-1]) | (word[1:] != word[:-1])
    starts = np.flatnonzero(fresh)
    pts = np.bincount(row[counted], weights=payload[order][counted] & POINTS_OF, minlength=len(starts)).astype(np.int64)
    key_word, key_shift, bits = _key_places(cells, wide)
    symbols = np.stack([(keys[key_word[r], starts] >> key_shift[r]) & ((1 << bits) - 1) for r in range(cells)])
    held = (symbols != 0) & (symbols != (1 << bits) - 1)  # (a rank passed over: all ones; after the last: 0)
    rank, at = np.nonzero(held)
    tokens = np.full((len(starts), max(width, 1)), -1, np.int16)
    tokens[at, (np.cumsum(held, axis=0) - 1)[rank, at]] = (rank << TOKEN_SHIFT) | (symbols[rank, at] - 1)
    return tokens, pts
