"""`dawg-solve` from the command line: one board, batches, the default lexicon, errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, assert_clean_error, run_cli, shared_path, sigint_default

CHAMPION = "RSLCSDEIAEGNTRPATESESMIDR"


def test_one_board_grid_score_words_paths(built):
    out = built("twl06", "14")
    lex = open_lexicon(out)
    proc = run_cli("boggle_dawg.dawg_solve", str(out), CHAMPION, "--paths")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == list("RSLCS")
    words = lex.words(CHAMPION)
    assert lines[5] == f"{lex.score(CHAMPION)} points, {len(words)} words"
    first = lines[6].split()
    assert int(first[0]) == words[0].points and first[1] == words[0].word
    assert first[2:] == [f"{c // 5 + 1},{c % 5 + 1}" for c in words[0].path]
    lengths = [len(line.split()[1]) for line in lines[6:]]
    assert lengths == sorted(lengths, reverse=True)


def test_json_output(built):
    proc = run_cli("boggle_dawg.dawg_solve", str(built("twl06", "26")), "qaiu/test/abcd/efgh", "--json")
    data = json.loads(proc.stdout)
    assert data["board"] == "qaiutestabcdefgh" and data["size"] == "4x4"
    assert data["score"] == sum(w["points"] for w in data["words"])
    assert {"word": "featest", "points": 5} in data["words"]


def test_non_square_board_and_qu(built):
    out = built("twl06", "26")
    proc = run_cli("boggle_dawg.dawg_solve", str(out), "qitexs", "--size", "2x3", "--words")
    assert proc.stdout.splitlines()[0].split() == ["Qu", "I", "T"]
    assert "quits" in proc.stdout.split()


def test_reference_directory_reads_as_jpa14(built):
    ref = run_cli("boggle_dawg.dawg_solve", str(shared_path("reference", "jpa14")), CHAMPION)
    ours = run_cli("boggle_dawg.dawg_solve", str(built("twl06", "14")), CHAMPION, "--format", "adtdawg")
    assert ref.returncode == 0 and ref.stdout == ours.stdout


@pytest.mark.slow
def test_batch_file_stdin_json_and_jobs(built):
    out = built("twl06", "26")
    boards = shared_path("bench", "dice4x4-10k.txt")
    texts = boards.read_text().split()[:2000]
    expected = open_lexicon(out, "dawg").score_many(texts).tolist()
    for args in ([], ["--jobs", "2"], ["--format", "adtdawg", "-j", "0"]):
        proc = run_cli("boggle_dawg.dawg_solve", str(out), "--boards", "-", *args, stdin="\n".join(texts))
        assert proc.returncode == 0, proc.stderr
        assert [int(x) for x in proc.stdout.split()] == expected
        assert "boards/s" in proc.stderr
    proc = run_cli("boggle_dawg.dawg_solve", str(out), "--boards", str(boards), "--json", "--quiet")
    rows = [json.loads(line) for line in proc.stdout.splitlines()[:2000]]
    assert [r["score"] for r in rows] == expected and rows[0]["board"] == texts[0]
    assert proc.stderr == ""


def test_batch_with_mixed_sizes_keeps_input_order(built):
    out = built("twl06", "26")
    texts = ["abcd", "catsdogsrat", "# comment", "", "quit/sexy", "serstaplrtesienq"]
    proc = run_cli("boggle_dawg.dawg_solve", str(out), "--boards", "-", "--quiet", stdin="\n".join(
        t if t != "catsdogsrat" else "cats/dogs/rats" for t in texts))
    lex = open_lexicon(out)
    assert proc.stdout.split() == [str(lex.score(t)) for t in ["abcd", "cats/dogs/rats", "quit/sexy", "serstaplrtesienq"]]


def test_ctrl_c_in_a_command_is_one_line_and_status_130(built):
    """Ctrl-C while a batch waits for its next board: `error: interrupted` and 130 (typer 0.28
    alone would exit 130 silently)."""
    solver = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "solve", str(built("twl06", "26")),
                               "--boards", "-"], cwd=REPO, text=True, preexec_fn=sigint_default,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        solver.stdin.write(CHAMPION + "\n")
        solver.stdin.flush()
        assert solver.stdout.readline().strip().isdigit()  # the command is running, waiting on stdin
        solver.send_signal(signal.SIGINT)
        stdout, stderr = solver.communicate(timeout=60)
    finally:
        if solver.poll() is None:
            solver.kill()
    assert (solver.returncode, stderr) == (130, "dawg-solve: error: interrupted\n")


@pytest.mark.slow
def test_default_lexicon_is_compiled_once(tmp_path):
    env = {"BOGGLE_DAWG_CACHE": str(tmp_path)}
    first = run_cli("boggle_dawg.dawg_solve", "QUITSTEAMROLLERS", env=env)
    assert first.returncode == 0, first.stderr
    assert "compiling the default lexicon sowpods.txt" in first.stderr
    second = run_cli("boggle_dawg.dawg_solve", "QUITSTEAMROLLERS", env=env)
    assert second.stdout == first.stdout and second.stderr == ""
    assert len(list(tmp_path.iterdir())) == 1


@pytest.mark.parametrize("args, stdin, fragment", [
    (["{lex}", "abc"], None, "3 cells is not square"),
    (["{lex}", "abcd", "--size", "9x9"], None, "--size: 9x9 is outside"),
    (["{lex}", "abcd", "--size", "four"], None, "is not RxC"),
    (["{lex}"], None, "is a lexicon: give a BOARD"),
    (["{lex}", "abcd", "efgh", "ijkl"], None, "too many arguments"),
    (["{lex}", "abcd", "--boards", "-"], None, "either BOARD or --boards"),
    (["{lex}", "--boards", "-", "--strict", "-q"], "abcd\nab1d\n", "stdin line 2: board 'ab1d'"),
    (["{lex}", "--boards", "{lex}/nowhere.txt"], None, "no such file"),
    (["{lex14}", "xyzw"], None, "'X' uses a letter outside the lexicon's charset"),
    (["{lex}", "abcd", "--format", "fast"], None, "unknown format 'fast'"),
    (["{lex}/trie.bin", "abcd", "--format", "dawg"], None, "is a trie file, not dawg"),
    (["{lex}", "abcd", "--jobs", "-2"], None, "--jobs"),
])
def test_errors_are_one_line(built, args, stdin, fragment):
    mapping = {"lex": str(built("twl06", "26")), "lex14": str(built("twl06", "14"))}
    proc = run_cli("boggle_dawg.dawg_solve", *[a.format(**mapping) for a in args], stdin=stdin)
    assert_clean_error(proc, fragment)


def test_python_m_boggle_dawg_is_dawg_solve(make_lexicon):
    lexicon = str(make_lexicon(["cat", "cats", "act", "acts", "scat"]))
    ours = run_cli("boggle_dawg", lexicon, "catsxxxxxxxxxxxx", "--json")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == run_cli("boggle_dawg.dawg_solve", lexicon, "catsxxxxxxxxxxxx", "--json").stdout
    assert run_cli("boggle_dawg", "--version").stdout == run_cli("boggle_dawg.dawg_solve", "--version").stdout
    assert run_cli("boggle_dawg", "--help").stdout.startswith("Usage: dawg-solve ")
    assert_clean_error(run_cli("boggle_dawg", lexicon, "ab1d"), "dawg-solve: error: board 'ab1d'")


def test_device_cuda_for_one_board_is_checked_as_for_a_batch(make_lexicon):
    """Where the CUDA backend cannot run, one board refuses `--device cuda` with the batch's message."""
    lexicon = str(make_lexicon(["cat", "cats", "act", "acts", "scat"]))
    env = {"NUMBA_ENABLE_CUDASIM": "0"}
    batch = run_cli("boggle_dawg.dawg_solve", lexicon, "--boards", "-", "--device", "cuda", "-q",
                    stdin="catsxxxxxxxxxxxx\n", env=env)
    one = run_cli("boggle_dawg.dawg_solve", lexicon, "catsxxxxxxxxxxxx", "--device", "cuda", env=env)
    if batch.returncode:
        assert_clean_error(one, "the CUDA backend cannot run")
        assert (one.returncode, one.stderr) == (batch.returncode, batch.stderr)
    else:
        assert one.returncode == 0, one.stderr
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", lexicon, "catsxxxxxxxxxxxx", "--device", "tpu"),
                       "--device: unknown device 'tpu'")


def test_skip_foreign_shows_a_foreign_letter_as_the_blank_it_scores_as(make_lexicon):
    lexicon = str(make_lexicon(["cat", "cats", "act", "acts", "scat"], charset="ACST"))
    proc = run_cli("boggle_dawg.dawg_solve", lexicon, "catx", "--skip-foreign", "--words")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["C A", "T ."]
    assert proc.stdout == run_cli("boggle_dawg.dawg_solve", lexicon, "cat.", "--words").stdout
    data = json.loads(run_cli("boggle_dawg.dawg_solve", lexicon, "c(at)x/tac", "--skip-foreign", "--json").stdout)
    assert data["board"] == "c(at)./tac" and data["score"] == open_lexicon(lexicon).score("c(at)./tac")
    # without the flag, the error names it as the command line spells it
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", lexicon, "catx"), "'X' uses a letter outside",
                       "(--skip-foreign scores the other cells)")
