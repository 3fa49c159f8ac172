"""Helpers shared by the benchmark scripts: where the data is, and what machine this is."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
RESULTS = REPO / "benchmarks" / "results"


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        sys.exit(f"benchmark needs {path} (the ../shared test data)")
    return path


def machine() -> str:
    """A short description of this machine and the software versions measured."""
    import numba
    import numpy

    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return (f"{model}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {numpy.__version__}, numba {numba.__version__}; {gcc}")


def write_results(name: str, text: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(text)
    return path
