"""A round of Boggle: judging words (solver.game) and `dawg-solve play` on a pipe and on a terminal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

from boggle_dawg.solver.board import neighbours, parse_board
from boggle_dawg.solver.dice_sets import load_dice, roll
from boggle_dawg.solver.game import Outcome, Round, traceable
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.rules import load_rules

from bruteforce import word_points
from support import REPO, assert_clean_error, run_cli, sigint_default

# C  A  T  S
# O  Qu E  .
# D  Th I  N
# R  E  A  M
BOARD = "catsoqe.d(th)inream"
WORDS = ["cat", "cats", "quest", "quiet", "thin", "their", "mane", "name", "cod", "code", "coder", "red",
         "tea", "eat", "seat", "teas", "the", "then", "thine", "ream", "queen", "eth"]
# On the board: every word above but their, name, teas, queen (not traceable).
ON_BOARD = {"coder": 2, "quest": 2, "quiet": 2, "thine": 2, "cats": 1, "code": 1, "mane": 1, "ream": 1,
            "seat": 1, "then": 1, "thin": 1, "cat": 1, "cod": 1, "eat": 1, "eth": 1, "red": 1, "tea": 1,
            "the": 1}

TYPED = ["quest", "tae", "QUIET", "quest", "teas", "their", "qi", "c-at", "", "thine", " cat ", "zzz"]
VERDICT_LINES = [
    "quest: +2 points (score 2)",
    "tae: not in the dictionary",
    "quiet: +2 points (score 4)",
    "quest: already found",
    "teas: not on the board",
    "their: not on the board",
    "qi: too short (3 letters or more)",
    "c-at: letters only",
    "thine: +2 points (score 6)",
    "cat: +1 point (score 7)",
    "zzz: not on the board",
]
SUMMARY_LINES = [
    "You found 4 words for 7 points:",
    "  quest (2), quiet (2), thine (2), cat (1)",
    "The board holds 18 words of 3+ letters for 22 points (you scored 31%).",
    "Missed 14, best first:",
    "   2: coder",
    "   1: cats cod code eat eth mane ream red seat tea the then thin",
]


@pytest.fixture
def lexicon(make_lexicon):
    return make_lexicon(WORDS)


def new_round(lexicon, rules="standard") -> Round:
    board = parse_board(BOARD)
    return Round(board, open_lexicon(lexicon).words(board, rules=rules), load_rules(rules))


# --- tracing words on a board --------------------------------------------------------------


def all_spellings(board) -> set[str]:
    """Every string some path spells, by walking all paths (small boards only)."""
    spelled = set()
    around = neighbours(board.shape)

    def walk(cell, used, prefix):
        word = prefix + board.faces[cell]
        spelled.add(word)
        for nxt in around[cell]:
            if nxt not in used and board.faces[nxt]:
                walk(nxt, used | {nxt}, word)

    for cell, face in enumerate(board.faces):
        if face:
            walk(cell, {cell}, "")
    return spelled


def test_traceable_agrees_with_every_path():
    board = parse_board("q(th)a/.ne/sta")
    spelled = all_spellings(board)
    rng = random.Random(4)
    letters = "quthanesx"
    candidates = set(spelled)
    for word in list(spelled)[:3000]:
        at = rng.randrange(len(word))
        candidates.add(word[:at] + rng.choice(letters) + word[at + 1:])
        candidates.add(word + rng.choice(letters))
    candidates.update("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(3000))
    assert any(c not in spelled for c in candidates)
    for word in candidates:
        assert traceable(board, word) == (word in spelled), word


def test_traceable_rules():
    board = parse_board(BOARD)
    assert traceable(board, "quest") and traceable(board, "thine") and traceable(board, "coder")
    assert not traceable(board, "qest")          # the Qu face gives both letters
    assert not traceable(board, "tin")           # nor can a path take half of Th
    assert not traceable(board, "catac")         # no cell twice
    assert not traceable(board, "sn")            # S and N are not neighbours: the blank is between
    assert not traceable(board, "")


def test_answers_are_traceable_and_score_by_the_card(built):
    lex = open_lexicon(built("twl06"))
    for name in ("classic", "super-big"):
        for board in roll(load_dice(name), None, seed=21, count=4):
            found = lex.words(board, skip_foreign=True)
            assert found, board.notation
            for f in found:
                assert traceable(board, f.word), (board.notation, f.word)
                assert f.points == word_points(f.word)


# --- the round ----------------------------------------------------------------------------


def test_round_judges_each_kind_of_word(lexicon):
    game = new_round(lexicon)
    assert game.answers == ON_BOARD
    verdicts = [game.submit(word) for word in TYPED if word.strip()]
    assert [(v.word, v.outcome, v.points) for v in verdicts] == [
        ("quest", Outcome.ACCEPTED, 2), ("tae", Outcome.NOT_IN_DICTIONARY, 0), ("quiet", Outcome.ACCEPTED, 2),
        ("quest", Outcome.REPEATED, 0), ("teas", Outcome.NOT_ON_BOARD, 0), ("their", Outcome.NOT_ON_BOARD, 0),
        ("qi", Outcome.TOO_SHORT, 0), ("c-at", Outcome.NOT_LETTERS, 0), ("thine", Outcome.ACCEPTED, 2),
        ("cat", Outcome.ACCEPTED, 1), ("zzz", Outcome.NOT_ON_BOARD, 0)]
    summary = game.summary()
    assert summary.found == (("quest", 2), ("quiet", 2), ("thine", 2), ("cat", 1))
    assert summary.score == game.score == 7
    assert summary.maximum == 22 and summary.word_count == 18
    assert summary.missed[0] == ("coder", 2)
    assert [w for w, _ in summary.missed[1:]] == sorted(w for w, p in ON_BOARD.items() if p == 1 and w != "cat")


def test_min_length_drops_short_words_from_the_maximum(lexicon):
    game = new_round(lexicon, load_rules("standard").with_min_length(4))
    assert game.submit("cat").outcome is Outcome.TOO_SHORT
    assert game.submit("cats").outcome is Outcome.ACCEPTED
    summary = game.summary()
    assert summary.maximum == sum(p for w, p in ON_BOARD.items() if len(w) >= 4) == 15
    assert all(len(w) >= 4 for w, _ in summary.missed)


# --- play through a pipe -------------------------------------------------------------------


def play(lexicon, *args, stdin=""):
    return run_cli("boggle_dawg.dawg_solve", "play", str(lexicon), *args, stdin=stdin, timeout=60)


def test_play_from_stdin(lexicon):
    proc = play(lexicon, "--board", BOARD, stdin="\n".join(TYPED) + "\n")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"board {BOARD}: 3:00 to play, words of 3+ letters."
    assert lines[2:6] == ["C  A  T  S", "O  Qu E  .", "D  Th I  N", "R  E  A  M"]
    start = lines.index(VERDICT_LINES[0])
    assert lines[start:start + len(VERDICT_LINES)] == VERDICT_LINES
    assert lines[start + len(VERDICT_LINES):] == ["Round over (end of input)."] + SUMMARY_LINES
    assert proc.stderr == ""


def test_play_json(lexicon):
    proc = play(lexicon, "--board", BOARD, "--json", "--min-length", "4", stdin="cats\ncat\nquiet\n")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0] == {"event": "start", "board": BOARD, "size": "4x4", "dice": None, "seed": None,
                         "seconds": 180.0, "min_length": 4,
                         "rules": {"name": "standard-min4", "min_length": 4, "points": [[3, 1], [5, 2], [6, 3], [7, 5],
                                                                                       [8, 11]], "tiles_count": "letters"}}
    assert [(e["word"], e["verdict"], e["points"], e["score"]) for e in events[1:4]] == [
        ("cats", "accepted", 1, 1), ("cat", "too_short", 0, 1), ("quiet", "accepted", 2, 3)]
    end = events[4]
    assert (end["event"], end["reason"], end["score"], end["maximum"], end["word_count"]) == ("end", "end", 3, 15, 11)
    assert end["words"] == [{"word": "cats", "points": 1}, {"word": "quiet", "points": 2}]
    assert [m["word"] for m in end["missed"]][:3] == ["coder", "quest", "thine"]
    assert len(events) == 5


def test_play_rolls_the_dice_of_a_seed(lexicon):
    proc = play(lexicon, "--seed", "7", "--seconds", "0")
    assert proc.returncode == 0, proc.stderr
    header, grid = proc.stdout.split("\n\n")[:2]
    assert header == "classic dice, seed 7: no time limit, words of 3+ letters."
    assert grid + "\n" == run_cli("boggle_dawg.dawg_solve", "roll", "--seed", "7", "--grid").stdout
    big = play(lexicon, "--dice", "big", "--seed", "1")
    assert big.stdout.startswith("big dice, seed 1: 3:00 to play, words of 3+ letters.")


def test_the_clock_runs_while_a_pipe_is_silent(lexicon):
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "play", str(lexicon), "--board", BOARD,
                             "--seconds", "1.5"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO)
    proc.stdin.write("quest\n")
    proc.stdin.flush()
    try:
        proc.wait(timeout=30)  # stdin stays open: only the clock can end this round
        out = proc.stdout.read()
    finally:
        proc.stdin.close()
    assert proc.returncode == 0, proc.stderr.read()
    assert "quest: +2 points (score 2)\nTime's up.\nYou found 1 word for 2 points:" in out


@pytest.mark.parametrize("args, fragments", [
    (["--seconds", "-1"], ["--seconds: must be a number at least 0 and at most 1e+06"]),
    (["--seconds", "inf"], ["--seconds: must be a number", "got inf"]),
    (["--seconds", "nan"], ["--seconds: must be a number", "got nan"]),
    (["--seconds", "1e308"], ["--seconds: must be a number", "at most 1e+06"]),
    (["--min-length", "0"], ["--min-length: must be 1..255, got 0"]),
    (["--rules", "nosuch"], ["--rules: rules 'nosuch': neither a rules file nor built-in rules"]),
    (["--board", BOARD, "--seed", "3"], ["give either --board or --dice/--seed"]),
    (["--board", "abcde"], ["5 cells is not square"]),
    (["--dice", "nosuch"], ["'nosuch' is neither a dice file nor a built-in set"]),
    (["--dice", "big", "--size", "4x4"], ["25 dice cannot fill a 4x4 board"]),
])
def test_play_errors(lexicon, args, fragments):
    assert_clean_error(play(lexicon, *args), *fragments)


def test_play_with_stdin_closed(lexicon):
    proc = subprocess.run(["sh", "-c", f'"{sys.executable}" -m boggle_dawg.dawg_solve play "{lexicon}" --seed 1 <&-'],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert_clean_error(proc, "stdin is closed")


def test_play_missing_lexicon(tmp_path):
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "play", str(tmp_path / "none"), "--seed", "1"),
                       "no such file or directory")


# --- play on a terminal --------------------------------------------------------------------


def _take_terminal() -> None:
    """In the child: make the pty its controlling terminal, so Ctrl-C and Ctrl-D act as typed."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    sigint_default()


