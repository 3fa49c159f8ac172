"""Wall and CPU time of the test suite, with the load on the machine while it ran.

Run from the repository root:
    python benchmarks/suite_time.py                 # `python -m pytest -q` once; writes benchmarks/results/suite.md
    python benchmarks/suite_time.py -- -x -m "not slow"   # arguments after -- go to pytest

The suite starts subprocesses and threads, so its wall time depends on the
free cores: the load average is sampled every few seconds while it runs, and
the CPU time (user + system of pytest and every process it waited for) is
given beside the wall time. Slower CPU time means the suite does more work;
slower wall time at the same CPU time means the machine was busy.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=1, max_runs=1, quick_runs=1, results="suite.md")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest, after -- (default: -q)")
    args = parser.parse_args()
    repeats = repeats_from(args)
    command = [sys.executable, "-m", "pytest", *(args.pytest_args or ["-q"])]
    shown = shlex.join(["python", *command[1:]])

    conditions = Conditions()
    rows = []
    for number in range(repeats.runs):
        sampler = LoadSampler()
        before = load_average()
        sampler.start()
        with tempfile.TemporaryFile() as output:
            run = timed_process(command, output)
            output.seek(0)
            text = output.read().decode(errors="replace")
        sampler.done.set()
        sampler.join()
        after = load_average()
        found = SUMMARY.findall(text)
        summary = found[-1][0] if found else "no pytest summary line"
        rows.append((run, before, after, sampler.samples, summary))
        print(f"run {number + 1}: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU; {summary}", file=sys.stderr)
    conditions.finish()

    lines = [
        "# Test-suite time", "",
        conditions.header(), "",
        (f"Each row is one run of `{shown}` from the repository root, with CI "
         f"{'=' + os.environ['CI'] if os.environ.get('CI') else 'unset'}. Wall time is what a developer "
         "waits; CPU is user + system seconds of pytest and every process it waited for; CPU/wall above 1 "
         "means the suite used more than one core, below 1 that it waited (for a core, a sleep or I/O). "
         f"The 1-minute load average is sampled every {LOAD_SAMPLE_SECONDS:g} s during the run (it includes "
         f"the suite itself); on {os.cpu_count()} cores, a load above {os.cpu_count()} means something "
         "waited for a core."), "",
        ("| run | wall s | CPU s | CPU/wall | load before | load during (mean / max, 1 min) | load after "
         "| pytest summary |"),
        "|---:|---:|---:|---:|---|---|---|---|",
    ]
    for number, (run, before, after, samples, summary) in enumerate(rows, 1):
        lines.append(f"| {number} | {run.wall:.1f} | {run.cpu:.1f} | {run.cpu / run.wall:.2f} | "
                     f"{format_load(before)} | {statistics.mean(samples):.2f} / {max(samples):.2f} | "
                     f"{format_load(after)} | {summary} |")
    lines += ["", conditions.note(rows[0][1], rows[-1][2])]
    publish(args, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
