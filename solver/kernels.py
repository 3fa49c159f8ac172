"""The board walks, one per format, written once for two engines.

Each function here is plain Python over flat integer sequences, in the subset
numba compiles. `solver.jit` compiles them (cached on disk) for batch work; a
single board runs them directly in CPython on lists and memoryviews, which
costs milliseconds but avoids numba's ~0.2 s import and cache load.

The three walks share their shape and differ in how a node is decoded and a
word is numbered. They stay three functions on purpose: a walk that took the
format's step as a function argument could not be cached by numba, and the
step is the hot path that must inline.

A walk is an explicit-stack depth-first search (no recursion: numba's disk
cache cannot hold recursive functions, numba issue 6061). Cells used by the
current path are bits of `used`. Word identity comes from the format: trie
node id, DAWG rank (sum of edge skips) or ADTDAWG tracking marker; a per-word
stamp equal to the board's stamp marks a word already counted, so nothing is
cleared between boards.

The current path position lives in local variables; only ancestors sit on
the stack. The cells still to try from a position are a bit set (`todo`),
taken lowest bit first; it is built when the position is entered from the
unused neighbours whose letter the node has a child for, so every cell the
loop takes extends the path. The walk starts from a virtual position at the
root whose neighbours are all cells.

A cell code is the letter index of its face, or NO_LETTER for a blank (or
a letter outside the charset); a two-letter face such as "Th" has code
first + 64 * (second + 1), and the walk steps through both letters.

Shared arguments (all flat, all integers):
  board      cell codes
  cell_len   letters on each cell (2 for Qu, Th, ...)          } filled by
  nbr_mask   bit set of the letters around each cell, then all  } prepare_board
  near       neighbours of each cell by letter                 }
  nbr_bits   bit set of the neighbour cells of each cell, then all cells
  card       points by word length in letters
  stack      work space of FRAME * cells integers (the ancestors' frames)
  stamps     one stamp per word id; `stamp` is this board's
  found      with capacity > 0, rows of `width` integers (word id, letters,
             path cells..., -1 padding) for each new word; found_count[0]
             counts new words even past the capacity
"""

NO_LETTER = 63        # a letter index no mask bit ever matches
SECOND = 64           # code = first + SECOND * (second + 1) for a two-letter face
INDEX_MASK = 0xFFFFFFFF
LETTER_MASK = (1 << 26) - 1
FRAME = 6             # stack integers per path position
NEAR = 32             # row width of the per-board `near` table (letters <= 26)


def popcount(x):
    """Set bits of a non-negative int (numba: compiled to the CPU's popcount)."""
    return x.bit_count()


def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int (numba: count trailing zeros)."""
    return (x & -x).bit_length() - 1


def prepare_board(board, q_code, nbr_bits, cell_len, nbr_mask, near):
    """Fill the per-board tables: letters on each cell, the first letters around it, and
    near[cell * NEAR + letter], the neighbours of the cell whose face starts with that letter.
    Index `cells` of nbr_mask and row `cells` of near are the virtual root's: every cell.
    Only the rows of letters in nbr_mask are written; walks read no others."""
    cells = len(board)
    for cell in range(cells + 1):
        todo = nbr_bits[cell]
        while todo:
            first = board[lowest_bit(todo)] & NO_LETTER
            todo &= todo - 1
            if first != NO_LETTER:
                near[cell * NEAR + first] = 0
    for cell in range(cells + 1):
        around = 0
        todo = nbr_bits[cell]
        while todo:
            nb = lowest_bit(todo)
            first = board[nb] & NO_LETTER
            todo &= todo - 1
            if first != NO_LETTER:
                around |= 1 << first
                near[cell * NEAR + first] |= 1 << nb
        nbr_mask[cell] = around
        if cell < cells:
            code = board[cell]
            cell_len[cell] = 2 if code == q_code or code > NO_LETTER else 1


def neighbours_with(near, cell, letters, used):
    """Unused neighbours of `cell` (cells = the root) whose face starts with one of `letters`."""
    todo = 0
    while letters:
        todo |= near[cell * NEAR + lowest_bit(letters)]
        letters &= letters - 1
    return todo & ~used


def record(found, capacity, width, found_count, stack, sp, cell, nb, word_id, length):
    """Append a new word whose path is the cells of frames 1..sp-1, `cell` (unless it is the
    root's -1) and `nb`."""
    row = found_count[0]
    found_count[0] = row + 1
    if row < capacity:
        base = row * width
        found[base] = word_id
        found[base + 1] = length
        at = base + 2
        for d in range(1, sp):
            found[at] = stack[d * FRAME]
            at += 1
        if cell >= 0:
            found[at] = cell
            at += 1
        found[at] = nb
        for k in range(at + 1, base + width):
            found[k] = -1


def trie_board(nodes, board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
               found, capacity, width, found_count):
    """Score one board on a trie (node words as signed int64; a word's id is its node)."""
    score = 0
    cells = len(board)
    # the current position: cell, neighbours to try, first child, child letters, letters so far
    word = nodes[0]
    cell = -1
    first = word & INDEX_MASK
    mask = (word >> 32) & LETTER_MASK
    todo = neighbours_with(near, cells, mask & nbr_mask[cells], 0)
    length = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[nb]
            letter = code & NO_LETTER
            node = first + popcount(mask & ((1 << letter) - 1))
            word = nodes[node]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                inner = (word >> 32) & LETTER_MASK
                if not (inner >> letter) & 1:
                    continue
                node = (word & INDEX_MASK) + popcount(inner & ((1 << letter) - 1))
                word = nodes[node]
            child_length = length + cell_len[nb]
            if word < 0 and stamps[node] != stamp:
                stamps[node] = stamp
                score += card[child_length]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, node, child_length)
            child_mask = (word >> 32) & LETTER_MASK
            if child_mask & nbr_mask[nb]:
                top = sp * FRAME
                stack[top] = cell
                stack[top + 1] = todo
                stack[top + 2] = first
                stack[top + 3] = mask
                stack[top + 4] = length
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_mask & nbr_mask[nb], used)
                first = word & INDEX_MASK
                mask = child_mask
                length = child_length
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[top]
            todo = stack[top + 1]
            first = stack[top + 2]
            mask = stack[top + 3]
            length = stack[top + 4]
        else:
            return score


