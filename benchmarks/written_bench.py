"""What keeping words as written costs a build: Tanglet's German list (the most spellings of the shared
lists: 374,322 of 675,628 words), read with and without the spellings kept, interleaved, in CPU
seconds; the seconds to write `written.bin` and its size; the peak memory of a whole build with and
without, each in a fresh process.

Run from the repository root:
    python benchmarks/written_bench.py            # writes benchmarks/results/written.md (about 3 minutes)
    python benchmarks/written_bench.py --quick    # one round, printed
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from boggle_dawg.compiler import wordlist
from boggle_dawg.compiler.wordlist import ListOptions, load_word_list
from boggle_dawg.compiler.written import written_bytes
from boggle_dawg.solver.language import load_language

from common import Conditions, Stats, add_options, load_average, publish, repeats_from, shared, stats_cells

KEEPING = wordlist._Parser._spelled
MODES = {"with spellings": KEEPING, "without": lambda parser, word, text: None}
PEAK = """
import resource, sys
from boggle_dawg.compiler import wordlist
from boggle_dawg.compiler.build import compile_lexicon
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.solver.language import load_language
if sys.argv[2] == "without":
    wordlist._Parser._spelled = lambda parser, word, text: None
de = load_language("de")
compile_lexicon(__import__("pathlib").Path(sys.argv[1]), de.charset(), options=ListOptions(de, "tanglet", False))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def read_seconds(source, mode: str) -> float:
    wordlist._Parser._spelled = MODES[mode]
    try:
        de = load_language("de")
        started = time.process_time()
        load_word_list(source, de.charset(), None, ListOptions(de, "tanglet", False))
        return time.process_time() - started
    finally:
        wordlist._Parser._spelled = KEEPING


def peak_mib(source, mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK, str(source), "without" if mode == "without" else "with"],
                         capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser, runs=5, max_runs=5, quick_runs=1, results="written.md")
    args = parser.parse_args()
    rounds = repeats_from(args).runs
    conditions = Conditions()
    source = shared("lexicons", "tanglet", "de", "words")
    before = load_average()
    seconds: dict[str, list[float]] = {mode: [] for mode in MODES}
    for r in range(rounds):  # interleaved, the order alternating
        for mode in MODES if r % 2 == 0 else reversed(list(MODES)):
            seconds[mode].append(read_seconds(source, mode))
    de = load_language("de")
    words = load_word_list(source, de.charset(), None, ListOptions(de, "tanglet", False))
    started = time.process_time()
    data = written_bytes(words.spellings, words.charset)
    writing = time.process_time() - started
    peaks = {mode: max(peak_mib(source, mode) for _ in range(2)) for mode in MODES}
    after = load_average()
    conditions.finish()
    lines = [
        "# Words as written: what keeping them costs a build", "", conditions.header(), "",
        f"Tanglet's German list (`--language de --input-format tanglet`): {len(words.words):,} words, "
        f"{len(words.spellings):,} of them written otherwise (a capital, an umlaut, ß); `written.bin` "
        f"{len(data):,} bytes ({len(data) / len(words.spellings):.1f} a word written otherwise). "
        "Reading the list (`load_word_list`), CPU seconds, interleaved rounds:", "",
        "| reading | min | median | max | spread |", "|---|---:|---:|---:|---:|",
        *(f"| {mode} | {stats_cells(Stats.of(values), '{:.2f}')} |" for mode, values in seconds.items()),
        "", f"Writing `written.bin`: {writing:.2f} CPU seconds. Peak memory of a whole build "
            f"(`compile_lexicon`, every format, in a fresh process, the larger of two): "
            + ", ".join(f"{mode} {mib:,.0f} MiB" for mode, mib in peaks.items()) + ".",
        "", conditions.note(before, after), "",
    ]
    publish(args, "\n".join(lines))


if __name__ == "__main__":
    main()
