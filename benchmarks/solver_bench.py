"""Boards per second of the solver, per format and jobs, beside native baselines in the same run.

Run from the repository root:
    python benchmarks/solver_bench.py            # writes benchmarks/results/solver.md (about 3-5 minutes)
    python benchmarks/solver_bench.py --quick    # smoke run: 2 runs, 2,000 boards, prints the tables

Workloads (PRODUCT.md, issue 3):
  (a) ../shared/reference/jpa14/random10k.txt with the JPA14 ADTDAWG
      (the reference files and our build of TWL06 at --charset 14);
  (b) ../shared/bench/dice4x4-10k.txt and dice5x5-10k.txt with full TWL06.
Each figure is `Lexicon.score_many(board strings, jobs=N)` (parsing included,
compiled code loaded and threads started before timing), repeated and given
as min / median / max boards/s. Within a workload every configuration and the
native baseline run once per round, in rotating order, so a change of load
hits them all alike. The C and C++ baselines in benchmarks/baselines (our own
implementations of the seed-000 ADTDAWG solver and of a classic 26-way trie
solver) run on the same boards and their scores are checked against ours in
every round. The one-board start-up time is benchmarks/startup_bench.py.

`--hybrid DIR` adds the dice workloads' anchor of issue 32: danvk/hybrid-boggle's
`python -m boggle.score` (its C++ Boggler through pybind11), a checkout with its
extension built and its venv in DIR/venv; its figure is the rate it prints for
its own scoring loop (a call and a print per board, loading not timed), and
its scores are checked against ours in every round. `--jpa DIR` adds the JPA14
workload's: danvk/jpa-boggle's `gunsofnavarone` (built with `make gunsofnavarone`
in DIR, run there beside the reference's .dat files), the rate it prints for
its scoring loop, its total score checked against the sum of ours.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from baselines.build import compile_all, run

from common import (
    COMPILER_CLI,
    REPO,
    Conditions,
    Run,
    add_options,
    load_average,
    measure_interleaved,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
    timed_call,
    timed_process,
)

BARS = {"random10k.txt": 21_000, "dice4x4-10k.txt": 46_000, "dice5x5-10k.txt": 15_200}
HYBRID = "hybrid-boggle `boggle.score` (C++ via pybind11, -O3 -march=native)"
JPA = "jpa-boggle `gunsofnavarone` (C++, -O3)"


def build(source: Path, charset: str, out: Path) -> Path:
    timed_process([*COMPILER_CLI, "build", str(source), "--charset", charset, "--out", str(out), "--quiet"])
    return out


def ours(lex, boards: list[str], jobs: int, expected: list[np.ndarray]):
    """A measurement of `score_many` on `boards`; the first scores become the expected ones."""
    lex.score_many(boards[:100], jobs=jobs)  # load compiled code, start threads

    def measurement() -> Run:
        timing, scores = timed_call(lambda: lex.score_many(boards, jobs=jobs))
        if not expected:
            expected.append(scores)
        if not np.array_equal(scores, expected[0]):
            sys.exit(f"scores differ: {lex} with jobs={jobs}")
        return timing
    return measurement


def baseline(exe: Path, args: list[str], boards: list[str], expected: list[np.ndarray]):
    """A measurement of a native baseline; its own timing of the scoring loop (loading not timed)."""
    def measurement() -> Run:
        scores, rate = run(exe, args)
        if expected and scores != expected[0].tolist():
            sys.exit(f"{exe.name}: scores differ from ours")
        return Run(len(boards) / rate)
    return measurement


HYBRID_RATE = re.compile(r"(\d+) boards in [0-9.]+s = ([0-9.]+) boards/s")


def hybrid_boggle(directory: Path, side: int, boards_file: str, boards: list[str], expected: list[np.ndarray]):
    """A measurement of hybrid-boggle's `boggle.score` on full TWL06: the rate it prints for its loop."""
    command = [str(directory / "venv" / "bin" / "python"), "-m", "boggle.score", "--size", f"{side}{side}",
               "--dictionary", str(shared("lexicons", "twl06.txt")), boards_file]

    def measurement() -> Run:
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=600, check=True)
        rate = HYBRID_RATE.search(done.stderr)
        scores = [int(line.rsplit(":", 1)[1]) for line in done.stdout.splitlines()]
        if rate is None or int(rate[1]) != len(boards) or (expected and scores != expected[0].tolist()):
            sys.exit(f"hybrid-boggle: no rate line, or scores that differ from ours: {done.stderr[-300:]}")
        return Run(len(boards) / float(rate[2]))
    return measurement


