"""Dice sets, dice files and seeded rolls (solver.dice_sets, `dawg-solve roll`)."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from importlib.resources import files

import pytest

from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.dice_sets import builtin_dice_names, dice_for_size, load_dice, parse_dice, roll
from boggle_dawg.solver.errors import DawgError

from support import assert_clean_error, run_cli, shared_path

SEED_002_DICE = ("AAEEGN ELRTTY AOOTTW ABBJOO EHRTVW CIMOTU DISTTY EIOSST DELRVY ACHOPS "
                 "HIMNQuU EEINSU EEGHNW AFFKPS HLNNRZ DEILRX").split()
SIZES = {"classic": 4, "classic-old": 4, "big": 5, "big-master": 5, "super-big": 6}


def matches_dice(faces, dice) -> bool:
    """Whether each cell can be given its own die showing the cell's face (a perfect matching)."""
    owner: dict[int, int] = {}

    def place(cell: int, tried: set) -> bool:
        for d, die in enumerate(dice):
            if faces[cell] in die and d not in tried:
                tried.add(d)
                if d not in owner or place(owner[d], tried):
                    owner[d] = cell
                    return True
        return False

    return len(faces) == len(dice) and all(place(cell, set()) for cell in range(len(faces)))


# --- the built-in sets ------------------------------------------------------------------


def test_builtin_sets_have_the_right_dice_counts_and_six_faces():
    assert builtin_dice_names() == sorted(SIZES)
    for name, side in SIZES.items():
        dice = load_dice(name)
        assert len(dice.dice) == side * side, name
        assert {len(die) for die in dice.dice} == {6}, name
        assert dice.shape() == Shape(side, side)
        assert f"{side}x{side}" in dice.description


def test_builtin_files_name_their_set_size_and_source():
    for name in SIZES:
        text = files("boggle_dawg.solver").joinpath("dice", f"{name}.txt").read_text(encoding="utf-8")
        header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
        assert header.startswith("# ") and "Boggle" in header.splitlines()[0], name
        assert "Source:" in header, name
        assert f"Board size: {SIZES[name]}x{SIZES[name]}" in header, name


def test_classic_is_the_seed_002_set():
    expected = sorted(tuple(sorted(parse_dice(die, "seed").dice[0])) for die in SEED_002_DICE)
    assert sorted(tuple(sorted(die)) for die in load_dice("classic").dice) == expected
    assert ("h", "i", "m", "n", "qu", "u") in expected


def test_every_qu_and_special_face():
    faces = {name: Counter(f for die in load_dice(name).dice for f in die) for name in SIZES}
    for name in ("classic", "classic-old", "big", "big-master"):
        assert faces[name]["qu"] == 1, name
        assert all(len(f) == 1 for f in faces[name] if f != "qu"), name
    super_big = load_dice("super-big").dice
    assert ("an", "er", "he", "in", "qu", "th") in super_big
    assert ("e", "i", "o", "", "", "") in super_big
    assert faces["super-big"]["qu"] == 2 and faces["super-big"][""] == 3
    assert "q" not in {f for counts in faces.values() for f in counts}


def test_big_master_differs_from_big_in_four_dice():
    big = Counter(load_dice("big").dice)
    master = Counter(load_dice("big-master").dice)
    assert sum((big - master).values()) == 4 and sum((master - big).values()) == 4


def test_bench_boards_could_come_from_the_dice():
    """The shared bench boards were rolled with the classic and the 1979 Big Boggle dice."""
    for bench, name in (("dice4x4-10k.txt", "classic"), ("dice5x5-10k.txt", "big")):
        dice = load_dice(name).dice
        lines = [line for line in shared_path("bench", bench).read_text().splitlines()
                 if line and not line.startswith("#")]
        boards = [parse_board(line) for line in lines[:300]]
        assert boards and all(matches_dice(b.faces, dice) for b in boards), name
    # W is on two Big Boggle dice and three Boggle Master dice: the bench's W rate tells them apart.
    boards = shared_path("bench", "dice5x5-10k.txt").read_text().split()
    rate = sum(b.count("w") for b in boards) / len(boards)
    assert abs(rate - 2 / 6) < 0.03


# --- dice files -------------------------------------------------------------------------


