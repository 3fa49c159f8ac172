"""Compile and run the two native baselines the product is measured against.

    from baselines.build import compile_all, run, best_of   # with benchmarks/ on sys.path
    exes = compile_all()                       # {"adtdawg_seed000": Path, "trie_solver": Path}
    scores, bps = run(exes["trie_solver"], [TWL06, BOARDS])

Both programs print one score per line on stdout and
"boards N seconds S boards_per_s R" on stderr, timing only their scoring
loop; `run` returns the scores and that rate. Binaries go under build/
(git-ignored), never next to the sources.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_BUILD_DIR = REPO / "build" / "baselines"

# name -> (source, compiler command without output/input). -march=native
# because the figures in the product brief are "on this machine".
PROGRAMS: dict[str, tuple[Path, list[str]]] = {
    "adtdawg_seed000": (HERE / "adtdawg_seed000.c", ["gcc", "-O3", "-march=native", "-std=c11", "-Wall", "-Wextra"]),
    "trie_solver": (HERE / "trie_solver.cpp", ["g++", "-O3", "-march=native", "-std=c++17", "-Wall", "-Wextra"]),
}

_RATE = re.compile(r"^boards (\d+) seconds ([0-9.eE+-]+) boards_per_s ([0-9.eE+-]+)\s*$", re.M)


class BaselineError(RuntimeError):
    pass


def compile_all(out_dir: str | Path = DEFAULT_BUILD_DIR, force: bool = False) -> dict[str, Path]:
    """Compile every baseline into `out_dir`; returns {name: executable}.

    A binary is rebuilt when missing, older than its source, built with other
    flags, or when `force` is set, so repeated benchmark runs cost nothing."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    exes = {}
    for name, (source, command) in PROGRAMS.items():
        exe = out_dir / name
        flags_file = out_dir / f"{name}.flags"
        flags = " ".join(command)
        stale = (force or not exe.exists() or exe.stat().st_mtime < source.stat().st_mtime
                 or not flags_file.exists() or flags_file.read_text() != flags)
        if stale:
            if shutil.which(command[0]) is None:
                raise BaselineError(f"{command[0]} not found: cannot build {source.name}")
            # Compile to a temporary name, then rename: an interrupted build
            # never leaves a half-written binary that looks up to date.
            tmp = out_dir / f".{name}.tmp{os.getpid()}"
            result = subprocess.run([*command, "-o", str(tmp), str(source)], capture_output=True, text=True)
            if result.returncode != 0:
                tmp.unlink(missing_ok=True)
                raise BaselineError(f"compiling {source.name} failed:\n{result.stderr}")
            os.replace(tmp, exe)
            flags_file.write_text(flags)
        exes[name] = exe
    return exes


def run(exe: str | Path, args: list[str | Path], timeout: float = 600) -> tuple[list[int], float]:
    """Run a baseline once; returns (scores in input order, boards per second)."""
    result = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise BaselineError(f"{Path(exe).name} exited with {result.returncode}:\n{result.stderr.strip()}")
    match = _RATE.search(result.stderr)
    if not match:
        raise BaselineError(f"{Path(exe).name}: no throughput line on stderr:\n{result.stderr.strip()}")
    scores = [int(line) for line in result.stdout.split()]
    if len(scores) != int(match.group(1)):
        raise BaselineError(f"{Path(exe).name}: {len(scores)} scores for {match.group(1)} boards")
    return scores, float(match.group(3))


def best_of(exe: str | Path, args: list[str | Path], repeat: int = 3) -> tuple[list[int], float, list[float]]:
    """Run `repeat` times; returns (scores, best rate, every rate).

    Best-of-N because the machine is shared: other work can only slow a run
    down, so the fastest run is the closest to the program's own speed. The
    scores of every run must be identical."""
    scores, rates = None, []
    for _ in range(max(1, repeat)):
        got, rate = run(exe, args)
        if scores is not None and got != scores:
            raise BaselineError(f"{Path(exe).name}: scores differ between runs")
        scores = got
        rates.append(rate)
    return scores, max(rates), rates
