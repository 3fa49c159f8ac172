"""The library at the top of the package (`import boggle_dawg`): docs/extending.md's example runs as written,
the names are typed and load on first use, and bad arguments are ParameterErrors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import pytest

import boggle_dawg
from boggle_dawg.solver.errors import ParameterError
from boggle_dawg.solver.lexicon import read_manifest
from boggle_dawg.solver.rules import STANDARD, load_rules

from support import REPO, assert_clean_error, run_cli


def _example() -> str:
    page = (REPO / "docs" / "extending.md").read_text()
    section = page[page.index("## The library"):page.index("## Python API")]
    block = re.search(r"((?:    .*\n|\n(?=    ))+)", section)[1]
    return "\n".join(line[4:] for line in block.splitlines())


def test_the_documented_example_runs_as_written(tmp_path):
    """Run in a folder of its own (it builds into build/mine) with a fresh cache for the default lexicon."""
    code = _example().replace("boggle_dawg.default_lexicon()", "assert boggle_dawg.default_lexicon().word_count")
    lines = [line.split("  #")[0].rstrip() for line in code.splitlines()]
    checks = ["assert solution.score == 4",
              "assert [(f.word, f.points) for f in solution.words][:2] == [('cats', 1), ('tact', 1)]",
              "assert boggle_dawg.solve('cats/tact/xxxx/xxxx', lex, rules='big').score == 2",
              "assert boggle_dawg.solve('cats/tact/xxxx/xxxx', lex, rules=house).score == 4"]
    proc = subprocess.run([sys.executable, "-c", "\n".join(lines + checks)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "BOGGLE_DAWG_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "build" / "mine" / "manifest.msgpack").is_file()


def test_import_loads_nothing_heavy_and_names_load_on_first_use():
    code = ("import sys, boggle_dawg; assert 'numpy' not in sys.modules, 'numpy'; "
            "boggle_dawg.open_lexicon; assert 'boggle_dawg.api' not in sys.modules, 'the open loaded api'; "
            "boggle_dawg.solve; assert 'boggle_dawg.api' in sys.modules; "
            "assert boggle_dawg.open_lexicon is boggle_dawg.api.open_lexicon")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert set(boggle_dawg.__all__) <= set(dir(boggle_dawg)) | set(boggle_dawg._LAZY) | {"__version__"}
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        boggle_dawg.nosuch  # noqa: B018
    assert (REPO / "boggle_dawg" / "py.typed").is_file()


def test_bad_arguments_are_parameter_errors(tmp_path):
    with pytest.raises(ParameterError, match="out: needed"):
        boggle_dawg.build_lexicon(["cat"])
    with pytest.raises(ParameterError, match="words: must be strings"):
        boggle_dawg.build_lexicon(["cat", 3], out=tmp_path / "x")
    lex = boggle_dawg.build_lexicon(["cat", "cats"], out=tmp_path / "y")
    with pytest.raises(boggle_dawg.solver.errors.DawgError, match="neither a rules file nor built-in rules"):
        boggle_dawg.solve("cats", lex, rules="nosuch")
    for call, name in ((lambda: lex.score(None), "board"), (lambda: lex.score_many(["cats", b"cats"]), "board"),
                       (lambda: boggle_dawg.open_lexicon(None), "path"), (lambda: boggle_dawg.open_lexicon(3), "path"),
                       (lambda: boggle_dawg.open_lexicon(tmp_path / "y", 3), "format")):
        with pytest.raises(ParameterError, match=f"^{name}: "):  # the library's own error, not a TypeError from inside
            call()
    with pytest.raises(boggle_dawg.solver.errors.DawgError, match="File name too long"):
        boggle_dawg.open_lexicon(tmp_path / ("a" * 300))


def test_arguments_are_taken_in_every_documented_form_and_checked_in_each(tmp_path):
    """A size as a Shape or a (rows, cols) pair, checked either way; key_ids' numbers back to words; rules by
    name; a list's words named by their place in it."""
    import numpy as np

    from boggle_dawg.solver.board import Shape
    from boggle_dawg.solver.dice_sets import load_dice, roll
    from boggle_dawg.solver.proof import make_plan, prove_class
    from boggle_dawg.solver.search import Budget, rearrange, search

    lex = boggle_dawg.build_lexicon(["cat", "cats", "act", "tact", "scat"], out=tmp_path / "x")
    for shape in (Shape(9, 9), Shape(0, 3), Shape(16, 1), (4.5, 4)):
        with pytest.raises(ParameterError, match="^shape: "):
            lex.score_codes(np.zeros((1, 16), np.int64), shape)
    for codes in (np.full((1, 4), 0.9), np.full((1, 4), np.nan)):  # no truncation to 'a', no warning printed
        with warnings.catch_warnings(), pytest.raises(ParameterError, match="^codes: must be an array of integer"):
            warnings.simplefilter("error")
            lex.score_codes(codes, (2, 2))
    with lex.scorer() as scorer:
        assert search(scorer, (2, 2), Budget(rounds=1), seed=1).best.score >= 0
        assert rearrange(scorer, "tacs", (2, 2), Budget(rounds=1), seed=1).search.best.score == lex.score("cats")
    assert next(roll(load_dice("classic"), (4, 4), 5)).shape == Shape(4, 4)
    dense = boggle_dawg.open_lexicon(tmp_path / "x", "dawg")
    assert dense.restore_key(dense.key_ids(["tact"])[0]) == "tact"  # a numpy integer, as key_ids gives
    assert prove_class(lex, make_plan(lex, (2, 2)), 0, 1, rules="big").class_id == 0
    for limits, name in (({"rounds": "3"}, "rounds"), ({"rounds": 1.5}, "rounds"), ({"seconds": "1"}, "seconds"),
                         ({"rounds": 1, "target": "x"}, "target")):
        with pytest.raises(ParameterError, match=f"^{name}: must be a "):
            Budget(**limits)
    with pytest.raises(ParameterError, match="^seed: must be a whole number, 0 or more"):
        boggle_dawg.solver.proof.prove(lex, (2, 2), 1, seed=-1)
    with lex.scorer() as scorer:
        for options, name in (({"top": "3"}, "top"), ({"seed": 1.5}, "seed"), ({"pool": 1.5}, "pool")):
            with pytest.raises(ParameterError, match=f"^{name}: must be a whole number"):
                search(scorer, (2, 2), Budget(rounds=1), **options)
    with pytest.raises(ParameterError, match="^seed: must be a whole number"):
        next(roll(load_dice("classic"), None, 1.5))
    with pytest.raises(ParameterError, match="^classes: must be the buckets' letters as text"):
        boggle_dawg.solver.proof.prove(lex, (2, 2), 1, classes=5)
    with pytest.raises(ParameterError, match=r"^words\[1\]: 'a\\nb': a line break or NUL inside a word"):
        boggle_dawg.build_lexicon(["cat", "a\nb"], out=tmp_path / "y")
    with pytest.raises(boggle_dawg.solver.errors.DawgError, match=r"^words\[1\]: 'Café': 'é' is not a letter"):
        boggle_dawg.build_lexicon(["cat", "Café"], out=tmp_path / "y")


