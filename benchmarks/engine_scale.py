"""The engine at a proof's scale (issue 33): a proof of 200,000 small tasks on a scheduler and workers
started as separate processes from the command line, as on a cluster, with a worker killed mid-run.

Run from the repository root:
    python benchmarks/engine_scale.py            # writes benchmarks/results/engine-scale.md
    python benchmarks/engine_scale.py --quick    # 1,701 tasks, prints the results

The proof: the 2x4 optimum of ENABLE2K (289 points, found by `dawg-solve search`), proved over
203,175 canonical classes (`--classes` below: five buckets on the corners, six elsewhere), so that
each task is small (about a millisecond of proving) and the engine's own cost shows. Started here:
`dask scheduler` (its own process), `dask worker --nworkers 2 --nthreads 1` (its own process, two
worker processes under it) and `dawg-solve prove ... --scheduler ADDRESS --checkpoint F`. Once 40%
of the tasks are recorded one worker process is killed (SIGKILL; its nanny starts another). Then:
- the answer is checked against a coarse proof of the same board size run on a local cluster
  (1,701 classes), and every canonical class is recorded exactly once;
- `--verify-sample` proves 500 recorded classes again in the driver and checks their records (a
  record that disagrees fails the run);
- the engine's cost per task: the CPU seconds of every process of the run (driver, scheduler,
  workers: this script's children, reaped) less the proving CPU the records give, per task;
- the checkpoint's bytes and a `--resume` of the finished checkpoint (nothing left to run: the
  time to read and check every record and give the answer), projected linearly to the 1,068,363
  classes of the 4x4 proof.
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from common import REPO, Conditions, load_average, shared, write_results

LEXICON = REPO / "build" / "enable2k-26"
SIZE, MIN_SCORE = "2x4", 289
FINE = "aeiou,bcdfg,hjklm,npqrs,tvwxyz/aeiou,bcd,fgh,jklm,npqrs,tvwxyz"  # 203,175 canonical classes
COARSE = "aeiou,bcdfghjklm,npqrstvwxyz"  # 1,701
CLASSES_4X4 = 1_068_363  # canonical classes of the 4x4 proof's default split
KILL_AT = 0.4


def bin_command(name: str, *args: str) -> list[str]:
    return [str(Path(sys.executable).with_name(name)), *args]


def prove_command(classes: str, *args: str) -> list[str]:
    return bin_command("dawg-solve", "prove", str(LEXICON), "--size", SIZE, "--min-score", str(MIN_SCORE),
                       "--classes", classes, "--json", "-q", *args)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def records(checkpoint: Path) -> list[dict]:
    with checkpoint.open() as lines:
        next(lines)  # the header
        return [json.loads(line) for line in lines]


def start_cluster(work: Path) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    """A `dask scheduler` and a `dask worker` of two processes, each its own process, and the address."""
    info = work / "scheduler.json"
    quiet = dict(cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen(bin_command("dask", "scheduler", "--scheduler-file", str(info), "--host",
                                             "127.0.0.1", "--port", "0", "--no-dashboard"), **quiet)
    while not info.exists() or not info.read_text().strip():
        if scheduler.poll() is not None:
            sys.exit("the dask scheduler did not start")
        time.sleep(0.1)
    workers = subprocess.Popen(bin_command("dask", "worker", "--scheduler-file", str(info), "--nworkers", "2",
                                           "--nthreads", "1", "--no-dashboard", "--local-directory", str(work)),
                               **quiet)
    return scheduler, workers, json.loads(info.read_text())["address"]


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)  # dask's orderly shutdown: nannies stop their workers, all are reaped
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def worker_processes(workers: subprocess.Popen) -> list[psutil.Process]:
    """The worker processes under `dask worker` (the nannies' children), oldest first."""
    found = [p for p in psutil.Process(workers.pid).children(recursive=True)
             if "multiprocessing" in " ".join(p.cmdline()) and "resource_tracker" not in " ".join(p.cmdline())]
    return sorted(found, key=lambda p: p.create_time())


def line_count(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def run(classes: str, work: Path, verify: int) -> dict:
    """The proof on a separate scheduler and workers, one worker killed at KILL_AT of the tasks."""
    checkpoint = work / "engine.ckpt"
    cpu_before = children_cpu()
    start = time.perf_counter()
    scheduler, workers, address = start_cluster(work)
    driver = subprocess.Popen(prove_command(classes, "--scheduler", address, "--checkpoint", str(checkpoint)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed_at, kill_after = None, KILL_AT * expected_classes(classes)
    while driver.poll() is None:
        time.sleep(1)
        if killed_at is None:
            done = line_count(checkpoint) - 1
            if done >= kill_after:
                victims = worker_processes(workers)
                if victims:
                    victims[0].send_signal(signal.SIGKILL)
                    killed_at = done
    out, err = driver.communicate()
    if driver.returncode != 0:
        sys.exit(f"the proof failed: {err.strip()}")
    wall = time.perf_counter() - start
    stop(workers)
    stop(scheduler)
    answer = json.loads(out)
    cpu = children_cpu() - cpu_before
    rows = records(checkpoint)
    resume_start, resume_cpu = time.perf_counter(), children_cpu()
    resumed = subprocess.run(prove_command(classes, "--checkpoint", str(checkpoint), "--resume", "--workers", "1"),
                             capture_output=True, text=True, check=True)
    resume = (time.perf_counter() - resume_start, children_cpu() - resume_cpu)
    verified = subprocess.run(prove_command(classes, "--checkpoint", str(checkpoint), "--resume", "--workers", "1",
                                            "--verify-sample", str(verify)),
                              capture_output=True, text=True, check=True)
    return {"answer": answer, "wall": wall, "cpu": cpu, "rows": rows, "killed_at": killed_at,
            "bytes": checkpoint.stat().st_size, "resume": resume, "resumed": json.loads(resumed.stdout),
            "verified": json.loads(verified.stdout)}


def expected_classes(classes: str) -> int:
    from boggle_dawg.solver.lexicon import open_lexicon
    from boggle_dawg.solver.proof import make_plan

    if classes not in _counts:
        plan = make_plan(open_lexicon(LEXICON, "trie"), tuple(int(n) for n in SIZE.split("x")), classes)
        _counts[classes] = len(plan.canonical_ids())
    return _counts[classes]


_counts: dict[str, int] = {}


def reference(work: Path) -> list:
    """The boards of the coarse proof, on a local cluster (the answer to check the large run against)."""
    done = subprocess.run(prove_command(COARSE, "--workers", "2"), capture_output=True, text=True, check=True,
                          cwd=work)
    return json.loads(done.stdout)["boards"]


def report(result: dict, boards: list, classes: str, conditions: Conditions, load_before, load_after) -> str:
    answer, rows = result["answer"], result["rows"]
    tasks = len(rows)
    ids = [row["task"] for row in rows]
    proving = sum(row["record"]["cpu_seconds"] for row in rows)
    overhead = (result["cpu"] - proving) / tasks
    resume_wall, resume_cpu = result["resume"]
    scale = CLASSES_4X4 / tasks
    checks = [
        ("same boards as the coarse proof", answer["boards"] == boards),
        ("every canonical class recorded once", len(set(ids)) == tasks == answer["classes"]
         == expected_classes(classes)),
        ("resume gives the same answer", result["resumed"]["boards"] == boards),
        (f"`--verify-sample` proved {result['verified']['verified']} recorded classes again and found their "
         "records right", result["verified"]["verified"] > 0 and result["verified"]["boards"] == boards),
    ]
    if not all(ok for _, ok in checks):
        sys.exit("checks failed: " + ", ".join(name for name, ok in checks if not ok))
    lines = [
        "| measure | value |", "|---|---:|",
        f"| tasks (canonical classes) | {tasks:,} |",
        f"| boards at {MIN_SCORE} or more | {len(answer['boards'])} (`{answer['boards'][0]['board']}` ...) |",
        f"| worker killed (SIGKILL) after | {result['killed_at']:,} tasks recorded |",
        f"| wall, scheduler start to answer | {result['wall']:,.1f} s ({result['wall'] / tasks * 1000:.2f} ms a task) |",
        f"| CPU, every process (driver, scheduler, workers) | {result['cpu']:,.1f} s |",
        f"| CPU proving, as the records give it | {proving:,.1f} s ({proving / tasks * 1000:.2f} ms a task) |",
        f"| engine's CPU a task (the difference) | {overhead * 1000:.2f} ms |",
        f"| checkpoint | {result['bytes'] / 1e6:,.1f} MB ({result['bytes'] / tasks:.0f} bytes a task) |",
        f"| `--resume` of the finished checkpoint | "
        f"{resume_wall:.1f} s wall, {resume_cpu:.1f} CPU-s |",
        f"| projected to {CLASSES_4X4:,} tasks: engine CPU | {overhead * CLASSES_4X4 / 3600:,.2f} CPU-hours |",
        f"| projected: checkpoint | {result['bytes'] * scale / 1e6:,.0f} MB |",
        f"| projected: resume | {resume_wall * scale:,.0f} s wall (linear in the records) |",
    ]
    return (f"# The engine at a proof's scale\n\n{conditions.header()}\n\n"
            f"`dask scheduler` and `dask worker --nworkers 2 --nthreads 1` as separate processes; "
            f"`dawg-solve prove {LEXICON.relative_to(REPO)} --size {SIZE} --min-score {MIN_SCORE} "
            f"--classes {classes} --scheduler ADDRESS --checkpoint F`. Checked: "
            + "; ".join(name for name, _ in checks) + ".\n\n" + "\n".join(lines) + "\n\n"
            + conditions.note(load_before, load_after) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="The coarse split (1,701 tasks); print only.")
    args = parser.parse_args()
    if not LEXICON.is_dir():
        subprocess.run(bin_command("dawgc", "build", str(shared("lexicons", "enable2k.txt")), "--out", str(LEXICON)),
                       check=True, capture_output=True)
    classes = COARSE if args.quick else FINE
    conditions = Conditions()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        boards = reference(work)
        before = load_average()
        result = run(classes, work, verify=50 if args.quick else 500)
        after = load_average()
    conditions.finish()
    text = report(result, boards, classes, conditions, before, after)
    print(text)
    if not args.quick:
        write_results("engine-scale.md", text)


if __name__ == "__main__":
    main()
