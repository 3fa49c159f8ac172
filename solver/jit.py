"""Compile the formats' board walks with numba, cached on disk, for batch scoring; and the
one convention every numba kernel in solver/ is compiled with (`kernel`).

Importing this module imports numba (about 0.2 s); the single-board path
never does. The walks stay plain Python functions (each in its format's
module, sharing `solver.walk_kernels`): compiled code calls them through numba
overloads, and `popcount` becomes the CPU instruction. `batch_function(walk)`
is the one batch driver, specialised to a walk: it loops over boards inside
compiled code and releases the GIL, so threads score chunks of a batch in
parallel. Batches load it compiled ahead of time (`solver.aot`, which builds
it with this module's overloads and needs no numba to load it);
`batch_driver(walk)` compiles it here where no such build can be made.
`compiled_kernel(walk)` is the walk alone, compiled, for one
board and its words where numba is loaded anyway. The word queries' kernels (the
batch lookup, the word listing, a word's prefixes) are wrapped here for
`solver.aot` to compile ahead of time (`word_ends_function`, `lookup_function`,
`listing_function`); `compiled_kernel` compiles the first two where it cannot.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from . import walk_kernels as k
from .user_cache import kernel_cache_dir

# Every compiled entry point: cached on disk, GIL released (threads score in parallel), numpy's
# error model (a division by zero gives inf or 0 instead of raising, so no check in the hot loops).
KERNEL_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")
# Plain functions compiled into their callers (the walks, `solver.walk_kernels`): only the options that
# change the generated code; caching and the GIL belong to the entry point.
INLINED_OPTIONS = dict(error_model=KERNEL_OPTIONS["error_model"])


def kernel(func: Callable | None = None, /, **options) -> Callable:
    """numba.njit with KERNEL_OPTIONS, plus a kernel's own `options` (such as inline="always");
    `@kernel` or `@kernel(...)`."""
    return numba.njit(func, **KERNEL_OPTIONS, **options)


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


def _zeros_counted(end: str):
    """An intrinsic counting the zeros at one end of an integer ("cttz": trailing, "ctlz": leading)."""

    @intrinsic
    def count(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, end)(args[0], ir.Constant(ir.IntType(1), 1))  # zero input: never passed

        return x(x), codegen

    return count


_cttz, _ctlz = _zeros_counted("cttz"), _zeros_counted("ctlz")


@intrinsic
def _prefetch(typingctx, table, row):
    """llvm.prefetch (a read, kept in every cache level) of the first element of a 2-d array's row,
    or of a 1-d array's element."""
    if not isinstance(table, types.Array) or table.ndim not in (1, 2) or not isinstance(row, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type, row_type = signature.args
        array = context.make_array(array_type)(context, builder, args[0])
        index = [context.cast(builder, args[1], row_type, types.intp)]
        index += [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer2(context, builder, array.data, cgutils.unpack_tuple(builder, array.shape),
                                            cgutils.unpack_tuple(builder, array.strides), array_type.layout, index,
                                            wraparound=False, boundscheck=False)
        word = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, word, word, word]), "llvm.prefetch.p0")
        builder.call(prefetch, [builder.bitcast(pointer, cgutils.voidptr_t), word(0), word(3), word(1)])
        return context.get_dummy_value()

    return types.void(table, row), codegen


@overload(k.prefetch_row)
def _prefetch_row(table, row):
    return lambda table, row: _prefetch(table, row)


@overload(k.popcount)
def _popcount(x):
    return lambda x: _ctpop(x)


@overload(k.unsigned)
def _unsigned(index):
    return lambda index: np.uint64(index)


@overload(k.lowest_bit)
def _lowest_bit(x):
    return lambda x: _cttz(x)


@overload(k.highest_bit)
def _highest_bit(x):
    return lambda x: 63 - _ctlz(np.int64(x))


_in_place: set[Callable] = set()


def compiled_in_place(func: Callable, inline: str = "never") -> None:
    """Let compiled kernels call the plain function `func`, compiled where it is used (once per function:
    both the driver compiled here and the one compiled ahead of time ask for their walk); inline="always"
    puts its body into each caller's before optimisation, for a small function called in a hot loop."""
    if func in _in_place:
        return
    _in_place.add(func)

    def typer(*args):
        return func

    typer.__signature__ = inspect.signature(func)
    overload(func, jit_options=INLINED_OPTIONS, inline=inline)(typer)


for _func in (k.prepare_board, k.neighbours_with, k.record, k.listing_full, k.list_word):
    compiled_in_place(_func)


