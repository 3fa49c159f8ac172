"""The proof's driver (`dawg-solve prove`, solver.cluster.prove_job): every board a proof reports is
checked and scored again before it is printed, `--verify-sample` proves recorded classes again, Ctrl-C
says what was kept, and a 4x4 proof starts at once."""

from __future__ import annotations

import copy
import itertools
import json
import random
import sys
import time

import numpy as np
import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.cluster import Engine, Outcome
from boggle_dawg.solver.cluster.checkpoint import header_line, record_line
from boggle_dawg.solver.cluster.prove_job import ProvePlan, run_prove_task
from boggle_dawg.solver.errors import DawgError, ParameterError
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import canonical_codes, symmetries

from support import assert_clean_error, run_cli, sigint_default

SMALL = "aeqrstu"
SHAPE = Shape(2, 3)


def _words(seed: int = 41, count: int = 250) -> list[str]:
    rng = random.Random(seed)
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(SMALL) for _ in range(rng.randint(3, 7))).replace("q", "qu"))
    return sorted(words)


@pytest.fixture(scope="module")
def finished_proof(tmp_path_factory):
    """The work behind `proof`, done once for the module (seconds: every board of the shape scored,
    every class proved): the lexicon's path, the records by class and the boards scoring at least 1."""
    folder = tmp_path_factory.mktemp("proof")
    (folder / "words.txt").write_text("\n".join(_words()) + "\n")
    path = build_lexicon(folder / "words.txt", parse_charset(SMALL.upper() + "Z"), folder / "build").out_dir
    lex = open_lexicon(path)
    codes = np.array(list(itertools.product(range(len(lex.charset)), repeat=SHAPE.cells)), np.int64)
    scores = lex.score_codes(codes, SHAPE)
    canon = canonical_codes(codes[scores > 0], SHAPE)
    found = {"".join(lex.charset.letters[c] for c in row): int(s) for row, s in zip(canon.tolist(), scores[scores > 0])}
    everything = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))
    plan = ProvePlan(lex, SHAPE, everything[9][1])
    records = {task: run_prove_task(spec, lex) for task, spec in plan.job().tasks}
    return path, records, everything


@pytest.fixture
def proof(finished_proof):
    """A finished 2x3 proof (over a charset with Z, so that 'zzzzzz' is a board of the shape): the
    lexicon's path, its ProvePlan (min score: the tenth best board's), its records by class and every
    board scoring at least 1 (canonical, best first). The plan and the records are each test's own."""
    path, records, everything = finished_proof
    return path, ProvePlan(open_lexicon(path), SHAPE, everything[9][1]), copy.deepcopy(records), everything


def _with_board(records: dict, class_id: int, board, score) -> dict:
    forged = {task: dict(record) for task, record in records.items()}
    forged[class_id]["boards"] = [*forged[class_id]["boards"], [board, score]]
    return forged


def _class_with_boards(plan: ProvePlan, records: dict) -> int:
    return next(class_id for class_id in plan.ids() if records[class_id]["boards"])


def _class_of(plan: ProvePlan, board: str) -> int:
    """The canonical class holding `board`: the smallest class id of the board's images."""
    return min(plan.plan.class_of("".join(board[i] for i in perm)) for perm in symmetries(SHAPE))


def _turned(board: str) -> str:
    """The board rotated half a turn (2x3: the letters reversed), not canonical unless symmetric."""
    return board[::-1]


def _forgeries(plan: ProvePlan, records: dict, everything) -> list[tuple[dict, int, str, str]]:
    """(records, the class refused, the board named, a fragment of the reason)."""
    real_class = _class_with_boards(plan, records)
    real_board, real_score = records[real_class]["boards"][0]
    zzz_class = _class_of(plan, "zzzzzz")
    other = next(c for c in plan.ids() if c != zzz_class)
    low_board, low_score = next((b, s) for b, s in everything if s < plan.min_score)
    low_class = _class_of(plan, low_board)
    forty = "e" * 40
    assert _turned(real_board) != real_board
    return [
        (_with_board(records, zzz_class, "zzzzzz", 9999), zzz_class, "zzzzzz", "scores 0, not the 9,999 recorded"),
        (_with_board(records, other, "zzzzzz", 9999), other, "zzzzzz", f"belongs to class {zzz_class}"),
        (_with_board(records, real_class, forty, 1_000_000), real_class, forty[:20], "not a 2x3 board"),
        (_with_board(records, real_class, "eeZeee", 5), real_class, "eeZeee", "charset"),
        (_with_board(records, real_class, _turned(real_board), real_score), real_class, _turned(real_board),
         "canonical"),
        (_with_board(records, real_class, real_board, real_score + 1), real_class, real_board,
         f"scores {real_score:,}, not the {real_score + 1:,} recorded"),
        (_with_board(records, low_class, low_board, low_score), low_class, low_board, "below the min score"),
    ]


