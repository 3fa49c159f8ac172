"""What every format's board walk shares, written once for two engines.

A format's walk (`trie_board` in solver/formats/trie.py, and so on) and the
helpers here are plain Python over flat integer sequences, in the subset numba
compiles. numba compiles them for batch work (ahead of time, `solver.aot`, or
in the process, `solver.jit`; both cached on disk); a single board runs them
directly in CPython on lists and memoryviews, which costs milliseconds but
loads no compiled code at all.

The walks share their shape and differ in how a node is decoded and a word is
numbered: the start (a root node word, or the ADTDAWG's virtual start block),
the step from a position to a cell's child (popcount over a letter mask, the
DAWG's edge table with its rank skips, the ADTDAWG's child-set positions and
tracking markers) and the state a frame keeps beside the shared one (nothing,
the rank, the marker base). Each format keeps its own walk on purpose. One
template walk calling a format's step function (returning the word id, the
end-of-word flag and the child's state) was measured against the trie walk
(benchmarks/results/walks.md): compiled, numba inlines
the step and batches score the same; in CPython, which scores every single
board, the call per step makes the walk slower. Generating the walks from a
text template would cost nothing in speed but leave the hot loop as code no
one reads in a file.

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
first + 64 * (second + 1), and the walk steps through both letters. A letter
index is below MAX_CODES, so a set of letters is a non-negative int64.

Shared arguments (all flat, all integers):
  board      cell codes
  code_len   letters each first-letter code counts for (a tile its face's, Qu 2, or one: Rules.code_lengths)
  cell_len   letters on each cell (2 for Qu, Th, ...)          } filled by
  nbr_mask   bit set of the letters around each cell, then all  } prepare_board
  near       neighbours of each cell by letter                 }
  nbr_bits   bit set of the neighbour cells of each cell, then all cells
  card       points by word length in letters, -1 for a length that is no word under the
             rules (below their minimum): such a word is neither scored, counted nor listed
  stack      work space of FRAME * cells integers (the ancestors' frames)
  stamps     one stamp per word id; `stamp` is this board's
  found      with capacity > 0, rows of `width` integers (word id, letters,
             path cells..., -1 padding) for each new word; found_count[0]
             counts new words even past the capacity
"""

NO_LETTER = 63        # a letter index no mask bit ever matches
# The word listings (`<format>_words`): the code after each word, and the state in status[0]
WORD_END = 254
NOT_STARTED, RUNNING, DONE, TOO_DEEP = 0, 1, 2, 3
SECOND = 64           # code = first + SECOND * (second + 1) for a two-letter face
FRAME = 6             # stack integers per path position
NEAR = 64             # row width of the per-board `near` table: one entry per letter code
MAX_CODES = 62        # letter codes 0..61: letter masks stay below the int64 sign bit


def popcount(x):
    """Set bits of a non-negative int (numba: compiled to the CPU's popcount); int() for a numpy
    integer, what kernels run in CPython (NUMBA_DISABLE_JIT=1) read from arrays."""
    return int(x).bit_count()


def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int (numba: count trailing zeros); int() as for popcount."""
    x = int(x)
    return (x & -x).bit_length() - 1


def highest_bit(x):
    """Index of the highest set bit of a non-zero int (numba: count leading zeros); int() as for popcount."""
    return int(x).bit_length() - 1


def listing_full(numbers, words, codes, used, depth):
    """Whether a word listing's buffers (`<format>_words`) lack room for one more word at `depth`."""
    return words == len(numbers) or used + depth + 2 > len(codes)


def list_word(frames, depth, codes, used):
    """Write the letters a listing's frames took (column 3 of rows 0..depth) and WORD_END at
    codes[used:]; returns the codes used after them."""
    for k in range(depth + 1):
        codes[used + k] = frames[k, 3]
    codes[used + depth + 1] = WORD_END
    return used + depth + 2


def unsigned(index):
    """`index`, which is not negative, as an index (numba: unsigned, so that indexing skips its
    wraparound of negative indices, two instructions on each load's path; plain Python: itself)."""
    return index


def prefetch_row(table, row):
    """Ask the CPU to start loading row `row` of a 2-d array, or item `row` of a 1-d one, into its
    caches (numba: the prefetch instruction; plain Python: nothing), for what a loop will read after
    other work: the walks ask for a node's children as they step down to it, and wait less for
    them (JPA14 2%, the TWL06 trie 5%)."""


def prepare_board(board, code_len, nbr_bits, cell_len, nbr_mask, near):
    """Fill the per-board tables: letters on each cell, the first letters around it, and
    near[cell * NEAR + letter], the neighbours of the cell whose face starts with that letter.
    Index `cells` of nbr_mask and row `cells` of near are the virtual root's: every cell.
    Only the rows of letters in nbr_mask are written; walks read no others."""
    cells = len(board)
    for cell in range(cells + 1):
        todo = nbr_bits[cell]
        while todo:
            first = board[unsigned(lowest_bit(todo))] & NO_LETTER
            todo &= todo - 1
            if first != NO_LETTER:
                near[unsigned(cell * NEAR + first)] = 0
    for cell in range(cells + 1):
        around = 0
        todo = nbr_bits[cell]
        while todo:
            nb = lowest_bit(todo)
            first = board[unsigned(nb)] & NO_LETTER
            todo &= todo - 1
            if first != NO_LETTER:
                around |= 1 << first
                near[unsigned(cell * NEAR + first)] |= 1 << nb
        nbr_mask[cell] = around
        if cell < cells:
            code = board[cell]
            cell_len[cell] = code_len[code & NO_LETTER] + (code_len[(code >> 6) - 1] if code > NO_LETTER else 0)


def neighbours_with(near, cell, letters, used):
    """Unused neighbours of `cell` (cells = the root) whose face starts with one of `letters`."""
    todo = 0
    while letters:
        todo |= near[unsigned(cell * NEAR + lowest_bit(letters))]
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
