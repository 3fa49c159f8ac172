"""Batch drivers compiled ahead of time: `jit.batch_function`'s drivers built by numba.pycc into
extension modules in the user cache, which load without importing numba; and in the same way
the word queries' kernels (`query_function`): a word's prefixes that are words
(`jit.word_ends_function`, which `Lexicon.prefixes` calls a word at a time: numba's own dispatch
would cost more than the lookup), the batch lookup and the word listing, so that listing or
looking up words costs no numba import either; the three are one extension module per format
walk and type of its inputs (one build, not three). The prover's kernels are one more module
(`proof_module`, for solver.proof.compiled), so that a proof loads no numba either.

A process that scores a batch then skips numba's import and its cache loading
(about 0.3 CPU-s, more than scoring 10,000 4x4 boards takes). A driver is built
the first time a batch asks for it: once per user, per version of the sources
compiled into it (`kernel_cache_dir`), per machine (it is compiled for this
CPU) and per types of its arguments (the extension trusts the types it was
built for, so they are part of its name); a lock in the cache makes the other
processes of the machine that need it wait for one build. Building imports
numba; loading never does. The driver releases the GIL as numba's own do, so threads score
in parallel and the waiting caller takes Ctrl-C (the word queries, over in
microseconds, keep it: `RELEASES_GIL`). A build that fails (no C
compiler, a numba without pycc) leaves its reason in the cache and batches on
numba's drivers (`jit.batch_driver`).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import platform
import sys
import threading
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .user_cache import kernel_cache_dir

if TYPE_CHECKING:
    from .board_walk import Walk

CACHE_KIND = "aot"
# Whether a kind of module releases the GIL around its functions: a batch of boards does, so that threads
# score in parallel and the waiting caller takes Ctrl-C; the word queries do not: each is over in
# microseconds, and releasing and taking back the GIL costs about 70 ns a call, a third of the compiled call
# `prefixes` makes for a short word.
RELEASES_GIL = {"batch": True, "queries": False, "proof": True}


def _machine() -> str:
    """What the compiled code depends on besides its sources and argument types: the instruction set
    it may use (Linux: the CPU's flags), the interpreter's extension ABI and numpy's version."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            flags = next((line for line in info if line.startswith("flags")), "")
    except OSError:
        pass
    return "|".join((platform.machine(), flags, EXTENSION_SUFFIXES[0], np.__version__))


def type_key(value: object) -> str | None:
    """The numba type of a driver argument, in words numba need not be loaded to write: an array's
    dtype, dimensions, contiguity and writability, an int's int64; None for what the drivers never take."""
    if isinstance(value, np.ndarray):
        layout = "C" if value.flags.c_contiguous else "A"
        return f"{value.dtype.str}{value.ndim}{layout}{'' if value.flags.writeable else 'r'}"
    if isinstance(value, tuple):
        keys = [type_key(v) for v in value]
        return None if None in keys else f"({','.join(keys)})"  # type: ignore[arg-type]
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return "i8" if isinstance(value, int) else np.dtype(type(value)).str
    return None


_loaded: dict[tuple[str, Callable, str], object | None] = {}
_lock = threading.Lock()  # held while a module loads or builds: one build at a time (see _build's flags)


def batch_driver(walk: Callable, example: tuple) -> Callable | None:
    """The ahead-of-time driver of the format walk `walk` for arguments typed as `example` (a full
    argument tuple of `jit.batch_driver`'s driver), built first if need be; None where there is none
    (numba's JIT disabled, a failed build, an argument type the drivers never take)."""
    module = _module("batch", walk, type_key(example),
                     lambda: {"batch": (_jit_function("batch_function", walk), "void", example)})
    return None if module is None else module.batch


# The word queries' functions (`jit.word_ends_function`, `jit.lookup_function`, `jit.listing_function`) after
# the walk's inputs: arguments typed as these examples, the types their callers give (`Lexicon._query_kernel`).
QUERY_EXAMPLES = {
    "word_ends": (b"a",),  # a word's letter codes
    "lookup": (np.zeros(1, np.uint8), np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64)),
    "listing": (np.zeros(1, np.uint8), np.zeros(2, np.int64), np.zeros((1, 6), np.int64), np.zeros(1, np.uint8),
                np.zeros(1, np.int64)),
}
QUERY_RETURNS = {"word_ends": "int64", "lookup": "void", "listing": "UniTuple(int64, 2)"}
_QUERY_KEYS = {export: type_key(example) for export, example in QUERY_EXAMPLES.items()}


