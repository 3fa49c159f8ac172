"""`dawg-solve prove`: prove which boards of a shape reach a score, and that no other does.

The proof itself is `solver.proof`; its classes run as tasks on the Dask engine
(`solver.cluster`): a local cluster of one worker process per core unless
--workers or --scheduler say otherwise, the same path for one machine and many.
This module reads the options, shows progress on stderr (classes done of all,
workers, the best board so far, an estimate of the time left over the shuffled class
order) and prints the boards found and the statement the proof makes.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .cli_common import cli_lexicon, plural
from .cluster_cli import (
    check_engine_options,
    checkpoint_option,
    closing_line,
    count,
    resume_option,
    run_on_engine,
    scheduler_option,
    workers_option,
)
from .solver.board import parse_size
from .solver.formats import format_help

PROG = "dawg-solve"


def _statement(result) -> str:
    other = "other " if result.boards else ""
    classes = "class" if result.classes == 1 else "classes"
    return (f"No {other}{result.shape} board scores {result.min_score:,} or more: proved over "
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
                                            "or CORNERS/OTHERS [default: by board size, see the README]."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffled class order (never changes results)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the boards and the proof's counts."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
    workers: int | None = workers_option(),
    scheduler: str | None = scheduler_option(),
    checkpoint: Path | None = checkpoint_option(),
    resume: bool = resume_option(),
) -> None:
    """Prove which boards of a size score at least --min-score, and that no other board does.

    The boards are split into classes (a bucket of letters per cell); each class's
    upper bound rules it out or it is split further, down to single boards scored exactly.
    The classes run on a local Dask cluster (one worker per core) or on --scheduler's workers.
    """
    from .solver.proof.run import check_min_score

    shape = parse_size(size)
    check_min_score(min_score)
    lex = cli_lexicon(file, fmt)
    check_engine_options(workers, scheduler, checkpoint, resume)
    result = _prove_on_engine(lex, shape, min_score, classes, seed, workers, scheduler, checkpoint, resume, quiet)
    if as_json:
        print(json.dumps({"lexicon": str(lex.path), **result.to_dict()}))
        return
    n = len(result.boards)
    if n:
        print(f"{n:,} {plural('board', n)} of {shape} {'scores' if n == 1 else 'score'} at least "
              f"{min_score:,} (canonical form: rotations and reflections count once):")
        for board, score in result.boards:
            print(f"{score:8,}  {board}")
    print(_statement(result))


def _prove_on_engine(lex, shape, min_score: int, classes: str | None, seed: int, workers: int | None,
                     scheduler: str | None, checkpoint: Path | None, resume: bool, quiet: bool):
    """The proof's classes as tasks on a local cluster or a scheduler (solver.cluster.prove_job)."""
    from .solver.cluster.prove_job import ProvePlan, prove_on_engine

    plan = ProvePlan(lex, shape, min_score, classes, seed)
    nouns = ("class", "classes")
    headline = f"proof of {shape} boards at {min_score:,}: {count(len(plan.ids), *nouns)}"
    (result, outcome), label = run_on_engine(plan, prove_on_engine, headline, nouns, lambda record: record["boards"],
                                             workers, scheduler, checkpoint, resume, quiet)
    if not outcome.complete:  # Ctrl-C: a proof with classes missing proves nothing
        raise KeyboardInterrupt
    closing_line(f"proved {count(len(plan.ids), *nouns)} in {result.seconds:.1f} s, "
                 f"{result.cpu_seconds:,.1f} CPU-s in the classes ({label})", quiet)
    return result
