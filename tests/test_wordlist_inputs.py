"""Word lists as they come and language files (compiler/wordlist.py, solver/language.py): gzip,
stdin, Tanglet's columns, folds, the lenient mode; Greek and Hebrew from files written here."""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import boggle_dawg.compiler.wordlist
from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.wordlist import ListOptions, load_word_list
from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.dice_sets import parse_dice
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.game import Outcome, Round
from boggle_dawg.solver.language import ENGLISH, Language, builtin_language_names, load_language
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import make_plan, prove
from boggle_dawg.solver.search import canonical_codes

from bruteforce import Reference
from support import REPO, assert_clean_error, run_cli

GREEK = """\
# Greek: final sigma and the accents fold away
name = "el"
title = "Ελληνικά"
letters = "αβγδεζηθικλμνξοπρστυφχψω"
tiles = []
folds = [["ς", "σ"], ["ά", "α"], ["έ", "ε"], ["ή", "η"], ["ί", "ι"], ["ό", "ο"], ["ύ", "υ"],
         ["ώ", "ω"], ["ϊ", "ι"], ["ϋ", "υ"], ["ΐ", "ι"], ["ΰ", "υ"]]
vowels = "αεηιουω"
"""
HEBREW = """\
name = "he"
title = "עברית"
letters = "אבגדהוזחטיכלמנסעפצקרשת"
tiles = []
folds = [["ך", "כ"], ["ם", "מ"], ["ן", "נ"], ["ף", "פ"], ["ץ", "צ"]]
vowels = "אהוי"
"""


def write(tmp_path: Path, data: bytes | str, name: str = "list.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def language_file(tmp_path: Path, text: str, name: str = "lang.toml") -> Language:
    return load_language(str(write(tmp_path, text, name)))


def read(path: Path, language: Language = ENGLISH, input_format: str = "plain", lenient: bool = False,
         charset=None):
    return load_word_list(path, charset or language.charset(), options=ListOptions(language, input_format, lenient))


# --- the built-in languages ---------------------------------------------------------------


def test_builtin_languages_load_and_english_is_todays():
    assert {"en", "de", "de-umlauts", "fr", "es", "nl", "pl", "ru"} <= set(builtin_language_names())
    assert (ENGLISH.letters, ENGLISH.tiles, ENGLISH.folds, ENGLISH.vowels) == \
        ("abcdefghijklmnopqrstuvwxyz", (("q", "qu"),), (), "aeiou")
    assert ENGLISH.charset() == parse_charset("26")
    pl, ru, es = load_language("pl"), load_language("ru"), load_language("es")
    assert len(pl.letters) == 35 and pl.tiles == () and "q" in pl.letters
    assert len(ru.letters) == 32 and ru.game_form("ЁЛКА") == "елка"
    assert "ñ" in es.letters and es.game_form("Canción") == "cancion"


@pytest.mark.parametrize("name, written, game", [
    ("de", "Alpenstraße", "alpenstrasse"), ("de", "ÄRGERLICH", "aergerlich"), ("de", "Ångström", "angstroem"),
    ("de-umlauts", "Mädchen", "mädchen"), ("fr", "Élève", "eleve"), ("fr", "cœur", "coeur"),
    ("nl", "geërfd", "geerfd"), ("pl", "ŻÓŁW", "żółw"), ("es", "AÑO", "año"),
    ("de", "Ma\u0308dchen", "maedchen"),  # NFD input reads as NFC
])
def test_game_forms(name, written, game):
    assert load_language(name).game_form(written) == game


# --- language files: Greek and Hebrew, and malformed ones ----------------------------------------


def test_greek_final_sigma_and_hebrew_final_forms(tmp_path):
    greek = language_file(tmp_path, GREEK, "el.toml")
    assert greek.game_form("ΟΔΟΣ") == greek.game_form("οδός") == "οδοσ"
    hebrew = language_file(tmp_path, HEBREW, "he.toml")
    assert hebrew.game_form("שלום") == "שלומ" and hebrew.game_form("ארץ") == "ארצ"


@pytest.mark.parametrize("language, words, board, found", [
    (GREEK, "έδος\nΟΔΟΙ\nδόσε\nσοδα\n", "οδ/σε", {"εδοσ", "δοσε"}),
    (HEBREW, "שלום\nשלם\nמלש\n", "של/ומ", {"שלומ", "שלמ", "מלש"}),
])
def test_greek_and_hebrew_build_and_score_like_brute_force(tmp_path, language, words, board, found):
    lang = language_file(tmp_path, language)
    source = write(tmp_path, words)
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang)).out_dir
    reference = Reference(lang.game_form(w) for w in words.split())
    cells = parse_board(board, None, lang.charset())
    assert reference.found(list(cells.faces), 2, 2) == found
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        assert lex.language == lang
        assert {f.word for f in lex.words(cells)} == found
        assert lex.score(cells) == lex.score_many([cells]).tolist()[0] == reference.score(list(cells.faces), 2, 2)


