"""Read a plain word list and apply the Boggle rules to it.

Accepted: any letter case, LF/CRLF/CR line ends, a UTF-8 byte-order mark,
blank lines, comment lines starting with '#', spaces and tabs around a word, a
leading word-count line (as in `Lexicon_14.txt`) and repeated words. Anything
else that is not a word of letters A-Z (binary data, digits, punctuation,
accented letters, two words on a line, a control character such as a form
feed, which `str.splitlines` would have taken for a line end) is an error
naming the file and line.

The file is streamed in chunks, so hostile input fails at once with bounded
memory: a NUL byte, bytes that are not UTF-8, a line over MAX_LINE_BYTES, a
file over MAX_LIST_BYTES (/dev/zero and /dev/urandom among them). A named pipe
other than standard input is refused at once: opening it would wait for a
writer. A word over MAX_WORD_LETTERS (the headers store the length in one
byte) is an error too, unless a maximum length was asked for, which drops it.

Boggle rules, in this order, each drop counted: a repeated word; fewer than 3
letters; a 'q' not followed by 'u'; letters outside the charset (after "qu" is
folded into the single symbol 'q', the Qu die); more letters than the maximum
length. Lengths count letters as written, so "qu" counts two.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..solver.charset import QU, QU_FACE, Charset, fold
from ..solver.errors import DawgError, ParameterError, reading
from ..solver.formats.common import HEADER

MIN_LENGTH = 3
MAX_WORD_LETTERS = int(np.iinfo(HEADER["max_length"]).max)  # 255: one header byte
MAX_LINE_BYTES = 4096  # longer lines are not words (nor sane comments): refuse, don't buffer
MAX_LIST_BYTES = 256 << 20  # about 100 times the largest real word list
CHUNK_BYTES = 1 << 20
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


@dataclass
class Entries:
    """A list file's lower-cased words in file order, with its line count, SHA-256 and size."""

    words: list[str]
    lines: int
    sha256: str
    size: int


def read_entries(path: Path, max_letters: int | None = MAX_WORD_LETTERS) -> Entries:
    """Stream a list file into its words; a word over `max_letters` (None: no cap) is an error."""
    digest = hashlib.sha256()
    parser = _Parser(path, max_letters)
    size = 0
    pending = b""  # the unfinished last line of what has been read
    with reading(path, "word list"), open(path, "rb", opener=_open_list) as fh:
        while True:
            chunk = fh.read(CHUNK_BYTES)
            if chunk:
                nul = chunk.find(b"\0")
                if nul >= 0:
                    raise DawgError(f"{path}: binary data (NUL byte at offset {size + nul}), not a word list")
                size += len(chunk)
                if size > MAX_LIST_BYTES:
                    raise DawgError(f"{path}: larger than {MAX_LIST_BYTES >> 20} MiB, not a word list")
                digest.update(chunk)
                buffer = pending + chunk
                # complete lines end at the last LF, or at a CR known not to start a CRLF
                cut = max(buffer.rfind(b"\n"), buffer.rfind(b"\r", 0, len(buffer) - 1)) + 1
            else:
                buffer, cut = pending, len(pending)
            block, pending = buffer[:cut], buffer[cut:]
            if block:
                parser.feed(block)
            if len(pending) > MAX_LINE_BYTES:
                raise DawgError(f"{path} line {parser.lines + 1}: longer than {MAX_LINE_BYTES} bytes, not a word")
            if not chunk:
                return Entries(parser.words, parser.lines, digest.hexdigest(), size)


