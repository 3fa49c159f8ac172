"""The warm server's API through Starlette's test client: every endpoint agrees with the library,
in English and in other languages (German and Russian lexicons of the shared Tanglet data, with
their dice), and every bad request gets its 4xx with a JSON error (never a 500); `dawg-solve
serve` itself starts, answers and stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from fastapi.testclient import TestClient

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.server.app import create_app
from boggle_dawg.server.served import Limits, Timeouts, close_served, open_served, warm_board
from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.charset import ENGLISH_CHARSET
from boggle_dawg.solver.dice_sets import builtin_dice_names, load_dice, roll
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, shared_path, sigint_default

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
    assert first["language"] == {"name": "en", "title": "English", "dictionary": "https://en.wiktionary.org/wiki/%s"}
    assert first["default_dice"] == "classic"
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
    assert body["words"] == [{"word": f.word, "shown": f.shown, "points": f.points, "path": list(f.path)} for f in expected]
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
    """The server lists a board's words with the compiled walk (`board_walk.solve_one(compiled=True)`): the same
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
    assert summary["found"] == [{"word": "test", "shown": "test", "points": 1, "path": list(answers["test"].path)}]
    missed = sorted((w for w in answers if w != "test"), key=lambda w: (-answers[w].points, w))
    assert [m["word"] for m in summary["missed"]] == missed
    assert all(m["path"] == list(answers[m["word"]].path) for m in summary["missed"])
    longer = client.post("/api/round", json={"board": BOARD, "words": ["test", "quest"], "min_length": 5,
                                            "finished": True}).json()
    assert [v["verdict"] for v in longer["verdicts"]] == ["too_short", "accepted"]


@pytest.mark.parametrize("rules", ["big", "words"])
def test_every_scoring_endpoint_takes_the_rules(client, served, rules):
    """`rules` on solve, score and round: the same answers as the library under those rules, the rules in
    every answer, and the rule sets listed for the game's menu."""
    lex = next(iter(served.values())).lexicon
    found = {f.word: f.points for f in lex.words(BOARD, rules=rules)}
    solved = client.post("/api/solve", json={"board": BOARD, "rules": rules}).json()
    assert {w["word"]: w["points"] for w in solved["words"]} == found and solved["rules"]["name"] == rules
    assert solved["score"] == sum(found.values()) != lex.score(BOARD)
    scored = client.post("/api/score", json={"boards": [BOARD, BOARD[::-1]], "rules": rules}).json()
    assert scored["scores"] == lex.score_many([BOARD, BOARD[::-1]], rules=rules).tolist()
    assert client.post("/api/score", json={"boards": [BOARD]}).json()["scores"] == [lex.score(BOARD)]  # own rules
    short = next(f.word for f in lex.words(BOARD) if len(f.word) == 3)
    judged = client.post("/api/round", json={"board": BOARD, "rules": rules, "words": [short, "quest"],
                                             "finished": True}).json()
    assert judged["rules"]["name"] == rules and judged["summary"]["maximum"] == sum(found.values())
    assert [v["verdict"] for v in judged["verdicts"]] == ["too_short" if rules == "big" else "accepted", "accepted"]
    listed = client.get("/api/lexicons").json()
    assert [r["name"] for r in listed["rules"]] == ["big", "standard", "words"]
    assert {one["rules"] for one in listed["lexicons"]} == {"standard"}


def test_game_page_and_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200, asset
    assert "http" not in re.sub(r"<!--.*?-->", "", page.text)  # every asset is ours: no CDN
    schema = client.get("/openapi.json").json()
    assert set(schema["paths"]) == {f"/api/{name}" for name in (
        "lexicons", "solve", "score", "lookup", "words", "roll", "round", "rooms", "rooms/{code}",
        "rooms/{code}/players", "rooms/{code}/rounds", "rooms/{code}/rounds/{number}", "daily", "daily/results")}
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
    assert body["de"]["language"] == {"name": "de", "title": "Deutsch",
                                      "dictionary": "https://de.wiktionary.org/wiki/%s"}  # the language file's
    assert body["ru"]["language"] == {"name": "ru", "title": "Русский", "dictionary": "https://ru.wiktionary.org/wiki/%s"}
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
            assert body["words"] == [{"word": f.word, "shown": f.shown, "points": f.points, "path": list(f.path)}
                                     for f in expected]
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


