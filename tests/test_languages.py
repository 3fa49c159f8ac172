"""Every language of the shared Tanglet data, end to end: builds, round trips, and scores of boards
rolled from the language's own dice agree with the brute-force reference on every format and
both engines (4x4 and 5x5, tiles included).

The reference words are Tanglet's own game forms (the first column, lower-cased), read here
without the compiler, so a build that matches them plays exactly the game's words. The Polish list
(3.2 M words) is built whole by benchmarks/languages_bench.py; here every 8th line of it. The
tests on whole lists are marked slow (a minute or two on two cores).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.verify import verify
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.dice_sets import load_dice, parse_dice, roll
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.language import builtin_language_names, load_language
from boggle_dawg.solver.lexicon import open_lexicon

from bruteforce import Reference
from support import assert_clean_error, run_cli, shared_path

# folder: (input format, lenient); ru's list has two lines split by a space and one with a Latin C
LISTS = {"de": ("tanglet", False), "es": ("plain", False), "fr": ("tanglet", False), "nl": ("tanglet", False),
         "pl": ("plain", False), "ru": ("plain", True)}
POLISH_SAMPLE = 8  # every 8th line of the Polish list
SHAPES = (Shape(4, 4), Shape(5, 5))
BOARDS_PER_SHAPE = 3


@dataclass
class Built:
    language: str
    source: Path
    out: Path
    reference_words: set[str]


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


def _game_forms(lines: list[str], language: str) -> set[str]:
    """Tanglet's game forms, lower-cased, of the lines the build keeps: 3+ letters, and in a language
    with the Qu die no Q without its U."""
    forms = {line.split()[0].lower() for line in lines if len(line.split()) == 1 or LISTS[language][0] == "tanglet"}
    letters = set(load_language(language).letters)
    qu = load_language(language).tiles
    return {w for w in forms if len(w) >= 3 and set(w) <= letters and not (qu and w.count("q") != w.count("qu"))}


@pytest.fixture(scope="module")
def tanglet(tmp_path_factory):
    cache: dict[str, Built] = {}

    def get(language: str) -> Built:
        if language not in cache:
            source = shared_path("lexicons", "tanglet", language, "words")
            lines = _lines(source)
            if language == "pl":
                lines = lines[::POLISH_SAMPLE]
                source = tmp_path_factory.mktemp("pl") / "words-sample"
                source.write_text("\n".join(lines) + "\n", encoding="utf-8")
            input_format, lenient = LISTS[language]
            lang = load_language(language)
            out = tmp_path_factory.mktemp(f"tanglet-{language}") / "lexicon"
            build_lexicon(source, lang.charset(), out, options=ListOptions(lang, input_format, lenient))
            cache[language] = Built(language, source, out, _game_forms(lines, language))
        return cache[language]

    return get


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(LISTS))
def test_every_language_builds_exactly_the_games_words(tanglet, language):
    built = tanglet(language)
    lex = open_lexicon(built.out)
    assert lex.language == load_language(language)
    assert lex.charset.letters == load_language(language).letters
    words = set(lex)  # as spelled ("qu")
    assert words == built.reference_words


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(LISTS))
def test_verify_source_round_trips(tanglet, language):
    built = tanglet(language)
    result = verify(built.out, built.source)
    assert result.ok, result.checks
    assert any(check.startswith("ok    source: round trip") for check in result.checks)


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(LISTS))
def test_dice_boards_agree_with_brute_force(tanglet, language):
    built = tanglet(language)
    reference = Reference(built.reference_words)
    dice_file = str(shared_path("lexicons", "tanglet", language, "dice"))
    lexicons = [open_lexicon(built.out, fmt) for fmt in FORMATS]
    charset = lexicons[0].charset
    for seed, shape in enumerate(SHAPES, 22):
        boards = list(roll(load_dice(dice_file, charset, shape), shape, seed, BOARDS_PER_SHAPE))
        expected = [reference.score(list(b.faces), shape.rows, shape.cols) for b in boards]
        assert max(expected) > 0
        for lex in lexicons:
            assert [lex.score(b) for b in boards] == expected, (lex.format, [b.notation for b in boards])
            assert lex.score_many(boards).tolist() == expected, lex.format


@pytest.mark.slow
def test_tiles_turn_up_in_the_dice_boards(tanglet):
    """The German dice's Qu face is rolled and scored as 'qu', the Polish 'Q' as a plain letter."""
    de = open_lexicon(tanglet("de").out)
    dice = load_dice(str(shared_path("lexicons", "tanglet", "de", "dice")), de.charset, Shape(5, 5))
    boards = [b for b in roll(dice, Shape(5, 5), 1, 60) if "qu" in b.faces]
    assert boards and all("q" in b.notation for b in boards)
    pl = open_lexicon(tanglet("pl").out)
    dice = load_dice(str(shared_path("lexicons", "tanglet", "pl", "dice")), pl.charset, Shape(4, 4))
    assert {f for die in dice.dice for f in die} >= {"q", "ł", "ż"} and "qu" not in {f for die in dice.dice for f in die}


