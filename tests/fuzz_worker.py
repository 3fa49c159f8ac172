"""Fuzz worker (a subprocess) and its supervisor: run many fuzz cases, survive crashes and hangs.

Worker: python tests/fuzz_worker.py WORK SPECS_JSON FIRST
  loads the base builds under WORK/builds, warms the compiled kernels, prints
  READY, then for each spec from index FIRST: `START i`, `STEP i what` as it
  goes, and `END i {result}`. A case opens the lexicon the way a user would and,
  when it opens, scores boards 2x2..8x8 with both engines (numba batch with
  jobs=1 and jobs=2, CPython one board at a time) and runs what `dawgc info`
  (plain and --json), `dawgc verify` and `dawgc words` run.

Supervisor (`run_specs`): starts a worker, gives each case `timeout` seconds of
the worker's CPU time (a worker that waited for a core on a loaded machine
gets more wall time, up to STALLED_CASE_LIMIT timeouts in all),
and when a case hangs (killed) or the worker dies (signal, exit) records that
case as the failure, with the last step reached, and starts a new worker at
the next case, so one crash hides nothing else.

A case passes when it ends in a clean rejection (`DawgError`, one line, naming
the case's file) or in a lexicon whose scores agree across engines and jobs
(and equal the base build's for hand-built files that must score the same).
Everything else is a failure: `exception` (any other exception), `message`
(an error of several lines or not naming the file), `memory` (a MemoryError:
the reader asked for more than the worker's 12 GiB of address space), `disagree`, `wrong-scores`,
`verify-mismatch` (the solver opens what `dawgc verify` finds invalid),
`must-reject` (a hand-built file that must be refused opened), `timeout`,
`crash`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout's packages, not an installed copy

PASSED = ("rejected", "accepted")
ENUMERATE_LIMIT = 1_000_000  # words; `dawgc verify` and `dawgc words` list them all, so skip above this
MEMORY_LIMIT = 12 * 2**30    # address space per worker: a stamp array per word id is allowed, runaway is not


# --- the worker -------------------------------------------------------------------------------


def rule_of(message: str) -> str:
    """A rejection message without paths, numbers, quoted values or the value it got: which check fired."""
    text = re.sub(r"\S*case-\d+\S*", "<file>", message)
    text = re.sub(r", got .*$", ", got ...", text)
    text = re.sub(r"version .*?, this", "version ..., this", text)
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'...'", text))[:100]


class CaseFailure(Exception):
    def __init__(self, outcome: str, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome


def clean_error(err: Exception, case_dir: Path, step: str) -> str:
    """A DawgError must be one non-empty line that names the case's file."""
    message = str(err)
    if not message or "\n" in message or case_dir.name not in message:
        raise CaseFailure("message", f"{step}: {message!r}")
    return message


