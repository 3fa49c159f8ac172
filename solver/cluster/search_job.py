"""`search` as an engine job: many independent searches (climbs, chains), the top lists merged.

Task `i` is one whole `solver.search.search` run with the run's method, options and
budget (per task) and its own seed: the run's seed for task 0 (so one task is the
plain search), a seed derived from (run seed, i) for the others. Its record is the
task's top list and counters. The merged answer depends only on the records, never
on the order they arrived in or on how many workers ran them: with a budget of rounds
or evaluations the same seed and task count give the same boards on one worker, on
twenty, or resumed from a checkpoint after any number of kills.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..board import Shape, parse_board, parse_size
from ..errors import ParameterError
from ..search.find import plan_search, search
from ..search.run import Budget, ScoredBoard, SearchResult
from ..search.space import board_to_codes
from . import worker
from .engine import Engine, EngineStatus, Job, Outcome
from .worker import LexiconRef

STOP_ORDER = ("target", "interrupted", "seconds", "evaluations", "rounds")  # the reason a merged run reports
MAX_TASKS = 100_000  # ten times the largest hunt the README shows; more is a typo (or a scheduler's death)


def check_tasks(tasks: int) -> None:
    """Refuse a task count outside 1..MAX_TASKS before anything is planned."""
    if not 1 <= tasks <= MAX_TASKS:
        raise ParameterError("tasks", f"must be 1 or more, got {tasks:,}" if tasks < 1 else
                             f"at most {MAX_TASKS:,} (every task is submitted to the scheduler up front), got {tasks:,}")


def task_seed(seed: int, task: int) -> int:
    """Task 0 runs with the run's seed; the others with independent seeds derived from it."""
    if task == 0:
        return seed
    return int(np.random.SeedSequence(seed, spawn_key=(task,)).generate_state(1, np.uint64)[0])


@dataclass(frozen=True)
class SearchTask:
    """Everything one search task needs (a few hundred bytes)."""

    lexicon: LexiconRef
    shape: str
    method: str
    seed: int
    budget: Budget
    top: int
    alphabet: str | None = None
    start: str | None = None
    pool: int | None = None
    options: tuple = ()  # the method's own options, as sorted (name, value) pairs
    backend: str = "cpu"
    jobs: int = 1  # scoring threads inside the task


def run_search_task(spec: SearchTask, scorer=None, on_round=None) -> dict:
    """One task: a search, on this process's warm scorer unless one is given. Returns its record."""
    scorer = scorer if scorer is not None else worker.scorer(spec.lexicon, spec.backend, spec.jobs)
    result = search(scorer, parse_size(spec.shape), spec.budget, spec.method, seed=spec.seed, top=spec.top,
                    alphabet=spec.alphabet, start=spec.start, pool=spec.pool, on_round=on_round,
                    **dict(spec.options))
    return {"seed": result.seed, "top": [[b.board, b.score] for b in result.top], "rounds": result.rounds,
            "evaluations": result.evaluations, "seconds": round(result.seconds, 6), "stopped": result.stopped,
            "alphabet": result.alphabet}