@pytest.mark.parametrize("text, fragments", [
    ("name = 'x'\n", ["field title: missing"]),
    (GREEK.replace('vowels = "αεηιουω"', 'vowels = "αεz"'), ["field vowels", "'αεz'"]),
    (GREEK.replace('["ς", "σ"]', '["ς", "s"]'), ["field folds", "['ς', 's']", "folds to 's'"]),
    (GREEK.replace('["ς", "σ"]', '["α", "β"]'), ["field folds", "is a letter of the alphabet"]),
    (GREEK.replace('["ς", "σ"]', '["ΣΣ", "σ"]'), ["field folds", "one lower-case letter"]),
    (GREEK.replace("tiles = []", 'tiles = [["q", "qu"]]'), ["field tiles", "'q' is not one of the letters"]),
    (GREEK.replace("tiles = []", 'tiles = {q = "qu"}'), ["field tiles", "a list of pairs"]),
    (GREEK.replace('letters = "αβ', 'letters = "Αβ'), ["field letters", "'Α'"]),
    (GREEK.replace('letters = "αβ', 'letters = "ßβ'), ["field letters", "'ß'"]),
    (GREEK.replace('letters = "αβ', 'letters = "ααβ'), ["field letters", "'α' repeated"]),
    (GREEK + "colour = 'blue'\n", ["field colour: unknown"]),
    (GREEK.replace('name = "el"', 'name = "El Greco"'), ["field name"]),
    ("letters = [\n", ["not a TOML file"]),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", ["not a TOML file", "nested too deeply"]),
    (GREEK.replace('letters = "αβ', 'letters = "ᎠᎡᎢαβ'), ["field letters", "'Ꭰ'"]),  # Cherokee capitals
    (GREEK.replace("tiles = []", 'tiles = [["ψ", "ψα"], ["ψ", "ψε"]]'), ["field tiles", "'ψ'", "two tiles"]),
    (GREEK.replace("tiles = []", 'tiles = [["ψ", "ψα"], ["ξ", "ψα"]]'), ["field tiles", "'ψα'", "two tiles"]),
    (GREEK.replace("tiles = []", 'tiles = [["α", "αβ"], ["β", "βα"]]'), ["field tiles", "['α', 'αβ']", "'βα'"]),
    (GREEK.replace("tiles = []", 'tiles = [["ψ", "ψ' + "α" * 30 + '"]]'), ["field tiles", "a face is 2 to 8"]),
    (GREEK.replace("tiles = []", 'tiles = [["αβ", "αβ"]]'), ["field tiles", "'αβ' is not one of the letters"]),
    (GREEK.replace('title = "Ελληνικά"', f'title = "{"Ε" * 201}"'), ["field title", "200 characters"]),
    (GREEK.replace('["ς", "σ"]', '["ς", "σσσσσσσσσ"]'), ["field folds", "8 letters at most"]),
    (GREEK.replace('["ς", "σ"]', ", ".join(['["ς", "σ"]'] * 1001)), ["field folds", "1012 pairs", "1000"]),
    (GREEK.replace('tiles = []', ''), ["field tiles: missing", "tiles = []"]),
    (GREEK.split("folds")[0] + 'vowels = "α"\n', ["field folds: missing", "folds = []"]),
    (GREEK.split("folds")[0] + 'folds = {}\nvowels = "α"\n', ["field folds", "got an empty map"]),
])
def test_malformed_language_files_name_file_and_field(tmp_path, text, fragments):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(DawgError) as err:
        load_language(str(path))
    message = str(err.value)
    assert message.startswith(str(path)) and "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_a_fifo_language_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "lang.toml"
    os.mkfifo(fifo)
    with pytest.raises(DawgError, match=f"^{fifo}: not a regular file"):
        load_language(str(fifo))


