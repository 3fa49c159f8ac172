"""Proof benchmarks (issue 9): full proofs of small shapes and the per-class rate of larger ones.

Run from the repository root:

    python benchmarks/prove_bench.py [--lexicon DIR] [--size 3x3] [--min-score 545 [500 ...]]
                                     [--sample N | --board B] [--seed S] [--classes SPEC] [--out FILE]
    python benchmarks/prove_bench.py --size 4x4 --min-score 3625 --classes SPEC --class-ids ID,... [--board B]
                                     [--published DIR] [--rounds R]

Without --sample, proves every canonical class of the shape for each
--min-score, in this one process (one core), and reports wall time,
CPU-seconds, classes, bounds computed, boards scored exactly and the best
boards. With --board B, proves only the class holding board B. With --sample N, proves only the first N canonical classes of the
seeded shuffled order (the order `prove` uses) and reports the per-class
CPU-seconds (mean, median, max) and the projected CPU-seconds of the whole
proof (mean x canonical classes: an estimate, since a few classes dominate).
With --class-ids (and --board), proves each of those classes (the board's:
its canonical class) in a fresh process after a warm-up class, one at a
time on one core, then again in the same process (warm: the memory it
touches already faulted in, as a worker's is from class to class in a
run), and reports
its CPU-seconds both times (the proving thread's), the
process's peak resident set and the class's peak bytes of arrays; with
--published DIR, each class is proved by the published prover too
(danvk/hybrid-boggle, its cpp/ built in DIR and its Python in DIR/venv:
`break_all --break_class` with its defaults, the class given column by
column), interleaved (ours, theirs, ours, theirs, --rounds times) so that
load on the machine falls on both alike; its time is its process's CPU
time (user + system: starting Python and reading its dictionary included)
and, stricter, the break's own seconds (`elapsed_s`, wall time of a
single-threaded break on an otherwise idle core), its memory the peak
resident set of its process.
The lexicon defaults to ENABLE2K compiled from ../shared into a temporary
directory. Appends a section to the results file (default
benchmarks/results/prove.md).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import statistics
import subprocess
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
from boggle_dawg.solver.proof.sample import project

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
    """The first `count` classes of the seed's order, the order `prove --sample` proves, and the
    projection of the whole proof from them (solver.proof.sample: mean x classes, BCa interval)."""
    plan = make_plan(lex, shape, classes)
    ids = list(itertools.islice(plan.canonical_order(seed), count))
    prove_class(lex, plan, plan.canonical_class(0), min_score)  # compile / load the kernels first
    load = load_average()
    records = []
    wall = time.perf_counter()
    for class_id in ids:
        records.append(prove_class(lex, plan, class_id, min_score))
    wall = time.perf_counter() - wall
    cpu = [r.cpu_seconds for r in records]
    p = project({r.class_id: r.cpu_seconds for r in records}, plan.canonical_count(), seed)
    tail = ", ".join(f"{c} {s:.1f}" for c, s in p.tail[:3])
    return [f"| {shape} | `{plan.spec()}` | {min_score:,} | {p.classes:,} | {count:,} (seed {seed}) | "
            f"{sum(cpu):,.1f} | {wall:,.1f} | {p.mean:.2f} / {p.median:.2f} / {max(cpu):.2f} | "
            f"{p.total / 3600:,.0f} ({_hours(p.low)} to {_hours(p.high)}) | {tail} ({p.tail_share:.0%}) | "
            f"{max(r.peak_bytes for r in records) / 1e6:,.0f} | {sum(len(r.boards) for r in records)} | "
            f"{format_load(load)} / {format_load(load_average())} |"]


def _hours(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds / 3600:,.0f}"


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


def _child(lex, shape, min_score: int, classes: str | None, class_id: int) -> None:
    """In a fresh process: a warm-up class (kernels loaded), then `class_id` twice (the second time
    with the memory it touches already faulted in, as in a run, where a worker keeps its buffers
    from class to class); prints its figures."""
    import resource

    plan = make_plan(lex, shape, classes)
    prove_class(lex, plan, plan.canonical_class(0), min_score)
    record = prove_class(lex, plan, class_id, min_score)
    again = prove_class(lex, plan, class_id, min_score)
    print(json.dumps({"cpu": record.cpu_seconds, "warm": again.cpu_seconds,
                      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "arrays": record.peak_bytes, "bound": record.bound, "nodes": record.nodes,
                      "boards": record.boards}))


def _waited(command: list[str], cwd: str | None = None) -> tuple[str, int, float]:
    """Run `command`; its stdout, its own peak resident set in bytes and its CPU-seconds (user +
    system, from wait4's rusage)."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{command[:4]}... failed with status {proc.returncode}")
    return out, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def _ours(lexicon: str, shape, min_score: int, classes: str | None, class_id: int) -> dict:
    out, _, _ = _waited([sys.executable, __file__, "--lexicon", lexicon, "--size", str(shape), "--min-score",
                      str(min_score), *(["--classes", classes] if classes else []), "--child", str(class_id)])
    return json.loads(out.splitlines()[-1])


def _theirs(published: Path, plan, min_score: int, class_id: int, dictionary: Path) -> dict:
    """The published prover on one class: its process's CPU-seconds (reading the dictionary
    included), the break's own wall seconds (`elapsed_s`) and the process's peak resident set."""
    cells = plan.class_buckets(class_id)
    rows, cols = plan.shape.rows, plan.shape.cols
    column_major = " ".join(cells[(i % rows) * cols + i // rows] for i in range(plan.shape.cells))
    base = Path(tempfile.mkdtemp(prefix="published-")) / "tasks"
    _, rss, cpu = _waited([str(published / "venv" / "bin" / "python"), "-m", "boggle.break_all", "aeiou", str(min_score),
                      "--size", f"{cols}{rows}", "--dictionary", str(dictionary), "--break_class", column_major,
                      "--output_base", str(base)], cwd=str(published))
    summary = json.loads(next(base.parent.glob("tasks-*.ndjson")).read_text().splitlines()[-1])
    return {"cpu": cpu, "wall": summary["elapsed_s"], "rss": rss, "failures": len(summary.get("failures", []))}


def _per_round(runs: list[dict], key: str = "cpu") -> str:
    return ", ".join(f"{r[key]:.1f}" for r in runs)


def versus(lexicon: str, lex, shape, min_score: int, classes: str | None, ids: list[int], board: str | None,
           published: Path | None, rounds: int, dictionary: Path) -> list[str]:
    """Each class in a fresh process, ours and (with `published`) the published prover's, interleaved."""
    plan = make_plan(lex, shape, classes)
    if board:
        ids = ids + [plan.canonical_class(plan.class_of(board))]
    runs: dict[int, dict[str, list[dict]]] = {c: {"ours": [], "theirs": []} for c in ids}
    loads = [load_average()]
    for _ in range(rounds):
        for class_id in ids:
            runs[class_id]["ours"].append(_ours(lexicon, shape, min_score, classes, class_id))
            if published is not None:
                runs[class_id]["theirs"].append(_theirs(published, plan, min_score, class_id, dictionary))
    loads.append(load_average())
    lines = []
    for class_id in ids:
        ours, theirs = runs[class_id]["ours"], runs[class_id]["theirs"]
        mine = statistics.median(r["cpu"] for r in ours)
        warm = statistics.median(r["warm"] for r in ours)
        other = statistics.median(r["cpu"] for r in theirs) if theirs else None
        broke = statistics.median(r["wall"] for r in theirs) if theirs else None
        label = f"{class_id}" + (f" (`{board}`)" if board and class_id == ids[-1] else "")
        lines.append(f"| {label} | {ours[0]['bound']:,} | {_per_round(ours)} | {_per_round(ours, 'warm')} | "
                     + (f"{_per_round(theirs)} | {_per_round(theirs, 'wall')} | {mine / other:.2f} | "
                        f"{mine / broke:.2f} | {warm / broke:.2f} | " if theirs else "| | | | | ")
                     + f"{max(r['rss'] for r in ours) / 1e6:,.0f} | {max(r['arrays'] for r in ours) / 1e6:,.0f} | "
                     + (f"{max(r['rss'] for r in theirs) / 1e6:,.0f} |" if theirs else " |")
                     + f" {len(ours[0]['boards'])} / {theirs[0]['failures'] if theirs else ''} |")
    return lines + ["", f"load average before / after: {format_load(loads[0])} / {format_load(loads[1])}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lexicon", help="compiled lexicon (default: ENABLE2K built from ../shared)")
    parser.add_argument("--size", default="3x3")
    parser.add_argument("--min-score", type=int, nargs="+", default=[545])
    parser.add_argument("--classes", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=0, help="prove only this many classes and project")
    parser.add_argument("--board", help="prove only the class holding this board")
    parser.add_argument("--class-ids", help="prove these classes (comma-separated ids), each in a fresh process")
    parser.add_argument("--published", type=Path, help="the published prover's checkout, to run beside ours")
    parser.add_argument("--dictionary", type=Path, help="the word list the published prover reads, the one the "
                        "lexicon was built from (default: ../shared/lexicons/enable2k.txt)")
    parser.add_argument("--rounds", type=int, default=2, help="with --class-ids: interleaved rounds")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULTS / "prove.md"))
    args = parser.parse_args()
    lex, name = _lexicon(args.lexicon)
    shape = parse_size(args.size)
    if args.child is not None:
        return _child(lex, shape, args.min_score[0], args.classes, args.child)
    what = ("classes side by side" if args.class_ids else f"the class of {args.board}" if args.board
            else f"sample of {args.sample} classes" if args.sample else "full proof")
    lines = [f"### {shape}, {what}, "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "",
             f"- lexicon: {name}", f"- machine: {machine()}", f"- commit: {commit()}",
             f"- command: `python {' '.join(shlex.quote(a) for a in sys.argv)}`", ""]
    if args.class_ids:
        lines += ["| class | bound | ours CPU s (per round) | ours again, warm | published CPU s (per round) | "
                  "published break s (its elapsed_s) | ours / published CPU (medians) | ours / published break | "
                  "ours warm / published break | ours peak RSS MB | ours arrays MB | published peak RSS MB | "
                  "boards found (ours / published) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        lines += versus(args.lexicon or "", lex, shape, args.min_score[0], args.classes,
                        [int(c) for c in args.class_ids.split(",")], args.board, args.published, args.rounds,
                        args.dictionary or shared("lexicons", "enable2k.txt"))
    elif args.board:
        lines += ["| size | class | min score | class bound | boards found | bounds | scored exactly | wall s | CPU s | "
                  "load before / after |", "|---|---|---|---|---|---|---|---|---|---|"]
        for s in args.min_score:
            lines += one_class(lex, shape, s, args.classes, args.board)
    elif args.sample:
        lines += ["| size | split | min score | canonical classes | sampled | CPU s | wall s | CPU s per class "
                  "(mean / median / max) | projected CPU-hours (95% BCa interval) | largest classes, CPU s (the share "
                  "of the 5 largest) | peak arrays MB | boards found | load before / after |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
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
