"""Corrupted and hand-built lexicons: each gives a clean error or a consistent lexicon, never a crash.

The quick share of the fuzz sweep (benchmarks/fuzz_sweep.py runs the long one).
Cases are made from specs (tests/fuzz_cases.py) with checksums repaired so
they reach the structural checks, run in supervised worker processes with a
per-case timeout (tests/fuzz_worker.py), and scored by both engines with
jobs 1 and 2. A failing case is reported as kind/format/lexicon/seed; replay it
with `python benchmarks/fuzz_sweep.py --replay SPEC`.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from boggle_dawg.solver.formats.adtdawg import ADT_FILES
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.formats.dawg import DAWG_FILE
from boggle_dawg.solver.formats.trie import TRIE_FILE

from support import REPO, assert_clean_error, run_cli

sys.path.insert(0, str(REPO / "tests"))

import adversarial
import fuzz_cases
from fuzz_worker import PASSED, run_parallel

PER_KIND_AND_FORMAT = 24  # 6 kinds x 3 formats x 24 = 432 mutated builds, plus every hand-built file
CASE_TIMEOUT = 10.0       # CPU seconds of the worker; an intact lexicon takes well under 0.5 s per case, and a worker
                          # that waits for a core on a loaded machine gets more wall time: what this catches is a hang
MUTATIONS = tuple(k for k in fuzz_cases.KINDS if k != "hostile")
HOSTILE = sorted(adversarial.CATALOGUE)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("fuzz")
    fuzz_cases.build_lexicons(work / "builds")
    return work


@pytest.fixture(scope="module")
def results(work):
    """Every case of this module, run once: spec text -> result."""
    specs = [spec for kind in MUTATIONS for fmt in fuzz_cases.FORMATS
             for spec in fuzz_cases.specs(PER_KIND_AND_FORMAT, first_seed=1000, kinds=(kind,), formats=(fmt,))]
    specs += [{"kind": "hostile", "fmt": "-", "lexicon": "small", "seed": i} for i in range(len(HOSTILE))]
    outcomes = run_parallel(specs, work, CASE_TIMEOUT)
    return {fuzz_cases.spec_text(s): dict(r, kind=s["kind"]) for s, r in zip(specs, outcomes)}


def failures(results: dict, keep) -> list[str]:
    return [f"{spec} [{r['what']}] {r['outcome']}: {r['detail']}" for spec, r in results.items()
            if keep(spec, r) and r["outcome"] not in PASSED]


@pytest.mark.parametrize("fmt", fuzz_cases.FORMATS)
@pytest.mark.parametrize("kind", MUTATIONS)
def test_corrupted_builds_fail_cleanly(results, kind, fmt):
    found = failures(results, lambda spec, r: r["kind"] == kind and spec.split("/")[1] == fmt)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", HOSTILE)
def test_hand_built_files(results, name):
    spec = fuzz_cases.spec_text({"kind": "hostile", "fmt": "-", "lexicon": "small", "seed": HOSTILE.index(name)})
    result = results[spec]
    assert result["what"] in ("", name)
    assert result["outcome"] in PASSED, f"{name}: {result['outcome']}: {result['detail']}"


@pytest.mark.parametrize("fmt, least", [("trie", 6), ("dawg", 8), ("adtdawg", 6)])
def test_cases_reach_the_structural_checks(results, fmt, least):
    """Repaired checksums let mutations through to many different checks, and some
    mutations leave a valid lexicon that both engines then score."""
    picked = [r for spec, r in results.items() if r["kind"] in ("field", "flip", "resize")
              and spec.split("/")[1] == fmt]
    rules = Counter(r["rule"] for r in picked if r["outcome"] == "rejected")
    assert len(rules) >= least, rules
    assert any(r["outcome"] == "accepted" for r in picked)


def test_case_specs_replay_byte_for_byte(work, tmp_path):
    builds = {name: work / "builds" / name for name in fuzz_cases.LEXICONS}
    for spec in fuzz_cases.specs(len(fuzz_cases.KINDS) * 3, first_seed=77):
        made = [fuzz_cases.make_case(spec, builds, tmp_path / f"{fuzz_cases.spec_text(spec).replace('/', '-')}-{n}")
                for n in (1, 2)]
        contents = [{p.name: p.read_bytes() for p in sorted(m.path.parent.iterdir() if m.path.is_file()
                                                             else m.path.iterdir())} for m in made]
        assert contents[0] == contents[1], spec


# --- the command-line tools, end to end ----------------------------------------------------------


def corrupt_copy(build: Path, tmp_path: Path, name: str, offset: int, value: bytes) -> Path:
    case = tmp_path / "case"
    adversarial.copy_build(build, case)
    data = bytearray((case / name).read_bytes())
    data[offset:offset + len(value)] = value
    (case / name).write_bytes(bytes(data))
    return case


@pytest.mark.parametrize("name, offset, value", [
    (TRIE_FILE, 100, b"\xff"), (DAWG_FILE, 0, b"NOTADAWG"), (ADT_FILES[1], 0, b"\x09"),
])
def test_cli_reports_corrupt_files_in_one_line(work, tmp_path, name, offset, value):
    case = corrupt_copy(work / "builds" / "small", tmp_path, name, offset, value)
    fmt = {TRIE_FILE: "trie", DAWG_FILE: "dawg"}.get(name, "adtdawg")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", str(case), "teasedte", "--size", "1x8", "--format", fmt), name)


def test_truncated_and_foreign_files(work, tmp_path):
    (tmp_path / "trie.bin").write_bytes((work / "builds" / "small" / TRIE_FILE).read_bytes()[:70])
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", str(tmp_path / "trie.bin"), "abcd"), "trie.bin")
    (tmp_path / "notes.bin").write_bytes(b"hello, I am not a lexicon at all")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", str(tmp_path / "notes.bin"), "abcd"), "notes.bin")
    (tmp_path / MANIFEST_FILE).write_bytes(b"\xc1garbage")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", str(tmp_path), "abcd"), MANIFEST_FILE)


@pytest.mark.parametrize("key_path, value", [
    (("tool",), fuzz_cases.DELETE), (("source", "sha256"), 7), (("trie", "file"), "trie\0.bin"),
    (("adtdawg", "layout", "first_child_bits"), 15.0),
])
def test_dawgc_on_a_mangled_manifest(work, tmp_path, key_path, value):
    case = tmp_path / "case"
    adversarial.copy_build(work / "builds" / "small", case)
    fuzz_cases.set_manifest_value(case, key_path, value)
    for command in ("info", "verify", "words"):
        proc = run_cli("boggle_dawg.dawgc_cli", command, str(case))
        if proc.returncode:
            assert_clean_error(proc, "case")


def test_solver_refuses_a_cyclic_adtdawg_rather_than_running_forever(work, tmp_path):
    fmt, _, path = adversarial.make_hostile("adt-cycle-jpa14-144-bytes", tmp_path / "case", work / "builds" / "small")
    assert sum(p.stat().st_size for p in path.iterdir()) == 144
    try:
        proc = run_cli("boggle_dawg.dawg_solve", str(path), "a" * 25, "--format", fmt, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("dawg-solve ran for more than 20 s on a 5x5 board of a 144-byte lexicon")
    assert_clean_error(proc, "case")


def test_language_files_build_a_lexicon_that_opens_or_fail_in_one_line():
    """The language fuzzer's quick share (benchmarks/fuzz_sweep.py --languages runs the long one): 400 language
    files of many scripts, each with one edit, and word lists for them through `dawgc build --language`: each
    refused in one line keeping the build before it, or built into a lexicon every reader opens."""
    run = subprocess.run([sys.executable, "benchmarks/fuzz_sweep.py", "--languages", "400", "--workers", "1",
                          "--cli-runs", "2", "--no-write"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "402 language cases, 0 failed" in run.stderr, run.stderr[-3000:]
