"""The long fuzz sweep: thousands of corrupted lexicons and every hand-built hostile file.

Run from the repository root:
    python benchmarks/fuzz_sweep.py [--cases 10000] [--timeout 10] [--json summary.json]
    python benchmarks/fuzz_sweep.py --replay field/adtdawg/random2k/123   # one case, in this process
    python benchmarks/fuzz_sweep.py --checkpoints 10000 [--cli-runs 6]   # the checkpoint family

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

--checkpoints N fuzzes checkpoints instead (tests/fuzz_cases.py mangle_checkpoint): a
search's and a proof's real checkpoint (the small lexicon) edited N ways, each read the way
--resume reads it (Checkpoint.open with the job's record schema) and, when accepted, its
records merged with those of the tasks it lacks, as a resumed run does; --cli-runs of them
also go through `dawg-solve search/prove --resume` on a local cluster. A case passes when it
is refused in one line naming the file (or, for what only merging checks, in one line), or resumes
to an answer without an exception. Its
table replaces the "Checkpoint cases" section of fuzz_sweep.md.
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

from common import REPO, RESULTS, SOLVER_CLI, machine

sys.path[:0] = [str(REPO), str(REPO / "tests")]

import adversarial
import fuzz_cases
import fuzz_worker
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


CHECKPOINT_SECTION = "## Checkpoint cases"
SEARCH_ARGS = ["--size", "3x3", "--rounds", "3", "--seed", "5", "--tasks", "6", "--top", "5"]
PROVE_ARGS = ["--size", "2x2", "--min-score", "2"]


def checkpoint_bases(work: Path) -> list[dict]:
    """A search's and a proof's checkpoint on the small lexicon, written by real runs (in process)."""
    from boggle_dawg.solver.board import parse_size
    from boggle_dawg.solver.cluster.checkpoint import Checkpoint
    from boggle_dawg.solver.cluster.engine import Outcome
    from boggle_dawg.solver.cluster.prove_job import ProvePlan, run_prove_task
    from boggle_dawg.solver.cluster.search_job import SearchPlan, run_search_task
    from boggle_dawg.solver.lexicon import open_lexicon
    from boggle_dawg.solver.search import Budget

    build = fuzz_cases.build_lexicons(work / "builds")["small"]
    lexicon = open_lexicon(build)
    search = SearchPlan(lexicon, parse_size("3x3"), Budget(rounds=3), "hillclimb", 5, 6, top=5)
    prove = ProvePlan(lexicon, parse_size("2x2"), 2)
    with lexicon.scorer(1) as scorer:
        search_records = {task: run_search_task(spec, scorer) for task, spec in search.job().tasks}
    prove_records = {task: run_prove_task(spec, lexicon) for task, spec in prove.job().tasks}

    def search_answer(records):
        result = search.merge(Outcome(records, search.tasks), 0.0)
        return result.top, result.rounds, result.evaluations, result.stopped

    def prove_answer(records):
        result = prove.merge(Outcome(records, len(records)), 0.0)
        return result.boards, result.classes, result.nodes, result.scored

    bases = []
    for kind, plan, records, answer, args in (("search", search, search_records, search_answer, SEARCH_ARGS),
                                              ("prove", prove, prove_records, prove_answer, PROVE_ARGS)):
        path = work / f"{kind}.ckpt"
        with Checkpoint.open(path, plan.header(), resume=False) as checkpoint:
            for task, record in records.items():
                checkpoint.append(task, record)
        bases.append({"kind": kind, "plan": plan, "records": records, "answer": answer, "data": path.read_bytes(),
                      "reference": answer(records), "args": [kind, str(build), *args]})
    return bases


def checkpoint_case(index: int, bases: list[dict], work: Path) -> dict:
    """One checkpoint case, read as --resume reads it; its outcome and, if refused, the rule."""
    from boggle_dawg.solver.cluster.checkpoint import Checkpoint
    from boggle_dawg.solver.errors import DawgError

    base = bases[index % len(bases)]
    data, what = fuzz_cases.mangle_checkpoint(base["data"], index // len(bases))
    path = work / f"case-{index}.ckpt"
    path.write_bytes(data)
    result = {"kind": base["kind"], "what": what}
    try:
        with Checkpoint.open(path, base["plan"].header(), resume=True,
                             check_record=base["plan"].check_record) as checkpoint:
            records = {task: r for task, r in checkpoint.records.items() if task in base["records"]}
        records.update((task, r) for task, r in base["records"].items() if task not in records)  # the rest, run again
    except DawgError as err:
        message = str(err)
        ok = message and "\n" not in message and path.name in message
        rule = re.sub(r"(different run \(\w+):.*", r"\1: ... there, ... now)", message.replace(str(path), "<file>"))
        result.update(outcome="rejected" if ok else "message", rule=fuzz_worker.rule_of(rule), detail=message[:200])
        return result
    except Exception as err:  # noqa: BLE001 (anything but DawgError is a failure)
        result.update(outcome="exception", detail=f"{type(err).__name__}: {str(err)[:200]}")
        return result
    finally:
        path.unlink(missing_ok=True)
        Path(f"{path}.lock").unlink(missing_ok=True)
    try:  # merged as the resumed run merges them, which checks what the schema cannot (canonical boards)
        same = base["answer"](records) == base["reference"]
        result["outcome"] = "resumed" if same else "resumed-edited"
    except DawgError as err:
        message = str(err)
        result.update(outcome="rejected" if message and "\n" not in message else "message",
                      rule="when merged: " + fuzz_worker.rule_of(message), detail=message[:200])
    except Exception as err:  # noqa: BLE001 (anything but DawgError is a failure)
        result.update(outcome="exception", detail=f"{type(err).__name__}: {str(err)[:200]}")
    return result


def checkpoint_cli_case(index: int, bases: list[dict], work: Path, timeout: float) -> dict:
    """The same case through `dawg-solve ... --resume` on a local cluster of one worker."""
    import subprocess

    base = bases[index % len(bases)]
    data, what = fuzz_cases.mangle_checkpoint(base["data"], index // len(bases))
    path = work / f"cli-{index}.ckpt"
    path.write_bytes(data)
    proc = subprocess.run([*SOLVER_CLI, *base["args"], "--workers", "1", "--json", "-q", "--checkpoint", str(path),
                           "--resume"], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode == 0:
        outcome = "resumed"
    elif proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr:
        outcome = "rejected"
    else:
        outcome = "exception"
    return {"kind": f"{base['kind']} (CLI)", "what": what, "outcome": outcome,
            "detail": (lines[-1] if lines else "")[:200]}


CHECKPOINT_PASSED = ("rejected", "resumed", "resumed-edited")


def checkpoint_markdown(results: list[dict], command: str, seconds: float, loads: tuple, out_of: str) -> str:
    table: dict[str, Counter] = defaultdict(Counter)
    rules: Counter = Counter()
    failures = [r for r in results if r["outcome"] not in CHECKPOINT_PASSED]
    for result in results:
        table[(result["kind"], _edit_of(result["what"]))][result["outcome"]] += 1
        if result["outcome"] == "rejected" and "rule" in result:
            rules[result["rule"]] += 1
    lines = [
        CHECKPOINT_SECTION, "",
        f"Measured {date.today().isoformat()} with `{command}` on: {machine()}.", "",
        (f"Code under test: {out_of}. {len(results):,} cases in {seconds:,.0f} s; load average "
         f"{loads[0][0]:.2f} before, {loads[1][0]:.2f} after (1-minute)."), "",
        ("A case is a real search's or proof's checkpoint (the small lexicon) with one edit: a record field "
         "given a value of the wrong type, removed or added, nested up to 200,000 deep, its task id or board "
         "text changed, two task ids swapped (checksums recomputed), or the file truncated, a byte changed, "
         "the header edited. It passes when `--resume` refuses it in one line naming the file, or resumes: "
         "*resumed* gives the unedited answer, *resumed-edited* an answer from an edit the schema cannot "
         "tell from a real record (a count or score changed within range, a board swapped for another). "
         "The CLI rows ran `dawg-solve ... --resume` on a local cluster."), "",
        f"**{len(failures)} failing cases.**", "",
        "| checkpoint | edit | cases | rejected | resumed | resumed-edited | failed |", "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (kind, edit), counts in sorted(table.items()):
        failed = sum(v for k, v in counts.items() if k not in CHECKPOINT_PASSED)
        lines.append(f"| {kind} | {edit} | {sum(counts.values())} | {counts['rejected']} | {counts['resumed']} | "
                     f"{counts['resumed-edited']} | {failed} |")
    lines += ["", "Failures:", ""]
    lines += [f"- `{r['kind']}` {r['what']}: {r['outcome']}: {r.get('detail', '')}" for r in failures[:20]] or ["None."]
    lines += ["", "Checks that refused cases (message without paths and numbers):", "", "| cases | message |",
              "|---:|---|"]
    lines += [f"| {n} | {rule.replace('|', '/')} |" for rule, n in rules.most_common()]
    return "\n".join(lines) + "\n"


def _edit_of(what: str) -> str:
    for edit, marker in (("truncate", "truncated"), ("flip", "byte"), ("header", "header"), ("swap", "swapped"),
                         ("nest", "nested"), ("extra", "gains"), ("delete", "deleted"), ("task", "task =")):
        if marker in what:
            return edit
    return "board" if "= '" in what else "type"


def run_checkpoints(args) -> None:
    work = Path(tempfile.mkdtemp(prefix="fuzz-checkpoints-"))
    loads = [os.getloadavg()]
    started = time.perf_counter()
    bases = checkpoint_bases(work)
    results = [checkpoint_case(i, bases, work) for i in range(args.checkpoints)]
    results += [checkpoint_cli_case(i, bases, work, 120) for i in range(args.cli_runs)]
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg())
    failed = [r for r in results if r["outcome"] not in CHECKPOINT_PASSED]
    command = shlex.join(["python", "benchmarks/fuzz_sweep.py", *sys.argv[1:]])
    section = checkpoint_markdown(results, command, seconds, loads, args.label)
    if not args.no_write:
        path = RESULTS / "fuzz_sweep.md"
        text = path.read_text()
        start = text.find(CHECKPOINT_SECTION)
        end = text.find("\n## ", start + 1) if start >= 0 else -1
        earlier = text.find("## Earlier runs")
        if start >= 0:
            text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
        elif earlier >= 0:
            text = text[:earlier] + section + "\n" + text[earlier:]
        else:
            text += "\n" + section
        path.write_text(text)
        print(f"wrote {path}", file=sys.stderr)
    for result in failed[:10]:
        print(result, file=sys.stderr)
    print(f"{len(results)} checkpoint cases, {len(failed)} failed, {seconds:.0f} s", file=sys.stderr)


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
    parser.add_argument("--checkpoints", type=int, metavar="N", help="fuzz N checkpoints instead of lexicons")
    parser.add_argument("--cli-runs", type=int, default=6, help="checkpoint cases also run through the CLI")
    args = parser.parse_args()
    if args.checkpoints:
        run_checkpoints(args)
        return

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
