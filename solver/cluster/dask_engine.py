"""The engine: a job's tasks run on Dask distributed workers, their records merged on the driver.

A `Job` is a header (what the run is: a checkpoint must match it), its small task
specs (a seed and a budget, a class id: a few hundred bytes each, never arrays or
lexicons), given as an iterable and a count, and a module-level function that turns
one spec into a JSON-able record on a worker. `Engine` is a Dask `Client`: on a
`LocalCluster` of N worker processes started here (the default), or on a running
scheduler (`dask scheduler` and `dask worker` on other machines). Both are the same
code path: tasks are submitted with `Client.submit` (with Dask's `retries=`), at most
WINDOW at a time, topped up from the iterable as they finish (so start-up and memory do
not grow with the number of tasks), gathered with `as_completed`, and a worker that
dies has its tasks run again elsewhere by the scheduler. Each finished record is
appended to the checkpoint before the next is taken, so a killed driver, worker or
cluster loses at most the tasks in flight; a resumed run skips the tasks the checkpoint
holds as the iterable reaches them. Merging the records into an answer is the job's
caller's business (records come back keyed by task id, so the order they finished in
cannot matter).

Importing this module imports nothing heavy; dask and distributed are imported when an
engine starts.
"""

from __future__ import annotations

import hashlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import DawgError
from .checkpoint import Checkpoint

RETRIES = 2  # times Dask runs a task again after an unexpected error (a worker's death is survived separately)
POLL_SECONDS = 0.05  # the driver's wait between looks at finished tasks
STATUS_SECONDS = 0.5  # at most one status (and one scheduler query) per this many seconds
CONNECT_SECONDS = 10
WINDOW = 1000  # tasks submitted and not yet finished, at most (about 0.5 ms each to submit)
LOCAL_HOST = "127.0.0.1"  # a local cluster serves this machine alone: nothing of it is reachable from others


@dataclass(frozen=True)
class Job:
    """What the engine runs: `function(spec)` for every (task id, spec) of `tasks` not yet recorded,
    `count` of them (read once, lazily: they need not fit in memory). `function` must be importable
    on the workers (module level in this package); task ids are ints or strings and unique."""

    header: dict
    tasks: Iterable[tuple[Any, Any]]
    count: int
    function: Callable[[Any], dict]

    @property
    def kind(self) -> str:
        return str(self.header.get("kind", "job"))

    def token(self) -> str:
        """A short digest of the header, so task keys of different runs never collide on a scheduler."""
        return hashlib.sha256(json.dumps(self.header, sort_keys=True).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class EngineStatus:
    """Where a job stands, for progress displays."""

    done: int  # tasks recorded, those resumed from the checkpoint included
    total: int
    resumed: int  # tasks that were already in the checkpoint
    workers: int  # worker processes alive now
    lost: int  # workers that went away during the run (killed, crashed, shut down)
    failures: int  # tasks that raised (each is retried RETRIES times before the run fails)
    seconds: float


@dataclass
class Outcome:
    """A job's records by task id (all of them unless stopped early or interrupted)."""

    records: dict
    total: int
    resumed: frozenset = frozenset()  # the task ids that were already in the checkpoint
    stopped_early: bool = False  # `on_record` asked to stop (e.g. a target score was reached)
    interrupted: bool = False  # Ctrl-C
    lost: int = 0
    failures: int = 0

    @property
    def complete(self) -> bool:
        return len(self.records) == self.total


class Engine:
    """A Dask client: on a LocalCluster of `workers` processes (one task at a time each), or on
    the scheduler at `scheduler` (e.g. tcp://host:8786) with whatever workers joined it. A local
    cluster's scheduler, dashboard and workers listen on `host` (this machine only, unless asked)."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, retries: int = RETRIES,
                 connect_seconds: float = CONNECT_SECONDS, host: str = LOCAL_HOST) -> None:
        if workers is not None and scheduler is not None:
            raise DawgError("give a number of local workers or a scheduler's address, not both")
        self.workers = workers
        self.scheduler = scheduler
        self.retries = retries
        self.connect_seconds = connect_seconds
        self.host = host
        self.client = None
        self.cluster = None
        self._start_method = None  # Dask's configuration while a local cluster lives: how it starts workers

    def __enter__(self) -> Engine:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        import logging

        from distributed import Client, LocalCluster

        if self.scheduler is not None:
            _check_scheduler(self.scheduler, self.connect_seconds)
            try:
                self.client = Client(self.scheduler, timeout=f"{self.connect_seconds}s")
            except (OSError, TimeoutError, ValueError) as err:
                raise DawgError(f"cannot reach the Dask scheduler at {self.scheduler} ({err})") from None
            return
        from distributed.comm.addressing import unparse_host_port

        from ..backends import usable_cores

        count = self.workers or usable_cores()
        self._start_method = _worker_start_method()
        try:
            # Ctrl-C on a terminal reaches every process of the group: the workers start with SIGINT
            # blocked (they inherit it), so only the driver sees it and shuts them down in order;
            # one during the start-up is raised once the cluster exists.
            with _sigint_held():
                self.cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True, host=self.host,
                                            # any free port: two runs never collide
                                            dashboard_address=unparse_host_port(self.host, 0),
                                            # the engine reports failures itself, in one line: Dask's own
                                            # logs, even CRITICAL ones about comms closed by a Ctrl-C, stay quiet
                                            silence_logs=logging.CRITICAL + 1)
            self.client = Client(self.cluster)
        except BaseException:  # Ctrl-C during the start-up included: the caller's `with` never got the engine
            self.close()
            raise

    def close(self) -> None:
        if self.client is not None:
            if self.scheduler_lost():  # closing would wait for it to come back, and log that it did not
                import logging

                logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
                self.client.close(timeout=1)
            else:
                self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        if self._start_method is not None:
            self._start_method.__exit__(None, None, None)
            self._start_method = None

    def scheduler_lost(self) -> bool:
        """Whether the client lost its scheduler (it then tries to reconnect, then closes)."""
        return self.client is not None and self.client.status not in ("running", "newly-created")

    @property
    def dashboard(self) -> str | None:
        """The address of the scheduler's dashboard, when it serves one. It needs bokeh where the
        scheduler runs; without it the scheduler's web server still answers, with a page that says
        so (Dask's MissingBokeh), so the page is read rather than only the status."""
        if self.client is None:
            return None
        from urllib.request import urlopen

        link = self.client.dashboard_link
        try:
            with urlopen(link, timeout=1) as response:
                page = response.read(4096)
                return link if response.status == 200 and b"Dask needs bokeh" not in page else None
        except (OSError, ValueError):
            return None

    def worker_addresses(self) -> set[str]:
        return set(self.client.nthreads())

    def run(self, job: Job, checkpoint: Checkpoint | None = None,
            on_record: Callable[[Any, dict], bool | None] | None = None,
            on_status: Callable[[EngineStatus], None] | None = None) -> Outcome:
        """Run every task of `job` the checkpoint does not hold; returns all the records (the
        checkpoint's included). `on_record(task, record)` is called for each new record once it
        is durable, and stops the run by returning True; `on_status` gets progress at most
        every STATUS_SECONDS. A task that raises DawgError fails the run with that error at once;
        other errors are retried (Dask's `retries`), then say which task failed and why."""
        from distributed import as_completed

        records: dict = dict(checkpoint.records) if checkpoint is not None else {}  # its header is this job's
        outcome = Outcome(records, job.count, frozenset(records))
        resumed = len(records)
        started = time.perf_counter()
        token = job.token()
        futures: dict = {}  # future -> its task id
        flying: set = set()  # the task ids of `futures`
        tasks = iter(job.tasks)
        pending = as_completed()

        def top_up() -> None:
            """Submit tasks not yet recorded until WINDOW are in flight or none is left."""
            while len(futures) < WINDOW:
                task, spec = next(tasks, (None, None))
                if task is None:
                    return
                if task in records:
                    continue
                if task in flying:
                    raise DawgError(f"{job.kind}: task ids repeat ({task})")
                future = self.client.submit(run_task, job.function, spec, key=f"{job.kind}-{token}-{task}",
                                            retries=self.retries, pure=False)
                futures[future] = task
                flying.add(task)
                pending.add(future)

        seen = self.worker_addresses()
        last_status = -STATUS_SECONDS

        def report(force: bool = False) -> None:
            nonlocal seen, last_status
            now = time.perf_counter() - started
            if on_status is None or (not force and now - last_status < STATUS_SECONDS):
                return
            last_status = now
            alive = self.worker_addresses()
            outcome.lost += len(seen - alive)
            seen = alive
            on_status(EngineStatus(len(records), job.count, resumed, len(alive), outcome.lost, outcome.failures, now))

        try:
            top_up()
            report(force=True)
            while not pending.is_empty():
                batch = pending.next_batch(block=False)
                if not batch:
                    report()
                    time.sleep(POLL_SECONDS)
                    continue
                for future in batch:
                    if future.status not in ("finished", "error", "cancelled"):
                        # Lost with a dying worker after as_completed saw it: the scheduler runs it
                        # again elsewhere, so wait for it once more.
                        pending.add(future)
                        continue
                    task = futures.pop(future)
                    flying.discard(task)
                    if future.status != "finished":
                        outcome.failures += 1
                        if self.scheduler_lost():
                            raise _scheduler_lost(self.client.scheduler.address, len(records), job.count,
                                                  checkpoint)
                        raise _failure(job, task, future)
                    record = future.result()
                    future.release()
                    if isinstance(record, TaskError):
                        outcome.failures += 1
                        raise DawgError(record.message)
                    # Kept before it is made durable: Ctrl-C during the fsync must not drop a
                    # record the checkpoint (and anyone reading it) may already hold.
                    records[task] = record
                    if checkpoint is not None:
                        checkpoint.append(task, record)
                    if on_record is not None and on_record(task, record):
                        outcome.stopped_early = True
                        return outcome
                top_up()
                report()
            report(force=True)
            return outcome
        except KeyboardInterrupt:
            outcome.interrupted = True
            return outcome
        finally:
            if futures:
                self.client.cancel(list(futures))


@dataclass(frozen=True)
class TaskError:
    """A task's DawgError, sent back as its result: the same input fails the same way on any
    worker, so it is reported at once instead of being retried (and logged) by Dask."""

    message: str


def run_task(function: Callable[[Any], dict], spec) -> dict | TaskError:
    """`function(spec)` on a worker, its DawgError returned rather than raised."""
    try:
        return function(spec)
    except DawgError as err:
        return TaskError(str(err))


def _failure(job: Job, task, future) -> Exception:
    """The error a failed task ends the run with."""
    try:
        error = future.exception()
    except Exception as err:  # noqa: BLE001 (cancelled futures raise here)
        error = err
    if isinstance(error, DawgError):
        return error
    name = type(error).__name__
    if name == "KilledWorker":
        return DawgError(f"{job.kind} task {task} was running on workers that died, as often as Dask allows "
                         f"for one task ({error}); the run stops (resume it from its checkpoint)")
    return DawgError(f"{job.kind} task {task} failed on a worker: {name}: {error}")


def _scheduler_lost(address: str, done: int, total: int, checkpoint: Checkpoint | None) -> DawgError:
    """The error a run ends with when its scheduler went away (killed, crashed, its machine lost)."""
    if checkpoint is None:
        kept = "they were not recorded (no checkpoint)"
    else:
        kept = f"they are recorded in {checkpoint.path}: resume the run from it (--resume) to continue"
    return DawgError(f"lost the Dask scheduler at {address} with {done:,} of {total:,} tasks done; {kept}")


def _check_scheduler(address: str, seconds: float) -> None:
    """DawgError within `seconds` unless a Dask scheduler answers at `address`. Dask's own connect
    waits for the handshake without a time limit (a silent server hangs it) and trusts the first
    bytes it reads as a frame's length (a server that speaks first makes it allocate exabytes)."""
    import asyncio

    from distributed.comm import connect

    async def handshake():
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds)
        await comm.close()

    try:
        asyncio.run(handshake())
    except TimeoutError:
        raise DawgError(f"no Dask scheduler answered at {address} within {seconds:g} s "
                        "(is it a Dask scheduler's address?)") from None
    except OSError as err:
        raise DawgError(f"cannot reach the Dask scheduler at {address} ({err})") from None
    except ValueError as err:
        raise DawgError(f"not a Dask scheduler's address: {address} ({err})") from None
    except Exception as err:  # noqa: BLE001 (whatever garbage the server sent broke the handshake)
        raise DawgError(f"{address} is not a Dask scheduler (it does not speak Dask's protocol: "
                        f"{type(err).__name__}); a dashboard's port?") from None


def _worker_start_method():
    """Dask's configuration set (until its `__exit__`) so that a local cluster's worker processes are
    forked from a server process that imported Dask once (multiprocessing's forkserver), where the
    platform has one, instead of each starting a fresh interpreter that imports it again (Dask's
    default, spawn): about 0.3 CPU-seconds less a worker, at every start and restart. Forked from a
    clean server, not from this process, they share none of its threads or locks; they inherit the
    server's environment, this process's when its first local cluster started."""
    import multiprocessing

    import dask

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return dask.config.set({"distributed.worker.multiprocessing-method": method})


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread while the block runs, then acted on. The threads started
    meanwhile (Dask's event loop, which spawns the workers, then respawns any that die) inherit
    the block, and so do the worker processes: blocked for good there, the terminal's Ctrl-C never
    reaches them. An interrupt that arrives meanwhile is recorded and raised again after the block,
    so a Ctrl-C during the cluster's start-up still stops the run. A process started with SIGINT
    ignored (`nohup`, `cmd &` in a script) keeps it ignored, and so do its workers."""
    from multiprocessing import resource_tracker

    arrived = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    # only the main thread may set handlers; None: one set outside Python, which cannot be put back
    catch = threading.current_thread() is threading.main_thread() and previous not in (signal.SIG_IGN, None)
    if catch:
        signal.signal(signal.SIGINT, lambda *_: arrived.set())
    resource_tracker.ensure_running()  # launched later, from Dask's thread, it would unblock SIGINT there
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one still pending is delivered (recorded) here
        if catch:
            signal.signal(signal.SIGINT, previous)
    if arrived.is_set():
        signal.raise_signal(signal.SIGINT)  # KeyboardInterrupt, or whatever this process does on SIGINT
