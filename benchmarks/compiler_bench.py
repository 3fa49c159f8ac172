"""Build time, peak memory and file sizes of `dawgc build` (all formats), against the reference ADTDAWG.

Run from the repository root:
    python benchmarks/compiler_bench.py           # writes benchmarks/results/compiler.md (1-3 minutes)
    python benchmarks/compiler_bench.py --quick   # smoke run: one build of each, prints the tables

Each build runs in its own process, so wall time includes interpreter start
and imports, and peak memory (max RSS from wait4) covers interpreter, imports
and build. Every round builds each list once, in rotating order; the table
gives min / median / max wall seconds and the median CPU seconds (user +
system), which a busy machine inflates much less than the wall time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import msgpack

from common import (
    COMPILER_CLI,
    Conditions,
    add_options,
    load_average,
    measure_commands,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
)

BUILDS = [("twl06.txt", "26"), ("sowpods.txt", "26"), ("twl06.txt", "14"), ("yawl.txt", "26")]


def build_command(source: Path, charset: str, out: Path) -> list[str]:
    return [*COMPILER_CLI, "build", str(source), "--charset", charset, "--out", str(out), "--quiet"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=5, max_runs=10, quick_runs=1, results="compiler.md")
    args = parser.parse_args()
    repeats = repeats_from(args)

    conditions = Conditions()
    reference = shared("reference", "jpa14")
    ref_bytes = sum(p.stat().st_size for p in reference.glob("Four_Part_*_DTDAWG_For_Lexicon_14.dat"))
    with tempfile.TemporaryDirectory() as tmp:
        outs = {(name, charset): Path(tmp) / f"{name}-{charset}" for name, charset in BUILDS}
        before = load_average()
        commands = {(name, charset): build_command(shared("lexicons", name), charset, out)
                    for (name, charset), out in outs.items()}
        series = measure_commands(commands, repeats)
        after = load_average()
        manifests = {key: msgpack.unpackb((out / "manifest.msgpack").read_bytes()) for key, out in outs.items()}
    conditions.finish()

    lines = [
        "# Compiler benchmark", "",
        conditions.header(), "",
        (f"`dawgc build LIST --charset N` (as `python -m boggle_dawg.dawgc_cli build LIST --charset N --out DIR "
         f"--quiet`: all three formats and the manifest) in a fresh process, {repeats.describe()}; every "
         "round builds each list once, in rotating order, after one untimed build of each. Wall seconds "
         "include interpreter start and imports; CPU is user + system seconds (median); peak memory is the "
         "largest max RSS of all runs."), "",
        "| list | charset | words | min s | median s | max s | spread | runs | CPU s | peak MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (name, charset), s in series.items():
        seconds, cpu = s.seconds(), s.cpu_seconds()
        peak = max(r.peak_bytes for r in s.runs)
        lines.append(f"| {name} | {charset} | {manifests[(name, charset)]['words']:,} | "
                     f"{stats_cells(seconds, '{:.2f}')} | {runs_cell(s, repeats)} | {cpu.median:.2f} | "
                     f"{peak / 2**20:.0f} |")
        print(f"{name} --charset {charset}: {seconds.median:.2f} s median ({seconds.min:.2f}-{seconds.max:.2f}), "
              f"{peak / 2**20:.0f} MiB", file=sys.stderr)
    lines += [
        "", conditions.note(before, after), "",
        "Sizes (the same on every machine):", "",
        "| list | charset | trie nodes / bytes | DAWG states, edges / bytes | ADTDAWG nodes, child sets / bytes |",
        "|---|---:|---|---|---|",
    ]
    for (name, charset), m in manifests.items():
        adt = m["adtdawg"]
        lines.append(
            f"| {name} | {charset} | {m['trie']['nodes']:,} / {m['trie']['bytes']:,} | "
            f"{m['dawg']['states']:,}, {m['dawg']['edges']:,} / {m['dawg']['bytes']:,} | "
            f"{adt['nodes']:,}, {adt['child_sets']:,} / {adt['bytes']:,} |")
    jpa = manifests[("twl06.txt", "14")]
    lines += [
        "",
        (f"Reference ADTDAWG for the same JPA14 lexicon (`../shared/reference/jpa14`): 29,797 nodes, "
        f"1,505 child sets, {ref_bytes:,} bytes in four files. Ours: {jpa['adtdawg']['nodes']:,} nodes, "
        f"{jpa['adtdawg']['child_sets']:,} child sets, {jpa['adtdawg']['bytes']:,} bytes "
        f"({100 * (1 - jpa['adtdawg']['bytes'] / ref_bytes):.1f}% smaller), same layout."),
        "",
        "Target (issue 2): full SOWPODS, all formats, under 20 s and under 2 GiB.",
    ]
    text = "\n".join(lines) + "\n"
    publish(args, text)


if __name__ == "__main__":
    main()
