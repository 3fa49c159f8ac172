"""Scores agree with an independent brute-force reference: every format, both engines, any --jobs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boggle_dawg.solver.board import Shape, parse_board, points
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.lexicon import open_lexicon

from bruteforce import Reference
from support import shared_path, word_list_path

SIZES = [Shape(1, 1), Shape(2, 3), Shape(3, 3), Shape(3, 4), Shape(4, 4), Shape(5, 5), Shape(6, 6),
         Shape(7, 7), Shape(8, 8)]
# Letter weights like a real dice set, so boards hold many words.
COMMON = "eeeeeeaaaaiiiioooossssttttrrrrnnnnllldddcccppmmgghhbbuyfwkvq"


def random_faces(rng: random.Random, shape: Shape, letters: str = COMMON, extras=()) -> list[str]:
    faces = []
    for _ in range(shape.cells):
        face = rng.choice(letters)
        if extras and rng.random() < 0.08:
            face = rng.choice(extras)
        faces.append("qu" if face == "q" else face)
    return faces


def notation(faces: list[str], shape: Shape) -> str:
    tokens = ["q" if f == "qu" else f"({f})" if len(f) == 2 else (f or ".") for f in faces]
    return "/".join("".join(tokens[r * shape.cols:(r + 1) * shape.cols]) for r in range(shape.rows))


def check_lexicon(directory, reference: Reference, boards: list[tuple[list[str], Shape]], letters: str):
    """Every format, both engines, one and two jobs, against the reference."""
    texts = [notation(f, s) for f, s in boards]
    expected = [reference.score(f, s.rows, s.cols) for f, s in boards]
    for fmt in FORMATS:
        lex = open_lexicon(directory, fmt)
        for jobs in (1, 2):
            got = lex.score_many(texts, jobs=jobs).tolist()
            assert got == expected, (fmt, jobs, [t for t, g, e in zip(texts, got, expected) if g != e][:3])
        for (faces, shape), text, score in list(zip(boards, texts, expected))[::7]:
            found = lex.words(text)
            assert sum(f.points for f in found) == score == lex.score(text), (fmt, text)
            assert {f.word for f in found} == reference.found(faces, shape.rows, shape.cols)
            board = parse_board(text)
            for f in found:
                assert board.spell(f.path) == f.word and len(set(f.path)) == len(f.path)
                assert f.points == points(len(f.word))
                for a, b in zip(f.path, f.path[1:]):
                    assert abs(a // shape.cols - b // shape.cols) <= 1 and abs(a % shape.cols - b % shape.cols) <= 1


def test_small_random_lexicons(make_lexicon):
    rng = random.Random(2024)
    for letters, charset in (("abc", "ABC"), ("aest", "AEST"), ("aeinrstq", "AEINRSTQU")):
        words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 7))) for _ in range(300)}
        words = {w.replace("q", "qu") for w in words}
        directory = make_lexicon(sorted(words), charset)
        reference = Reference(words)
        boards = []
        for shape in SIZES:
            for _ in range(12 if shape.cells <= 25 else 3):
                boards.append((random_faces(rng, shape, letters), shape))
        check_lexicon(directory, reference, boards, letters)


@pytest.mark.slow
def test_real_lexicon_every_size(built):
    rng = random.Random(99)
    reference = Reference.from_file(word_list_path("twl06"))
    boards = [(random_faces(rng, shape), shape) for shape in SIZES
              for _ in range(40 if shape.cells <= 16 else 15 if shape.cells <= 36 else 4)]
    check_lexicon(built("twl06", "26"), reference, boards, COMMON)


@pytest.mark.slow
def test_two_letter_faces_and_blanks(built):
    rng = random.Random(5)
    reference = Reference.from_file(word_list_path("twl06"))
    boards = [(random_faces(rng, shape, extras=("th", "in", "er", "he", "an", "")), shape)
              for shape in (Shape(4, 4), Shape(5, 5), Shape(6, 6)) for _ in range(25)]
    check_lexicon(built("twl06", "26"), reference, boards, COMMON)


@pytest.mark.slow
def test_dice_boards_agree_across_formats_and_jobs(built):
    boards = shared_path("bench", "dice5x5-10k.txt").read_text().split()[:3000]
    lexicons = [open_lexicon(built("twl06", "26"), fmt) for fmt in FORMATS]
    results = [lex.score_many(boards, jobs=jobs) for lex in lexicons for jobs in (1, 2)]
    for r in results[1:]:
        assert np.array_equal(r, results[0])
    sample = boards[:: 300]
    assert [lexicons[0].score(b) for b in sample] == results[0][::300].tolist()


@pytest.mark.slow
def test_reference_adtdawg_agrees_with_our_files(built):
    boards = shared_path("reference", "jpa14", "random10k.txt").read_text().split()[:3000]
    ref = open_lexicon(shared_path("reference", "jpa14"))
    expected = ref.score_many(boards)
    for fmt in FORMATS:
        assert np.array_equal(open_lexicon(built("twl06", "14"), fmt).score_many(boards, jobs=2), expected)
    # the full-alphabet lexicon gives the same scores: these boards only hold JPA14 letters
    assert np.array_equal(open_lexicon(built("twl06", "26")).score_many(boards), expected)
    reference = Reference.from_file(shared_path("reference", "jpa14", "Lexicon_14.txt"))
    for text, score in list(zip(boards, expected))[:40]:
        assert reference.score(list(text), 5, 5) == score


def test_foreign_letters(built):
    lex = open_lexicon(built("twl06", "14"))
    with pytest.raises(DawgError, match="'B' uses a letter outside the lexicon's charset"):
        lex.score("bats")
    # with skip_foreign the cell is dead, as if blank
    assert lex.score("bats", skip_foreign=True) == lex.score(".ats")
    assert lex.score_many(["bats"], skip_foreign=True).tolist() == [lex.score(".ats")]


@pytest.mark.parametrize("text, message", [
    ("abc", "3 cells is not square"),
    ("abc1", "'1' is not a cell"),
    ("ab/cde", "rows have different lengths"),
    ("abcdefghiabcdefghiabcdefghiabcdefghiabcdefghiabcdefghiabcdefghiabcdefghia", "not square"),
    ("a" * 81, "outside 1x1 .. 8x8"),
    ("(qa)bcd", "'q' is written alone"),
    ("", "empty"),
])
def test_bad_boards(text, message):
    with pytest.raises(DawgError, match="board") as err:
        parse_board(text)
    assert message in str(err.value)
