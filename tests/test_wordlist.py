"""Word-list parsing and the Boggle rules (compiler/wordlist.py), and charsets."""

from __future__ import annotations

import pytest

from compiler.wordlist import load_word_list
from solver.charset import JPA14, RANKING, parse_charset, ranked
from solver.errors import DawgError

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
    with pytest.raises(DawgError, match="^max_length"):
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