def test_german_with_umlauts_from_the_same_list(tmp_path):
    """A Tanglet list plays its first column in every language, as the game does: de-umlauts reads
    'AALAEHNLICH aalähnlich' as the game's 'aalaehnlich' (first 20,000 lines); the written column
    is a spelling to show, not a word to play."""
    lines = _lines(shared_path("lexicons", "tanglet", "de", "words"))[:20000]
    source = tmp_path / "words"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lang = load_language("de-umlauts")
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang, "tanglet")).out_dir
    lex = open_lexicon(out)
    assert "aalaehnlich" in lex and not any(ch in "".join(lex) for ch in "äöü")
    assert verify(out, source).ok


@pytest.mark.slow
def test_russian_tanglet_list_scores_as_its_first_column_says(tmp_path):
    """The Russian list read as Tanglet reads it (`--input-format tanglet`): boards rolled from its
    dice, and one holding ВТО and УШВЫР (lines 'ВТО ОЧИТЬ' and 'УШВЫР УТЬ'), score as the first
    columns of the raw file say, checked by the brute-force scorer; the line with a Latin C is dropped."""
    source = shared_path("lexicons", "tanglet", "ru", "words")
    letters = set(load_language("ru").letters)
    firsts = {line.split()[0].lower() for line in _lines(source) if line.strip()}
    reference = Reference(w for w in firsts if set(w) <= letters)
    lang = load_language("ru")
    result = build_lexicon(source, lang.charset(), tmp_path / "ru", options=ListOptions(lang, "tanglet", True))
    assert result.manifest["dropped"]["outside_language"] == 1
    lex = open_lexicon(result.out_dir)
    assert "вто" in lex and "ушвыр" in lex and "очить" not in lex
    dice_file = str(shared_path("lexicons", "tanglet", "ru", "dice"))
    boards = [b.notation for shape in SHAPES
              for b in roll(load_dice(dice_file, lex.charset, shape), shape, 7, BOARDS_PER_SHAPE)]
    boards.append("втоа/рывш/аааУ/аааа")
    for board in boards:
        parsed = lex.board(board)
        assert lex.score(parsed) == reference.score(list(parsed.faces), parsed.shape.rows, parsed.shape.cols), board


@pytest.mark.slow
def test_word_queries_fold_as_the_build_did(tanglet):
    """German words as people write them are looked up in the game's form (ß -> ss, ä -> ae)."""
    de = open_lexicon(tanglet("de").out)
    assert "Straße" in de and "strasse" in de and de.key_id("Straße") == de.key_id("STRASSE")
    assert "aalähnlich" in de and "Aalähnlich" in de
    assert list(de.keys("Straßenb"))[:1] == list(de.keys("strassenb"))[:1] != []
    proc = run_cli("boggle_dawg.dawgc_cli", "lookup", str(tanglet("de").out), "Straße", "Strasze")
    assert proc.stdout.splitlines()[0].split("\t")[:2] == ["Straße", "found"], proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[1].split("\t")[:2] == ["Strasze", "absent"]


@pytest.mark.slow
def test_german_words_are_shown_as_the_list_writes_them(tanglet):
    """Tanglet's further columns are the spellings the game shows: "gläsern" and "Gläsern" for GLAESERN."""
    out = tanglet("de").out
    de = open_lexicon(out)
    assert de.written("glaesern") == ("gläsern", "Gläsern") == de.written("Gläsern")
    assert de.written("strasse") == ("Straße",)
    board = "glaenresxxxxxxxx"
    found = {f.word: f for f in de.words(board)}
    assert found["glaesern"].shown == "gläsern / Gläsern"
    proc = run_cli("boggle_dawg", str(out), board, "--words")
    assert "glaesern  (gläsern / Gläsern)" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.slow
def test_board_folds_in_play_and_in_a_batch_with_a_bad_board(tanglet):
    """A Spanish board may show Ú (read as U): `play --board`, and a batch whose chunk also holds a bad board."""
    out = str(tanglet("es").out)
    lex = open_lexicon(out)
    plain, accented = "ÑANDUSOLTEMARICA", "ÑANDÚSOLTEMARICA"
    proc = run_cli("boggle_dawg.dawg_solve", "play", out, "--board", accented, "--seconds", "0", "--json", stdin="")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["board"] == plain.lower() and events[-1]["maximum"] == lex.score(plain) > 0
    proc = run_cli("boggle_dawg.dawg_solve", out, "--boards", "-", "--json", stdin=f"{accented}\nÑANDЖSOLTEMARICA\n")
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[0]["score"] == lex.score(plain), proc.stdout + proc.stderr
    assert "error" in records[1] and "Ж" in records[1]["error"]


@pytest.mark.slow
def test_roll_and_play_in_russian(tanglet):
    dice = str(shared_path("lexicons", "tanglet", "ru", "dice"))
    proc = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", dice, "--language", "ru", "--seed", "5", "--grid",
                   "--size", "5x5")
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.split("\n")[:5]
    assert all(len(row.split()) == 5 and all("А" <= ch <= "Я" for ch in row.replace(" ", "")) for row in rows)
    out = tanglet("ru").out
    board = run_cli("boggle_dawg.dawg_solve", "roll", "--dice", dice, "--seed", "5").stdout.strip()
    words = [f.word for f in open_lexicon(out).words(board)]
    typed = f"{words[0].upper()}\nзззз\n"
    proc = run_cli("boggle_dawg.dawg_solve", "play", str(out), "--dice", dice, "--seed", "5", "--seconds", "0",
                   "--json", stdin=typed)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["board"] == board
    assert [e["verdict"] for e in events[1:3]] == ["accepted", "not_on_board"]
    assert events[1]["word"] == words[0] and events[-1]["word_count"] == len(words)
    grid = run_cli("boggle_dawg.dawg_solve", "play", str(out), "--dice", dice, "--seed", "5", "--seconds", "0",
                   stdin="").stdout
    assert grid.split("\n")[2].split() == [ch.upper() for ch in board[:4]]


# --- the languages of Debian's tanglet-data package, read where it installs them ------------------

TANGLET_DATA = Path("/usr/share/tanglet/gamedata")
# Tanglet folder -> built-in language
DEBIAN_LANGUAGES = {"ca": "ca", "cs": "cs", "el": "el", "he": "he", "hu": "hu", "pt": "pt", "pt_BR": "pt-br"}
DEBIAN_SAMPLE = 10  # every 10th line of each list


def _tanglet_data(folder: str) -> Path:
    path = TANGLET_DATA / folder
    if not path.is_dir():
        pytest.skip(f"{path} absent: Debian's tanglet-data package is not installed (apt-get install tanglet-data)")
    return path


def test_every_tanglet_data_language_is_built_in():
    folders = {p.name for p in _tanglet_data("").iterdir() if (p / "words").is_file()}
    assert folders <= set(DEBIAN_LANGUAGES) | set(LISTS) | {"en"}, folders


def test_catalan_plays_the_geminated_l_as_its_die_face_and_shows_it_as_written(tmp_path):
    """The die face '·L' is the tile 'ŀl' (the middle dot folds into ŀ): "al·le" is a, l, ·L, e."""
    ca = load_language("ca")
    source = tmp_path / "words"
    source.write_text("AL·LE\nCOL·LECCIO col·lecció\nGAL\nSOL·\n", encoding="utf-8")
    out = build_lexicon(source, ca.charset(), tmp_path / "out", options=ListOptions(ca, "tanglet", True)).out_dir
    lex = open_lexicon(out)
    assert set(lex) == {"alŀle", "colŀleccio", "gal"}  # a dot that no l follows is no word
    assert lex.written("alŀle") == ("al·le",) and lex.written("col·lecció") == ("col·lecció",)
    dice = parse_dice("A,L,E,G\nA,·L,E,G\nE,E,E,E\nG,G,G,G", "ca-dice", lex.charset,
                      folds=ca.letter_folds(lex.charset))
    assert dice.dice[1] == ("a", "ŀl", "e", "g")
    board = lex.board("AL·E/GXXX/XXXX/XXXX")
    assert board.faces[:4] == ("a", "l", "ŀl", "e")
    found = {f.word: f for f in lex.words(board)}
    assert found["alŀle"].points == 2 and found["alŀle"].shown == "al·le"
    proc = run_cli("boggle_dawg", str(out), "al·e/gxxx/xxxx/xxxx", "--words")
    assert "alŀle  (al·le)" in proc.stdout, proc.stdout + proc.stderr
    proc = run_cli("boggle_dawg", str(out), "al(·l)e/gxx/xxxx/xxxx")  # what is wrong, in Catalan's terms
    assert proc.returncode == 1 and proc.stderr.strip().endswith("rows have different lengths"), proc.stderr


