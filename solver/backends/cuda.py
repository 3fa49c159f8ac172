"""The CUDA backend: trie lexicons scored on an NVIDIA GPU (kernels in `cuda_kernels`).

Optional. On a real GPU it needs the `cuda` extra (numba-cuda) and the NVIDIA
driver; under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set before numba is
imported) numba's own simulator runs the same kernels on the CPU, slowly, which
is how they are tested without a GPU. `availability()` says whether it can run
and, if not, why. numba.cuda is imported only when that is asked or a scorer
is opened, never by importing `solver.backends`.

Sizes follow ../shared/docs/gpu.md: a persistent grid of about THREADS_PER_SM threads on
every multiprocessor, fewer when the per-thread found-word bitmaps would take
more than BITMAP_SHARE of the free device memory.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ..board import Shape, neighbour_table
from ..board_walk import checked_codes
from ..errors import DawgError, ParameterError
from ..rules import Rules
from . import Scorer, Trie, WalkableLexicon, usable_cores

if TYPE_CHECKING:
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    from ..charset import Charset

THREADS_PER_SM = 1024  # ../shared/docs/gpu.md: best; 2,048 halved the speed (the stacks spilled out of L1)
MAX_BLOCK = 256  # threads per block at most
SHARED_BYTES = 48 * 1024  # static shared memory one block may use
BITMAP_SHARE = 0.5  # of the free device memory, for the found-word bitmaps
TOUCHED_PER_THREAD = 256  # bitmap words listed per board; more and the whole bitmap is cleared
BATCH = 1 << 20  # work items (boards, or changes of boards) per launch: bounds a launch's memory and time
SIMULATOR_GRID = (2, 32)  # blocks, threads per block under the simulator (each thread is a Python thread)
MAX_NODES = 1 << 31  # the shared-memory stack keeps node indices in 32 signed bits
MAX_DEPTH = 64  # a path has at most 64 cells
PARALLEL_CHECK_ROWS = 1 << 16  # boards from which the host checks a batch's codes on every core


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()).rstrip(": ") or type(err).__name__


def simulated() -> bool:
    """Whether numba.cuda is (or will be) the CUDA simulator."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


@cache
def availability() -> tuple[bool, str]:
    """(True, what runs the kernels) or (False, why the CUDA backend cannot run here)."""
    if simulated():
        from numba import cuda  # noqa: F401 (loads the simulator)

        return True, "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    if importlib.util.find_spec("numba_cuda") is None:
        return False, "numba-cuda is not installed (the cuda extra: pip install 'boggle-dawg[cuda]')"
    if not hasattr(np, "row_stack"):
        # numba-cuda 0.30.4 registers an overload of np.row_stack, which numpy 2.5 removed; it is
        # np.vstack under another name (../shared/docs/gpu.md, pitfalls).
        np.row_stack = np.vstack
    try:
        from numba import cuda

        cuda.current_context()
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    except Exception as err:  # noqa: BLE001 (any failure to reach a GPU means the same: no GPU here)
        return False, f"no usable GPU: {_one_line(err)}"
    return True, f"{name} ({device.MULTIPROCESSOR_COUNT} SMs)"


def block_size(depth: int, wide: bool = False) -> int:
    """Threads per block: the largest power of two up to MAX_BLOCK whose stacks fit the block's
    shared memory."""
    from .cuda_kernels import frame_words

    block = MAX_BLOCK
    while block > 32 and block * frame_words(wide) * depth * 4 > SHARED_BYTES:
        block //= 2
    return block


def trie_of(lexicon: WalkableLexicon) -> Trie:
    """The lexicon's nodes as a trie; DawgError for a format that holds none."""
    trie = lexicon.as_trie()
    if trie is None:
        raise DawgError(f"the CUDA backend scores trie lexicons only, and this one is {lexicon.format or 'not a trie'}")
    return trie


def usable_trie(lexicon: WalkableLexicon) -> tuple[Trie, str]:
    """The lexicon's trie and what runs the kernels; DawgError when the CUDA backend cannot
    score `lexicon` here (the one check, for batches and for one board alike)."""
    trie = trie_of(lexicon)
    usable, reason = availability()
    if not usable:
        raise DawgError(f"the CUDA backend cannot run: {reason}")
    return trie, reason