def test_every_reported_board_is_checked_and_scored_again(proof):
    _, plan, records, everything = proof
    assert plan.merge(Outcome(records, len(records)), 0.0).boards  # the honest records pass
    for forged, class_id, board, reason in _forgeries(plan, records, everything):
        with pytest.raises(DawgError) as err:
            plan.merge(Outcome(forged, len(forged)), 0.0)
        message = str(err.value)
        assert f"class {class_id}" in message and board in message and reason in message, message
        assert "\n" not in message


def _checkpoint(path, plan: ProvePlan, records: dict) -> None:
    """A checkpoint of the proof holding `records`, written line by line as a forger would."""
    with open(path, "wb") as fh:
        fh.write(header_line(json.loads(json.dumps(plan.header()))))
        for task, record in records.items():
            fh.write(record_line(task, record))


def _cli(lexicon, plan: ProvePlan, *args: str):
    return run_cli("boggle_dawg.dawg_solve", "prove", str(lexicon), "--size", str(SHAPE), "--min-score",
                   str(plan.min_score), "--workers", "1", *args)


def test_a_forged_checkpoint_record_is_refused_in_one_line(proof, tmp_path):
    lexicon, plan, records, _ = proof
    zzz_class = _class_of(plan, "zzzzzz")
    path = tmp_path / "forged.ckpt"
    _checkpoint(path, plan, _with_board(records, zzz_class, "zzzzzz", 9999))
    proc = _cli(lexicon, plan, "--checkpoint", str(path), "--resume", "-q")
    assert "zzzzzz" not in proc.stdout
    assert_clean_error(proc, f"class {zzz_class}", "'zzzzzz'", "scores 0, not the 9,999 recorded")


def test_verify_sample_proves_recorded_classes_again(proof):
    _, plan, records, _ = proof
    assert sorted(plan.verify_sample(records, len(records))) == sorted(records)
    assert len(plan.verify_sample(records, 3)) == 3
    assert plan.verify_sample(records, 0) == []
    dropped_class = _class_with_boards(plan, records)
    dropped = {task: dict(record) for task, record in records.items()}
    dropped[dropped_class]["boards"] = []  # a class's boards dropped: every check of the answer passes
    plan.merge(Outcome(dropped, len(dropped)), 0.0)
    with pytest.raises(DawgError, match=f"class {dropped_class}: its record does not match"):
        plan.verify_sample(dropped, len(records))
    with pytest.raises(ParameterError, match="count"):
        plan.verify_sample(records, -1)


