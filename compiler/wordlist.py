"""Read a word list in a language and apply the Boggle rules to it.

Inputs: a file, or standard input given as `-`; gzip-compressed or not (told by
the content's first bytes, not the name); UTF-8 text. Accepted: any letter
case, LF/CRLF/CR line ends, a UTF-8 byte-order mark, blank lines, comment lines
starting with '#', spaces and tabs around a word, a leading word-count line (as
in `Lexicon_14.txt`) and repeated words. Every word is read in its game form
(`Language.game_form`: NFC, lower case, the language's folds).

Two input formats (`input_format`): "plain", one word a line; "tanglet", the
`words` files of the Tanglet game, read as Tanglet reads them (its
src/trie.cpp): the first column, upper case, is the word the game plays, and
any further columns only spellings it displays ("AALAEHNLICH aalähnlich";
Russian "ВТО ОЧИТЬ" plays ВТО). The format is an option, not a guess: a line
of several words is a phrase in one list and one word's spellings in another.

The language may be left out (`ListOptions.language` None: a build of letters
alone, `--charset auto` without `--language`): then any letter is a letter, with
no folds, and the language is made after reading from the letters the list
uses (English where they are all a-z, else `letters_alone`).

Anything else (binary data, digits, punctuation, letters outside the
language, two words on a plain line, a control character such as a form feed,
which `str.splitlines` would have taken for a line end) is a bad line: by
default an error naming the file and line; with `lenient` the line is dropped
and counted by reason (BAD_LINE_REASONS), as are proper nouns: a plain line
whose word starts with a capital and has lower-case letters after it
("London"), unless the language writes every noun with a capital (German).

The file is streamed in chunks, so hostile input fails at once with bounded
memory: a NUL byte, bytes that are not UTF-8, corrupt gzip data, a line over
MAX_LINE_BYTES, text over MAX_LIST_BYTES once decompressed (/dev/zero,
/dev/urandom and gzip bombs among them). A named pipe other than standard
input is refused at once: opening it would wait for a writer. A word over
MAX_WORD_LENGTH (the headers store the length in one byte) is an error too,
unless a maximum length was asked for, which drops it.

Boggle rules, in this order, each drop counted: a repeated word; fewer than 3
letters; a tile's letter not in its face (English 'q' not followed by 'u',
counted as "q_without_u"); letters outside the charset (after each tile face
is folded into its letter, "qu" into 'q', the Qu die); more letters than the
maximum length. Lengths count letters as written, so "qu" counts two.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import os
import stat
import unicodedata
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..solver.charset import ALPHABET, MAX_LETTERS, Charset, upper
from ..solver.errors import DawgError, ParameterError, reading
from ..solver.formats.common import MAX_WORD_LENGTH
from ..solver.language import ENGLISH, Language, game_form, letters_alone
from ..solver.written import MAX_FORMS, form_problem

MIN_LENGTH = 3
MAX_LINE_BYTES = 4096  # longer lines are not words (nor sane comments): refuse, don't buffer
MAX_LIST_BYTES = 256 << 20  # of text, once decompressed: 6 times the largest real list (Polish, 42 MB)
CHUNK_BYTES = 1 << 20
STDIN = "-"  # the path that names standard input
GZIP_MAGIC = b"\x1f\x8b"
INPUT_FORMATS = ("plain", "tanglet")
BAD_LINE_REASONS = ("several_words", "apostrophe", "hyphen", "digit", "other_character", "outside_language",
                    "proper_noun")
_APOSTROPHES = frozenset("'\u2019\u02bc")
_HYPHENS = frozenset("-\u2010\u2011")
_LINE_ENDS = frozenset("\r\n")


@dataclass
class WordList:
    """The words a lexicon will hold: folded ('q' = Qu), unique, sorted in code order."""

    path: Path
    sha256: str
    size: int
    lines: int
    entries: int
    words: list[str]
    dropped: dict[str, int] = field(default_factory=dict)
    max_length: int = 0  # longest kept word, in letters (qu = 2)
    charset: Charset = field(default_factory=ENGLISH.charset)  # the lexicon's: as asked, or the letters used
    language: Language = ENGLISH  # as asked, or made from the letters used
    spellings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # folded word -> as written, where otherwise


@dataclass
class Entries:
    """A list file's distinct words in game form, in the order first met, how many entries it held in
    all (a word listed twice counts twice), its line count, SHA-256 and size (of the bytes as given,
    compressed or not), and the bad lines dropped, by reason. Memory grows with the distinct words,
    not with the file: ten million copies of one word keep one."""

    words: list[str]
    count: int
    lines: int
    sha256: str
    size: int
    bad_lines: dict[str, int] = field(default_factory=dict)
    spellings: dict[str, list[str]] = field(default_factory=dict)  # game word -> as the list wrote it, where otherwise


@dataclass(frozen=True)
class ListOptions:
    """How a list is read: its language (None: letters alone, any letter, made from the letters the
    list uses, with `vowels` or inferred ones), its input format, and whether bad lines are dropped."""

    language: Language | None = ENGLISH
    input_format: str = "plain"
    lenient: bool = False
    vowels: str | None = None

    def manifest_options(self) -> dict:
        """What the manifest's options record of these: only what differs from the default, so an
        English build's manifest keeps its bytes."""
        return {**({"input_format": self.input_format} if self.input_format != "plain" else {}),
                **({"lenient": True} if self.lenient else {})}

    @classmethod
    def from_manifest(cls, options: dict, language: Language) -> ListOptions:
        """The options a build recorded (its manifest's `options`), with its language."""
        return cls(language, options.get("input_format", "plain"), bool(options.get("lenient", False)))


