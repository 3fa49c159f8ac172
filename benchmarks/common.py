"""Helpers shared by the benchmark scripts: where the data is, the conditions of a run, repeated timing.

A figure alone cannot tell a slow or busy machine from a regression, so every
results file states the conditions it was measured under (machine, versions,
commit, exact command, load average before and after each table) and every
timing is repeated and reported as min / median / max. Wall time moves with
the load on the machine; CPU time (user + system) moves much less, so the
scripts report it too where they can: a regression raises both, a busy
machine raises only the wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, TypeVar

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
RESULTS = REPO / "benchmarks" / "results"

# `python benchmarks/x.py` puts benchmarks/, not the repository, first on sys.path, so `import boggle_dawg`
# would find whatever copy is installed (an editable install of another checkout, say). Measure this one.
sys.path.insert(0, str(REPO))

# How the benchmarks start the two command-line tools: one place to change if the modules move.
SOLVER_CLI = [sys.executable, "-m", "boggle_dawg.dawg_solve"]
COMPILER_CLI = [sys.executable, "-m", "boggle_dawg.dawgc_cli"]

T = TypeVar("T")
K = TypeVar("K")

# Environment variables that change what is measured; the conditions list those that are set.
RELEVANT_ENV = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONOPTIMIZE", "NUMBA_NUM_THREADS",
                "NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR", "OMP_NUM_THREADS", "BOGGLE_DAWG_CACHE")


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        sys.exit(f"benchmark needs {path} (the ../shared test data)")
    return path


def write_results(name: str | Path, text: str) -> Path:
    """Write a results file: a bare name goes under benchmarks/results/."""
    path = Path(name)
    if len(path.parts) == 1:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / path
    path.write_text(text)
    return path


# --- conditions -------------------------------------------------------------------------


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages (runnable processes, averaged)."""
    return os.getloadavg()


def format_load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.2f}" for x in load)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def memory_gib() -> float | None:
    try:
        return int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        return None


