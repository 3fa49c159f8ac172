"""Hundreds of corrupted lexicon files: each gives a clean error (or a valid lexicon), never a crash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from boggle_dawg.solver.formats import ADT_FILES, DAWG_FILE, FORMATS, TRIE_FILE

from support import REPO, assert_clean_error, run_cli

CASES_PER_FORMAT = 160
WORDS = ["tea", "teas", "tease", "teased", "eat", "eats", "seat", "seated", "state", "stated", "quest",
         "quests", "aqua", "equate", "tasted", "sated", "dates", "date", "dated", "ease", "eased", "tee",
         "tees", "set", "sets", "test", "tests", "tested", "stead", "steed", "deed", "deeds"]


@pytest.fixture(scope="module")
def small_build(tmp_path_factory):
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    base = tmp_path_factory.mktemp("fuzz")
    source = base / "words.txt"
    source.write_text("\n".join(WORDS))
    return build_lexicon(source, parse_charset("26"), base / "build").out_dir


@pytest.mark.parametrize("fmt", FORMATS)
def test_corrupted_files_never_crash(small_build, tmp_path, fmt):
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "fuzz_worker.py"), str(small_build), fmt,
                           "1", str(CASES_PER_FORMAT), str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode >= 0, f"worker killed by signal {-proc.returncode}:\n{proc.stdout[-2000:]}"
    lines = proc.stdout.splitlines()
    unexpected = [line for line in lines if "UNEXPECTED" in line]
    assert proc.returncode == 0 and not unexpected, (unexpected or proc.stderr[-3000:])
    assert len(lines) == CASES_PER_FORMAT
    rejected = sum(" rejected " in line for line in lines)
    assert rejected >= CASES_PER_FORMAT // 2, f"only {rejected} corruptions caught"


def corrupt_copy(build: Path, tmp_path: Path, name: str, offset: int, value: bytes) -> Path:
    import shutil

    case = tmp_path / "case"
    shutil.copytree(build, case)
    data = bytearray((case / name).read_bytes())
    data[offset:offset + len(value)] = value
    (case / name).write_bytes(bytes(data))
    return case


@pytest.mark.parametrize("name, offset, value, fragment", [
    (TRIE_FILE, 100, b"\xff", "does not match its manifest"),
    (DAWG_FILE, 0, b"NOTADAWG", "does not match its manifest"),
    (ADT_FILES[1], 0, b"\x09", "does not match its manifest"),
])
def test_cli_reports_corrupt_files_in_one_line(small_build, tmp_path, name, offset, value, fragment):
    case = corrupt_copy(small_build, tmp_path, name, offset, value)
    fmt = {TRIE_FILE: "trie", DAWG_FILE: "dawg"}.get(name, "adtdawg")
    proc = run_cli("boggle_dawg.solve_cli", str(case), "teasedte", "--size", "1x8", "--format", fmt)
    assert_clean_error(proc, name if fmt != "adtdawg" else "adtdawg-2.dat", fragment)


def test_truncated_and_foreign_files(small_build, tmp_path):
    (tmp_path / "trie.bin").write_bytes((small_build / TRIE_FILE).read_bytes()[:70])
    assert_clean_error(run_cli("boggle_dawg.solve_cli", str(tmp_path / "trie.bin"), "abcd"), "trie.bin")
    (tmp_path / "notes.bin").write_bytes(b"hello, I am not a lexicon at all")
    assert_clean_error(run_cli("boggle_dawg.solve_cli", str(tmp_path / "notes.bin"), "abcd"), "not a lexicon file")
    (tmp_path / "manifest.msgpack").write_bytes(b"\xc1garbage")
    assert_clean_error(run_cli("boggle_dawg.solve_cli", str(tmp_path), "abcd"), "manifest.msgpack")
