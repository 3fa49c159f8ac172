"""Words as written: a build keeps the spellings its list gives beside the form the game plays, and
every format, the one-board command and the library show them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zlib

import msgpack
import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.verify import verify
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.language import ENGLISH, load_language
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.written import BLOCK_WORDS, HEADER, MAX_FORMS, WRITTEN_FILE

from support import run_cli

GERMAN = load_language("de")
GERMAN_LIST = ["Straße", "gläsern", "Apfel", "HAUS", "haus", "Äpfel", "baum", "Weg", "weg"]


def build(tmp_path, lines, language=GERMAN, input_format="plain", name="list.txt"):
    source = tmp_path / name
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / f"{name}-out"
    build_lexicon(source, language.charset(), out, options=ListOptions(language, input_format))
    return source, out


def test_a_plain_list_keeps_its_own_spelling_of_each_word_it_writes_otherwise(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    manifest = msgpack.unpackb((out / MANIFEST_FILE).read_bytes())
    assert manifest["written"]["words"] == 5  # strasse, glaesern, apfel, aepfel, weg; "HAUS" says "haus" again
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        assert lex.written("strasse") == ("Straße",)
        assert lex.written("Straße") == ("Straße",)  # asked as written, too
        assert lex.written("GLAESERN") == ("gläsern",)
        assert lex.written("aepfel") == ("Äpfel",)
        assert lex.written("weg") == ("Weg",)  # "weg" is the game's own spelling: only "Weg" says more
        assert lex.written("haus") == ("haus",)
        assert lex.written("baum") == ("baum",)
        assert lex.written("zzz") == ("zzz",)


def test_found_words_carry_their_spelling_in_every_format(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    for fmt in FORMATS:
        found = {f.word: f for f in open_lexicon(out, fmt).words("glaenresxxxxxxxx", shape=(4, 4))}
        assert found["glaesern"].written == ("gläsern",)
        assert found["glaesern"].shown == "gläsern"
        assert all(f.written == () and f.shown == f.word for w, f in found.items() if w != "glaesern")


def test_the_one_board_command_shows_the_spelling_beside_the_word(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    text = run_cli("boggle_dawg", str(out), "glaenresxxxxxxxx", "--words")
    assert text.returncode == 0, text.stderr
    assert "glaesern  (gläsern)" in text.stdout
    data = json.loads(run_cli("boggle_dawg", str(out), "glaenresxxxxxxxx", "--json").stdout)
    assert {"word": "glaesern", "points": 11, "written": ["gläsern"]} in data["words"]


def test_tanglet_columns_are_the_spellings_in_their_order(tmp_path):
    lines = ["AAL aal Aal", "AALAEHNLICH aalähnlich", "ALPENSTRASSE Alpenstraße", "BAUM", "WEG Weg weg"]
    _, out = build(tmp_path, lines, input_format="tanglet")
    lex = open_lexicon(out)
    assert lex.written("aal") == ("Aal",)  # "aal" is the game's own spelling
    assert lex.written("aalaehnlich") == ("aalähnlich",)
    assert lex.written("alpenstrasse") == ("Alpenstraße",)
    assert lex.written("baum") == ("baum",)
    assert lex.written("weg") == ("Weg",)


def test_an_english_list_in_one_case_keeps_no_spellings_and_its_bytes(tmp_path):
    _, lower = build(tmp_path, ["cat", "dog", "queen"], ENGLISH, name="lower.txt")
    _, upper = build(tmp_path, ["CAT", "DOG", "QUEEN"], ENGLISH, name="upper.txt")
    assert not (lower / WRITTEN_FILE).exists() and not (upper / WRITTEN_FILE).exists()
    assert "written" not in msgpack.unpackb((lower / MANIFEST_FILE).read_bytes())
    assert (lower / "trie.bin").read_bytes() == (upper / "trie.bin").read_bytes()
    assert open_lexicon(lower).written("Queen") == ("queen",)


def test_a_build_with_spellings_is_rebuilt_from_a_list_without_and_back(tmp_path):
    """The written file is a build's file whether or not the next build writes one."""
    _, out = build(tmp_path, GERMAN_LIST)
    assert (out / WRITTEN_FILE).exists()
    build(tmp_path, ["haus", "baum"])  # the same output: nothing to keep aside
    assert not (out / WRITTEN_FILE).exists() and set(open_lexicon(out)) == {"haus", "baum"}
    build(tmp_path, GERMAN_LIST)
    assert open_lexicon(out).written("strasse") == ("Straße",)