def test_a_word_that_folds_outside_the_alphabet_only_as_a_whole_is_one_line(tmp_path):
    """'ΑΣΣ' lower-cases to 'ασς' (a final sigma), which no fold of 'σ' covers: 'Σ' alone folds."""
    lang = language_file(tmp_path, 'name = "x"\ntitle = "X"\nletters = "αβ"\ntiles = []\nfolds = [["σ", "α"]]\n'
                                   'vowels = "α"\n')
    source = write(tmp_path, "αβα\nΑΣΣ\n")
    with pytest.raises(DawgError, match=f"^{source} line 2: 'ΑΣΣ': 'σ' is not a letter of X$"):
        read(source, lang)
    assert read(source, lang, lenient=True).dropped["outside_language"] == 1


def test_unknown_language_name():
    with pytest.raises(DawgError, match="'klingon': neither a language file nor a built-in language"):
        load_language("klingon")


def test_cli_bad_language_file_writes_nothing(tmp_path):
    source = write(tmp_path, "cat\ndog\n")
    bad = write(tmp_path, GREEK.replace('["ς", "σ"]', '["ς", "s"]'), "el.toml")
    out = tmp_path / "out"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", str(bad), "--out", str(out))
    assert_clean_error(proc, str(bad), "field folds")
    assert not out.exists()


def test_board_letter_the_lexicon_lacks_names_the_cell(tmp_path):
    lang = language_file(tmp_path, GREEK)
    source = write(tmp_path, "οδός\n")
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang)).out_dir
    proc = run_cli("boggle_dawg.dawg_solve", str(out), "οδσz")
    assert_clean_error(proc, "cell 2,2", "'Z'")


# --- dice in any alphabet -----------------------------------------------------------------------

TWO_SETS = "A,B,C,D\nQu,E,F,G\n\nH,I,J,K\nL,M,N,Ñ\nQ,R,S,T\nя,ю,э,ъ\n"  # Tanglet's form: a 2-die and a 4-die set


def test_a_dice_file_of_two_sets_gives_the_one_that_fills_the_board():
    spanish, polish = load_language("es").charset(), load_language("pl").charset()
    first = parse_dice(TWO_SETS, "dice", spanish)
    assert first.dice == (("a", "b", "c", "d"), ("qu", "e", "f", "g"))  # no size: the first set
    assert parse_dice(TWO_SETS, "dice", spanish, Shape(1, 2)).dice == first.dice
    four = parse_dice(TWO_SETS, "dice", spanish, Shape(2, 2)).dice
    assert four[1] == ("l", "m", "n", "ñ") and four[2] == ("qu", "r", "s", "t") and four[3] == ("я", "ю", "э", "ъ")
    assert parse_dice(TWO_SETS, "dice", polish, Shape(2, 2)).dice[2] == ("q", "r", "s", "t")  # no Qu in Polish
    with pytest.raises(DawgError, match=r"dice dice: no set fills a 3x3 board \(9 dice\); its sets have 2, 4"):
        parse_dice(TWO_SETS, "dice", spanish, Shape(3, 3))


def test_roll_reads_a_lone_q_as_the_language_says(tmp_path):
    dice = write(tmp_path, "Q\nQ\nQ\nQ\n", "dice.txt")
    english = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(dice), "--seed", "1", "--grid")
    polish = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", str(dice), "--seed", "1", "--grid", "--language", "pl")
    assert english.stdout.split() == ["Qu"] * 4 and polish.stdout.split() == ["Q"] * 4


# --- gzip, stdin, encodings --------------------------------------------------------------


def test_gzip_is_told_by_content_not_name(tmp_path):
    text = b"zebra\napple\ncat\n"
    packed = gzip.compress(text, mtime=0)
    hidden = read(write(tmp_path, packed, "list.txt"))
    assert hidden.words == ["apple", "cat", "zebra"]
    assert hidden.sha256 == hashlib.sha256(packed).hexdigest() and hidden.size == len(packed)
    assert read(write(tmp_path, text, "plain.gz")).words == hidden.words
    assert read(write(tmp_path, packed + gzip.compress(b"dog\n"), "two-members")).words[1] == "cat"


