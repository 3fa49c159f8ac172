"""Word queries beside the lexicon libraries (issue 32): ours and marisa-trie, DAWG2 and DAWG-Python in one run.

Run from the repository root:
    python benchmarks/query_bench.py             # writes benchmarks/results/queries.md (about 10 minutes, loaded)
    python benchmarks/query_bench.py --quick     # smoke run: 1 round, 50,000 queries, prints the tables
    python benchmarks/query_bench.py --anchors-python /tmp/anchors/bin/python
    python benchmarks/query_bench.py --language ru   # a Tanglet list instead: writes results/queries-ru.md

The anchors are never the project's dependencies: install them into a virtual
environment of their own (`python3 -m venv /tmp/anchors && /tmp/anchors/bin/pip
install marisa-trie DAWG2 DAWG-Python numpy`) and name its interpreter with
--anchors-python. They run there, in one worker process (a small script this
one writes and drives over a pipe, one measurement a request), and ours run in
this process. Without that interpreter the script says so and measures ours only.

Every structure holds the same words: TWL06 (`../shared/lexicons/twl06.txt`,
our build `build/twl06-26`, made if missing) as our build keeps it, lower case,
at least 3 letters, without the words that have a Q not followed by U; or, with
--language, a Tanglet list as our build of it keeps it (`build/words-LANGUAGE`,
made if missing), in its alphabet's order, the absent queries drawn from its
letters and the listed prefix its commonest first letter. The workloads, each a table:
  1. `word in lex` in a plain loop, 1 M queries, half present words and half
     random strings of the same lengths that are no word (fixed seed);
  2. `key_id(word)` (marisa: also `trie[word]`) on the present half;
  3. the batch lookup, `contains_many` and `key_ids` on the 1 M queries, beside
     the anchors' best loop (the plain loop of 1 or `sum(map(t.__contains__, q))`,
     whichever is faster);
  4. `list(keys(P))` (P: "s" for TWL06) and `prefixes(word)` of 20,000 present words;
  5. import and open in a fresh interpreter (CPU of the child process), beside
     `python -c "import numpy"` and the anchors' import and load (marisa: mmap of
     a saved trie), and the open alone, in process.
Within a workload every implementation runs once per round, in rotating order;
only CPU time counts (`time.process_time` in the process that ran it, or the
child's rusage), given as min / median / max over the rounds; the garbage
collector runs before each timed call and is held off during it (`timed`, as
timeit does), on both sides. Every answer is
checked against every other (hit counts in every round; the hit pattern of all
queries, the keys and the prefixes once, untimed); a mismatch is printed and
written into the results, and the script exits 1.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import inspect
import json
import random
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from common import (
    COMPILER_CLI,
    REPO,
    Conditions,
    Repeats,
    Run,
    Series,
    Stats,
    add_options,
    load_average,
    measure_commands,
    measure_interleaved,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
    timed_process,
)

FORMATS = ("trie", "dawg", "adtdawg")
SEED = 32
MIN_LENGTH = 3  # our build keeps words of 3 letters or more (compiler/wordlist.py)
DEFAULT_ANCHORS = "/tmp/anchors/bin/python"
ANCHORS = ("marisa", "DAWG2", "DAWG-Python")

# The loops both sides time: these functions run here, and their source in the anchors' worker.


def loop_in(lex, words):
    hits = 0
    for word in words:
        if word in lex:
            hits += 1
    return hits


def map_in(lex, words):
    return sum(map(lex.__contains__, words))


def loop_ids(key_id, words):
    return [key_id(word) for word in words]


def subscript_ids(lex, words):
    return [lex[word] for word in words]


def repeated_keys(keys, prefix, reps):
    for _ in range(reps):
        found = list(keys(prefix))
    return found


def loop_prefixes(prefixes, words):
    return [prefixes(word) for word in words]


def timed(call):
    """call()'s result with its CPU and wall seconds, the garbage collector run first and held off
    during, as timeit does: a collection whose cost is set by the size of this process's heap (the
    queries, the answers kept) is no query's cost."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        answer = call()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        gc.enable()
    return answer, cpu, wall


def digest(lines):
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def prefixes_digest(lists):
    return digest(",".join(sorted(found, key=len)) for found in lists)


LOOPS = "\n\n".join(inspect.getsource(f) for f in (loop_in, map_in, loop_ids, subscript_ids, repeated_keys,
                                                     loop_prefixes, timed, digest, prefixes_digest))

