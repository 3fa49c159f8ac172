"""The CUDA kernels of the trie walk (numba.cuda; imported only by the CUDA backend).

numba.cuda keeps the project to one kernel language (Python, as the CPU walks)
and runs unchanged under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1), which is
how the kernels are tested on machines without a GPU. `cuda` must stay a
module-level name for the simulator.

The design is the one ../shared/docs/gpu.md measured best (a prototype on an H100):

- one thread per board, in a persistent grid: each thread takes its next
  board from a global atomic counter, so a warp never waits at board
  boundaries;
- a depth-first walk with an explicit stack: the current position in
  registers, each ancestor as three 32-bit words in shared memory laid out
  [slot][thread] (no bank conflicts): first child, letter mask, and
  neighbour slots still to try | cell << 8 | length << 14. The slots still to
  try index the cell's row of the neighbour table (8 at most), so a frame
  holds 8 bits where a bit set of cells would need 64 on an 8x8 board;
- each word counted once per board: a bit per word (words numbered densely
  over the trie's end-of-word nodes) in a per-thread bitmap laid out
  [word32][thread], plus a per-thread list of the bitmap words touched; after
  a board only those are cleared (the whole bitmap when the list overflowed).
  Every board leaves its thread's bitmap clear, so launches with different
  grid sizes can share it.

A compile-time variant of the same kernel serves search (`Scorer.best_changes`):
its work items are the single-letter changes of each board, made on the fly
(the changed cell reads the new letter), and only each board's best change is
kept, by an atomic max, so only the boards go to the device and one number per
board comes back.

Cell codes are as everywhere (solver/kernels.py): the letter index, NO_LETTER
for a blank, first + 64 * (second + 1) for a two-letter face. They travel as
int16 and are widened before any shift: the simulator computes in the arrays'
own dtypes (1 << an int16 of 20 is 0 there), compiled code in 64 bits.
"""

from __future__ import annotations

from functools import cache

from numba import cuda, int32, int64, uint32

from ..kernels import NO_LETTER
from ..layout import INDEX_MASK, LETTER_MASK, LETTERS_SHIFT

FRAME_WORDS = 3  # shared-memory words per stack frame
TODO_BITS = 8  # neighbour slots still to try: bits 0-7 of a frame's third word
CELL_BITS = 6  # then the cell (0..63); the length in letters starts at bit 14
VARIANT_BITS = 12  # single-letter changes of a board: 64 cells x 26 letters < 4096
VARIANT_MASK = (1 << VARIANT_BITS) - 1


@cuda.jit(device=True, inline=True)
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int (popc, which the simulator has for any width)."""
    return cuda.popc((x & -x) - 1)


@cuda.jit(device=True, inline=True)
def follow(nodes, first, mask, code):
    """The node a cell with `code` leads to from a node whose children start at `first` with
    letters `mask` (both letters of a two-letter face), or -1."""
    letter = code & NO_LETTER
    if not (mask >> letter) & 1:
        return -1
    node = first + cuda.popc(mask & ((1 << letter) - 1))
    if code > NO_LETTER:
        second = (code >> 6) - 1
        word = nodes[node]
        inner = (word >> LETTERS_SHIFT) & LETTER_MASK
        if not (inner >> second) & 1:
            return -1
        node = (word & INDEX_MASK) + cuda.popc(inner & ((1 << second) - 1))
    return node


@cuda.jit(device=True, inline=True)
def first_find(bitmap, touched, touched_cap, word, tid, threads, marked):
    """Set the word's bit in this thread's bitmap. Returns 1 if it was clear (the word is new on
    this board) and the count of bitmap words touched, recording a newly touched one."""
    at = (word >> 5) * threads + tid
    old = bitmap[at]
    bit = uint32(1) << uint32(word & 31)
    if old & bit:
        return 0, marked
    bitmap[at] = old | bit
    if old == 0:
        if marked < touched_cap:
            touched[marked * threads + tid] = word >> 5
        marked += 1
    return 1, marked


@cuda.jit(device=True, inline=True)
def clear_marks(bitmap, touched, touched_cap, bitmap_words, tid, threads, marked):
    """Leave this thread's bitmap clear: the words touched, or all of it if the list overflowed."""
    if marked <= touched_cap:
        for k in range(marked):
            bitmap[touched[k * threads + tid] * threads + tid] = 0
    else:
        for w in range(bitmap_words):
            bitmap[w * threads + tid] = 0