def test_dice_file_forms(tmp_path):
    text = ("# My dice: four of them\n"
            "\n"
            "A B C D E F\n"
            "a,b, c ,d,e,Qu   # a comment\n"
            "ABCDEQ\n"
            "HIMNQuU\n")
    dice = parse_dice(text, "mine.txt")
    assert dice.description == "My dice: four of them"
    assert dice.dice == (("a", "b", "c", "d", "e", "f"), ("a", "b", "c", "d", "e", "qu"),
                         ("a", "b", "c", "d", "e", "qu"), ("h", "i", "m", "n", "qu", "u"))
    assert parse_dice("Th In . _ Q x\nAB..._\n", "f").dice == (("th", "in", "", "", "qu", "x"),
                                                              ("a", "b", "", "", "", ""))
    path = tmp_path / "three.txt"
    path.write_text("ab\ncd\nef\ngh\n")
    assert load_dice(str(path)).dice == (("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"))


@pytest.mark.parametrize("text, fragments", [
    ("A B C D E F\nA B C D E\n", ["f.txt line 2", "5 faces", "line 1 has 6"]),
    ("# head\n\nA B C D E F\nA B C Qx E F\n", ["f.txt line 4", "'Qx'"]),
    ("A B C D E F\nA B CDE D E F\n", ["f.txt line 2", "'CDE'"]),
    ("A B C D E 7\n", ["f.txt line 1", "'7'"]),
    ("ABC1EF\n", ["f.txt line 1", "'1'"]),
    ("# only a comment\n\n", ["f.txt: no dice"]),
    ("A B\n" * 65, ["f.txt: 65 dice", "8x8"]),
])
def test_malformed_dice_files(text, fragments):
    with pytest.raises(DawgError) as err:
        parse_dice(text, "f.txt")
    message = str(err.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_dice_must_fill_the_board():
    twelve = parse_dice("AB\n" * 12, "twelve.txt")
    with pytest.raises(DawgError, match="12 dice do not fill a square board; give --size"):
        twelve.shape()
    with pytest.raises(DawgError, match="12 dice cannot fill a 4x4 board"):
        twelve.shape(Shape(4, 4))
    assert twelve.shape(Shape(3, 4)) == Shape(3, 4)


def test_default_dice_by_size():
    assert dice_for_size(None) == "classic"
    assert dice_for_size(Shape(5, 5)) == "big"
    assert dice_for_size(Shape(6, 6)) == "super-big"
    with pytest.raises(DawgError, match="no built-in dice set fills a 3x4 board"):
        dice_for_size(Shape(3, 4))


# --- rolls ------------------------------------------------------------------------------


def test_a_roll_puts_every_die_in_a_cell_showing_one_face():
    for name in SIZES:
        dice = load_dice(name)
        for board in roll(dice, None, seed=11, count=40):
            assert board.shape == dice.shape()
            assert matches_dice(board.faces, dice.dice), (name, board.notation)


def test_a_roll_is_not_a_fixed_arrangement():
    """Over many rolls the Qu die turns up on about 1 board in 6, in every cell."""
    boards = list(roll(load_dice("classic"), None, seed=3, count=3000))
    with_qu = [b.faces.index("qu") for b in boards if "qu" in b.faces]
    assert 400 < len(with_qu) < 600
    assert set(with_qu) == set(range(16))
    assert len({b.notation for b in boards}) == 3000


def test_seeded_rolls_repeat_and_known_boards():
    classic = load_dice("classic")
    five = [b.notation for b in roll(classic, None, seed=7, count=5)]
    assert five == [b.notation for b in roll(classic, None, seed=7, count=5)]
    assert five[0] == "ibhihusonegwesit"
    assert next(roll(classic, None, seed=7)).notation == five[0]
    assert [b.notation for b in roll(classic, None, seed=8, count=5)] != five
    assert next(roll(load_dice("super-big"), None, seed=5)).notation == \
        "pomainiooywfoncm(an)jepaliyirredenrtsbi"


def test_bad_seed_and_count():
    classic = load_dice("classic")
    with pytest.raises(DawgError, match="^seed: must be 0 or more"):
        next(roll(classic, None, seed=-1))
    with pytest.raises(DawgError, match="^count: must be 1 or more"):
        next(roll(classic, None, seed=1, count=0))


# --- the roll command ---------------------------------------------------------------------


def test_roll_command_seeded_and_forms():
    proc = run_cli("boggle_dawg.dawg_solve", "roll", "--seed", "7", "--count", "3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert len(lines) == 3 and lines[0] == "ibhihusonegwesit"
    assert proc.stderr == ""
    grid = run_cli("boggle_dawg.dawg_solve", "roll", "--seed", "7", "--grid")
    assert grid.stdout == "I B H I\nH U S O\nN E G W\nE S I T\n"
    rolled = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", "super-big", "--seed", "5", "-n", "2", "--json")
    records = [json.loads(line) for line in rolled.stdout.splitlines()]
    assert records[0] == {"seed": 5, "roll": 0, "dice": "super-big",
                          "board": "pomainiooywfoncm(an)jepaliyirredenrtsbi", "size": "6x6"}
    assert records[1]["roll"] == 1
    listed = run_cli("boggle_dawg.dawg_solve", "roll", "--list").stdout
    assert all(name in listed for name in SIZES)


def test_roll_without_seed_prints_it_and_can_be_repeated():
    first = run_cli("boggle_dawg.dawg_solve", "roll", "--size", "5x5", "-n", "2")
    assert first.returncode == 0
    seed = first.stderr.split()[-1]
    assert first.stderr == f"dawg-solve: seed {seed}\n"
    again = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", "big", "--seed", seed, "-n", "2")
    assert again.stdout == first.stdout and len(first.stdout.split()[0]) == 25


def test_roll_pipes_into_the_batch_solver(tmp_path, make_lexicon):
    dice = tmp_path / "twelve.txt"
    dice.write_text("# twelve dice, 3x4\n" + "T A\nO E\nN S\n" * 4)
    rolled = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(dice), "--size", "3x4", "--seed", "2", "-n", "20")
    assert rolled.returncode == 0, rolled.stderr
    boards = rolled.stdout.splitlines()
    assert all(b.count("/") == 2 and len(b) == 14 for b in boards)
    lexicon = make_lexicon(["ant", "ants", "eats", "east", "note", "notes", "one", "ones", "sat", "tea"])
    scored = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "--json", "-q", stdin=rolled.stdout)
    assert scored.returncode == 0, scored.stderr
    results = [json.loads(line) for line in scored.stdout.splitlines()]
    assert [r["board"] for r in results] == boards
    assert any(r["score"] > 0 for r in results)


