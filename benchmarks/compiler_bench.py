"""Build time, peak memory and file sizes of `dawgc build` (all formats), against the reference ADTDAWG.

Run from the repository root: python benchmarks/compiler_bench.py
Writes benchmarks/results/compiler.md. Each build runs in its own process,
so peak memory (max RSS from wait4) covers interpreter, imports and build.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import msgpack

from common import REPO, machine, shared, write_results

BUILDS = [("twl06.txt", "26"), ("sowpods.txt", "26"), ("twl06.txt", "14"), ("yawl.txt", "26")]
RUNS = 3


def timed_build(source: Path, charset: str, out: Path) -> tuple[float, int]:
    """(seconds, peak RSS bytes) of one `dawgc build` in a fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", str(source), "--charset", charset,
                             "--out", str(out), "--quiet"], cwd=REPO, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        sys.exit(f"build of {source} failed")
    return seconds, usage.ru_maxrss * 1024


def main() -> None:
    reference = shared("reference", "jpa14")
    ref_bytes = sum(p.stat().st_size for p in reference.glob("Four_Part_*_DTDAWG_For_Lexicon_14.dat"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, charset in BUILDS:
            out = Path(tmp) / f"{name}-{charset}"
            runs = [timed_build(shared("lexicons", name), charset, out) for _ in range(RUNS)]
            seconds = min(s for s, _ in runs)
            peak = max(m for _, m in runs)
            m = msgpack.unpackb((out / "manifest.msgpack").read_bytes())
            rows.append((name, charset, m, seconds, peak))
            print(f"{name} --charset {charset}: {seconds:.2f} s, {peak / 2**20:.0f} MiB", file=sys.stderr)

    lines = [
        "# Compiler benchmark",
        "",
        f"Measured {date.today()} with `python benchmarks/compiler_bench.py` on: {machine()}.",
        "",
        f"Each figure is the best of {RUNS} runs of `dawgc build LIST --charset N` in a fresh process (all three "
        "formats and the manifest), wall time including interpreter start; peak memory is the largest max RSS.",
        "",
        "| list | charset | words | seconds | peak MiB | trie nodes / bytes | DAWG states, edges / bytes | ADTDAWG nodes, child sets / bytes |",
        "|---|---:|---:|---:|---:|---|---|---|",
    ]
    for name, charset, m, seconds, peak in rows:
        adt = m["adtdawg"]
        lines.append(
            f"| {name} | {charset} | {m['words']:,} | {seconds:.2f} | {peak / 2**20:.0f} | "
            f"{m['trie']['nodes']:,} / {m['trie']['bytes']:,} | "
            f"{m['dawg']['states']:,}, {m['dawg']['edges']:,} / {m['dawg']['bytes']:,} | "
            f"{adt['nodes']:,}, {adt['child_sets']:,} / {adt['bytes']:,} |")
    jpa = next(m for name, charset, m, *_ in rows if charset == "14")
    lines += [
        "",
        f"Reference ADTDAWG for the same JPA14 lexicon (`../shared/reference/jpa14`): 29,797 nodes, "
        f"1,505 child sets, {ref_bytes:,} bytes in four files. Ours: {jpa['adtdawg']['nodes']:,} nodes, "
        f"{jpa['adtdawg']['child_sets']:,} child sets, {jpa['adtdawg']['bytes']:,} bytes "
        f"({100 * (1 - jpa['adtdawg']['bytes'] / ref_bytes):.1f}% smaller), same layout.",
        "",
        "Target (issue 2): full SOWPODS, all formats, under 20 s and under 2 GiB.",
    ]
    path = write_results("boggle_dawg.compiler.md", "\n".join(lines) + "\n")
    print(path)


if __name__ == "__main__":
    main()