def _open_list(path: str, flags: int) -> int:
    """Open a word list without waiting: a named pipe or socket would block until a writer came,
    so only standard input may be one (as /dev/stdin)."""
    fd = os.open(path, flags | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            if not _is_stdin(st):
                kind = "a named pipe" if stat.S_ISFIFO(st.st_mode) else "a socket"
                raise DawgError(f"{path}: {kind}, not a word list file (pipe a list to standard input instead)")
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_stdin(st: os.stat_result) -> bool:
    try:
        return os.path.samestat(st, os.fstat(0))
    except OSError:
        return False


def _split_lines(text: str) -> list[str]:
    """Lines ended by LF, CRLF or CR only (unlike str.splitlines), with no empty last piece."""
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


class _Parser:
    """The words of a list file, fed whole lines at a time."""

    def __init__(self, path: Path, max_letters: int | None):
        self.path = path
        self.max_letters = max_letters
        self.words: list[str] = []
        self.lines = 0
        self.count_line_allowed = True

    def feed(self, block: bytes) -> None:
        path = self.path
        if self.lines == 0 and block.startswith(codecs.BOM_UTF8):
            block = block[len(codecs.BOM_UTF8):]
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as err:
            line = self.lines + len(_split_lines(block[:err.start].decode("utf-8") + "."))
            raise DawgError(f"{path} line {line}: not UTF-8 text (byte 0x{block[err.start]:02x})") from None
        lines = _split_lines(text)
        if max(map(len, lines), default=0) > MAX_LINE_BYTES:
            line = self.lines + 1 + next(i for i, raw in enumerate(lines) if len(raw) > MAX_LINE_BYTES)
            raise DawgError(f"{path} line {line}: longer than {MAX_LINE_BYTES} bytes, not a word")
        words, max_letters = self.words, self.max_letters
        for number, raw in enumerate(lines, self.lines + 1):
            word = raw.strip(" \t")
            if not word:
                continue
            if word.startswith("#"):
                problem = None if word.isprintable() else _unprintable(word.replace("\t", " "))
                if problem:
                    raise DawgError(f"{path} line {number}: comment has a {problem}")
                continue
            if word.isascii() and word.isalpha():
                if max_letters is not None and len(word) > max_letters:
                    raise DawgError(f"{path} line {number}: {_shown(word)} has {len(word)} letters, more than "
                                    f"the {max_letters} a lexicon can hold")
                words.append(word.lower())
            elif not (self.count_line_allowed and word.isascii() and word.isdigit()):  # a leading word count
                raise DawgError(f"{path} line {number}: {_describe_bad_word(word)}")
            self.count_line_allowed = False
        self.lines += len(lines)


def _shown(word: str) -> str:
    return repr(word if len(word) <= 40 else word[:37] + "...")


def _unprintable(text: str) -> str | None:
    """How to name the first control or other non-printing character of `text`, if any."""
    bad = next((ch for ch in text if not ch.isprintable()), None)
    if bad is None:
        return None
    kind = "control character" if unicodedata.category(bad) == "Cc" else "non-printing character"
    return f"{kind} U+{ord(bad):04X}"


def _describe_bad_word(word: str) -> str:
    bad = next(ch for ch in word if not (ch.isascii() and ch.isalpha()))
    if bad in " \t":
        what = "more than one word on the line"
    elif not bad.isprintable():
        what = _unprintable(bad)
    elif bad.isalpha():
        what = f"{bad!r} is not a letter A-Z"
    elif bad.isdigit():
        what = f"digit {bad!r} inside a word"
    else:
        what = f"{bad!r} is not a letter"
    return f"{_shown(word)}: {what}"


def fold_qu(word: str) -> str | None:
    """The word with each "qu" as the one symbol 'q', or None if some 'q' lacks its 'u'."""
    if QU not in word:
        return word
    if word.count(QU) != word.count(QU_FACE):
        return None
    return fold(word)


def load_word_list(path: Path, charset: Charset, max_length: int | None = None) -> WordList:
    """Read a word list and keep the words a Boggle lexicon over `charset` holds."""
    if max_length is not None and not MIN_LENGTH <= max_length <= MAX_WORD_LETTERS:
        raise ParameterError("max_length", f"must be {MIN_LENGTH}..{MAX_WORD_LETTERS}, got {max_length}")
    source = read_entries(path, MAX_WORD_LETTERS if max_length is None else None)
    entries = source.words
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
    return WordList(path=path, sha256=source.sha256, size=source.size, lines=source.lines, entries=len(entries),
                    words=kept, dropped=dropped, max_length=longest)
