"""Word-list parsing and the Boggle rules (compiler/wordlist.py), and charsets."""

from __future__ import annotations

import hashlib
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

import boggle_dawg.compiler.wordlist
from boggle_dawg.compiler.wordlist import load_word_list
from boggle_dawg.solver.charset import JPA14, RANKING, parse_charset, ranked
from boggle_dawg.solver.errors import DawgError

from support import REPO, assert_clean_error, shared_path

ALL = parse_charset("26")


def write(tmp_path, data: bytes, name: str = "list.txt"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_case_line_ends_bom_blanks_comments_count_line(tmp_path):
    data = "\ufeff3\r\n# a comment\r\nZebra\r\n\r\n  apple  \rCAT\n".encode("utf-8")
    words = load_word_list(write(tmp_path, data), ALL)
    assert words.words == ["apple", "cat", "zebra"]
    assert words.entries == 3


def test_boggle_rules_and_drop_counts(tmp_path):
    text = "cat\nCat\nat\nqat\nquit\nqueue\nsuq\nfizz\nabcdefgh\nqi\n"
    words = load_word_list(write(tmp_path, text.encode()), ALL, max_length=6)
    # 'q' is folded: quit -> qit, queue -> qeue
    assert words.words == ["cat", "fizz", "qeue", "qit"]
    assert words.dropped == {"duplicate": 1, "too_short": 2, "q_without_u": 2, "outside_charset": 0,
                             "too_long": 1}
    assert words.max_length == 5  # queue: letters as spelled, qu = 2


def test_charset_filter_counts_outside_letters(tmp_path):
    words = load_word_list(write(tmp_path, b"cat\ndog\ntoad\n"), parse_charset("ACDOT"))
    assert words.words == ["cat", "toad"]
    assert words.dropped["outside_charset"] == 1


def test_count_line_only_at_the_top(tmp_path):
    with pytest.raises(DawgError, match=r"line 2: '12': digit '1' inside a word"):
        load_word_list(write(tmp_path, b"cat\n12\n"), ALL)


@pytest.mark.parametrize("data, message", [
    (b"", "no words in the file"),
    (b"\n\n# only a comment\n", "no words in the file"),
    (b"cat\x00dog\n", "binary data"),
    (b"\x89PNG\r\n\x1a\n\xff\xfe", "not UTF-8 text"),
    ("caf\u00e9\n".encode(), "line 1: 'caf\u00e9': '\u00e9' is not a letter A-Z"),
    (b"cat\ndo9g\n", "line 2: 'do9g': digit '9' inside a word"),
    (b"cat\nice cream\n", "line 2: 'ice cream': more than one word on the line"),
    (b"cat\nit's\n", "line 2: \"it's\": \"'\" is not a letter"),
    (b"xyz\n", "no words left for charset"),
])
def test_bad_lists_name_file_and_line(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(DawgError) as err:
        load_word_list(path, parse_charset("ACDEGILMNOPRST") if data == b"xyz\n" else ALL)
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DawgError, match="no such file"):
        load_word_list(tmp_path / "nope.txt", ALL)
    with pytest.raises(DawgError, match="is a directory"):
        load_word_list(tmp_path, ALL)


def test_max_length_below_three_is_rejected(tmp_path):
    with pytest.raises(DawgError, match=r"^max_length: must be 3\.\.255, got 2"):
        load_word_list(write(tmp_path, b"cat\n"), ALL, max_length=2)


def test_ranked_charsets():
    assert ranked(14).letters == JPA14
    assert ranked(26).letters == "abcdefghijklmnopqrstuvwxyz"
    for n in range(1, 27):
        letters = ranked(n).letters
        assert len(letters) == n and list(letters) == sorted(letters)
        assert set(letters) == set(RANKING[:n])
    assert parse_charset("14") == parse_charset("ACDEGILMNOPRST") == parse_charset("tsrponmligedca")


@pytest.mark.parametrize("spec, message", [
    ("0", "size must be 1..26, got 0"),
    ("27", "size must be 1..26, got 27"),
    ("-3", "size must be 1..26"),
    ("ABCA", "letter A repeated"),
    ("AB1", "'1' not letters a-z"),
    ("AB\u00c9", "not letters a-z"),
    ("", "empty"),
])
def test_bad_charsets(spec, message):
    with pytest.raises(DawgError, match="^charset") as err:
        parse_charset(spec)
    assert message in str(err.value)


# --- hostile word lists -------------------------------------------------------------


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_only_lf_crlf_cr_end_lines(tmp_path, separator):
    path = write(tmp_path, f"ant\ncat{separator}dog\n".encode())
    with pytest.raises(DawgError) as err:
        load_word_list(path, ALL)
    assert f"{path} line 2:" in str(err.value)
    assert f"U+{ord(separator):04X}" in str(err.value)


def test_control_character_alone_on_a_line_is_an_error(tmp_path):
    path = write(tmp_path, b"ant\n\x0c\ncat\n")
    with pytest.raises(DawgError, match=r"line 2: .*control character U\+000C"):
        load_word_list(path, ALL)


def test_tabs_and_spaces_around_a_word_are_still_accepted(tmp_path):
    assert load_word_list(write(tmp_path, b"\tant \t\r\n  cat\n"), ALL).words == ["ant", "cat"]


def test_word_over_255_letters_is_an_error_naming_the_line(tmp_path):
    path = write(tmp_path, b"ant\ncat\n" + b"a" * 256 + b"\n")
    with pytest.raises(DawgError) as err:
        load_word_list(path, ALL)
    assert f"{path} line 3:" in str(err.value) and "256 letters" in str(err.value) and "255" in str(err.value)
    assert load_word_list(write(tmp_path, b"ant\n" + b"b" * 255 + b"\n", "ok.txt"), ALL).max_length == 255


def test_word_over_255_letters_is_dropped_when_a_max_length_is_given(tmp_path):
    words = load_word_list(write(tmp_path, b"ant\ncat\n" + b"a" * 300 + b"\n"), ALL, max_length=10)
    assert words.words == ["ant", "cat"] and words.dropped["too_long"] == 1


@pytest.mark.parametrize("max_length", [256, 1000])
def test_max_length_over_255_is_rejected(tmp_path, max_length):
    with pytest.raises(DawgError, match=rf"max_length: must be 3\.\.255, got {max_length}"):
        load_word_list(write(tmp_path, b"cat\n"), ALL, max_length=max_length)


@pytest.mark.parametrize("max_length", [None, 10])
def test_a_ten_megabyte_line_fails_at_once(tmp_path, max_length):
    path = write(tmp_path, b"ant\ncat\n" + b"x" * 10_000_000 + b"\ndog\n")
    started = time.perf_counter()
    with pytest.raises(DawgError, match=r"line 3: longer than \d+ bytes"):
        load_word_list(path, ALL, max_length)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("data, message", [
    (b"cat\n" * 1000 + b"do\x00g\n", "binary data (NUL byte at offset 4002)"),
    (b"cat\n" * 1000 + b"d\xffg\n", "line 1001: not UTF-8 text (byte 0xff)"),
    (b"cat\rdog\r\xc3\x28\r", "line 3: not UTF-8 text (byte 0xc3)"),
])
def test_bad_bytes_are_found_in_a_streamed_file(tmp_path, data, message):
    with pytest.raises(DawgError) as err:
        load_word_list(write(tmp_path, data), ALL)
    assert message in str(err.value)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64, 1 << 20])
