"""Compile the walks of `solver.kernels` with numba, cached on disk, for batch scoring.

Importing this module imports numba (about 0.2 s); the single-board path
never does. The kernels stay plain Python functions: compiled code calls
them through numba overloads, and `popcount` becomes the CPU instruction.
The batch drivers below loop over boards inside compiled code and release
the GIL, so threads score chunks of a batch in parallel.
"""

from __future__ import annotations

import hashlib
import inspect
import shutil
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from . import kernels as k
from .user_cache import cache_root

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")


def _cache_dir() -> Path:
    """Where numba caches the batch drivers: a directory named after the contents of
    kernels.py and this file. numba stamps a cached function with its own file only, and
    the drivers compile kernels.py's code into themselves, so a change to either file
    must not find an old cache. Caches of other versions are removed."""
    digest = hashlib.sha256(Path(k.__file__).read_bytes() + Path(__file__).read_bytes()).hexdigest()[:16]
    here = cache_root() / "numba" / digest
    if not here.is_dir() and here.parent.is_dir():
        for old in here.parent.iterdir():
            shutil.rmtree(old, ignore_errors=True)
    return here


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))  # zero input: never passed

    return x(x), codegen


@overload(k.popcount)
def _popcount(x):
    return lambda x: _ctpop(x)


@overload(k.lowest_bit)
def _lowest_bit(x):
    return lambda x: _cttz(x)


def _compiled_in_place(func):
    """Let compiled kernels call the plain function `func`, compiled where it is used."""
    def typer(*args):
        return func

    typer.__signature__ = inspect.signature(func)
    overload(func, jit_options={"error_model": "numpy"})(typer)


for _func in (k.prepare_board, k.neighbours_with, k.record, k.trie_board, k.dawg_board, k.adtdawg_board):
    _compiled_in_place(_func)

# numba picks a cached function's directory when it is decorated: ours only, then restore.
_user_cache_dir = numba.config.CACHE_DIR
numba.config.CACHE_DIR = str(_cache_dir())


@numba.njit(**_OPTIONS)
def trie_batch(nodes, boards, q_code, nbr_bits, card, stack, stamps, first_stamp, scores):
    cells = boards.shape[1]
    cell_len = np.empty(cells, np.int64)
    nbr_mask = np.empty(cells + 1, np.int64)
    near = np.empty((cells + 1) * k.NEAR, np.int64)
    found = stack[:0]
    count = stack[:1]
    for b in range(boards.shape[0]):
        k.prepare_board(boards[b], q_code, nbr_bits, cell_len, nbr_mask, near)
        scores[b] = k.trie_board(nodes, boards[b], cell_len, nbr_mask, near, card, stack,
                                 stamps, first_stamp + b, found, 0, 0, count)


@numba.njit(**_OPTIONS)
def dawg_batch(states, edges, boards, q_code, nbr_bits, card, stack, stamps, first_stamp, scores):
    cells = boards.shape[1]
    cell_len = np.empty(cells, np.int64)
    nbr_mask = np.empty(cells + 1, np.int64)
    near = np.empty((cells + 1) * k.NEAR, np.int64)
    found = stack[:0]
    count = stack[:1]
    for b in range(boards.shape[0]):
        k.prepare_board(boards[b], q_code, nbr_bits, cell_len, nbr_mask, near)
        scores[b] = k.dawg_board(states, edges, boards[b], cell_len, nbr_mask, near, card, stack,
                                 stamps, first_stamp + b, found, 0, 0, count)


@numba.njit(**_OPTIONS)
def adtdawg_batch(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits, eow_shift, boards,
                  q_code, nbr_bits, card, stack, stamps, first_stamp, scores):
    cells = boards.shape[1]
    cell_len = np.empty(cells, np.int64)
    nbr_mask = np.empty(cells + 1, np.int64)
    near = np.empty((cells + 1) * k.NEAR, np.int64)
    found = stack[:0]
    count = stack[:1]
    for b in range(boards.shape[0]):
        k.prepare_board(boards[b], q_code, nbr_bits, cell_len, nbr_mask, near)
        scores[b] = k.adtdawg_board(nodes, tracking, positions, set_mask, letters, fc_bits, cs_bits,
                                    eow_shift, boards[b], cell_len, nbr_mask, near, card, stack,
                                    stamps, first_stamp + b, found, 0, 0, count)


numba.config.CACHE_DIR = _user_cache_dir
