"""`dawg-solve prove`: prove which boards of a shape reach a score, and that no other does.

The proof itself is `solver.proof`; its classes run as tasks on the Dask engine
(`solver.cluster`): a local cluster of one worker process per core unless
--workers or --scheduler say otherwise, the same path for one machine and many.
This module reads the options, shows progress on stderr (classes done of all,
workers, the best board so far, an estimate of the time left over the shuffled class
order) and prints the boards found and the statement the proof makes, once every board
reported has been checked and scored again (and, with --verify-sample, a sample of the
classes proved again here); Ctrl-C says how many classes the checkpoint keeps. With --sample N
it proves the first N classes of the seed's order only and prints what they project for the
whole proof (solver.proof.sample).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .cli_common import RULES_HELP, UsageError, cli_lexicon, plural, rules_option
from .cluster_cli import (
    check_engine_options,
    checkpoint_option,
    count,
    resume_option,
    run_on_engine,
    scheduler_option,
    workers_option,
)
from .progress import closing_line
from .solver.board import parse_size
from .solver.formats import format_help
from .solver.rules import DEFAULT_RULES

NOUNS = ("class", "classes")


def _statement(result) -> str:
    other = "other " if result.boards else ""
    classes = "class" if result.classes == 1 else "classes"
    under = "" if result.rules.name == DEFAULT_RULES else f" under the rules {result.rules.describe()}"
    return (f"No {other}{result.shape} board scores {result.min_score:,} or more{under}: proved over "
            f"{result.classes:,} {classes} ({result.class_count:,} before symmetry), {result.nodes:,} bounds "
            f"computed, {result.scored:,} {plural('board', result.scored)} scored exactly, {result.seconds:.1f} s, "
            f"{result.cpu_seconds:.1f} CPU-seconds.")


def prove(
    file: Path | None = typer.Argument(None, metavar="[FILE]", help="Lexicon (default: the shipped one)."),
    size: str = typer.Option(..., "--size", "-s", metavar="RxC", help="Board size RxC (up to 8x8)."),
    min_score: int = typer.Option(..., "--min-score", help="Find every board scoring at least this much "
                                     "(a positive number)."),
    classes: str | None = typer.Option(None, "--classes", metavar="SPEC",
                                       help="Letter buckets per cell: comma-separated buckets for every cell, "
                                            "or CORNERS/OTHERS [default: by board size, see docs/proofs.md]."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffled class order (never changes results)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the boards and the proof's counts."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE",
                                     help=RULES_HELP + " Proofs take rules whose words score at most 15 points."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
    workers: int | None = workers_option(),
    scheduler: str | None = scheduler_option(),
    checkpoint: Path | None = checkpoint_option(),
    resume: bool = resume_option(),
    verify_sample: int = typer.Option(0, "--verify-sample", metavar="N",
                                      help="Prove N recorded classes (drawn by --seed) again in this process and "
                                           "check their records: for workers or checkpoints not all trusted."),
    sample: int | None = typer.Option(None, "--sample", metavar="N",
                                      help="Prove only the first N classes of the --seed order (a random sample) and "
                                           "project the whole proof's CPU time, with its interval, tail and memory."),
) -> None:
    """Prove which boards of a size score at least --min-score, and that no other board does.

    The boards are split into classes (a bucket of letters per cell); each class's
    upper bound rules it out or it is split further, down to single boards scored exactly.
    The classes run on a local Dask cluster (one worker per core) or on --scheduler's workers.
    """
    from .solver.proof.prover import check_min_score

    shape = parse_size(size)
    check_min_score(min_score)
    lex = cli_lexicon(file, fmt)
    check_engine_options(workers, scheduler, checkpoint, resume)
    if verify_sample < 0:
        raise UsageError(f"--verify-sample: must be 0 or more, got {verify_sample}")
    if sample is not None and sample < 1:
        raise UsageError(f"--sample: must be 1 or more, got {sample}")
    chosen = rules_option(rules, lex.rules)
    result, verified, sampled = _prove_on_engine(lex, shape, min_score, classes, seed, sample, workers, scheduler,
                                                 checkpoint, resume, quiet, verify_sample, chosen)
    if sampled is not None:
        _print_sample(lex, result, sampled, seed, verified, as_json)
        return
    if as_json:
        print(json.dumps({"lexicon": str(lex.path), **result.to_dict(), "verified": verified}))
        return
    n = len(result.boards)
    if n:
        print(f"{n:,} {plural('board', n)} of {shape} {'scores' if n == 1 else 'score'} at least "
              f"{min_score:,} (canonical form: rotations and reflections count once):")
        for board, score in result.boards:
            print(f"{score:8,}  {board}")
    print(_statement(result))


def _prove_on_engine(lex, shape, min_score: int, classes: str | None, seed: int, sample: int | None,
                     workers: int | None, scheduler: str | None, checkpoint: Path | None, resume: bool, quiet: bool,
                     verify_sample: int, rules):
    """The proof's classes (or the first `sample` of them) as tasks on a local cluster or a scheduler
    (solver.cluster.prove_job), then `verify_sample` of them proved again here; returns the result,
    how many were verified and, for a sample, its class records."""
    from .solver.cluster.prove_job import ProvePlan

    plan = ProvePlan(lex, shape, min_score, classes, seed, limit=sample, rules=rules)
    what = "sample" if sample is not None else "proof"
    headline = f"{what} of {shape} boards at {min_score:,}: {count(plan.total, *NOUNS)}"
    try:
        result, outcome, label = run_on_engine(plan, headline, NOUNS, lambda record: record["boards"], workers,
                                               scheduler, checkpoint, resume, quiet)
        complete = plan.complete(outcome)
    except KeyboardInterrupt:
        complete = False
    if not complete:  # Ctrl-C: a proof with classes missing proves nothing
        raise KeyboardInterrupt(_kept(plan.total, checkpoint))
    closing_line(f"proved {count(plan.total, *NOUNS)} in {result.seconds:.1f} s, "
                 f"{result.cpu_seconds:,.1f} CPU-s in the classes ({label})", quiet)
    if verify_sample:
        closing_line(f"proving {count(min(verify_sample, plan.total), *NOUNS)} again here to check their "
                     f"records (--verify-sample)", quiet)
        verified = len(plan.verify_sample(outcome.records, verify_sample))
        closing_line(f"{count(verified, *NOUNS)} verified: the records match", quiet)
    else:
        verified = 0
    return result, verified, (None if sample is None else (plan, plan.records(outcome)))


def _print_sample(lex, result, sampled, seed: int, verified: int, as_json: bool) -> None:
    """A sample's projection of the whole proof (solver.proof.sample), its largest classes and memory,
    the boards it found: a short table, or with --json all of it and every class record."""
    from .solver.proof.sample import CONFIDENCE, project

    plan, records = sampled
    projection = project({r.class_id: r.cpu_seconds for r in records}, plan.plan.canonical_count(), seed)
    memory = {"peak_bytes": max(r.peak_bytes for r in records), "max_rss": max(r.max_rss for r in records)}
    if as_json:
        print(json.dumps({"lexicon": str(lex.path), **result.to_dict(), "verified": verified, "seed": seed,
                          "split": plan.plan.spec(), "projection": projection.to_dict(), "memory": memory,
                          "records": [r.to_dict() for r in records]}))
        return
    p = projection
    scale, unit = (3600, "CPU-hours") if p.total >= 3600 else (1, "CPU-s")
    interval = ("" if p.low is None else f", {CONFIDENCE:.0%} interval {p.low / scale:,.0f} to {p.high / scale:,.0f} "
                f"(BCa bootstrap over the sampled classes)")
    print(f"Sample of {p.sampled:,} of {p.classes:,} canonical {result.shape} classes (seed {seed}), min score "
          f"{result.min_score:,}: {result.seconds:.1f} s, {result.cpu_seconds:,.1f} CPU-seconds.")
    print(f"Projected CPU time of the whole proof: {p.total / scale:,.0f} {unit}{interval}; {p.mean:,.2f} CPU-s a class "
          f"(median {p.median:,.2f}).")
    print(f"The largest {count(p.top_count, *NOUNS)} {'carries' if p.top_count == 1 else 'carry'} "
          f"{p.top_share:.0%} of it, the largest "
          f"{len(p.tail)} {p.tail_share:.0%}. Memory: at most {_mib(memory['peak_bytes'])} of arrays in a class, "
          f"workers' peak resident set {_mib(memory['max_rss'])}.")
    by_id = {r.class_id: r for r in records}
    print(f"{'class':>12}  {'CPU s':>8}  {'arrays':>10}  {'bound':>8}  {'bounds computed':>15}  boards")
    for class_id, cpu in p.tail:
        r = by_id[class_id]
        print(f"{class_id:>12}  {cpu:8.2f}  {_mib(r.peak_bytes):>10}  {r.bound:8,}  {r.nodes:15,}  {len(r.boards):,}")
    n = len(result.boards)
    found = ", ".join(f"{board} {score:,}" for board, score in result.boards[:3]) + (", ..." if n > 3 else "")
    print(f"{n:,} {plural('board', n)} of the sample {'reaches' if n == 1 else 'reach'} {result.min_score:,}"
          f"{': ' + found if n else ''}. A sample proves nothing about the classes it leaves out.")


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB"


def _kept(total: int, checkpoint: Path | None) -> str:
    """What an interrupted proof leaves, for its one line."""
    from .solver.cluster.checkpoint import read_checkpoint

    if checkpoint is None:
        return ("nothing was recorded (no --checkpoint): the classes proved are lost; give --checkpoint PATH "
                "to keep each as it finishes")
    done = len(read_checkpoint(checkpoint).records)
    return (f"{done:,} of {count(total, *NOUNS)} recorded in {checkpoint}; run the same command with --resume "
            f"to continue")
