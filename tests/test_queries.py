"""Lexicon queries (membership, length, ordered iteration, words under a prefix, prefixes of a word,
word numbers) on every format, against the sorted word list, and `dawgc lookup` / `dawgc words --prefix`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.errors import ParameterError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.formats.base import Lexicon
from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, run_cli

WORDS = ["ate", "ates", "eat", "eats", "queen", "queens", "quit", "quite", "sat", "sate", "seat", "tea", "teas", "tee", "teen"]
ABSENT = ["", "at", "e", "qeen", "qat", "queenly", "zebra", "te", "ea", "seats", "quee", "tées", "q"]


def dawgc(*args: str, stdin: str | None = None):
    return run_cli("boggle_dawg.dawgc_cli", *args, stdin=stdin)


@pytest.fixture
def lexicons(make_lexicon):
    build = make_lexicon(WORDS)
    return {fmt: open_lexicon(build, fmt) for fmt in FORMATS}


def test_membership_length_and_order(lexicons):
    for fmt, lex in lexicons.items():
        assert len(lex) == len(WORDS), fmt
        assert list(lex) == WORDS, fmt
        assert all(w in lex for w in WORDS), fmt
        assert all(w.upper() in lex for w in WORDS), fmt  # input is case-insensitive
        assert not any(w in lex for w in ABSENT), fmt
        assert 7 not in lex, fmt


@pytest.mark.parametrize("prefix", ["", "a", "at", "ea", "q", "qu", "QUE", "queenq", "queen", "s", "sat", "t", "te", "tee"])
def test_keys_with_a_prefix(lexicons, prefix):
    expected = [w for w in WORDS if w.startswith(prefix.lower())]
    for fmt, lex in lexicons.items():
        keys = lex.keys(prefix)
        assert not isinstance(keys, list), fmt  # lazy
        assert list(keys) == expected, fmt
        with pytest.raises(ParameterError, match="prefix"):
            lex.keys(None)


@pytest.mark.parametrize("prefix", ["b", "qa", "queenz", "x1", "eatss", "tez"])
def test_keys_of_a_prefix_no_word_has(lexicons, prefix):
    for fmt, lex in lexicons.items():
        assert list(lex.keys(prefix)) == [], fmt


def test_prefixes_that_are_words(lexicons):
    cases = {"eats": ["eat", "eats"], "atesx": ["ate", "ates"], "queens": ["queen", "queens"], "Quiter": ["quit", "quite"],
             "zoo": [], "": [], "q": [], "teaspoon": ["tea", "teas"]}
    for fmt, lex in lexicons.items():
        for word, expected in cases.items():
            assert lex.prefixes(word) == expected, (fmt, word)


def test_word_numbers_round_trip(lexicons):
    numbered = {}
    for fmt, lex in lexicons.items():
        numbers = [lex.key_id(w) for w in WORDS]
        assert numbers == [n for _, n in lex.iter_numbered_words()], fmt
        numbering = FORMATS[fmt].numbering
        if numbering is None:
            assert len(set(numbers)) == len(WORDS), fmt
            with pytest.raises(ParameterError, match="number"):
                lex.restore_key(numbers[0])
        else:
            assert numbers == [numbering(i, len(WORDS)) for i in range(len(WORDS))], fmt
            assert [lex.restore_key(n) for n in numbers] == WORDS, fmt
            numbered[fmt] = numbers
            for bad in (min(numbers) - 1, max(numbers) + 1, True, 1.0):
                with pytest.raises(ParameterError, match="number"):
                    lex.restore_key(bad)
        for absent in ABSENT:
            with pytest.raises(KeyError):
                lex.key_id(absent)
    assert set(numbered) == {"dawg", "adtdawg"}


def test_each_formats_tight_descents_agree_with_its_word_steps(built, make_lexicon):
    """The formats' one-loop lookups give what the generic descent through their word steps gives."""
    generic = Lexicon._descents.func  # what a format without loops of its own would use
    for build in (make_lexicon(WORDS), built("twl06", "14")):
        for fmt in FORMATS:
            lex = open_lexicon(build, fmt)
            tight, steps = lex._descents, generic(lex)
            for word in [*WORDS, *ABSENT[1:], "decorate", "recordings", "teaspoons", "queenliness", "qinto"]:
                folded = lex._folded(word)
                if not folded:
                    continue
                assert tight.number(folded) == steps.number(folded), (fmt, word)
                assert (tight.has(folded) is None) == (steps.number(folded) is None), (fmt, word)
                assert tight.word_ends(folded) == steps.word_ends(folded), (fmt, word)


