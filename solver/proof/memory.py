"""Large scratch arrays whose pages are faulted in once per process and kept.

The prover's buffers (listing a class, sorting its rows, the tree's arena)
are touched in full by a large class and kept for the next, so what they cost
is the kernel's faulting their pages in, once per process. numpy asks for
transparent huge pages on large arrays; on the machine measured (a virtual
machine), a huge page touched for the first time cost several times what its
512 small pages do, and the huge pages saved the tree's random reads no
measurable time (benchmarks/results/prove.md, "Waiting less on memory"), so these
buffers ask for small pages.
"""

from __future__ import annotations

import mmap

import numpy as np


def small_pages(shape: tuple[int, ...] | int, dtype) -> np.ndarray:
    """An uninitialised array of anonymous memory in small pages; untouched, it costs address
    space only."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    if hasattr(mmap, "MAP_PRIVATE"):
        block = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    else:  # Windows: anonymous memory, no flags
        block = mmap.mmap(-1, max(size, 1))
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        block.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(block, dtype, count=size // dtype.itemsize).reshape(shape)
