"""CUDA backend benchmark (issue 11): boards/s on the GPU beside the CPU backend on all cores, and search.

Run from the repository root on a machine with an NVIDIA GPU and the cuda extra:

    python benchmarks/cuda_bench.py                 # writes benchmarks/results/cuda.md
    python benchmarks/cuda_bench.py --quick         # 100,000 rolled boards, 1 run, short searches; prints

Without a usable GPU it refuses with one line and exit status 1: the CUDA
simulator runs the same kernels on the CPU, slowly, and its figures would mean
nothing. (`--simulator-smoke`, under NUMBA_ENABLE_CUDASIM=1, runs every part on
tiny sizes to check the script itself (a few minutes), and prints without writing.)

Full TWL06 (and ENABLE2K for the 4x4 target), trie format, built here:
  (a) ../shared/bench/dice4x4-10k.txt and dice5x5-10k.txt: the GPU's scores
      must equal the CPU backend's; end-to-end `Lexicon.score_many` boards/s
      (board parsing included) on each;
  (b) --boards boards rolled from the classic (4x4) and big (5x5) dice: the
      scores must equal the CPU backend's; kernel-only boards/s
      (`CudaScorer.kernel_seconds`: boards already on the device, scores left
      there), end-to-end `score_codes` boards/s (both copies included), and
      the CPU backend's `score_codes` on all cores in the same run;
  (c) search with the `steepest` method on the GPU (changes made and scored
      on the device): boards/s on 5x5 TWL06 over the full alphabet, and the
      seconds to reach 3,625 on ENABLE2K 4x4 and 10,769 on TWL06 5x5, per
      seed, capped at --cap seconds.
Timings are min / median / max over --runs runs after a warm-up run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.backends import cuda_available, open_scorer
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.charset import Charset, parse_charset
from boggle_dawg.solver.dice_sets import load_dice
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import Budget, search

from common import Conditions, Stats, shared, stats_cells, write_results

TARGETS = [("enable2k", Shape(4, 4), 3_625), ("twl06", Shape(5, 5), 10_769)]
ROLLED = [("classic", Shape(4, 4)), ("big", Shape(5, 5))]
BENCH_FILES = ["dice4x4-10k.txt", "dice5x5-10k.txt"]


def roll(dice_name: str, shape: Shape, count: int, charset: Charset, seed: int) -> np.ndarray:
    """`count` boards rolled from a dice set as cell codes: the dice shuffled over the cells,
    each showing a random face (vectorised; the same distribution as `dice_sets.roll`)."""
    dice = load_dice(dice_name).dice
    table = np.array([[charset.cell_code(f) for f in die] for die in dice], np.int64)
    rng = np.random.default_rng(seed)
    order = rng.permuted(np.tile(np.arange(len(dice)), (count, 1)), axis=1)[:, :shape.cells]
    return table[order, rng.integers(0, table.shape[1], order.shape)]


def timed(function, runs: int) -> tuple[Stats, object]:
    """Seconds of `runs` calls after one warm-up call, and the last call's result."""
    result = function()
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - started)
    return Stats.of(seconds), result


def rates(seconds: Stats, items: int) -> Stats:
    return Stats(items / seconds.max, items / seconds.median, items / seconds.min)


def row(name: str, stats: Stats, extra: str = "") -> str:
    return f"| {name} | {stats_cells(stats)} | {extra} |"


def part_a(lex, gpu, cpu, runs: int, limit: int | None) -> list[str]:
    lines = ["## (a) bench files, end-to-end `score_many` (parsing included), full TWL06", "",
             "| workload | min | median | max | spread | GPU / CPU (medians) |", "|---|---:|---:|---:|---:|---:|"]
    for name in BENCH_FILES:
        texts = shared("bench", name).read_text().split()[:limit]
        on_gpu, gpu_scores = timed(partial(lex.score_many, texts, scorer=gpu), runs)
        on_cpu, cpu_scores = timed(partial(lex.score_many, texts, scorer=cpu), runs)
        if gpu_scores.tolist() != cpu_scores.tolist():
            sys.exit(f"cuda_bench: GPU and CPU scores differ on {name}")
        gpu_rate, cpu_rate = rates(on_gpu, len(texts)), rates(on_cpu, len(texts))
        lines.append(row(f"{name}, GPU", gpu_rate, f"{gpu_rate.median / cpu_rate.median:.1f}x"))
        lines.append(row(f"{name}, CPU backend, {cpu.jobs} jobs", cpu_rate))
    return lines + ["", "Scores equal between the GPU and the CPU backend on every board of both files.", ""]