# The anchors' worker: JSON requests on stdin, one JSON answer a line on stdout.
WORKER = '''
import gc, hashlib, importlib.metadata, json, platform, sys, time
''' + LOOPS + '''

def read(path):
    text = open(path).read()
    return text.split("\\n") if text else []


libraries, missing = {}, {}
for name, module in (("marisa", "marisa_trie"), ("DAWG2", "dawg"), ("DAWG-Python", "dawg_python")):
    try:
        libraries[name] = __import__(module)
    except Exception as error:  # a wheel that did not build or install
        missing[name] = f"{type(error).__name__}: {error}"
lex = {}
numbered = {}  # IntCompletionDAWGs valued by each word's index: the DAWGs' number of a word
data = {}


def setup(request):
    versions = {"python": platform.python_version()}
    for package in ("marisa-trie", "DAWG2", "DAWG-Python", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    words = read(request["words"])
    for key in ("queries", "present", "sample"):
        data[key] = read(request[key])
    built, checks = {}, {}
    started = time.process_time()
    if "marisa" in libraries:
        lex["marisa"] = libraries["marisa"].Trie(words)
        lex["marisa"].save(request["marisa_file"])
        built["marisa"] = time.process_time() - started
    if "DAWG2" in libraries:
        started = time.process_time()
        lex["DAWG2"] = libraries["DAWG2"].CompletionDAWG(words)
        lex["DAWG2"].save(request["dawg_file"])
        built["DAWG2"] = time.process_time() - started
    if "DAWG-Python" in libraries:
        if "DAWG2" in libraries:  # pure Python reads what DAWG2 wrote
            lex["DAWG-Python"] = libraries["DAWG-Python"].CompletionDAWG().load(request["dawg_file"])
        else:
            missing["DAWG-Python"] = "needs DAWG2 to build its file"
    if "DAWG2" in libraries:
        numbered["DAWG2"] = libraries["DAWG2"].IntCompletionDAWG(zip(words, range(len(words))))
        numbered["DAWG2"].save(request["int_dawg_file"])
        if "DAWG-Python" in libraries:
            numbered["DAWG-Python"] = libraries["DAWG-Python"].IntCompletionDAWG().load(request["int_dawg_file"])
    for name, t in lex.items():
        loop_in(t, data["queries"][:1000])  # warm
        checks[name] = {
            "words": len(list(t.keys(""))),
            "pattern": digest("1" if word in t else "0" for word in data["queries"]),
            "keys": digest(sorted(t.keys(request["prefix"]))),
            "prefixes": prefixes_digest(loop_prefixes(t.prefixes, data["sample"])),
        }
    if "marisa" in lex:  # every id names its word
        t = lex["marisa"]
        checks["marisa"]["ids_restore"] = all(t.restore_key(t.key_id(w)) == w for w in data["present"])
    index = {word: i for i, word in enumerate(words)}
    for name, t in numbered.items():  # every present word's value is its index
        checks[name]["ids_restore"] = all(t[w] == index[w] for w in data["present"])
    return {"versions": versions, "missing": missing, "built": built, "checks": checks}


def run(request):
    name, what = request["name"], request["what"]
    t = lex[name]
    queries, present = data["queries"], data["present"]

    def query():
        if what == "in":
            return loop_in(t, queries)
        if what == "map in":
            return map_in(t, queries)
        if what == "key_id":
            return len(loop_ids(t.key_id, present))
        if what == "trie[word]":
            return len(subscript_ids(t, present))
        if what == "d[word]":
            return len(subscript_ids(numbered[name], present))
        if what == "in present":
            return loop_in(t, present)
        if what == "keys":
            return repeated_keys(t.keys, request["prefix"], request["reps"])
        if what == "prefixes":
            return loop_prefixes(t.prefixes, data["sample"])
        if what == "open":
            if name == "marisa":
                libraries["marisa"].Trie().mmap(request["marisa_file"])
            else:
                libraries[name].CompletionDAWG().load(request["dawg_file"])
            return None
        raise ValueError(what)

    answer, cpu, wall = timed(query)
    if what == "keys":  # what the rounds compare, made after the clock stops
        answer = digest(sorted(answer))
    elif what == "prefixes":
        answer = prefixes_digest(answer)
    return {"wall": wall, "cpu": cpu, "answer": answer}


for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "quit":
        break
    reply = setup(request) if request["op"] == "setup" else run(request)
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
'''


class Worker:
    """The anchors' worker process in the other interpreter."""

    def __init__(self, python: str, folder: Path) -> None:
        script = folder / "anchors_worker.py"
        script.write_text(WORKER)
        self.process = subprocess.Popen([python, "-I", str(script)], cwd=folder, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def ask(self, request: dict) -> dict:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"the anchors' worker stopped (status {self.process.wait()}) on {request}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin
            self.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.process.stdin.close()
            self.process.wait(timeout=60)


class Answers:
    """The answer of each implementation in each round of a workload, checked to agree."""

    def __init__(self) -> None:
        self.mismatches: list[str] = []

    def check(self, what: str, answers: dict[str, object]) -> None:
        if len(set(map(repr, answers.values()))) > 1:
            line = f"MISMATCH in {what}: " + ", ".join(f"{name} {answer!r}" for name, answer in answers.items())
            print(f"\n*** {line} ***\n", file=sys.stderr)
            self.mismatches.append(line)


def queries_of(words: list[str], count: int, letters: str) -> tuple[list[str], list[str]]:
    """`count` queries, half present words, half random strings of `letters` of a present word's length
    that are no word, shuffled (fixed seed); and the present half."""
    rng = random.Random(SEED)
    known = set(words)
    present = [rng.choice(words) for _ in range(count // 2)]
    absent: list[str] = []
    while len(absent) < count - len(present):
        word = "".join(rng.choices(letters, k=len(rng.choice(words))))
        if word not in known:
            absent.append(word)
    queries = present + absent
    rng.shuffle(queries)
    return queries, present


def cpu_rates(series: Series, items: int) -> Stats:
    return Stats.of([items / r.cpu for r in series.runs if r.cpu])


def cpu_per_item(series: Series, items: int, scale: float) -> Stats:
    return Stats.of([scale * r.cpu / items for r in series.runs if r.cpu is not None])


def table(heading: str, rows: list[tuple[str, Stats, str]], ours: list[str], anchors: list[str],
          unit: str, fmt: str, rate: bool, best: dict[str, float] | None = None) -> list[str]:
    """One workload's table: each row's min / median / max, then for ours the ratio of its median to each
    anchor's (`best`: an anchor's figure to divide by other than its row's median), a column each, headed
    by the anchor's label up to its first backquote or colon."""
    medians = {label: stats.median for label, stats, _ in rows}
    bases = {a: (best or {}).get(a, medians.get(a)) for a in anchors}
    bases = {a: v for a, v in bases.items() if v}
    ratio_head = "ours/anchor rate" if rate else "ours/anchor CPU time"
    shorts = [a.split(":")[0].split("`")[0].strip() or a for a in bases]
    shorts = shorts if len(set(shorts)) == len(shorts) else list(bases)
    lines = [heading, "", f"| implementation | {unit}: min | median | max | spread | runs | "
             + " | ".join(f"{ratio_head}: {short}" for short in shorts) + " |",
             "|---|---:|---:|---:|---:|---:|" + "---:|" * len(bases)]
    for label, stats, runs in rows:
        cells = [f"{medians[label] / base:.3g}x" if label in ours else "" for base in bases.values()]
        lines.append(f"| {label} | {stats_cells(stats, fmt)} | {runs} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=5, max_runs=5, quick_runs=1, results="queries.md")
    parser.add_argument("--anchors-python", default=DEFAULT_ANCHORS,
                        help=f"the interpreter of the anchors' environment (default {DEFAULT_ANCHORS})")
    parser.add_argument("--queries", type=int, default=None, help="queries of workloads 1-3 (default 1,000,000; "
                        "--quick 50,000)")
    parser.add_argument("--samples", type=int, default=None, help="words for prefixes() (default 20,000; --quick 2,000)")
    parser.add_argument("--language", default=None, help="a Tanglet language (de, es, fr, nl, pl, ru) instead of "
                        "TWL06: its list's build, made if missing; results in queries-LANGUAGE.md")
    args = parser.parse_args()
    if args.language and args.out is None and not args.quick:
        args.out = str(REPO / "benchmarks" / "results" / f"queries-{args.language}.md")
    from boggle_dawg.solver.lexicon import open_lexicon  # this checkout's: common put it first on sys.path

    repeats = repeats_from(args)
    count = args.queries or (50_000 if args.quick else 1_000_000)
    samples = args.samples or (2_000 if args.quick else 20_000)
    key_reps = {"ours": 2 if args.quick else 20, "anchor": 2 if args.quick else 20}
    start_repeats = Repeats(repeats.runs * 2, repeats.max_runs * 2, repeats.tolerance)

    conditions = Conditions()
    folder = Path(tempfile.mkdtemp(prefix="query-bench-"))
    if args.language:  # the words as our build of the list keeps them (the game's forms, folded)
        source = shared("lexicons", "tanglet", args.language, "words")
        build = REPO / "build" / f"words-{args.language}"
        if not (build / "manifest.msgpack").exists():
            timed_process([*COMPILER_CLI, "build", str(source), "--language", args.language, "--lenient",
                           "--out", str(build), "--quiet"])
        built = open_lexicon(build)
        words, letters = built.word_list(), built.charset.letters  # in the alphabet's order, as numbered
        source_note = (f"Words: the Tanglet list `../shared/lexicons/tanglet/{args.language}/words` as our build "
                       f"keeps it (`dawgc build --language {args.language} --lenient`: the game's forms, "
                       f"{len(words):,} words, {len(letters)} letters); ours open `build/words-{args.language}`")
    else:
        source = shared("lexicons", "twl06.txt")
        build = REPO / "build" / "twl06-26"
        if not (build / "manifest.msgpack").exists():
            timed_process([*COMPILER_CLI, "build", str(source), "--out", str(build), "--quiet"])
        words = sorted({w for w in (line.strip().lower() for line in source.read_text().splitlines())
                        if len(w) >= MIN_LENGTH and ("q" not in w or all(w[i + 1:i + 2] == "u" for i, c in
                                                                          enumerate(w) if c == "q"))})
        letters = string.ascii_lowercase
        source_note = (f"Words: `../shared/lexicons/twl06.txt` as our build keeps it (lower case, {MIN_LENGTH} "
                       f"letters or more, no Q without U: {len(words):,} words); ours open `build/twl06-26`")
    prefix = Counter(word[0] for word in words).most_common(1)[0][0]  # "s" in English
    title_note = f": the Tanglet list of {args.language!r}" if args.language else ""
    build_name = build.relative_to(REPO).as_posix()
    queries, present = queries_of(words, count, letters)
    sample = random.Random(SEED + 1).sample(present, min(samples, len(present)))
    for name, lines in (("words", words), ("queries", queries), ("present", present), ("sample", sample)):
        (folder / f"{name}.txt").write_text("\n".join(lines))
    marisa_file, dawg_file = folder / "words.marisa", folder / "words.dawg"

    answers = Answers()
    lexicons = {fmt: open_lexicon(build, fmt) for fmt in FORMATS}
    for lex in lexicons.values():
        loop_in(lex, queries[:1000])  # read the nodes' lookup steps once
        lex.key_ids(queries[:1000])  # compile or load the batch lookup
    # Untimed checks: ours against the word list and each other, the anchors against ours.
    print("checking every implementation's answers...", file=sys.stderr)
    known = set(words)
    expected = {"words": len(words), "pattern": digest("1" if w in known else "0" for w in queries),
                "keys": digest(sorted(w for w in words if w.startswith(prefix))),
                "prefixes": prefixes_digest([[w[:n] for n in range(1, len(w) + 1) if w[:n] in known]
                                             for w in sample])}
    checks: dict[str, dict] = {"the word list": expected}
    for fmt, lex in lexicons.items():
        ids = lex.key_ids(present).tolist()
        checks[f"ours {fmt}"] = {
            "words": len(lex), "pattern": digest("1" if hit else "0" for hit in lex.contains_many(queries)),
            "keys": digest(sorted(lex.keys(prefix))), "prefixes": prefixes_digest(loop_prefixes(lex.prefixes, sample))}
        answers.check(f"key_id of {fmt}, one word at a time and key_ids",
                      {"key_id": loop_ids(lex.key_id, present), "key_ids": ids})
    rank = {w: i for i, w in enumerate(words)}
    dense = lexicons["dawg"].key_ids(present).tolist() == [rank[w] for w in present]

    worker, anchor_note, versions = None, "", {}
    if not Path(args.anchors_python).exists():
        anchor_note = (f"**No anchors**: {args.anchors_python} does not exist, so only ours were measured "
                       f"(install them: `python3 -m venv /tmp/anchors && /tmp/anchors/bin/pip install marisa-trie "
                       f"DAWG2 DAWG-Python numpy`).")
        print(anchor_note, file=sys.stderr)
        present_anchors: list[str] = []
    else:
        worker = Worker(args.anchors_python, folder)
        setup = worker.ask({"op": "setup", "prefix": prefix, "marisa_file": str(marisa_file),
                            "dawg_file": str(dawg_file), "int_dawg_file": str(folder / "words.intdawg"),
                            **{k: str(folder / f"{k}.txt") for k in
                                                            ("words", "queries", "present", "sample")}})
        versions = setup["versions"]
        present_anchors = [a for a in ANCHORS if a in setup["checks"]]
        for name, reason in setup["missing"].items():
            line = f"{name} could not be measured: {reason}"
            anchor_note += line + ". "
            print(line, file=sys.stderr)
        for name, check in setup["checks"].items():
            if not check.pop("ids_restore", True):
                answers.mismatches.append(f"MISMATCH: {name}'s number of some present word is not its own")
            checks[name] = check
        anchor_note += (f"Anchors built from the same words in {args.anchors_python} (Python {versions['python']}): "
                        + ", ".join(f"{name} {setup['built'][name]:.2f} CPU-s" for name in setup["built"]) + ".")
    for key in expected:
        answers.check(f"the untimed check of {key}", {name: check[key] for name, check in checks.items()})

    def ours_run(function: Callable[[], object], label: str, results: dict,
                 answer_of: Callable[[object], object] = lambda answer: answer) -> Callable[[], Run]:
        """A timed run of `function`; `answer_of` makes what the rounds compare of its result after the
        clock stops (as the anchors' worker does)."""
        def measurement() -> Run:
            answer, cpu, wall = timed(function)
            results.setdefault(label, []).append(answer_of(answer))
            return Run(wall, cpu)
        return measurement

    def anchor_run(name: str, what: str, label: str, results: dict, **extra) -> Callable[[], Run]:
        def measurement() -> Run:
            assert worker
            reply = worker.ask({"op": "run", "name": name, "what": what, "prefix": prefix,
                                "marisa_file": str(marisa_file), "dawg_file": str(dawg_file), **extra})
            results.setdefault(label, []).append(reply["answer"])
            return Run(reply["wall"], reply["cpu"])
        return measurement

    def measure(title: str, measurements: dict[str, Callable[[], Run]], results: dict,
                compare: bool = True) -> tuple[dict[str, Series], tuple, tuple]:
        print(f"{title}: {len(measurements)} implementations, {repeats.describe()}", file=sys.stderr)
        before = load_average()
        series = measure_interleaved(measurements, repeats, lambda line: print("  " + line, file=sys.stderr))
        after = load_average()
        for label, values in results.items():
            answers.check(f"{title}, {label} from round to round", dict(enumerate(values)))
        if compare:
            answers.check(title, {label: values[0] for label, values in results.items()})
        return series, before, after

    sections: list[str] = []
    ours_labels: list[str] = []

    def rate_rows(series: dict[str, Series], items: int) -> list[tuple[str, Stats, str]]:
        return [(label, cpu_rates(s, items), runs_cell(s, repeats)) for label, s in series.items()]

    # 1. word in lex
    results: dict = {}
    m = {f"ours {fmt} `in`": ours_run(lambda lex=lex: loop_in(lex, queries), f"ours {fmt} `in`", results)
         for fmt, lex in lexicons.items()}
    m |= {f"{a} `in`": anchor_run(a, "in", f"{a} `in`", results) for a in present_anchors}
    series, before, after = measure("1. word in lex", m, results)
    in_series, in_results = series, results
    ours_labels += [label for label in m if label.startswith("ours")]
    sections += table(f"## 1. `word in lex`, {count:,} queries (half present), per CPU-second", rate_rows(series, count),
                      ours_labels, [f"{a} `in`" for a in present_anchors], "queries/CPU-s", "{:,.0f}", True)
    sections += ["", f"Each run is the plain loop `for word in queries: if word in lex: hits += 1` "
                 f"({results[next(iter(results))][0]:,} hits in every run of every implementation).", "",
                 conditions.note(before, after), ""]

    # 2. key_id
    results = {}
    m = {f"ours {fmt} `key_id`": ours_run(lambda lex=lex: len(loop_ids(lex.key_id, present)), f"ours {fmt} `key_id`",
                                          results) for fmt, lex in lexicons.items()}
    if "marisa" in present_anchors:
        m["marisa `key_id`"] = anchor_run("marisa", "key_id", "marisa `key_id`", results)
        m["marisa `trie[word]`"] = anchor_run("marisa", "trie[word]", "marisa `trie[word]`", results)
    for a in ("DAWG2", "DAWG-Python"):
        if a in present_anchors:
            m[f"{a} `d[word]`"] = anchor_run(a, "d[word]", f"{a} `d[word]`", results)
    if "DAWG-Python" in present_anchors:
        m["DAWG-Python present-word `in`"] = anchor_run("DAWG-Python", "in present", "DAWG-Python present-word `in`",
                                                        results)
    series, before, after = measure("2. key_id", m, results)
    ours_labels += [label for label in m if label.startswith("ours")]
    sections += table(f"## 2. `key_id(word)` on the {len(present):,} present words, per CPU-second",
                      rate_rows(series, len(present)), ours_labels, [k for k in m if not k.startswith("ours")],
                      "words/CPU-s", "{:,.0f}", True)
    sections += ["", ("Each run is `[key_id(word) for word in present]` (marisa also `[trie[word] for word in "
                      "present]`). Ours give the same number one word at a time as `key_ids` gives in a batch "
                      "(checked on every present word, every format); ") +
                 ("the dawg format's number of a word is its rank in the list, in the alphabet's order (checked)"
                  if dense else "the dawg format's numbers are NOT the ranks in the alphabet's order") +
                 "; marisa's `restore_key(key_id(w))` is `w` for every present word (checked). DAWG2 and "
                 "DAWG-Python have no key_id: their number of a word is `d[word]` of an `IntCompletionDAWG` of the "
                 "same words valued by each word's index (DAWG2 builds and saves it, DAWG-Python loads it; every "
                 "present word's value checked), and DAWG-Python's present-word `in` is its `in` on the same "
                 "present words, each a walk of the whole word, as a number's lookup is.", "",
                 conditions.note(before, after), ""]

    # 3. the batch lookup
    results = {}
    m = {}
    for fmt, lex in lexicons.items():
        m[f"ours {fmt} `contains_many`"] = ours_run(lambda lex=lex: int(lex.contains_many(queries).sum()),
                                                     f"ours {fmt} `contains_many`", results)
        m[f"ours {fmt} `key_ids`"] = ours_run(lambda lex=lex: int((lex.key_ids(queries) >= 0).sum()),
                                              f"ours {fmt} `key_ids`", results)
    m |= {f"{a} `sum(map(t.__contains__, q))`": anchor_run(a, "map in", f"{a} `sum(map(t.__contains__, q))`", results)
          for a in present_anchors}
    series, before, after = measure("3. the batch lookup", m, results)
    answers.check("3. the batch lookup against 1", {"batch": results[next(iter(results))][0],
                                                     "loop": in_results[next(iter(in_results))][0]})
    ours_labels += [label for label in m if label.startswith("ours")]
    rows = rate_rows(series, count)
    best: dict[str, float] = {}
    best_rows = []
    for a in present_anchors:
        loop_rate = cpu_rates(in_series[f"{a} `in`"], count)
        map_label = f"{a} `sum(map(t.__contains__, q))`"
        rows.append((f"{a} `in` loop (from 1)", loop_rate, runs_cell(in_series[f"{a} `in`"], repeats)))
        map_rate = dict((label, stats) for label, stats, _ in rows)[map_label]
        name = f"{a} best loop"
        best[name] = max(loop_rate.median, map_rate.median)
        best_rows.append(f"{a}: {'`sum(map(...))`' if map_rate.median >= loop_rate.median else 'the plain loop'} "
                         f"({best[name]:,.0f}/CPU-s)")
    sections += table(f"## 3. The batch lookup, {count:,} queries, per CPU-second", rows, ours_labels,
                      [f"{a} best loop" for a in present_anchors], "queries/CPU-s", "{:,.0f}", True, best)
    sections += ["", "Ours: `lex.contains_many(queries)` and `lex.key_ids(queries)` on the list of the "
                 f"{count:,} query strings "
                 "(folding and encoding included; compiled with numba, loaded once untimed before the rounds). "
                 "The anchors have no batch form; each one's best loop is the faster median of its plain loop "
                 "(workload 1, same run) and `sum(map(t.__contains__, queries))`: "
                 + ("; ".join(best_rows) or "none") + ". Hit counts equal workload 1's.", "",
                 conditions.note(before, after), ""]

    # 4. keys(prefix) and prefixes(word)
    results = {}
    m = {f"ours {fmt} `keys`": ours_run(lambda lex=lex: repeated_keys(lex.keys, prefix, key_reps["ours"]),
                                        f"ours {fmt} `keys`", results, lambda found: digest(sorted(found)))
         for fmt, lex in lexicons.items()}
    m |= {f"{a} `keys`": anchor_run(a, "keys", f"{a} `keys`", results, reps=key_reps["anchor"]) for a in present_anchors}
    series, before, after = measure("4a. keys", m, results)
    reps = {label: key_reps["ours" if label.startswith("ours") else "anchor"] for label in m}
    ours_labels += [label for label in m if label.startswith("ours")]
    keys_rows = [(label, cpu_per_item(s, reps[label], 1000), runs_cell(s, repeats)) for label, s in series.items()]
    sections += table(f"## 4. `list(keys(\"{prefix}\"))` and `prefixes(word)`", keys_rows, ours_labels,
                      [f"{a} `keys`" for a in present_anchors], f"`keys(\"{prefix}\")` ms/call (CPU)",
                      "{:.2f}", False)
    prefix_count = sum(w.startswith(prefix) for w in words)
    sections += ["", f"Each run lists the {prefix_count:,} words that start with \"{prefix}\" {key_reps['ours']} "
                 f"times (ours) or {key_reps['anchor']} times (anchors); the figure is CPU ms per listing (the "
                 "keys' digest, which the rounds compare, is made after the clock stops, for all alike). "
                 "DAWG2 and DAWG-Python list keys from a `CompletionDAWG` (their plain `DAWG` has no `keys`). "
                 "The sorted keys are the same everywhere.", "", conditions.note(before, after), ""]
    results = {}
    m = {f"ours {fmt} `prefixes`": ours_run(lambda lex=lex: loop_prefixes(lex.prefixes, sample), f"ours {fmt} `prefixes`",
                                            results, prefixes_digest) for fmt, lex in lexicons.items()}
    m |= {f"{a} `prefixes`": anchor_run(a, "prefixes", f"{a} `prefixes`", results) for a in present_anchors}
    series, before, after = measure("4b. prefixes", m, results)
    ours_labels += [label for label in m if label.startswith("ours")]
    prefix_rows = [(label, cpu_per_item(s, len(sample), 1e6), runs_cell(s, repeats)) for label, s in series.items()]
    sections += table("", prefix_rows, ours_labels, [f"{a} `prefixes`" for a in present_anchors],
                      "`prefixes(word)` µs/word (CPU)", "{:.2f}", False)[1:]
    sections += ["", f"Each run is `[prefixes(word) for word in sample]` on {len(sample):,} present words "
                 "(fixed seed); the figure is CPU µs per word (their digest made after the clock stops). The prefix lists are "
                 "the same everywhere.", "",
                 conditions.note(before, after), ""]

    # 5. import and open
    python = sys.executable
    subprocess.run([python, "-m", "compileall", "-q", "solver", "boggle_dawg"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    ours_opens = [f"from boggle_dawg.solver.lexicon import open_lexicon; open_lexicon({build_name!r})",
                  f"import boggle_dawg; boggle_dawg.open_lexicon({build_name!r})"]  # the module; the public API
    ours_labels_5 = [f'ours: `python -c "{code}"`' for code in ours_opens]
    commands = {"`python -c pass`": [python, "-c", "pass"],
                '`python -c "import numpy"`': [python, "-c", "import numpy"]}
    commands |= {label: [python, "-c", code] for label, code in zip(ours_labels_5, ours_opens)}
    if worker:
        anchor_python = args.anchors_python
        commands["anchors' `python -c pass`"] = [anchor_python, "-I", "-c", "pass"]
        if "marisa" in present_anchors:
            commands["marisa: `import marisa_trie; marisa_trie.Trie().mmap(F)`"] = [
                anchor_python, "-I", "-c", f"import marisa_trie; marisa_trie.Trie().mmap({str(marisa_file)!r})"]
        for a, module in (("DAWG2", "dawg"), ("DAWG-Python", "dawg_python")):
            if a in present_anchors:
                commands[f"{a}: `import {module}; {module}.CompletionDAWG().load(F)`"] = [
                    anchor_python, "-I", "-c", f"import {module}; {module}.CompletionDAWG().load({str(dawg_file)!r})"]
    print(f"5. import and open: {len(commands)} commands, {start_repeats.describe()}", file=sys.stderr)
    before = load_average()
    series = measure_commands(commands, start_repeats)
    after = load_average()
    rows = [(label, Stats.of([1000 * r.cpu for r in s.runs if r.cpu is not None]), runs_cell(s, start_repeats))
            for label, s in series.items()]
    anchor_starts = [label for label in commands if label.split(":")[0] in ANCHORS or label.startswith("`python -c \"")]
    sections += table("## 5. Import and open, fresh interpreter, CPU ms of the child process", rows, ours_labels_5,
                      anchor_starts, "CPU ms", "{:.1f}", False)
    sections += ["", ("Each command in a fresh interpreter from the repository root, `resource` usage of the "
                      "waited-for child (user + system), OS file cache warm (one untimed run each first), our "
                      "bytecode compiled first (`python -m compileall solver boggle_dawg`) as an install writes it. "
                      "Ours open the default format (the trie) and validate it as `open_lexicon` always does. "
                      f"F is the anchor's own file of the same words ({marisa_file.stat().st_size if worker else 0:,} "
                      f"bytes for marisa, {dawg_file.stat().st_size if worker else 0:,} for the DAWG). The anchors "
                      "run in their own environment's interpreter (the same CPython build, "
                      f"{versions.get('python', '-')}), with -I; the project's interpreter floor is higher by the "
                      "start-up hooks of its environment (the editable install's import finder, setuptools' "
                      "distutils shim), which ours pay too."), "", conditions.note(before, after), ""]
    results = {}
    m = {f"ours {fmt} `open_lexicon`": ours_run(lambda fmt=fmt: open_lexicon(build, fmt) and None,
                                                f"ours {fmt} `open_lexicon`", results) for fmt in FORMATS}
    m |= {f"{a} {'mmap' if a == 'marisa' else 'load'}": anchor_run(a, "open", f"{a} open", results)
          for a in present_anchors}
    series, before, after = measure("5b. open in process", m, results, compare=False)
    ours_labels += [label for label in m if label.startswith("ours")]
    rows = [(label, Stats.of([1000 * r.cpu for r in s.runs if r.cpu is not None]), runs_cell(s, repeats))
            for label, s in series.items()]
    sections += table("", rows, ours_labels, [label for label in m if not label.startswith("ours")],
                      "open alone, in process, CPU ms", "{:.2f}", False)[1:]
    sections += ["", "The open alone, in a process that imported everything already: `open_lexicon(build, fmt)` "
                 "(validation included), `marisa_trie.Trie().mmap(F)`, `CompletionDAWG().load(F)`.", "",
                 conditions.note(before, after), ""]
    if worker:
        worker.close()
    conditions.finish()

    anchors_line = ("Anchors: " + ", ".join(f"{p} {v}" for p, v in versions.items() if p != "python" and v)
                    + f" (pip, in `{args.anchors_python}`, not the project's environment)." if versions else "")
    status = (["**ANSWERS DIFFER**:", "", *(f"- {line}" for line in answers.mismatches), ""] if answers.mismatches
              else ["Every implementation gave the same answers: hit counts in every round of every workload, "
                    f"and untimed, the hit pattern of every query, the sorted keys of \"{prefix}\", every sampled word's "
                    f"prefixes and the word count ({len(words):,})."])
    text = "\n".join([
        f"# Word queries beside marisa-trie, DAWG2 and DAWG-Python (issue 32){title_note}", "",
        conditions.header(), "", anchors_line, "", anchor_note, "",
        (f"{source_note} (`dawgc build`), the anchors build "
         f"their own structures from the same list. Queries: {count:,}, half present words drawn with replacement, "
         f"half random strings of its letters of a drawn word's length that are no word, shuffled (seed {SEED}). "
         f"{repeats.describe().capitalize()} (workload 5's fresh interpreters: {start_repeats.describe()}), "
         "every implementation once per round in rotating order. Only CPU time counts: `time.process_time()` "
         "around the timed call in the process that runs it (ours here, the anchors in their worker), the "
         "garbage collector run before it and held off during it on both sides (as timeit does), so the "
         "load of this shared machine moves the figures less than wall time would. Ratio columns divide our "
         "median by the anchor's: for rates, below 1x means ours is slower; for CPU times, above 1x means ours "
         "is slower."), "",
        *status, "",
        *sections,
    ])
    publish(args, text)
    if answers.mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
