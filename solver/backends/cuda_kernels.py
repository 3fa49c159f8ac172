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
  [slot][thread] (no bank conflicts): first child, letter mask (its low 31
  bits; a wide trie's frame has a fourth word, the rest), and neighbour slots
  still to try | cell << 8 | length << 14. The slots still to try index the
  cell's row of the neighbour table (8 at most), so a frame holds 8 bits where
  a bit set of cells would need 64 on an 8x8 board;
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

Cell codes are as everywhere (solver/walk_kernels.py): the letter index, NO_LETTER
for a blank, first + 64 * (second + 1) for a two-letter face; a code spells
code_len[first] letters (a tile its face's), plus code_len[second]. They travel
as int16 and are widened before any shift: the simulator computes in the arrays'
own dtypes (1 << an int16 of 20 is 0 there), compiled code in 64 bits. Node
words are read in either trie layout (solver/layout.py): `wide` is a
compile-time switch of the kernel.
"""

from __future__ import annotations

from functools import cache

from numba import config, cuda, int32, int64, uint32

from ..layout import INDEX_MASK, LETTER_MASK, LETTERS_SHIFT
from ..walk_kernels import NO_LETTER

FRAME_WORDS = 3  # shared-memory words per stack frame (a wide trie's have one more: the mask's high bits)
MASK_LOW_BITS = 31  # of the letter mask, in a frame's second word
TODO_BITS = 8  # neighbour slots still to try: bits 0-7 of a frame's third word
CELL_BITS = 6  # then the cell (0..63); the length in letters starts at bit 14
VARIANT_BITS = 12  # single-letter changes of a board: 64 cells x 62 letters < 4096
VARIANT_MASK = (1 << VARIANT_BITS) - 1


@cuda.jit(device=True, inline=True)
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int (popc, which the simulator has for any width)."""
    return cuda.popc((x & -x) - 1)


@cuda.jit(device=True, inline=True)
def letters_of(nodes, node, word, wide):
    """The letter mask of a node whose first word is `word`: in it (narrow layout) or in the word
    after it (wide)."""
    return nodes[(node << 1) + 1] if wide else (word >> LETTERS_SHIFT) & LETTER_MASK


@cuda.jit(device=True, inline=True)
def follow(nodes, wide, first, mask, code):
    """The node a cell with `code` leads to from a node whose children start at `first` with
    letters `mask` (both letters of a two-letter face), or -1."""
    letter = code & NO_LETTER
    if not (mask >> letter) & 1:
        return -1
    node = first + cuda.popc(mask & ((int64(1) << letter) - 1))
    if code > NO_LETTER:
        second = (code >> 6) - 1
        word = nodes[node << wide]
        inner = letters_of(nodes, node, word, wide)
        if not (inner >> second) & 1:
            return -1
        node = (word & INDEX_MASK) + cuda.popc(inner & ((int64(1) << second) - 1))
    return node


@cuda.jit(device=True, inline=True)
def spelled(code_len, code):
    """Letters a cell code spells: its first letter's (a tile's face), then a second letter's."""
    return code_len[code & NO_LETTER] + (code_len[(code >> 6) - 1] if code > NO_LETTER else 0)


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


def frame_words(wide: bool) -> int:
    """Shared-memory words of a stack frame: a wide trie's mask takes two."""
    return FRAME_WORDS + wide


def jit_options(block: int, threads_per_sm: int) -> dict:
    """cuda.jit's options for a kernel of `block`-thread blocks that must fit `threads_per_sm` threads on
    a multiprocessor: launch bounds, which cap its registers at the register file's share of a thread
    (64 at 1,024 threads; the wide trie's change kernel would take 72 uncapped, and 1,024 threads would
    not fit). The simulator takes no options."""
    if config.ENABLE_CUDASIM:
        return {}
    return {"launch_bounds": (block, max(1, threads_per_sm // block))}


@cache
def scoring_kernel(depth: int, block: int, changes: bool, wide: bool, threads_per_sm: int):
    """The batch kernel for stacks of `depth` frames and blocks of `block` threads (both fixed at
    compile time: they size the shared-memory stack), `threads_per_sm` of them resident on each
    multiprocessor; with `changes`, the kernel that scores the single-letter changes of each board
    (a compile-time switch, so the plain kernel carries none of that code and its registers); `wide`
    for a wide trie's 62-bit letter masks (a frame word more)."""
    frame = frame_words(wide)
    slots = frame * depth

    @cuda.jit(**jit_options(block, threads_per_sm))
    def score_boards(nodes, word_index, codes, code_len, neighbour_table, neighbour_count, card,
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
        root_first = nodes[0] & INDEX_MASK
        root_mask = letters_of(nodes, 0, nodes[0], wide)
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
                node = follow(nodes, wide, root_first, root_mask, code)
                if node < 0:
                    continue
                word = nodes[node << wide]
                length = spelled(code_len, code)
                if word < 0:
                    new, marked = first_find(bitmap, touched, touched_cap, word_index[node], tid, threads, marked)
                    if new:
                        score += card[length]
                mask = letters_of(nodes, node, word, wide)
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
                        node = follow(nodes, wide, first, mask, code)
                        if node < 0:
                            continue
                        word = nodes[node << wide]
                        child_length = length + spelled(code_len, code)
                        if word < 0:
                            new, marked = first_find(bitmap, touched, touched_cap, word_index[node], tid, threads,
                                                     marked)
                            if new:
                                score += card[child_length]
                        child_mask = letters_of(nodes, node, word, wide)
                        if child_mask:
                            top = frame * sp
                            stack[top, tx] = first
                            stack[top + 1, tx] = mask & ((1 << MASK_LOW_BITS) - 1)
                            stack[top + 2, tx] = todo | (cell << TODO_BITS) | (length << (TODO_BITS + CELL_BITS))
                            if wide:
                                stack[top + 3, tx] = mask >> MASK_LOW_BITS
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
                        top = frame * sp
                        first = stack[top, tx]
                        mask = int64(stack[top + 1, tx])
                        if wide:
                            mask |= int64(stack[top + 3, tx]) << MASK_LOW_BITS
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
