"""`dawgc build/verify/info/words` on small lists: round trips, determinism, atomic writes, errors."""

from __future__ import annotations

import json
import os
import random

import msgpack
import pytest

import boggle_dawg.compiler.dawg
import boggle_dawg.compiler.write
from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.verify import verify
from boggle_dawg.solver.charset import ENGLISH_CHARSET, parse_charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.formats.adtdawg import ADT_FILES
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.formats.dawg import DAWG_FILE
from boggle_dawg.solver.formats.trie import TRIE_FILE
from boggle_dawg.solver.lexicon import open_lexicon

from support import assert_clean_error, run_cli

WORDS = ["cat", "cats", "catsup", "dog", "dogs", "quit", "quits", "quiet", "equal", "aqua", "zebra",
         "tea", "teas", "tee", "tees", "ten", "tens", "net", "nets", "sent", "tent", "tents", "stent"]


def random_words(rng: random.Random, letters: str, count: int) -> list[str]:
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(count)]


@pytest.mark.parametrize("charset", ["26", "7", "ACENST", "14"])
def test_every_format_round_trips(make_lexicon, charset):
    out = make_lexicon(WORDS, charset)
    letters = parse_charset(charset).letters
    expected = sorted(w for w in WORDS if set(w.replace("qu", "q")) <= set(letters))
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        assert lex.word_list() == expected, fmt
        assert lex.word_count == len(expected)


def test_random_lists_round_trip_with_documented_numbering(make_lexicon):
    rng = random.Random(7)
    for letters in ("ab", "abc", "acdegilmnoprst", "abcdefghijklmnopqrstuvwxyz"):
        words = random_words(rng, letters, 400)
        out = make_lexicon(words, "26")
        expected = sorted({w for w in words if w.count("q") == w.count("qu")})
        result = verify(out)
        assert result.ok, result.checks
        dawg = open_lexicon(out, "dawg").numbered_words()
        adt = open_lexicon(out, "adtdawg").numbered_words()
        unfold = ENGLISH_CHARSET.unfold
        assert [unfold(w) for w, _ in dawg] == [unfold(w) for w, _ in adt] == expected
        assert [n for _, n in dawg] == list(range(len(expected)))
        assert [n for _, n in adt] == list(range(len(expected), 0, -1))


def test_builds_are_deterministic(tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS))
    a = build_lexicon(source, parse_charset("26"), tmp_path / "a")
    b = build_lexicon(source, parse_charset("26"), tmp_path / "b")
    for name in (TRIE_FILE, DAWG_FILE, MANIFEST_FILE, *ADT_FILES):
        assert (a.out_dir / name).read_bytes() == (b.out_dir / name).read_bytes(), name


def test_manifest_records_source_counts_and_checksums(make_lexicon):
    out = make_lexicon(WORDS, "14")
    m = msgpack.unpackb((out / MANIFEST_FILE).read_bytes())
    assert m["charset"] == "acdegilmnoprst"
    assert m["words"] == len(open_lexicon(out).word_list())
    assert m["source"]["name"] == "list1.txt" and len(m["source"]["sha256"]) == 64
    assert m["adtdawg"]["layout"]["first_child_bits"] == 15
    assert sum(m["dropped"].values()) + m["words"] == len(WORDS)


def previous_build(tmp_path):
    """A build of WORDS in tmp_path/out from tmp_path/list.txt: (source, out, its files' bytes)."""
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS))
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    return source, out, files_of(out)


def files_of(out):
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_failed_write_leaves_the_previous_build_intact(tmp_path, monkeypatch):
    source, out, before = previous_build(tmp_path)
    beside = sorted(p.name for p in tmp_path.iterdir())
    source.write_text("\n".join(WORDS + ["extra", "words", "here"]))

    real_open = open
    written = []

    def failing_open(path, mode="r", *args, **kwargs):
        if "w" in mode:
            written.append(path)
            if len(written) == 4:  # fail midway through the staged files
                raise OSError(28, "No space left on device", str(path))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(boggle_dawg.compiler.write, "open", failing_open, raising=False)
    with pytest.raises(DawgError, match="No space left on device"):
        build_lexicon(source, parse_charset("26"), out)
    assert files_of(out) == before  # same files, same bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == beside  # no temporaries left beside it
    assert verify(out).ok