def test_chunk_boundaries_do_not_change_lines_words_or_checksum(tmp_path, monkeypatch, chunk):
    data = "\ufeff2\r\nzebra\r\rcat\r\n\n# note\rapple \n  dog".encode()
    monkeypatch.setattr(boggle_dawg.compiler.wordlist, "CHUNK_BYTES", chunk)
    words = load_word_list(write(tmp_path, data), ALL)
    assert words.words == ["apple", "cat", "dog", "zebra"]
    assert words.lines == len(data.decode("utf-8-sig").splitlines()) == 8
    assert words.sha256 == hashlib.sha256(data).hexdigest() and words.size == len(data)


@pytest.mark.parametrize("name", ["twl06", "sowpods"])
def test_real_lists_keep_their_line_counts_and_checksums(name):
    path = shared_path("lexicons", f"{name}.txt")
    data = path.read_bytes()
    words = load_word_list(path, ALL)
    assert words.sha256 == hashlib.sha256(data).hexdigest() and words.size == len(data)
    assert words.lines == len(data.decode("utf-8-sig").splitlines())


@pytest.mark.parametrize("device, fragment", [("/dev/zero", "binary data"), ("/dev/urandom", "/dev/urandom")])
def test_endless_devices_fail_at_once(tmp_path, device, fragment):
    if not Path(device).exists():
        pytest.skip(f"{device} not available")

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    started = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", device, "--out", str(tmp_path / "o")],
                              check=False, capture_output=True, text=True, timeout=30, cwd=REPO,
                              preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"building {device} still running after 30 s")
    assert_clean_error(proc, fragment)
    assert time.perf_counter() - started < 15
    assert not (tmp_path / "o").exists()
