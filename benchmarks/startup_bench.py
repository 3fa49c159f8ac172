"""Start-up: one board and batches of 10,000 end to end, whole processes, against the interpreter
and numpy floors and, where given, the C++ anchors, measured in the same run.

Run from the repository root:
    python benchmarks/startup_bench.py            # writes benchmarks/results/startup.md (a few minutes)
    python benchmarks/startup_bench.py --quick    # smoke run: 3 rounds, prints the table
    python benchmarks/startup_bench.py --hybrid ../anchors/hybrid-boggle --jpa ../anchors/jpa-boggle
                                       # the anchors beside ours: a built checkout of each (below)

Every round runs each command once, in rotating order, in a fresh
interpreter: `python -c pass` (the interpreter's floor), `python -c "import
numpy"` (the floor of anything that reads the lexicon with numpy), `python -c
"import boggle_dawg.dawg_solve"` (the share of imports) and `python -m boggle_dawg.dawg_solve DIR
BOARD` on full TWL06 (our build, default format) and on the reference JPA14
ADTDAWG; then `--boards` of 10,000 boards: 4x4 and 5x5 dice boards on TWL06
(one job, the default, and two) and JPA14's random10k.txt on the reference.
The ratio of their CPU time to the numpy floor's is the figure of issue 32
(one board: at most 1.3x). Interleaving gives every command the same load, so
the ratios hold on a busy machine even when the seconds do not. Where the
imports of `boggle_dawg.dawg_solve` spend their time (`python -X importtime`) follows.

The anchors, built outside the project: `--hybrid DIR`, a checkout of
danvk/hybrid-boggle with its extension built and its venv in DIR/venv (its
`python -m boggle.score --size 44|55 --dictionary twl06.txt FILE`, one board
on stdin); `--jpa DIR`, a checkout of danvk/jpa-boggle with `make
gunsofnavarone` built (run in DIR, where its .dat files are: the reference's).
"""

from __future__ import annotations

import argparse
import shlex
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


def in_directory(directory: Path, command: str, stdin: str | None = None) -> list[str]:
    """`command` (a shell line) run in `directory`, the shell replaced by it (no extra process timed)."""
    feed = f" <<< {shlex.quote(stdin)}" if stdin else ""
    return ["bash", "-c", f"cd {shlex.quote(str(directory))} && exec {command}{feed}"]


def anchor_commands(hybrid: Path | None, jpa: Path | None) -> dict[str, tuple[str, list[str]]]:
    """The C++ anchors' whole-process commands on the same inputs (see the module's docstring)."""
    commands = {}
    if hybrid is not None:
        twl06 = shlex.quote(str(shared("lexicons", "twl06.txt")))
        score = f"venv/bin/python -m boggle.score --dictionary {twl06}"
        commands["hybrid one board"] = ("hybrid-boggle: python -m boggle.score --size 55 --dictionary twl06.txt <<< one board",
                                        in_directory(hybrid, f"{score} --size 55", BOARD.lower()))
        for side in (4, 5):
            boards = shlex.quote(str(shared("bench", f"dice{side}x{side}-10k.txt")))
            commands[f"hybrid {side}x{side}"] = (f"hybrid-boggle: python -m boggle.score --size {side}{side} "
                                                 f"--dictionary twl06.txt dice{side}x{side}-10k.txt",
                                                 in_directory(hybrid, f"{score} --size {side}{side} {boards}"))
    if jpa is not None:
        commands["jpa random10k"] = ("jpa-boggle: ./gunsofnavarone random10k.txt",
                                     in_directory(jpa, f"./gunsofnavarone "
                                                       f"{shlex.quote(str(shared('reference', 'jpa14', 'random10k.txt')))}"))
    return commands


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
    parser.add_argument("--hybrid", type=Path, help="a built danvk/hybrid-boggle checkout, to run beside ours")
    parser.add_argument("--jpa", type=Path, help="a built danvk/jpa-boggle checkout, to run beside ours")
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
    for side in (4, 5):
        boards = f"dice{side}x{side}-10k.txt"
        for jobs in (1, 2):
            commands[f"{side}x{side}, {jobs} jobs"] = (
                f"python -m boggle_dawg.dawg_solve TWL06-26 --boards {boards} -q" + (f" --jobs {jobs}" if jobs > 1 else ""),
                [*SOLVER_CLI, str(twl06), "--boards", str(shared("bench", boards)), "-q", "--jobs", str(jobs)])
    commands["random10k"] = ("python -m boggle_dawg.dawg_solve ../shared/reference/jpa14 --boards random10k.txt -q",
                             [*SOLVER_CLI, str(reference), "--boards", str(reference / "random10k.txt"), "-q"])
    commands.update(anchor_commands(args.hybrid, args.jpa))
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
        "one board needs no compiled code (no numba), a batch on one job loads the driver compiled ahead "
        "of time (no numba; built by the untimed first run), two jobs load numba and its cached drivers. "
        "Both programs run numpy with one OpenBLAS thread unless told otherwise (`OPENBLAS_NUM_THREADS`; "
        "the floors keep numpy's default). "
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
    pairs = [("one board, TWL06", "hybrid one board", "one board, hybrid-boggle's (5x5, on stdin)"),
             ("4x4, 1 jobs", "hybrid 4x4", "10,000 4x4 dice boards, hybrid-boggle's"),
             ("5x5, 1 jobs", "hybrid 5x5", "10,000 5x5 dice boards, hybrid-boggle's"),
             ("random10k", "jpa random10k", "random10k.txt on the reference, jpa-boggle's")]
    ratios = [f"{what}: {series[ours].cpu_seconds().median / series[theirs].cpu_seconds().median:.2f}x"
              for ours, theirs, what in pairs if theirs in series]
    if ratios:
        lines += ["", "Our whole process against the anchor's, median CPU time, same rounds (below 1: ours "
                  "takes less): " + "; ".join(ratios) + "."]
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
