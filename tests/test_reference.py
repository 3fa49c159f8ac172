"""Facts from PRODUCT.md and adtdawg-format.md, checked against ../shared."""

from __future__ import annotations

import pytest

from boggle_dawg.compiler.verify import verify
from boggle_dawg.compiler.wordlist import load_word_list
from boggle_dawg.solver.charset import ENGLISH_CHARSET, JPA14, parse_charset
from boggle_dawg.solver.formats.adtdawg import AdtLexicon
from boggle_dawg.solver.lexicon import open_lexicon

from support import shared_path

REFERENCE_NODES = 29_797
REFERENCE_CHILD_SETS = 1_505


def lexicon_14() -> list[str]:
    lines = shared_path("reference", "jpa14", "Lexicon_14.txt").read_text().split()
    assert int(lines[0]) == len(lines) - 1
    return [w.lower() for w in lines[1:]]


def test_twl06_counts():
    twl06 = load_word_list(shared_path("lexicons", "twl06.txt"), parse_charset("26"))
    assert twl06.entries == 178_691
    jpa = load_word_list(shared_path("lexicons", "twl06.txt"), parse_charset("14"), max_length=15)
    assert [ENGLISH_CHARSET.unfold(w) for w in jpa.words] == lexicon_14()
    assert len(jpa.words) == 44_220


def test_our_jpa14_adtdawg_matches_the_reference_lexicon(built):
    out = built("twl06", "14")
    lex = open_lexicon(out, "adtdawg")
    assert isinstance(lex, AdtLexicon) and lex.charset.letters == JPA14
    assert lex.layout.is_reference and lex.layout.node_bytes == 4
    nodes = len(lex.nodes) - 1
    assert nodes <= REFERENCE_NODES
    assert nodes == 28_624  # fewest possible with the documented numbering (docs/formats.md)
    assert len(lex.child_sets) == REFERENCE_CHILD_SETS
    numbered = lex.numbered_words()
    assert [ENGLISH_CHARSET.unfold(w) for w, _ in numbered] == lexicon_14()
    assert [n for _, n in numbered] == list(range(44_220, 0, -1))  # words >= it, alphabetically


def test_reference_files_read_with_the_same_reader(built):
    ref = open_lexicon(shared_path("reference", "jpa14"))
    assert isinstance(ref, AdtLexicon) and ref.layout.is_reference
    assert len(ref.nodes) - 1 == REFERENCE_NODES and len(ref.child_sets) == REFERENCE_CHILD_SETS
    assert ref.wide_nodes == 1_009
    numbered = ref.numbered_words()
    assert [ENGLISH_CHARSET.unfold(w) for w, _ in numbered] == lexicon_14()
    assert numbered == open_lexicon(built("twl06", "14"), "adtdawg").numbered_words()
    assert verify(shared_path("reference", "jpa14")).ok


def test_same_child_sets_as_the_reference(built):
    ours = open_lexicon(built("twl06", "14"), "adtdawg")
    ref = open_lexicon(shared_path("reference", "jpa14"))
    assert set(ours.child_sets[:, 0].tolist()) == set(ref.child_sets[:, 0].tolist())


@pytest.mark.parametrize("fmt", ["trie", "dawg", "adtdawg"])
def test_all_formats_hold_lexicon_14(built, fmt):
    assert open_lexicon(built("twl06", "14"), fmt).word_list() == lexicon_14()