@dataclass
class SearchPlan:
    """A search spread over `tasks` tasks: the job, and how its records merge into one result."""

    lexicon: object
    shape: Shape
    budget: Budget
    method: str
    seed: int
    tasks: int
    top: int = 10
    alphabet: str | None = None
    start: str | None = None
    pool: int | None = None
    options: dict = field(default_factory=dict)
    backend: str = "cpu"
    jobs: int = 1

    def __post_init__(self) -> None:
        check_tasks(self.tasks)
        plan_search(self.lexicon.charset.letters, self.shape, self.method, self.seed, self.top, self.alphabet,
                    self.start, self.pool, self.options)  # bad parameters fail here, not on every worker
        self.ref = LexiconRef.of(self.lexicon)

    def header(self) -> dict:
        """What a checkpoint of this search must match: everything that changes the answer."""
        b = self.budget
        return {"kind": "search", "lexicon": self.ref.fingerprint, "shape": str(self.shape), "method": self.method,
                "seed": self.seed, "tasks": self.tasks, "top": self.top, "alphabet": self.alphabet,
                "start": self.start, "pool": self.pool, "options": dict(sorted(self.options.items())),
                "budget": {"seconds": b.seconds, "rounds": b.rounds, "evaluations": b.evaluations,
                           "target": b.target}}

    def spec(self, task: int) -> SearchTask:
        return SearchTask(self.ref, str(self.shape), self.method, task_seed(self.seed, task), self.budget, self.top,
                          self.alphabet, self.start if task == 0 else None, self.pool,
                          tuple(sorted(self.options.items())), self.backend, self.jobs)

    def job(self) -> Job:
        return Job(self.header(), [(task, self.spec(task)) for task in range(self.tasks)], run_search_task)

    def check_record(self, task, record: dict) -> None:
        """The schema of a task's record (what `run_search_task` returns) read back from a checkpoint:
        BadField if not; its boards must be boards of this shape in the lexicon's letters."""
        from ..errors import DawgError
        from ..schema import BadField, fields, integer, list_of, number, one_of, pair, text

        letters = self.lexicon.charset.letters

        def board(value, name):
            try:
                board_to_codes(parse_board(value, self.shape), letters)
            except (DawgError, ValueError, TypeError, AttributeError):
                raise BadField(name, f"a {self.shape} board of the lexicon's letters", value) from None

        fields(seed=integer(-2**63, 2**64 - 1), top=list_of(pair(board, integer(), "a [board, score] pair"), most=self.top),
               rounds=integer(), evaluations=integer(), seconds=number(), stopped=one_of(*STOP_ORDER),
               alphabet=text(f"[{letters}]{{1,{len(letters)}}}", "letters of the lexicon"))(record, "record")

    def reached_target(self, record: dict) -> bool:
        return self.budget.target is not None and bool(record["top"]) and record["top"][0][1] >= self.budget.target

    def merge(self, outcome: Outcome, seconds: float) -> SearchResult:
        """One result from the records: the `top` best distinct boards of all tasks (ties in the
        order a single search ranks them), the counters summed."""
        records = [outcome.records[task] for task in sorted(outcome.records)]
        if not records:
            raise KeyboardInterrupt  # interrupted before any task finished: nothing to report
        letters = self.lexicon.charset.letters
        best: dict[str, int] = {}
        for record in records:
            for board, score in record["top"]:
                best[board] = score
        key = {board: board_to_codes(parse_board(board, self.shape), letters).astype(np.uint8).tobytes()
               for board in best}
        ranked = sorted(best.items(), key=lambda item: (-item[1], key[item[0]]))[:self.top]
        reasons = {record["stopped"] for record in records}
        if outcome.interrupted or not outcome.complete and not outcome.stopped_early:
            reasons.add("interrupted")
        if outcome.stopped_early:
            reasons.add("target")
        stopped = next(reason for reason in STOP_ORDER if reason in reasons)
        return SearchResult(self.method, self.shape, records[0]["alphabet"], self.seed,
                            [ScoredBoard(board, score) for board, score in ranked],
                            sum(r["rounds"] for r in records), sum(r["evaluations"] for r in records), seconds,
                            stopped)


def search_on_engine(plan: SearchPlan, engine: Engine, checkpoint=None,
                     on_status: Callable[[EngineStatus], None] | None = None,
                     on_record: Callable[[int, dict], None] | None = None) -> tuple[SearchResult, Outcome]:
    """Run `plan` on `engine` (recording into `checkpoint`, an open `Checkpoint`, if given); returns
    the merged result and the engine's outcome (which tasks were resumed, workers lost...)."""
    import time

    started = time.perf_counter()

    def arrived(task: int, record: dict) -> bool:
        if on_record is not None:
            on_record(task, record)
        return plan.reached_target(record)

    outcome = engine.run(plan.job(), checkpoint, on_record=arrived, on_status=on_status)
    if not outcome.stopped_early and any(plan.reached_target(r) for r in outcome.records.values()):
        outcome.stopped_early = True  # reached in a run this one resumed
    return plan.merge(outcome, time.perf_counter() - started), outcome


def search_in_process(plan: SearchPlan, scorer, on_round=None) -> SearchResult:
    """The same tasks run one after another in this process on `scorer` (no engine): what a
    run of one task does, and the reference the engine's answers are checked against."""
    import time

    started = time.perf_counter()
    records: dict = {}
    outcome = Outcome(records, plan.tasks)
    for task in range(plan.tasks):
        records[task] = record = run_search_task(plan.spec(task), scorer, on_round)
        if record["stopped"] == "interrupted":
            outcome.interrupted = True
            break
        if plan.reached_target(record):
            outcome.stopped_early = task + 1 < plan.tasks
            break
    return plan.merge(outcome, time.perf_counter() - started)
