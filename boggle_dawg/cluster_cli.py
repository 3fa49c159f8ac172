"""What `search` and `prove` share on the Dask engine: the options, their checks, and running a
plan with progress on stderr (`solver.cluster.run_plan` owns the engine and the checkpoint).

`--workers N` starts a LocalCluster of N worker processes (default: one per core);
`--scheduler ADDRESS` uses a running scheduler's workers instead; `--checkpoint PATH`
records each finished task durably and `--resume` continues a run recorded there.
"""

from __future__ import annotations

from pathlib import Path

import typer

from .cli_common import UsageError, plural

WORKERS_HELP = "Run the tasks on a local Dask cluster of this many worker processes [default: one per core]."
SCHEDULER_HELP = ("Run the tasks on the workers of a running Dask scheduler (e.g. tcp://host:8786) instead of "
                  "a local cluster; workers need this package and the lexicon at the same path.")
CHECKPOINT_HELP = "Append each finished task's record to this file (durably), so that --resume can continue the run."
RESUME_HELP = "Continue the run recorded in --checkpoint: skip its finished tasks (the same options are needed)."


def workers_option():
    return typer.Option(None, "--workers", help=WORKERS_HELP)


def scheduler_option():
    return typer.Option(None, "--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP)


def checkpoint_option():
    return typer.Option(None, "--checkpoint", help=CHECKPOINT_HELP)


def resume_option(extra: str = ""):
    return typer.Option(False, "--resume", help=RESUME_HELP + extra)


def check_engine_options(workers: int | None, scheduler: str | None, checkpoint: Path | None, resume: bool) -> bool:
    """UsageError for a combination that cannot run; returns whether the engine is asked for."""
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: must be 1 or more, got {workers}")
    if workers is not None and scheduler is not None:
        raise UsageError("--workers and --scheduler: give one (local workers, or a running scheduler's)")
    if resume and checkpoint is None:
        raise UsageError("--resume: needs --checkpoint PATH, the run to continue")
    return workers is not None or scheduler is not None or checkpoint is not None


def stored(checkpoint: Path, field: str):
    """A field of the header of the checkpoint at `checkpoint` (None when there is none yet)."""
    from .solver.cluster.checkpoint import stored_header

    header = stored_header(checkpoint)
    return header.get(field) if header else None


def count(number: int, noun: str, nouns: str | None = None) -> str:
    return f"{number:,} {noun if number == 1 else nouns or plural(noun, number)}"


def run_on_engine(plan, headline: str, nouns: tuple[str, str], best_of, workers: int | None, scheduler: str | None,
                  checkpoint: Path | None, resume: bool, quiet: bool):
    """`plan` run by `solver.cluster.run_plan` on a local cluster or a scheduler, with progress on
    stderr; returns its answer, the engine's outcome and the label of what ran it.
    `best_of(record)` gives a record's best [board, score] pairs."""
    from .progress import EngineProgress
    from .solver.cluster import run_plan

    with EngineProgress(quiet, headline, nouns) as progress:
        answer, outcome = run_plan(plan, workers, scheduler, checkpoint=checkpoint, resume=resume,
                                   on_start=progress.start, on_status=progress.update,
                                   on_record=lambda task, record: progress.best(best_of(record)[:1]))
    label = progress.label()
    if outcome.resumed:
        label += f"; {count(len(outcome.resumed), *nouns)} resumed from {checkpoint}"
    return answer, outcome, label