def test_spellings_span_many_blocks_and_read_back_exactly(tmp_path):
    letters = "abcdefghijklmnoprst"  # no q: a q without its u is no word
    words = [f"Wort{a}{b}{c}" for a in letters for b in letters for c in letters][:3 * BLOCK_WORDS + 5]
    source, out = build(tmp_path, words)
    lex = open_lexicon(out, "dawg")
    assert all(lex.written(w.lower()) == (w,) for w in words)
    result = verify(out, source)
    assert result.ok, result.checks
    assert f"ok    written: the spellings of {source} for all {len(words)} words it writes otherwise" in result.checks


def test_a_word_keeps_its_first_max_forms_spellings(tmp_path):
    variants = ["".join(ch.upper() if bit else ch for ch, bit in zip("abba", map(int, f"{n:04b}"))) for n in range(1, 15)]
    _, out = build(tmp_path, ["abba", *variants])  # 14 spellings besides the game's own, none in capitals only
    assert open_lexicon(out).written("abba") == tuple(variants[:MAX_FORMS])


def test_the_same_list_gives_the_same_bytes(tmp_path):
    _, first = build(tmp_path, GERMAN_LIST, name="a.txt")
    _, second = build(tmp_path, GERMAN_LIST, name="b.txt")
    assert (first / WRITTEN_FILE).read_bytes() == (second / WRITTEN_FILE).read_bytes()


def rewrite(out, data: bytes) -> None:
    """Replace written.bin and vouch for it in the manifest, as a hostile build would."""
    manifest = msgpack.unpackb((out / MANIFEST_FILE).read_bytes())
    manifest["written"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    for name, content in ((WRITTEN_FILE, data), (MANIFEST_FILE, msgpack.packb(manifest))):
        os.chmod(out / name, 0o644)
        (out / name).write_bytes(content)


def test_a_written_file_changed_after_the_build_is_refused_on_open(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    path = out / WRITTEN_FILE
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    os.chmod(path, 0o644)
    path.write_bytes(bytes(data))
    with pytest.raises(DawgError, match="written.bin: does not match its manifest"):
        open_lexicon(out)


@pytest.mark.parametrize("damage, message", [
    (lambda d: b"NOTWRITN" + d[8:], "not a written-forms file"),
    (lambda d: d[:-3], "bytes, its header says"),
    (lambda d: d[:HEADER.size - 1], "shorter than its header"),
])
def test_a_damaged_written_file_that_its_manifest_vouches_for_is_one_error_on_open(tmp_path, damage, message):
    _, out = build(tmp_path, GERMAN_LIST)
    rewrite(out, damage((out / WRITTEN_FILE).read_bytes()))
    with pytest.raises(DawgError, match=message):
        open_lexicon(out)


def test_a_damaged_block_is_one_error_when_read_and_a_failed_verify(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    data = bytearray((out / WRITTEN_FILE).read_bytes())
    head = HEADER.unpack(data)
    start = len(data) - int(head["data_bytes"])
    block = zlib.compress(b"strasse\tStra\xc3\x9fe", 9)  # one word where the tables say five
    rewrite(out, bytes(data[:start]) + block)
    with pytest.raises(DawgError, match="does not match its manifest|header says"):
        open_lexicon(out)  # the data size is in the header: the damage shows on open
    # the same size, other words: read when first asked for
    data = bytes(data[:start]) + zlib.compress(b"a\tb\n" * 5, 9)[:int(head["data_bytes"])].ljust(int(head["data_bytes"]), b"\0")
    rewrite(out, data)
    lex = open_lexicon(out)
    with pytest.raises(DawgError, match="block 0"):
        lex.written("strasse")
    result = verify(out)
    assert not result.ok and any(line.startswith("FAIL  written: ") for line in result.checks)


def test_a_copy_without_its_written_file_is_refused(tmp_path):
    _, out = build(tmp_path, GERMAN_LIST)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / WRITTEN_FILE).unlink()
    with pytest.raises(DawgError, match="written.bin"):
        open_lexicon(copy)