# mtime=0: the data is in the test ids, which must not change with the second the module was imported
# (pytest-xdist's workers collect it separately and must agree on every id)
@pytest.mark.parametrize("data, message", [
    (gzip.compress(b"cat\ndog\n" * 1000, mtime=0)[:-30], "corrupt gzip data"),
    (b"\x1f\x8bnot gzip at all", "corrupt gzip data"),
    (gzip.compress(b"cat\n\xe9t\xe9\n", mtime=0), "line 2: not UTF-8 text (byte 0xe9)"),
])
def test_bad_gzip_and_encodings_are_one_line_errors(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(DawgError) as err:
        read(path)
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_gzip_bomb_stops_at_the_limit_of_text(tmp_path, monkeypatch):
    monkeypatch.setattr(boggle_dawg.compiler.wordlist, "MAX_LIST_BYTES", 1 << 20)
    path = write(tmp_path, gzip.compress(b"cat\n" * (1 << 19)))
    with pytest.raises(DawgError, match="larger than 1 MiB of text once decompressed"):
        read(path)


def test_latin1_list_names_the_line(tmp_path):
    path = write(tmp_path, "cat\ncafé\n".encode("latin-1"))
    with pytest.raises(DawgError, match=r"line 2: not UTF-8 text \(byte 0xe9\)"):
        read(path, load_language("fr"))


def test_build_from_stdin(tmp_path):
    out = tmp_path / "out"
    packed = gzip.compress("żółw\nkot\nkoty\n".encode())
    proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", "-", "--language", "pl",
                           "--out", str(out), "--json"], input=packed, capture_output=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(proc.stdout)["manifest"]
    assert manifest["source"]["name"] == "stdin" and manifest["words"] == 3
    assert manifest["source"]["sha256"] == hashlib.sha256(packed).hexdigest()
    assert sorted(open_lexicon(out)) == ["kot", "koty", "żółw"]


# --- folds, letters outside the language, Tanglet's columns ------------------------------


def test_strict_default_names_a_letter_outside_the_language(tmp_path):
    with pytest.raises(DawgError, match=r"line 2: 'café': 'é' is not a letter A-Z"):
        read(write(tmp_path, "cat\ncafé\n"))
    assert read(write(tmp_path, "élève\ncafé\n", "fr.txt"), load_language("fr")).words == ["cafe", "eleve"]
    with pytest.raises(DawgError, match=r"line 2: 'über': 'ü' is not a letter of Polski"):
        read(write(tmp_path, "straße\nüber\n", "pl.txt"), load_language("pl"))  # ß: case folding writes ss


def test_tanglet_columns(tmp_path):
    lines = "AALAEHNLICH aalähnlich\nAAL aal Aal\nALPENSTRASSE Alpenstraße\nABEND\nQUARK Quark\n"
    path = write(tmp_path, lines)
    with pytest.raises(DawgError, match=r"line 1: 'AALAEHNLICH aalähnlich': more than one word on the line"):
        read(path, load_language("de"))
    folded = read(path, load_language("de"), "tanglet")
    assert folded.words == ["aal", "aalaehnlich", "abend", "alpenstrasse", "qark"]
    # the first column is what the game plays, in any language: the written columns only display it
    assert read(path, load_language("de-umlauts"), "tanglet").words == folded.words


def test_a_tanglet_block_taken_whole_keeps_what_line_by_line_keeps(tmp_path):
    """A block whose every line starts with a word is taken at once (`_tanglet_words_only`); one with a
    comment goes line by line: the words, spellings and counts are the same either way."""
    lines = ("AALAEHNLICH aalähnlich\nAAL aal Aal\nALPENSTRASSE Alpenstraße\nABEND\nQUARK Quark\n"
             "ÄRGER\nUEBER über Über\nSTRASSE Straße STRASSE straße\n")
    whole = read(write(tmp_path, lines), load_language("de"), "tanglet")
    by_line = read(write(tmp_path, lines + "# a comment: this block goes line by line\n", "c.txt"),
                   load_language("de"), "tanglet")
    assert whole.words == by_line.words and whole.spellings == by_line.spellings and whole.spellings
    assert (whole.entries, whole.dropped) == (by_line.entries, by_line.dropped)


def test_a_tanglet_line_of_a_form_feed_alone_is_one_line_naming_it(tmp_path):
    with pytest.raises(DawgError, match=r"line 2: .*control character U\+000C"):
        read(write(tmp_path, "ABEND\n\x0c\nAAL\n"), load_language("de"), "tanglet")


