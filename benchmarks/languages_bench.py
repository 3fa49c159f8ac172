"""Every language: building the Tanglet lists beside TWL06, and scoring boards rolled from each
language's own dice beside the English dice.

Run from the repository root:
    python benchmarks/languages_bench.py           # writes benchmarks/results/languages.md (about 10 minutes)
    python benchmarks/languages_bench.py --quick   # smoke run: one run of each, prints the tables

Builds: `dawgc build` in a fresh process per run (compiler_bench's `measure_builds`: wall
and CPU seconds, peak memory of the process), then once more in this process with each
step timed, for the seconds of each format. Scoring: `Lexicon.score_many(boards, jobs=1)`
on boards rolled (seeded) from the language's Tanglet dice, 4x4 and 5x5, for each
format, after one untimed warm-up call; TWL06 uses the English classic and big dice.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from compiler_bench import language_builds, measure_builds  # imports common first: this checkout on sys.path

from boggle_dawg.compiler.build import WRITTEN_STAGE, build_lexicon
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.compiler.writers import WRITERS
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.dice_sets import load_dice, roll
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon

from common import (
    Conditions,
    add_options,
    load_average,
    measure_interleaved,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
    timed_call,
)

SCORED = {"twl06 (en)": None, "tanglet de": "de", "tanglet pl": "pl", "tanglet ru": "ru"}  # build -> Tanglet dice
BOARDS = {Shape(4, 4): 20_000, Shape(5, 5): 5_000}
ENGLISH_DICE = {Shape(4, 4): "classic", Shape(5, 5): "big"}
SEED = 22


def format_seconds(build, out: Path) -> dict[str, float]:
    """Seconds of each step of one build in this process (reading the list, then each format)."""
    seconds: dict[str, float] = {}

    @contextmanager
    def stage(name: str):
        started = time.perf_counter()
        yield
        seconds["writing" if name.startswith("writing") else name] = time.perf_counter() - started

    args = build.options
    language = load_language(args[args.index("--language") + 1]) if "--language" in args else load_language("en")
    input_format = args[args.index("--input-format") + 1] if "--input-format" in args else "plain"
    options = ListOptions(language, input_format, "--lenient" in args)
    build_lexicon(build.source, language.charset(), out, stage=stage, options=options)
    return seconds


def written_cell(manifest: dict) -> str:
    """The words a build keeps as written otherwise (solver.written) and its file's bytes, or none."""
    written = manifest.get("written")
    return f"{written['words']:,} / {written['bytes']:,}" if written else "none"


