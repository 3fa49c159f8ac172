"""Every command that shows progress, run at a terminal with stdout redirected: the progress
goes to the terminal (stderr) and every result to stdout, none lost to the display."""

from __future__ import annotations

import json
import os
import re
import select

import pytest

from boggle_dawg.solver.lexicon import open_lexicon

from clitools import WORDS, on_terminal, random_boards, run_with_terminal_stderr


def _boards(count: int) -> list[str]:
    return random_boards(count, seed=12)


def test_batch_from_a_file_at_a_terminal_writes_every_score_to_stdout(make_lexicon, tmp_path):
    lexicon = make_lexicon(WORDS)
    boards = _boards(3000)
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(boards) + "\n")
    run = run_with_terminal_stderr("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(path))
    assert run.returncode == 0, run.screen
    assert run.stdout.split() == [str(s) for s in open_lexicon(lexicon).score_many(boards).tolist()]
    assert "scored 3,000 boards" in run.screen
    # The progress bar knows the file's length: 3000 lines, never "?".
    assert re.search(r"\b\d+/3000\b", run.screen) and "/?" not in run.screen


def test_batch_from_stdin_at_a_terminal_writes_every_score_to_stdout(make_lexicon):
    lexicon = make_lexicon(WORDS)
    boards = _boards(500)
    run = run_with_terminal_stderr("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "--json",
                                   stdin="\n".join(boards) + "\n")
    assert run.returncode == 0, run.screen
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["board"] for r in rows] == boards and [r["line"] for r in rows] == list(range(1, 501))


def test_search_and_rearrange_at_a_terminal_write_results_to_stdout(make_lexicon):
    lexicon = str(make_lexicon(WORDS))
    run = run_with_terminal_stderr("boggle_dawg.dawg_solve", "search", lexicon, "--rounds", "3", "--seed", "4", "--json")
    assert run.returncode == 0, run.screen
    assert json.loads(run.stdout)["rounds"] == 3
    run = run_with_terminal_stderr("boggle_dawg.dawg_solve", "rearrange", lexicon, "catsteasnotestar", "--rounds", "3",
                                   "--seed", "4")
    assert run.returncode == 0, run.screen
    assert run.stdout.startswith(tuple("ACENORST")) and "round limit reached" in run.stdout
    assert "dawg-solve: searched " in run.screen


@pytest.mark.slow
def test_prove_at_a_terminal_writes_results_to_stdout(make_lexicon):
    lexicon = str(make_lexicon(WORDS))
    run = run_with_terminal_stderr("boggle_dawg.dawg_solve", "prove", lexicon, "--size", "2x2", "--min-score", "1")
    assert run.returncode == 0, run.screen
    assert "score at least 1" in run.stdout.splitlines()[0]
    assert run.stdout.splitlines()[-1].startswith("No other 2x2 board scores 1 or more: proved over ")
    assert "Traceback" not in run.screen


def test_build_at_a_terminal_writes_its_report_to_stdout(tmp_path):
    source = tmp_path / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    run = run_with_terminal_stderr("boggle_dawg.dawgc_cli", "build", str(source), "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.screen
    assert run.stdout.startswith(f"built {tmp_path / 'out'}/ from {source}")
    assert f"words    {len(WORDS)} kept" in run.stdout


def test_batch_typed_at_a_terminal_draws_no_progress_bar(make_lexicon):
    """`--boards -` with stdin the terminal: a bar would redraw over what is typed, so none is drawn."""
    lexicon = make_lexicon(WORDS)
    with on_terminal("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", typed=True) as terminal:
        os.write(terminal.master, b"catsteasnotestar\n")
        ready, _, _ = select.select([terminal.proc.stdout], [], [], 60)
        assert ready and terminal.proc.stdout.readline().strip().isdigit()
        os.write(terminal.master, b"\x04")  # Ctrl-D: end of input
        terminal.proc.wait(timeout=60)
    text = terminal.text()
    assert terminal.proc.returncode == 0, text
    assert "scored 1 board" in text and "scoring lines" not in text
