"""Board search (`solver.search`, `dawg-solve search` / `rearrange`): symmetry, honest scores,
the rearranged letters, reproducibility, and stopping on time or Ctrl-C."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.search import (
    METHODS,
    Budget,
    SeenBoards,
    canonical_board,
    canonical_codes,
    fingerprints,
    rearrange,
    search,
    symmetries,
)

from support import REPO, assert_clean_error, run_cli, sigint_default


def _search(lex, *args, jobs=1, **kwargs):
    with lex.scorer(jobs) as scorer:
        return search(scorer, *args, **kwargs)


def _rearrange(lex, *args, jobs=1, **kwargs):
    with lex.scorer(jobs) as scorer:
        return rearrange(scorer, *args, **kwargs)



def _images(rows: list[str], square: bool) -> list[str]:
    """The rotations and reflections of a grid, built by hand: 8 for a square, 4 otherwise."""
    def turn(grid):  # a quarter turn clockwise
        return ["".join(col) for col in zip(*grid[::-1])]

    def mirror(grid):
        return [row[::-1] for row in grid]

    turns = [rows]
    for _ in range(3 if square else 0):
        turns.append(turn(turns[-1]))
    if not square:
        turns.append(mirror(rows)[::-1])  # half turn
    grids = turns + [mirror(g) for g in turns]
    return ["/".join(g) for g in grids]


@pytest.mark.parametrize("rows", [["abcd", "efgh", "ijkl", "mnop"], ["qzar", "bxqe", "eeee", "tsra"],
                                  ["abcde", "fghij", "klmno"], ["ab", "cd", "ef", "gh"], ["aqxy"]])
def test_canonical_form_is_the_same_for_every_symmetry(rows):
    square = len(rows) == len(rows[0])
    images = _images(rows, square)
    assert len(images) == (8 if square else 4)
    shape = Shape(len(rows), len(rows[0]))
    canon = {canonical_board(parse_board(image, shape)).notation for image in images}
    assert len(canon) == 1
    smallest = min(parse_board(image, shape).notation for image in images)
    assert canon == {smallest}
    assert len(symmetries(shape)) == len({parse_board(image, shape).notation for image in images})
    # The vectorised form used inside the search agrees with the notation-level one.
    letters = "abcdefghijklmnopqrstuvwxyz"
    codes = np.array([[letters.index(ch) for ch in image.replace("/", "")] for image in images])
    canonical = canonical_codes(codes, shape)
    assert (canonical == canonical[0]).all()
    assert "".join(letters[c] for c in canonical[0]) == smallest.replace("/", "")
    assert len(set(fingerprints(canonical).tolist())) == 1


def test_canonical_codes_match_notation_on_random_boards():
    rng = np.random.default_rng(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    for shape in (Shape(4, 4), Shape(3, 5), Shape(5, 5)):
        codes = rng.integers(0, 3, (200, shape.cells))  # few letters: many near-symmetric boards
        for row, canon in zip(codes, canonical_codes(codes, shape)):
            board = parse_board("".join(letters[c] for c in row), shape)
            assert canonical_board(board).notation.replace("/", "") == "".join(letters[c] for c in canon)


def test_seen_boards_remember_exactly_what_was_added():
    rng = np.random.default_rng(1)
    seen, reference = SeenBoards(), set()
    for size in (1, 5, 0, 40, 3, 100, 7, 7, 300):
        keys = np.unique(rng.integers(0, 2**20, size).astype(np.uint64))
        fresh = keys[~seen.known(keys)]
        assert set(fresh.tolist()) == set(keys.tolist()) - reference
        seen.add(fresh)
        reference |= set(fresh.tolist())
        probe = rng.integers(0, 2**20, 500).astype(np.uint64)
        assert seen.known(probe).tolist() == [p in reference for p in probe.tolist()]
    assert len(seen) == len(reference)


@pytest.mark.parametrize("method", METHODS)
def test_every_reported_score_is_the_board_score(built, method):
    lex = open_lexicon(built("enable2k"))
    result = _search(lex, Shape(4, 4), Budget(evaluations=40_000), method, seed=3, jobs=2, top=8)
    assert result.stopped == "evaluations" and result.evaluations >= 40_000
    assert len(result.top) == 8
    assert len({b.board for b in result.top}) == 8
    assert [b.score for b in result.top] == sorted((b.score for b in result.top), reverse=True)
    for found in result.top:
        board = parse_board(found.board)
        assert found.score == lex.score(board)
        assert canonical_board(board).notation == found.board
    assert result.best.score > 1000  # random boards score about 40


def test_alphabet_restricts_the_letters_and_rectangles_work(built):
    lex = open_lexicon(built("enable2k"))
    result = _search(lex, Shape(3, 5), Budget(rounds=30), "hillclimb", seed=1, alphabet="AEIRSTNL", top=5)
    assert result.alphabet == "aeilnrst"
    for found in result.top:
        board = parse_board(found.board)
        assert board.shape == Shape(3, 5)
        assert set(board.notation.replace("/", "")) <= set("aeilnrst")
        assert found.score == lex.score(board)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_space_of_one_board_is_searched_as_any_other(built, method):
    """One cell and one letter: no letter to change, no cells to swap; the search scores that board."""
    lex = open_lexicon(built("enable2k"))
    result = _search(lex, Shape(1, 1), Budget(rounds=2), method, seed=1, alphabet="a")
    assert [(b.board, b.score) for b in result.top] == [("a", 0)]
    if METHODS[method].rearranges:
        assert _rearrange(lex, "a", Shape(1, 1), Budget(rounds=2), method, seed=1).search.best.score == 0


def test_deviation_never_scores_a_board_twice(built):
    lex = open_lexicon(built("twl06", "14"))
    batches = []
    scorer = lex.scorer(1)
    score_codes = scorer.score_codes

    def recording(codes, shape):
        batches.append(canonical_codes(codes, shape))
        return score_codes(codes, shape)

    scorer.score_codes = recording
    result = search(scorer, Shape(3, 3), Budget(rounds=40), "deviation", seed=2, start="rstelanid", top=3)
    assert sum(len(b) for b in batches) == result.evaluations
    assert len(batches[1]) == 9 * 13 + 36  # the start's single deviations and swaps (all letters differ)
    seen = set()
    for batch in batches:
        boards = {row.tobytes() for row in batch}
        if len(batch) > 1:  # a new climb's first board (a batch of one) may come back; nothing else does
            assert len(boards) == len(batch) and not boards & seen
        seen |= boards
    assert result.best.score == lex.score(parse_board(result.best.board))


def test_rounds_budget_is_exact_and_target_stops(built):
    lex = open_lexicon(built("enable2k"))
    result = _search(lex, Shape(4, 4), Budget(rounds=7), "anneal", seed=1, pool=64, steps=50)
    assert result.rounds == 7 and result.evaluations == 7 * 64 and result.stopped == "rounds"
    result = _search(lex, Shape(4, 4), Budget(rounds=1000, target=1000), "hillclimb", seed=1)
    assert result.stopped == "target" and result.best.score >= 1000


@pytest.mark.slow
def test_same_seed_same_result_whatever_the_threads(built):
    lex = open_lexicon(built("enable2k"))
    for method in METHODS:
        runs = [_search(lex, Shape(4, 4), Budget(evaluations=20_000), method, seed=11, jobs=jobs)
                for jobs in (1, 2, 1)]
        assert runs[0].top == runs[1].top == runs[2].top
        assert runs[0].evaluations == runs[1].evaluations == runs[2].evaluations
    other = _search(lex, Shape(4, 4), Budget(evaluations=20_000), "anneal", seed=12)
    assert other.top != runs[0].top


def test_interrupt_keeps_the_boards_found_so_far(built):
    lex = open_lexicon(built("enable2k"))

    def interrupt(status):
        if status.rounds == 5:
            raise KeyboardInterrupt

    result = _search(lex, Shape(4, 4), Budget(seconds=60), "hillclimb", seed=4, on_round=interrupt)
    assert result.stopped == "interrupted" and result.rounds == 5 and result.top
    assert result.best.score == lex.score(result.best.board)


def test_rearrange_keeps_exactly_the_letters(built):
    lex = open_lexicon(built("enable2k"))
    letters = "sretsenigtalsrep"  # the 4x4 champion's letters, shuffled
    outcome = _rearrange(lex, letters, Shape(4, 4), Budget(rounds=40), seed=1, jobs=2)
    best = outcome.search.best
    assert sorted(best.board) == sorted(letters) == list(outcome.letters)
    assert sorted(outcome.start.board) == sorted(letters)
    assert best.score == lex.score(best.board) == sum(f.points for f in outcome.words)
    assert best.score >= outcome.start.score
    annealed = _rearrange(lex, "qiuteaxrsnol", Shape(3, 4), Budget(rounds=60), "anneal", seed=2, pool=32)
    assert sorted(annealed.search.best.board.replace("/", "")) == sorted("qiuteaxrsnol")
    assert annealed.search.best.score == lex.score(parse_board(annealed.search.best.board))


def test_cli_search_scores_agree_with_dawg_solve(built):
    out = str(built("enable2k"))
    proc = run_cli("boggle_dawg.dawg_solve", "search", out, "--size", "4x4", "--evaluations", "30000", "--seed", "5",
                   "--top", "4", "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["stopped"] == "evaluations" and len(data["top"]) == 4
    assert data["best"] == data["top"][0]
    check = run_cli("boggle_dawg.dawg_solve", out, data["best"]["board"], "--json")
    assert json.loads(check.stdout)["score"] == data["best"]["score"]


def test_cli_same_seed_prints_the_same(built):
    out = str(built("enable2k"))
    args = ("boggle_dawg.dawg_solve", "search", out, "--method", "deviation", "--rounds", "12", "--seed", "9", "-j", "2")
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert lines[0].startswith("best board, ") and "seed 9: 12 rounds" in lines[-1]


def test_cli_rearrange_prints_board_score_and_words(built):
    out = str(built("enable2k"))
    proc = run_cli("boggle_dawg.dawg_solve", "rearrange", out, "PERSLATGSINETERS", "--rounds", "10", "--seed", "1",
                   "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert sorted(data["board"]) == sorted(data["letters"]) == sorted("perslatgsineters")
    assert data["score"] == sum(w["points"] for w in data["words"])
    text = run_cli("boggle_dawg.dawg_solve", "rearrange", out, "PERSLATGSINETERS", "--rounds", "10", "--seed", "1", "-q")
    lines = text.stdout.splitlines()
    assert lines[4].startswith(f"{data['score']} points, {len(data['words'])} words")


def test_cli_seconds_limit_returns_promptly(built):
    out = str(built("twl06", "14"))
    run_cli("boggle_dawg.dawg_solve", "search", out, "--size", "5x5", "--rounds", "1", "-q")  # compiled code is cached
    started = time.perf_counter()
    proc = run_cli("boggle_dawg.dawg_solve", "search", out, "--size", "5x5", "--seconds", "1", "--json", "-q")
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["stopped"] == "seconds" and data["top"]
    assert 1 <= data["seconds"] < 4 and elapsed < 10


def _interrupted(command: str, out: str, *args: str, headline: str, stop: int = signal.SIGINT,
                 preexec=sigint_default) -> tuple[int, str, str]:
    """`dawg-solve COMMAND out ARGS` sent `stop` a second after its first round is scored."""
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", command, out, "--seconds", "60", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, preexec_fn=preexec)
    try:
        assert headline in proc.stderr.readline()  # the first round is scored
        time.sleep(1)
        proc.send_signal(stop)
        stdout, stderr = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert "Traceback" not in stderr
    return proc.returncode, stdout, stderr


@pytest.mark.slow
def test_cli_ctrl_c_prints_the_best_so_far_marked_partial_and_exits_130(built):
    out = str(built("enable2k"))
    status, stdout, stderr = _interrupted("search", out, headline="hillclimb search of 4x4 boards")
    assert status == 130, stderr
    assert stdout.startswith("best board, ")
    assert stdout.splitlines()[-1] == "interrupted: a partial result, the best boards found before Ctrl-C"
    assert stderr.splitlines()[-1] == "dawg-solve: error: interrupted"
    status, stdout, stderr = _interrupted("search", out, "--json", headline="hillclimb search of 4x4 boards")
    data = json.loads(stdout)
    assert status == 130 and data["stopped"] == "interrupted" and data["complete"] is False and data["top"]
    status, stdout, stderr = _interrupted("rearrange", out, "sretsenigtalsrep", "--json",
                                          headline="rearranging letters on a 4x4 board")
    data = json.loads(stdout)
    assert status == 130 and data["stopped"] == "interrupted" and data["complete"] is False


@pytest.mark.slow
def test_cli_sigterm_stops_a_search_as_ctrl_c_does_with_status_143(built):
    """SIGTERM (`kill`, `timeout`, a batch system's limit) keeps what Ctrl-C keeps and says so, in a search
    whose Ctrl-C is ignored (a shell's background job, nohup) too."""
    out = str(built("enable2k"))
    status, stdout, stderr = _interrupted("search", out, headline="hillclimb search of 4x4 boards", stop=signal.SIGTERM)
    assert status == 143, stderr
    assert stdout.startswith("best board, ")
    assert stdout.splitlines()[-1] == "interrupted: a partial result, the best boards found before SIGTERM"
    assert stderr.splitlines()[-1] == "dawg-solve: error: terminated"
    status, stdout, stderr = _interrupted("search", out, headline="hillclimb search of 4x4 boards", stop=signal.SIGTERM,
                                          preexec=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert status == 143, stderr
    assert stdout.splitlines()[-1] == "interrupted: a partial result, the best boards found before SIGTERM"
    assert stderr.splitlines()[-1] == "dawg-solve: error: terminated"


def test_cli_a_finished_search_is_complete(built):
    out = str(built("enable2k"))
    proc = run_cli("boggle_dawg.dawg_solve", "search", out, "--rounds", "2", "--seed", "1", "--json", "-q")
    assert proc.returncode == 0 and json.loads(proc.stdout)["complete"] is True
    text = run_cli("boggle_dawg.dawg_solve", "search", out, "--rounds", "2", "--seed", "1", "-q")
    assert text.returncode == 0 and "partial" not in text.stdout


@pytest.mark.parametrize("args, fragment", [
    (("search", "--alphabet", "ab1"), "--alphabet"),
    (("search", "--method", "tabu"), "--method"),
    (("search", "--t0", "5"), "--t0"),
    (("search", "--seconds", "0"), "--seconds"),
    (("search", "--start", "abc"), "--start: board 'abc': 3 cells is not square"),
    (("search", "--start", "abc", "--size", "2x2"), "--start: board 'abc': 3 cells, size 2x2 needs 4"),
    (("search", "--tasks", "1000000000"), "--tasks: at most 100,000"),
    (("search", "--pool", "1000000000"), "--pool: at most "),
    (("search", "--method", "anneal", "--pool", "1000000000"), "--pool: at most "),
    (("search", "--method", "steepest", "--pool", "1000000000"), "--pool: at most "),
    (("search", "--method", "deviation", "--pool", "1000000000"), "--pool: at most "),
    (("search", "--method", "anneal", "--t0", "1", "--t1", "5"), "--t1: "),
    (("search", "--method", "anneal", "--t1", "500"), "--t1: "),
    (("search", "--size", "5x5", "--start", "abcdefghijklmnop"), "--start"),
    (("search", "--size", "4x3", "--start", "abcd/efgh/ijkl"), "--size 4x3"),
    (("search", "--alphabet", "aeirst", "--start", "sretsenigtalsrep"), "alphabet"),
    (("rearrange", "sretsenigtalsrep", "--pool", "1000000000"), "--pool: at most "),
    (("rearrange", "abcde", "--size", "2x3"), "5 cells, size 2x3 needs 6"),
    (("rearrange", "abc"), "3 cells is not square"),
])
def test_cli_bad_input_is_one_line(built, args, fragment):
    out = str(built("enable2k"))
    command, *rest = args
    started = time.perf_counter()
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", command, out, *rest, timeout=60), fragment)
    assert time.perf_counter() - started < 30  # refused up front, before any search or allocation


def test_cli_usage_errors_exit_2(built):
    """Options that cannot go together are usage errors: status 2, one line naming both."""
    out = str(built("enable2k"))
    for args, fragments in [
        (("--method", "anneal", "--t0", "1", "--t1", "5"), ["--t1: ", "t0"]),
        (("--size", "5x5", "--start", "abcdefghijklmnop"), ["--start", "4x4", "--size 5x5"]),
        (("--size", "4x3", "--start", "abcd/efgh/ijkl"), ["--start", "3x4", "--size 4x3"]),
        (("--alphabet", "aeirst", "--start", "sretsenigtalsrep"), ["--start", "alphabet AEIRST", "G, L, N, P"]),
        (("--tasks", "1000000000"), ["--tasks"]),
        (("--pool", "1000000000"), ["--pool"]),
    ]:
        proc = run_cli("boggle_dawg.dawg_solve", "search", out, *args, timeout=60)
        assert_clean_error(proc, *fragments)
        assert proc.returncode == 2, (args, proc.stderr)


def test_too_large_a_pool_is_refused_before_any_allocation(built):
    from boggle_dawg.solver.errors import ParameterError

    lex = open_lexicon(built("enable2k"))
    for method in METHODS:
        with pytest.raises(ParameterError, match="^pool: at most [0-9,]+ for the .* method on 8x8 boards"):
            _search(lex, Shape(8, 8), Budget(rounds=1), method, seed=1, pool=10**9)
    with pytest.raises(ParameterError, match="^pool: at most"):
        _rearrange(lex, "sretsenigtalsrep", Shape(4, 4), Budget(rounds=1), seed=1, pool=10**9)
    # The largest pool allowed runs.
    largest = int(str(pytest.raises(ParameterError, _search, lex, Shape(4, 4), Budget(rounds=1), "anneal", seed=1,
                                    pool=10**9).value).split()[3].replace(",", ""))
    assert largest >= 100_000
    result = _search(lex, Shape(3, 3), Budget(rounds=1), "hillclimb", seed=1, pool=1000)
    assert result.rounds == 1


def test_anneal_must_cool(built):
    from boggle_dawg.solver.errors import ParameterError

    lex = open_lexicon(built("enable2k"))
    with pytest.raises(ParameterError, match="^t1: "):
        _search(lex, Shape(3, 3), Budget(rounds=1), "anneal", seed=1, t0=1.0, t1=5.0)
    result = _search(lex, Shape(3, 3), Budget(rounds=2), "anneal", seed=1, t0=5.0, t1=5.0, pool=8)
    assert result.rounds == 2


def test_start_outside_the_alphabet_is_refused(built):
    from boggle_dawg.solver.errors import ParameterError

    lex = open_lexicon(built("enable2k"))
    with pytest.raises(ParameterError, match="^start: .*alphabet AEIRST"):
        _search(lex, Shape(4, 4), Budget(rounds=1), seed=1, alphabet="aeirst", start="sretsenigtalsrep")


@pytest.mark.slow
def test_cli_start_gives_the_size(built):
    out = str(built("enable2k"))
    for start, size in (("abcd/efgh/ijkl", "3x4"), ("sretsenigtalsrep", "4x4"), ("abc/def", "2x3"),
                        ("abcdefghijklmnopqrstuvwxy", "5x5")):
        proc = run_cli("boggle_dawg.dawg_solve", "search", out, "--start", start, "--rounds", "2", "--seed", "1",
                       "--json", "-q")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["size"] == size
    agreed = run_cli("boggle_dawg.dawg_solve", "search", out, "--start", "abcdefghijkl", "--size", "3x4", "--rounds",
                     "1", "--json", "-q")
    assert agreed.returncode == 0 and json.loads(agreed.stdout)["size"] == "3x4"


@pytest.mark.slow
def test_cli_rearrange_takes_board_notation_and_bad_boards_fail_as_for_solve(built):
    out = str(built("enable2k"))
    for letters, size in (("pers/latg/sine/ters", "4x4"), ("PERS LATG SINE", "3x4"), ("qiu/tea/xrs/nol", "4x3")):
        proc = run_cli("boggle_dawg.dawg_solve", "rearrange", out, letters, "--rounds", "2", "--seed", "1",
                       "--json", "-q")
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["size"] == size and sorted(data["board"].replace("/", "")) == sorted(data["letters"])
    for bad in ("abc1", "abcd/efg", "abcde"):
        solved = run_cli("boggle_dawg.dawg_solve", "solve", out, bad)
        arranged = run_cli("boggle_dawg.dawg_solve", "rearrange", out, bad)
        assert_clean_error(arranged, "board")
        assert arranged.returncode == solved.returncode == 1, (bad, arranged.stderr, solved.stderr)
        assert arranged.stderr == solved.stderr
    for unplaceable, face in (("(th)bcdefghijklmnop", "'Th'"), ("abcdefghijklmno.", "'.'")):
        proc = run_cli("boggle_dawg.dawg_solve", "rearrange", out, unplaceable)
        assert_clean_error(proc, face)
        assert proc.returncode == 1


def test_readme_synopses_name_every_option():
    """The manual's synopsis of `search` and `rearrange` (docs/cli.md) lists every option `--help` shows."""
    readme = (REPO / "docs" / "cli.md").read_text()
    for command in ("search", "rearrange"):
        start = readme.index(f"    dawg-solve {command} [FILE]")
        synopsis = readme[start:readme.index("\n\n", start)]
        shown = run_cli("boggle_dawg.dawg_solve", command, "--help", env={"COLUMNS": "200"}).stdout
        options = set(re.findall(r"(--[a-z][a-z0-9-]*)", shown)) - {"--help", "--version", "--install-completion",
                                                                     "--show-completion"}
        missing = sorted(o for o in options if not re.search(re.escape(o) + r"\b(?!-)", synopsis))
        assert not missing, (command, missing)


def test_cli_letters_outside_the_charset(built):
    out = str(built("twl06", "14"))
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "rearrange", out, "abcdefghijklmnop"), "'B'", "charset")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "search", out, "--alphabet", "xyz"), "'X'", "charset")