class Worker:
    def __init__(self, work: Path) -> None:
        import fuzz_cases

        self.work = work
        self.builds = {name: work / "builds" / name for name in fuzz_cases.LEXICONS}
        self.boards: dict[str, list[str]] = {}
        self.base_scores: dict[str, list[int]] = {}
        self.emit: Callable[[str], None] = lambda text: None
        self.last_step = ""
        self.huge = False  # the last case opened a lexicon of more than ENUMERATE_LIMIT words

    def step(self, text: str) -> None:
        self.last_step = text
        self.emit(text)

    def warm(self) -> None:
        """Load every base lexicon and the compiled kernels before the first timed case."""
        import fuzz_cases

        from boggle_dawg.solver.lexicon import open_lexicon

        for name, build in self.builds.items():
            lex = open_lexicon(build, "trie")
            words = [w for w, _ in lex.numbered_words()]
            self.boards[name] = fuzz_cases.boards_for(lex.charset.letters, words, seed=len(name))
            for fmt in fuzz_cases.FORMATS:
                lex = open_lexicon(build, fmt)
                scores = [lex.score(b, skip_foreign=True) for b in self.boards[name]]
                for jobs in (1, 2):
                    assert lex.score_many(self.boards[name], jobs=jobs, skip_foreign=True).tolist() == scores
            self.base_scores[name] = scores

    def run(self, spec: dict, directory: Path) -> dict:
        import fuzz_cases

        self.step("make")
        self.huge = False
        try:
            case = fuzz_cases.make_case(spec, self.builds, directory)
        except Exception as err:  # noqa: BLE001 (the fuzzer's own bug, not the lexicon reader's)
            return {"outcome": "generator-error", "detail": _summary(err), "what": "", "fmt": spec["fmt"]}
        result = {"what": case.what, "fmt": case.fmt}
        self.emit(f"case {case.fmt} {case.what}")
        try:
            result.update(self.check(case, directory, spec["lexicon"]))
        except CaseFailure as failure:
            result.update(outcome=failure.outcome, detail=str(failure))
        except MemoryError as err:
            result.update(outcome="memory", detail=f"{self.last_step}: {_summary(err)}")
        except Exception as err:  # noqa: BLE001 (anything but DawgError is a bug)
            result.update(outcome="exception", detail=f"{self.last_step}: {_summary(err)}")
        return result

    def check(self, case, directory: Path, lexicon: str) -> dict:
        from boggle_dawg.solver.errors import DawgError
        from boggle_dawg.solver.lexicon import open_lexicon

        self.step("open")
        try:
            lex = open_lexicon(case.path, case.fmt)
        except DawgError as err:
            message = clean_error(err, directory, "open")
            self.cli_checks(case, directory, None)
            return {"outcome": "rejected", "rule": rule_of(message)}
        self.huge = lex.word_count > ENUMERATE_LIMIT
        note = " of a file that must be rejected" if case.expected == "reject" else ""
        boards = self.boards[lexicon]
        try:
            scores = {}
            for jobs in (1, 2):
                self.step(f"score_many jobs={jobs}{note}")
                scores[f"numba jobs={jobs}"] = lex.score_many(boards, jobs=jobs, skip_foreign=True).tolist()
            self.step(f"score (CPython){note}")
            scores["CPython"] = [lex.score(b, skip_foreign=True) for b in boards]
            self.step("words (CPython)")
            listed = sum(f.points for f in lex.words(boards[-3], skip_foreign=True))
        except DawgError as err:
            message = clean_error(err, directory, self.last_step)
            return {"outcome": "rejected", "rule": "late: " + rule_of(message)}
        distinct = {json.dumps(v) for v in scores.values()}
        if len(distinct) > 1 or listed != scores["CPython"][-3]:
            raise CaseFailure("disagree", "; ".join(f"{k}: {v}" for k, v in scores.items())
                              + f"; words() points {listed}")
        if case.expected == "reject":
            raise CaseFailure("must-reject", f"opened with {lex.word_count} words and scored {scores['CPython']}")
        if case.expected == "same" and scores["CPython"] != self.base_scores[lexicon]:
            raise CaseFailure("wrong-scores", f"{scores['CPython']} != base {self.base_scores[lexicon]}")
        self.cli_checks(case, directory, lex)
        return {"outcome": "accepted"}

    def cli_checks(self, case, directory: Path, lex) -> None:
        """What `dawgc info`, `dawgc info --json`, `dawgc verify` and `dawgc words -n` do on the case."""
        import typer

        from boggle_dawg import dawgc_cli as cli
        from boggle_dawg.solver.errors import DawgError

        enumerate_ok = lex is None or lex.word_count <= ENUMERATE_LIMIT
        commands = [("dawgc info", lambda: cli.info(case.path, as_json=False)),
                    ("dawgc info --json", lambda: cli.info(case.path, as_json=True))]
        if enumerate_ok:
            commands += [("dawgc verify", lambda: cli.verify_command(case.path, None, as_json=False)),
                         ("dawgc words", lambda: cli.words(case.path, case.fmt, numbers=True, prefix=""))]
        for name, command in commands:
            self.step(name)
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    command()
            except DawgError as err:
                clean_error(err, directory, name)
            except typer.Exit:
                failed = [line for line in out.getvalue().splitlines()
                          if line.startswith("FAIL") and "hold different words" not in line]
                if failed and lex is not None:
                    raise CaseFailure("verify-mismatch", f"{name}: {failed[0]}") from None

    def serve(self, specs: list[dict], first: int) -> None:
        self.emit = lambda text: print(f"STEP {index} {text}", flush=True)
        scratch = Path(tempfile.mkdtemp(prefix=f"w{os.getpid()}-", dir=self.work))
        for index in range(first, len(specs)):
            print(f"START {index}", flush=True)
            directory = scratch / f"case-{index}"
            result = self.run(specs[index], directory)
            shutil.rmtree(directory, ignore_errors=True)
            print(f"END {index} {json.dumps(result)}", flush=True)
            if self.huge:  # its stamp arrays (one per word id, per thread) stay allocated: start afresh
                break
        shutil.rmtree(scratch, ignore_errors=True)


def _summary(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(err).__name__}: {str(err)[:200]}{where}"


def worker_main(argv: list[str]) -> None:
    import faulthandler

    faulthandler.enable()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    work, specs_file, first = Path(argv[0]), Path(argv[1]), int(argv[2])
    worker = Worker(work)
    worker.warm()
    print("READY", flush=True)
    worker.serve(json.loads(specs_file.read_text()), first)


# --- the supervisor ------------------------------------------------------------------------


class _Lines:
    """Lines of a pipe with a deadline per read."""

    def __init__(self, stream) -> None:
        self.fd = stream.fileno()
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)
        self.closed = False

    def next(self, deadline: float) -> str | None:
        """The next line; None at end of stream; raises TimeoutError at the deadline."""
        while b"\n" not in self.buffer:
            if self.closed:
                return None
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise TimeoutError
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.closed = True
                if not self.buffer:
                    return None
                self.buffer += b"\n"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")