JPA_RATE = re.compile(r"Scored (\d+) boards in [0-9.]+ seconds \(([0-9.]+) boards/second\)")
JPA_TOTAL = re.compile(r"Total score: (\d+)")


def jpa_boggle(directory: Path, boards_file: str, boards: list[str], expected: list[np.ndarray]):
    """A measurement of jpa-boggle's `gunsofnavarone` on the reference files: the rate it prints for its loop."""
    def measurement() -> Run:
        done = subprocess.run(["./gunsofnavarone", boards_file], cwd=directory, capture_output=True, text=True,
                              timeout=600, check=True)
        rate, total = JPA_RATE.search(done.stderr), JPA_TOTAL.search(done.stdout)
        if rate is None or total is None or int(rate[1]) != len(boards) or \
                (expected and int(total[1]) != int(expected[0].sum())):
            sys.exit(f"jpa-boggle: no rate or total line, or a total that differs from ours: {done.stderr[-300:]}")
        return Run(len(boards) / float(rate[2]))
    return measurement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=5, max_runs=12, quick_runs=2, results="solver.md")
    parser.add_argument("--boards", type=int, default=None,
                        help="use the first N boards of each file (default all; 2,000 with --quick)")
    parser.add_argument("--hybrid", type=Path, help="a built danvk/hybrid-boggle checkout: its scorer beside ours")
    parser.add_argument("--jpa", type=Path, help="a built danvk/jpa-boggle checkout: its solver beside ours")
    args = parser.parse_args()
    if args.quick and args.boards is None:
        args.boards = 2_000
    repeats = repeats_from(args)

    conditions = Conditions()
    import boggle_dawg.solver as solver
    from boggle_dawg.solver.lexicon import open_lexicon

    if not Path(solver.__file__).is_relative_to(REPO):
        sys.exit(f"measuring {solver.__file__}, not this checkout {REPO}")

    tmp = Path(tempfile.mkdtemp(prefix="solver-bench-"))
    twl06 = shared("lexicons", "twl06.txt")
    jpa = build(twl06, "14", tmp / "twl06-14")
    full = build(twl06, "26", tmp / "twl06-26")
    reference = shared("reference", "jpa14")
    executables = compile_all(REPO / "build" / "baselines")

    workloads = [
        (shared("reference", "jpa14", "random10k.txt"),
         [("reference ADTDAWG", reference, "adtdawg"), ("TWL06/JPA14 adtdawg", jpa, "adtdawg"),
          ("TWL06/JPA14 dawg", jpa, "dawg"), ("TWL06/JPA14 trie", jpa, "trie")],
         ("C, seed-000 ADTDAWG (ours, gcc -O3)", executables["adtdawg_seed000"], [str(reference)])),
        (shared("bench", "dice4x4-10k.txt"),
         [("TWL06 trie", full, "trie"), ("TWL06 dawg", full, "dawg"), ("TWL06 adtdawg", full, "adtdawg")],
         ("C++ 26-way trie (ours, g++ -O3)", executables["trie_solver"], [str(twl06)])),
        (shared("bench", "dice5x5-10k.txt"),
         [("TWL06 trie", full, "trie"), ("TWL06 dawg", full, "dawg"), ("TWL06 adtdawg", full, "adtdawg")],
         ("C++ 26-way trie (ours, g++ -O3)", executables["trie_solver"], [str(twl06)])),
    ]

    sections = []
    for boards_file, lexicons, (base_name, base_exe, base_args) in workloads:
        boards = boards_file.read_text().split()[:args.boards]
        board_arg = str(boards_file)
        if args.boards is not None:
            board_arg = str(tmp / boards_file.name)
            Path(board_arg).write_text("\n".join(boards) + "\n")
        expected: list[np.ndarray] = []
        measurements = {}
        for name, directory, fmt in lexicons:
            lex = open_lexicon(directory, fmt)
            for jobs in (1, 2):
                measurements[(name, jobs)] = ours(lex, boards, jobs, expected)
        measurements[(base_name, 1)] = baseline(base_exe, [*base_args, board_arg], boards, expected)
        if args.hybrid is not None and boards_file.name.startswith("dice"):
            side = int(len(boards[0]) ** 0.5)
            measurements[(HYBRID, 1)] = hybrid_boggle(args.hybrid.resolve(), side, board_arg, boards, expected)
        if args.jpa is not None and boards_file.name == "random10k.txt":
            measurements[(JPA, 1)] = jpa_boggle(args.jpa.resolve(), board_arg, boards, expected)

        print(f"{boards_file.name}: {len(measurements)} measurements", file=sys.stderr)
        before = load_average()
        series = measure_interleaved(measurements, repeats, lambda line: print(f"  {line}", file=sys.stderr))
        after = load_average()

        bar = BARS[boards_file.name]
        lines = [f"## {boards_file.name} ({len(boards):,} boards; bar: {bar:,} boards/s on one core)", "",
                 "| solver | jobs | min | median | max | spread | runs | CPU/wall | median / bar | 2 jobs / 1 job |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for (name, jobs), s in series.items():
            rates = s.rates(len(boards))
            share = s.cpu_share()
            scaling = ""
            if jobs == 2:
                scaling = f"{rates.median / series[(name, 1)].rates(len(boards)).median:.2f}"
            lines.append(f"| {name} | {jobs} | {stats_cells(rates)} | {runs_cell(s, repeats)} | "
                         f"{'' if share is None else f'{share:.2f}'} | {rates.median / bar:.2f}x | {scaling} |")
            print(f"  {name}, {jobs} job(s): {rates.median:,.0f} boards/s median "
                  f"({rates.min:,.0f}-{rates.max:,.0f})", file=sys.stderr)
        for anchor, label in ((HYBRID, "hybrid-boggle"), (JPA, "jpa-boggle")):
            if (anchor, 1) in series:
                theirs = series[(anchor, 1)].rates(len(boards)).median
                lines += ["", f"Ours against {label}, median rates of the same rounds: " + "; ".join(
                    f"{name}, {jobs} {'job' if jobs == 1 else 'jobs'}: {s.rates(len(boards)).median / theirs:.2f}x"
                    for (name, jobs), s in series.items() if name not in (anchor, base_name)) + "."]
        lines += ["", f"Baseline scores agree with ours on all {len(boards):,} boards in every run.", "",
                  conditions.note(before, after), ""]
        sections += lines

    conditions.finish()
    text = "\n".join([
        "# Solver benchmark", "",
        conditions.header(), "",
        (f"Boards per second of `Lexicon.score_many(board strings, jobs=N)` (board parsing included; compiled "
        f"code loaded and threads started before timing), {repeats.describe()}; within a workload every "
        "row runs once per round in rotating order. min / median / max are over those runs; spread is "
        "(max - min) / median. CPU/wall is the process's CPU seconds per wall second (median): about the "
        "number of jobs when it had its cores to itself, less when it waited for them. Baselines: their own "
        "timing of the scoring loop only (loading not timed), their scores checked equal to ours in every "
        "run. Compare medians taken in the same run; across runs, compare the load averages too."),
        "", *sections])
    publish(args, text)


if __name__ == "__main__":
    main()