def _first_line(command: list[str]) -> str | None:
    try:
        result = subprocess.run(command, check=False, capture_output=True, text=True, cwd=REPO, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.split("\n")[0].strip() if result.returncode == 0 else None


def commit() -> str:
    """The checked-out commit, marked "+ changes" when the working tree differs from it."""
    head = _first_line(["git", "rev-parse", "--short", "HEAD"])
    if head is None:
        return "unknown commit"
    dirty = _first_line(["git", "status", "--porcelain", "--untracked-files=no"])
    return f"{head} + uncommitted changes" if dirty else head


def machine() -> str:
    """A short description of this machine and the software versions measured."""
    import numba
    import numpy

    memory = memory_gib()
    ram = f", {memory:.0f} GiB RAM" if memory else ""
    gcc = _first_line(["gcc", "--version"]) or "no gcc"
    return (f"{cpu_model()}, {os.cpu_count()} cores{ram}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {numpy.__version__}, numba {numba.__version__}; {gcc}")


@dataclass
class Conditions:
    """What a run was measured under. Create it first thing; call `finish()` last."""

    command: str = field(default_factory=lambda: "python " + shlex.join(sys.argv))
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    load_start: tuple[float, float, float] = field(default_factory=load_average)
    load_end: tuple[float, float, float] | None = None
    machine: str = field(default_factory=machine)
    commit: str = field(default_factory=commit)
    environment: str = field(default_factory=lambda: ", ".join(
        f"{name}={os.environ[name]}" for name in RELEVANT_ENV if os.environ.get(name)))

    def finish(self) -> None:
        self.load_end = load_average()

    def header(self) -> str:
        """The full conditions, for the top of a results file."""
        end = f", {format_load(self.load_end)} at the end" if self.load_end else ""
        env = f" Environment: {self.environment}." if self.environment else ""
        return (f"Measured {self.started:%Y-%m-%d %H:%M} UTC at commit {self.commit} with `{self.command}` "
                f"(from the repository root) on: {self.machine}. Load average (1/5/15 min): "
                f"{format_load(self.load_start)} at the start{end}; {os.cpu_count()} cores, so a 1-minute "
                f"load above {os.cpu_count()} means runs waited for a core.{env}")

    def note(self, load_before: tuple[float, float, float], load_after: tuple[float, float, float]) -> str:
        """One line to put under a table: the command, the machine and the load while it was measured."""
        return (f"Conditions: `{self.command}`, {self.started:%Y-%m-%d}, commit {self.commit}; "
                f"{cpu_model()}, {os.cpu_count()} cores; load average (1/5/15 min) "
                f"{format_load(load_before)} before this table, {format_load(load_after)} after.")


# --- repeated timing --------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One timed run: wall seconds, CPU seconds (user + system) and peak resident bytes, the last
    two None where not known."""

    wall: float
    cpu: float | None = None
    peak_bytes: int | None = None


@dataclass(frozen=True)
class Stats:
    min: float
    median: float
    max: float

    @property
    def spread(self) -> float:
        """(max - min) / median: 0.05 means the runs lie within 5% of each other."""
        return (self.max - self.min) / self.median if self.median else float("nan")

    @classmethod
    def of(cls, values: list[float]) -> Stats:
        return cls(min(values), statistics.median(values), max(values))


@dataclass
class Series:
    """Every run of one measurement, in order, and whether its median settled."""

    runs: list[Run] = field(default_factory=list)
    stable: bool = False

    def seconds(self) -> Stats:
        return Stats.of([r.wall for r in self.runs])

    def rates(self, items: int) -> Stats:
        """Items per second; the min rate comes from the slowest run."""
        return Stats.of([items / r.wall for r in self.runs])

    def cpu_seconds(self) -> Stats | None:
        cpu = [r.cpu for r in self.runs if r.cpu is not None]
        return Stats.of(cpu) if cpu else None

    def cpu_share(self) -> float | None:
        """Median CPU seconds per wall second: about `threads` when the process had its cores
        to itself, less when it waited for them."""
        shares = [r.cpu / r.wall for r in self.runs if r.cpu is not None and r.wall > 0]
        return statistics.median(shares) if shares else None


@dataclass(frozen=True)
class Repeats:
    """How often to repeat: at least `runs` times; then, up to `max_runs`, until the running median
    of every measurement moved less than `tolerance` (relative) over the last `window` runs."""

    runs: int = 5
    max_runs: int = 15
    tolerance: float = 0.02
    window: int = 3

    @property
    def adaptive(self) -> bool:
        return self.max_runs > self.runs

    def describe(self) -> str:
        if not self.adaptive:
            return f"{self.runs} run{'s' if self.runs > 1 else ''} each"
        return (f"at least {self.runs} and at most {self.max_runs} runs each, stopping once the running "
                f"median moved less than {self.tolerance:.0%} over the last {self.window} runs")


def _settled(series: Series, repeats: Repeats) -> bool:
    walls = [r.wall for r in series.runs]
    if len(walls) < max(repeats.runs, repeats.window):
        return False
    medians = [statistics.median(walls[:n]) for n in range(len(walls) - repeats.window + 1, len(walls) + 1)]
    return (max(medians) - min(medians)) <= repeats.tolerance * statistics.median(medians)


def measure_interleaved(measurements: Mapping[K, Callable[[], Run]], repeats: Repeats,
                        report: Callable[[str], None] | None = None) -> dict[K, Series]:
    """Run every measurement once per round, in a rotating order, until each has settled or
    `max_runs` rounds are done. Interleaving spreads any change of load over all of them alike,
    so their ratios hold even on a busy machine."""
    names = list(measurements)
    series = {name: Series() for name in names}
    for round_number in range(max(repeats.runs, repeats.max_runs)):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            series[name].runs.append(measurements[name]())
        for s in series.values():
            s.stable = _settled(s, repeats)
        if report:
            report(f"round {round_number + 1}: {sum(s.stable for s in series.values())}/{len(names)} settled")
        if round_number + 1 >= repeats.runs and all(s.stable for s in series.values()):
            break
    return series


def timed_call(function: Callable[[], T]) -> tuple[Run, T]:
    """Wall and process CPU time (every thread) of one call, and what it returned."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = function()
    return Run(time.perf_counter() - wall, time.process_time() - cpu), value


PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def _adopt_orphans() -> bool:
    """Make this process the one its descendants' orphans are reparented to (Linux), so that the
    processes a command leaves running when it exits (multiprocessing's forkserver, which a local Dask
    cluster's workers are forked from) are waited for here and their CPU time counted."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


ADOPTS_ORPHANS = _adopt_orphans()


def _children() -> set[int]:
    """This process's child processes, exited ones not yet waited for included."""
    pids: set[int] = set()
    for task in Path("/proc/self/task").glob("*"):
        with contextlib.suppress(OSError):
            pids.update(int(pid) for pid in (task / "children").read_text().split())
    return pids


def timed_process(command: list[str], output: BinaryIO | None = None) -> Run:
    """Wall time, CPU time (user + system, waited-for children included, and where the system lets
    this process adopt them, the processes it left running: `_adopt_orphans`) and peak memory (largest
    max RSS of it and its children) of one command, run from the repository root. It must succeed:
    if not, the benchmark stops with the last line of its messages. Its stdout and stderr go to
    `output`, a file opened for binary read and write; by default stdout is discarded."""
    with contextlib.ExitStack() as stack:
        messages = output or stack.enter_context(tempfile.TemporaryFile())
        known = _children() if ADOPTS_ORPHANS else set()
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=REPO, stdout=output or subprocess.DEVNULL, stderr=messages)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        cpu, peak = usage.ru_utime + usage.ru_stime, usage.ru_maxrss
        while ADOPTS_ORPHANS and (orphans := _children() - known):  # an orphan's own orphans come next
            for pid in orphans:
                _, _, left = os.wait4(pid, 0)
                cpu, peak = cpu + left.ru_utime + left.ru_stime, max(peak, left.ru_maxrss)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            messages.seek(0)
            tail = messages.read().decode(errors="replace").strip().splitlines()[-1:]
            sys.exit(f"benchmark command failed with status {process.returncode}: {shlex.join(command)}"
                     + (f": {tail[0]}" if tail else ""))
    return Run(wall, cpu, peak * 1024)


