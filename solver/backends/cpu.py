"""The CPU backend: the numba-compiled batch drivers on a pool of exactly `jobs` threads."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from ..engine import score_codes
from . import Lexicon, Scorer

if TYPE_CHECKING:
    from ..board import Shape


class CpuScorer(Scorer):
    """Scores on `jobs` threads (the drivers release the GIL); one thread scores in the
    caller's thread. The pool is this scorer's own and ends with it."""

    name = "cpu"

    def __init__(self, lexicon: Lexicon, jobs: int) -> None:
        super().__init__(lexicon)
        self.jobs = jobs
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="dawg-cpu") if jobs > 1 else None

    def score_codes(self, codes: np.ndarray, shape: Shape,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
        scores = score_codes(self.lexicon.walk, codes, shape, self.lexicon.charset, self.jobs, self._pool,
                             progress)
        self.lexicon.check_unchanged()  # a mapped file changed under the batch: fail, never serve it
        return scores

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
