"""Read a plain word list and apply the Boggle rules to it.

Accepted: any letter case, LF/CRLF/CR line ends, a UTF-8 byte-order mark,
blank lines, comment lines starting with '#', surrounding spaces, a leading
word-count line (as in `Lexicon_14.txt`) and repeated words. Anything else
that is not a word of letters A-Z (binary data, digits, punctuation, accented
letters, two words on a line) is an error naming the file and line.

Boggle rules, in this order, each drop counted: a repeated word; fewer than 3
letters; a 'q' not followed by 'u'; letters outside the charset (after "qu" is
folded into the single symbol 'q', the Qu die); more letters than the maximum
length. Lengths count letters as written, so "qu" counts two.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from solver.charset import Charset
from solver.errors import DawgError, ParameterError, reading

MIN_LENGTH = 3
DROP_REASONS = ("duplicate", "too_short", "q_without_u", "outside_charset", "too_long")


@dataclass
class WordList:
    """The words a lexicon will hold: folded ('q' = Qu), unique, sorted."""

    path: Path
    sha256: str
    size: int
    lines: int
    entries: int
    words: list[str]
    dropped: dict[str, int] = field(default_factory=dict)
    max_length: int = 0  # longest kept word, in letters (qu = 2)

    @property
    def symbols_max(self) -> int:
        """Longest kept word in dice (qu = 1)."""
        return max((len(w) for w in self.words), default=0)


def read_entries(path: Path) -> tuple[list[str], int, bytes]:
    """The lower-cased words of a list file, in file order, with its line count and raw bytes."""
    with reading(path, "word list"):
        data = path.read_bytes()
    nul = data.find(b"\0")
    if nul >= 0:
        raise DawgError(f"{path}: binary data (NUL byte at offset {nul}), not a word list")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DawgError(f"{path} line {line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from None

    lines = text.splitlines()
    words: list[str] = []
    count_line_allowed = True
    for number, raw in enumerate(lines, 1):
        word = raw.strip()
        if not word or word.startswith("#"):
            continue
        if word.isascii() and word.isalpha():
            words.append(word.lower())
        elif count_line_allowed and word.isdigit():
            pass  # a leading word count, as in Lexicon_14.txt
        else:
            raise DawgError(f"{path} line {number}: {_describe_bad_word(word)}")
        count_line_allowed = False
    return words, len(lines), data


def _describe_bad_word(word: str) -> str:
    shown = word if len(word) <= 40 else word[:37] + "..."
    bad = next(ch for ch in word if not (ch.isascii() and ch.isalpha()))
    if bad.isspace():
        what = "more than one word on the line"
    elif bad.isalpha():
        what = f"{bad!r} is not a letter A-Z"
    elif bad.isdigit():
        what = f"digit {bad!r} inside a word"
    elif not bad.isprintable():
        what = f"control character U+{ord(bad):04X}"
    else:
        what = f"{bad!r} is not a letter"
    return f"{shown!r}: {what}"


def fold_qu(word: str) -> str | None:
    """The word with each "qu" as the one symbol 'q', or None if some 'q' lacks its 'u'."""
    if "q" not in word:
        return word
    if word.count("q") != word.count("qu"):
        return None
    return word.replace("qu", "q")


def load_word_list(path: Path, charset: Charset, max_length: int | None = None) -> WordList:
    """Read a word list and keep the words a Boggle lexicon over `charset` holds."""
    if max_length is not None and max_length < MIN_LENGTH:
        raise ParameterError("max_length", f"must be at least {MIN_LENGTH}, got {max_length}")
    entries, line_count, data = read_entries(path)
    if not entries:
        raise DawgError(f"{path}: no words in the file")
    dropped = dict.fromkeys(DROP_REASONS, 0)
    allowed = set(charset.letters)
    seen: set[str] = set()
    kept: list[str] = []
    longest = 0
    for word in entries:
        if word in seen:
            dropped["duplicate"] += 1
            continue
        seen.add(word)
        if len(word) < MIN_LENGTH:
            dropped["too_short"] += 1
            continue
        folded = fold_qu(word)
        if folded is None:
            dropped["q_without_u"] += 1
        elif not allowed.issuperset(folded):
            dropped["outside_charset"] += 1
        elif max_length is not None and len(word) > max_length:
            dropped["too_long"] += 1
        else:
            kept.append(folded)
            longest = max(longest, len(word))
    if not kept:
        reasons = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in dropped.items() if n)
        raise DawgError(f"{path}: no words left for charset {charset.letters.upper()} ({reasons})")
    kept.sort()
    return WordList(path=path, sha256=hashlib.sha256(data).hexdigest(), size=len(data),
                    lines=line_count, entries=len(entries), words=kept, dropped=dropped,
                    max_length=longest)