def batch_function(walk: Callable) -> Callable:
    """The batch driver of `walk` as a plain function, for numba to compile: here (`batch_driver`) or
    ahead of time (`solver.aot`)."""
    compiled_in_place(walk)

    def batch(inputs, boards, code_len, nbr_bits, card, stack, stamps, first_stamp, scores):
        cells = boards.shape[1]
        cell_len = np.empty(cells, np.int64)
        nbr_mask = np.empty(cells + 1, np.int64)
        near = np.empty((cells + 1) * k.NEAR, np.int64)
        found = stack[:0]
        count = stack[:1]
        for b in range(boards.shape[0]):
            k.prepare_board(boards[b], code_len, nbr_bits, cell_len, nbr_mask, near)
            scores[b] = walk(*inputs, boards[b], cell_len, nbr_mask, near, card, stack, stamps, first_stamp + b,
                             found, 0, 0, count)

    return batch


def word_ends_function(numbers: Callable) -> Callable:
    """`word_ends(inputs, codes)`: which prefixes of a word (letter codes, at most 63) are words, as bits
    (bit i: the first i + 1 letters), by the format's batch lookup `numbers` (`Walk.numbers_kernel`,
    with `inputs` its leading arguments) run on every prefix; for `solver.aot` to compile, as
    `Lexicon.prefixes` calls it a word at a time."""
    compiled_in_place(numbers)

    def word_ends(inputs, codes):
        count = len(codes)
        scratch = np.empty(3 * count, np.int64)  # one allocation: the prefixes' starts, ends and numbers
        starts = scratch[:count]
        stops = scratch[count:2 * count]
        found = scratch[2 * count:]
        for i in range(count):
            starts[i] = 0
            stops[i] = i + 1
        numbers(*inputs, codes, starts, stops, found)
        ends = 0
        for i in range(count):
            if found[i] >= 0:
                ends |= 1 << i
        return ends

    return word_ends


def listing_function(words: Callable) -> Callable:
    """`listing(inputs, prefix, status, frames, listed, numbers)`: a format's word listing
    (`Walk.words_kernel`) with its leading arguments as one tuple, for `solver.aot` to compile."""
    compiled_in_place(words)

    def listing(inputs, prefix, status, frames, listed, numbers):
        return words(*inputs, prefix, status, frames, listed, numbers)

    return listing


def lookup_function(numbers: Callable) -> Callable:
    """`lookup(inputs, codes, starts, ends, found)`: a format's batch lookup (`Walk.numbers_kernel`)
    with its leading arguments as one tuple, for `solver.aot` to compile."""
    compiled_in_place(numbers)

    def lookup(inputs, codes, starts, ends, found):
        numbers(*inputs, codes, starts, ends, found)

    return lookup


def in_walk_cache(walk: Callable, func: Callable, *sources: str) -> Callable:
    """`func`, which compiles `walk` in, compiled into the walk's cache directory (`kernel_cache_dir`,
    with `sources`: more files of solver/ compiled into it)."""
    # numba picks a cached function's directory when it is decorated: the walk's own, then restore.
    user_cache_dir = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(kernel_cache_dir("numba", walk, *sources))
    try:
        return kernel(func)
    finally:
        numba.config.CACHE_DIR = user_cache_dir


_drivers: dict[Callable, Callable] = {}
_drivers_lock = threading.Lock()


def batch_driver(walk: Callable) -> Callable:
    """The compiled batch driver of a format's board walk: batch(inputs, boards, code_len,
    nbr_bits, card, stack, stamps, first_stamp, scores) scores each row of `boards` into
    `scores`, with `inputs` the walk's leading arguments (`Walk.inputs`) and `code_len` the
    charset's `code_lengths`."""
    with _drivers_lock:
        if walk not in _drivers:
            _drivers[walk] = in_walk_cache(walk, batch_function(walk))
        return _drivers[walk]


_kernels: dict[Callable, Callable] = {}


def compiled_kernel(func: Callable) -> Callable:
    """A format's kernel compiled on its own, in its walk's cache: its board walk, called with the
    arguments `board_walk.solve_one` gives it, as numpy arrays (one board with its words at compiled
    speed, for a process that has numba loaded anyway: the warm server), or its batch lookup
    (`Walk.numbers_kernel`, for `Lexicon.key_ids`)."""
    with _drivers_lock:
        if func not in _kernels:
            _kernels[func] = in_walk_cache(func, func)
        return _kernels[func]