def test_bad_json_and_wrong_types(client, served):
    headers = {"content-type": "application/json"}
    error(client.post("/api/solve", content=b'{"board": ', headers=headers), 400, "malformed JSON")
    error(client.post("/api/solve", content=b"\xff\xfe", headers=headers), 400, "malformed JSON")
    error(client.post("/api/solve", content=b'{"board": "ab\xffd"}', headers=headers), 400, "body: not UTF-8 (byte 13)")
    error(client.post("/api/solve", content=b"[" * 4000, headers=headers), 400, "malformed JSON: nested too deeply")
    roomy = TestClient(create_app(served, Limits(body_bytes=8192)))
    error(roomy.post("/api/solve", content=b'{"board": "abcd", "skip_foreign": ' + b"9" * 5000 + b"}", headers=headers),
          400, "malformed JSON: a number of more than 4,300 digits")
    error(client.post("/api/solve", content=b'{"board": "abcd"}', headers={"content-type": "application/x-www-form-urlencoded"}),
          422, "body: not JSON; send a JSON object with Content-Type: application/json")
    error(client.post("/api/solve", json=["abcd"]), 422)
    error(client.post("/api/solve", json={}), 422, "board")
    error(client.post("/api/solve", json={"board": 1234}), 422, "board", "string")
    error(client.post("/api/solve", json={"board": "abcd", "skip_foreign": "yes"}), 422, "skip_foreign")
    error(client.post("/api/solve", json={"board": "abcd", "boardd": "x"}), 422, "boardd")
    error(client.post("/api/score", json={"boards": ["abcd", 5]}), 422, "boards.1")
    error(client.post("/api/round", json={"board": "abcd", "words": [], "min_length": 0}), 422, "min_length")
    error(client.post("/api/solve", json={"board": "abcd", "rules": "../../etc/passwd"}), 400, "rules", "not served")
    error(client.post("/api/score", json={"boards": ["abcd"], "rules": 3}), 422, "rules")
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


def test_timeouts_must_be_positive_and_finite():
    for bad in (0, -1, float("inf"), float("nan")):
        with pytest.raises(DawgError, match="timeout body"):
            Timeouts(body=bad)


SURROGATES = [r"\ud800", r"\udbff", r"\udc00", r"\udfff"]  # JSON escapes of lone surrogates: valid JSON, no text
BODIES = {  # every text of every request body: each field is given a lone surrogate in turn
    "/api/solve": ({"board": BOARD}, ["board", "size", "lexicon"]),
    "/api/score": ({"boards": [BOARD, DENSE]}, ["boards.1", "size", "lexicon"]),
    "/api/round": ({"board": BOARD, "words": ["test", "tea"]}, ["board", "size", "lexicon", "words.1"]),
}


def json_with(body: dict, field: str, escape: str) -> bytes:
    """`body` as JSON text with `field` ('words.1': an item of a list) set to 'te' ESCAPE 'st', the escape as
    it is written (a lone surrogate cannot be held in a str that json.dumps would write)."""
    name, _, index = field.partition(".")
    value = [("te@st" if str(at) == index else item) for at, item in enumerate(body[name])] if index else "te@st"
    return json.dumps({**body, name: value}).replace("@", escape).encode()


@pytest.mark.parametrize("path", BODIES)
def test_lone_surrogates_are_a_400_naming_the_field(client, path):
    """A lone surrogate in any text of a body is a 400 naming the field (in a judged word it was a 500: an
    answer holding it cannot be written in UTF-8); a pair of them is a character like any other."""
    body, fields = BODIES[path]
    headers = {"content-type": "application/json"}
    for field in fields:
        for escape in SURROGATES:
            message = error(client.post(path, content=json_with(body, field, escape), headers=headers), 400,
                            f"{field}: lone surrogate U+{escape[2:].upper()} at character 2")
            assert "\\" not in message, message
    error(client.post(path, content=json_with(body, fields[0], r"\udc00\ud800"), headers=headers), 400, "lone")
    error(client.post(path, content=b'{"te\\ud800st": 1}', headers=headers), 400, "body")  # a field's name
    paired = client.post(path, content=json_with(body, fields[0], r"\ud83d\ude00"), headers=headers)
    error(paired, 400, "'\U0001f600'")  # not a letter of the lexicon: refused as any other foreign letter


