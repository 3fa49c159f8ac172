"""Build time, peak memory and file sizes of `dawgc build` (all formats), against the reference ADTDAWG.

Run from the repository root:
    python benchmarks/compiler_bench.py           # writes benchmarks/results/compiler.md (1-3 minutes)
    python benchmarks/compiler_bench.py --quick   # smoke run: one build of each, prints the tables

The Tanglet lists of six languages are built beside TWL06 by the same code
(`language_builds`, `measure_builds`) from benchmarks/languages_bench.py, which
writes benchmarks/results/languages.md.

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
from dataclasses import dataclass
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
# Tanglet folder: the options its list is built with (ru's list has two lines split by a space and a Latin C)
TANGLET_OPTIONS = {"de": ("--input-format", "tanglet"), "es": (), "fr": ("--input-format", "tanglet"),
                   "nl": ("--input-format", "tanglet"), "pl": (), "ru": ("--lenient",)}


@dataclass(frozen=True)
class Build:
    """One `dawgc build` to measure: the table's name for it, its list, charset and other options."""

    name: str
    source: Path
    charset: str | None = "26"
    options: tuple[str, ...] = ()

    def command(self, out: Path) -> list[str]:
        charset = ("--charset", self.charset) if self.charset else ()
        return [*COMPILER_CLI, "build", str(self.source), *charset, *self.options, "--out", str(out), "--quiet"]


def language_builds() -> list[Build]:
    """TWL06 and the Tanglet list of each language, each with all its letters."""
    return [Build("twl06 (en)", shared("lexicons", "twl06.txt")),
            *(Build(f"tanglet {name}", shared("lexicons", "tanglet", name, "words"), None,
                    ("--language", name, *options)) for name, options in TANGLET_OPTIONS.items())]


def measure_builds(builds: list[Build], repeats, out_dir: Path) -> tuple[dict[str, object], dict[str, dict]]:
    """Each build's series of runs (fresh processes, interleaved) and its manifest; the lexicons stay
    in `out_dir`/<index>."""
    outs = {build.name: out_dir / str(i) for i, build in enumerate(builds)}
    series = measure_commands({build.name: build.command(outs[build.name]) for build in builds}, repeats)
    manifests = {name: msgpack.unpackb((out / "manifest.msgpack").read_bytes()) for name, out in outs.items()}
    return series, manifests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=5, max_runs=10, quick_runs=1, results="compiler.md")
    args = parser.parse_args()
    repeats = repeats_from(args)

    conditions = Conditions()
    reference = shared("reference", "jpa14")
    ref_bytes = sum(p.stat().st_size for p in reference.glob("Four_Part_*_DTDAWG_For_Lexicon_14.dat"))
    builds = {(name, charset): Build(f"{name}-{charset}", shared("lexicons", name), charset) for name, charset in BUILDS}
    with tempfile.TemporaryDirectory() as tmp:
        before = load_average()
        by_name, manifest_by_name = measure_builds(list(builds.values()), repeats, Path(tmp))
        after = load_average()
    series = {key: by_name[build.name] for key, build in builds.items()}
    manifests = {key: manifest_by_name[build.name] for key, build in builds.items()}
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