@pytest.mark.parametrize("step", ["rename", "_exchange"])
def test_interrupted_build_leaves_no_partial_files(tmp_path, monkeypatch, step):
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS))
    out = tmp_path / "out"
    if step == "_exchange":  # replacing a build
        build_lexicon(source, parse_charset("26"), out)
    before = files_of(out) if out.exists() else None
    source.write_text("\n".join(WORDS[:5]))

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(boggle_dawg.compiler.write.os if step == "rename" else boggle_dawg.compiler.write, step, interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_lexicon(source, parse_charset("26"), out)
    assert (files_of(out) if out.exists() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["list.txt"] + (["out"] if before else [])


@pytest.mark.parametrize("words, max_length, fragment", [
    (WORDS, 256, "max_length: must be 3..255, got 256"),
    (WORDS + ["a" * 256], None, "line 24: 'aaaa"),
])
def test_lengths_the_header_cannot_hold_are_refused_before_writing(tmp_path, words, max_length, fragment):
    source, out, before = previous_build(tmp_path)
    source.write_text("\n".join(words))
    with pytest.raises(DawgError) as err:
        build_lexicon(source, parse_charset("26"), out, max_length=max_length)
    assert fragment in str(err.value)
    assert files_of(out) == before
    assert open_lexicon(out).word_count == len(WORDS)


def test_running_out_of_memory_is_one_line_and_keeps_the_old_build(tmp_path, monkeypatch):
    source, out, before = previous_build(tmp_path)

    def exhausted(*args):
        raise MemoryError

    monkeypatch.setattr(boggle_dawg.compiler.dawg, "minimise", exhausted)
    with pytest.raises(DawgError, match=f"{source}: not enough memory to build this lexicon"):
        build_lexicon(source, parse_charset("26"), out)
    assert files_of(out) == before


def test_a_255_letter_word_round_trips(make_lexicon):
    long_word = "ab" * 127 + "c"
    out = make_lexicon(WORDS + [long_word])
    for fmt in FORMATS:
        assert long_word in open_lexicon(out, fmt).word_list()
    assert verify(out).ok


def test_cli_build_info_verify_words(tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS))
    out = tmp_path / "out"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--charset", "14", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"built {out}/" in proc.stdout and "outside charset" in proc.stdout
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--out", str(tmp_path / "j"), "--json")
    assert json.loads(proc.stdout)["manifest"]["words"] == len(WORDS)
    proc = run_cli("boggle_dawg.dawgc_cli", "verify", str(out), "--source", str(source))
    assert proc.returncode == 0 and "FAIL" not in proc.stdout and "round trip" in proc.stdout
    proc = run_cli("boggle_dawg.dawgc_cli", "info", str(out), "--json")
    info = json.loads(proc.stdout)
    assert set(info["formats"]) == set(FORMATS)
    proc = run_cli("boggle_dawg.dawgc_cli", "words", str(out / TRIE_FILE))
    assert proc.stdout.split() == open_lexicon(out).word_list()


def test_a_fifo_word_list_is_refused_at_once(tmp_path):
    fifo = tmp_path / "words.fifo"
    os.mkfifo(fifo)
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(fifo), "--out", str(tmp_path / "out"), timeout=30)
    assert_clean_error(proc, f"{fifo}: a named pipe, not a word list file")
    assert not (tmp_path / "out").exists()


def test_a_word_list_piped_to_stdin_builds(tmp_path):
    proc = run_cli("boggle_dawg.dawgc_cli", "build", "/dev/stdin", "--out", str(tmp_path / "out"), "-q",
                   stdin="\n".join(WORDS) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert open_lexicon(tmp_path / "out").word_count == len(WORDS)


def test_format_names_are_case_insensitive(make_lexicon):
    out = make_lexicon(WORDS)
    assert open_lexicon(out, "DAWG").format == "dawg"
    proc = run_cli("boggle_dawg.dawgc_cli", "words", str(out), "--format", "AdtDawg")
    assert proc.returncode == 0 and proc.stdout.split() == sorted(WORDS), proc.stderr


def test_a_word_list_given_as_a_lexicon_says_to_build_it(tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS) + "\n")
    for command in ("words", "info", "verify"):
        proc = run_cli("boggle_dawg.dawgc_cli", command, str(source))
        assert_clean_error(proc, f"{source}: not a lexicon file", "a word list", f"dawgc build {source}")


