"""Same-run A/B of this checkout against an earlier commit: the solver's batch scoring and the proof's classes.

Run from the repository root:
    python benchmarks/ab_bench.py --baseline 5e3b392            # writes benchmarks/results/ab.md
    python benchmarks/ab_bench.py --baseline 5e3b392 --quick    # 2 rounds, prints the table
    python benchmarks/ab_bench.py --baseline 5e3b392 --rounds 20 --workloads dice4x4   # writes ab-dice4x4.md

The baseline commit is checked out with `git worktree` into a temporary folder, and each
side is imported from a folder of its own (the package's folders linked under
`boggle_dawg/`, as the install maps them), so both run in this Python with the same
packages. Each round runs every workload once on each side, in alternating order, each in a
fresh process that loads its kernels and warms up first; the figure is the CPU time of the
timed part alone (`time.process_time` around it), so start-up and compilation are left out.
Workloads: score_many on ../shared/bench/dice4x4-10k.txt and dice5x5-10k.txt with a full
TWL06 trie (one thread, five passes), and prove_class on five classes of the 3x3 ENABLE2K proof.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, commit, format_load, load_average, machine, shared, write_results

WORKLOADS = ("dice4x4", "dice5x5", "prove3x3")

CHILD = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from boggle_dawg.solver.lexicon import open_lexicon
workload, lexicons = sys.argv[2], sys.argv[3]
if workload.startswith("dice"):
    lex = open_lexicon(f"{lexicons}/twl06", "trie")
    boards = open(sys.argv[4]).read().split()
    with lex.scorer(1) as scorer:
        lex.score_many(boards[:200], scorer=scorer)
        start = time.process_time()
        total = sum(int(lex.score_many(boards, scorer=scorer).sum()) for _ in range(5))
        cpu = time.process_time() - start
else:
    from boggle_dawg.solver.proof import make_plan, prove_class
    lex = open_lexicon(f"{lexicons}/enable2k", "trie")
    plan = make_plan(lex, (3, 3))
    ids = plan.canonical_ids()[::20][:5]
    prove_class(lex, plan, ids[0], 545)
    start = time.process_time()
    total = sum(prove_class(lex, plan, i, 545).bound for i in ids)
    cpu = time.process_time() - start
print(json.dumps({"cpu": cpu, "check": total}))
'''


def farm(tree: Path, into: Path) -> Path:
    """A folder from which `import boggle_dawg` imports `tree` (its package folders linked as the install maps them)."""
    package = into / "boggle_dawg"
    package.mkdir(parents=True)
    for item in (tree / "boggle_dawg").iterdir():
        (package / item.name).symlink_to(item)
    for name in ("solver", "compiler", "lexicons"):
        (package / name).symlink_to(tree / name)
    return into


def run_child(side: Path, workload: str, lexicons: Path) -> dict:
    boards = {"dice4x4": shared("bench", "dice4x4-10k.txt"), "dice5x5": shared("bench", "dice5x5-10k.txt")}
    args = [sys.executable, "-c", CHILD, str(side), workload, str(lexicons), str(boards.get(workload, ""))]
    done = subprocess.run(args, capture_output=True, text=True, check=True, cwd=side)
    return json.loads(done.stdout)


def build_lexicons(into: Path) -> None:
    for name in ("twl06", "enable2k"):
        subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", str(shared("lexicons", f"{name}.txt")),
                        "--out", str(into / name)], check=True, capture_output=True, cwd=REPO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="The commit to compare against.")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="2 rounds, print only.")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help=f"Comma-separated, of {', '.join(WORKLOADS)}: more rounds where one is in doubt.")
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    if unknown := sorted(set(workloads) - set(WORKLOADS)):
        parser.error(f"--workloads: no workload {', '.join(unknown)} (there are {', '.join(WORKLOADS)})")
    rounds = 2 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        base_tree = scratch / "baseline-tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(base_tree), args.baseline], check=True,
                       capture_output=True, cwd=REPO)
        try:
            sides = {"baseline": farm(base_tree, scratch / "baseline"), "this": farm(REPO, scratch / "this")}
            build_lexicons(scratch / "lexicons")
            before = load_average()
            cpu: dict = {(side, w): [] for side in sides for w in workloads}
            for r in range(rounds):
                order = list(sides) if r % 2 == 0 else list(reversed(sides))
                for workload in workloads:
                    checks = set()
                    for side in order:
                        result = run_child(sides[side], workload, scratch / "lexicons")
                        cpu[side, workload].append(result["cpu"])
                        checks.add(result["check"])
                    if len(checks) != 1:
                        sys.exit(f"{workload}: the two sides disagree ({checks})")
            after = load_average()
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)], cwd=REPO, capture_output=True)
    lines = ["| workload | baseline CPU-s (min / median) | this CPU-s (min / median) | this / baseline (median) |",
             "|---|---:|---:|---:|"]
    for workload in workloads:
        a, b = cpu["baseline", workload], cpu["this", workload]
        lines.append(f"| {workload} | {min(a):.3f} / {statistics.median(a):.3f} | {min(b):.3f} / "
                     f"{statistics.median(b):.3f} | {statistics.median(b) / statistics.median(a):.3f} |")
    table = "\n".join(lines)
    chosen = "" if workloads == list(WORKLOADS) else f" --workloads {args.workloads}"
    text = (f"# A/B: this checkout against {args.baseline}\n\n"
            f"`python benchmarks/ab_bench.py --baseline {args.baseline} --rounds {rounds}{chosen}` at {commit()}, "
            f"{machine()}; load {format_load(before)} before, "
            f"{format_load(after)} after. {rounds} rounds, sides alternating first; CPU time of the timed part "
            f"of a fresh process each (kernels loaded, one warm-up first); both sides' answers equal in every "
            f"round.\n\n{table}\n")
    print(text)
    if not args.quick:
        write_results("ab.md" if not chosen else f"ab-{'-'.join(workloads)}.md", text)


if __name__ == "__main__":
    main()