def test_a_build_scores_under_the_rules_it_was_built_with(tmp_path):
    """`dawgc build --rules` (here `build_lexicon(rules=)`) records the rules in the manifest: the lexicon
    scores under them unless a call names others; a standard build's manifest records none."""
    words = ["cat", "cats", "act", "tact"]
    big = boggle_dawg.build_lexicon(words, out=tmp_path / "big", rules="big")
    plain = boggle_dawg.build_lexicon(words, out=tmp_path / "plain")
    assert big.rules.name == "big" and big.rules.title == "Big Boggle" and plain.rules.name == "standard"
    assert boggle_dawg.solve("cats/tact/xxxx/xxxx", big).score == 2
    assert boggle_dawg.solve("cats/tact/xxxx/xxxx", big, rules="standard").score == 4
    assert big.score_many(["cats/tact/xxxx/xxxx"]).tolist() == [2]
    assert "rules" not in read_manifest(tmp_path / "plain" / "manifest.msgpack").data
    assert read_manifest(tmp_path / "big" / "manifest.msgpack").data["rules"]["min_length"] == 4


def test_the_built_in_standard_rules_are_those_of_their_file():
    """The default rules are built in (no TOML parser on the one-board path); solver/rule_sets/standard.toml,
    the file people copy, must hold the same rule set, its source line included."""
    written = load_rules(REPO / "solver" / "rule_sets" / "standard.toml")
    assert written is not STANDARD and written == STANDARD and written.source == STANDARD.source
    assert load_rules(None) is load_rules("standard") is STANDARD


def test_a_language_file_names_the_default_rules_of_its_builds(tmp_path):
    """`rules = "big"` in a language file: its builds score under Big Boggle's rules; `dawgc build --rules`
    overrides it, says so, and an unknown name is a usage error (exit 2)."""
    language = tmp_path / "big-en.toml"
    english = (REPO / "solver" / "languages" / "en.toml").read_text()
    language.write_text(english.replace('name = "en"', 'name = "big-en"') + 'rules = "big"\n')
    words = tmp_path / "words.txt"
    words.write_text("cat\ncats\nact\ntact\n")
    assert boggle_dawg.build_lexicon(words, out=tmp_path / "a", language=language).rules.name == "big"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(words), "--language", str(language), "--rules", "words",
                   "--out", str(tmp_path / "b"))
    assert proc.returncode == 0, proc.stderr
    assert "rules    words (3+ letters; 3+: 1)" in proc.stdout
    assert boggle_dawg.open_lexicon(tmp_path / "b").rules.name == "words"
    assert_clean_error(run_cli("boggle_dawg.dawgc_cli", "build", str(words), "--rules", "nosuch", "--out",
                               str(tmp_path / "c")), "--rules: rules 'nosuch'")
    bad = tmp_path / "bad.toml"
    bad.write_text(english.replace('name = "en"', 'name = "bad"') + 'rules = "house"\n')
    with pytest.raises(boggle_dawg.solver.errors.DawgError, match="field rules: the string 'house' is not a built-in"):
        boggle_dawg.build_lexicon(words, out=tmp_path / "d", language=bad)
