"""Wall and CPU time of the test suite's lanes, with the load on the machine while each ran.

Run from the repository root:
    python benchmarks/suite_time.py                 # the whole suite, then the fast lane; writes benchmarks/results/suite.md
    python benchmarks/suite_time.py --one-process   # also the whole suite in one process (-n 0), as before xdist
    python benchmarks/suite_time.py --worker-a-core # also the whole suite on one worker a core (-n cores), as before
                                                    # the extra worker (tests/conftest.py)
    python benchmarks/suite_time.py -- -x -m "not slow"   # arguments after -- go to pytest: that run alone

The suite runs on pytest-xdist workers, one more than the cores (addopts in
pyproject.toml, tests/conftest.py), and starts subprocesses and threads, so its wall time depends on the free
cores: the load average is sampled every few seconds while it runs, the CPU
time (user + system of pytest, its workers and every process they waited for)
is given beside the wall time, and so is the CPU time every other process on
the machine used meanwhile. More CPU time means the suite does more work; more
wall time at the same CPU time means the machine was busy.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import sys
import tempfile
import threading
from pathlib import Path

from common import (
    Conditions,
    add_options,
    format_load,
    load_average,
    publish,
    repeats_from,
    timed_process,
)

SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed|skipped|errors?|deselected|xfailed|xpassed).*?)\s*=*$",
                     re.MULTILINE)
LOAD_SAMPLE_SECONDS = 5.0
LANES = {"whole suite": ["-q"], "fast lane": ["-q", "-m", "not slow"]}
ONE_PROCESS = {"whole suite, one process": ["-q", "-n", "0"]}
CORES = len(os.sched_getaffinity(0))
WORKER_A_CORE = {f"whole suite, one worker a core (-n {CORES})": ["-q", "-n", str(CORES)]}


class LoadSampler(threading.Thread):
    """Samples the 1-minute load average every few seconds until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        while True:
            self.samples.append(load_average()[0])
            if self.done.wait(LOAD_SAMPLE_SECONDS):
                return


def machine_cpu_seconds() -> float:
    """CPU seconds all processes on the machine have used since boot (/proc/stat: all but idle, iowait
    and steal), so that what others used during a run is the difference less the run's own."""
    user, nice, system, _idle, _iowait, irq, softirq = (int(x) for x in Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=1, max_runs=1, quick_runs=1, results="suite.md")
    parser.add_argument("--one-process", action="store_true",
                        help="also time the whole suite in one process (-n 0): the baseline xdist is measured against")
    parser.add_argument("--worker-a-core", action="store_true",
                        help="also time the whole suite on one xdist worker a core: the baseline of the extra worker")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest, after --: that run instead of the lanes")
    args = parser.parse_args()
    repeats = repeats_from(args)
    lanes = {"as given": args.pytest_args} if args.pytest_args else {
        **LANES, **(WORKER_A_CORE if args.worker_a_core else {}), **(ONE_PROCESS if args.one_process else {})}

    conditions = Conditions()
    rows = []
    for lane, pytest_args in lanes.items():
        command = [sys.executable, "-m", "pytest", *pytest_args]
        for number in range(repeats.runs):
            sampler = LoadSampler()
            before, machine_before = load_average(), machine_cpu_seconds()
            sampler.start()
            with tempfile.TemporaryFile() as output:
                run = timed_process(command, output)
                output.seek(0)
                text = output.read().decode(errors="replace")
            others = machine_cpu_seconds() - machine_before - run.cpu
            sampler.done.set()
            sampler.join()
            after = load_average()
            found = SUMMARY.findall(text)
            summary = found[-1][0] if found else "no pytest summary line"
            rows.append((lane, shlex.join(["python", *command[1:]]), run, others, before, after, sampler.samples,
                         summary))
            print(f"{lane}, run {number + 1}: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, others {others:.0f} s CPU; "
                  f"{summary}", file=sys.stderr)
    conditions.finish()

    lines = [
        "# Test-suite time", "",
        conditions.header(), "",
        (f"Each row is one run of its command from the repository root, with CI "
         f"{'=' + os.environ['CI'] if os.environ.get('CI') else 'unset'}; pyproject.toml's addopts give every "
         "run pytest-xdist workers, one more than the cores (`-n auto`: tests/conftest.py), unless it says `-n N`. "
         "Wall time is what a developer waits; CPU is user + system seconds of pytest, its workers, every "
         "process they waited for and every process they left running (a Dask cluster's forkserver, adopted "
         "and waited for here); "
         "CPU/wall above 1 means the run used more than one core. Others is the CPU time every other process on "
         "the machine used during the run (/proc/stat), and beside it the cores they kept busy on average. "
         f"The 1-minute load average is sampled every {LOAD_SAMPLE_SECONDS:g} s during the run (it includes "
         f"the suite itself); on {os.cpu_count()} cores, a load above {os.cpu_count()} means something "
         "waited for a core."), "",
        ("| lane | command | wall s | CPU s | CPU/wall | others: CPU s (cores) | load before "
         "| load during (mean / max, 1 min) | load after | pytest summary |"),
        "|---|---|---:|---:|---:|---:|---|---|---|---|",
    ]
    for lane, shown, run, others, before, after, samples, summary in rows:
        lines.append(f"| {lane} | `{shown}` | {run.wall:.1f} | {run.cpu:.1f} | {run.cpu / run.wall:.2f} | "
                     f"{others:.0f} ({others / run.wall:.2f}) | {format_load(before)} | "
                     f"{statistics.mean(samples):.2f} / {max(samples):.2f} | {format_load(after)} | {summary} |")
    lines += ["", conditions.note(rows[0][4], rows[-1][5])]
    publish(args, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
