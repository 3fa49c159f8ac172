"""`search` as an engine job: many independent searches (climbs, chains), the top lists merged.

Task `i` is one whole `solver.search.search` run with the run's method, options and
budget (per task) and its own seed: the run's seed for task 0 (so one task is the
plain search), a seed derived from (run seed, i) for the others. Its record (`SearchRecord`)
is the task's top list and counters. The merged answer depends only on the records, never
on the order they arrived in or on how many workers ran them: with a budget of rounds
or evaluations the same seed and task count give the same boards on one worker, on
twenty, or resumed from a checkpoint after any number of kills.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..board import Shape, parse_board, parse_size
from ..charset import Charset
from ..errors import DawgError, ParameterError
from ..rules import Rules
from ..schema import BadField, Check, integer, list_of, number, one_of, only_fields, pair, text
from ..search.find import plan_search, search
from ..search.search_run import Budget, ScoredBoard, SearchResult
from ..search.space import board_to_codes
from . import worker
from .dask_engine import Job, Outcome
from .plan_run import job_header, with_rules
from .worker import LexiconRef

STOP_ORDER = ("target", "interrupted", "seconds", "evaluations", "rounds")  # the reason a merged run reports
MAX_TASKS = 100_000  # ten times the largest hunt docs/engine.md shows; more is a typo (or a scheduler's death)


def check_tasks(tasks: int) -> None:
    """Refuse a task count outside 1..MAX_TASKS before anything is planned."""
    if not 1 <= tasks <= MAX_TASKS:
        raise ParameterError("tasks", f"must be 1 or more, got {tasks:,}" if tasks < 1 else
                             f"at most {MAX_TASKS:,} (each task is a whole search of its own), got {tasks:,}")


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
    rules: Rules | None = None  # None: the lexicon's own


@dataclass
class SearchRecord:
    """One task's outcome, as the checkpoint stores it (`to_dict`): its top list ([board, score],
    best first) and its counters."""

    seed: int
    top: list[tuple[str, int]]
    rounds: int
    evaluations: int
    seconds: float
    stopped: str
    alphabet: str

    @classmethod
    def of(cls, result: SearchResult) -> SearchRecord:
        return cls(result.seed, [(b.board, b.score) for b in result.top], result.rounds, result.evaluations,
                   round(result.seconds, 6), result.stopped, result.alphabet)

    def to_dict(self) -> dict:
        return {"seed": self.seed, "top": [[board, score] for board, score in self.top], "rounds": self.rounds,
                "evaluations": self.evaluations, "seconds": self.seconds, "stopped": self.stopped,
                "alphabet": self.alphabet}

    @classmethod
    def from_dict(cls, data: dict) -> SearchRecord:
        return cls(data["seed"], [(board, score) for board, score in data["top"]], data["rounds"],
                   data["evaluations"], data["seconds"], data["stopped"], data["alphabet"])

    @staticmethod
    def schema(shape: Shape, charset: Charset, top: int) -> Check:
        """The check of a record's dict: its boards must be boards of `shape` in `charset`, at most `top` of them."""
        letters = charset.letters

        def board(value, name):
            try:
                board_to_codes(parse_board(value, shape, charset), charset)
            except (DawgError, ValueError, TypeError, AttributeError):
                raise BadField(name, f"a {shape} board of the lexicon's letters", value) from None

        return only_fields(seed=integer(-2**63, 2**64 - 1),
                           top=list_of(pair(board, integer(), "a [board, score] pair"), most=top),
                           rounds=integer(), evaluations=integer(), seconds=number(), stopped=one_of(*STOP_ORDER),
                           alphabet=text(f"[{letters}]{{1,{len(letters)}}}", "letters of the lexicon"))