def test_queries_agree_across_formats_on_a_real_list(built):
    lexicons = [open_lexicon(built("twl06", "14"), fmt) for fmt in FORMATS]
    for prefix in ("", "de", "qu", "zz", "reconsid"):
        results = {tuple(lex.keys(prefix)) for lex in lexicons}
        assert len(results) == 1, prefix
    assert len({len(lex) for lex in lexicons}) == 1
    for word in ("decorate", "coin", "recordings", "xyz", "tear"):
        assert len({(word in lex, tuple(lex.prefixes(word))) for lex in lexicons}) == 1, word


def test_one_board_calls_take_a_shape(lexicons):
    for fmt, lex in lexicons.items():
        assert lex.score("teasatesquen", shape=Shape(3, 4)) == lex.score("teas/ates/quen"), fmt
        assert lex.score_and_count("teasatesquen", shape=(3, 4)) == lex.score_and_count("teas/ates/quen"), fmt
        assert ([f.word for f in lex.words("teasatesquen", shape=(3, 4))]
                == [f.word for f in lex.words("teas/ates/quen")]), fmt


def test_dawgc_lookup(make_lexicon):
    build = make_lexicon(WORDS)
    result = dawgc("lookup", str(build), "-f", "dawg", "Queen", "qat", "eat")
    assert result.returncode == 1  # like grep: 1 when a word is absent
    assert result.stdout.splitlines() == ["Queen\tfound\t4", "qat\tabsent", "eat\tfound\t2"]
    result = dawgc("lookup", str(build), "-f", "adtdawg", "--json", "queens", "tea")
    assert result.returncode == 0
    assert json.loads(result.stdout) == [{"word": "queens", "found": True, "number": len(WORDS) - 5},
                                         {"word": "tea", "found": True, "number": len(WORDS) - 11}]
    result = dawgc("lookup", str(build), "-f", "dawg", "-", stdin="Queen\nqat\neat\n")  # many: the batch lookup
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["Queen\tfound\t4", "qat\tabsent", "eat\tfound\t2"]
    # read as a word list is: a byte order mark, blank lines, comments, spaces and CRLF
    result = dawgc("lookup", str(build), "-f", "dawg", "-", stdin="\ufeffQueen\n\n# a comment\n  qat  \r\neat\n")
    assert result.stdout.splitlines() == ["Queen\tfound\t4", "qat\tabsent", "eat\tfound\t2"]
    nothing = dawgc("lookup", str(build), "-", stdin="")
    assert (nothing.returncode, nothing.stdout) == (0, "")
    for data, line in ((b"tea\n\xffdog\n", "stdin line 2: not UTF-8 text"),
                       (b"tea\neat\nd\x00g\n", "stdin line 3: binary data (a NUL byte), not words")):
        proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "lookup", str(build), "-"], input=data,
                              capture_output=True, cwd=REPO, timeout=120)
        assert proc.returncode == 1 and proc.stdout == b"" and proc.stderr.decode().strip() == f"dawgc: error: {line}"


def test_dawgc_words_with_a_prefix(make_lexicon):
    build = make_lexicon(WORDS)
    result = dawgc("words", str(build), "--prefix", "QU")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["queen", "queens", "quit", "quite"]
    result = dawgc("words", str(build), "-f", "dawg", "--prefix", "te", "--numbers")
    assert result.stdout.splitlines() == ["tea\t11", "teas\t12", "tee\t13", "teen\t14"]
    result = dawgc("words", str(build), "--prefix", "zz")
    assert result.returncode == 0 and result.stdout == ""
