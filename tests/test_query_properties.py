"""Property tests (hypothesis) of the word queries on every format, in alphabets of different kinds:
English with its Qu die, Polish (its letters not in code point order: ą after a) and Russian.

For any list of words built into a lexicon: `in` holds exactly for its words (as written, any case),
the batch lookup (`key_ids`, `contains_many`) answers as `key_id` and `in` do, `prefixes` gives the
words that begin a word,
iteration and `keys(prefix)` give the sorted words in the language's letter order, `key_id` numbers
every word apart, and `restore_key` gives each number's word back where a format numbers words
densely (dawg, adtdawg). Each example is a fresh build, so the examples are few and small.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boggle_dawg import build_lexicon
from boggle_dawg.solver.errors import ParameterError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon

LANGUAGES = ["en", "pl", "ru"]
DENSE = {"dawg", "adtdawg"}  # the formats whose words' numbers restore_key takes


def tokens(language: str) -> list[str]:
    """What a word is made of: the letters, a tile's face in place of its symbol ('qu', not 'q')."""
    lang = load_language(language)
    faces = dict(lang.tiles)
    return [faces.get(letter, letter) for letter in lang.letters]


def spelled_words(language: str):
    """Words of 3 to 7 tokens from a few of the language's letters (few, so that words share prefixes)."""
    return st.lists(st.sampled_from(tokens(language)), min_size=2, max_size=5, unique=True).flatmap(
        lambda some: st.lists(st.lists(st.sampled_from(some), min_size=3, max_size=7).map("".join),
                              min_size=1, max_size=30))


def code_order(language: str):
    """The sort key of the formats' order: the language's letters in their order, a tile as its symbol."""
    lang = load_language(language)
    rank = {face: lang.letters.index(symbol) for symbol, face in lang.tiles}
    rank.update((letter, lang.letters.index(letter)) for letter in lang.letters if letter not in rank)
    longest = max(map(len, rank))

    def key(word: str) -> list[int]:
        out, at = [], 0
        while at < len(word):
            size = next(n for n in range(longest, 0, -1) if word[at:at + n] in rank)
            out.append(rank[word[at:at + size]])
            at += size
        return out

    return key


@pytest.mark.parametrize("language", LANGUAGES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_word_queries_on_every_format(tmp_path_factory, language, data):
    words = data.draw(spelled_words(language), "words")
    expected = sorted(set(words), key=code_order(language))
    built = tmp_path_factory.mktemp("lexicon")
    build_lexicon(words, out=built, language=language)
    prefixes = data.draw(st.lists(st.sampled_from([w[:n] for w in expected for n in range(len(w) + 1)]),
                                  max_size=8), "prefixes")
    others = data.draw(st.lists(st.lists(st.sampled_from(tokens(language)), min_size=1, max_size=6).map("".join),
                                max_size=8), "others")
    for fmt in FORMATS:
        lex = open_lexicon(built, fmt)
        assert list(lex) == expected and len(lex) == len(expected)
        for prefix in ["", *prefixes]:
            assert list(lex.keys(prefix)) == [w for w in expected if w.startswith(prefix)], prefix
        for word in others:
            assert (word in lex) == (word in expected) and (word.upper() in lex) == (word in expected)
        numbers = [lex.key_id(word) for word in expected]
        assert len(set(numbers)) == len(numbers)
        assert [lex.key_id(word.upper()) for word in expected] == numbers
        if fmt in DENSE:
            assert [lex.restore_key(number) for number in numbers] == expected
        else:
            with pytest.raises(ParameterError):
                lex.restore_key(numbers[0])
        for word in others:
            if word not in expected:
                with pytest.raises(KeyError):
                    lex.key_id(word)
        asked = [*expected, *others, *(w.upper() for w in others), "", "q", "x\ny"]
        single = [lex.key_id(w) if w in lex else -1 for w in asked]
        assert lex.key_ids(asked).tolist() == single  # the batch lookup, compiled, agrees word for word
        assert lex.contains_many(asked).tolist() == [w in lex for w in asked]
        assert lex.key_ids([]).tolist() == lex.contains_many(iter([])).tolist() == []  # none asked, none answered
        assert all(lex.prefixes(w) == [p for p in expected if w.startswith(p)] for w in expected)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_word_is_its_own_game_form_only_when_nothing_would_change_it(tmp_path, fmt):
    """A word of the lexicon's letters alone, lower case and in NFC, is looked up as it is (the quick
    path); any other, in NFD, in capitals, with a letter its language folds, a tile's letter or a
    character that is no letter (a private-use one, NUL, a line end), is looked up as its game form
    or not at all, in `in`, `key_id`, `prefixes` and the batch lookup alike."""
    import unicodedata

    cases = {"pl": (["łąka", "łąki", "ząb"], {"łąka": True, unicodedata.normalize("NFD", "łąka"): True,
                                             "ŁĄKA": True, "łą\ue001ka": False, "łą\0ka": False, "łą\nka": False}),
             "ru": (["елка", "ель"], {"ёлка": True, "ЁЛКА": True, "елка": True, "ел\ue001ка": False}),
             "de": (["quark", "strasse", "baer"], {"straße": True, "bär": True, "qark": False, "quark": True})}
    for language, (words, asked) in cases.items():
        built = tmp_path / language
        build_lexicon(words, out=built, language=language)
        lex = open_lexicon(built, fmt)
        for word, present in asked.items():
            assert (word in lex) is present, (language, word)
            assert lex.contains_many([word]).tolist() == [present] and bool(lex.key_ids([word])[0] >= 0) is present
            if present:
                assert lex.key_ids([word]).tolist() == [lex.key_id(word)]
                assert lex.prefixes(word)[-1] in words, (language, word)
            else:
                assert not lex.prefixes(word) or lex.prefixes(word)[-1] != word, (language, word)