def build_tables(builds, repeats, tmp: Path) -> tuple[list[str], dict[str, Path]]:
    before = load_average()
    series, manifests = measure_builds(builds, repeats, tmp)
    steps = {b.name: format_seconds(b, tmp / f"steps-{i}") for i, b in enumerate(builds)}
    after = load_average()
    lines = [
        "## Builds", "",
        (f"`dawgc build LIST --language L` (all three formats and the manifest) in a fresh process, "
         f"{repeats.describe()}, interleaved; wall seconds include interpreter start and imports, CPU is user + "
         "system seconds (median), peak memory the largest max RSS. Options: de, fr and nl `--input-format "
         "tanglet`, ru `--lenient`; every list with all its language's letters."), "",
        "| list | letters | words kept | dropped | min s | median s | max s | spread | runs | CPU s | peak MiB |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in builds:
        m, s = manifests[b.name], series[b.name]
        dropped = ", ".join(f"{n:,} {r.replace('_', ' ')}" for r, n in m["dropped"].items() if n) or "none"
        peak = max(r.peak_bytes for r in s.runs)
        lines.append(f"| {b.name} | {len(m['charset'])} | {m['words']:,} | {dropped} | "
                     f"{stats_cells(s.seconds(), '{:.2f}')} | {runs_cell(s, repeats)} | {s.cpu_seconds().median:.2f} | "
                     f"{peak / 2**20:,.0f} |")
        print(f"{b.name}: {s.seconds().median:.2f} s, {peak / 2**20:,.0f} MiB", file=sys.stderr)
    lines += ["", "Each step of one more build in the benchmark's own process (seconds):", "",
              f"| list | reading the list | {' | '.join(WRITERS)} | words as written | writing |",
              "|---|---:|" + "---:|" * (len(WRITERS) + 2)]
    for b in builds:
        step = steps[b.name]
        cells = [step["reading word list"], *(step[w.stage] for w in WRITERS.values()),
                 step.get(WRITTEN_STAGE, 0.0), step["writing"]]
        lines.append(f"| {b.name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    lines += ["", "Sizes (the same on every machine):", "",
              "| list | trie nodes / bytes | DAWG states, edges / bytes | ADTDAWG nodes, child sets / bytes | "
              "words as written / bytes |",
              "|---|---|---|---|---|"]
    for b in builds:
        m = manifests[b.name]
        adt = m["adtdawg"]
        lines.append(f"| {b.name} | {m['trie']['nodes']:,} / {m['trie']['bytes']:,} | {m['dawg']['states']:,}, "
                     f"{m['dawg']['edges']:,} / {m['dawg']['bytes']:,} | {adt['nodes']:,}, {adt['child_sets']:,} / "
                     f"{adt['bytes']:,} | {written_cell(m)} |")
    lines += ["", "Target (issue 22): the Polish list, all three formats, under 60 s and 3 GiB.",
              "", Conditions().note(before, after)]
    return lines, {b.name: tmp / str(i) for i, b in enumerate(builds)}


def scoring_table(outs: dict[str, Path], repeats) -> list[str]:
    before = load_average()
    measurements, counts = {}, {}
    for name, tanglet in SCORED.items():
        for fmt in FORMATS:
            lex = open_lexicon(outs[name], fmt)
            for shape, count in BOARDS.items():
                dice = (load_dice(str(shared("lexicons", "tanglet", tanglet, "dice")), lex.charset, shape) if tanglet
                        else load_dice(ENGLISH_DICE[shape]))
                boards = list(roll(dice, shape, SEED, count))
                lex.score_many(boards[:100])  # compiles the kernels (or loads them from numba's cache)
                key = (name, shape, fmt)
                measurements[key] = lambda lex=lex, boards=boards: timed_call(lambda: lex.score_many(boards))[0]
                counts[key] = count
    series = measure_interleaved(measurements, repeats, lambda line: print(line, file=sys.stderr))
    after = load_average()
    lines = [
        "## Scoring boards rolled from each language's dice", "",
        (f"`Lexicon.score_many(boards, jobs=1)` on {', '.join(f'{n:,} {s}' for s, n in BOARDS.items())} boards "
         f"rolled with seed {SEED} from the list's language's Tanglet dice (TWL06: the English classic and big "
         f"dice), {repeats.describe()}, interleaved; boards per second."), "",
        "| lexicon | size | format | min boards/s | median | max | spread | runs |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for (name, shape, fmt), s in series.items():
        lines.append(f"| {name} | {shape} | {fmt} | {stats_cells(s.rates(counts[(name, shape, fmt)]))} | "
                     f"{runs_cell(s, repeats)} |")
    return lines + ["", Conditions().note(before, after)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=3, max_runs=5, quick_runs=1, results="languages.md")
    args = parser.parse_args()
    repeats = repeats_from(args)
    conditions = Conditions()
    with tempfile.TemporaryDirectory() as tmp:
        builds = language_builds()
        build_lines, outs = build_tables(builds, repeats, Path(tmp))
        score_lines = scoring_table(outs, repeats)
    conditions.finish()
    text = "\n".join(["# Languages benchmark", "", conditions.header(), "", *build_lines, "", *score_lines]) + "\n"
    publish(args, text)


if __name__ == "__main__":
    main()