@cache
def scoring_kernel(depth: int, block: int, changes: bool = False):
    """The batch kernel for stacks of `depth` frames and blocks of `block` threads (both fixed at
    compile time: they size the shared-memory stack); with `changes`, the kernel that scores the
    single-letter changes of each board (a compile-time switch, so the plain kernel carries none
    of that code and its registers)."""
    slots = FRAME_WORDS * depth

    @cuda.jit
    def score_boards(nodes, word_index, codes, q_code, neighbour_table, neighbour_count, card,
                     bitmap, touched, counter, scores, alphabet, letters, best):
        """Without `changes`: scores[b] = points of board codes[b], for every b. With them, for
        every board b: best[b] = the best of its single-letter changes (cell c to letter
        alphabet[k], k < letters, numbered v = c * letters + k; changes to the letter already
        there are skipped) as score << VARIANT_BITS | (VARIANT_MASK - v), by atomic max, so the
        lowest v wins a tie. Work items (boards, or board changes) are taken from counter[0]."""
        stack = cuda.shared.array((slots, block), int32)
        tx = cuda.threadIdx.x
        tid = cuda.grid(1)
        threads = cuda.gridsize(1)
        boards, cells = codes.shape
        variants = cells * letters if changes else 1
        items = boards * variants
        touched_cap = touched.shape[0] // threads
        bitmap_words = bitmap.shape[0] // threads
        root = nodes[0]
        root_first = root & INDEX_MASK
        root_mask = (root >> LETTERS_SHIFT) & LETTER_MASK
        while True:
            item = cuda.atomic.add(counter, 0, 1)
            if item >= items:
                return
            board = item // variants
            variant = item - board * variants
            changed = -1
            letter = int64(0)
            if changes:
                changed = variant // letters
                letter = alphabet[variant - changed * letters]
                if letter == codes[board, changed]:
                    continue
            score = 0
            marked = 0
            for start in range(cells):
                code = letter if changes and start == changed else int64(codes[board, start])
                node = follow(nodes, root_first, root_mask, code)
                if node < 0:
                    continue
                word = nodes[node]
                length = 2 if code > NO_LETTER or code == q_code else 1
                if word < 0:
                    new, marked = first_find(bitmap, touched, touched_cap, word_index[node], tid, threads, marked)
                    if new:
                        score += card[length]
                mask = (word >> LETTERS_SHIFT) & LETTER_MASK
                if mask == 0:
                    continue
                first = word & INDEX_MASK
                cell = start
                used = int64(1) << start
                todo = (1 << neighbour_count[start]) - 1
                sp = 0
                while True:
                    if todo:
                        slot = lowest_bit(todo)
                        todo &= todo - 1
                        nb = neighbour_table[cell, slot]
                        if (used >> nb) & 1:
                            continue
                        code = letter if changes and nb == changed else int64(codes[board, nb])
                        node = follow(nodes, first, mask, code)
                        if node < 0:
                            continue
                        word = nodes[node]
                        child_length = length + (2 if code > NO_LETTER or code == q_code else 1)
                        if word < 0:
                            new, marked = first_find(bitmap, touched, touched_cap, word_index[node], tid, threads,
                                                     marked)
                            if new:
                                score += card[child_length]
                        child_mask = (word >> LETTERS_SHIFT) & LETTER_MASK
                        if child_mask:
                            top = FRAME_WORDS * sp
                            stack[top, tx] = first
                            stack[top + 1, tx] = mask
                            stack[top + 2, tx] = todo | (cell << TODO_BITS) | (length << (TODO_BITS + CELL_BITS))
                            sp += 1
                            cell = nb
                            used |= int64(1) << nb
                            todo = (1 << neighbour_count[nb]) - 1
                            first = word & INDEX_MASK
                            mask = child_mask
                            length = child_length
                    elif sp:
                        used ^= int64(1) << cell
                        sp -= 1
                        top = FRAME_WORDS * sp
                        first = stack[top, tx]
                        mask = stack[top + 1, tx]
                        packed = stack[top + 2, tx]
                        todo = packed & ((1 << TODO_BITS) - 1)
                        cell = (packed >> TODO_BITS) & ((1 << CELL_BITS) - 1)
                        length = packed >> (TODO_BITS + CELL_BITS)
                    else:
                        break
            clear_marks(bitmap, touched, touched_cap, bitmap_words, tid, threads, marked)
            if changes:
                cuda.atomic.max(best, board, (int64(score) << VARIANT_BITS) | (VARIANT_MASK - variant))
            else:
                scores[board] = score

    return score_boards


@cuda.jit
def zero_fill(values):
    """values[:] = 0, by a grid-stride loop."""
    for i in range(cuda.grid(1), values.shape[0], cuda.gridsize(1)):
        values[i] = 0
