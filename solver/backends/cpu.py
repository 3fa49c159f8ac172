"""The CPU backend: the numba-compiled batch drivers on a pool of exactly `jobs` threads.

Each thread scores its own chunks of boards with its own stamps, because the
drivers release the GIL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import kernels
from ..board import Shape, card_table
from ..charset import Charset
from ..engine import Walk, checked_codes, neighbour_bits_array
from . import Lexicon, Scorer

CHUNK = 512  # boards per task: small enough for progress and balance, large enough to amortise


class _Scratch(threading.local):
    """Per-thread work space kept between calls: stamps (grown to the largest word-id range
    seen; larger is harmless) and the next unused stamp value, so no call clears anything."""

    def __init__(self) -> None:
        self.stamps = np.zeros(0, np.uint32)
        self.stack = np.zeros(kernels.FRAME * 64, np.int64)
        self.next_stamp = 1

    def take(self, id_count: int, boards: int) -> int:
        """Make room for `id_count` word ids and reserve `boards` stamps; returns the first."""
        if len(self.stamps) < id_count:
            self.stamps = np.zeros(id_count, np.uint32)
            self.next_stamp = 1
        if self.next_stamp + boards >= 2**32:
            self.stamps[:] = 0
            self.next_stamp = 1
        first = self.next_stamp
        self.next_stamp += boards
        return first


_scratch = _Scratch()


def score_in_threads(walk: Walk, codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset,
                threads: int = 1, pool: ThreadPoolExecutor | None = None,
                progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Scores of boards given as a (B, cells) array of letter indices (NO_LETTER = unusable cell),
    with the compiled kernels on the `threads` threads of `pool` (None: in this thread).

    The boards are cut into chunks, at least four per thread so that threads finish
    together, at most CHUNK boards so that progress is reported often.
    """
    from .. import jit

    shape, codes = checked_codes(codes, shape, charset)
    if len(codes) == 0:
        return np.zeros(0, np.int64)
    bits = neighbour_bits_array(shape)
    q_code = charset.letters.find("q")
    card = card_table(shape.cells)
    scores = np.zeros(len(codes), np.int64)
    batch = jit.batch_driver(walk.board_kernel)

    def run(lo: int, hi: int) -> int:
        first_stamp = _scratch.take(walk.id_count, hi - lo)
        batch(walk.inputs, codes[lo:hi], q_code, bits, card, _scratch.stack, _scratch.stamps,
              first_stamp, scores[lo:hi])
        return hi - lo

    chunk = max(1, min(CHUNK, -(-len(codes) // (4 * threads))))
    spans = [(lo, min(lo + chunk, len(codes))) for lo in range(0, len(codes), chunk)]
    done_counts = (pool.map if pool is not None and len(spans) > 1 else map)(lambda span: run(*span), spans)
    for done in done_counts:
        if progress:
            progress(done)
    return scores


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
        scores = score_in_threads(self.lexicon.walk, codes, shape, self.lexicon.charset, self.jobs, self._pool,
                             progress)
        self.lexicon.check_unchanged()  # a mapped file changed under the batch: fail, never serve it
        return scores

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
