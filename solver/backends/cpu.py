"""The CPU backend: the compiled batch drivers on a pool of exactly `jobs` threads (those compiled
ahead of time where they can be built, which spares the process numba's import, else numba's).

Each thread scores its own chunks of boards with its own stamps, because the
drivers release the GIL. The calling thread only hands out chunks and waits:
compiled code never checks for signals, so a caller that ran a driver itself
could not be interrupted until its board ended, and one board can walk for
ages (a lexicon where every path spells a prefix). Waiting, the caller takes
Ctrl-C at once.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence

import numpy as np

from .. import walk_kernels
from ..board import Shape
from ..board_walk import Walk, checked_codes, neighbour_bits_array
from ..charset import Charset
from ..errors import ParameterError
from ..rules import Rules
from . import Scorer, WalkableLexicon

CHUNK = 512  # boards per task: small enough for progress and balance, large enough to amortise


class _Scratch(threading.local):
    """Per-thread work space kept between calls: stamps (grown to the largest word-id range
    seen; larger is harmless) and the next unused stamp value, so no call clears anything."""

    def __init__(self) -> None:
        self.stamps = np.zeros(0, np.uint32)
        self.stack = np.zeros(walk_kernels.FRAME * 64, np.int64)
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


class Workers:
    """`count` daemon threads that run tasks while the calling thread waits, interruptibly.

    When the wait ends early (Ctrl-C, or a task's error), the tasks not yet started are dropped;
    a thread inside compiled code finishes its board first, and as a daemon it never holds up
    the end of the process."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._tasks: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._serve, name=f"dawg-cpu-{i}", daemon=True)
                         for i in range(count)]
        for thread in self._threads:
            thread.start()

    def _serve(self) -> None:
        while (task := self._tasks.get()) is not None:
            task()

    def run(self, work: Callable[..., int], spans: Sequence[tuple], progress: Callable[[int], None] | None) -> None:
        """`work(*span)` for every span on the threads; `progress(n)` here, in the caller's thread,
        with what each returns. A task's exception is raised here."""
        if not self._threads:  # closed: nothing would ever take the tasks
            raise ParameterError("scorer", "closed; open another (Lexicon.scorer) to score more boards")
        done: queue.SimpleQueue[tuple[int, BaseException | None]] = queue.SimpleQueue()
        dropped = threading.Event()

        def task(span: tuple) -> None:
            if dropped.is_set():
                return
            try:
                done.put((work(*span), None))
            except BaseException as err:  # noqa: BLE001 (handed to the waiting caller, raised there)
                done.put((0, err))

        for span in spans:
            self._tasks.put(lambda span=span: task(span))
        try:
            for _ in spans:
                count, err = done.get()
                if err is not None:
                    raise err
                if progress:
                    progress(count)
        finally:
            dropped.set()

    def close(self) -> None:
        """End the threads once they are idle; the caller does not wait for them."""
        for _ in self._threads:
            self._tasks.put(None)
        self._threads = []


def _driver(walk: Walk, example: tuple) -> Callable:
    """The compiled batch driver of `walk`, given its arguments' types by `example`: the one compiled
    ahead of time where there is one (`solver.aot`: no numba import), else numba's. Both release the GIL."""
    from .. import aot

    driver = aot.batch_driver(walk.board_kernel, example)
    if driver is not None:
        return driver
    from .. import jit

    return jit.batch_driver(walk.board_kernel)


def score_in_threads(walk: Walk, codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset,
                     rules: Rules, workers: Workers, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Scores under `rules` of boards given as a (B, cells) array of letter indices (NO_LETTER =
    unusable cell), with the compiled kernels on the threads of `workers`.

    The boards are cut into chunks, at least four per thread so that threads finish
    together, at most CHUNK boards so that progress is reported often.
    """
    shape, codes = checked_codes(codes, shape, charset)
    if len(codes) == 0:
        return np.zeros(0, np.int64)
    bits = neighbour_bits_array(shape)
    code_len = rules.code_lengths(charset)
    card = rules.card(shape.cells * charset.cell_letters)
    scores = np.zeros(len(codes), np.int64)
    def arguments(lo: int, hi: int, first_stamp: int) -> tuple:
        """The driver's arguments for boards lo..hi, with this thread's work space."""
        return (walk.inputs, codes[lo:hi], code_len, bits, card, _scratch.stack, _scratch.stamps, first_stamp,
                scores[lo:hi])

    batch = _driver(walk, arguments(0, 1, 1))  # its types: the same for every chunk

    def run(lo: int, hi: int) -> int:
        batch(*arguments(lo, hi, _scratch.take(walk.id_count, hi - lo)))
        return hi - lo

    chunk = max(1, min(CHUNK, -(-len(codes) // (4 * workers.count))))
    workers.run(run, [(lo, min(lo + chunk, len(codes))) for lo in range(0, len(codes), chunk)], progress)
    return scores


class CpuScorer(Scorer):
    """Scores on `jobs` threads (the drivers release the GIL) while the caller waits. The
    threads are this scorer's own and end with it."""

    name = "cpu"

    def __init__(self, lexicon: WalkableLexicon, jobs: int, rules: Rules) -> None:
        super().__init__(lexicon, rules)
        self.jobs = jobs
        self._workers = Workers(jobs)

    def score_codes(self, codes: np.ndarray, shape: Shape,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
        scores = score_in_threads(self.lexicon.walk, codes, shape, self.lexicon.charset, self.rules, self._workers,
                                  progress)
        self.lexicon.check_unchanged()  # a mapped file changed under the batch: fail, never serve it
        return scores

    def close(self) -> None:
        self._workers.close()
