"""Alphabets beyond A-Z: English batch scoring before and after a change, on the same machine state,
and a wide-alphabet lexicon beside it.

Run from the repository root:
    python benchmarks/alphabets_bench.py                    # before = HEAD; writes benchmarks/results/alphabets.md
    python benchmarks/alphabets_bench.py --before REV       # any git revision as the "before"
    python benchmarks/alphabets_bench.py --quick            # smoke run: 2 rounds, prints the tables

"Before" is the revision's tree (`git archive`, read only) imported under another package name,
`boggle_before`, in the same process as this checkout: each round scores the same boards with
the before and the after lexicon back to back, so both see the same load, and the figure is
CPU seconds of the scoring thread (`score_many(boards, jobs=1)`; the calling thread only
waits), the least moved by other work on a shared machine. TWL06 at 26 letters, the 10,000
dice boards of ../shared/bench, every format, each version building its own lexicon. The wide
figure: the Russian Tanglet list (33 letters, wide node words) on 10,000 boards rolled from its
own 4x4 and 5x5 dice, this checkout only.
"""

from __future__ import annotations

import argparse
import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.dice_sets import load_dice, roll
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon

from common import REPO, Conditions, add_options, load_average, publish, shared

BEFORE = "boggle_before"
# the folders the installed package maps to its subpackages (pyproject.toml's package-dir)
SUBPACKAGES = {"compiler": "compiler", "solver": "solver", "lexicons": "lexicons"}


def import_revision(revision: str, root: Path):
    """The package of `revision`, importable as BEFORE: its boggle_dawg/ with compiler/, solver/ and
    lexicons/ placed inside, as the installed package has them."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root / "tree", filter="data")
    package = root / "tree" / "boggle_dawg"
    for name, folder in SUBPACKAGES.items():
        (root / "tree" / folder).rename(package / name)
    package.rename(root / BEFORE)
    sys.path.insert(0, str(root))
    return importlib.import_module(f"{BEFORE}.compiler.build"), importlib.import_module(f"{BEFORE}.solver.lexicon"), \
        importlib.import_module(f"{BEFORE}.solver.charset")


def cpu_rate(lex, boards: list[str]) -> float:
    """Boards per CPU second of one batch on one scoring thread."""
    started = time.process_time()
    lex.score_many(boards, jobs=1)
    return len(boards) / (time.process_time() - started)


def interleaved(lexicons: dict[str, object], boards: list[str], rounds: int) -> dict[str, list[float]]:
    """Rates of each lexicon, round by round; the scores must agree."""
    scores = {name: lex.score_many(boards, jobs=1).tolist() for name, lex in lexicons.items()}  # warm up
    assert len({tuple(s) for s in scores.values()}) == 1, "before and after score differently"
    rates = {name: [] for name in lexicons}
    for _ in range(rounds):
        for name, lex in lexicons.items():
            rates[name].append(cpu_rate(lex, boards))
    return rates


def cells(rates: list[float]) -> str:
    ordered = sorted(rates)
    return f"{ordered[0]:,.0f} / {ordered[len(ordered) // 2]:,.0f} / {ordered[-1]:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="HEAD", help="git revision to compare with [default: HEAD]")
    add_options(parser, runs=9, max_runs=9, quick_runs=2, results="alphabets.md")
    args = parser.parse_args()
    rounds = args.quick_runs if args.quick else args.runs
    conditions = Conditions()
    tmp = Path(tempfile.mkdtemp(prefix="alphabets-bench-"))
    before_build, before_lexicon, before_charset = import_revision(args.before, tmp)
    revision = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.before], capture_output=True,
                              text=True, check=True).stdout.strip()
    twl06 = shared("lexicons", "twl06.txt")
    before_build.build_lexicon(twl06, before_charset.parse_charset("26"), tmp / "before")
    build_lexicon(twl06, parse_charset("26"), tmp / "after")
    english = ["| boards | format | before: boards per CPU s, min / median / max | after | after / before (medians) |",
               "|---|---|---:|---:|---:|"]
    ratios = []
    load_before = load_average()
    for name in ("dice4x4-10k.txt", "dice5x5-10k.txt"):
        boards = shared("bench", name).read_text().split()
        for fmt in FORMATS:
            rates = interleaved({"before": before_lexicon.open_lexicon(tmp / "before", fmt),
                                 "after": open_lexicon(tmp / "after", fmt)}, boards, rounds)
            ratio = sorted(rates["after"])[rounds // 2] / sorted(rates["before"])[rounds // 2]
            ratios.append(ratio)
            english.append(f"| {name} | {fmt} | {cells(rates['before'])} | {cells(rates['after'])} | {ratio:.3f} |")
            print(english[-1], flush=True)
    english += ["", f"After / before, medians: {min(ratios):.3f} to {max(ratios):.3f}.", "",
                conditions.note(load_before, load_average())]

    russian = load_language("ru")
    build_lexicon(shared("lexicons", "tanglet", "ru", "words"), russian.charset(), tmp / "ru",
                  options=ListOptions(russian, lenient=True))
    ru = open_lexicon(tmp / "ru")
    wide = ["| lexicon | boards | format | boards per CPU s, min / median / max |", "|---|---|---|---:|"]
    load_before = load_average()
    for rows in (4, 5):
        shape = Shape(rows, rows)
        dice = load_dice(str(shared("lexicons", "tanglet", "ru", "dice")), ru.charset, shape)
        boards = [board.notation for board in roll(dice, shape, 1, 10_000)]
        for fmt in FORMATS:
            rates = interleaved({"ru": open_lexicon(tmp / "ru", fmt)}, boards, rounds)["ru"]
            wide.append(f"| Tanglet ru, {len(ru.charset)} letters (wide nodes) | 10,000 rolled from its {shape} "
                        f"dice | {fmt} | {cells(rates)} |")
            print(wide[-1], flush=True)
    wide += ["", conditions.note(load_before, load_average())]
    conditions.finish()
    publish(args, "\n".join([
        "# Alphabets: English batch scoring before and after, and a wide alphabet", "",
        conditions.header(), "",
        f"Before: `{args.before}` ({revision}), imported from `git archive` as another package in the same process;",
        "after: this checkout. TWL06 at 26 letters (narrow node words, format version 1: the same",
        "bytes in both), `score_many(boards, jobs=1)`, boards per CPU second of the scoring thread,",
        f"{rounds} rounds with before and after back to back in each.", "",
        *english, "", "## A wide alphabet", "",
        "The Russian Tanglet list (`--language ru --lenient`), this checkout, in the same run.", "",
        *wide, ""]))


if __name__ == "__main__":
    main()