def checked_int16(codes: np.ndarray, shape: Shape | tuple[int, int], charset: Charset) -> tuple[Shape, np.ndarray]:
    """`checked_codes` as int16, a large batch in blocks of rows over the cores (numpy releases the GIL):
    checked in one thread, a million boards take about as long on the host as the GPU takes to score them."""
    codes, shape = np.asarray(codes), Shape.of(shape)
    if codes.ndim != 2 or codes.shape[1] != shape.cells or len(codes) < PARALLEL_CHECK_ROWS:
        return checked_codes(codes, shape, charset, np.int16)
    step = -(-len(codes) // usable_cores())
    with ThreadPoolExecutor(usable_cores()) as pool:
        parts = list(pool.map(lambda lo: checked_codes(codes[lo:lo + step], shape, charset, np.int16)[1],
                              range(0, len(codes), step)))
    return shape, np.concatenate(parts)


class CudaScorer(Scorer):
    """Scores trie boards on the GPU (or the simulator). `jobs` does not apply: the grid is sized
    from the device. The trie, the word index and the bitmaps stay on the device until close()."""

    name = "cuda"

    def __init__(self, lexicon: WalkableLexicon, jobs: int, rules: Rules) -> None:
        super().__init__(lexicon, rules)
        trie, reason = usable_trie(lexicon)
        if trie.count >= MAX_NODES:
            raise DawgError(f"{lexicon.path}: {trie.count:,} trie nodes; the CUDA backend takes fewer than "
                            f"{MAX_NODES:,}")
        from numba import cuda

        from . import cuda_kernels

        self.device = reason
        words = np.ascontiguousarray(trie.nodes).view(np.int64)
        ends = words[::trie.layout.words] < 0
        wide = trie.layout.words > 1
        self.depth = max(1, min(trie.height, MAX_DEPTH))
        self.block = SIMULATOR_GRID[1] if simulated() else block_size(self.depth, wide)
        self.bitmap_words = max(1, -(-int(ends.sum()) // 32))
        self.max_blocks = self._blocks()
        threads = self.max_blocks * self.block
        self._kernels = {changes: cuda_kernels.scoring_kernel(self.depth, self.block, changes, wide, THREADS_PER_SM)
                         for changes in (False, True)}
        self._nodes = cuda.to_device(words)
        self._word_index = cuda.to_device((np.cumsum(ends) - 1).astype(np.int32))
        self._bitmap = cuda.device_array(self.bitmap_words * threads, np.uint32)
        self._touched = cuda.device_array(TOUCHED_PER_THREAD * threads, np.int32)
        cuda_kernels.zero_fill[self.max_blocks, self.block](self._bitmap)
        self._shapes: dict[Shape, tuple[DeviceNDArray, ...]] = {}
        self._no_letters = cuda.to_device(np.zeros(1, np.int64))  # unused when no letters are asked for
        self._code_len = cuda.to_device(rules.code_lengths(lexicon.charset))

    def _blocks(self) -> int:
        """Blocks of the persistent grid: THREADS_PER_SM threads on every multiprocessor, fewer
        if their bitmaps would not fit in BITMAP_SHARE of the free device memory."""
        if simulated():
            return SIMULATOR_GRID[0]
        from numba import cuda

        sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
        free = cuda.current_context().get_memory_info()[0]
        per_block = self.block * 4 * (self.bitmap_words + TOUCHED_PER_THREAD)
        blocks = min(sms * THREADS_PER_SM // self.block, int(free * BITMAP_SHARE) // per_block)
        if blocks < 1:
            raise DawgError(f"the CUDA backend needs {per_block:,} bytes of device memory for one block of "
                            f"found-word bitmaps; {free:,} are free")
        return blocks

    def _shape_tables(self, shape: Shape) -> tuple[DeviceNDArray, ...]:
        """The neighbour table, neighbour counts and score card of a shape, on the device (the
        rules' card with no word's length at 0 points: the device only sums points)."""
        if shape not in self._shapes:
            from numba import cuda

            table, count = neighbour_table(shape)
            card = np.maximum(self.rules.card(shape.cells * self.lexicon.charset.cell_letters), 0)
            self._shapes[shape] = (cuda.to_device(table), cuda.to_device(count), cuda.to_device(card.astype(np.int32)))
        return self._shapes[shape]

    def score_codes(self, codes: np.ndarray, shape: Shape,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
        shape, codes = checked_int16(codes, shape, self.lexicon.charset)
        scores = np.zeros(len(codes), np.int64)
        for lo in range(0, len(codes), BATCH):
            part = codes[lo:lo + BATCH]
            scores[lo:lo + len(part)] = self._launch(self._to_device(part), shape, len(part), self._no_letters,
                                                     0).copy_to_host()
            if progress:
                progress(len(part))
        self.lexicon.check_unchanged()  # a mapped file changed under the batch: fail, never serve it
        return scores

    def best_changes(self, codes: np.ndarray, shape: Shape,
                     alphabet: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As `Scorer.best_changes`, with the changes made and scored on the device: only the
        boards go there and only each board's best change comes back."""
        from numba import cuda

        from .cuda_kernels import VARIANT_BITS, VARIANT_MASK

        shape, codes = checked_int16(codes, shape, self.lexicon.charset)
        alphabet = np.asarray(alphabet, np.int64)
        if not len(alphabet):
            raise ParameterError("alphabet", "needs at least one letter")
        letters = len(alphabet)
        variants = shape.cells * letters
        packed = np.zeros(len(codes), np.int64)
        on_device = cuda.to_device(alphabet)
        step = max(1, BATCH // variants)
        for lo in range(0, len(codes), step):
            part = codes[lo:lo + step]
            packed[lo:lo + len(part)] = self._launch(self._to_device(part), shape, len(part) * variants, on_device,
                                                     letters).copy_to_host()
        self.lexicon.check_unchanged()
        variant = np.where(packed < 0, 0, VARIANT_MASK - (packed & VARIANT_MASK))
        scores = np.where(packed < 0, -1, packed >> VARIANT_BITS)
        return scores, variant // letters, alphabet[variant % letters]

    def kernel_seconds(self, codes: np.ndarray, shape: Shape) -> float:
        """Wall seconds of the scoring kernel alone over `codes`: the boards are on the device
        before the clock starts and the scores stay there (what the benchmarks call kernel-only).
        The first call of a scorer includes compiling the kernel."""
        from numba import cuda

        shape, codes = checked_int16(codes, shape, self.lexicon.charset)
        on_device = self._to_device(codes)
        cuda.synchronize()
        started = time.perf_counter()
        self._launch(on_device, shape, len(codes), self._no_letters, 0)
        cuda.synchronize()
        return time.perf_counter() - started

    @staticmethod
    def _to_device(codes: np.ndarray) -> DeviceNDArray:
        """Checked int16 codes (`checked_int16`) on the device."""
        from numba import cuda

        return cuda.to_device(codes)

    def _launch(self, codes: DeviceNDArray, shape: Shape, items: int, alphabet: DeviceNDArray,
                letters: int) -> DeviceNDArray:
        """Start the kernel over `items` work items of the boards `codes` (the boards, or with
        `letters` > 0 their changes to the first `letters` of `alphabet`); returns the device
        array of its result per board: int32 scores, or int64 packed best changes."""
        from numba import cuda

        table, count, card = self._shape_tables(shape)
        blocks = min(self.max_blocks, -(-items // self.block))
        threads = blocks * self.block
        changes = letters > 0
        scores = cuda.device_array(1 if changes else len(codes), np.int32)
        best = cuda.to_device(np.full(len(codes) if changes else 1, -1, np.int64))
        self._kernels[changes][blocks, self.block](
            self._nodes, self._word_index, codes, self._code_len, table, count, card,
            self._bitmap[:self.bitmap_words * threads], self._touched[:TOUCHED_PER_THREAD * threads],
            cuda.to_device(np.zeros(1, np.int32)), scores, alphabet, letters, best)
        return best if changes else scores

    def close(self) -> None:
        self._nodes = self._word_index = self._bitmap = self._touched = self._no_letters = self._code_len = None
        self._shapes.clear()