def source_name(path: Path) -> str:
    """What names a list in manifests and build directories: its file name, 'stdin' for `-`."""
    return "stdin" if str(path) == STDIN else path.name


def _named(path: Path) -> Path | str:
    """What names a list in messages: its path as given, 'stdin' for `-`."""
    return "stdin" if str(path) == STDIN else path


def read_entries(path: Path, max_letters: int | None = MAX_WORD_LENGTH, options: ListOptions = ListOptions()) -> Entries:
    """Stream a list file (`-`: standard input) into its words; a word over `max_letters` (None: no
    cap) is an error."""
    if options.input_format not in INPUT_FORMATS:
        raise ParameterError("input_format", f"{options.input_format!r} is not one of {', '.join(INPUT_FORMATS)}")
    shown = _named(path)
    parser = _Parser(shown, max_letters, options)
    pending = b""  # the unfinished last line of what has been read
    with reading(shown, "word list"), _RawList(path) as raw:
        text = gzip.GzipFile(fileobj=raw, mode="rb") if raw.compressed else raw
        size = 0
        while True:
            chunk = _read_chunk(text, shown)
            if chunk:
                nul = chunk.find(b"\0")
                if nul >= 0:
                    raise DawgError(f"{shown}: binary data (NUL byte at offset {size + nul}), not a word list")
                size += len(chunk)
                if size > MAX_LIST_BYTES:
                    what = " of text once decompressed" if raw.compressed else ""
                    raise DawgError(f"{shown}: larger than {MAX_LIST_BYTES >> 20} MiB{what}, not a word list")
                buffer = pending + chunk
                # complete lines end at the last LF, or at a CR known not to start a CRLF
                cut = max(buffer.rfind(b"\n"), buffer.rfind(b"\r", 0, len(buffer) - 1)) + 1
            else:
                buffer, cut = pending, len(pending)
            block, pending = buffer[:cut], buffer[cut:]
            if block:
                parser.feed(block)
            if len(pending) > MAX_LINE_BYTES:
                raise DawgError(f"{shown} line {parser.lines + 1}: longer than {MAX_LINE_BYTES} bytes, not a word")
            if not chunk:
                raw.read_to_end()
                return Entries(list(parser.words), parser.count, parser.lines, raw.digest.hexdigest(), raw.size,
                               parser.bad_lines, parser.spellings)


def _read_chunk(stream, shown) -> bytes:
    try:
        return stream.read(CHUNK_BYTES)
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        raise DawgError(f"{shown}: corrupt gzip data ({err})") from None


class _RawList:
    """The bytes of a list as given (a file or standard input), hashed and counted as they are read;
    `compressed` tells a gzip stream by its first two bytes."""

    def __init__(self, path: Path) -> None:
        self.fh = open(0, "rb", closefd=False) if str(path) == STDIN else open(path, "rb", opener=_open_list)
        self.digest = hashlib.sha256()
        self.size = 0
        self.compressed = self.fh.peek(len(GZIP_MAGIC))[:len(GZIP_MAGIC)] == GZIP_MAGIC

    def read(self, size: int = -1) -> bytes:
        data = self.fh.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data

    def read_to_end(self) -> None:
        """Hash what a decompressor left unread (nothing, for a well-formed stream)."""
        while self.read(CHUNK_BYTES):
            pass

    def __enter__(self) -> _RawList:
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()


