"""Dask engine benchmarks (issue 10): the engine's cost per task, and one worker against two.

Run from the repository root:

    python benchmarks/cluster_bench.py [--repeats 3] [--tiny 200] [--tasks 8] [--rounds 20] [--classes 24]

Writes benchmarks/results/cluster.md (use --out to write elsewhere).

  (a) overhead: --tiny search tasks of one round each (3x3, ENABLE2K), run one after
      another in this process, then on a warm LocalCluster of 1 and of 2 workers, with
      and without a checkpoint; the difference per task is what the engine costs (submit,
      schedule, send the record back, append and fsync it). The cluster's start-up time
      is reported apart;
  (b) search: --tasks hillclimb tasks of --rounds rounds each on ENABLE2K 4x4, in this
      process, then on 1 and on 2 workers;
  (c) prove (when solver.proof is present): the first --classes canonical ENABLE2K 3x4
      classes in the shuffled order of seed 0 at min score 1,600, in this process and on
      1 and 2 workers.

Every engine answer is checked against the in-process one. Each configuration runs
--repeats times, in rotating order; min and median wall seconds are reported.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import parse_size
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.cluster import Engine, run_plan
from boggle_dawg.solver.cluster.search_job import SearchPlan, search_in_process
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import Budget

from common import Conditions, load_average, shared, write_results


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def rotate(configs: dict, repeats: int) -> dict:
    """Wall seconds of each config's function over `repeats` rounds, configs in rotating order;
    also the last answer of each."""
    names = list(configs)
    seconds = {name: [] for name in names}
    answers = {}
    for round_ in range(repeats):
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            took, answers[name] = timed(configs[name])
            seconds[name].append(took)
    return {name: (min(s), statistics.median(s), answers[name]) for name, s in seconds.items()}


def search_answer(result) -> tuple:
    return result.top, result.rounds, result.evaluations


def part_search(lexicon, engines, plan: SearchPlan, repeats: int, checkpoints: bool, work: Path) -> dict:
    scorer = lexicon.scorer(1)
    count = [0]

    def in_process():
        return search_answer(search_in_process(plan, scorer))

    def on(engine, checkpoint: bool):
        def run():
            if not checkpoint:
                return search_answer(run_plan(plan, engine=engine)[0])
            count[0] += 1
            return search_answer(run_plan(plan, engine=engine, checkpoint=work / f"run{count[0]}.ckpt")[0])
        return run

    configs = {"in process": in_process}
    for workers, engine in engines.items():
        configs[f"{workers} {'worker' if workers == 1 else 'workers'}"] = on(engine, False)
        if checkpoints:
            configs[f"{workers} {'worker' if workers == 1 else 'workers'}, checkpoint"] = on(engine, True)
    for run in configs.values():
        run()  # warm: compiled code loaded, lexicon opened on every worker
    results = rotate(configs, repeats)
    reference = results["in process"][2]
    assert all(answer == reference for _, _, answer in results.values()), "an engine run gave another answer"
    scorer.close()
    return results


def part_prove(lexicon, engines, classes: int, repeats: int) -> dict | None:
    try:
        from boggle_dawg.solver.cluster.prove_job import ProvePlan, prove_in_process
    except ImportError:
        return None
    plan = ProvePlan(lexicon, parse_size("3x4"), 1600, seed=0, limit=classes)

    def answer(result) -> tuple:
        return tuple(result.boards), result.nodes

    configs = {"in process": lambda: answer(prove_in_process(plan))}
    for workers, engine in engines.items():
        configs[f"{workers} {'worker' if workers == 1 else 'workers'}"] = (
            lambda engine=engine: answer(run_plan(plan, engine=engine)[0]))
    for run in configs.values():
        run()
    results = rotate(configs, repeats)
    reference = results["in process"][2]
    assert all(a == reference for _, _, a in results.values()), "an engine proof gave another answer"
    return results


def table(results: dict, tasks: int, reference: str = "in process") -> str:
    base = results[reference][1]
    rows = ["| configuration | min s | median s | per task, median ms | engine cost per task, ms | speed vs in process |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, (low, median, _) in results.items():
        cost = "" if name == reference else f"{(median - base) / tasks * 1000:+.1f}"
        rows.append(f"| {name} | {low:.3f} | {median:.3f} | {median / tasks * 1000:.1f} | {cost} | {base / median:.2f}x |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tiny", type=int, default=200, help="one-round tasks for the overhead part")
    parser.add_argument("--tasks", type=int, default=8, help="search tasks for part (b)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds per search task in part (b)")
    parser.add_argument("--classes", type=int, default=24, help="3x4 classes for part (c)")
    parser.add_argument("--out", default="cluster.md")
    args = parser.parse_args()
    conditions = Conditions()
    work = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    build_lexicon(shared("lexicons", "enable2k.txt"), parse_charset("26"), work / "enable2k")
    lexicon = open_lexicon(work / "enable2k")
    sections = []
    starts = []
    for _ in range(args.repeats):
        took, engine = timed(lambda: Engine(workers=2).__enter__())
        starts.append(took)
        engine.close()
    engines = {1: Engine(workers=1).__enter__(), 2: Engine(workers=2).__enter__()}
    try:
        before = load_average()
        tiny = SearchPlan(lexicon, parse_size("3x3"), Budget(rounds=1), "hillclimb", 1, args.tiny, top=5)
        results = part_search(lexicon, engines, tiny, args.repeats, True, work)
        sections.append(f"## (a) Engine cost per task\n\n{args.tiny} search tasks of one round each (ENABLE2K 3x3, "
                        f"hillclimb, seed 1). Starting a LocalCluster of 2 workers: min {min(starts):.2f} s, "
                        f"median {statistics.median(starts):.2f} s (not in the figures below: the clusters "
                        f"are started once and warm).\n\n{table(results, args.tiny)}\n\n"
                        f"{conditions.note(before, load_average())}")
        before = load_average()
        plan = SearchPlan(lexicon, parse_size("4x4"), Budget(rounds=args.rounds), "hillclimb", 1, args.tasks, top=10)
        results = part_search(lexicon, engines, plan, args.repeats, False, work)
        sections.append(f"## (b) Search: 1 worker against 2\n\n{args.tasks} hillclimb tasks of {args.rounds} rounds "
                        f"each, ENABLE2K 4x4, seed 1; every configuration gives the same top list.\n\n"
                        f"{table(results, args.tasks)}\n\n{conditions.note(before, load_average())}")
        before = load_average()
        results = part_prove(lexicon, engines, args.classes, args.repeats)
        if results is not None:
            sections.append(f"## (c) Prove: 1 worker against 2\n\nThe first {args.classes} canonical ENABLE2K 3x4 "
                            f"classes (default split) in the shuffled order of seed 0, min score 1,600; every "
                            f"configuration finds the same boards.\n\n{table(results, args.classes)}\n\n"
                            f"{conditions.note(before, load_average())}")
        else:
            sections.append("## (c) Prove\n\nNot measured: this checkout has no `solver.proof`.")
    finally:
        for engine in engines.values():
            engine.close()
    conditions.finish()
    text = (f"# Dask engine benchmark\n\n{conditions.header()}\n\nWall seconds, min and median of {args.repeats} "
            f"runs per configuration in rotating order. \"Engine cost per task\" is (median - in-process "
            f"median) / tasks: negative where the workers' parallelism outweighs it.\n\n" + "\n\n".join(sections) + "\n")
    path = write_results(args.out, text)
    print(text)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
