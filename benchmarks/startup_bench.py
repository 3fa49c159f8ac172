"""Start-up: one board end to end against the interpreter and numpy floors, measured in the same run.

Run from the repository root:
    python benchmarks/startup_bench.py            # writes benchmarks/results/startup.md (about a minute)
    python benchmarks/startup_bench.py --quick    # smoke run: 3 rounds, prints the table

Every round runs each command once, in rotating order, in a fresh
interpreter: `python -c pass` (the interpreter's floor), `python -c "import
numpy"` (the floor of anything that reads the lexicon with numpy), `python -c
"import boggle_dawg.dawg_solve"` (the share of imports) and `python -m boggle_dawg.dawg_solve DIR
BOARD` on full TWL06 (our build, default format) and on the reference JPA14
ADTDAWG. The ratio of their medians to the numpy floor is the figure of issue
8 (target: at most 1.6x). Interleaving gives every command the same load, so
the ratios hold on a busy machine even when the seconds do not. Where the
imports of `boggle_dawg.dawg_solve` spend their time (`python -X importtime`) follows.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from common import (
    COMPILER_CLI,
    REPO,
    SOLVER_CLI,
    Conditions,
    add_options,
    load_average,
    measure_commands,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
    timed_process,
)

BOARD = "RSLCSDEIAEGNTRPATESESMIDR"
FLOOR = "numpy floor"


def import_shares(module: str, count: int) -> list[tuple[float, str]]:
    """Seconds spent importing each package's own modules under `import module` (self times from
    `python -X importtime`, summed per top-level package; the standard library as one entry)."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], cwd=REPO,
                            check=True, capture_output=True, text=True)
    totals: dict[str, float] = {}
    for line in result.stderr.splitlines():
        # "import time: self [us] | cumulative | imported package"
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        package = parts[2].strip().split(".")[0]
        if package in sys.stdlib_module_names or package.startswith("_"):
            package = "standard library"
        totals[package] = totals.get(package, 0) + int(parts[0]) / 1e6
    return sorted(((seconds, name) for name, seconds in totals.items() if seconds >= 0.001), reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=15, max_runs=40, quick_runs=3, results="startup.md")
    args = parser.parse_args()
    repeats = repeats_from(args)

    conditions = Conditions()
    tmp = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    twl06 = tmp / "twl06-26"
    timed_process([*COMPILER_CLI, "build", str(shared("lexicons", "twl06.txt")), "--out", str(twl06), "--quiet"])
    reference = shared("reference", "jpa14")
    # Bytecode for our modules, as a regular `pip install` writes it (numpy's was written at its
    # install): without it every run would compile our sources, which no installed copy does.
    subprocess.run([sys.executable, "-m", "compileall", "-q", "solver", "boggle_dawg"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)

    python = [sys.executable]
    commands = {
        "interpreter floor": ("python -c pass", [*python, "-c", "pass"]),
        FLOOR: ('python -c "import numpy"', [*python, "-c", "import numpy"]),
        "imports": ('python -c "import boggle_dawg.dawg_solve"', [*python, "-c", "import boggle_dawg.dawg_solve"]),
        "one board, TWL06": (f"python -m boggle_dawg.dawg_solve TWL06-26 {BOARD}", [*SOLVER_CLI, str(twl06), BOARD]),
        "one board, reference": (f"python -m boggle_dawg.dawg_solve ../shared/reference/jpa14 {BOARD}",
                                 [*SOLVER_CLI, str(reference), BOARD]),
    }
    before = load_average()
    series = measure_commands({name: command for name, (_, command) in commands.items()}, repeats)
    after = load_average()
    conditions.finish()

    floor, floor_cpu = series[FLOOR].seconds(), series[FLOOR].cpu_seconds()
    lines = [
        "# Start-up benchmark", "",
        conditions.header(), "",
        (f"Seconds of wall time of each command in a fresh interpreter, {repeats.describe()}; every round "
        "runs each command once, in rotating order, so all of them see the same load. The OS file cache "
        "is warm (each command ran once before timing), and our modules' bytecode is compiled first "
        "(`python -m compileall solver boggle_dawg`), as installing the package or a first run writes it and as numpy's is; "
        "one board needs no compiled code (no numba). "
        "TWL06-26 is our build of `../shared/lexicons/twl06.txt` (`python -m boggle_dawg.dawgc_cli build ... --out "
        "TWL06-26`, every format; the CLI opens the default, the trie). The last four columns divide "
        "each command's min, median and max wall time and its median CPU time (user + system seconds) by "
        "those of the numpy floor; the CPU ratio moves least with the load."), "",
        ("| command | min s | median s | max s | spread | runs | CPU s | / numpy floor: min | median | max "
         "| CPU |"),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (shown, _) in commands.items():
        s = series[name]
        seconds = s.seconds()
        cpu = s.cpu_seconds()
        lines.append(f"| `{shown}` | {stats_cells(seconds, '{:.3f}')} | {runs_cell(s, repeats)} | "
                     f"{cpu.median:.3f} | {seconds.min / floor.min:.2f}x | {seconds.median / floor.median:.2f}x | "
                     f"{seconds.max / floor.max:.2f}x | {cpu.median / floor_cpu.median:.2f}x |")
        print(f"{name}: {seconds.median:.3f} s median ({seconds.min:.3f}-{seconds.max:.3f})", file=sys.stderr)
    imports = series["imports"].seconds().median - series["interpreter floor"].seconds().median
    board = series["one board, TWL06"].seconds().median
    lines += [
        "", (f"Imports of `boggle_dawg.dawg_solve` beyond the bare interpreter: {imports:.3f} s of the {board:.3f} s "
             "one-board median on TWL06."), "",
        conditions.note(before, after), "",
        ("Where `import boggle_dawg.dawg_solve` spends its time: each package's own modules (self times of "
         "`python -X importtime -c \"import boggle_dawg.dawg_solve\"`, one run, summed per package, 1 ms or more):"), "",
        "| package | seconds |", "|---|---:|",
        *(f"| {name} | {seconds:.3f} |" for seconds, name in import_shares("boggle_dawg.dawg_solve", 10)),
    ]
    text = "\n".join(lines) + "\n"
    publish(args, text)


if __name__ == "__main__":
    main()