def dawg_board(states, edges, board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
               found, capacity, width, found_count):
    """Score one board on a DAWG (states and edges as int64; a word's id is its rank)."""
    score = 0
    cells = len(board)
    # the current position: cell, neighbours to try, first edge, edge letters, letters, rank
    word = states[0]
    cell = -1
    first = word & INDEX_MASK
    mask = (word >> 32) & LETTER_MASK
    todo = neighbours_with(near, cells, mask & nbr_mask[cells], 0)
    length = 0
    rank = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[nb]
            letter = code & NO_LETTER
            edge = edges[first + popcount(mask & ((1 << letter) - 1))]
            child_rank = rank + (edge >> 32)
            word = states[edge & INDEX_MASK]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                inner = (word >> 32) & LETTER_MASK
                if not (inner >> letter) & 1:
                    continue
                edge = edges[(word & INDEX_MASK) + popcount(inner & ((1 << letter) - 1))]
                child_rank += edge >> 32
                word = states[edge & INDEX_MASK]
            child_length = length + cell_len[nb]
            if word < 0 and stamps[child_rank] != stamp:
                stamps[child_rank] = stamp
                score += card[child_length]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, child_rank,
                           child_length)
            child_mask = (word >> 32) & LETTER_MASK
            if child_mask & nbr_mask[nb]:
                top = sp * FRAME
                stack[top] = cell
                stack[top + 1] = todo
                stack[top + 2] = first
                stack[top + 3] = mask
                stack[top + 4] = length
                stack[top + 5] = rank
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_mask & nbr_mask[nb], used)
                first = word & INDEX_MASK
                mask = child_mask
                length = child_length
                rank = child_rank
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[top]
            todo = stack[top + 1]
            first = stack[top + 2]
            mask = stack[top + 3]
            length = stack[top + 4]
            rank = stack[top + 5]
        else:
            return score


def adtdawg_board(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits, eow_shift,
                  board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
                  found, capacity, width, found_count):
    """Score one board on an ADTDAWG; a word's id is its tracking marker.

    positions[child set * letters + letter] is the 1-based place of the
    letter's child in its child block, decoded once from the child-set words,
    and set_mask[child set] its letter mask. The last row of both is a
    virtual child set for the start block (start node of letter i is i + 1).
    """
    score = 0
    cells = len(board)
    fc_mask = (1 << fc_bits) - 1
    cs_mask = (1 << cs_bits) - 1
    # the current position: cell, neighbours to try, first child, its child set's row in
    # `positions`, letters so far, and marker base = marker - eow - T[first child]
    # (a child's marker is base + T[child]); the root's base is 0 since T[1] is the word count
    cell = -1
    first = 1
    row = (len(set_mask) - 1) * letters
    todo = neighbours_with(near, cells, set_mask[len(set_mask) - 1] & nbr_mask[cells], 0)
    length = 0
    base = 0
    used = 0
    sp = 0
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[nb]
            node = first + positions[row + (code & NO_LETTER)] - 1
            word = nodes[node]
            marker = base + tracking[node]
            if code > NO_LETTER:
                letter = (code >> 6) - 1
                place = positions[((word >> fc_bits) & cs_mask) * letters + letter]
                if place == 0:
                    continue
                inner = word & fc_mask
                marker -= ((word >> eow_shift) & 1) + tracking[inner]
                node = inner + place - 1
                word = nodes[node]
                marker += tracking[node]
            child_length = length + cell_len[nb]
            eow = (word >> eow_shift) & 1
            if eow and stamps[marker] != stamp:
                stamps[marker] = stamp
                score += card[child_length]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, marker,
                           child_length)
            child_set = (word >> fc_bits) & cs_mask
            child_letters = set_mask[child_set] & nbr_mask[nb]
            if child_letters:
                top = sp * FRAME
                stack[top] = cell
                stack[top + 1] = todo
                stack[top + 2] = first
                stack[top + 3] = row
                stack[top + 4] = length
                stack[top + 5] = base
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, child_letters, used)
                first = word & fc_mask
                row = child_set * letters
                base = marker - eow - tracking[first]
                length = child_length
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[top]
            todo = stack[top + 1]
            first = stack[top + 2]
            row = stack[top + 3]
            length = stack[top + 4]
            base = stack[top + 5]
        else:
            return score