@pytest.mark.parametrize("fmt", ["trie", "dawg", "adtdawg"])
def test_the_words_letters_can_spell_are_each_word_within_the_multiset(built, fmt):
    """The greedy start's words, on a 6x6 of few distinct letters (whose copies a walk over cells that all touch
    each other tried in every order: minutes), against a count of each word's letters."""
    from collections import Counter

    from boggle_dawg.solver.search.rearrange import spellable

    lex = open_lexicon(built("enable2k"), fmt)
    letters = "eeeeeeeeaaaaassssttttrrrrnnnnqiiiiii"  # q: the Qu die, its two letters counted
    multiset = Counter(letters)
    expected = {w: lex.rules.word_points(len(w)) for w in lex if lex.rules.counts(len(w))
                and not Counter(w.replace("qu", "q")) - multiset}
    with lex.scorer() as scorer:
        found = spellable(scorer, lex.charset.codes(letters))
    spelled = {"".join(lex.charset.symbols(codes)).replace("q", "qu"): points for codes, points in found}
    assert spelled == expected and len(spelled) > 1000


def test_rearrange_counts_its_greedy_start_in_the_budget(built):
    lex = open_lexicon(built("default"))
    started = time.perf_counter()
    outcome = _rearrange(lex, "sretsenigtalsrep", Shape(4, 4), Budget(seconds=0.001), seed=1)
    wall = time.perf_counter() - started
    assert outcome.search.rounds == 1
    assert wall - outcome.search.seconds < 0.25, (wall, outcome.search.seconds)


def test_a_new_method_is_one_registry_entry(built, monkeypatch):
    from boggle_dawg.solver.search import SearchMethod, methods

    def random_boards(run, pool, start):
        while True:
            run.score(run.space.random(run.rng, pool))

    toy = SearchMethod(name="random", summary="random boards", pool_meaning="boards per round",
                       default_pool=100, climb=random_boards, rearranges=False)
    monkeypatch.setitem(methods.METHODS, "random", toy)
    lex = open_lexicon(built("enable2k"))
    result = _search(lex, Shape(3, 3), Budget(rounds=4), "random", seed=1, top=3)
    assert result.method == "random" and result.evaluations == 400
    assert all(b.score == lex.score(b.board) for b in result.top)


def test_cli_rearrange_names_a_lone_path_for_what_it_is(built, tmp_path):
    """A lone argument that is a path: a lexicon wants the LETTERS after it; a folder without one says so."""
    lexicon = str(built("enable2k"))
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "rearrange", lexicon), "is a lexicon: give the LETTERS")
    (tmp_path / "notes").mkdir()
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "rearrange", str(tmp_path / "notes")),
                       "is not the LETTERS and holds no lexicon", "no lexicon here")