def test_query_texts_cannot_carry_a_surrogate(client):
    """A query is percent-encoded UTF-8, and a surrogate's bytes (%ED%A0%80) are no UTF-8: Starlette reads
    them as U+FFFD, an ordinary letter the lexicon lacks."""
    body = client.get("/api/lookup?word=te%ED%A0%80").json()
    assert body["words"][0]["word"] == "te\ufffd\ufffd\ufffd" and body["words"][0]["found"] is False
    assert client.get("/api/words?prefix=%ED%A0%80").json()["words"] == []
    error(client.get("/api/roll?dice=%ED%A0%80"), 400, "not served here")
    error(client.get("/api/words?lexicon=%ED%A0%80"), 400, "not served here")


def test_every_code_point_through_every_endpoint():
    """The server fuzzer's quick share (benchmarks/fuzz_sweep.py --server runs the long one): 400 requests that
    between them carry every code point, lone surrogates included, through every text of every endpoint,
    each answered under 500 in JSON, with nothing in the server's log but uvicorn's malformed-HTTP warning."""
    run = subprocess.run([sys.executable, "benchmarks/fuzz_sweep.py", "--server", "400", "--no-write"], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "400 server cases, 0 failed" in run.stderr, run.stderr[-3000:]


def test_a_request_cut_off_by_shutdown_is_a_json_503(served):
    """A request whose task the stopping server cancels (its graceful time ran out, or a second Ctrl-C) is
    answered 503 in JSON and ends quietly, where uvicorn would log a traceback and answer a plain 500."""
    app = create_app(served)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/solve", "raw_path": b"/api/solve", "root_path": "", "query_string": b"",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000), "state": {}}
    sent = []

    async def receive():
        await asyncio.Event().wait()  # a body that never comes

    async def send(message):
        sent.append(message)

    async def cut_off() -> bool:
        task = asyncio.create_task(app(scope, receive, send))
        await asyncio.sleep(0.2)
        task.cancel()
        await task
        return task.cancelled()

    assert asyncio.run(cut_off()) is False
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 503
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    assert "stopping" in json.loads(sent[1]["body"])["error"]


# --- the command ------------------------------------------------------------------------------


# The servers the tests start keep their results database here, not in the user's data directory.
SERVE_ENV = {**os.environ, "PYTHONUNBUFFERED": "1",
             "BOGGLE_DAWG_DATA": os.environ.get("BOGGLE_DAWG_DATA") or str(Path(tempfile.gettempdir()) / "boggle-dawg-test-data")}


def start_server(*args: str, interrupt=sigint_default) -> tuple[subprocess.Popen, str]:
    """`dawg-solve serve ARGS --port 0` in a subprocess (SIGINT at its default unless `interrupt`, a
    `preexec_fn`, says otherwise: a suite run in the background has it ignored), and its base URL once it listens."""
    proc = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawg_solve", "serve", *args, "--port", "0"],
                            cwd=REPO, stderr=subprocess.PIPE, text=True, env=SERVE_ENV,
                            preexec_fn=interrupt)
    lines = []
    for line in proc.stderr:
        lines.append(line)
        found = re.search(r"at (http://\S+/) ", line)
        if found:
            return proc, found[1].rstrip("/")
    proc.wait(10)
    raise AssertionError(f"the server did not start: {''.join(lines)}")


def test_a_server_started_with_ctrl_c_ignored_keeps_ignoring_it(make_lexicon):
    """`nohup dawg-solve serve &`: SIGINT ignored at start stays ignored; SIGTERM still stops it."""
    proc, url = start_server(str(make_lexicon(WORDS)), interrupt=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        proc.send_signal(signal.SIGINT)
        time.sleep(2)
        assert proc.poll() is None
        assert httpx2.post(f"{url}/api/solve", json={"board": BOARD}, timeout=10).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.stderr.close()


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
                             capture_output=True, text=True, timeout=60, env=SERVE_ENV)
        assert run.returncode in (1, 2) and fragment in run.stderr and "Traceback" not in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_serve_refuses_bad_timeouts_in_one_line():
    for args, fragment in [(["--timeout-body", "0"], "--timeout-body: must be a number more than 0"),
                           (["--timeout-headers", "nan"], "--timeout-headers"),
                           (["--timeout-keep-alive", "1e9"], "at most 3600")]:
        run = subprocess.run([sys.executable, "-m", "boggle_dawg.dawg_solve", "serve", *args], cwd=REPO,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and fragment in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.parametrize("module", ["fastapi", "uvicorn"])
def test_serve_without_the_serve_extra_says_what_to_install(tmp_path, module):
    """Without the `serve` extra the command is one line saying what to install, status 1, and says it
    before opening (or compiling) any lexicon: here a missing one, which it never gets to."""
    code = (f"import sys; sys.modules[{module!r}] = None; "  # importing it fails as if it were not installed
            f"sys.argv = ['dawg-solve', 'serve', {str(tmp_path / 'none')!r}]; "
            "from boggle_dawg.dawg_solve import main; main()")
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert run.stderr.splitlines() == [f"dawg-solve: error: serve needs the `serve` extra, which is not installed "
                                       f"here (no module named '{module}'): pip install 'boggle-dawg[serve]'"]


def test_dice_that_are_not_regular_files_are_refused_as_such(make_lexicon, tmp_path):
    build = make_lexicon(WORDS)
    fifo = tmp_path / "dice"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo, tmp_path):
        with pytest.raises(DawgError, match=f"^--dice {re.escape(str(path))}: not a regular file"):
            open_served([build], None, jobs=1, dice_files=[path])


# --- slow and broken clients, and stopping under load, against a real server ------------------------

HEADERS_S, BODY_S, KEEP_ALIVE_S = 1.0, 2.0, 0.5  # the guarded server's timeouts
SLACK_S = 2.5  # a loaded machine's lateness, on top of a timeout


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A real `dawg-solve serve` with short timeouts: its address (host, port)."""
    root = tmp_path_factory.mktemp("guarded")
    (root / "words.txt").write_text("\n".join(WORDS) + "\n")
    build = build_lexicon(root / "words.txt", ENGLISH_CHARSET, root / "words").out_dir
    proc, url = start_server(str(build), "--timeout-headers", str(HEADERS_S), "--timeout-body", str(BODY_S),
                             "--timeout-keep-alive", str(KEEP_ALIVE_S))
    try:
        yield urlsplit(url).hostname, urlsplit(url).port
    finally:
        proc.terminate()
        rest = proc.communicate(timeout=30)[1]
        assert proc.returncode == 0 and "Traceback" not in rest, rest


def slow_client(address, first: bytes, dribble: bytes) -> tuple[float, bytes]:
    """Connect, send `first`, then `dribble` every 0.1 s until the server closes the connection (at most
    15 s): the seconds that took, and what the server sent."""
    with socket.create_connection(address, timeout=15) as sock:
        sock.settimeout(0.1)
        started, received = time.monotonic(), b""
        sock.sendall(first)
        while time.monotonic() - started < 15:
            try:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
            except TimeoutError:
                with contextlib.suppress(OSError):
                    sock.sendall(dribble)
            except OSError:  # reset
                break
        return time.monotonic() - started, received


def json_answer(received: bytes) -> tuple[int, dict]:
    """The status and JSON body of a raw HTTP/1.1 answer."""
    head, _, body = received.partition(b"\r\n\r\n")
    assert b"\r\ncontent-type: application/json" in head, head
    return int(head.split()[1]), json.loads(body)


def test_slow_clients_are_dropped(guarded):
    """A connection that sends nothing, or dribbles its request line, headers or body, is closed once the
    timeout for what it owes runs out (headers: 408 with a JSON error); one idle after an answer once the
    keep-alive does. uvicorn alone held all but the last for as long as the client kept dribbling."""
    request = b"POST /api/solve HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    cases = {"nothing sent": (b"", b"", HEADERS_S, None),
             "request line dribbled": (b"PO", b"S", HEADERS_S, 408),
             "headers dribbled": (request + b"X-Slow: ", b"a", HEADERS_S, 408),
             "body dribbled": (request + b"Content-Length: 1000\r\n\r\n{", b" ", BODY_S, None),
             "body dribbled after the answer": (b"GET /api/lexicons HTTP/1.1\r\nHost: test\r\nContent-Length: 1000"
                                                b"\r\n\r\n", b"x", BODY_S, 200),
             "idle after an answer": (b"GET /api/lexicons HTTP/1.1\r\nHost: test\r\n\r\n", b"", KEEP_ALIVE_S, 200)}
    results = {}
    threads = [threading.Thread(target=lambda name=name, case=case: results.update({name: slow_client(
        guarded, *case[:2])})) for name, case in cases.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, (_, _, timeout, status) in cases.items():
        seconds, received = results[name]
        assert timeout * 0.9 <= seconds <= timeout + SLACK_S, (name, seconds)
        if status is None:
            assert received == b"", (name, received)
        else:
            assert json_answer(received)[0] == status, (name, received)
    assert "within 1 s" in json_answer(results["headers dribbled"][1])[1]["error"]


def test_malformed_http_is_the_apis_json_400(guarded):
    """What h11 cannot parse (a header without its colon, TLS spoken to plain HTTP, headers still unfinished
    after 16 KiB) is answered 400 with the API's JSON error, not uvicorn's plain text."""
    for request in (b"GET /api/lexicons HTTP/1.1\r\nHost test\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\r\n\r\n",
                    b"GET /api/lexicons HTTP/1.1\r\nHost: test\r\nX-Big: " + b"a" * 20_000):
        seconds, received = slow_client(guarded, request, b"")
        status, body = json_answer(received)
        assert status == 400 and body == {"error": "malformed HTTP request (or its headers over 16 KiB)"}, received


def test_sigterm_during_slow_uploads_stops_at_once_and_quietly(make_lexicon):
    """SIGTERM while clients are still sending bodies: those connections are closed at once (nobody waits
    for them), the command ends with status 0, no traceback (each was a CancelledError's, after 5 s)."""
    proc, url = start_server(str(make_lexicon(WORDS)))
    address = urlsplit(url).hostname, urlsplit(url).port
    uploads = [socket.create_connection(address, timeout=10) for _ in range(50)]
    try:
        for sock in uploads:
            sock.sendall(b"POST /api/solve HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000\r\n\r\n{\"board\": \"")
        assert httpx2.get(f"{url}/api/lexicons", timeout=10).status_code == 200
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=30)[1]
        assert proc.returncode == 0 and time.monotonic() - started < 3, rest
        assert "Traceback" not in rest and "Error" not in rest and rest.strip().endswith("stopped"), rest
        for sock in uploads:
            with contextlib.suppress(ConnectionResetError):
                assert sock.recv(100) == b""
    finally:
        proc.kill()
        for sock in uploads:
            sock.close()


def test_a_second_ctrl_c_under_load_is_quiet(make_lexicon):
    """Ctrl-C twice while clients keep asking: the requests in hand are answered in JSON (200, or 503 for
    those cut off), none with uvicorn's plain-text 500, and stderr holds no traceback."""
    proc, url = start_server(str(make_lexicon(WORDS)), "--jobs", "1")
    boards = [b.notation for b in roll(load_dice("big"), None, 1, 2000)]
    answers, stop = [], threading.Event()

    def ask() -> None:
        with httpx2.Client(timeout=10) as client:
            while not stop.is_set():
                try:
                    response = client.post(f"{url}/api/score", json={"boards": boards})
                except httpx2.HTTPError:
                    return
                answers.append((response.status_code, response.headers.get("content-type")))

    askers = [threading.Thread(target=ask) for _ in range(4)]
    try:
        for thread in askers:
            thread.start()
        time.sleep(1)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=30)[1]
    finally:
        stop.set()
        for thread in askers:
            thread.join()
        proc.kill()
    assert proc.returncode == 0 and "Traceback" not in rest and rest.strip().endswith("stopped"), rest
    assert answers and {content for _, content in answers} == {"application/json"}, answers
    assert {status for status, _ in answers} <= {200, 503}, answers


def test_serve_keeps_the_web_framework_off_other_commands():
    """Only the serve command imports FastAPI and uvicorn: `dawg-solve --help` lists it without them."""
    code = ("import sys; from boggle_dawg.solve_cli import full_app; full_app(); "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette', 'uvicorn'))))")
    run = subprocess.run([sys.executable, "-c", "import json; " + code], cwd=REPO, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []
