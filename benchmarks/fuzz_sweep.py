"""The long fuzz sweep: thousands of corrupted lexicons and every hand-built hostile file.

Run from the repository root:
    python benchmarks/fuzz_sweep.py [--cases 10000] [--timeout 10] [--json summary.json]
    python benchmarks/fuzz_sweep.py --replay field/adtdawg/random2k/123   # one case, in this process

Each case is a copy of a base build (three lexicons: 32 words, 2,000 random
JPA14 words, 400 words with Qu) corrupted one way (tests/fuzz_cases.py: bit
flips, boundary values in chosen fields, resizes, splices, raw corruptions,
type-confused manifests), checksums repaired so the structural checks are
reached, plus every file of tests/adversarial.py. Each is opened and, when it
opens, scored on boards 2x2..8x8 by the numba batch (jobs 1 and 2) and the
CPython single-board engine, and put through `dawgc info/verify/words`, in
supervised workers with a per-case timeout (tests/fuzz_worker.py).

Writes benchmarks/results/fuzz_sweep.md (unless --no-write): results by kind
and format, the checks that rejected cases, and every failure by category.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from common import REPO, RESULTS, machine

sys.path[:0] = [str(REPO), str(REPO / "tests")]

import adversarial
import fuzz_cases
from fuzz_worker import PASSED, replay, run_parallel

MUTATIONS = tuple(k for k in fuzz_cases.KINDS if k != "hostile")


def all_specs(count: int, first_seed: int) -> list[dict]:
    """`count` mutated builds over every kind, format and lexicon, then each hostile file once."""
    specs = fuzz_cases.specs(count, first_seed, kinds=MUTATIONS)
    return specs + [{"kind": "hostile", "fmt": "-", "lexicon": "small", "seed": i}
                    for i in range(len(adversarial.CATALOGUE))]


def summarise(specs: list[dict], results: list[dict]) -> dict:
    table: dict[str, Counter] = defaultdict(Counter)
    rules: dict[str, Counter] = defaultdict(Counter)
    failures: dict[str, list[dict]] = defaultdict(list)
    for spec, result in zip(specs, results):
        outcome = result["outcome"]
        table[f"{spec['kind']} {result['fmt']}"][outcome] += 1
        if outcome == "rejected":
            rules[result["fmt"]][result["rule"]] += 1
        elif outcome not in PASSED:
            failures[failure_category(spec, result)].append(
                {"spec": fuzz_cases.spec_text(spec), "what": result["what"], "detail": result["detail"]})
    return {"cases": len(specs), "failed": sum(len(v) for v in failures.values()),
            "table": {k: dict(v) for k, v in sorted(table.items())},
            "rules": {k: dict(v.most_common()) for k, v in sorted(rules.items())},
            "failures": dict(sorted(failures.items(), key=lambda kv: -len(kv[1])))}


def failure_category(spec: dict, result: dict) -> str:
    """Outcome, kind, format and where it happened, without case-specific numbers and paths."""
    detail = result["detail"]
    if spec["kind"] == "hostile":
        where = result["what"]
    elif result["outcome"] in ("exception", "memory"):  # "step: Type: message at file:line"
        step, _, rest = detail.partition(": ")
        where = f"{step}: {rest.split(':', 1)[0]}" + (f" at {detail.rsplit(' at ', 1)[1]}" if " at " in detail else "")
    elif result["outcome"] == "verify-mismatch":
        where = re.sub(r"\(.*?\)|\d+", "N", detail.split("FAIL", 1)[-1]).strip()
    else:
        where = re.sub(r"\S*case-\d+\S*|\d+", "N", detail)
    return f"{result['outcome']} | {spec['kind']} {result['fmt']} | {where[:100]}"


def markdown(summary: dict, command: str, seconds: float, loads: tuple, out_of: str) -> str:
    lines = [
        "# Fuzz sweep", "",
        f"Measured {date.today().isoformat()} with `{command}` on: {machine()}.", "",
        (f"Code under test: {out_of}. {summary['cases']:,} cases in {seconds:,.0f} s; load average "
        f"{loads[0][0]:.2f} before, {loads[1][0]:.2f} after (1-minute)."), "",
        ("A case passes when it is a clean rejection (DawgError: one line naming the case's file) or a "
        "lexicon whose scores agree across the numba batch (jobs 1 and 2) and the CPython engine, and "
        "on which `dawgc info`, `info --json`, `verify` and `words -n` end cleanly. "
        "Replay a case with `python benchmarks/fuzz_sweep.py --replay SPEC`."), "",
        f"**{summary['failed']} failing cases.**", "",
        "## Outcomes by kind and format", "",
        "| kind | format | cases | rejected | accepted | failed |", "|---|---|---:|---:|---:|---:|",
    ]
    for key, counts in summary["table"].items():
        kind, fmt = key.split(" ")
        failed = sum(v for k, v in counts.items() if k not in PASSED)
        detail = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in PASSED)
        lines.append(f"| {kind} | {fmt} | {sum(counts.values())} | {counts.get('rejected', 0)} | "
                     f"{counts.get('accepted', 0)} | {failed}{f' ({detail})' if detail else ''} |")
    lines += ["", "## Failures by category", ""]
    if not summary["failures"]:
        lines.append("None.")
    for category, cases in summary["failures"].items():
        lines.append(f"- **{category}**: {len(cases)} case{'s' if len(cases) > 1 else ''}, e.g. "
                     + "; ".join(f"`{c['spec']}` ({c['what'][:60]}): {c['detail'][:160]}" for c in cases[:2]))
    lines += ["", "## Checks that rejected cases (message without paths and numbers)", ""]
    for fmt, rules in summary["rules"].items():
        lines += [f"### {fmt} ({len(rules)} distinct)", "", "| cases | message |", "|---:|---|"]
        lines += [f"| {n} | {rule.replace('|', '/')} |" for rule, n in rules.items()]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="mutated builds (hostile files are added)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON ('-' for stdout)")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/fuzz_sweep.md")
    parser.add_argument("--label", default="this checkout", help="what code is under test, for the record")
    parser.add_argument("--replay", metavar="SPEC", help="run one case (kind/fmt/lexicon/seed) here and print it")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="fuzz-sweep-"))
    if args.replay:
        print(json.dumps(replay(args.replay, work), indent=2))
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    fuzz_cases.build_lexicons(work / "builds")
    specs = all_specs(args.cases, args.first_seed)
    loads = [os.getloadavg()]
    failed = Counter()
    started = time.perf_counter()
    with Progress(TextColumn("fuzz"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]}"),
                  TimeRemainingColumn(), console=Console(stderr=True)) as progress:
        task = progress.add_task("fuzz", total=len(specs), failed="")

        def on_result(index: int, result: dict) -> None:
            if result["outcome"] not in PASSED:
                failed[result["outcome"]] += 1
            progress.update(task, advance=1, failed=" ".join(f"{k} {v}" for k, v in failed.items()))

        results = run_parallel(specs, work, args.timeout, args.workers, on_result)
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg())
    command = shlex.join(["python", "benchmarks/fuzz_sweep.py", *sys.argv[1:]])
    summary = summarise(specs, results)
    summary.update(seconds=round(seconds, 1), load_average=[list(x) for x in loads], label=args.label,
                   command=command)
    if not args.no_write:
        path = RESULTS / "fuzz_sweep.md"
        RESULTS.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown(summary, command, seconds, loads, args.label) + "\n")
        print(f"wrote {path}", file=sys.stderr)
    if args.json:
        text = json.dumps(summary, indent=2)
        sys.stdout.write(text + "\n") if args.json == "-" else Path(args.json).write_text(text + "\n")
    print(f"{summary['cases']} cases, {summary['failed']} failed, {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