STALLED_CASE_LIMIT = 10  # timeouts of wall time a case may take while its worker used less than one of CPU


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time a process and the children it has waited for used so far (Linux's /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return sum(int(tick) for tick in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime


def _failure(outcome: str, detail: str, what: str, fmt: str) -> dict:
    return {"outcome": outcome, "detail": detail, "what": what, "fmt": fmt}


def run_specs(specs: list[dict], work: Path, timeout: float, on_result: Callable[[int, dict], None] | None = None,
              start_timeout: float = 600) -> list[dict]:
    """Run specs in worker processes (base builds must be in work/builds); one result per spec."""
    results: list[dict | None] = [None] * len(specs)
    specs_file = work / f"specs-{threading.get_ident()}.json"
    specs_file.write_text(json.dumps(specs))
    first = 0
    while first < len(specs):
        errors = tempfile.TemporaryFile(dir=work)  # noqa: SIM115 (closed below, after a crash is read)
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), str(work), str(specs_file), str(first)],
                                stdout=subprocess.PIPE, stderr=errors, cwd=REPO, start_new_session=True)
        lines = _Lines(proc.stdout)
        current, step, what, fmt = None, "start", "", ""
        case_cpu = stall_limit = 0.0
        deadline = time.monotonic() + start_timeout
        try:
            while True:
                try:
                    line = lines.next(deadline)
                except TimeoutError:
                    used = _cpu_seconds(proc.pid)
                    if (current is not None and used is not None and used - case_cpu < timeout
                            and time.monotonic() < stall_limit):
                        deadline = time.monotonic() + timeout  # it waited for a core: not a hang
                        continue
                    raise
                if line is None:
                    break
                word, _, rest = line.partition(" ")
                if word == "START":
                    current, step, what, fmt = int(rest), "start", "", specs[int(rest)]["fmt"]
                    deadline = time.monotonic() + timeout
                    case_cpu = _cpu_seconds(proc.pid) or 0.0
                    stall_limit = time.monotonic() + STALLED_CASE_LIMIT * timeout
                elif word == "STEP":
                    step = rest.partition(" ")[2]
                    if step.startswith("case "):
                        fmt, _, what = step[5:].partition(" ")
                elif word == "END":
                    index, _, payload = rest.partition(" ")
                    results[int(index)] = json.loads(payload)
                    if on_result:
                        on_result(int(index), results[int(index)])
                    current = None
            status = proc.wait()
            errors.seek(0)
            tail = errors.read().decode("utf-8", "replace").strip().splitlines()[-6:]
            if current is None:
                if status == 0 and results[first] is not None:  # it stopped to start afresh
                    first = next((i for i in range(first, len(specs)) if results[i] is None), len(specs))
                    continue
                raise RuntimeError(f"fuzz worker exited ({status}) before its first case: " + " | ".join(tail))
            how = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit {status}"
            results[current] = _failure("crash", f"{how} during {step}: " + " | ".join(tail)[-600:], what, fmt)
        except TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if current is None:
                raise RuntimeError("fuzz worker did not start in time") from None
            results[current] = _failure("timeout", f"no result after {timeout:g} s, during {step}", what, fmt)
        finally:
            proc.stdout.close()
            errors.close()
        if on_result:
            on_result(current, results[current])
        first = current + 1
    return results


def run_parallel(specs: list[dict], work: Path, timeout: float, workers: int = 2,
                 on_result: Callable[[int, dict], None] | None = None) -> list[dict]:
    """`run_specs` on `workers` interleaved shards at once; results in spec order."""
    shards = [list(range(w, len(specs), workers)) for w in range(workers)]
    results: list[dict | None] = [None] * len(specs)
    lock = threading.Lock()

    def run(shard: list[int]) -> None:
        def report(i: int, result: dict) -> None:
            with lock:
                if on_result:
                    on_result(shard[i], result)

        for i, result in enumerate(run_specs([specs[j] for j in shard], work, timeout, report)):
            results[shard[i]] = result

    threads = [threading.Thread(target=run, args=(shard,)) for shard in shards if shard]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def replay(spec_text: str, work: Path) -> dict:
    """Run one case in this process (no timeout): for a debugger or a traceback."""
    import fuzz_cases

    fuzz_cases.build_lexicons(work / "builds")
    worker = Worker(work)
    worker.warm()
    worker.emit = lambda text: print(f"  step: {text}", file=sys.stderr, flush=True)
    case_dir = work / "case-replay"
    shutil.rmtree(case_dir, ignore_errors=True)
    return worker.run(fuzz_cases.parse_spec(spec_text), case_dir)


if __name__ == "__main__":
    worker_main(sys.argv[1:])