def test_verify_sample_on_the_command_line(proof, tmp_path):
    lexicon, plan, records, _ = proof
    honest, dropped = tmp_path / "honest.ckpt", tmp_path / "dropped.ckpt"
    _checkpoint(honest, plan, records)
    proc = _cli(lexicon, plan, "--checkpoint", str(honest), "--resume", "--verify-sample", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verified"] == 3 and data["boards"]
    assert "3 classes verified" in proc.stderr
    dropped_class = _class_with_boards(plan, records)
    _checkpoint(dropped, plan, {**records, dropped_class: {**records[dropped_class], "boards": []}})
    proc = _cli(lexicon, plan, "--checkpoint", str(dropped), "--resume", "--verify-sample", str(len(records)), "-q")
    assert_clean_error(proc, f"class {dropped_class}: its record does not match")
    assert_clean_error(_cli(lexicon, plan, "--verify-sample", "-2"), "--verify-sample")


@pytest.mark.parametrize("with_checkpoint", [True, False])
def test_ctrl_c_says_what_was_recorded(proof, tmp_path, monkeypatch, capsys, with_checkpoint):
    """Ctrl-C during the proof: one line saying how many classes the checkpoint holds and that
    --resume continues (or that nothing was kept without one), status 130."""
    from boggle_dawg import solve_cli

    lexicon, plan, records, _ = proof
    path = tmp_path / "run.ckpt"

    def interrupted(engine, job, checkpoint, on_record, on_status):
        """Two classes recorded, then Ctrl-C (an engine that never starts a cluster)."""
        done = {class_id: records[class_id] for class_id, _ in itertools.islice(job.tasks, 2)}
        if checkpoint is not None:
            for class_id, record in done.items():
                checkpoint.append(class_id, record)
        return Outcome(done, job.count, interrupted=True)

    monkeypatch.setattr(Engine, "start", lambda engine: None)
    monkeypatch.setattr(Engine, "run", interrupted)
    args = ["dawg-solve", "prove", str(lexicon), "--size", str(SHAPE), "--min-score", str(plan.min_score), "-q"]
    monkeypatch.setattr(sys, "argv", args + (["--checkpoint", str(path)] if with_checkpoint else []))
    with pytest.raises(SystemExit) as status:
        solve_cli.main()
    assert status.value.code == 130
    err = capsys.readouterr().err
    if with_checkpoint:
        assert err == (f"dawg-solve: error: interrupted: 2 of {plan.total} classes recorded in {path}; "
                       f"run the same command with --resume to continue\n")
    else:
        assert err.startswith("dawg-solve: error: interrupted: nothing was recorded (no --checkpoint)")
        assert err.count("\n") == 1


@pytest.mark.parametrize("stop, status, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_4x4_proof_proves_its_first_class_within_seconds_in_little_memory(make_lexicon, tmp_path, stop, status,
                                                                           word):
    """The default 4x4 split (8.5 million classes, 1 million canonical) is never listed up front:
    the first class is recorded within seconds of the start, with the driver's memory small; Ctrl-C
    (status 130) or SIGTERM (`kill`, a batch system's time limit: 143) then stops the run, its local
    cluster shut down (no leaked semaphores), and one line says what the checkpoint kept."""
    import signal
    import subprocess

    import psutil

    lexicon, path = make_lexicon(_words()), tmp_path / "run.ckpt"
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "prove", str(lexicon), "--size", "4x4",
                             "--min-score", "100000", "--workers", "1", "--checkpoint", str(path), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    driver, peak = psutil.Process(proc.pid), 0
    try:
        while not (path.exists() and path.read_text().count("\n") >= 2):
            assert proc.poll() is None, proc.stderr.read()
            assert time.perf_counter() - started < 30, "no class recorded within 30 s"
            peak = max(peak, driver.memory_info().rss)
            time.sleep(0.05)
        first = time.perf_counter() - started
        proc.send_signal(getattr(signal, stop))
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == status, err
    assert err.startswith(f"dawg-solve: error: {word}: ") and err.count("\n") == 1, err
    assert "of 1,068,363 classes recorded in" in err and "--resume" in err
    assert first < 30 and peak < 500 << 20, (first, peak)


def test_projection_arithmetic_on_known_samples():
    """The projection (mean x classes), its tail and shares, and the BCa interval on samples whose
    answers are known: equal times give a point, one heavy class an interval reaching above the
    projection by more than below, the same records and seed the same interval."""
    from boggle_dawg.solver.proof.sample import TAIL, project

    even = project({c: 2.0 for c in range(10)}, 1000, seed=1)
    assert even.total == even.low == even.high == 2000.0 and even.mean == even.median == 2.0
    assert even.top_count == 1 and even.top_share == pytest.approx(0.1) and even.tail_share == pytest.approx(0.5)
    heavy = {c: 1.0 for c in range(99)} | {99: 101.0}  # 200 CPU-s in all: one class half of it
    p = project(heavy, 10_000, seed=3)
    assert p.total == pytest.approx(20_000) and p.mean == pytest.approx(2.0) and p.median == 1.0
    assert p.tail[0] == (99, 101.0) and [c for c, _ in p.tail] == [99, 0, 1, 2, 3][:TAIL]
    assert p.top_count == 1 and p.top_share == pytest.approx(101 / 200)
    assert p.tail_share == pytest.approx(105 / 200)
    assert p.low < p.total < p.high and p.high - p.total > p.total - p.low
    assert p.low >= 10_000  # no resample's mean is below the 99 light classes' 1.0
    assert project(heavy, 10_000, seed=3) == p and project(heavy, 10_000, seed=4) != p
    one = project({5: 3.0}, 7)
    assert one.total == 21.0 and one.low is None and one.to_dict()["interval"] is None
    with pytest.raises(ParameterError, match="sample"):
        project({}, 10)


def _sample_cli(lexicon, size: str, min_score: int, *args: str):
    return run_cli("boggle_dawg.dawg_solve", "prove", str(lexicon), "--size", size, "--min-score", str(min_score),
                   "--classes", "ae,qrstu", "--workers", "1", *args)


@pytest.mark.slow
def test_sample_projects_the_whole_proof(make_lexicon):
    """`prove --sample N --seed S` proves the first N classes of the seed's order and projects from
    their records; the table is short, --json has the projection and every record."""
    from boggle_dawg.solver.proof import make_plan

    path = make_lexicon(_words(43, 300), SMALL.upper())
    lex = open_lexicon(path)
    plan = make_plan(lex, (3, 3), "ae,qrstu")
    proc = _sample_cli(path, "3x3", 40, "--sample", "4", "--seed", "5", "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    first = list(itertools.islice(plan.canonical_order(5), 4))
    assert [r["class_id"] for r in data["records"]] == sorted(first) and data["classes"] == 4
    cpu = [r["cpu_seconds"] for r in data["records"]]
    projection = data["projection"]
    assert projection["classes"] == plan.canonical_count() and projection["sampled"] == 4
    assert projection["projected_cpu_seconds"] == round(sum(cpu) / 4 * plan.canonical_count())
    assert projection["interval"]["low"] <= projection["projected_cpu_seconds"] <= projection["interval"]["high"]
    assert projection["tail"][0]["cpu_seconds"] == round(max(cpu), 3)
    assert all(r["peak_bytes"] > 0 and r["max_rss"] > 0 for r in data["records"])
    assert data["memory"]["peak_bytes"] == max(r["peak_bytes"] for r in data["records"])
    proc = _sample_cli(path, "3x3", 40, "--sample", "4", "--seed", "5", "-q")
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"Sample of 4 of {plan.canonical_count()} canonical 3x3 classes (seed 5)")
    assert "Projected CPU time of the whole proof" in lines[1] and "BCa bootstrap" in lines[1]
    assert len(lines) == 4 + 4 + 1 and lines[-1].endswith("A sample proves nothing about the classes it leaves out.")
    assert_clean_error(_sample_cli(path, "3x3", 40, "--sample", "0"), "--sample: must be 1 or more")
    for seed in ("-1", str(1 << 64)):  # as roll's, search's and play's; and what a checkpoint's header holds
        assert_clean_error(_sample_cli(path, "3x3", 40, "--sample", "2", "--seed", seed),
                           f"--seed: must be 0 or more and below 2^64, got {seed}")


@pytest.mark.slow
def test_a_sample_resumes_from_its_checkpoint_and_a_larger_one_refines_it(make_lexicon, tmp_path):
    """A sample's checkpoint keeps its classes' records; a larger --sample with --resume proves only
    the classes past them (the first N of the order are the first of any larger sample)."""
    path, ckpt = make_lexicon(_words(44, 300), SMALL.upper()), tmp_path / "sample.ckpt"
    small = json.loads(_sample_cli(path, "3x3", 40, "--sample", "3", "--seed", "2", "--json", "-q",
                                   "--checkpoint", str(ckpt)).stdout)
    proc = _sample_cli(path, "3x3", 40, "--sample", "6", "--seed", "2", "--json", "--checkpoint", str(ckpt),
                       "--resume")
    assert proc.returncode == 0, proc.stderr
    assert "3 classes resumed from" in proc.stderr
    large = json.loads(proc.stdout)
    kept = {r["class_id"]: r for r in large["records"]}
    assert len(kept) == 6 and all(kept[r["class_id"]] == r for r in small["records"])  # not proved again
    again = json.loads(_sample_cli(path, "3x3", 40, "--sample", "3", "--seed", "2", "--json", "-q",
                                   "--checkpoint", str(ckpt), "--resume").stdout)
    assert again["records"] == small["records"]  # the checkpoint's other classes are not this sample's
    assert_clean_error(_sample_cli(path, "3x3", 40, "--sample", "6", "--seed", "3", "--checkpoint", str(ckpt),
                                   "--resume"), "seed")