def run_search_task(spec: SearchTask, scorer=None, on_round=None) -> dict:
    """One task: a search, on this process's warm scorer unless one is given. Returns its record's dict."""
    scorer = scorer if scorer is not None else worker.scorer(spec.lexicon, spec.rules, spec.backend, spec.jobs)
    result = search(scorer, parse_size(spec.shape), spec.budget, spec.method, seed=spec.seed, top=spec.top,
                    alphabet=spec.alphabet, start=spec.start, pool=spec.pool, on_round=on_round,
                    **dict(spec.options))
    return SearchRecord.of(result).to_dict()


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
    rules: Rules | None = None  # None: the lexicon's own (`Lexicon.rules`)

    def __post_init__(self) -> None:
        check_tasks(self.tasks)
        self.rules = self.lexicon.rules if self.rules is None else self.rules
        plan_search(self.lexicon.charset, self.shape, self.method, self.seed, self.top, self.alphabet,
                    self.start, self.pool, self.options)  # bad parameters fail here, not on every worker
        self.ref = LexiconRef.of(self.lexicon)

    def header(self) -> dict:
        """What a checkpoint of this search must match: everything that changes the answer."""
        b = self.budget
        return job_header("search", self.ref, self.rules, shape=str(self.shape), method=self.method, seed=self.seed,
                          tasks=self.tasks, top=self.top, alphabet=self.alphabet, start=self.start, pool=self.pool,
                          options=dict(sorted(self.options.items())),
                          budget={"seconds": b.seconds, "rounds": b.rounds, "evaluations": b.evaluations,
                                  "target": b.target})

    def upgrade_header(self, stored: dict, version: int) -> dict:
        """Nothing in a format-1 search header but the arrays' fingerprint names the lexicon, so
        none can be vouched for (a search is rerun, not resumed, across that change); it scored
        under the standard rules."""
        return with_rules(stored)

    def spec(self, task: int) -> SearchTask:
        return SearchTask(self.ref, str(self.shape), self.method, task_seed(self.seed, task), self.budget, self.top,
                          self.alphabet, self.start if task == 0 else None, self.pool,
                          tuple(sorted(self.options.items())), self.backend, self.jobs, self.rules)

    def job(self) -> Job:
        return Job(self.header(), ((task, self.spec(task)) for task in range(self.tasks)), self.tasks, run_search_task)

    def check_record(self, task, record: dict) -> None:
        """The schema of a task's record read back from a checkpoint (`SearchRecord.schema`): BadField if not."""
        SearchRecord.schema(self.shape, self.lexicon.charset, self.top)(record, "record")

    def stops(self, record: dict) -> bool:
        """Whether the task's record reached the target score (the run then stops)."""
        return self.budget.target is not None and bool(record["top"]) and record["top"][0][1] >= self.budget.target

    def merge(self, outcome: Outcome, seconds: float) -> SearchResult:
        """One result from the records: the `top` best distinct boards of all tasks (ties in the
        order a single search ranks them), the counters summed."""
        records = [SearchRecord.from_dict(outcome.records[task]) for task in sorted(outcome.records)]
        if not records:
            raise KeyboardInterrupt  # interrupted before any task finished: nothing to report
        best: dict[str, int] = {}
        for record in records:
            for board, score in record.top:
                best[board] = score
        charset = self.lexicon.charset
        key = {board: board_to_codes(parse_board(board, self.shape, charset), charset).astype(np.uint8).tobytes()
               for board in best}
        ranked = sorted(best.items(), key=lambda item: (-item[1], key[item[0]]))[:self.top]
        reasons = {record.stopped for record in records}
        if outcome.interrupted or not outcome.complete and not outcome.stopped_early:
            reasons.add("interrupted")
        if outcome.stopped_early:
            reasons.add("target")
        stopped = next(reason for reason in STOP_ORDER if reason in reasons)
        return SearchResult(self.method, self.shape, records[0].alphabet, self.seed,
                            [ScoredBoard(board, score) for board, score in ranked],
                            sum(r.rounds for r in records), sum(r.evaluations for r in records), seconds, stopped)


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
        if plan.stops(record):
            outcome.stopped_early = task + 1 < plan.tasks
            break
    return plan.merge(outcome, time.perf_counter() - started)
