"""A plan run on the engine from start to end: the one owner of the engine's and the checkpoint's life cycle.

A plan is what `search_job.SearchPlan` and `prove_job.ProvePlan` both are (`Plan`): the
`Job` it runs, its checkpoint header (`job_header`: the kind of run and the lexicon's
identity first), the schema of its task records (their record types, `SearchRecord` and
`solver.proof.ClassRecord`, with `to_dict`/`from_dict`), whether a record ends the run
early, and how the records merge into its answer. `run_plan` opens the checkpoint (checked
against the header and the record schema), starts the engine (or uses one already started),
runs the job, merges the records and closes both, whatever happens in between. A checkpoint that
already holds every task's record gives its answer without starting an engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Protocol

from ..rules import DEFAULT_RULES, Rules, load_rules
from .checkpoint import Checkpoint
from .dask_engine import Engine, EngineStatus, Job, Outcome
from .worker import LexiconRef


class Plan(Protocol):
    """A kind of run on the engine (search, prove): its job, its records' schema and their merge."""

    def header(self) -> dict:
        """What a checkpoint of this run must match (`job_header`)."""

    def job(self) -> Job: ...

    def check_record(self, task, record: dict) -> None:
        """BadField unless `record` is what this plan's task `task` returns (read back from a checkpoint)."""

    def upgrade_header(self, stored: dict, version: int) -> dict:
        """A header of checkpoint format `version` (older than today's) as this version writes it,
        where this run can show it describes the same run; else `stored` unchanged (then refused)."""

    def stops(self, record: dict) -> bool:
        """Whether this record ends the run early (search's target score)."""

    def merge(self, outcome: Outcome, seconds: float) -> Any:
        """The run's answer from its records (the order they finished in cannot matter)."""


def job_header(kind: str, lexicon: LexiconRef, rules: Rules, **fields) -> dict:
    """A checkpoint header: the kind of run, the lexicon's identity (`Lexicon.identity`: its words,
    letters and tiles, stable across versions of the program), the rules it scores under, then every
    field that changes the answer."""
    return {"kind": kind, "lexicon": lexicon.identity, "rules": rules.as_dict(), **fields}


def with_rules(stored: dict) -> dict:
    """A header written before runs recorded their rules: every run then scored under the standard ones."""
    return stored if "rules" in stored else {**stored, "rules": load_rules(DEFAULT_RULES).as_dict()}


def run_plan(plan: Plan, workers: int | None = None, scheduler: str | None = None, engine: Engine | None = None,
             checkpoint: Path | None = None, resume: bool = False,
             on_start: Callable[[Engine], None] | None = None,
             on_status: Callable[[EngineStatus], None] | None = None,
             on_record: Callable[[Any, dict], None] | None = None) -> tuple[Any, Outcome]:
    """Run `plan` on a LocalCluster of `workers` processes, on the workers of `scheduler`, or on
    `engine` (started by the caller, left open), recording each task in `checkpoint` (continued
    with `resume`); returns the merged answer and the engine's outcome. `on_start(engine)` is
    called once the engine runs; `on_status` and `on_record(task, record)` as `Engine.run` calls them."""
    opened = Checkpoint.open(checkpoint, plan.header(), resume, plan.check_record, plan.upgrade_header) \
        if checkpoint is not None \
        else nullcontext()
    with opened as record_file:
        started = time.perf_counter()
        held = record_file.records if record_file is not None else {}
        if engine is None and _holds_every_task(plan.job(), held):  # a finished run resumed: no engine to start
            outcome = Outcome(dict(held), plan.job().count, frozenset(held))
        else:
            with Engine(workers, scheduler) if engine is None else nullcontext(engine) as engine:
                if on_start is not None:
                    on_start(engine)
                started = time.perf_counter()

                def arrived(task, record: dict) -> bool:
                    if on_record is not None:
                        on_record(task, record)
                    return plan.stops(record)

                outcome = engine.run(plan.job(), record_file, on_record=arrived, on_status=on_status)
        if not outcome.stopped_early and any(plan.stops(r) for r in outcome.records.values()):
            outcome.stopped_early = True  # reached in a run this one resumed
        return plan.merge(outcome, time.perf_counter() - started), outcome


def _holds_every_task(job: Job, records: dict) -> bool:
    """Whether `records` (a checkpoint's) hold a record of every task of `job`."""
    return len(records) >= job.count and all(task in records for task, _ in job.tasks)
