"""Boards per second of the solver, per format and --jobs, beside native baselines in the same run.

Run from the repository root: python benchmarks/solver_bench.py [--runs 3]
Writes benchmarks/results/solver.md.

Workloads (PRODUCT.md, issue 3):
  (a) ../shared/reference/jpa14/random10k.txt with the JPA14 ADTDAWG
      (the reference files and our build of TWL06 at --charset 14);
  (b) ../shared/bench/dice4x4-10k.txt and dice5x5-10k.txt with full TWL06.
Figures are the best of N runs of `Lexicon.score_many` on the board strings
(parsing included, compiled code already loaded), one job and two. The C and
C++ baselines in benchmarks/baselines (our own implementations of the seed-000
ADTDAWG solver and of a classic 26-way trie solver) run on the same boards in
the same run, and their scores are checked against ours. Last, the end-to-end
time of `dawg-solve FILE BOARD` for one board, warm (median of 15 runs).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

from common import REPO, machine, shared, write_results

sys.path.insert(0, str(REPO / "benchmarks"))

BARS = {"random10k.txt": 21_000, "dice4x4-10k.txt": 46_000, "dice5x5-10k.txt": 15_200}
CHAMPION = "RSLCSDEIAEGNTRPATESESMIDR"


def rate(lex, boards: list[str], jobs: int, runs: int) -> tuple[float, np.ndarray]:
    scores = lex.score_many(boards[:100], jobs=jobs)  # load compiled code, start threads
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        scores = lex.score_many(boards, jobs=jobs)
        best = min(best, time.perf_counter() - started)
    return len(boards) / best, scores


def single_board_seconds(directory: Path, runs: int = 15) -> float:
    command = [sys.executable, "-m", "boggle_dawg.solve_cli", str(directory), CHAMPION]
    subprocess.run(command, capture_output=True, check=True, cwd=REPO)  # warm the OS cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, cwd=REPO)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset
    from boggle_dawg.solver.lexicon import open_lexicon

    from baselines.build import best_of, compile_all

    tmp = Path(tempfile.mkdtemp(prefix="solver-bench-"))
    jpa = build_lexicon(shared("lexicons", "twl06.txt"), parse_charset("14"), tmp / "twl06-14").out_dir
    full = build_lexicon(shared("lexicons", "twl06.txt"), parse_charset("26"), tmp / "twl06-26").out_dir
    reference = shared("reference", "jpa14")
    executables = compile_all(REPO / "build" / "baselines")

    workloads = [
        (shared("reference", "jpa14", "random10k.txt"),
         [("reference ADTDAWG", reference, "adtdawg"), ("TWL06/JPA14 adtdawg", jpa, "adtdawg"),
          ("TWL06/JPA14 dawg", jpa, "dawg"), ("TWL06/JPA14 trie", jpa, "trie")],
         ("C, seed-000 ADTDAWG (ours, gcc -O3)", executables["adtdawg_seed000"], [str(reference)])),
        (shared("bench", "dice4x4-10k.txt"),
         [("TWL06 trie", full, "trie"), ("TWL06 dawg", full, "dawg"), ("TWL06 adtdawg", full, "adtdawg")],
         ("C++ 26-way trie (ours, g++ -O3)", executables["trie_solver"], [str(shared("lexicons", "twl06.txt"))])),
        (shared("bench", "dice5x5-10k.txt"),
         [("TWL06 trie", full, "trie"), ("TWL06 dawg", full, "dawg"), ("TWL06 adtdawg", full, "adtdawg")],
         ("C++ 26-way trie (ours, g++ -O3)", executables["trie_solver"], [str(shared("lexicons", "twl06.txt"))])),
    ]

    lines = [
        "# Solver benchmark",
        "",
        f"Measured {date.today()} with `python benchmarks/solver_bench.py --runs {args.runs}` on: {machine()}.",
        "",
        f"Boards per second, best of {args.runs} runs of `Lexicon.score_many(board strings, jobs=N)` "
        "(board parsing included; compiled code loaded before timing). Baselines: best of "
        f"{args.runs} runs, their own timing of the scoring loop only (loading not timed); "
        "their scores are checked equal to ours.",
        "",
    ]
    for boards_file, lexicons, (base_name, base_exe, base_args) in workloads:
        boards = boards_file.read_text().split()
        bar = BARS[boards_file.name]
        lines += [f"## {boards_file.name} ({len(boards):,} boards; bar: {bar:,} boards/s on one core)", "",
                  "| solver | 1 job | 2 jobs | 2 jobs / 1 job | vs bar (1 job) |", "|---|---:|---:|---:|---:|"]
        expected = None
        for name, directory, fmt in lexicons:
            lex = open_lexicon(directory, fmt)
            one, scores = rate(lex, boards, 1, args.runs)
            two, scores2 = rate(lex, boards, 2, args.runs)
            if expected is None:
                expected = scores
            assert np.array_equal(scores, expected) and np.array_equal(scores2, expected), name
            lines.append(f"| {name} | {one:,.0f} | {two:,.0f} | {two / one:.2f} | {one / bar:.2f}x |")
            print(f"{boards_file.name} {name}: {one:,.0f} / {two:,.0f} boards/s", file=sys.stderr)
        base_scores, base_rate, _ = best_of(base_exe, [*base_args, str(boards_file)], args.runs)
        agree = "scores agree" if base_scores == expected.tolist() else "SCORES DIFFER"
        lines += [f"| {base_name} | {base_rate:,.0f} | | | {base_rate / bar:.2f}x |", "",
                  f"Baseline {agree} with ours on all {len(boards):,} boards.", ""]
        print(f"{boards_file.name} {base_name}: {base_rate:,.0f} boards/s ({agree})", file=sys.stderr)

    lines += ["## One board, end to end", "",
              f"`dawg-solve DIR {CHAMPION}` in a fresh interpreter, warm OS cache and numba cache, "
              "median of 15 runs (bar: under 0.3 s):", ""]
    for name, directory in (("TWL06 (trie, 26 letters)", full), ("TWL06/JPA14 (trie)", jpa),
                            ("reference ADTDAWG", reference)):
        seconds = single_board_seconds(directory)
        lines.append(f"- {name}: {seconds:.3f} s")
        print(f"single board {name}: {seconds:.3f} s", file=sys.stderr)
    path = write_results("boggle_dawg.solver.md", "\n".join(lines) + "\n")
    print(path)


if __name__ == "__main__":
    main()
