"""The prover's compiled kernels, loaded without numba where a build can be made.

The kernels are plain functions in their modules (solver.proof.entries,
.tree, .deep_forcing), which import no numba. `kernels()` gives the ones
Python calls, compiled: ahead of time, in one extension module built the
first time a proof needs it (solver.aot: once per user, version of these
sources, machine and argument types), which loads without numba; or, where
no such build can be made, by numba here. A proof that loads the extension
skips numba's import and its kernels' loading: 0.3-0.4 CPU-s and about 100 MB
of a worker's resident memory, more than a small class takes
(benchmarks/results/prove.md, "The prover without numba").

An extension trusts the argument types it was built for (a wrong one would
crash it), so each call checks them (microseconds; a call of these kernels
takes milliseconds) and runs numba's compilation of the same function for
any other.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import SimpleNamespace

import numpy as np

from .. import aot

# The files of solver/ compiled into the kernels, besides the user cache's own (walk_kernels.py, jit.py, ...).
SOURCES = ("proof/entries.py", "proof/tree.py", "proof/deep_forcing.py", "proof/compiled.py")

_VECTOR, _MATRIX = np.zeros(1, np.int64), np.zeros((1, 1), np.int64)
_TOKENS, _ARENA, _LOG = np.zeros((1, 1), np.int16), np.zeros((1, 2), np.int32), np.zeros((1, 4), np.int32)
_MADE = np.zeros((1, 1, 1, 1), np.int64)  # the tree build's rows made (tree._build_state)

# What Python calls, as it calls them: name -> (return type, example arguments of the types it gives).
EXPORTS = {
    "list_entries": ("UniTuple(int64, 2)", (_VECTOR, 0, _VECTOR, _MATRIX, _VECTOR, _VECTOR, _MATRIX)),
    "tree_bound": ("int64", (_TOKENS, _VECTOR, 0)),
    "_spread": ("void", (_MATRIX, 0, _MATRIX, _VECTOR)),
    "_sort_buckets": ("void", (_MATRIX, _MATRIX, _VECTOR, 0, 0)),
    "_build_rows": ("int64", (_MATRIX, 0, 0, 0, 0, 0, _MATRIX, _MADE, _ARENA, _ARENA)),
    "force_cell": ("int64", (_ARENA, _ARENA, _VECTOR, 0, 0, 0, _LOG)),
    "force_remaining": ("UniTuple(int64, 2)", (_ARENA, _ARENA, 0, 0, _MATRIX, _VECTOR, 0, 0, _MATRIX, _MATRIX,
                                               _MATRIX)),
}


def _argument_types(arguments: tuple) -> str | None:
    """`aot.type_key` of arguments, a numpy integer read as the int it is (the extension takes either)."""
    return aot.type_key(tuple(int(a) if isinstance(a, np.integer) else a for a in arguments))


_KEYS = {name: _argument_types(example) for name, (_, example) in EXPORTS.items()}


def _plain() -> tuple[dict[str, Callable], tuple[Callable, ...], tuple[Callable, ...]]:
    """The kernels Python calls (EXPORTS' names), the functions they call, and those of them to be
    compiled into their callers' bodies (small ones in hot loops)."""
    from . import deep_forcing as d
    from . import entries as e
    from . import tree as t

    functions = {name: getattr(module, name) for module in (e, t, d) for name in EXPORTS if hasattr(module, name)}
    called = (e._key_places, e._bound_row, e._bound_end, e._bucket_pass, t._merge_rows,
              d._open_bound, d._push)  # (their loops inlined by numba trip its scope check; LLVM inlines them)
    inlined = (t._copy_row, t.key_of, t.bound_of, t.set_bound, t._pack, d._keep)
    return functions, called, inlined


def _registered() -> dict[str, Callable]:
    """The kernels Python calls (EXPORTS' names), with the functions they call registered for numba to
    compile into them (imports numba): what both numba's JIT and the ahead-of-time build compile."""
    from .. import jit

    functions, called, inlined = _plain()
    for function in called:
        jit.compiled_in_place(function)
    for function in inlined:
        jit.compiled_in_place(function, inline="always")
    return functions


@cache
def _numba() -> dict[str, Callable]:
    """The kernels compiled by numba, in the user cache (under NUMBA_DISABLE_JIT, the plain functions themselves)."""
    from .. import jit

    functions = _registered()
    anchor = functions["list_entries"]
    return {name: jit.in_walk_cache(anchor, function, *SOURCES) for name, function in functions.items()}


def _exports() -> dict:
    """What solver.aot builds: {name: (function, return type, example arguments)} (imports numba)."""
    functions = _registered()
    return {name: (functions[name], returned, example) for name, (returned, example) in EXPORTS.items()}


def _checked(name: str, compiled: Callable) -> Callable:
    """`compiled` (the extension's `name`) where the arguments have the types it was built for, else numba's."""
    expected = _KEYS[name]

    def call(*arguments):
        if _argument_types(arguments) == expected:
            return compiled(*arguments)
        return _numba()[name](*arguments)

    call.__name__ = call.__qualname__ = name
    return call


@cache
def kernels() -> SimpleNamespace:
    """The prover's kernels (EXPORTS' names), compiled: the extension module's where there is one
    (built first if need be), else numba's."""
    key = "|".join(f"{name}{_KEYS[name]}" for name in EXPORTS)
    module = aot.proof_module(_plain()[0]["list_entries"], key, _exports, SOURCES)  # None under NUMBA_DISABLE_JIT
    if module is None:
        return SimpleNamespace(**_numba())
    return SimpleNamespace(**{name: _checked(name, getattr(module, name)) for name in EXPORTS})
