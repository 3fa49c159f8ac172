"""`dawg-solve --boards`: the bad-line policy, output aligned with input lines, streamed stdin,
and a summary that times start-up apart from scoring."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boggle_dawg import batch
from boggle_dawg.solver.lexicon import open_lexicon

from clitools import build_small_lexicon
from clitools import random_boards as boards
from support import REPO, run_cli, sigint_default


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    return build_small_lexicon(tmp_path_factory.mktemp("batch"))


def scores(lexicon, texts) -> list[int]:
    return open_lexicon(lexicon).score_many(texts).tolist()


def test_every_bad_line_is_reported_and_the_rest_scored(lexicon, tmp_path):
    lines = boards(10_000)
    bad = {17: "ab1d", 4000: "abcde", 9999: "xyz"}  # 0-based positions
    for at, text in bad.items():
        lines[at] = text
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(lines) + "\n")
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(path), "-q")
    assert proc.returncode == 1
    good = [t for i, t in enumerate(lines) if i not in bad]
    assert [int(s) for s in proc.stdout.split()] == scores(lexicon, good)
    errors = proc.stderr.splitlines()
    assert [e.split(": ")[2] for e in errors[:3]] == [f"{path} line {at + 1}" for at in bad]
    assert errors[0] == f"dawg-solve: error: {path} line 18: board 'ab1d': '1' is not a cell " \
                        "(use a-z, 'q' for Qu, '(th)' for a two-letter face, '.' for a blank)"
    assert errors[3] == f"dawg-solve: error: {path}: 3 bad lines (lines 18, 4001, 10000); every other " \
                        "board was scored"
    assert len(errors) == 4


def test_a_bad_line_after_many_chunks_loses_nothing(lexicon):
    count = 2 * batch.CHUNK_LINES + 100
    lines = boards(count)
    lines[count - 50] = "not a board!"
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q", "--line-numbers", stdin="\n".join(lines))
    assert proc.returncode == 1
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    expected = [(n + 1, s) for n, s in zip(range(count), scores(lexicon, lines[:count - 50] + ["a" * 16]
                                                              + lines[count - 49:])) if n != count - 50]
    assert [(int(n), int(s)) for n, s in rows] == expected
    assert f"stdin line {count - 49}:" in proc.stderr


def test_strict_stops_at_the_first_bad_line_after_printing_what_came_before(lexicon):
    lines = boards(30)
    lines[20] = "ab1d"
    lines[25] = "xyz"
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "--strict", stdin="\n".join(lines))
    assert proc.returncode == 1
    assert [int(s) for s in proc.stdout.split()] == scores(lexicon, lines[:20])
    assert proc.stderr.splitlines() == [("dawg-solve: error: stdin line 21: board 'ab1d': '1' is not a cell "
                                         "(use a-z, 'q' for Qu, '(th)' for a two-letter face, '.' for a blank) "
                                         "(--strict stops at the first bad line)")]


def test_line_numbers_and_json_align_results_with_input_lines(lexicon):
    text = "# header\n\ncatsteasnotestar\n  \nab1d\nstarnotesteascat\n\xff\xfe\n" + "a" * 5000 + "\nrestrestrestrest"
    proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q",
                           "--line-numbers"], input=text.encode("latin-1"), capture_output=True, cwd=REPO, check=False)
    assert proc.returncode == 1
    expected = scores(lexicon, ["catsteasnotestar", "starnotesteascat", "restrestrestrest"])
    assert proc.stdout.decode().splitlines() == [f"3\t{expected[0]}", f"6\t{expected[1]}", f"9\t{expected[2]}"]
    stderr = proc.stderr.decode()
    assert "stdin line 7: not UTF-8 text" in stderr and "stdin line 8: longer than 4096 bytes" in stderr
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q", "--json",
                   stdin="catsteasnotestar\n\nab1d\n")
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0] == {"line": 1, "board": "catsteasnotestar", "score": expected[0], "rules": "standard"}
    assert rows[1]["line"] == 3 and rows[1]["board"] == "ab1d" and "'1' is not a cell" in rows[1]["error"]
    assert "score" not in rows[1] and len(rows) == 2 and proc.returncode == 1


def test_stdin_is_answered_line_by_line(lexicon):
    """An interactive `--boards -` prints each board's score as soon as its line arrives."""
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        for text, expected in zip(["catsteasnotestar", "abcdabcdabcdabcd"], scores(lexicon, ["catsteasnotestar",
                                                                                         "abcdabcdabcdabcd"])):
            proc.stdin.write(text.encode() + b"\n")
            proc.stdin.flush()
            deadline = time.monotonic() + 60
            answer = b""
            while not answer.endswith(b"\n"):
                ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
                assert ready, "no answer while stdin stays open"
                answer += os.read(proc.stdout.fileno(), 100)
            assert answer == f"{expected}\n".encode()
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_summary_times_start_up_apart_from_scoring(lexicon):
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-j", "1", stdin="\n".join(boards(2000)))
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(r"scored 2,000 boards in \d+\.\d\d s: [\d,]+ boards/s \(trie, 1 job; start-up "
                        r"\d+\.\d\d s\)\n", proc.stderr), proc.stderr
    one = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", stdin="catsteasnotestar\n")
    assert "scored 1 board in" in one.stderr