class Terminal:
    """`dawg-solve ARGS` on a pseudo-terminal: type keys into it, read what it shows."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=REPO, start_new_session=True, preexec_fn=_take_terminal)
        os.close(slave)
        self.screen = ""

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"{text!r} did not appear; the screen shows:\n{self.screen}")
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the child has gone and closed the terminal
                chunk = b""
            if not chunk:
                raise AssertionError(f"{text!r} did not appear before the end:\n{self.screen}")
            self.screen += chunk.decode().replace("\r\n", "\n")
        return self.screen

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self) -> int:
        status = self.proc.wait(timeout=30)
        os.close(self.master)
        return status


@pytest.fixture
def terminal():
    opened = []

    def start(*args: str) -> Terminal:
        opened.append(Terminal(*args))
        return opened[-1]

    yield start
    for term in opened:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait()


def type_words(term: Terminal) -> None:
    """Type the test words one at a time, each after its prompt, and check each answer."""
    expected = iter(VERDICT_LINES)
    for word in TYPED:
        term.type(word + "\n")
        if word.strip():
            term.wait_for(next(expected) + "\n")
    assert next(expected, None) is None


def test_a_timed_round_on_a_terminal(lexicon, terminal):
    # 6 s: the words must all be typed and answered before time is up, even on a loaded machine
    term = terminal("play", str(lexicon), "--board", BOARD, "--seconds", "6")
    term.wait_for("[0:06] word> ")
    started = time.monotonic()
    assert "Type one word per line; Ctrl-D ends the round early." in term.screen
    type_words(term)
    screen = term.wait_for("you scored 31%")
    assert time.monotonic() - started > 1.5
    assert term.finish() == 0
    end = screen.index("Time's up.")
    assert screen[end:].splitlines()[1:] == SUMMARY_LINES
    assert "Time's up." in screen and screen.count("word> ") >= len(VERDICT_LINES)


@pytest.mark.parametrize("stop, ending, status", [
    ("\x03", "Round stopped.", 130),          # Ctrl-C typed
    ("SIGINT", "Round stopped.", 130),        # SIGINT sent to the process
    ("\x04", "Round over (end of input).", 0),  # Ctrl-D typed
])
def test_ending_a_round_early_still_sums_up(lexicon, terminal, stop, ending, status):
    """Ctrl-C sums the round up, then exits 130 as on any Ctrl-C; Ctrl-D ends it normally."""
    term = terminal("play", str(lexicon), "--board", BOARD, "--seconds", "60")
    term.wait_for("[1:00] word> ")
    type_words(term)
    if stop == "SIGINT":
        os.kill(term.proc.pid, signal.SIGINT)
    else:
        term.type(stop)
    screen = term.wait_for("   1: cats cod code eat eth mane ream red seat tea the then thin")
    if status:
        screen = term.wait_for("dawg-solve: error: interrupted\n")
    assert term.finish() == status
    summed_up = screen[screen.index(ending):].splitlines()[1:]
    assert summed_up == SUMMARY_LINES + (["dawg-solve: error: interrupted"] if status else [])
    assert "Traceback" not in screen


def test_sigint_on_a_piped_round_sums_up_and_exits_130(lexicon):
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "play", str(lexicon), "--board", BOARD,
                             "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=REPO, preexec_fn=sigint_default)
    try:
        proc.stdin.write("quest\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["event"] == "start"
        assert json.loads(proc.stdout.readline())["word"] == "quest"  # the round is reading words
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.stdin.close()
        proc.kill()
    assert proc.returncode == 130, err
    end = json.loads(out)
    assert (end["event"], end["reason"], end["score"]) == ("end", "interrupt", 2)
    assert err.splitlines()[-1] == "dawg-solve: error: interrupted" and "Traceback" not in err
