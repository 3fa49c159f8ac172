"""The warm server's API through Starlette's test client: every endpoint agrees with the library,
in English and in other languages (German and Russian lexicons of the shared Tanglet data, with
their dice), and every bad request gets its 4xx with a JSON error (never a 500); `dawg-solve
serve` itself starts, answers and stops cleanly on SIGTERM."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.server.app import create_app
from boggle_dawg.server.served import Limits, close_served, open_served, warm_board
from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.charset import ENGLISH_CHARSET
from boggle_dawg.solver.dice_sets import builtin_dice_names, load_dice, roll
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, shared_path

WORDS = ["tea", "eat", "ate", "tee", "teas", "seat", "east", "eats", "sate", "quest", "quiet", "quite", "suite",
         "tees", "teat", "state", "taste", "tests", "test", "set", "sea"]
BOARD = "qaiu/test/abcd/efgh"
DENSE = "seat/tase/quit/eats"


@pytest.fixture
def served(make_lexicon):
    lexicons = open_served([make_lexicon(WORDS), make_lexicon(["cat", "cats", "scat", "act", "acts"], "14")],
                           None, jobs=1)
    yield lexicons
    close_served(lexicons)


@pytest.fixture
def client(served):
    return TestClient(create_app(served, Limits(body_bytes=4096, cells=25, batch=5, words=4)))


def error(response, status: int, *fragments: str) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error"} and body["error"], body
    for fragment in fragments:
        assert fragment in body["error"], (fragment, body["error"])
    return body["error"]


def test_lexicons_describes_what_is_served(client, served):
    body = client.get("/api/lexicons").json()
    names = list(served)
    assert body["default"] == names[0] and [lex["name"] for lex in body["lexicons"]] == names
    first = body["lexicons"][0]
    lex = served[names[0]].lexicon
    assert (first["format"], first["words"], first["charset"], first["min_length"]) == \
        (lex.format, len(WORDS), lex.charset.letters.upper(), 3)
    assert body["lexicons"][1]["charset"] == "ACDEGILMNOPRST"
    assert first["language"] == {"name": "en", "title": "English"} and first["default_dice"] == "classic"
    assert [d["name"] for d in first["dice"]] == builtin_dice_names()
    assert [(d["size"], d["dice"]) for d in first["dice"] if d["name"] == "big"] == [("5x5", 25)]
    assert body["lexicons"][1]["dice"] == [] and body["lexicons"][1]["default_dice"] is None  # no set fits 14 letters
    assert body["limits"] == {"body_bytes": 4096, "cells": 25, "batch": 5, "words": 4}


@pytest.mark.parametrize("board, size", [(BOARD, None), (DENSE, None), ("seatquite", None), ("seatqu", "2x3")])
def test_solve_agrees_with_the_library(client, served, board, size):
    lex = served[next(iter(served))].lexicon
    shape = tuple(map(int, size.split("x"))) if size else None
    body = client.post("/api/solve", json={"board": board, **({"size": size} if size else {})}).json()
    expected = lex.words(board, shape=shape)
    assert body["score"] == lex.score(board, shape=shape) == sum(f.points for f in expected)
    assert body["words"] == [{"word": f.word, "points": f.points, "path": list(f.path)} for f in expected]
    assert body["word_count"] == len(expected)
    cells = body["board"]["cells"]
    for found in body["words"]:  # every path spells its word over adjacent cells, none twice
        assert "".join(cells[c] for c in found["path"]).lower() == found["word"]
        assert len(set(found["path"])) == len(found["path"])
        for a, b in zip(found["path"], found["path"][1:]):
            assert max(abs(a // body["board"]["cols"] - b // body["board"]["cols"]),
                       abs(a % body["board"]["cols"] - b % body["board"]["cols"])) == 1


@pytest.mark.parametrize("fmt", ["trie", "dawg", "adtdawg"])
def test_the_compiled_walk_agrees_with_the_library(make_lexicon, fmt):
    """The server lists a board's words with the compiled walk (`engine.solve_one(compiled=True)`): the same
    words, points and paths as `Lexicon.words`, on every format, Qu and two-letter faces included."""
    lexicons = open_served([make_lexicon(WORDS)], fmt, jobs=1)
    try:
        one = next(iter(lexicons.values()))
        assert one.lexicon.format == fmt
        for text in [BOARD, DENSE, "seatquite", "seat/(th)e.s/quit", *(b.notation for b in roll(load_dice("big"), None, 3, 5))]:
            board = parse_board(text)
            assert one.words(board) == one.lexicon.words(board), text
        assert one.words(parse_board("seatxyz.."), skip_foreign=True) == one.lexicon.words("seatxyz..", skip_foreign=True)
    finally:
        close_served(lexicons)


def test_solve_by_lexicon_name_and_skip_foreign(client, served):
    name = list(served)[1]
    error(client.post("/api/solve", json={"board": "catsxxxxx", "lexicon": name}), 400, "skip_foreign")
    body = client.post("/api/solve", json={"board": "catsxxxxx", "lexicon": name, "skip_foreign": True}).json()
    assert body["lexicon"] == name and body["board"]["board"] == "cats....."
    assert body["score"] == served[name].lexicon.score("cats.....") > 0


def test_score_a_batch_agrees_with_the_library(client, served):
    lex = served[next(iter(served))].lexicon
    boards = [BOARD, DENSE, "seatquite", "tea/eat"]
    body = client.post("/api/score", json={"boards": boards}).json()
    assert body["scores"] == [lex.score(b) for b in boards]
    assert client.post("/api/score", json={"boards": ["seatqu"], "size": "3x2"}).json()["scores"] == \
        [lex.score("seatqu", shape=(3, 2))]
    assert client.post("/api/score", json={"boards": []}).json()["scores"] == []


def test_lookup_and_words_agree_with_the_library(client, served):
    lex = served[next(iter(served))].lexicon
    body = client.get("/api/lookup", params={"word": ["tees", "Quest", "tex", "teasx"]}).json()
    assert [(w["word"], w["found"], w["prefixes"]) for w in body["words"]] == \
        [(w, w in lex, lex.prefixes(w)) for w in ["tees", "Quest", "tex", "teasx"]]
    assert body["words"][0]["number"] == lex.key_id("tees") and body["words"][2]["number"] is None
    body = client.get("/api/words", params={"prefix": "te", "limit": 3}).json()
    assert body["words"] == list(lex.keys("te"))[:3] and body["more"] is True
    body = client.get("/api/words", params={"prefix": "sea"}).json()
    assert body["words"] == list(lex.keys("sea")) and body["more"] is False
    body = client.get("/api/words", params={"prefix": "zz"}).json()
    assert body["words"] == [] and body["more"] is False


def test_roll_is_the_library_roll(client):
    body = client.get("/api/roll", params={"dice": "big", "seed": 13, "count": 2}).json()
    expected = [b.notation for b in roll(load_dice("big"), None, 13, 2)]
    assert body["dice"] == "big" and body["seed"] == 13 and [b["board"] for b in body["boards"]] == expected
    assert body["boards"][0]["size"] == "5x5" and len(body["boards"][0]["cells"]) == 25
    assert client.get("/api/roll", params={"size": "4x4", "seed": 1}).json()["dice"] == "classic"
    fresh = client.get("/api/roll").json()
    assert fresh["seed"] >= 0 and fresh["boards"][0]["board"] == next(roll(load_dice("classic"), None, fresh["seed"])).notation


def test_round_judges_words_and_sums_up(client, served):
    lex = served[next(iter(served))].lexicon
    words = ["test", "TEST ", "te", "t3st", "tesc"]
    body = client.post("/api/round", json={"board": BOARD, "words": words}).json()
    assert [v["verdict"] for v in body["verdicts"]] == \
        ["accepted", "repeated", "too_short", "not_letters", "not_in_dictionary"]
    assert [v["verdict"] for v in client.post("/api/round", json={"board": BOARD, "words": ["zzz", "tets"]}).json()[
        "verdicts"]] == ["not_on_board", "not_on_board"]
    assert body["verdicts"][0]["points"] == 1 and body["score"] == 1 and body["summary"] is None
    body = client.post("/api/round", json={"board": BOARD, "words": words, "finished": True}).json()
    summary = body["summary"]
    answers = {f.word: f for f in lex.words(BOARD)}
    assert summary["maximum"] == lex.score(BOARD) and summary["word_count"] == len(answers)
    assert summary["found"] == [{"word": "test", "points": 1, "path": list(answers["test"].path)}]
    missed = sorted((w for w in answers if w != "test"), key=lambda w: (-answers[w].points, w))
    assert [m["word"] for m in summary["missed"]] == missed
    assert all(m["path"] == list(answers[m["word"]].path) for m in summary["missed"])
    longer = client.post("/api/round", json={"board": BOARD, "words": ["test", "quest"], "min_length": 5,
                                            "finished": True}).json()
    assert [v["verdict"] for v in longer["verdicts"]] == ["too_short", "accepted"]


def test_game_page_and_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200, asset
    assert "http" not in re.sub(r"<!--.*?-->", "", page.text)  # every asset is ours: no CDN
    schema = client.get("/openapi.json").json()
    assert set(schema["paths"]) == {f"/api/{name}" for name in ("lexicons", "solve", "score", "lookup", "words",
                                                                "roll", "round")}
    for path, methods in schema["paths"].items():  # every answer is documented by its model
        for operation in methods.values():
            assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("Out"), path
    assert client.get("/docs").status_code == 404  # Swagger UI would load from a CDN


# --- languages -----------------------------------------------------------------------------------

GERMAN_SAMPLE = 40  # every 40th line of Tanglet's German list (and of the Russian one, below), plus the words named
RUSSIAN_SAMPLE = 8
STRASSE = "stra/bess/nnnn/nnnn"  # strasse along a snake: s t r a, then s s e back along the second row
ELKA = "елка/мост/рука/сила"


def tanglet_sample(out: Path, language: str, every: int, wanted: set[str], input_format: str, lenient: bool) -> Path:
    """A lexicon of every `every`th line of a Tanglet list, and the lines whose game form is `wanted`."""
    with gzip.open(shared_path("lexicons", "tanglet", language, "words"), "rt", encoding="utf-8") as fh:
        lines = [line for number, line in enumerate(fh.read().splitlines())
                 if number % every == 0 or line.split()[0] in wanted]
    source = out.with_suffix(".txt")
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lang = load_language(language)
    return build_lexicon(source, lang.charset(), out, options=ListOptions(lang, input_format, lenient)).out_dir


@pytest.fixture(scope="module")
def languages(tmp_path_factory):
    """German, Russian, Polish (a few words: its 'Q' is a plain letter) and English lexicons served together,
    with the Tanglet dice of the first three."""
    root = tmp_path_factory.mktemp("languages")
    de = tanglet_sample(root / "de", "de", GERMAN_SAMPLE, {"STRASSE"}, "tanglet", False)
    ru = tanglet_sample(root / "ru", "ru", RUSSIAN_SAMPLE, {"ЕЛКА", "МОСТ", "РУКА", "СИЛА"}, "plain", True)
    polish = load_language("pl")
    (root / "pl.txt").write_text("quiz\nłąka\nżaba\nźle\nqui\n", encoding="utf-8")
    pl = build_lexicon(root / "pl.txt", polish.charset(), root / "pl", options=ListOptions(polish)).out_dir
    (root / "en.txt").write_text("\n".join(WORDS) + "\n")
    en = build_lexicon(root / "en.txt", ENGLISH_CHARSET, root / "en").out_dir
    dice = {name: shared_path("lexicons", "tanglet", name, "dice") for name in ("de", "ru", "pl")}
    lexicons = open_served([de, ru, pl, en], None, jobs=1, dice_files=list(dice.values()))
    yield lexicons, dice
    close_served(lexicons)


@pytest.fixture(scope="module")
def world(languages):
    return TestClient(create_app(languages[0]))


def test_each_lexicon_lists_its_language_and_the_dice_that_fit(world, languages):
    served, dice = languages
    body = {lex["name"]: lex for lex in world.get("/api/lexicons").json()["lexicons"]}
    assert list(body) == ["de", "ru", "pl", "en"]
    assert body["de"]["language"] == {"name": "de", "title": "Deutsch"}
    assert body["ru"]["language"] == {"name": "ru", "title": "Русский"}
    assert body["ru"]["charset"] == "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
    every = [*((name, name) for name in builtin_dice_names()), *((name, str(path)) for name, path in dice.items())]
    for name, lex in body.items():
        charset = served[name].lexicon.charset
        expected = []
        for dice_name, spec in every:
            for shape in (Shape(4, 4), Shape(5, 5), Shape(6, 6)):  # the sets of each file, read with the lexicon's letters
                with contextlib.suppress(DawgError):
                    faces = {face for die in load_dice(spec, charset, shape).dice for face in die}
                    if len(load_dice(spec, charset, shape).dice) == shape.cells and \
                            set("".join(faces)) <= set(charset.letters):
                        expected.append((dice_name, str(shape)))
        assert [(d["name"], d["size"]) for d in lex["dice"]] == expected, name
    assert [(d["name"], d["size"]) for d in body["ru"]["dice"]] == [("ru", "4x4"), ("ru", "5x5")]
    assert "ru" not in {d["name"] for d in body["en"]["dice"]} and "de" in {d["name"] for d in body["en"]["dice"]}
    assert {name: lex["default_dice"] for name, lex in body.items()} == {"de": "de", "ru": "ru", "pl": "pl",
                                                                         "en": "classic"}


@pytest.mark.parametrize("language, size", [("de", "5x5"), ("ru", "4x4"), ("pl", "4x4")])
def test_rolls_read_the_faces_with_the_lexicons_letters(world, languages, language, size):
    served, dice = languages
    lex = served[language].lexicon
    shape = Shape(*map(int, size.split("x")))
    body = world.get("/api/roll", params={"lexicon": language, "dice": language, "size": size, "seed": 5,
                                          "count": 4}).json()
    expected = list(roll(load_dice(str(dice[language]), lex.charset, shape), shape, 5, 4))
    assert (body["lexicon"], body["dice"]) == (language, language)
    assert [b["board"] for b in body["boards"]] == [b.notation for b in expected]
    assert [b["faces"] for b in body["boards"]] == [list(b.faces) for b in expected]
    assert [b["cells"] for b in body["boards"]] == [[lex.charset.display(lex.charset.symbol_of(f)) for f in b.faces]
                                                    for b in expected]
    assert world.get("/api/roll", params={"lexicon": language, "size": size, "seed": 5}).json()["dice"] == language
    faces = {face for die in load_dice(str(dice[language]), lex.charset, shape).dice for face in die}
    if language == "pl":  # Polish has no Qu: its Q is a plain letter, shown as Q
        assert "q" in faces and "qu" not in faces
    if language == "de":
        assert "qu" in faces


def test_solve_score_lookup_and_round_in_each_language(world, languages):
    served, _ = languages
    for language, board, typed, judged in [("de", STRASSE, "Straße", "strasse"), ("ru", ELKA, "Ёлка", "елка")]:
        lex = served[language].lexicon
        boards = [board, *(b["board"] for b in world.get("/api/roll", params={"lexicon": language, "seed": 3,
                                                                             "count": 3}).json()["boards"])]
        for text in boards:
            body = world.post("/api/solve", json={"board": text, "lexicon": language}).json()
            expected = lex.words(text)
            assert body["score"] == lex.score(text) == sum(f.points for f in expected)
            assert body["words"] == [{"word": f.word, "points": f.points, "path": list(f.path)} for f in expected]
            for found in body["words"]:
                assert "".join(body["board"]["faces"][c] for c in found["path"]) == found["word"]
        assert max(lex.score(text) for text in boards[1:]) > 0, language  # the rolls find words
        assert world.post("/api/score", json={"boards": boards, "lexicon": language}).json()["scores"] == \
            lex.score_many(boards).tolist()
        looked = world.get("/api/lookup", params={"lexicon": language, "word": [typed, typed.upper(), "zzzz"]}).json()
        assert [(w["found"], w["number"]) for w in looked["words"]] == \
            [(True, lex.key_id(typed)), (True, lex.key_id(typed)), (False, None)]
        assert looked["words"][0]["prefixes"] == lex.prefixes(typed) and judged in looked["words"][0]["prefixes"]
        round_ = world.post("/api/round", json={"board": board, "lexicon": language, "words": [typed, judged],
                                                "finished": True}).json()
        assert [(v["word"], v["verdict"]) for v in round_["verdicts"]] == [(judged, "accepted"), (judged, "repeated")]
        assert round_["summary"]["maximum"] == lex.score(board)
    ru = served["ru"].lexicon  # a letter the language folds to one letter reads as it: Ё is Е
    assert world.post("/api/solve", json={"board": "ёлка/мост/рука/сила", "lexicon": "ru"}).json()["board"]["board"] \
        == ru.board(ELKA).notation
    german = world.post("/api/solve", json={"board": STRASSE, "lexicon": "de"}).json()["board"]
    assert german["cells"][:4] == ["S", "T", "R", "A"]


def test_foreign_letters_and_dice_are_refused_per_lexicon(world):
    error(world.post("/api/solve", json={"board": "елка/Qост/рука/сила", "lexicon": "ru"}), 400, "cell 2,1 'Q'")
    error(world.post("/api/solve", json={"board": "stra/жess/nnnn/nnnn", "lexicon": "de"}), 400, "cell 2,1 'Ж'")
    error(world.post("/api/score", json={"boards": [ELKA, "елка/zост/рука/сила"], "lexicon": "ru"}), 400, "boards[1]",
          "cell 2,1 'Z'")
    # German folds ł to l, a letter of its own: Ł reads as L, but Ą (which German folds to nothing) is foreign
    error(world.post("/api/round", json={"board": "łąka/" * 3 + "łąkq", "lexicon": "de", "words": []}), 400,
          "cell 1,2 'Ą'")
    error(world.get("/api/roll", params={"lexicon": "en", "dice": "ru"}), 400, "dice ru", "lexicon en")
    error(world.get("/api/roll", params={"lexicon": "ru", "size": "6x6"}), 400, "no served dice set fits", "6x6")


def test_warm_up_boards_are_of_the_lexicons_own_words(languages):
    for one in languages[0].values():
        board = warm_board(one.lexicon)
        assert board.shape == Shape(5, 5) and not one.lexicon.charset.outside(
            "".join(one.lexicon.charset.symbol_of(f) for f in board.faces))
        assert one.words(board) == one.lexicon.words(board) != []


def test_dice_files_are_served_once_and_must_fit(languages, make_lexicon):
    _, dice = languages
    english = make_lexicon(WORDS)
    with pytest.raises(DawgError, match="fits none of the served lexicons"):
        open_served([english], None, jobs=1, dice_files=[dice["ru"]])
    with pytest.raises(DawgError, match="served as 'de'"):
        open_served([english], None, jobs=1, dice_files=[dice["de"], dice["de"]])


# --- errors --------------------------------------------------------------------------------------


def test_oversized_bodies_are_refused(client):
    error(client.post("/api/score", json={"boards": ["a" * 25] * 200}), 413, "4096 bytes")
    chunked = (b"x" * 1024 for _ in range(8))  # no Content-Length: counted as it arrives
    error(client.post("/api/solve", content=chunked, headers={"content-type": "application/json"}), 413)


def test_limits_on_cells_batches_and_word_lists(client):
    error(client.post("/api/solve", json={"board": "a" * 36}), 400, "36 cells", "limit of 25")
    error(client.post("/api/round", json={"board": "a" * 36, "words": []}), 400, "36 cells")
    error(client.post("/api/score", json={"boards": ["tea/eat", "a" * 36]}), 400, "boards[1]", "36 cells")
    error(client.post("/api/score", json={"boards": ["abcd"] * 6}), 400, "boards: 6", "limit of 5")
    error(client.get("/api/words", params={"prefix": "t", "limit": 5}), 400, "limit: 5", "limit of 4")
    error(client.get("/api/lookup", params={"word": ["tea"] * 6}), 400, "words: 6")
    error(client.get("/api/roll", params={"count": 6}), 400, "count: 6")
    error(client.get("/api/roll", params={"dice": "super-big"}), 400, "super-big", "36 cells")


def test_bad_json_and_wrong_types(client):
    headers = {"content-type": "application/json"}
    error(client.post("/api/solve", content=b'{"board": ', headers=headers), 400, "malformed JSON")
    error(client.post("/api/solve", content=b"\xff\xfe", headers=headers), 400, "malformed JSON")
    error(client.post("/api/solve", json=["abcd"]), 422)
    error(client.post("/api/solve", json={}), 422, "board")
    error(client.post("/api/solve", json={"board": 1234}), 422, "board", "string")
    error(client.post("/api/solve", json={"board": "abcd", "skip_foreign": "yes"}), 422, "skip_foreign")
    error(client.post("/api/solve", json={"board": "abcd", "boardd": "x"}), 422, "boardd")
    error(client.post("/api/score", json={"boards": ["abcd", 5]}), 422, "boards.1")
    error(client.post("/api/round", json={"board": "abcd", "words": [], "min_length": 2}), 422, "min_length")
    error(client.get("/api/words", params={"limit": "many"}), 422, "limit")
    error(client.get("/api/roll", params={"seed": -1}), 422, "seed")
    error(client.get("/api/lookup"), 422, "word")
    error(client.get("/api/nothing"), 404)
    error(client.put("/api/solve"), 405)


def test_bad_boards_and_values(client):
    error(client.post("/api/solve", json={"board": "ab1d"}), 400, "'1' is not a cell")
    error(client.post("/api/solve", json={"board": "abc"}), 400, "not square")
    error(client.post("/api/solve", json={"board": "abcd", "size": "4x"}), 400, "size")
    error(client.post("/api/score", json={"boards": ["abcd", "ab!d"]}), 400, "boards[1]", "'!'")
    error(client.get("/api/roll", params={"dice": "big", "size": "4x4"}), 400, "25 dice")


@pytest.mark.parametrize("name", ["../etc/passwd", "/etc/passwd", "nosuch", "", "."])
def test_no_request_names_a_file(client, name, tmp_path):
    error(client.post("/api/solve", json={"board": "abcd", "lexicon": name}), 400, "not served here")
    error(client.get("/api/words", params={"lexicon": name}), 400, "not served here")
    error(client.get("/api/roll", params={"dice": name}), 400, "not served here")
    dice_file = tmp_path / "mine.txt"
    dice_file.write_text("A B C D E F\n" * 16)
    error(client.get("/api/roll", params={"dice": str(dice_file)}), 400, "not served here")


def test_cors_only_when_asked(served):
    asked = {"Origin": "http://game.example", "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "content-type"}
    closed = TestClient(create_app(served))
    assert "access-control-allow-origin" not in closed.get("/api/lexicons", headers=asked).headers
    assert "access-control-allow-origin" not in closed.options("/api/solve", headers=asked).headers
    opened = TestClient(create_app(served, allow_origins=("http://game.example",)))
    assert opened.get("/api/lexicons", headers=asked).headers["access-control-allow-origin"] == "http://game.example"
    assert opened.options("/api/solve", headers=asked).status_code == 200
    other = {**asked, "Origin": "http://elsewhere.example"}
    assert "access-control-allow-origin" not in opened.get("/api/lexicons", headers=other).headers


def test_a_bug_is_a_json_500_too(served, monkeypatch):
    app = create_app(served)
    monkeypatch.setattr(next(iter(served.values())), "words", lambda *args, **kwargs: 1 / 0)
    error(TestClient(app, raise_server_exceptions=False).post("/api/solve", json={"board": "abcd"}), 500, "internal")


def test_limits_must_be_positive():
    with pytest.raises(Exception, match="limit cells"):
        Limits(cells=0)


# --- the command ------------------------------------------------------------------------------


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    """`dawg-solve serve ARGS --port 0` in a subprocess, and its base URL once it listens."""
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "serve", *args, "--port", "0"],
                            cwd=REPO, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = []
    for line in proc.stderr:
        lines.append(line)
        found = re.search(r"at (http://\S+/) ", line)
        if found:
            return proc, found[1].rstrip("/")
    proc.wait(10)
    raise AssertionError(f"the server did not start: {''.join(lines)}")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_serve_answers_and_stops_cleanly(make_lexicon, stop):
    """SIGTERM (a service manager) and Ctrl-C (SIGINT) both end a server normally: status 0, no traceback."""
    build = make_lexicon(WORDS)
    proc, url = start_server(str(build))
    try:
        body = httpx2.post(f"{url}/api/solve", json={"board": BOARD}, timeout=10).json()
        assert body["lexicon"] == build.name and body["score"] == open_lexicon(build).score(BOARD)
        started = time.monotonic()
        proc.send_signal(stop)
        assert proc.wait(10) == 0
        assert time.monotonic() - started < 5
        rest = proc.stderr.read()
        assert "Traceback" not in rest and "stopped" in rest
    finally:
        proc.kill()
        proc.wait()


def test_serve_refuses_bad_start_up_in_one_line(make_lexicon, tmp_path):
    build = make_lexicon(WORDS)
    same = tmp_path / "again" / build.name
    same.parent.mkdir()
    same.symlink_to(build)
    for args, fragment in [([str(build), str(same)], "two lexicons"), ([str(tmp_path / "none")], "no such"),
                           ([str(build), "--max-cells", "0"], "--max-cells"),
                           ([str(build), "--dice", str(tmp_path / "none")], "no such file")]:
        run = subprocess.run([sys.executable, "-m", "boggle_dawg.dawg_solve", "serve", *args], cwd=REPO,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode in (1, 2) and fragment in run.stderr and "Traceback" not in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_serve_keeps_the_web_framework_off_other_commands():
    """Only the serve command imports FastAPI and uvicorn: `dawg-solve --help` lists it without them."""
    code = ("import sys; from boggle_dawg.solve_cli import full_app; full_app(); "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette', 'uvicorn'))))")
    run = subprocess.run([sys.executable, "-c", "import json; " + code], cwd=REPO, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []
