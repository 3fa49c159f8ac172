"""Builds from letters alone (`dawgc build --charset LETTERS|auto` without `--language`): letters of
any script, no folds, no tiles, vowels inferred or given; the manifest records the alphabet so that
every reader (and the build's own check that it opens) reads it back without a language file."""

from __future__ import annotations

import json

import pytest

from boggle_dawg import api
from boggle_dawg.compiler.build import choose_alphabet
from boggle_dawg.compiler.verify import verify
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.language import ENGLISH, inferred_vowels, load_language
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import make_plan

from bruteforce import Reference
from support import assert_clean_error, run_cli

GREEK_WORDS = "ΑΓΑΠΗ\nΑΛΦΑ\nΒΗΤΑ\nΓΑΤΑ\nΘΕΑ\nΛΑΘΟΣ\nΠΑΤΑΤΑ\nΣΤΑΘΜΟΣ\n"
HUNGARIAN_WORDS = "alma\nkörte\nszőlő\nvíz\nút\nüzenet\nfű\nerdő\nhárom\n"


def build(tmp_path, text: str, *args: str, name: str = "list.txt"):
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--out", str(out), "--json", *args)
    return proc, source, out


def test_greek_letters_build_without_a_language_file(tmp_path):
    proc, source, out = build(tmp_path, GREEK_WORDS, "--charset", "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(proc.stdout)["manifest"]
    assert manifest["language"]["name"] == "letters" and manifest["language"]["folds"] == []
    assert manifest["language"]["vowels"] == "αεηιουω" and manifest["language"]["tiles"] == []
    lex = open_lexicon(out)
    assert lex.charset.letters == "αβγδεζηθικλμνξοπρστυφχψω" and lex.charset.tiles == ()
    assert sorted(lex) == sorted(w.casefold() for w in GREEK_WORDS.split())  # no folds, but case folding: ς is σ
    board = "ΣΤΑΘ/ΜΟΣΑ/ΛΑΓΠ/ΑΦΗΤ"
    parsed = lex.board(board)
    reference = Reference(w.casefold() for w in GREEK_WORDS.split())
    assert lex.score(board) == reference.score(list(parsed.faces), 4, 4) > 0
    assert verify(out, source).ok
    assert make_plan(lex, (4, 4)).buckets[0][0] == "αεηιουω"
    # a letter outside the letters given is a letter outside the language: one line, or dropped
    proc, _, _ = build(tmp_path, GREEK_WORDS, "--charset", "ΑΒΓ")
    assert_clean_error(proc, "'Π' is not a letter of the letters ΑΒΓ")


def test_auto_takes_the_letters_the_list_uses_in_code_point_order(tmp_path):
    proc, source, out = build(tmp_path, HUNGARIAN_WORDS, "--charset", "auto")
    assert proc.returncode == 0, proc.stderr
    lex = open_lexicon(out)
    assert lex.charset.letters == "".join(sorted(set(HUNGARIAN_WORDS.replace("\n", ""))))
    assert lex.language.vowels == "aeoáíöúüőű" and "language letters" in run_cli(
        "boggle_dawg.dawgc_cli", "build", str(source), "--charset", "auto", "--out", str(out)).stdout
    assert verify(out, source).ok


def test_auto_keeps_a_languages_order_and_englishs_qu(tmp_path):
    proc, _, out = build(tmp_path, "łąka\nżaba\nkot\nąka\n", "--charset", "auto", "--language", "pl")
    assert proc.returncode == 0, proc.stderr
    assert open_lexicon(out).charset.letters == "aąbkłotż"
    proc, _, out = build(tmp_path, "quit\nqat\ncat\n", "--charset", "auto")
    lex = open_lexicon(out)
    assert lex.language == ENGLISH and lex.charset.letters == "aciqtu"
    assert sorted(lex) == ["cat", "quit"]  # English: the Qu die, "qat" dropped as q without u


def test_letters_alone_have_no_tiles_so_q_is_plain(tmp_path):
    proc, _, out = build(tmp_path, "qat\nquiz\nérq\n", "--charset", "AÉIQRTUZ")
    assert proc.returncode == 0, proc.stderr
    lex = open_lexicon(out)
    assert sorted(lex) == ["qat", "quiz", "érq"] and lex.charset.tiles == ()


def test_vowels_inferred_given_or_the_first_letter(tmp_path):
    assert inferred_vowels("абвгдеёжзийклмнопрстуфхцчшщъыьэюя") == "аеёиоуыэюя"
    assert inferred_vowels("אבגד") == "א"  # no Latin, Greek or Cyrillic vowel: the first letter
    proc, _, out = build(tmp_path, "אבא\nגדג\n", "--charset", "auto")
    assert proc.returncode == 0, proc.stderr
    assert open_lexicon(out).language.vowels == "א"
    proc, _, out = build(tmp_path, "אבא\nגדג\n", "--charset", "auto", "--vowels", "אב")
    assert open_lexicon(out).language.vowels == "אב"
    proc, _, _ = build(tmp_path, "אבא\n", "--charset", "auto", "--vowels", "x")
    assert_clean_error(proc, "--vowels: ")
    proc, _, _ = build(tmp_path, "cat\n", "--language", "de", "--vowels", "ae")
    assert_clean_error(proc, "--vowels: only for a build of letters alone")


def test_choose_alphabet_keeps_english_for_sizes_and_a_to_z():
    for spec in (None, "14", "acdegilmnoprst"):
        options, charset = choose_alphabet(None, spec)
        assert options.language == ENGLISH and ("q" not in charset.letters or charset.tiles == (("q", "qu"),))
    options, charset = choose_alphabet(None, "auto")
    assert options.language is None and charset is None
    options, charset = choose_alphabet(load_language("ru"), "auto")
    assert options.language == load_language("ru") and charset is None
    with pytest.raises(DawgError, match="'1' is not a letter"):
        choose_alphabet(None, "αβ1")


def test_api_builds_letters_alone(tmp_path):
    lex = api.build_lexicon(["βήτα", "γάτα", "άλφα"], tmp_path / "out", language=None, charset="auto")
    assert sorted(lex) == ["άλφα", "βήτα", "γάτα"] and lex.language.name == "letters"