@pytest.mark.parametrize("folder", sorted(DEBIAN_LANGUAGES))
def test_debian_languages_play_the_games_words_on_their_own_dice(tmp_path, folder):
    """A sample of each list, read as Tanglet reads it, scores boards rolled from the language's own
    dice (`Language.dice`, as `roll --language` rolls) as the raw file's first columns say."""
    data, lang = _tanglet_data(folder), load_language(DEBIAN_LANGUAGES[folder])
    lines = [line for line in _lines(data / "words")[::DEBIAN_SAMPLE] if line.strip()]
    source = tmp_path / "words"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang, "tanglet", True)).out_dir
    firsts = {lang.game_form(line.split()[0]) for line in lines}
    qu = lang.tiles
    reference = Reference(w for w in firsts if set(w) <= set(lang.letters)
                          and not (qu and w.count("q") != w.count("qu")))
    lex = open_lexicon(out)
    assert set(lex) == reference.words
    assert lang.dice() == str(data / "dice")
    for seed, shape in enumerate(SHAPES, 3):
        dice = load_dice(lang.dice(), lex.charset, shape, lang.letter_folds(lex.charset))
        boards = list(roll(dice, shape, seed, BOARDS_PER_SHAPE))
        expected = [reference.score(list(b.faces), shape.rows, shape.cols) for b in boards]
        assert [lex.score(b) for b in boards] == expected


def test_roll_uses_the_languages_own_dice():
    _tanglet_data("hu")
    proc = run_cli("boggle_dawg.dawg_solve", "roll", "--language", "hu", "--seed", "1", "--size", "5x5")
    assert proc.returncode == 0, proc.stderr
    board = proc.stdout.strip()
    assert len(board) == 25 and set(board) <= set(load_language("hu").letters)


def test_play_rolls_the_dice_of_the_lexicons_language(tmp_path):
    """A Hungarian lexicon plays on Hungarian dice without --dice (it rolled the English classic set)."""
    data = _tanglet_data("hu")
    build = tmp_path / "hu"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(data / "words"), "--language", "hu", "--input-format",
                   "tanglet", "--lenient", "--out", str(build))
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("boggle_dawg.dawg_solve", "play", str(build), "--seed", "1", "--seconds", "0", "--json",
                   stdin="")
    assert proc.returncode == 0, proc.stderr
    start = json.loads(proc.stdout.splitlines()[0])
    assert start["dice"] == load_language("hu").dice() and set(start["board"]) <= set(load_language("hu").letters)


def test_roll_names_the_package_when_the_dice_are_missing(tmp_path):
    text = (Path(load_language("hu").source).read_text(encoding="utf-8")
            .replace("/usr/share/tanglet/gamedata/hu/dice", str(tmp_path / "absent" / "dice")))
    (tmp_path / "hu.toml").write_text(text, encoding="utf-8")
    proc = run_cli("boggle_dawg.dawg_solve", "roll", "--language", str(tmp_path / "hu.toml"))
    assert_clean_error(proc, "not found: install the tanglet-data package (apt-get install tanglet-data)")


def test_every_built_in_language_names_its_dictionary_and_a_bad_template_is_one_line(tmp_path):
    """A language file's `dictionary` (as Tanglet's language.ini `Dictionary=`) is where the game links a word:
    every built-in one names its Wiktionary; a template without its one %s, or not a web address, is refused."""
    for name in builtin_language_names():
        base = name.split("-")[0]
        assert load_language(name).dictionary == f"https://{base}.wiktionary.org/wiki/%s", name
    text = (Path(load_language("fr").source).read_text(encoding="utf-8")
            .replace("https://fr.wiktionary.org/wiki/%s", "javascript:alert(%s)"))
    bad = tmp_path / "fr.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(DawgError, match=r"fr.toml: field dictionary: .* is not a URL template"):
        load_language(bad)
