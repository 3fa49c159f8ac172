"""Where the tools keep per-user files: compiled kernels and the default lexicon's build."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from contextlib import suppress
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


# Versions of one walk's compiled code kept side by side: two installs or checkouts used in turn (a
# release and a development tree) each keep theirs instead of rebuilding the other's away at every switch.
KEPT_VERSIONS = 3


def kernel_cache_dir(kind: str, walk: Callable, *sources: str) -> Path:
    """Where compiled code of the format walk `walk` is kept: cache_root()/kind/<the walk's name>-<a digest
    of every source compiled into it>: _KERNEL_SOURCES, the walk's own module and `sources` (more files
    of solver/). numba and the linker stamp compiled code with one file at most, so a change to any of
    them must not find old code. A directory's time is its last use; before a new one is made, the
    walk's least recently used ones go, so that KEPT_VERSIONS stay."""
    here = Path(__file__).parent
    paths = [here / name for name in (*_KERNEL_SOURCES, *sources)] + [Path(walk.__code__.co_filename)]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in paths)).hexdigest()[:16]
    name = f"{walk.__module__}.{walk.__qualname__}"
    where = cache_root() / kind / f"{name}-{digest}"
    if where.is_dir():
        with suppress(OSError):  # a cache this user may read but not write
            os.utime(where)
    elif where.parent.is_dir():
        import shutil  # only when the sources changed: not on every batch's start

        versions = sorted(where.parent.glob(f"{name}-*"), key=_last_use, reverse=True)
        for old in versions[KEPT_VERSIONS - 1:]:
            shutil.rmtree(old, ignore_errors=True)
    return where


def _last_use(directory: Path) -> float:
    try:
        return directory.stat().st_mtime
    except OSError:  # removed meanwhile
        return 0.0