def part_b(lex, gpu, cpu, runs: int, boards: int) -> list[str]:
    lines = [f"## (b) {boards:,} rolled boards, full TWL06", "",
             "| workload | min | median | max | spread | of kernel-only (medians) |", "|---|---:|---:|---:|---:|---:|"]
    for dice, shape in ROLLED:
        codes = roll(dice, shape, boards, lex.charset, seed=1)
        gpu.kernel_seconds(codes, shape)  # warm-up
        kernel_seconds = Stats.of([gpu.kernel_seconds(codes, shape) for _ in range(runs)])
        end_to_end, gpu_scores = timed(partial(gpu.score_codes, codes, shape), runs)
        on_cpu, cpu_scores = timed(partial(cpu.score_codes, codes, shape), max(1, runs // 2))
        if gpu_scores.tolist() != cpu_scores.tolist():
            sys.exit(f"cuda_bench: GPU and CPU scores differ on the rolled {dice} boards")
        kernel_rate = rates(kernel_seconds, boards)
        end_rate, cpu_rate = rates(end_to_end, boards), rates(on_cpu, boards)
        lines.append(row(f"{shape} {dice} dice, GPU kernel only", kernel_rate, "1.00"))
        lines.append(row(f"{shape} {dice} dice, GPU end-to-end `score_codes`", end_rate,
                         f"{end_rate.median / kernel_rate.median:.2f}"))
        lines.append(row(f"{shape} {dice} dice, CPU backend, {cpu.jobs} jobs", cpu_rate,
                         f"{cpu_rate.median / kernel_rate.median:.3f}"))
    return lines + ["", "Scores equal between the GPU and the CPU backend on every rolled board.", ""]


def part_c(lexicons: dict, gpus: dict, seconds: float, cap: float, seeds: int, pool: int) -> list[str]:
    lines = ["## (c) search on the GPU: the steepest method (changes made and scored on the device)", ""]
    result = search(gpus["twl06"], Shape(5, 5), Budget(seconds=seconds), "steepest", seed=1, top=1, pool=pool)
    rate = result.evaluations / result.seconds
    lines += [f"TWL06 5x5, full alphabet, pool {pool:,}: {result.evaluations:,} boards in {result.seconds:.1f} s, "
              f"**{rate:,.0f} boards/s**; best {result.best.score:,} ({result.best.board}).", "",
              "| target | seed | seconds | boards scored | reached |", "|---|---:|---:|---:|---|"]
    for name, shape, target in TARGETS:
        for seed in range(1, seeds + 1):
            found = search(gpus[name], shape, Budget(seconds=cap, target=target), "steepest", seed=seed, top=1,
                           pool=pool)
            reached = "yes" if found.stopped == "target" else f"no (best {found.best.score:,} in {cap:g} s)"
            lines.append(f"| {name} {shape} {target:,} | {seed} | {found.seconds:.1f} | {found.evaluations:,} | "
                         f"{reached} |")
    return lines + [""]


def shown(lines: list[str]) -> list[str]:
    """A part's lines, also printed to stderr as soon as it is done (a later part's failure keeps them)."""
    print("\n".join(lines), file=sys.stderr, flush=True)
    return lines


def cuda_version() -> str:
    try:
        return version("numba-cuda")
    except PackageNotFoundError:
        return "not installed (the simulator)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1_000_000, help="rolled boards per size (default 1,000,000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    parser.add_argument("--search-seconds", type=float, default=30.0, help="the search-rate run (default 30)")
    parser.add_argument("--cap", type=float, default=600.0, help="seconds per run to a target (default 600)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per target (default 3)")
    parser.add_argument("--pool", type=int, default=4096, help="boards climbing side by side (default 4,096)")
    parser.add_argument("--quick", action="store_true", help="100,000 boards, 1 run, short searches; print")
    parser.add_argument("--simulator-smoke", action="store_true",
                        help="under NUMBA_ENABLE_CUDASIM=1: every part on tiny sizes, printed (checks the script)")
    parser.add_argument("--out", default=None, help="results file (default benchmarks/results/cuda.md)")
    args = parser.parse_args()
    usable, device = cuda_available()
    simulator = "simulator" in device
    if not usable or (simulator and not args.simulator_smoke):
        sys.exit(f"cuda_bench: needs a usable NVIDIA GPU and the cuda extra; here: {device}. "
                 f"No figures are measured without one.")
    limit = None
    if args.simulator_smoke:
        args.boards, args.runs, args.search_seconds, args.cap, args.seeds, args.pool, limit = 64, 1, 1.0, 1.0, 1, 1, 32
    elif args.quick:
        args.boards, args.runs, args.search_seconds, args.cap, args.seeds = 100_000, 1, 5.0, 60.0, 1
    conditions = Conditions()
    with tempfile.TemporaryDirectory() as tmp:
        lexicons = {}
        for name in ("twl06", "enable2k"):
            build_lexicon(shared("lexicons", f"{name}.txt"), parse_charset("26"), Path(tmp) / name)
            lexicons[name] = open_lexicon(Path(tmp) / name, "trie")
        gpus = {name: open_scorer(lex, "cuda") for name, lex in lexicons.items()}
        twl06, gpu = lexicons["twl06"], gpus["twl06"]
        with open_scorer(twl06, "cpu", 0) as cpu:
            lines = shown(part_a(twl06, gpu, cpu, args.runs, limit))
            lines += shown(part_b(twl06, gpu, cpu, args.runs, args.boards))
        lines += shown(part_c(lexicons, gpus, args.search_seconds, args.cap, args.seeds, args.pool))
        for scorer in gpus.values():
            scorer.close()
    conditions.finish()
    text = "\n".join(["# CUDA backend benchmark", "", f"GPU: {device}; numba-cuda {cuda_version()}.", "",
                      conditions.header(), "", *lines])
    if args.simulator_smoke or (args.quick and not args.out):
        print(text)
    else:
        print(write_results(args.out or "cuda.md", text))


if __name__ == "__main__":
    main()
