"""Board search benchmarks (issue 5): speed inside the search, time to the best 4x4 board, 5x5 in a time limit.

Run from the repository root:

    python benchmarks/search_bench.py [--parts abc] [--seeds 5] [--cap 600] [--minutes 10] [--jobs 2]

Writes benchmarks/search_results.md (use --out to write elsewhere).

  (a) boards scored per second inside each search method (enable2k 4x4 at
      charset 26, twl06 5x5 at --charset 14), one job and --jobs, beside the
      bare kernel rate on the same kind of boards;
  (b) enable2k 4x4 at charset 26: seconds (and boards scored) until a search
      first reaches 3,625 points, the best score known for that list, per
      method and seed, each run capped at --cap seconds;
  (c) twl06 at --charset 14 on 5x5: the best score each method reaches in
      --minutes on --jobs threads (the issue asks for 10 minutes on 2 cores).

Boards scored until the target is independent of the machine (a search is
a function of its seed); the seconds are not, and the machine may be shared.
The load average is recorded beside each part for that reason.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import METHODS, Budget, search

from common import REPO, machine, shared


def _search(lex, *args, jobs=1, **kwargs):
    with lex.scorer(jobs) as scorer:
        return search(scorer, *args, **kwargs)

BEST_ENABLE2K_4X4 = 3625  # perslatgsineters
CHAMPION_TWL06_5X5 = ("RSLCSDEIAEGNTRPATESESMIDR", 10769)  # seed 000's board, JPA14 lexicon
SPEED_EVALUATIONS = {Shape(4, 4): 400_000, Shape(5, 5): 150_000}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def lscpu() -> str:
    try:
        return "\n".join(subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()[:20])
    except OSError:
        return "(lscpu not available)"


def kernel_rate(lex, shape: Shape, jobs: int, board: str) -> float:
    """Bare `score_codes` rate on single-letter changes of a good board (what a climb scores)."""
    base = np.array(lex.charset.codes(board.lower()), np.int64)
    rng = np.random.default_rng(0)
    codes = np.tile(base, (20_000, 1))
    codes[np.arange(len(codes)), rng.integers(0, shape.cells, len(codes))] = rng.integers(0, len(lex.charset), len(codes))
    lex.score_codes(codes[:600], shape, jobs)
    started = time.perf_counter()
    lex.score_codes(codes, shape, jobs)
    return len(codes) / (time.perf_counter() - started)


def part_a(lexicons: dict, jobs: int) -> list[str]:
    out = ["## (a) Boards scored per second inside the search", "",
           f"Each method runs from seed 1 for a fixed number of boards; {load()} at the start.", "",
           "| lexicon | size | method | 1 job | " + f"{jobs} jobs |", "|---|---|---|---:|---:|"]
    for name, (lex, shape, board) in lexicons.items():
        _search(lex, shape, Budget(rounds=3), "hillclimb", seed=0)  # load compiled code
        rates = [kernel_rate(lex, shape, j, board) for j in (1, jobs)]
        out.append(f"| {name} | {shape} | bare kernel (single changes of a good board) | "
                   f"{rates[0]:,.0f} | {rates[1]:,.0f} |")
        for method in METHODS:
            row = []
            for j in (1, jobs):
                result = _search(lex, shape, Budget(evaluations=SPEED_EVALUATIONS[shape]), method, seed=1, jobs=j)
                row.append(result.evaluations / result.seconds)
            out.append(f"| {name} | {shape} | {method} | {row[0]:,.0f} | {row[1]:,.0f} |")
        print("\n".join(out[-4:]), flush=True)
    out += ["", f"{load()} at the end.", ""]
    return out


def part_b(lex, seeds: int, cap: float, jobs: int) -> list[str]:
    out = [f"## (b) enable2k 4x4 (charset 26): time to first reach {BEST_ENABLE2K_4X4:,} points", "",
           f"Each run: `search(..., Budget(seconds={cap:g}, target={BEST_ENABLE2K_4X4}), method, seed=s, "
           f"jobs={jobs})`, the method's default options; {load()} at the start.", "",
           "| method | seed | reached | seconds | boards scored | best board |", "|---|---:|---|---:|---:|---|"]
    summary = []
    for method in METHODS:
        times = []
        for seed in range(1, seeds + 1):
            result = _search(lex, Shape(4, 4), Budget(seconds=cap, target=BEST_ENABLE2K_4X4), method,
                            seed=seed, jobs=jobs, top=1)
            reached = result.stopped == "target"
            if reached:
                times.append(result.seconds)
            out.append(f"| {method} | {seed} | {'yes' if reached else 'no'} | {result.seconds:.1f} | "
                       f"{result.evaluations:,} | {result.best.board} ({result.best.score}) |")
            print(out[-1], flush=True)
        if times:
            summary.append(f"- {method}: {len(times)}/{seeds} seeds reached {BEST_ENABLE2K_4X4:,}; "
                           f"median {np.median(times):.1f} s, worst {max(times):.1f} s (of those that did)")
        else:
            summary.append(f"- {method}: no seed reached {BEST_ENABLE2K_4X4:,} within {cap:g} s")
    out += [""] + summary + ["", f"{load()} at the end.", ""]
    return out


def part_c(lex, minutes: float, jobs: int, methods: list[str]) -> list[str]:
    board, score = CHAMPION_TWL06_5X5
    out = [f"## (c) twl06 --charset 14, 5x5: best score in {minutes:g} minutes on {jobs} jobs", "",
           f"Seed 000's champion {board} scores {score:,} with this lexicon; {load()} at the start.", "",
           "| method | seed | best | board | first reached after | boards scored |", "|---|---:|---:|---|---:|---:|"]
    for method in methods:
        reached = {}

        def note(status, reached=reached):
            if status.best and status.best.score > reached.get("score", -1):
                reached.update(score=status.best.score, seconds=status.seconds)

        result = _search(lex, Shape(5, 5), Budget(seconds=60 * minutes), method, seed=1, jobs=jobs, top=1,
                        on_round=note)
        out.append(f"| {method} | 1 | {result.best.score:,} | {result.best.board} | {reached['seconds']:.0f} s | "
                   f"{result.evaluations:,} |")
        print(out[-1], flush=True)
    out += ["", f"{load()} at the end.", ""]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="abc", help="which parts to run: any of a, b, c")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per method in (b)")
    parser.add_argument("--cap", type=float, default=600, help="seconds per run in (b)")
    parser.add_argument("--minutes", type=float, default=10, help="minutes per method in (c)")
    parser.add_argument("--c-methods", default="hillclimb", help="comma-separated methods for (c)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "search_results.md")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        enable_dir, twl_dir = Path(tmp) / "enable2k-26", Path(tmp) / "twl06-14"
        build_lexicon(shared("lexicons", "enable2k.txt"), parse_charset("26"), enable_dir)
        build_lexicon(shared("lexicons", "twl06.txt"), parse_charset("14"), twl_dir)
        enable, twl = open_lexicon(enable_dir), open_lexicon(twl_dir)
        report = ["# Board search benchmarks", "",
                  f"{date.today().isoformat()}. Machine: {machine()}", "",
                  "```", "$ lscpu | head -20", lscpu(), "```", "",
                  f"Command: `python benchmarks/search_bench.py {' '.join(sys.argv[1:])}` "
                  f"(lexicons built by `dawgc build enable2k.txt` and `dawgc build twl06.txt --charset 14`; "
                  f"the trie format, the solver's default).", ""]
        if "a" in args.parts:
            report += part_a({"enable2k-26": (enable, Shape(4, 4), "perslatgsineters"),
                              "twl06-14": (twl, Shape(5, 5), CHAMPION_TWL06_5X5[0])}, args.jobs)
        if "b" in args.parts:
            report += part_b(enable, args.seeds, args.cap, args.jobs)
        if "c" in args.parts:
            report += part_c(twl, args.minutes, args.jobs, args.c_methods.split(","))
    args.out.write_text("\n".join(report))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
