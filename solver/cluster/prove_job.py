"""`prove` as an engine job: one task per canonical board class, the class records combined.

A task is (lexicon reference, the `ProofPlan`, a class id, the min score): a few
hundred bytes. A worker runs `solver.proof.prove_class` on its warm lexicon and sends
back `ClassRecord.to_dict()`, which is also what the checkpoint stores per class. The
answer (`solver.proof.combine` of all records) does not depend on which worker proved
which class, in what order, or how often the run was resumed. The class order is the
one `solver.proof.prove` uses (`ProofPlan.canonical_order`: the canonical ids in an
order shuffled by the seed, listed lazily, so a proof of any size starts at once), so
the ETA is honest; `limit` keeps only the first classes of that order: a uniform random sample
of the classes (`dawg-solve prove --sample`, solver.proof.sample projects the whole proof's
cost from it), which proves nothing about the whole shape. A sample's checkpoint records the
seed and the order but not how many: the first N classes of the order are the first of any
larger sample, so a larger --sample resumes a smaller one's checkpoint and refines it.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..board import Shape
from ..rules import Rules
from . import worker
from .dask_engine import Job, Outcome
from .plan_run import job_header, with_rules
from .worker import LexiconRef

ORDER = "feistel"  # which class order a share's first classes are taken from (a share's checkpoint records it)
MAX_SEED = 1 << 64  # seeds of the class order: what a checkpoint's header (msgpack) holds


@dataclass(frozen=True)
class ProveTask:
    lexicon: LexiconRef
    plan: object  # solver.proof.ProofPlan (small, frozen, picklable)
    class_id: int
    min_score: int
    rules: Rules


def run_prove_task(spec: ProveTask, lexicon=None) -> dict:
    """One class on this process's warm lexicon (or `lexicon`); returns its record as a dict."""
    from ..proof import prove_class

    lexicon = lexicon if lexicon is not None else worker.lexicon(spec.lexicon)
    return prove_class(lexicon, spec.plan, spec.class_id, spec.min_score, spec.rules).to_dict()


class ProvePlan:
    """A proof over `shape` at `min_score` under `rules` (None: the lexicon's) split into class
    tasks (see the module docstring)."""

    def __init__(self, lexicon, shape: Shape, min_score: int, classes: str | None = None, seed: int = 0,
                 limit: int | None = None, rules: Rules | None = None) -> None:
        from ..errors import ParameterError
        from ..proof import make_plan

        if limit is not None and limit < 1:
            raise ParameterError("limit", f"must be 1 or more, got {limit}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:  # a checkpoint records it
            raise ParameterError("seed", f"must be 0 or more and below 2^64, got {seed!r}")
        self.lexicon = lexicon
        self.rules = lexicon.rules if rules is None else rules
        self.min_score = min_score
        self.seed = seed
        self.limit = limit
        self.plan = make_plan(lexicon, shape, classes)
        self.shape = self.plan.shape
        self.ref = LexiconRef.of(lexicon)
        count = self.plan.canonical_count()
        self.total = count if limit is None else min(limit, count)  # classes to prove

    def ids(self) -> Iterator[int]:
        """The class ids to prove, in the seed's order, listed lazily."""
        return itertools.islice(self.plan.canonical_order(self.seed), self.total)

    def header(self) -> dict:
        """What a checkpoint of this proof must match: lexicon, shape, split and target (and, for a
        share of the classes, which share)."""
        return job_header("prove", self.ref, self.rules, shape=str(self.shape), split=self.plan.spec(),
                          min_score=self.min_score,
                          share=None if self.limit is None else {"seed": self.seed, "order": ORDER},
                          plan=self.plan.fingerprint())

    def check_record(self, task, record: dict) -> None:
        """The schema of a class record read back from a checkpoint (`ClassRecord.schema`): BadField if not."""
        from ..proof import ClassRecord
        from ..schema import BadField

        ClassRecord.schema(self.plan)(record, "record")
        if record["class_id"] != task:
            raise BadField("record.class_id", f"the line's task, {task}", record["class_id"])

    def upgrade_header(self, stored: dict, version: int) -> dict:
        """A format-1 header named the lexicon by arrays that change between versions, but its plan
        fingerprint holds the words' digest (`Lexicon.identity`): where that plan is this proof's,
        the lexicon is this one."""
        if version == 1 and stored.get("plan") == self.plan.fingerprint():
            stored = {**stored, "lexicon": self.ref.identity}
        return with_rules(stored)

    def stops(self, record: dict) -> bool:
        """A proof runs every class."""
        return False

    def job(self) -> Job:
        return Job(self.header(), ((class_id, ProveTask(self.ref, self.plan, class_id, self.min_score, self.rules))
                                   for class_id in self.ids()), self.total, run_prove_task)

    def records(self, outcome: Outcome) -> list:
        """The `ClassRecord`s of this run's classes, in class id order (a sample's checkpoint may
        hold more classes than this sample's)."""
        from ..proof import ClassRecord

        wanted = sorted(outcome.records) if self.limit is None else sorted(set(self.ids()) & set(outcome.records))
        return [ClassRecord.from_dict(outcome.records[class_id]) for class_id in wanted]

    def complete(self, outcome: Outcome) -> bool:
        """Whether every class of this run is recorded (a sample's checkpoint may hold more)."""
        done = len(outcome.records) if self.limit is None else sum(c in outcome.records for c in self.ids())
        return done == self.total

    def merge(self, outcome: Outcome, seconds: float):
        """The proof's result from the records of all its classes (CPU-seconds: the classes' own),
        every board they report checked and scored again here first (`solver.proof.prover.check_records`)."""
        from ..proof import combine
        from ..proof.prover import check_records

        chosen = self.records(outcome)
        check_records(self.lexicon, self.plan, self.min_score, chosen, self.rules)
        return combine(self.plan, self.min_score, chosen, seconds, sum(r.cpu_seconds for r in chosen), self.rules)

    def verify_sample(self, records: dict, count: int) -> list[int]:
        """Prove `count` of the recorded classes again in this process (a sample drawn by the seed)
        and refuse a record whose bound or boards differ: a worker that drops a class's boards is
        caught only this way. Returns the class ids verified (all of them when there are fewer)."""
        from ..errors import DawgError, ParameterError
        from ..proof import ClassRecord, prove_class

        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ParameterError("count", f"must be 0 or more, got {count!r}")
        chosen = random.Random(self.seed).sample(sorted(records), min(count, len(records)))
        for class_id in chosen:
            stored = ClassRecord.from_dict(records[class_id])
            again = prove_class(self.lexicon, self.plan, class_id, self.min_score, self.rules)
            if (stored.bound, stored.boards) != (again.bound, again.boards):
                raise DawgError(f"class {class_id}: its record does not match a proof of it here (bound "
                                f"{stored.bound:,} recorded, {again.bound:,} proved; {len(stored.boards):,} "
                                f"boards recorded, {len(again.boards):,} found); a worker or the checkpoint "
                                f"is not to be trusted")
        return chosen


def prove_in_process(plan: ProvePlan):
    """The same classes proved one after another in this process (the engine's reference)."""
    started = time.perf_counter()
    records = {task: run_prove_task(spec, plan.lexicon) for task, spec in plan.job().tasks}
    return plan.merge(Outcome(records, len(records)), time.perf_counter() - started)