@pytest.mark.parametrize("args, fragments", [
    (["--dice", "nosuchset"], ["'nosuchset' is neither a dice file nor a built-in set", "classic"]),
    (["--dice", "tests"], ["tests: is a directory"]),
    (["--seed", "-3"], ["--seed: must be 0 or more"]),
    (["--count", "0"], ["--count: must be 1 or more"]),
    (["--size", "3x4"], ["no built-in dice set fills a 3x4 board"]),
    (["--dice", "big", "--size", "4x4"], ["25 dice cannot fill a 4x4 board"]),
    (["--size", "nine"], ["--size"]),
])
def test_roll_command_errors(args, fragments):
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "roll", *args), *fragments)


def test_roll_command_bad_dice_files(tmp_path):
    ragged = tmp_path / "ragged.txt"
    ragged.write_text("A B C D E F\n" * 3 + "A B C\n")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(ragged)), f"{ragged} line 4", "3 faces")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(binary)), str(binary), "not UTF-8")
    square_less = tmp_path / "five.txt"
    square_less.write_text("AB\n" * 5)
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(square_less)),
                       "5 dice do not fill a square board")


def test_roll_command_reads_dice_files_in_bounded_memory(tmp_path):
    """Whatever --dice names, it is refused in one line, at once, having read a bounded amount."""
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"A B C D E F\nA B C D E F\nA B\0C D E F\n")
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"# " + b"x" * (2 << 20) + b"\n" + b"A B C D E F\n" * 16)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: reading must not wait for a writer
    for dice, fragments in [("/dev/zero", ["/dev/zero"]), (str(nul), [f"{nul} line 3", "NUL"]),
                            (str(huge), [str(huge), "larger than 1 MiB"]),
                            (str(fifo), [str(fifo), "a named pipe that nothing was written to"])]:
        started = time.perf_counter()
        assert_clean_error(run_cli("boggle_dawg.dawg_solve", "roll", "--dice", dice, timeout=30), *fragments)
        assert time.perf_counter() - started < 20


def test_roll_command_reads_dice_from_a_pipe():
    dice = "A B C D E F\n" * 3 + "Qu Th . . E S\n"
    rolled = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", "/dev/stdin", "--seed", "1", stdin=dice)
    assert rolled.returncode == 0, rolled.stderr
    assert len(rolled.stdout.split()) == 1
