"""Scoring backends: the one seam through which batches of boards are scored.

A `Scorer` is bound to one lexicon and owns its workers (threads today; a GPU
or a cluster later); `score_codes(codes, shape)` scores a (boards, cells)
array of letter codes and `close()` releases the workers. Batch scoring,
search, rearrangement and the game all score through a Scorer, so a new
backend is one module and one entry in BACKENDS.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import ParameterError

if TYPE_CHECKING:
    from ..board import Shape
    from ..charset import Charset
    from ..engine import Walk


class Lexicon(Protocol):
    """What a backend needs of a lexicon (any format's `Lexicon` is one): the walk of its format,
    its charset, and the check that its mapped files are unchanged."""

    walk: Walk
    charset: Charset

    def check_unchanged(self) -> None: ...


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_jobs(jobs: int) -> int:
    """Workers for a `jobs` value, the same rule everywhere: 0 means one per core, N means at
    most N, capped at the cores (more would only compete)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ParameterError("jobs", f"must be 0 (all cores) or a positive number of threads, got {jobs!r}")
    return min(jobs, usable_cores()) if jobs else usable_cores()


class Scorer(ABC):
    """Scores batches of boards of one lexicon. Use as a context manager, or call close()."""

    name = ""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon

    @abstractmethod
    def score_codes(self, codes: np.ndarray, shape: Shape,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Scores of boards given as a (boards, cells) array of letter indices into the
        lexicon's charset (`kernels.NO_LETTER` for a blank cell, two-letter faces encoded as
        `board.encode` does); `progress(n)` is called as n more boards are done."""

    def close(self) -> None:  # noqa: B027 (a backend without workers has nothing to release)
        """Release the workers; the scorer must not be used afterwards."""

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cpu(lexicon: Lexicon, jobs: int) -> Scorer:
    from .cpu import CpuScorer

    return CpuScorer(lexicon, jobs)


def _cuda(lexicon: Lexicon, jobs: int) -> Scorer:
    from .cuda import CudaScorer

    return CudaScorer(lexicon, jobs)


BACKENDS: dict[str, Callable[[Lexicon, int], Scorer]] = {"cpu": _cpu, "cuda": _cuda}
DEVICES = ("cpu", "cuda", "auto")


def cuda_available() -> tuple[bool, str]:
    """(True, what runs the CUDA kernels) or (False, why the CUDA backend cannot run here)."""
    from .cuda import availability

    return availability()


def choose_backend(device: str) -> tuple[str, str | None]:
    """The backend for a `device` choice ("cpu", "cuda" or "auto") and, when "auto" falls back to
    the CPU, a line saying why. "cuda" is taken as asked: opening its scorer fails with the reason
    when it cannot run."""
    if device not in DEVICES:
        raise ParameterError("device", f"unknown device {device!r} (choose from {', '.join(DEVICES)})")
    if device != "auto":
        return device, None
    usable, reason = cuda_available()
    return ("cuda", None) if usable else ("cpu", f"the CUDA backend cannot run: {reason}; scoring on the CPU")


def open_scorer(lexicon: Lexicon, backend: str = "cpu", jobs: int = 0) -> Scorer:
    """A scorer of `lexicon` on `backend` with `jobs` workers (0 = all cores)."""
    if backend not in BACKENDS:
        raise ParameterError("backend", f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    return BACKENDS[backend](lexicon, resolve_jobs(jobs))
