"""Where the tools keep per-user files: compiled kernels and the default lexicon's build."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path


def cache_root() -> Path:
    """$BOGGLE_DAWG_CACHE, else $XDG_CACHE_HOME/boggle-dawg, else ~/.cache/boggle-dawg."""
    if os.environ.get("BOGGLE_DAWG_CACHE"):
        return Path(os.environ["BOGGLE_DAWG_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "boggle-dawg"


# What every compiled batch driver compiles into itself besides its format's module: the walks' shared
# helpers, the bit fields they read, and the numba overloads and driver code (jit.py).
_KERNEL_SOURCES = ("walk_kernels.py", "layout.py", "jit.py")


def kernel_cache_dir(kind: str, walk: Callable, *sources: str) -> Path:
    """Where compiled code of the format walk `walk` is kept: cache_root()/kind/<the walk's name>-<a digest
    of every source compiled into it>: _KERNEL_SOURCES, the walk's own module and `sources` (more files
    of solver/). numba and the linker stamp compiled code with one file at most, so a change to any of
    them must not find old code. Older directories of the same walk are removed."""
    here = Path(__file__).parent
    paths = [here / name for name in (*_KERNEL_SOURCES, *sources)] + [Path(walk.__code__.co_filename)]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in paths)).hexdigest()[:16]
    name = f"{walk.__module__}.{walk.__qualname__}"
    where = cache_root() / kind / f"{name}-{digest}"
    if not where.is_dir() and where.parent.is_dir():
        import shutil  # only when the sources changed: not on every batch's start

        for old in where.parent.glob(f"{name}-*"):
            shutil.rmtree(old, ignore_errors=True)
    return where
