"""Scores agree with an independent brute-force reference: every format, both engines, any --jobs."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.board import BoardError, Shape, encode, encode_texts, parse_board
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.walk_kernels import NO_LETTER

from bruteforce import Card, Reference, word_points
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


ENGINES = ["python", "batch-1", "batch-2"]  # CPython one board at a time; the compiled batch on 1 and 2 threads
SMALL = [("abc", "ABC"), ("aest", "AEST"), ("aeinrstq", "AEINRSTQU")]


@dataclass
class Case:
    """A lexicon, its brute-force reference and random boards (as faces and as notation)."""

    directory: Path
    reference: Reference
    boards: list[tuple[list[str], Shape]]

    @cached_property
    def texts(self) -> list[str]:
        return [notation(f, s) for f, s in self.boards]

    @cached_property
    def expected(self) -> list[int]:
        return [self.reference.score(f, s.rows, s.cols) for f, s in self.boards]


def small_case(tmp_path_factory, letters: str, charset: str) -> Case:
    rng = random.Random(f"2024-{letters}")
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 7))) for _ in range(300)}
    words = sorted(w.replace("q", "qu") for w in words)
    out = tmp_path_factory.mktemp(f"small-{letters}")
    (out / "words.txt").write_text("\n".join(words) + "\n")
    build_lexicon(out / "words.txt", parse_charset(charset), out / "build")
    boards = [(random_faces(rng, shape, letters), shape) for shape in SIZES
              for _ in range(12 if shape.cells <= 25 else 3)]
    return Case(out / "build", Reference(words), boards)


@pytest.fixture(scope="module")
def cases(tmp_path_factory, built):
    """name -> Case, made on first use."""
    made: dict[str, Case] = {}

    def get(name: str) -> Case:
        if name not in made:
            if name.startswith("small-"):
                letters, charset = SMALL[int(name[-1])]
                made[name] = small_case(tmp_path_factory, letters, charset)
            elif name == "twl06-every-size":
                rng = random.Random(99)
                made[name] = Case(built("twl06", "26"), Reference.from_file(word_list_path("twl06")),
                                  [(random_faces(rng, shape), shape) for shape in SIZES
                                   for _ in range(40 if shape.cells <= 16 else 15 if shape.cells <= 36 else 4)])
            else:  # two-letter faces and blanks
                rng = random.Random(5)
                made[name] = Case(built("twl06", "26"), Reference.from_file(word_list_path("twl06")),
                                  [(random_faces(rng, shape, extras=("th", "in", "er", "he", "an", "")), shape)
                                   for shape in (Shape(4, 4), Shape(5, 5), Shape(6, 6)) for _ in range(25)])
        return made[name]

    return get


CASES = [*(f"small-{i}" for i in range(len(SMALL))),
         pytest.param("twl06-every-size", marks=pytest.mark.slow),
         pytest.param("twl06-two-letter-faces", marks=pytest.mark.slow)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_scores_agree_with_brute_force(cases, case, fmt, engine):
    """Every format and engine scores random boards (1x1 to 8x8, Qu, two-letter faces, blanks)
    exactly as the independent reference does. The CPython engine takes every 7th board."""
    case = cases(case)
    lex = open_lexicon(case.directory, fmt)
    if engine == "python":
        texts, expected = case.texts[::7], case.expected[::7]
        got = [lex.score(t) for t in texts]
    else:
        texts, expected = case.texts, case.expected
        got = lex.score_many(texts, jobs=int(engine[-1])).tolist()
    assert got == expected, [t for t, g, e in zip(texts, got, expected) if g != e][:3]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_words_and_paths_agree_with_brute_force(cases, case, fmt):
    """The words found, their points and their paths (cells adjacent, each used once)."""
    case = cases(case)
    lex = open_lexicon(case.directory, fmt)
    for (faces, shape), text, score in list(zip(case.boards, case.texts, case.expected))[::7]:
        found = lex.words(text)
        assert sum(f.points for f in found) == score
        assert {f.word for f in found} == case.reference.found(faces, shape.rows, shape.cols)
        assert lex.score_and_count(text) == (score, len(found))
        board = parse_board(text)
        for f in found:
            assert board.spell(f.path) == f.word and len(set(f.path)) == len(f.path)
            assert f.points == word_points(f.word)
            for a, b in zip(f.path, f.path[1:]):
                assert abs(a // shape.cols - b // shape.cols) <= 1 and abs(a % shape.cols - b % shape.cols) <= 1


def random_rules(rng: random.Random, tmp_path: Path, number: int) -> tuple[Path, Card]:
    """A rules file of a random card, minimum and tile count, and the same rules as the reference writes them."""
    card = {length: rng.randint(0, 20) for length in rng.sample(range(1, 12), rng.randint(1, 5))}
    min_length = rng.randint(1, 7)
    one = rng.random() < 0.5
    path = tmp_path / f"rules{number}.toml"
    path.write_text(f'name = "random{number}"\ntitle = "Random"\nmin_length = {min_length}\n'
                    f'points = {{ {", ".join(f"{k} = {v}" for k, v in card.items())} }}\n'
                    f'tiles_count = "{"one" if one else "letters"}"\n')
    return path, Card(min_length, card, ("qu",) if one else ())


@pytest.mark.parametrize("case", [*(f"small-{i}" for i in range(len(SMALL))),
                                  pytest.param("twl06-two-letter-faces", marks=pytest.mark.slow)])
def test_every_format_and_engine_agrees_with_brute_force_under_random_rules(cases, case, tmp_path):
    """Random cards, minima and tile counts, from rules files: scores (CPython, compiled on 1 and 2
    threads), words, points and counts as the reference finds them."""
    case = cases(case)
    rng = random.Random(f"rules-{case}")
    lexicons = [open_lexicon(case.directory, fmt) for fmt in FORMATS]
    sample = list(zip(case.boards, case.texts))[::5]
    for number in range(6):
        path, card = random_rules(rng, tmp_path, number)
        expected = [case.reference.found_under(card, faces, shape.rows, shape.cols) for (faces, shape), _ in sample]
        scores = [sum(found.values()) for found in expected]
        texts = [text for _, text in sample]
        for lex in lexicons:
            for jobs in (1, 2):
                assert lex.score_many(texts, jobs=jobs, rules=str(path)).tolist() == scores, (lex.format, card)
            for text, found, score in list(zip(texts, expected, scores))[::3]:
                words = lex.words(text, rules=str(path))
                assert {f.word: f.points for f in words} == found, (lex.format, card, text)
                assert lex.score_and_count(text, rules=str(path)) == (score, len(found))


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


def test_a_file_of_plain_boards_encodes_as_each_board_alone(built):
    """Boards all of ASCII letters and one size are classified at once; the codes, the groups
    and the error naming a board with a foreign letter are those of the boards parsed one by one."""
    charset = open_lexicon(built("twl06", "14")).charset
    rng = random.Random(7)
    plain = ["".join(rng.choice("acdegilmnoprstACDE") for _ in range(25)) for _ in range(200)]
    each = encode([parse_board(text, None, charset) for text in plain], charset)
    (indices, codes), = encode_texts(plain, charset).values()
    assert indices.tolist() == list(range(200)) and np.array_equal(codes, each)
    mixed = plain[:3] + ["ACDE"] + plain[3:]  # another size: read one by one
    groups = encode_texts(mixed, charset)
    assert sorted(groups) == [Shape(2, 2), Shape(5, 5)] and groups[Shape(2, 2)][0].tolist() == [3]
    foreign = plain[:5] + ["b" + plain[5][1:]] + plain[6:]
    with pytest.raises(BoardError, match="cell 1,1 .B. uses a letter outside") as err:
        encode_texts(foreign, charset)
    assert err.value.index == 5
    skipped = encode_texts(foreign, charset, skip_foreign=True)[Shape(5, 5)][1]
    assert skipped[5, 0] == NO_LETTER and np.array_equal(np.delete(skipped, 5, 0), np.delete(codes, 5, 0))


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