def test_a_long_text_folds_as_each_of_its_words_does():
    """`game_form` of a block of a list (each folded letter replaced throughout) is its lines' game
    forms (each translated), in every built-in language."""
    for language in (load_language(name) for name in builtin_language_names()):
        chance = random.Random(language.name)
        letters = "".join(source + source.upper() + target for source, target in language.folds) + "abcQ ßſ"
        lines = ["".join(chance.choice(letters) for _ in range(chance.randint(1, 12))) for _ in range(3000)]
        assert language.game_form("\n".join(lines)).split("\n") == [language.game_form(line) for line in lines]


def test_tanglet_plays_the_first_column_as_the_game_does(tmp_path):
    """Tanglet's trie.cpp plays a line's first column, upper-cased, whatever its other columns say:
    Russian 'ВТО ОЧИТЬ' is the word ВТО, not ОЧИТЬ, and 'AGUA DE CHEIRO' (pt_BR) is AGUA."""
    path = write(tmp_path, "ВТО ОЧИТЬ\nУШВЫР УТЬ\nуть\n")
    assert read(path, load_language("ru"), "tanglet").words == ["вто", "уть", "ушвыр"]
    path = write(tmp_path, "AGUA DE CHEIRO\nagua\n", "pt.txt")
    assert read(path, ENGLISH, "tanglet").words == ["agua"]


def test_polish_q_is_a_plain_letter(tmp_path):
    words = read(write(tmp_path, "quiz\nqat\n"), load_language("pl"))
    assert words.words == ["qat", "quiz"] and "q_without_u" not in words.dropped


# --- lenient: dictionary-style lists -----------------------------------------------------------


DICTIONARY = "London\nit's\nwell-known\nice cream\nR2D2\ncafé\nfoo.bar\nNASA\nzebra\nZebras\n"


def test_lenient_drops_and_counts_by_reason(tmp_path):
    path = write(tmp_path, DICTIONARY)
    with pytest.raises(DawgError, match=r"line 2: \"it's\": \"'\" is not a letter"):
        read(path)
    words = read(path, lenient=True)
    assert words.words == ["nasa", "zebra"]
    assert {k: v for k, v in words.dropped.items() if v} == {
        "several_words": 1, "apostrophe": 1, "hyphen": 1, "digit": 1, "other_character": 1,
        "outside_language": 1, "proper_noun": 2}


def test_lenient_keeps_german_nouns(tmp_path):
    words = read(write(tmp_path, "Haus\nhaus\nStraße\nO'Brien\n"), load_language("de"), lenient=True)
    assert words.words == ["haus", "strasse"] and words.dropped["apostrophe"] == 1
    assert words.dropped["duplicate"] == 1 and words.dropped["proper_noun"] == 0


def test_lenient_build_reports_reasons_and_verifies(tmp_path):
    source = write(tmp_path, DICTIONARY)
    out = tmp_path / "out"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--lenient", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(proc.stdout)["manifest"]
    assert manifest["dropped"]["proper_noun"] == 2 and manifest["options"]["lenient"] is True
    proc = run_cli("boggle_dawg.dawgc_cli", "verify", str(out), "--source", str(source))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_english_default_build_keeps_todays_manifest_fields(tmp_path):
    source = write(tmp_path, "cat\nqat\nquit\n")
    manifest = build_lexicon(source, parse_charset("26"), tmp_path / "out").manifest
    assert "language" not in manifest and set(manifest["options"]) == {"charset", "min_length", "max_length"}
    assert list(manifest["dropped"]) == ["duplicate", "too_short", "q_without_u", "outside_charset", "too_long"]


# --- the game and the proof in a language ----------------------------------------------------


def test_round_folds_typed_words_as_the_language_does(tmp_path):
    lang = load_language("de")
    source = write(tmp_path, "AALAEHNLICH aalähnlich\nSTRASSE Straße\nHAUS Haus\n")
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang, "tanglet")).out_dir
    lex = open_lexicon(out)
    board = parse_board("stra/xess/xxxx/xxxx", None, lex.charset)
    round_ = Round(board, lex.words(board), lex.rules, lex.language)
    assert round_.submit("Straße").outcome is Outcome.ACCEPTED
    assert round_.submit("strasse").outcome is Outcome.REPEATED
    assert round_.submit("Haus").outcome is Outcome.NOT_ON_BOARD
    assert round_.submit("c-at").outcome is Outcome.NOT_LETTERS


def test_proof_default_split_takes_the_languages_vowels(tmp_path):
    lang = load_language("fr")  # vowels aeiouy: their own first bucket
    source = write(tmp_path, "ÉLÈVE élève\nYEUX yeux\nKAYAK kayak\n")
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang, "tanglet")).out_dir
    plan = make_plan(open_lexicon(out), (4, 4))
    corner = plan.buckets[0]
    assert corner[0] == "aeiouy" and "y" not in "".join(corner[1:]) and "".join(sorted("".join(corner))) == lang.letters
    english = build_lexicon(write(tmp_path, "cat\n", "en.txt"), parse_charset("26"), tmp_path / "en").out_dir
    assert make_plan(open_lexicon(english), (4, 4)).buckets[0] == ("aeiosuy", "bcdfghjklmnpqrtvwxz")


def test_a_charset_of_some_letters_keeps_the_whole_language(tmp_path):
    """The manifest records the whole language, so a build of some of its letters reads it back."""
    lang = load_language("de")
    source = write(tmp_path, "AEHNLICH ähnlich\nTAL Tal\nTEIL Teil\n")
    charset = lang.charset(parse_charset("acehilnt", lang.letters).letters)
    out = build_lexicon(source, charset, tmp_path / "out", options=ListOptions(lang, "tanglet")).out_dir
    lex = open_lexicon(out)
    assert lex.language == lang and lex.charset.letters == "acehilnt"
    assert sorted(lex) == ["aehnlich", "tal", "teil"]


SMALL_RUSSIAN = """\
name = "ru-small"
title = "Русский, 10 букв"
letters = "аеклмнорст"
tiles = []
folds = [["ё", "е"]]
vowels = "аео"
"""


def test_prove_in_another_alphabet_equals_exhaustive_enumeration(tmp_path):
    """A 2x2 proof over ten Cyrillic letters, split on the language's vowels, finds exactly the
    boards that scoring all 10,000 of them finds."""
    lang = language_file(tmp_path, SMALL_RUSSIAN)
    rng = random.Random(5)
    words = {"".join(rng.choice(lang.letters) for _ in range(rng.randint(3, 4))) for _ in range(600)}
    source = write(tmp_path, "\n".join(sorted(words)) + "\n")
    lex = open_lexicon(build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang)).out_dir)
    shape = Shape(2, 2)
    codes = np.array(list(itertools.product(range(len(lang.letters)), repeat=shape.cells)), np.int64)
    scores = lex.score_codes(codes, shape)
    min_score = int(np.sort(scores)[-40])
    keep = scores >= min_score
    canon = canonical_codes(codes[keep], shape)
    expected = sorted({"".join(lang.letters[c] for c in row): int(score)
                       for row, score in zip(canon.tolist(), scores[keep])}.items(), key=lambda kv: (-kv[1], kv[0]))
    assert make_plan(lex, shape).buckets[0] == ("аео", "клмнрст")
    assert prove(lex, shape, min_score).boards == expected


@pytest.mark.slow
def test_a_gzip_bomb_of_one_repeated_word_builds_in_the_memory_of_what_it_keeps(tmp_path):
    """60 MiB of text (15 M lines of one word) from 58 KB of gzip: a build keeps each word once as it reads,
    so its peak memory is that of the words it keeps (it was 1.1 GB), and it counts the copies it dropped."""
    bomb = tmp_path / "bomb.gz"
    with gzip.open(bomb, "wb") as fh:
        fh.write(b"cat\n" * 15_000_000)
    # VmHWM is this process's own peak: getrusage's maxrss would start from the forking test process's
    script = ("import re, sys, runpy; sys.argv = ['dawgc', 'build', sys.argv[1], '--out', sys.argv[2], '--json'];"
              "\ntry: runpy.run_module('boggle_dawg.dawgc_cli', run_name='__main__')\nexcept SystemExit: pass\n"
              "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1], file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", script, str(bomb), str(tmp_path / "out")], capture_output=True,
                          text=True, timeout=300)
    peak_kib = int(proc.stderr.strip().splitlines()[-1])
    manifest = json.loads(proc.stdout)["manifest"]
    assert manifest["words"] == 1 and manifest["dropped"]["duplicate"] == 15_000_000 - 1
    assert manifest["source"]["entries"] == 15_000_000
    assert peak_kib < 300 * 1024, peak_kib
