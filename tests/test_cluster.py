"""The Dask engine (solver.cluster) under `search`: the same answer on any number of workers, a driver
SIGKILLed again and again and resumed, a killed worker survived, truncated and mismatched checkpoints.

One cluster serves the whole module, started as a user would on two machines: a `dask scheduler`
process and a `dask worker` process (two worker processes) joined to it by a scheduler file. The
drivers reach it with --scheduler, so no test pays for a cluster start-up of its own.
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import parse_size
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.cluster import Checkpoint, Engine, Job, read_checkpoint, run_plan
from boggle_dawg.solver.cluster.checkpoint import record_line
from boggle_dawg.solver.cluster.dask_engine import TaskError, _sigint_held, run_task
from boggle_dawg.solver.cluster.search_job import SearchPlan, search_in_process
from boggle_dawg.solver.cluster.worker import LexiconRef
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import Budget

from support import REPO, assert_clean_error, run_cli, sigint_default, word_list_path

pytestmark = pytest.mark.slow  # a cluster of separate processes, drivers killed and resumed: seconds each

TASKS = 12
ROUNDS = 12


def _dask(*args: str) -> list[str]:
    """The `dask` command of this environment (its module when the script is not next to python)."""
    script = Path(sys.executable).with_name("dask")
    if script.exists():
        return [str(script), *args]
    module = {"scheduler": "distributed.cli.dask_scheduler", "worker": "distributed.cli.dask_worker"}[args[0]]
    return [sys.executable, "-m", module, *args[1:]]


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _start_scheduler(info: Path) -> tuple[subprocess.Popen, str]:
    """A `dask scheduler` process on this machine (no dashboard), writing its scheduler file `info`, and
    its address once written; stopped again if it does not start within a minute."""
    scheduler = subprocess.Popen(_dask("scheduler", "--scheduler-file", str(info), "--host", "127.0.0.1", "--port",
                                       "0", "--no-dashboard"), cwd=info.parent, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert scheduler.poll() is None and time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.05)
        return scheduler, json.loads(info.read_text())["address"]
    except BaseException:
        _stop(scheduler)
        raise


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The address of a scheduler with two worker processes, started as separate processes."""
    where = tmp_path_factory.mktemp("cluster")
    info = where / "scheduler.json"
    scheduler, address = _start_scheduler(info)
    workers = None
    try:
        workers = subprocess.Popen(_dask("worker", "--scheduler-file", str(info), "--nworkers", "2", "--nthreads", "1",
                                         "--no-dashboard", "--local-directory", str(where)), cwd=where,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with Engine(scheduler=address) as engine:
            engine.client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in (workers, scheduler):
            if process is not None:
                _stop(process)


@pytest.fixture(scope="module")
def lexicon_dir(tmp_path_factory):
    """A small lexicon: every eighth word of the shipped list."""
    where = tmp_path_factory.mktemp("lexicon")
    words = word_list_path("default").read_text().split()[::8]
    (where / "words.txt").write_text("\n".join(words) + "\n")
    build_lexicon(where / "words.txt", parse_charset("26"), where / "build")
    return where / "build"


@pytest.fixture(scope="module")
def lexicon(lexicon_dir):
    return open_lexicon(lexicon_dir)


def _plan(lexicon, tasks=TASKS, **kwargs) -> SearchPlan:
    return SearchPlan(lexicon, parse_size("3x3"), kwargs.pop("budget", Budget(rounds=ROUNDS)), "hillclimb", 11,
                      tasks, top=5, **kwargs)


@pytest.fixture(scope="module")
def reference(lexicon):
    """The in-process answer every engine run must give."""
    with lexicon.scorer(1) as scorer:
        return search_in_process(_plan(lexicon), scorer)


def _cli_search(lexicon_dir, *args, timeout=120):
    return run_cli("boggle_dawg.dawg_solve", "search", str(lexicon_dir), "--size", "3x3", "--rounds", str(ROUNDS),
                   "--seed", "11", "--tasks", str(TASKS), "--top", "5", "--json", "-q", *args, timeout=timeout)


def _answer(data: dict) -> tuple:
    return data["top"], data["rounds"], data["evaluations"], data["stopped"]


def _reference_answer(reference) -> tuple:
    return ([{"board": b.board, "score": b.score} for b in reference.top], reference.rounds, reference.evaluations,
            reference.stopped)


def test_one_task_is_the_plain_search(lexicon):
    from boggle_dawg.solver.search import search

    with lexicon.scorer(1) as scorer:
        plain = search(scorer, parse_size("3x3"), Budget(rounds=ROUNDS), seed=11, top=5)
        one = search_in_process(_plan(lexicon, tasks=1), scorer)
    assert (one.top, one.rounds, one.evaluations, one.stopped) == (plain.top, plain.rounds, plain.evaluations,
                                                                   plain.stopped)


def test_workers_of_a_separate_scheduler_give_the_in_process_answer(cluster, lexicon, reference):
    result, outcome = run_plan(_plan(lexicon), scheduler=cluster)
    assert outcome.complete and not outcome.resumed
    assert (result.top, result.rounds, result.evaluations, result.stopped) == (
        reference.top, reference.rounds, reference.evaluations, reference.stopped)
    assert result.top[0].score > 0 and len(result.top) == 5


def test_a_local_cluster_of_two_workers_gives_the_same_answer(lexicon_dir, reference, tmp_path):
    proc = _cli_search(lexicon_dir, "--workers", "2", "--checkpoint", str(tmp_path / "run.ckpt"))
    assert proc.returncode == 0, proc.stderr
    assert _answer(json.loads(proc.stdout)) == _reference_answer(reference)
    assert set(read_checkpoint(tmp_path / "run.ckpt").records) == set(range(TASKS))


def test_ctrl_c_on_a_local_cluster_keeps_the_finished_tasks(lexicon_dir, tmp_path):
    """Ctrl-C reaches the driver and its workers (one process group): the workers ignore it, the
    driver prints the boards of the finished tasks, and the checkpoint resumes the rest."""
    checkpoint = tmp_path / "run.ckpt"
    args = ["search", str(lexicon_dir), "--size", "4x4", "--rounds", "15", "--seed", "3", "--tasks", "6",
            "--workers", "2", "--checkpoint", str(checkpoint)]
    driver = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", *args], cwd=REPO, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                              preexec_fn=sigint_default)
    try:
        deadline = time.monotonic() + 90
        while not (checkpoint.exists() and len(read_checkpoint(checkpoint).records) >= 1):
            assert driver.poll() is None and time.monotonic() < deadline, "no task finished"
            time.sleep(0.1)
        os.killpg(driver.pid, signal.SIGINT)
        stdout, stderr = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
    assert driver.returncode == 130, stderr
    assert "Traceback" not in stderr and "ERROR" not in stderr, stderr
    assert stdout.startswith("best board, ") and stdout.splitlines()[-2].endswith("interrupted")
    assert stdout.splitlines()[-1] == "interrupted: a partial result, the best boards found before Ctrl-C"
    done = len(read_checkpoint(checkpoint).records)
    assert 1 <= done < 6 and f"seed 3: {done} of 6 tasks, " in stdout


@pytest.mark.parametrize("delay", [0.0, 0.2, 0.5])
def test_ctrl_c_while_a_local_cluster_starts_stops_the_run(lexicon_dir, delay):
    """Ctrl-C to the whole group (as a terminal sends it) while the local cluster starts: the workers
    starting then are immune to it, and the driver acts on it once the cluster exists, status 130."""
    import psutil

    args = ["search", str(lexicon_dir), "--size", "3x3", "--rounds", str(ROUNDS), "--tasks", str(TASKS),
            "--workers", "2", "-q"]
    driver = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", *args], cwd=REPO, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                              preexec_fn=sigint_default)
    try:
        deadline = time.monotonic() + 60
        while not psutil.Process(driver.pid).children():  # the cluster's start-up has begun
            assert driver.poll() is None and time.monotonic() < deadline, "no local cluster started"
            time.sleep(0.01)
        time.sleep(delay)
        os.killpg(driver.pid, signal.SIGINT)
        _, stderr = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
    assert driver.returncode == 130, stderr
    assert stderr.splitlines()[-1:] == ["dawg-solve: error: interrupted"] and "Traceback" not in stderr, stderr


def test_ctrl_c_during_a_start_up_is_held_then_raised_unless_ignored():
    """The local cluster's start-up holds SIGINT back and raises it after; a process started with
    SIGINT ignored (`nohup`, `cmd &`: deliberately immune to Ctrl-C) keeps ignoring it."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        for handler in (signal.default_int_handler, signal.SIG_IGN):
            signal.signal(signal.SIGINT, handler)
            held, raised = False, False
            try:
                with _sigint_held():
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)
                    held = True
            except KeyboardInterrupt:
                raised = True
            assert (held, raised) == (True, handler is signal.default_int_handler)
            assert signal.getsignal(signal.SIGINT) is handler
            assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, previous)


def test_local_workers_are_immune_to_ctrl_c():
    """The terminal's Ctrl-C reaches the workers too: they start with SIGINT blocked or ignored, so
    only the driver acts on it (and shuts them down in order)."""
    with Engine(workers=2) as engine:
        immune = engine.client.run(lambda: signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
                                   or signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
    assert list(immune.values()) == [True, True]


def test_a_local_cluster_listens_on_this_machine_only():
    """The local cluster's scheduler, its dashboard, the nannies and the workers listen on 127.0.0.1,
    not on every interface: a run opens nothing to the network."""
    import psutil

    def listening() -> set:
        here = psutil.Process()
        return {(process.pid, connection.laddr) for process in [here, *here.children(recursive=True)]
                for connection in process.net_connections("inet") if connection.status == psutil.CONN_LISTEN}

    before = listening()
    with Engine(workers=1) as engine:
        opened = listening() - before
        dashboard = urlsplit(engine.client.dashboard_link)
    assert dashboard.hostname == "127.0.0.1" and dashboard.port in {address.port for _, address in opened}
    assert {address.ip for _, address in opened} == {"127.0.0.1"}, opened


def test_ctrl_c_as_a_record_is_made_durable_keeps_it(cluster, lexicon, tmp_path, monkeypatch):
    """Ctrl-C that lands while a record is being written (a reader may already see it in the
    checkpoint) leaves that record in the outcome: what the checkpoint holds is reported."""
    path = tmp_path / "run.ckpt"
    plan = _plan(lexicon)
    make_durable = Checkpoint.append

    def interrupted_after_the_write(self, task, record):
        make_durable(self, task, record)
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "append", interrupted_after_the_write)
    _, outcome = run_plan(plan, scheduler=cluster, checkpoint=path)
    assert outcome.interrupted and not outcome.complete
    assert list(outcome.records) == list(read_checkpoint(path).records) and len(outcome.records) == 1


def _recorded_tasks(checkpoint: Path) -> list:
    """The task ids of a checkpoint's complete record lines (none when there is no file yet)."""
    lines = checkpoint.read_bytes().splitlines() if checkpoint.exists() else []
    return [json.loads(line)["task"] for line in lines[1:] if line.endswith(b"}")]


def _start_and_wait_to_kill(command: list, checkpoint: Path, kill: int, chance: random.Random,
                            seconds: tuple[float, float]) -> subprocess.Popen:
    """Start a run (resuming its checkpoint) and wait for the moment to kill it: for an odd `kill`, a random
    moment of `seconds` (starting up, connecting or running), else just after a record lands, so that kills
    fall mid-run however fast or loaded the machine is."""
    before = len(_recorded_tasks(checkpoint))
    driver = subprocess.Popen(_resuming(command, checkpoint), cwd=REPO, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    if kill % 2:
        time.sleep(chance.uniform(*seconds))
    else:
        deadline = time.monotonic() + 60
        while driver.poll() is None and len(_recorded_tasks(checkpoint)) == before and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(chance.uniform(0, 0.02))
    return driver


def _resuming(command: list, checkpoint: Path) -> list:
    """The command, with --resume once the checkpoint is there (a run killed before writing it left none)."""
    return command + ["--resume"] if checkpoint.exists() else command


def test_the_driver_killed_20_times_and_resumed_gives_the_same_answer(cluster, lexicon_dir, reference, tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    command = [sys.executable, "-m", "boggle_dawg.dawg_solve", "search", str(lexicon_dir), "--size", "3x3",
               "--rounds", str(ROUNDS), "--seed", "11", "--tasks", str(TASKS), "--top", "5", "--json", "-q",
               "--scheduler", cluster, "--checkpoint", str(checkpoint)]
    chance = random.Random(20)
    counts = []
    for kill in range(20):
        driver = _start_and_wait_to_kill(command, checkpoint, kill, chance, (0.2, 1.8))
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        tasks = _recorded_tasks(checkpoint)
        assert len(tasks) == len(set(tasks)), "a task recorded twice"
        counts.append(len(tasks))
        if len(tasks) == TASKS:  # the run finished before the kill: start another, for later kills to cut
            checkpoint.unlink()
    assert sum(0 < count < TASKS for count in counts) >= 5, counts  # killed mid-run, with some tasks recorded
    final = subprocess.run(_resuming(command, checkpoint), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert _answer(json.loads(final.stdout)) == _reference_answer(reference)
    contents = read_checkpoint(checkpoint)
    assert sorted(contents.records) == list(range(TASKS)) and not contents.torn and contents.duplicates == 0


def _run_killing_a_worker(cluster: str, plan, victim: int, **options) -> tuple:
    """Run `plan` on the module's cluster, SIGKILLing worker `victim` (an index into the sorted worker
    addresses) as the first record arrives; wait for its replacement. (result, outcome, workers killed)."""
    killed = []
    with Engine(scheduler=cluster) as engine:
        def kill_one(task, record):
            if not killed:
                pids = engine.client.run(os.getpid)
                worker = sorted(pids)[victim]
                os.kill(pids[worker], signal.SIGKILL)
                killed.append(worker)

        result, outcome = run_plan(plan, engine=engine, on_record=kill_one, **options)
        engine.client.wait_for_workers(2, timeout=60)  # the worker's nanny starts a new one for the next tests
    return result, outcome, killed


def test_a_killed_worker_is_survived(cluster, lexicon, reference):
    statuses = []
    result, outcome, killed = _run_killing_a_worker(cluster, _plan(lexicon), 0, on_status=statuses.append)
    assert killed and outcome.complete
    assert statuses[-1].lost >= 1 and statuses[-1].done == TASKS  # the progress display counts the loss
    assert (result.top, result.rounds, result.evaluations) == (reference.top, reference.rounds, reference.evaluations)


def test_a_truncated_checkpoint_is_resumed_from(cluster, lexicon, reference, tmp_path):
    path = tmp_path / "run.ckpt"
    plan = _plan(lexicon)
    run_plan(plan, scheduler=cluster, checkpoint=path)
    lines = path.read_bytes().splitlines(keepends=True)
    kept = lines[:1 + TASKS // 2]
    torn = record_line(7, {"half": "a record"})[:-9]
    path.write_bytes(b"".join(kept) + torn)
    assert len(read_checkpoint(path).records) == TASKS // 2
    result, outcome = run_plan(plan, scheduler=cluster, checkpoint=path, resume=True)
    assert len(outcome.resumed) == TASKS // 2
    assert (result.top, result.rounds, result.evaluations) == (reference.top, reference.rounds, reference.evaluations)
    contents = read_checkpoint(path)
    assert sorted(contents.records) == list(range(TASKS)) and not contents.torn and contents.duplicates == 0


def test_a_finished_checkpoint_gives_its_answer_without_an_engine(cluster, lexicon, lexicon_dir, reference, tmp_path,
                                                                   monkeypatch):
    """Resuming a run whose checkpoint holds every task starts no engine (no cluster, no scheduler reached)."""
    from boggle_dawg.solver.cluster import plan_run

    path = tmp_path / "run.ckpt"
    plan = _plan(lexicon)
    run_plan(plan, scheduler=cluster, checkpoint=path)
    kept = path.read_bytes()

    def no_engine(*args, **kwargs):
        raise AssertionError("an engine was started for a finished run")

    monkeypatch.setattr(plan_run, "Engine", no_engine)
    result, outcome = run_plan(plan, workers=2, checkpoint=path, resume=True)
    assert outcome.complete and len(outcome.resumed) == TASKS
    assert (result.top, result.rounds, result.evaluations) == (reference.top, reference.rounds, reference.evaluations)
    assert path.read_bytes() == kept
    monkeypatch.undo()
    proc = run_cli("boggle_dawg.dawg_solve", "search", str(lexicon_dir), "--size", "3x3", "--rounds", str(ROUNDS),
                   "--seed", "11", "--tasks", str(TASKS), "--top", "5", "--json", "--scheduler", "tcp://127.0.0.1:9",
                   "--checkpoint", str(path), "--resume")
    assert proc.returncode == 0, proc.stderr  # the scheduler named is never reached
    assert _answer(json.loads(proc.stdout)) == _reference_answer(reference)
    assert f"none left to run; {TASKS} tasks resumed from {path}" in proc.stderr


def test_a_checkpoint_of_another_run_is_refused(cluster, lexicon_dir, tmp_path):
    path = tmp_path / "run.ckpt"
    proc = _cli_search(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--tasks", "2")
    assert proc.returncode == 0, proc.stderr
    for args, field in [(("--size", "3x4"), "shape"), (("--seed", "12"), "seed"), (("--rounds", "5"), "budget")]:
        proc = _cli_search(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--tasks", "2",
                           "--resume", *args)
        assert_clean_error(proc, str(path), "different run", field)
    words = (lexicon_dir.parent / "words.txt").read_text().split() + ["zyxwv"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    build_lexicon(tmp_path / "words.txt", parse_charset("26"), tmp_path / "smaller")
    proc = run_cli("boggle_dawg.dawg_solve", "search", str(tmp_path / "smaller"), "--size", "3x3", "--rounds",
                   str(ROUNDS), "--seed", "11", "--tasks", "2", "--top", "5", "--scheduler", cluster,
                   "--checkpoint", str(path), "--resume")
    assert_clean_error(proc, "different run", "lexicon")
    assert_clean_error(_cli_search(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--tasks", "2"),
                       "--resume")


def test_resume_without_a_seed_takes_the_checkpoint_s(cluster, lexicon_dir, tmp_path):
    path = tmp_path / "run.ckpt"
    first = _cli_search(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--tasks", "3")
    again = run_cli("boggle_dawg.dawg_solve", "search", str(lexicon_dir), "--size", "3x3", "--rounds", str(ROUNDS),
                    "--tasks", "3", "--top", "5", "--json", "-q", "--scheduler", cluster, "--checkpoint", str(path),
                    "--resume")
    assert first.returncode == again.returncode == 0, again.stderr
    assert _answer(json.loads(first.stdout)) == _answer(json.loads(again.stdout))


def test_a_worker_with_another_lexicon_fails_the_run_in_one_line(cluster, lexicon):
    ref = LexiconRef.of(lexicon)
    wrong = LexiconRef(ref.path, ref.format, "0" * 64, ref.identity)
    plan = _plan(lexicon, tasks=1)
    spec = plan.spec(0)
    job = Job({"kind": "search", "test": "wrong lexicon"}, [(0, type(spec)(**{**spec.__dict__, "lexicon": wrong}))], 1,
              plan.job().function)
    with Engine(scheduler=cluster) as engine, pytest.raises(DawgError, match="differs from the driver"):
        engine.run(job)


def _count_and_fail(path: str) -> dict:
    with open(path, "a") as calls:
        calls.write("x")
    raise DawgError("this input fails the same way on every worker")


def test_a_task_error_is_returned_once_not_raised_for_retries(tmp_path):
    """A DawgError comes back as the task's result (one call), so Dask neither retries nor logs it;
    the engine then fails the run with its message (the lexicon test above)."""
    calls = tmp_path / "calls"
    assert run_task(_count_and_fail, str(calls)) == TaskError("this input fails the same way on every worker")
    assert calls.read_text() == "x"
    assert run_task(lambda spec: {"task": spec}, 7) == {"task": 7}


def test_a_target_stops_the_run(cluster, lexicon, reference):
    target = reference.top[0].score
    result, outcome = run_plan(_plan(lexicon, budget=Budget(rounds=ROUNDS, target=target)), scheduler=cluster)
    assert result.stopped == "target" and result.best.score >= target


@pytest.mark.parametrize("args, fragment", [
    (("--resume",), "--checkpoint"),
    (("--workers", "0"), "--workers"),
    (("--workers", "2", "--scheduler", "tcp://127.0.0.1:1"), "--scheduler"),
    (("--tasks", "0"), "--tasks"),
])
def test_bad_engine_options_are_one_line(lexicon_dir, args, fragment):
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "search", str(lexicon_dir), *args), fragment)


def test_an_unreachable_scheduler_is_one_line():
    with pytest.raises(DawgError) as err, Engine(scheduler="tcp://127.0.0.1:9", connect_seconds=1):
        pass
    assert "tcp://127.0.0.1:9" in str(err.value) and "\n" not in str(err.value)



def _serve(kind: str):
    """A loopback server that is not a Dask scheduler: one that speaks first, an HTTP server, or a
    silent one; returns its address and a function that stops it."""
    if kind == "http":
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return f"tcp://127.0.0.1:{server.server_address[1]}", server.shutdown
    listener = socket.create_server(("127.0.0.1", 0))
    held = []

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            if kind == "speaks first":
                conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

    threading.Thread(target=accept, daemon=True).start()

    def stop():
        listener.close()
        for conn in held:
            conn.close()

    return f"tcp://127.0.0.1:{listener.getsockname()[1]}", stop


@pytest.mark.parametrize("kind", ["speaks first", "http", "silent"])
def test_a_port_that_is_no_dask_scheduler_is_one_line_within_the_timeout(kind):
    address, stop = _serve(kind)
    errors = []

    def connect():
        try:
            with Engine(scheduler=address, connect_seconds=1):
                errors.append(None)
        except BaseException as err:  # noqa: BLE001 (whatever it raises is the finding)
            errors.append(err)

    started = time.monotonic()
    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(10)
    stop()
    assert errors, f"still connecting after {time.monotonic() - started:.0f} s"
    assert isinstance(errors[0], DawgError) and time.monotonic() - started < 5, errors
    assert address in str(errors[0]) and "\n" not in str(errors[0])


def test_a_lost_scheduler_is_named_and_the_checkpoint_offered(lexicon, tmp_path):
    """A scheduler of its own (no workers: the tasks wait), killed while the run waits on it."""
    scheduler, address = _start_scheduler(tmp_path / "scheduler.json")
    try:
        plan = _plan(lexicon, tasks=3)
        with pytest.raises(DawgError) as err:
            run_plan(plan, scheduler=address, checkpoint=tmp_path / "run.ckpt",
                     on_start=lambda engine: threading.Timer(0.5, scheduler.kill).start())
    finally:
        scheduler.kill()
        scheduler.wait()
    message = str(err.value)
    assert f"lost the Dask scheduler at {address}" in message and "0 of 3 tasks" in message, message
    assert f"{tmp_path / 'run.ckpt'}: resume" in message and "\n" not in message


def test_no_dashboard_is_announced_where_none_is_served():
    """The scheduler's web server answers without bokeh, with a page saying the dashboard needs it."""
    with Engine(workers=1) as engine:
        link = engine.client.dashboard_link
        with urllib.request.urlopen(link, timeout=5) as response:
            page = response.read()
        assert (engine.dashboard is None) == (importlib.util.find_spec("bokeh") is None) == (b"needs bokeh" in page)


def test_checkpoint_misuse_is_one_line(lexicon_dir, tmp_path):
    missing = tmp_path / "missing.ckpt"
    assert_clean_error(_cli_search(lexicon_dir, "--workers", "1", "--checkpoint", str(missing), "--resume"),
                       f"no checkpoint at {missing} to resume")
    assert not missing.exists()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for seed in ([], ["--seed", "3"]):  # without a seed the checkpoint's header is read first
        proc = run_cli("boggle_dawg.dawg_solve", "search", str(lexicon_dir), "--size", "3x3", "--rounds", "2", *seed,
                       "--workers", "1", "--checkpoint", str(fifo), "--resume", timeout=30)
        assert_clean_error(proc, str(fifo), "not a regular file")
    path = tmp_path / "run.ckpt"
    with Checkpoint.open(path, {"kind": "another run"}, resume=False):
        assert_clean_error(_cli_search(lexicon_dir, "--workers", "1", "--checkpoint", str(path), "--resume"),
                           str(path), f"in use by another run (pid {os.getpid()} ")

# --- prove on the engine (one task per canonical class) ----------------------------------

PROVE_SIZE, PROVE_SCORE = "2x3", 22
PROVE_CLASSES = "aeiou,bcdfghjklm,npqrstvwxyz"  # 216 canonical classes: enough tasks to kill a run among


@pytest.fixture(scope="module")
def proof_reference(lexicon):
    """The in-process proof (2x3, PROVE_CLASSES) every engine proof must equal."""
    pytest.importorskip("boggle_dawg.solver.proof", reason="solver.proof (dawg-solve prove) is not in this checkout")
    from boggle_dawg.solver.cluster.prove_job import ProvePlan, prove_in_process
    from boggle_dawg.solver.proof import prove

    result = prove_in_process(ProvePlan(lexicon, parse_size(PROVE_SIZE), PROVE_SCORE, PROVE_CLASSES))
    plain = prove(lexicon, parse_size(PROVE_SIZE), PROVE_SCORE, classes=PROVE_CLASSES)
    assert (result.boards, result.classes, result.nodes) == (plain.boards, plain.classes, plain.nodes)
    assert result.boards  # the proof finds boards, so the comparisons below mean something
    return result


def _cli_prove(lexicon_dir, *args, timeout=120):
    return run_cli("boggle_dawg.dawg_solve", "prove", str(lexicon_dir), "--size", PROVE_SIZE, "--min-score",
                   str(PROVE_SCORE), "--classes", PROVE_CLASSES, "--json", "-q", *args, timeout=timeout)


@pytest.fixture(scope="module")
def finished_proof_checkpoint(cluster, lexicon_dir, proof_reference, tmp_path_factory) -> bytes:
    """The checkpoint of a whole `prove --scheduler` run, for the tests that resume copies of it cut or edited."""
    path = tmp_path_factory.mktemp("finished-proof") / "proof.ckpt"
    proc = _cli_prove(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path))
    assert proc.returncode == 0, proc.stderr
    assert _proof_answer(json.loads(proc.stdout)) == _proof_reference_answer(proof_reference)
    return path.read_bytes()


def _proof_answer(data: dict) -> tuple:
    return data["boards"], data["classes"], data["bounds"], data["scored"]


def _proof_reference_answer(result) -> tuple:
    return [{"board": b, "score": s} for b, s in result.boards], result.classes, result.nodes, result.scored


def test_a_proof_on_two_workers_finds_the_in_process_boards(cluster, lexicon_dir, proof_reference):
    proc = _cli_prove(lexicon_dir, "--scheduler", cluster)
    assert proc.returncode == 0, proc.stderr
    assert _proof_answer(json.loads(proc.stdout)) == _proof_reference_answer(proof_reference)


def test_a_proof_killed_20_times_and_resumed_finds_the_same_boards(cluster, lexicon_dir, proof_reference, tmp_path):
    checkpoint = tmp_path / "proof.ckpt"
    command = [sys.executable, "-m", "boggle_dawg.dawg_solve", "prove", str(lexicon_dir), "--size", PROVE_SIZE,
               "--min-score", str(PROVE_SCORE), "--classes", PROVE_CLASSES, "--json", "-q", "--scheduler", cluster,
               "--checkpoint", str(checkpoint)]
    total = proof_reference.classes
    chance = random.Random(9)
    counts = []
    for kill in range(20):
        driver = _start_and_wait_to_kill(command, checkpoint, kill, chance, (0.3, 2.0))
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        lines = checkpoint.read_bytes().splitlines() if checkpoint.exists() else []
        tasks = [json.loads(line)["task"] for line in lines[1:] if line.endswith(b"}")]
        assert len(tasks) == len(set(tasks)), "a class recorded twice"
        counts.append(len(tasks))
    assert any(0 < count < total for count in counts), counts
    final = subprocess.run(_resuming(command, checkpoint), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert _proof_answer(json.loads(final.stdout)) == _proof_reference_answer(proof_reference)
    contents = read_checkpoint(checkpoint)
    assert len(contents.records) == total and not contents.torn and contents.duplicates == 0
    assert all(record["class_id"] == task for task, record in contents.records.items())


def test_a_proof_survives_a_killed_worker(cluster, lexicon, proof_reference):
    from boggle_dawg.solver.cluster.prove_job import ProvePlan

    result, outcome, killed = _run_killing_a_worker(
        cluster, ProvePlan(lexicon, parse_size(PROVE_SIZE), PROVE_SCORE, PROVE_CLASSES), -1)
    assert killed and outcome.complete
    assert (result.boards, result.nodes) == (proof_reference.boards, proof_reference.nodes)


def test_a_truncated_proof_checkpoint_is_resumed_and_another_refused(cluster, lexicon_dir, proof_reference,
                                                                      finished_proof_checkpoint, tmp_path):
    path = tmp_path / "proof.ckpt"
    whole = finished_proof_checkpoint
    path.write_bytes(whole[:len(whole) * 2 // 3])  # cut inside a record
    assert read_checkpoint(path).torn
    proc = _cli_prove(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--resume")
    assert proc.returncode == 0, proc.stderr
    assert _proof_answer(json.loads(proc.stdout)) == _proof_reference_answer(proof_reference)
    contents = read_checkpoint(path)
    assert len(contents.records) == proof_reference.classes and not contents.torn and contents.duplicates == 0
    for args, field in [(("--min-score", str(PROVE_SCORE + 1)), "min_score"), (("--size", "3x2"), "shape"),
                        (("--classes", "aeiou,bcdfghjklmnpqrstvwxyz"), "split")]:  # the last --classes wins
        proc = _cli_prove(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--resume", *args)
        assert_clean_error(proc, "different run", field)


@pytest.mark.parametrize("field, value, fragment", [
    ("bound", "lots", "field record.bound: expected an integer"),
    ("boards", [["abc"]], "field record.boards[0]: expected a [board, score] pair"),
    ("boards", "x", "field record.boards: expected a list"),
    ("nodes", "1e999", "field record.nodes: expected an integer"),
    ("class_id", None, "field record.class_id: expected an integer"),
    ("note", "added by hand", "field record.note: expected no such field (edited?)"),
])
def test_a_hand_edited_proof_record_is_refused_naming_line_and_field(cluster, lexicon_dir, finished_proof_checkpoint,
                                                                      tmp_path, field, value, fragment):
    path = tmp_path / "proof.ckpt"
    lines = finished_proof_checkpoint.splitlines(keepends=True)
    item = json.loads(lines[5])
    lines[5] = record_line(item["task"], {**item["record"], field: value})  # the checksum made to match
    path.write_bytes(b"".join(lines))
    proc = _cli_prove(lexicon_dir, "--scheduler", cluster, "--checkpoint", str(path), "--resume")
    assert_clean_error(proc, f"{path}: line 6: {fragment}")
