"""Proof benchmarks (issue 9): full proofs of small shapes and the per-class rate of larger ones.

Run from the repository root:

    python benchmarks/prove_bench.py [--lexicon DIR] [--size 3x3] [--min-score 545 [500 ...]]
                                     [--sample N | --board B] [--seed S] [--classes SPEC] [--out FILE]

Without --sample, proves every canonical class of the shape for each
--min-score, in this one process (one core), and reports wall time,
CPU-seconds, classes, bounds computed, boards scored exactly and the best
boards. With --board B, proves only the class holding board B. With --sample N, proves only the first N canonical classes of the
seeded shuffled order (the order `prove` uses) and reports the per-class
CPU-seconds (mean, median, max) and the projected CPU-seconds of the whole
proof (mean x canonical classes: an estimate, since a few classes dominate).
The lexicon defaults to ENABLE2K compiled from ../shared into a temporary
directory. Appends a section to the results file (default
benchmarks/results/prove.md).
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import parse_size
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import make_plan, prove, prove_class

from common import RESULTS, commit, format_load, load_average, machine, shared


def _lexicon(path: str | None):
    if path:
        return open_lexicon(path), path
    out = Path(tempfile.mkdtemp(prefix="prove-bench-")) / "enable2k"
    build_lexicon(shared("lexicons", "enable2k.txt"), parse_charset("26"), out)
    return open_lexicon(out), "ENABLE2K (../shared/lexicons/enable2k.txt, charset 26)"


def full(lex, shape, min_score: int, classes: str | None, seed: int) -> list[str]:
    load = load_average()
    result = prove(lex, shape, min_score, classes=classes, seed=seed)
    best = ", ".join(f"`{b}` {s:,}" for b, s in result.boards[:3]) or "none"
    return [f"| {shape} | {min_score:,} | {len(result.boards):,} | {best} | {result.classes:,} | {result.nodes:,} | "
            f"{result.scored:,} | {result.seconds:,.1f} | {result.cpu_seconds:,.1f} | {format_load(load)} / "
            f"{format_load(load_average())} |"]


def sample(lex, shape, min_score: int, classes: str | None, seed: int, count: int) -> list[str]:
    plan = make_plan(lex, shape, classes)
    ids = plan.canonical_ids()
    random.Random(seed).shuffle(ids)
    prove_class(lex, plan, ids[0], min_score)  # compile / load the kernels first
    load = load_average()
    cpu, found, nodes = [], [], 0
    wall = time.perf_counter()
    for class_id in ids[:count]:
        start = time.process_time()
        record = prove_class(lex, plan, class_id, min_score)
        cpu.append(time.process_time() - start)
        found += record.boards
        nodes += record.nodes
    wall = time.perf_counter() - wall
    mean = statistics.fmean(cpu)
    return [f"| {shape} | `{plan.spec()}` | {min_score:,} | {len(ids):,} | {count:,} (seed {seed}) | "
            f"{sum(cpu):,.1f} | {wall:,.1f} | {mean:.3f} / {statistics.median(cpu):.3f} / {max(cpu):.2f} | "
            f"{nodes:,} | {mean * len(ids):,.0f} | {len(found)} | {format_load(load)} / "
            f"{format_load(load_average())} |"]


def one_class(lex, shape, min_score: int, classes: str | None, board: str) -> list[str]:
    plan = make_plan(lex, shape, classes)
    class_id = plan.class_of(board)
    prove_class(lex, plan, plan.canonical_ids()[0], min_score)  # compile / load the kernels first
    load = load_average()
    start = time.process_time()
    record = prove_class(lex, plan, class_id, min_score)
    cpu = time.process_time() - start
    found = ", ".join(f"`{b}` {s:,}" for b, s in record.boards) or "none"
    return [f"| {shape} | `{board}`: {plan.describe(class_id)} | {min_score:,} | {record.bound:,} | {found} | "
            f"{record.nodes:,} | {record.scored:,} | {record.seconds:.1f} | {cpu:.1f} | {format_load(load)} / "
            f"{format_load(load_average())} |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lexicon", help="compiled lexicon (default: ENABLE2K built from ../shared)")
    parser.add_argument("--size", default="3x3")
    parser.add_argument("--min-score", type=int, nargs="+", default=[545])
    parser.add_argument("--classes", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=0, help="prove only this many classes and project")
    parser.add_argument("--board", help="prove only the class holding this board")
    parser.add_argument("--out", default=str(RESULTS / "prove.md"))
    args = parser.parse_args()
    lex, name = _lexicon(args.lexicon)
    shape = parse_size(args.size)
    what = (f"the class of {args.board}" if args.board else f"sample of {args.sample} classes" if args.sample
            else "full proof")
    lines = [f"### {shape}, {what}, "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "",
             f"- lexicon: {name}", f"- machine: {machine()}", f"- commit: {commit()}",
             f"- command: `python {' '.join(shlex.quote(a) for a in sys.argv)}`", ""]
    if args.board:
        lines += ["| size | class | min score | class bound | boards found | bounds | scored exactly | wall s | CPU s | "
                  "load before / after |", "|---|---|---|---|---|---|---|---|---|---|"]
        for s in args.min_score:
            lines += one_class(lex, shape, s, args.classes, args.board)
    elif args.sample:
        lines += ["| size | split | min score | canonical classes | sampled | CPU s | wall s | CPU s per class "
                  "(mean / median / max) | bounds | projected CPU s (mean x classes) | boards found | load before / after |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in args.min_score:
            lines += sample(lex, shape, s, args.classes, args.seed, args.sample)
    else:
        lines += ["| size | min score | boards found | best | classes | bounds | scored exactly | wall s | CPU s | "
                  "load before / after |", "|---|---|---|---|---|---|---|---|---|---|"]
        for s in args.min_score:
            lines += full(lex, shape, s, args.classes, args.seed)
    text = "\n".join(lines) + "\n\n"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