def _open_list(path: str, flags: int) -> int:
    """Open a word list without waiting: a named pipe or socket would block until a writer came,
    so only standard input may be one (as /dev/stdin, or `-`)."""
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


class _BadLine(Exception):
    """A line that is not a word: the reason it is counted under, and the message of strict mode
    (and of lenient mode too when it is `fatal`)."""

    def __init__(self, reason: str, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.fatal = fatal


class _Parser:
    """The words of a list file, fed whole lines at a time."""

    def __init__(self, path, max_letters: int | None, options: ListOptions):
        self.path = path
        self.max_letters = max_letters
        self.language = language = options.language
        self.game_form = game_form if language is None else language.game_form
        self.letters = None if language is None else frozenset(language.letters)  # None: any letter
        self.tanglet = options.input_format == "tanglet"
        self.lenient = options.lenient
        nouns = language is not None and language.capitalised_nouns
        self.check_proper_nouns = self.lenient and not self.tanglet and not nouns
        self.words: dict[str, None] = {}  # each word once, in the order first met
        self.spellings: dict[str, list[str]] = {}  # a word's spellings where the list wrote it otherwise
        self.count = 0  # entries, a repeated word each time
        self.bad_lines = dict.fromkeys(BAD_LINE_REASONS, 0) if self.lenient else {}
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
        folded = self.game_form(text)
        games = _split_lines(folded)  # line for line: folds keep line ends
        if self.plain_words_only(folded, games):  # the common block: a word or nothing on every line
            self._keep(*filter(None, games))
            if folded != text:  # some line was written otherwise: a capital, a folded letter
                for raw, game in zip(lines, games):
                    if raw != game:
                        self._spelled(game, raw)
            self.count_line_allowed = self.count_line_allowed and not self.words
            self.lines += len(lines)
            return
        if self.tanglet and self._tanglet_words_only(lines, games):
            self.lines += len(lines)
            return
        for number, (raw, game) in enumerate(zip(lines, games), self.lines + 1):
            line = raw.strip(" \t")
            if not line:
                continue
            if line.startswith("#"):
                problem = None if line.isprintable() else _unprintable(line.replace("\t", " "))
                if problem:
                    raise DawgError(f"{path} line {number}: comment has a {problem}")
                continue
            try:
                self._entry(line, game.strip(" \t"))
            except _BadLine as bad:
                if bad.fatal or not self.lenient:
                    raise DawgError(f"{path} line {number}: {bad}") from None
                self.bad_lines[bad.reason] += 1
            self.count_line_allowed = False
        self.lines += len(lines)

    def plain_words_only(self, folded: str, games: list[str]) -> bool:
        """Whether every line of a block of a plain list, in game form, is a word of the language or
        empty, within the length cap, with no proper noun to look for: then it needs no line-by-line look."""
        if self.tanglet or self.check_proper_nouns:
            return False
        letters = set(folded) - _LINE_ENDS
        if not (self.letters.issuperset(letters) if self.letters is not None else "".join(letters).isalpha()):
            return False
        return self.max_letters is None or max(map(len, games), default=0) <= self.max_letters

    def _tanglet_words_only(self, lines: list[str], games: list[str]) -> bool:
        """Keep a block of a Tanglet list whose every line starts with a word of the language within
        the length cap (no blank line, no comment): the common block, its words checked all at once, as
        `_entry` keeps them line by line. False, keeping nothing, for any other block."""
        try:
            words = [game.split(None, 1)[0] for game in games]
        except IndexError:  # a line of whitespace alone
            return False
        letters = "".join(words)
        if not (letters.isalpha() and (self.letters is None or self.letters.issuperset(letters))):
            return False  # a comment's "#" too
        if self.max_letters is not None and max(map(len, words), default=0) > self.max_letters:
            return False
        self._keep(*words)
        for line, word in zip(lines, words):
            self._tanglet_spellings(word, line.split())
        self.count_line_allowed = self.count_line_allowed and not words
        return True

    def _entry(self, line: str, game: str) -> None:
        """Append the word(s) of one line (as written, and in game form), or raise _BadLine."""
        if self.tanglet:  # the first column is the game's word, the others only its spellings
            columns = line.split()
            if not columns:  # whitespace alone, of a kind other than spaces and tabs (a form feed)
                raise _bad_word(unicodedata.normalize("NFC", line), self.language)
            word = self._word(columns[0], game.split()[0])
            self._keep(word)
            self._tanglet_spellings(word, columns)
            return
        if self.count_line_allowed and line.isascii() and line.isdigit():  # a leading word count
            return
        if self.check_proper_nouns and line[0].isupper() and not line.isupper():
            raise _BadLine("proper_noun", f"{_shown(line)}: a proper noun (capital first letter)")
        word = self._word(line, game)
        self._keep(word)
        if line != word:
            self._spelled(word, line)

    def _tanglet_spellings(self, word: str, columns: list[str]) -> None:
        """Keep the spellings of a Tanglet line's `word`: its other columns, or a lone column as it is
        written (Catalan "col·lecció")."""
        for spelling in columns[1:] or columns[:1]:
            self._spelled(word, spelling)

    def _spelled(self, word: str, text: str) -> None:
        """Keep `text` as a spelling of `word` where it says more than the word: a capital, a folded letter
        (a line in capitals only says the word again)."""
        if text.isupper():
            text = text.lower()
        spelling = text if text.isascii() else unicodedata.normalize("NFC", text)
        if spelling == word or form_problem(spelling):
            return
        known = self.spellings.get(word)
        if known is None:
            self.spellings[word] = [spelling]
        elif spelling not in known and len(known) < MAX_FORMS:
            known.append(spelling)

    def _keep(self, *words: str) -> None:
        self.count += len(words)
        self.words.update(dict.fromkeys(words))

    def _word(self, text: str, word: str) -> str:
        """`word`, the game form of `text`, if it is a word of the language; else _BadLine."""
        if not (word.isalpha() and (self.letters is None or self.letters.issuperset(word))):
            raise _bad_word(unicodedata.normalize("NFC", text), self.language)
        if self.max_letters is not None and len(word) > self.max_letters:
            raise _BadLine("too_long", f"{_shown(text)} has {len(word)} letters, more than "
                                       f"the {self.max_letters} a lexicon can hold", fatal=True)
        return word


def _shown(word: str) -> str:
    return repr(word if len(word) <= 40 else word[:37] + "...")


def _unprintable(text: str) -> str | None:
    """How to name the first control or other non-printing character of `text`, if any."""
    bad = next((ch for ch in text if not ch.isprintable()), None)
    if bad is None:
        return None
    kind = "control character" if unicodedata.category(bad) == "Cc" else "non-printing character"
    return f"{kind} U+{ord(bad):04X}"


def _bad_word(word: str, language: Language | None) -> _BadLine:
    """Why `word` (NFC, as written) is not a word of `language` (None: of letters alone)."""
    bad = next((ch for ch in word if not ch.isalpha()), None)
    if bad is None and language is None:  # a letter whose lower case is not one: 'İ' is 'i' and a dot above
        bad = next(ch for ch in word if not game_form(ch).isalpha())
        return _BadLine("other_character", f"{_shown(word)}: {bad!r} is not a letter once in lower case")
    if bad is None:
        letters = set(language.letters)
        bad = next((ch for ch in word if not letters.issuperset(language.game_form(ch))), None)
        if bad is None:  # each letter folds into the alphabet, the word does not: 'ΑΣ' lower-cases to 'ας'
            bad = next(ch for ch in language.game_form(word) if ch not in letters)
        return _BadLine("outside_language", f"{_shown(word)}: {bad!r} is not a letter {language.alphabet}")
    if bad in " \t":
        return _BadLine("several_words", f"{_shown(word)}: more than one word on the line "
                                           f"(a Tanglet words file? --input-format tanglet reads one)")
    if not bad.isprintable():
        return _BadLine("other_character", f"{_shown(word)}: {_unprintable(bad)}")
    if bad.isdigit():
        return _BadLine("digit", f"{_shown(word)}: digit {bad!r} inside a word")
    reason = "apostrophe" if bad in _APOSTROPHES else "hyphen" if bad in _HYPHENS else "other_character"
    return _BadLine(reason, f"{_shown(word)}: {bad!r} is not a letter")


def tile_drop_reasons(charset: Charset) -> dict[str, tuple[str, str]]:
    """The drop reason of each tile whose letter a word may use outside its face (English 'q'
    without 'u': "q_without_u"), and the tile."""
    return {f"{symbol}_without_{face[len(symbol):]}" if face.startswith(symbol) else f"{symbol}_alone": (symbol, face)
            for symbol, face in charset.tiles}


def load_word_list(path: Path, charset: Charset | None, max_length: int | None = None,
                   options: ListOptions = ListOptions()) -> WordList:
    """Read a word list as `options` say and keep the words a Boggle lexicon over `charset` (the
    language's letters or some of them; None: the letters the list uses) holds."""
    if max_length is not None and not MIN_LENGTH <= max_length <= MAX_WORD_LENGTH:
        raise ParameterError("max_length", f"must be {MIN_LENGTH}..{MAX_WORD_LENGTH}, got {max_length}")
    source = read_entries(path, MAX_WORD_LENGTH if max_length is None else None, options)
    shown = _named(path)
    entries = source.words
    if not entries:
        raise DawgError(f"{shown}: no words in the file")
    language = options.language
    if charset is None or language is None:
        used = set("".join(entries))
        language = language or _language_of(used, options.vowels, shown)
        charset = charset or language.charset("".join(sorted(used)))
    spelling = language.charset()  # tiles are the language's, whatever letters the charset keeps
    tiles = tile_drop_reasons(spelling)
    dropped = {**source.bad_lines, **dict.fromkeys(("duplicate", "too_short", *tiles, "outside_charset", "too_long"), 0)}
    # each rule in turn over the words the rules before it kept (a word counts under its first rule)
    unique = entries  # read once each
    dropped["duplicate"] = source.count - len(unique)
    words = [(w, w) for w in unique if len(w) >= MIN_LENGTH]  # (spelled, folded)
    dropped["too_short"] = len(unique) - len(words)
    if tiles:
        words = [(w, spelling.fold(w)) for w, _ in words]
        for reason, (symbol, face) in tiles.items():
            alone = [pair for pair in words if pair[1].count(symbol) != pair[0].count(face)]
            dropped[reason] = len(alone)
            words = [pair for pair in words if pair[1].count(symbol) == pair[0].count(face)] if alone else words
    if not set(charset.letters) >= set(language.letters):
        allowed = frozenset(charset.letters)
        inside = [pair for pair in words if allowed.issuperset(pair[1])]
        dropped["outside_charset"] = len(words) - len(inside)
        words = inside
    if max_length is not None:
        short = [pair for pair in words if len(pair[0]) <= max_length]
        dropped["too_long"] = len(words) - len(short)
        words = short
    kept = [folded for _, folded in words]
    longest = max((len(spelled) for spelled, _ in words), default=0)
    if not kept:
        reasons = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in dropped.items() if n)
        raise DawgError(f"{shown}: no words left for charset {''.join(map(upper, charset.letters))} ({reasons})")
    kept = sorted_in_code_order(kept, charset)
    spellings = {folded: tuple(source.spellings[spelled]) for spelled, folded in words if spelled in source.spellings}
    return WordList(path=path, sha256=source.sha256, size=source.size, lines=source.lines, entries=source.count,
                    words=kept, dropped=dropped, max_length=longest, charset=charset, language=language,
                    spellings=spellings)


def _language_of(used: set[str], vowels: str | None, shown) -> Language:
    """The language of a list read without one: English where its letters are all a-z (and no vowels
    are given), else its letters alone, in code point order."""
    if used <= set(ALPHABET) and vowels is None:
        return ENGLISH
    if len(used) > MAX_LETTERS:
        raise DawgError(f"{shown}: uses {len(used)} letters, more than the {MAX_LETTERS} a lexicon can hold")
    return letters_alone("".join(used), vowels, f"{shown}: the letters it uses")


def sorted_in_code_order(words: list[str], charset: Charset) -> list[str]:
    """Folded words sorted by letter code, which is code point order only for an alphabetical charset
    (Polish puts 'ą' after 'a'): each word's key is its codes as bytes, all made in one encoding."""
    if list(charset.letters) == sorted(charset.letters):
        return sorted(words)
    unused = (chr(0xE000 + i) for i in range(256))  # private-use fillers: the map must be 256 characters
    table = "\n" + charset.letters + "".join(next(unused) for _ in range(255 - len(charset.letters)))
    keys = codecs.charmap_encode("\n".join(words), "strict", codecs.charmap_build(table))[0].split(b"\0")
    return [words[i] for i in sorted(range(len(words)), key=keys.__getitem__)]
