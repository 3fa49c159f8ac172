"""Long runs on Dask distributed: tasks on many processes and machines, checkpoints, resume.

- `checkpoint`: the checkpoint file format (a header, then one durable record per
  finished task), defined once; reading it back tolerates a torn last record.
- `engine`: `Engine` (a Dask client on a LocalCluster or an existing scheduler) runs a
  `Job` (a header, small task specs, a worker-side function) and returns its records.
- `worker`: what a worker process keeps warm between tasks (lexicons opened once by
  path and checked against the driver's fingerprint, their scorers).
- `search_job`: `search` as a job (independent searches, top lists merged).
- `prove_job`: `prove` as a job (one task per canonical class, class records combined).

A new kind of run is one adapter module like `search_job`: build the `Job` (header,
task specs, a module-level task function returning a JSON-able record) and merge
the records. dask and distributed are imported only when an engine starts.
"""

from .checkpoint import Checkpoint, read_checkpoint
from .engine import Engine, EngineStatus, Job, Outcome
from .worker import LexiconRef, lexicon_fingerprint

__all__ = ["Checkpoint", "Engine", "EngineStatus", "Job", "LexiconRef", "Outcome", "lexicon_fingerprint",
           "read_checkpoint"]