def test_verify_detects_a_different_source(tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("\n".join(WORDS))
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    other = tmp_path / "other.txt"
    other.write_text("\n".join(WORDS[:-1]))
    proc = run_cli("boggle_dawg.dawgc_cli", "verify", str(out), "--source", str(other))
    assert proc.returncode == 1 and "FAIL" in proc.stdout and "SHA-256 differs" in proc.stdout


@pytest.mark.parametrize("args, fragment", [
    (["build", "{tmp}/missing.txt"], "missing.txt: no such file"),
    (["build", "{tmp}"], "is a directory"),
    (["build", "{empty}"], "no words in the file"),
    (["build", "{binary}"], "binary data"),
    (["build", "{accented}"], "line 2"),
    (["build", "{digits}"], "digit '4' inside a word"),
    (["build", "{good}", "--charset", "0"], "--charset: size must be 1..26, got 0"),
    (["build", "{good}", "--charset", "27"], "--charset: size must be 1..26, got 27"),
    (["build", "{good}", "--charset", "AABC"], "--charset: letter A repeated"),
    (["build", "{good}", "--charset", "AB?"], "--charset: '?' is not a letter"),
    (["build", "{good}", "--out", "{good}/sub/deeper"], "cannot create output directory ({good} is not a directory)"),
    (["build", "{good}", "--out", "{readonly}/sub"], "permission"),
    (["verify", "{tmp}/nothing"], "no such file or directory"),
    (["info", "{good}"], "not a lexicon file"),
    (["words", "{tmp}", "--format", "bogus"], "unknown format 'bogus'"),
])
def test_cli_errors_are_one_line(tmp_path, args, fragment):
    files = {"empty": b"", "binary": b"\x00\x01\x02", "accented": "cat\nna\u00efve\n".encode(),
             "digits": b"cat\ndo4g\n", "good": b"cat\ndog\n"}
    for name, data in files.items():
        (tmp_path / f"{name}.txt").write_bytes(data)
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o500)
    mapping = {"tmp": str(tmp_path), "readonly": str(readonly),
               **{name: str(tmp_path / f"{name}.txt") for name in files}}
    if "{readonly}" in " ".join(args) and os.geteuid() == 0:
        pytest.skip("root writes into read-only directories; the file-as-parent case covers this")
    proc = run_cli("boggle_dawg.dawgc_cli", *[a.format(**mapping) for a in args])
    assert_clean_error(proc, fragment.format(**mapping))
    assert not (readonly / "sub").exists() or not any((readonly / "sub").iterdir())


def language_text(letters: str, tiles: str = "[]", folds: str = "[]", title: str = "X") -> str:
    """A language file as a user writes one (vowels: its first letter)."""
    return (f'name = "x"\ntitle = "{title}"\nletters = "{letters}"\ntiles = {tiles}\nfolds = {folds}\n'
            f'vowels = "{letters[0]}"\n')


def test_a_tile_of_a_caseless_script_builds_a_lexicon_that_opens(tmp_path):
    language = tmp_path / "he.toml"
    language.write_text(language_text("אבגדהוזחטיכלמנסעפצקרשת", '[["ש", "שת"]]'))
    source = tmp_path / "list.txt"
    source.write_text("שלומ\nשתלמ\nאבג\n")
    out = tmp_path / "out"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", str(language), "--out", str(out))
    assert proc.returncode == 0 and "dropped: 1 ש without ת" in proc.stdout, proc.stderr
    for command in ("info", "verify"):
        proc = run_cli("boggle_dawg.dawgc_cli", command, str(out))
        assert proc.returncode == 0, proc.stderr
    assert open_lexicon(out).word_list() == ["אבג", "שתלמ"]  # שלומ has a ש outside its tile


@pytest.mark.parametrize("language, words, field", [
    (language_text("ᎠᎡᎢ"), "ᎠᎡᎢ", "field letters"),  # Cherokee capitals: case folding keeps them
    (language_text("abc", '[["a", "ab"], ["a", "ac"]]'), "abc", "field tiles"),
    (language_text("abc", '[["a", "ab"], ["b", "ab"]]'), "abc", "field tiles"),
    (language_text("ab", '[["a", "ab"], ["b", "ba"]]'),  # every letter a tile: once a shape mismatch
     "aaabb aaabbb aab aabbbbba aba abaaaaaaa abab ababbaaaa ababbaab abb abbabaaa abbabb abbb abbbbb baaab "
     "baaabbbba baab baababb baabb babaabb bbaaaa bbaabbba bbaba bbabbb bbabbbb bbbab bbbabaa", "field tiles"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "abc", "not a TOML file"),
], ids=["cherokee", "repeated-letter", "repeated-face", "every-letter-a-tile", "nested-toml"])
def test_cli_language_files_that_crashed_the_build_are_one_line(tmp_path, language, words, field):
    path = tmp_path / "lang.toml"
    path.write_text(language)
    source = tmp_path / "list.txt"
    source.write_text("\n".join(words.split()) + "\n")
    out = tmp_path / "out"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", str(path), "--out", str(out))
    assert_clean_error(proc, str(path), field)
    assert not out.exists()


def test_a_charset_size_for_a_language_of_a_few_latin_letters_is_one_line(tmp_path):
    path = tmp_path / "lang.toml"
    path.write_text(language_text("xyz"))
    source = tmp_path / "list.txt"
    source.write_text("xyz\n")
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", str(path), "--charset", "5",
                   "--out", str(tmp_path / "out"))
    assert_clean_error(proc, "--charset", "this alphabet has 3 letters")  # once a traceback: no ranked letter of it