def query_function(export: str, walk: Walk, arguments: tuple) -> Callable | None:
    """The word query `export` (QUERY_EXAMPLES) of a format walk compiled ahead of time, called as
    function(walk.inputs, *arguments) where `arguments` have the types it was built for: the walk's
    batch lookup and word listing (`Walk.numbers_kernel`, `Walk.words_kernel`) in one extension
    module per walk and type of its inputs, built first if need be; None as for `batch_driver`, or
    where `arguments` are typed otherwise."""
    if type_key(arguments) != _QUERY_KEYS[export]:
        return None
    kernels = {"word_ends": ("word_ends_function", walk.numbers_kernel),
               "lookup": ("lookup_function", walk.numbers_kernel), "listing": ("listing_function", walk.words_kernel)}

    def exports() -> dict:
        return {name: (_jit_function(maker, kernel), QUERY_RETURNS[name], (walk.inputs, *QUERY_EXAMPLES[name]))
                for name, (maker, kernel) in kernels.items()}

    module = _module("queries", walk.numbers_kernel, type_key(walk.inputs), exports)
    return None if module is None else getattr(module, export)


def _jit_function(maker: str, kernel: Callable) -> Callable:
    """`jit.<maker>(kernel)`: what a build compiles (numba is imported here, for builds only)."""
    from . import jit

    return getattr(jit, maker)(kernel)


def proof_module(anchor: Callable, key: str, exports: Callable[[], dict], sources: tuple[str, ...]) -> object | None:
    """The prover's kernels compiled ahead of time (solver.proof.compiled): one extension module, named
    after `anchor` (one of the kernels) and `key` (the argument types of them all), built first from
    `exports()` as `_build` takes them; `sources`: the other files of solver/ compiled into it. None as
    for `batch_driver`."""
    return _module("proof", anchor, key, exports, sources)


def _module(kind: str, kernel: Callable, key: str | None, exports: Callable[[], dict],
            sources: tuple[str, ...] = ()) -> object | None:
    """The extension module of `kind` for `kernel` and argument types `key`, loaded or built first from
    `exports()` ({name: (function, return type, example arguments)}); None where there is none."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None  # kernels run as Python: so must what calls them
    if key is None:
        return None
    with _lock:
        if (kind, kernel, key) not in _loaded:
            _loaded[kind, kernel, key] = _load_or_build(kind, kernel, key, exports, sources)
        return _loaded[kind, kernel, key]


def _load_or_build(kind: str, kernel: Callable, key: str, exports: Callable[[], dict],
                   sources: tuple[str, ...]) -> object | None:
    digest = hashlib.sha256(f"{kind}|{key}|{_machine()}".encode()).hexdigest()[:16]
    name = f"{kernel.__name__}_{digest}"
    try:
        where = kernel_cache_dir(CACHE_KIND, kernel, "aot.py", *sources)
        path = where / f"{name}{EXTENSION_SUFFIXES[0]}"
        failed = where / f"{name}.failed"
        if not path.exists() and not failed.exists():
            where.mkdir(parents=True, exist_ok=True)
            with open(where / f"{name}.lock", "w") as lock:  # one build at a time on this machine: others wait for it
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not path.exists() and not failed.exists():
                    try:
                        _build(exports(), name, where, path, RELEASES_GIL[kind])
                    except Exception as err:  # noqa: BLE001 (any failure of pycc or the C compiler: numba's remain)
                        failed.write_text(f"{type(err).__name__}: {err}\n", encoding="utf-8")
        if failed.exists():
            return None
        return _import(name, path)
    except (OSError, ImportError):  # a cache that cannot be written or read: numba's drivers remain
        return None


def _build(exports: dict, name: str, where: Path, path: Path, release_gil: bool) -> None:
    """Compile `exports` ({name: (function, return type, example arguments)}) into the extension module
    at `path`, releasing the GIL around them or not, by way of a private directory, so that a reader
    sees the whole extension or none (processes that build at once regardless, as machines sharing
    a cache over a network file system may, all succeed, the last one's file stays)."""
    import shutil
    import tempfile
    import warnings

    import numba
    from numba import types

    from . import jit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's pending deprecation: it is still numba's AOT compiler
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    class GilFlags(pycc_compiler.Flags):
        """pycc's compilation flags, with the GIL released around the functions (as KERNEL_OPTIONS'
        nogil does for numba's) where `release_gil` says so, and numba's kernels' error model (no
        check for a division by zero: pycc's default checks and raises)."""

        __slots__ = ()

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = release_gil
            self.error_model = jit.KERNEL_OPTIONS["error_model"]

    vector = types.Array(types.int64, 1, "C")
    returns = {"void": types.void, "int64": types.int64, "boolean": types.boolean,
               "UniTuple(int64, 2)": types.UniTuple(types.int64, 2),
               "UniTuple(int64[::1], 2)": types.UniTuple(vector, 2), "UniTuple(int64[::1], 13)": types.UniTuple(vector, 13)}
    building = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=where))
    try:
        compiler = CC(name)
        compiler.output_dir = str(building)
        compiler.target_cpu = "host"
        for export, (function, returned, example) in exports.items():
            compiler.export(export, returns[returned](*(numba.typeof(value) for value in example)))(function)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # pycc reads its flags class from its module when it compiles: replaced for this build only
            pycc_compiler.Flags, plain = GilFlags, pycc_compiler.Flags
            try:
                compiler.compile()
            finally:
                pycc_compiler.Flags = plain
        os.replace(building / path.name, path)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _import(name: str, path: Path):
    """The extension module at `path`."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
