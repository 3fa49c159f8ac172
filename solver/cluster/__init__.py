"""Long runs on Dask distributed: tasks on many processes and machines, checkpoints, resume.

- `checkpoint`: the checkpoint file format (a header, then one durable record per
  finished task), defined once; reading it back tolerates a torn last record.
- `dask_engine`: `Engine` (a Dask client on a LocalCluster or an existing scheduler) runs a
  `Job` (a header, small task specs, a worker-side function) and returns its records.
- `plan_run`: the job protocol (`Plan`, `job_header`) and `run_plan`, the one owner of a run's
  engine and checkpoint: open, start, run, merge, close.
- `worker`: what a worker process keeps warm between tasks (lexicons opened once by
  path and checked against the driver's fingerprint, their scorers).
- `search_job`: `search` as a plan (independent searches, `SearchRecord`s, top lists merged).
- `prove_job`: `prove` as a plan (one task per canonical class, `ClassRecord`s combined).

A new kind of run is one adapter module like `search_job`: a `Plan` (its `Job` of header,
task specs and a module-level task function returning a record type's `to_dict()`, the
record's schema, and the merge of the records), run with `run_plan`. dask and distributed
are imported only when an engine starts.
"""

from .checkpoint import Checkpoint, read_checkpoint
from .dask_engine import Engine, EngineStatus, Job, Outcome
from .plan_run import Plan, job_header, run_plan
from .worker import LexiconRef, lexicon_fingerprint

__all__ = ["Checkpoint", "Engine", "EngineStatus", "Job", "LexiconRef", "Outcome", "Plan", "job_header",
           "lexicon_fingerprint", "read_checkpoint", "run_plan"]
