"""Large scratch arrays in small pages: allocated once, their pages given back once used, grown in place.

The prover's buffers (listing a class, sorting its rows, the tree's arena) are
allocated once per process and kept, so no class is listed twice for want of
room; a large class gives a buffer's pages back (`release`) as soon as what it
holds has been used, so that it never holds the listing, the sort and the tree
at once (prover.py's memory note has the figures). The arena grows in place
(`grow`). numpy asks for transparent huge pages on large
arrays; on the machine measured (a virtual machine), a huge page touched for
the first time cost several times what its 512 small pages do, and the huge
pages saved the tree's random reads no measurable time
(benchmarks/results/prove.md, "Waiting less on memory"), so these buffers ask
for small pages.
"""

from __future__ import annotations

import mmap

import numpy as np
from numpy.lib.array_utils import byte_bounds


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


def grow(owner: object, name: str, rows: int) -> None:
    """Make the table `owner.name` (2-d, from `small_pages`) `rows` rows long, its contents kept. Its
    mapping is grown by the kernel (mremap: in place, or moved without copying), so a growing table
    is never resident twice, as the old table beside its copy would be. Where the mapping cannot be
    resized (another view of it alive, no mremap), a new table and a copy."""
    table = getattr(owner, name)
    width, dtype = table.shape[1], table.dtype
    block = _block_of(table)
    if block is not None:
        setattr(owner, name, None)
        del table  # a mapping resizes only when no array views it
        try:
            block.resize(rows * width * dtype.itemsize)
        except (BufferError, OSError, SystemError, TypeError, ValueError):
            table = np.frombuffer(block, dtype).reshape(-1, width)
        else:
            setattr(owner, name, np.frombuffer(block, dtype).reshape(rows, width))
            return
    new = small_pages((rows, width), dtype)
    new[:len(table)] = table
    setattr(owner, name, new)


def _block_of(table: np.ndarray) -> mmap.mmap | None:
    """The anonymous mapping under a `small_pages` array (through its views), or None."""
    mapped = _mapped(table)
    return None if mapped is None else mapped[0]


def _mapped(table: np.ndarray) -> tuple[mmap.mmap, int] | None:
    """The anonymous mapping under a `small_pages` array (through its views) and the address it
    starts at, or None."""
    base, whole = table, table
    while isinstance(base, np.ndarray):
        whole, base = base, base.base
    mapping = base.obj if isinstance(base, memoryview) else base
    if not isinstance(mapping, mmap.mmap):
        return None
    return mapping, whole.__array_interface__["data"][0]


def release(table: np.ndarray) -> None:
    """Give the pages that lie wholly under `table` (a `small_pages` array or a view of one) back to
    the system (MADV_DONTNEED), keeping the address space: they read as zeros afterwards, and the
    next write faults fresh pages in. A view of rows gives back the pages from its first element
    to its last (rows between them included). Where madvise is missing (not Linux) the pages stay."""
    mapped = _mapped(table)
    if mapped is None or not hasattr(mmap, "MADV_DONTNEED") or table.size == 0:
        return
    block, start = mapped
    low, high = byte_bounds(table)
    first = -(-(low - start) // mmap.PAGESIZE) * mmap.PAGESIZE
    end = len(block) if high - start >= len(block) else (high - start) // mmap.PAGESIZE * mmap.PAGESIZE
    if end > first:
        block.madvise(mmap.MADV_DONTNEED, first, end - first)