def measure_commands(commands: Mapping[K, list[str]], repeats: Repeats) -> dict[K, Series]:
    """`measure_interleaved` of commands, each in a fresh process, after one untimed run of each
    (which warms the OS file cache and fails early on a broken command); progress on stderr."""
    for command in commands.values():
        timed_process(command)
    return measure_interleaved({key: (lambda c=command: timed_process(c)) for key, command in commands.items()},
                               repeats, lambda line: print(line, file=sys.stderr))


def runs_cell(series: Series, repeats: Repeats) -> str:
    """How many runs, and whether the median settled when settling was asked for."""
    return f"{len(series.runs)}" + (" (not settled)" if repeats.adaptive and not series.stable else "")


def stats_cells(stats: Stats, fmt: str = "{:,.0f}") -> str:
    """`min | median | max | spread` table cells."""
    return f"{fmt.format(stats.min)} | {fmt.format(stats.median)} | {fmt.format(stats.max)} | {stats.spread:.1%}"


# --- command line -----------------------------------------------------------------------


def add_options(parser: argparse.ArgumentParser, runs: int, max_runs: int, quick_runs: int, results: str) -> None:
    """The options every benchmark shares: how often to repeat, --quick and --out."""
    parser.add_argument("--runs", type=int, default=runs, help=f"at least this many runs of each (default {runs})")
    parser.add_argument("--max-runs", type=int, default=max_runs,
                        help=f"at most this many, until the median settles (default {max_runs})")
    parser.add_argument("--tolerance", type=float, default=0.02,
                        help="settled: the running median moved less than this over the last 3 runs (default 0.02)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {quick_runs} run(s) of each, print the results instead of writing them")
    parser.add_argument("--out", default=None,
                        help=f"results file (default benchmarks/results/{results}; with --quick, none)")
    parser.set_defaults(quick_runs=quick_runs, results=results)


def repeats_from(args: argparse.Namespace) -> Repeats:
    if args.quick:
        return Repeats(args.quick_runs, args.quick_runs, args.tolerance)
    return Repeats(args.runs, max(args.runs, args.max_runs), args.tolerance)


def publish(args: argparse.Namespace, text: str) -> None:
    """Write the results file (or, for --quick without --out, print it)."""
    out = args.out or (None if args.quick else args.results)
    print(write_results(out, text) if out else text)