def test_empty_input_and_closed_stdin(lexicon):
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", stdin="# nothing\n\n")
    assert (proc.returncode, proc.stdout) == (0, "") and "scored 0 boards" in proc.stderr
    closed = subprocess.run(["sh", "-c", f'"{sys.executable}" -m boggle_dawg.dawg_solve "{lexicon}" --boards - <&-'],
                            capture_output=True, text=True, cwd=REPO, timeout=60, check=False)
    assert closed.returncode == 1 and closed.stderr == "dawg-solve: error: stdin is closed: give --boards PATH\n"


def _main_thread(pid: int) -> tuple[str, float]:
    """A child's state (Z once it has exited, until reaped) and the CPU seconds its main thread has used."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_a_batch_inside_a_board_within_a_second(make_lexicon, jobs):
    """Compiled code never checks for signals: a board whose every path is a prefix (words a^3 .. a^100
    on a 5x5 board of 'a') walks for ages, and Ctrl-C must still end the batch at once: the main thread
    exits within a second of its own CPU time (about 0.25 s), which a machine too busy to run the child
    for a while (tests beside it) does not stretch as it stretches wall time, and within 10 s of that."""
    lexicon = make_lexicon(["a" * n for n in range(3, 101)])
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q",
                             "--jobs", jobs], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=REPO, text=True, preexec_fn=sigint_default)
    try:
        proc.stdin.write("aaaa\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "2\n"  # compiled and scoring (aaa, aaaa)
        proc.stdin.write("a" * 25 + "\n")
        proc.stdin.flush()
        time.sleep(0.5)  # deep in the endless board
        assert proc.poll() is None
        used = _main_thread(proc.pid)[1]
        proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10
        while (state := _main_thread(proc.pid))[0] not in ("Z", "X"):
            assert time.monotonic() < deadline, "still running 10 s after SIGINT"
            time.sleep(0.01)
        took = state[1] - used
        stdout, stderr = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, stdout, stderr.splitlines()[-1:]) == (130, "", ["dawg-solve: error: interrupted"])
    assert took < 1, f"used {took:.2f} CPU-seconds after SIGINT"


@pytest.mark.slow
def test_the_ctrl_c_test_passes_in_a_suite_started_in_the_background(tmp_path):
    """A suite started in the background (`pytest &` in a script) has SIGINT ignored, which the
    children it starts inherit unless support.sigint_default resets it: the Ctrl-C test above,
    run so, still passes."""
    test = "tests/test_batch.py::test_ctrl_c_stops_a_batch_inside_a_board_within_a_second[1]"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path}",
                           test], cwd=REPO, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_binary_input_is_an_error_at_once_after_the_boards_before_it(lexicon, tmp_path):
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "/dev/zero", timeout=30)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "dawg-solve: error: /dev/zero line 1: binary data (a NUL byte), not boards\n"
    path = tmp_path / "boards.bin"
    lines = boards(3)
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"abc\0\xff\n" + "\n".join(boards(5)).encode())
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(path), "-q")
    assert proc.returncode == 1 and [int(s) for s in proc.stdout.split()] == scores(lexicon, lines)
    assert proc.stderr == f"dawg-solve: error: {path} line 4: binary data (a NUL byte), not boards\n"


@pytest.mark.parametrize("rules", ["words", "big"])
def test_a_batch_scores_under_the_rules_it_is_given(lexicon, rules):
    """`--rules` in a batch: each score is the one-board score under the same rules (a word count under
    `words`), and each JSON line names the rules."""
    texts = ["catsteasnotestar", "starnotesteascat", "restrestrestrest"]
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q", "--json", "--rules", rules,
                   stdin="\n".join(texts) + "\n")
    assert proc.returncode == 0, proc.stderr
    lex = open_lexicon(lexicon)
    expected = [lex.score_and_count(board, rules=rules) for board in texts]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["score"] for row in rows] == [score for score, _ in expected] != scores(lexicon, texts)
    assert {row["rules"] for row in rows} == {rules}
    if rules == "words":
        assert [score for score, count in expected] == [count for _, count in expected]
