"""What every lexicon format shares on the reader side: the Lexicon base class, the `Format`
registry entry, reading files from one snapshot of a directory, and the checks and word walk
the formats reuse.

Files are opened relative to one descriptor of their directory, so a build
swapped in while a lexicon opens gives all old or all new files (and where the
old ones were deleted meanwhile, `lexicon.open_lexicon` starts again on the new). A file with
no write permission bits is memory-mapped; any other is read into private
memory, so that later writes to it cannot change a running lexicon.
`Lexicon.check_unchanged` detects a mapped file changed in place (docs/formats.md).
"""

from __future__ import annotations

import codecs
import hashlib
import mmap
import os
import stat
import sys
import unicodedata
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..charset import Charset, lower, upper
from ..errors import DawgError, ParameterError, is_whole, reading
from ..layout import EOW_SHIFT, INDEX_MASK, LETTERS_SHIFT, NARROW, NodeLayout, node_layout
from ..schema import Check, integer
from ..walk_kernels import DONE, TOO_DEEP, WORD_END
from .common import FORMAT_VERSIONS, HEADER, LEGACY_VERSION, MAX_INDEX, read_alphabet

if TYPE_CHECKING:  # boards, rules and walks are read where one is scored: word queries need none
    import numpy as np

    from ..backends import Scorer
    from ..board import Board, Shape
    from ..board_walk import Found, Walk
    from ..language import Language
    from ..rules import Rules
    from ..written import WrittenForms

MAP_POPULATE = getattr(mmap, "MAP_POPULATE", 0)  # Linux: map a file's pages in one call, not one fault each
LISTED_WORDS = 1 << 12  # words a call of a format's word listing gives at most: memory stays bounded
MAX_COMPILED_PREFIXES = 63  # letters of a word whose prefixes one compiled call finds: one bit each in an int64
BAD_CODE = 255  # the batch lookup's code for no letter of the charset (WORD_END ends a word)
SPARE_CODE = WORD_END - 1  # a code no letter has: where the charmaps put letter 0 (`_code_map`)
# What holds a tile's face while its lone letter is found: capitals, which no lower-cased word holds
TILE_MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
HALF_EOW_SHIFT = EOW_SHIFT - LETTERS_SHIFT  # the end of word bit in a narrow node's upper half
MAX_WORD_IDS = 1 << 28  # word numbers a walk may produce: each scoring thread keeps a 4-byte stamp per number


def check(ok, path: Path, message: str) -> None:
    """Raise DawgError naming `path` unless `ok` holds: a bool, or a numpy array every element of which must."""
    if not (ok.all() if hasattr(ok, "all") else ok):
        raise DawgError(f"{path}: {message}")


def spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indices start, start + 1, ..., start + length - 1 of each span, concatenated."""
    import numpy as np

    ends = np.cumsum(lengths)
    return np.repeat(starts, lengths) + (np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - lengths, lengths))


# --- files ----------------------------------------------------------------------


class _MappedFile(NamedTuple):
    """A memory-mapped lexicon file: a descriptor kept open and what it was when mapped."""

    path: Path
    fd: int
    identity: tuple


def _identity(st: os.stat_result) -> tuple:
    return st.st_ino, st.st_size, st.st_mtime_ns


class Snapshot:
    """A directory opened once: every file is opened relative to this one descriptor."""

    def __init__(self, directory: Path) -> None:
        self.path = directory
        with reading(directory, "directory"):
            self.fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        self.mapped: list[_MappedFile] = []

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd))

    def is_file(self, name: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(name, dir_fd=self.fd).st_mode)
        except OSError:
            return False

    def open(self, name: str):
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        return open(name, "rb", opener=lambda n, flags: os.open(n, flags | os.O_NONBLOCK, dir_fd=self.fd))

    def read(self, name: str, what: str = "lexicon file") -> memoryview:
        """The bytes of a file: mapped when it has no write permission bits, else a private copy. The
        mapping is populated at once (Linux's MAP_POPULATE): the open validates every byte, and one
        populating call costs a tenth of what touching the pages one fault at a time does. A
        memoryview, which numpy reads without a copy (`np.frombuffer`) once a format needs arrays."""
        path = self.path / name
        with reading(path, what), self.open(name) as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise DawgError(f"{path}: not a regular file")
            if st.st_mode & 0o222 or st.st_size == 0:
                return memoryview(fh.read())
            view = mmap.mmap(fh.fileno(), 0, flags=mmap.MAP_SHARED | MAP_POPULATE, prot=mmap.PROT_READ)
            self.mapped.append(_MappedFile(path, os.dup(fh.fileno()), _identity(st)))
        return memoryview(view)

    def hand_over(self, lex: Lexicon) -> None:
        """Give the mapped files to `lex` (their descriptors close with it)."""
        lex._mapped = tuple(self.mapped)
        weakref.finalize(lex, _close_all, [f.fd for f in self.mapped])
        self.mapped = []

    def close(self) -> None:
        _close_all([self.fd, *(f.fd for f in self.mapped)])
        self.mapped = []


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def verify_sha256(path: Path, data: memoryview, expected: dict) -> None:
    if len(data) != expected["bytes"] or hashlib.sha256(data).hexdigest() != expected["sha256"]:
        raise DawgError(f"{path}: does not match its manifest (size or SHA-256 differs); "
                        f"the file is corrupt or from another build")


# --- what a manifest records of a format ----------------------------------------------------

index_count = integer(0, MAX_INDEX)  # a node, state, edge or child-set count of a manifest section


class ManifestEntry(NamedTuple):
    """What a build's manifest records for one format's loader: the build's charset, word count
    and longest word, and the format's own section (checked by its `Format.section`). The
    loader gets this rather than the manifest so that formats never depend on the manifest,
    which is assembled from them."""

    charset: Charset
    words: int
    max_length: int
    section: dict


# --- the lexicon -----------------------------------------------------------------------


class Lexicon:
    """What every format offers: its words, charset and the arrays the kernels walk. A format's
    `load` makes one and sets its own arrays on it."""

    format = ""

    def __init__(self, path: Path, charset: Charset, word_count: int, max_length: int) -> None:
        self.path, self.charset, self.word_count, self.max_length = path, charset, word_count, max_length
        self._mapped: tuple[_MappedFile, ...] = ()
        self.language_section: dict | None = None  # the manifest's; None: English
        self.rules_section: dict | None = None  # the manifest's; None: standard
        self.written_forms: WrittenForms | None = None  # None: the list's own spelling

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r}, {self.word_count} words)"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], recorded: ManifestEntry | None) -> Lexicon:
        """Open and validate a format's files (`names`, in `snap`), against the manifest's entry for
        them when there is one: each format's own."""
        raise NotImplementedError

    @cached_property
    def language(self) -> Language:
        """The language the lexicon was built for (its manifest's; English without one)."""
        from ..language import ENGLISH, Language

        if self.language_section is None:
            return ENGLISH
        return Language.from_manifest(self.language_section, str(self.path))

    def check_unchanged(self) -> None:
        """Raise DawgError if a memory-mapped file of this lexicon changed on disk since it was
        opened (its size or times differ): results computed over it cannot be trusted."""
        for mapped in self._mapped:
            if _identity(os.fstat(mapped.fd)) != mapped.identity:
                raise DawgError(f"{mapped.path}: changed on disk while in use; "
                                f"results computed from it are void")

    @cached_property
    def identity(self) -> str:
        """SHA-256 of what this lexicon holds, the same in every format and every version of the
        program: its letters, its tiles where they are not the letters' default (so an English
        list's identity is what it was before tiles were recorded), then every word as folded, in
        order. Checkpoints and proof plans name their lexicon by it."""
        digest = hashlib.sha256(self.charset.letters.encode() + b"\0")
        if self.charset.tiles != Charset(self.charset.letters).tiles:
            digest.update(repr(self.charset.tiles).encode() + b"\0")
        for word, _ in self.iter_numbered_words():
            digest.update(word.encode() + b"\n")
        return digest.hexdigest()

    # --- scoring ---------------------------------------------------------------

    @cached_property
    def walk(self) -> Walk:
        """The kernel inputs of this format: views of the mapped files and small derived tables."""
        raise NotImplementedError

    @property
    def id_count(self) -> int:
        """The word ids a walk of this format produces are 0..id_count - 1 (`Walk.id_count`): each scoring
        thread keeps a stamp per id. Known without making the walk, which an open need not do."""
        raise NotImplementedError

    def as_trie(self) -> TrieNodes | None:
        """This lexicon's nodes as a trie, for code that walks a trie itself (the CUDA backend, the
        proof tables); None when the format holds none (such code then starts from the words)."""
        return None

    @cached_property
    def python_inputs(self) -> tuple:
        """The kernel inputs as the CPython engine reads them."""
        from ..board_walk import python_inputs

        return python_inputs(self.walk.inputs)

    @cached_property
    def _board_folds(self) -> dict[int, str]:
        """The letters a board may show that the language folds to one of the charset's letters
        ('Ú' to 'u' in Spanish), in either case; none for English (no manifest section)."""
        return {} if self.language_section is None else self.language.letter_folds(self.charset)

    def board(self, text: str, shape: Shape | tuple[int, int] | None = None) -> Board:
        """A board in notation as this lexicon reads it: with its charset's tiles, and with a letter
        that its language folds to one letter read as that letter (ÑANDÚ in Spanish)."""
        from ..board import parse_board

        return parse_board(self.board_text(text), shape, self.charset)

    def board_text(self, text: str) -> str:
        """Board notation with the letters the language folds to one letter folded (ÑANDÚ -> ÑANDU)."""
        if not isinstance(text, str):
            raise ParameterError("board", f"must be board notation (a str) or a Board, got {type(text).__name__}")
        folds = self._board_folds
        return unicodedata.normalize("NFC", text).translate(folds) if folds else text

    def _board(self, board: Board | str, shape: Shape | tuple[int, int] | None) -> Board:
        from ..board import Board

        return board if isinstance(board, Board) else self.board(board, shape)

    @cached_property
    def rules(self) -> Rules:
        """The rules this lexicon scores under unless a call names others: those its build recorded
        (`dawgc build --rules`, or its language's), else standard Boggle."""
        from ..rules import Rules, load_rules

        if self.rules_section is None:
            return load_rules(None)
        return Rules.from_dict(self.rules_section, str(self.path))

    def _rules(self, rules: Rules | str | None) -> Rules:
        from ..rules import load_rules

        return self.rules if rules is None else load_rules(rules)

    def _solve(self, board, shape, skip_foreign: bool, rules, want_words: bool) -> tuple[int, int, list[Found]]:
        from ..board_walk import solve_one

        return solve_one(self.walk, self.python_inputs, self._board(board, shape), self.charset, self._rules(rules),
                         skip_foreign, want_words)

    def score(self, board: Board | str, skip_foreign: bool = False, shape: Shape | tuple[int, int] | None = None,
              rules: Rules | str | None = None) -> int:
        """Points of one board (plain Python: no compile step, a few milliseconds); `shape` sets
        the size of a text board, as in `score_codes`; `rules` (a Rules, a built-in name or a
        rules file) those it is scored under, by default the lexicon's (`rules`)."""
        return self._solve(board, shape, skip_foreign, rules, want_words=False)[0]

    def score_and_count(self, board: Board | str, skip_foreign: bool = False,
                        shape: Shape | tuple[int, int] | None = None,
                        rules: Rules | str | None = None) -> tuple[int, int]:
        """Points and number of words of one board, without listing the words (what the one-board
        command prints by default; listing them costs more than the walk)."""
        return self._solve(board, shape, skip_foreign, rules, want_words=False)[:2]

    def words(self, board: Board | str, skip_foreign: bool = False,
              shape: Shape | tuple[int, int] | None = None, rules: Rules | str | None = None) -> list[Found]:
        """Every word on one board that counts under `rules`, with its points and a path, longest first,
        and how the list wrote it where it wrote it otherwise (`Found.written`)."""
        return self.with_written(self._solve(board, shape, skip_foreign, rules, want_words=True)[2])

    def with_written(self, found: list[Found]) -> list[Found]:
        """Words found on a board with their spellings where the list wrote them otherwise (`Found.written`)."""
        if self.written_forms is None:
            return found
        return [f._replace(written=self.written_forms.forms(self.charset.fold(f.word))) for f in found]

    def score_many(self, boards: Iterable[Board | str], jobs: int = 1, skip_foreign: bool = False,
                   shape: Shape | None = None, progress: Callable[[int], None] | None = None,
                   scorer: Scorer | None = None, rules: Rules | str | None = None) -> np.ndarray:
        """Scores of many boards (Board objects or notation), in input order, with the compiled
        kernels on `jobs` threads under `rules`, or with `scorer` (an open scorer of this lexicon,
        which stays open, and its rules) when given. Sizes may be mixed; `shape` sets the size of
        every text board. `progress(n)` is called as n more boards are done. A bad board raises BoardError."""
        import numpy as np

        if scorer is None:
            with self.scorer(jobs, rules=rules) as own:
                return self.score_many(boards, skip_foreign=skip_foreign, shape=shape, progress=progress, scorer=own)
        from ..board import Board, encode_texts

        texts = [b.notation if isinstance(b, Board) else self.board_text(b) for b in boards]
        scores = np.zeros(len(texts), np.int64)
        for size, (indices, codes) in encode_texts(texts, self.charset, shape, skip_foreign).items():
            scores[indices] = scorer.score_codes(codes, size, progress)
        return scores

    def score_codes(self, codes: np.ndarray, shape: Shape | tuple[int, int], jobs: int = 1,
                    rules: Rules | str | None = None) -> np.ndarray:
        """Scores of boards given as a (boards, cells) array of letter indices into the charset
        (`kernels.NO_LETTER` for a blank cell): the fast path for searches that build boards
        as arrays."""
        from ..board import Shape

        with self.scorer(jobs, rules=rules) as scorer:
            return scorer.score_codes(codes, Shape.of(shape))

    def scorer(self, jobs: int = 1, backend: str = "cpu", rules: Rules | str | None = None) -> Scorer:
        """A scoring backend for batches of this lexicon's boards with `jobs` workers (0 = all
        cores) under `rules` (by default the lexicon's); close it (or use it in a `with`) to release them."""
        from ..backends import open_scorer

        return open_scorer(self, backend, jobs, rules)

    # --- words -------------------------------------------------------------------

    def word_list(self) -> list[str]:
        """All words, alphabetically, as spelled (Qu expanded)."""
        return [word for words, _ in self._listed("", True) for word in words]

    def numbered_words(self, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
        """Every (folded word, word number) pair of `iter_numbered_words`, as a list."""
        return list(self.iter_numbered_words(progress))

    def iter_numbered_words(self, progress: Callable[[int], None] | None = None,
                            prefix: str = "") -> Iterator[tuple[str, int]]:
        """(folded word, word number) pairs in alphabetical order, one at a time, in bounded memory (a
        chunk of words at a time: a small file can hold hundreds of millions of words); `progress(n)` is
        called as n more words are found. With `prefix` (spelled as users write it), only the words
        that start with it, listed from the prefix's node."""
        return (pair for words, numbers in self._listed(_prefix(prefix), False, progress) for pair in zip(words, numbers))

    def _listed(self, prefix: str, spelled: bool,
                progress: Callable[[int], None] | None = None) -> Iterator[tuple[list[str], list[int]]]:
        """The words that start with `prefix` (as users write it), in order, folded or `spelled`, with
        their numbers: a chunk of at most LISTED_WORDS at a time from the format's compiled word listing
        (`Walk.words_kernel`), resumed where it stopped, each chunk made into strings all at once."""
        import numpy as np

        folded = self._folded(self._completed(prefix))
        if folded is None or self.charset.outside(folded):
            return
        codes = np.array(self.charset.codes(folded), np.uint8)
        status = np.zeros(2, np.int64)
        frames = np.zeros((self.max_length + 2, 6), np.int64)  # a word's letters, one frame each, and one more
        listed = np.empty(LISTED_WORDS * (self.max_length + 1), np.uint8)
        numbers = np.empty(LISTED_WORDS, np.int64)
        unfold = self.charset.unfold if spelled else str
        start = unfold(folded)
        while status[0] not in (DONE, TOO_DEEP):
            count, used = self._query_kernel("listing", codes, status, frames, listed, numbers)
            text = unfold(codecs.charmap_decode(listed[:used].data, "strict", self._letter_table)[0])
            if start:
                text = start + text.replace("\n", "\n" + start)
            yield text.split("\n", count)[:count], numbers[:count].tolist()
            if progress and count:
                progress(count)
        if status[0] == TOO_DEEP:
            raise DawgError(f"{self.path}: a path is longer than the maximum word length (cyclic file?)")

    def word_steps(self) -> WordSteps:
        """How a descent steps through this format, reading the nodes it touches one by one (a lookup
        touches a word's length of them)."""
        raise NotImplementedError

    # --- queries, in the conventions of the `dawg` and `marisa-trie` libraries ---------------

    def _folded(self, word: object) -> str | None:
        """A word as users write it ("Queen", German "Straße") in this lexicon's symbols ("qeen",
        "strasse": the language's folds, as the build applied them), or None when no word can be
        spelled so (a Q without its U). It may hold letters outside the charset, which no descent
        (`_descents`) follows. An ASCII word holding no `_fold_screens` character folds to itself
        in lower case, and any other word of `_plain_map`'s letters alone, in NFC, is its own: the
        common cases, decided without the general path's steps."""
        if word.__class__ is str:
            if word.isascii():
                plain = word.lower()
                for screen in self._fold_screens:
                    if screen in plain:
                        break
                else:
                    return plain
            elif self._plain_codes(word) is not None:
                return word
        if not isinstance(word, str):
            return None
        if self.language_section is not None:
            spelled = self.language.game_form(word)
        elif word.isascii():  # the common case: lower case letter for letter, NFC already
            spelled = word.lower()
        else:
            spelled = "".join(map(lower, unicodedata.normalize("NFC", word)))
        charset = self.charset
        folded = charset.fold(spelled)
        for symbol, _ in charset.tiles:
            if symbol in folded and charset.unfold(folded) != spelled:
                return None  # a tile's letter outside its face: a Q without its U
        return folded

    def _plain_codes(self, word: str) -> bytes | None:
        """The letter codes of a word that is its own folded form, one of `_plain_map`'s letters alone and
        in NFC; None for any other."""
        try:
            codes = codecs.charmap_encode(word, "strict", self._plain_map)[0]
        except UnicodeEncodeError:
            return None
        return codes.translate(self._code_fixes) if unicodedata.is_normalized("NFC", word) else None

    @cached_property
    def _plain_map(self):
        """The charmap (codecs) of the letters that a word may hold and still be its own folded form: those
        that fold, lower and case-fold to themselves and are no tile's letter nor a face's first letter
        (`_code_map`'s layout, without the line end and "?")."""
        charset = self.charset
        tiles = {symbol for symbol, _ in charset.tiles} | {face[0] for _, face in charset.tiles}
        own = self.language.game_form if self.language_section is not None else lower
        return self._charmap({letter for letter in charset.letters
                              if letter not in tiles and own(letter) == letter == letter.casefold()}, "")

    @cached_property
    def _fold_screens(self) -> str:
        """The characters without which an ASCII word in lower case is already folded: the tiles'
        letters, the first letter of each tile's face, the ASCII characters the language folds."""
        screens = {symbol for symbol, _ in self.charset.tiles} | {face[0] for _, face in self.charset.tiles}
        if self.language_section is not None:
            screens |= {source for source, _ in self.language.folds if source.isascii()}
        return "".join(sorted(screens))

    def _completed(self, prefix: str) -> str:
        """A prefix whose last letter is a tile's symbol, completed to the tile's face (a last Q is
        Qu's), so that it folds to that symbol."""
        if not isinstance(prefix, str) or not prefix:
            return prefix
        face = self.charset.face_of(lower(prefix[-1]))
        return prefix + face[1:] if len(face) > 1 and face[0] == lower(prefix[-1]) else prefix

    @cached_property
    def _lookup_steps(self) -> WordSteps:
        """The word steps that lookups share, reading the nodes a descent touches (made once)."""
        return self.word_steps()

    @cached_property
    def _codes(self) -> dict[str, int]:
        return {letter: code for code, letter in enumerate(self.charset.letters)}

    @cached_property
    def _descents(self) -> Descents:
        """The lookups of a folded word, one child step a letter through the word steps; each format
        gives tighter loops over its own words."""
        steps = self._lookup_steps
        code, child, number_of = self._codes.get, steps.child, steps.number

        def number(folded: str) -> int | None:
            state = steps.root
            for letter in folded:
                letter_code = code(letter)
                state = None if letter_code is None else child(state, letter_code)
                if state is None:
                    return None
            return number_of(state)

        def word_ends(folded: str) -> list[int]:
            ends, state = [], steps.root
            for end, letter in enumerate(folded, 1):
                letter_code = code(letter)
                state = None if letter_code is None else child(state, letter_code)
                if state is None:
                    break
                if number_of(state) is not None:
                    ends.append(end)
            return ends

        return Descents(number, number, word_ends)

    @cached_property
    def _letter_bits(self) -> dict[str, tuple[int, int]]:
        """Each letter's bit in a node's letters and the bits below it (for its rank): a descent's table."""
        return {letter: (1 << code, (1 << code) - 1) for code, letter in enumerate(self.charset.letters)}

    def __contains__(self, word: object) -> bool:
        folded = self._folded(word)
        if not folded:
            return False
        return self._descents.has(folded) is not None

    def __len__(self) -> int:
        return self.word_count

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def keys(self, prefix: str = "") -> Iterator[str]:
        """The words that start with `prefix` (all words by default), alphabetically, as spelled,
        one at a time (like `dawg`'s `iterkeys` and `pygtrie`'s `keys`)."""
        return chain.from_iterable(words for words, _ in self._listed(_prefix(prefix), True))

    def prefixes(self, word: str) -> list[str]:
        """The words that are prefixes of `word` (itself included), shortest first: compiled where it can
        be (`_compiled_word_ends`), else a descent in Python. An ASCII word that folds by `lower()`
        alone (`_folded`) takes the shortest way: its prefixes are slices of it."""
        compiled = self._compiled_word_ends
        if compiled is not None and word.__class__ is str and len(word) <= MAX_COMPILED_PREFIXES:
            function, inputs, table, screens = compiled
            plain, codes = word, None
            if word.isascii():
                plain = word.lower()
                for screen in screens:
                    if screen in plain:
                        break
                else:
                    codes = plain.encode().translate(table)
            else:
                codes = self._plain_codes(word)
            if codes is not None:
                found = function(inputs, codes)
                words = []
                while found:  # bit i: the first i + 1 letters are a word
                    lowest = found & -found
                    words.append(plain[:lowest.bit_length()])
                    found ^= lowest
                return words
        folded = self._folded(word)
        if not folded:
            return []
        sliced = True  # no tile's letter to spell out: each prefix is a slice of the folded word
        for symbol in self._tile_letters:
            if symbol in folded:
                sliced = False
                break
        if compiled is None or len(folded) > MAX_COMPILED_PREFIXES:
            ends = self._descents.word_ends(folded)
        else:
            function, inputs, table, _ = compiled
            if folded.isascii():
                found = function(inputs, folded.encode().translate(table))
            else:
                found = function(inputs, self._encoded(folded))
            ends = [end for end in range(1, len(folded) + 1) if found >> (end - 1) & 1]
        return [folded[:end] if sliced else self.charset.unfold(folded[:end]) for end in ends]

    @cached_property
    def _tile_letters(self) -> tuple[str, ...]:
        return tuple(symbol for symbol, _ in self.charset.tiles)

    @cached_property
    def _compiled_word_ends(self) -> tuple[Callable[[tuple, bytes], int], tuple, bytes, str] | None:
        """Which prefixes of a word (its letter codes) are words, as bits, in one compiled call: the
        format's batch lookup run on each (`aot.query_function`, built on first use like a batch
        driver, loaded without numba); with the walk's inputs to call it with, the ASCII letters'
        codes (a bytes.translate table: BAD_CODE beyond ASCII) and `_fold_screens`. None where none can
        be built."""
        from .. import aot

        walk = self.walk
        compiled = aot.query_function("word_ends", walk, (b"a",))
        if compiled is None:
            return None
        return compiled, walk.inputs, self._ascii_codes.tobytes() + bytes([BAD_CODE]) * 128, self._fold_screens

    def written(self, word: str) -> tuple[str, ...]:
        """How the list wrote a word ("gläsern", "Straße" where the game plays "glaesern", "strasse"): its
        spellings, in the order the list gave them; where it gave none, the word as the game spells it."""
        folded = self._folded(word)
        if not folded:
            return (word,)
        return (self.written_forms.forms(folded) if self.written_forms else ()) or (self.charset.unfold(folded),)

    def key_ids(self, words: Iterable[str]) -> np.ndarray:
        """The number of each word (as `key_id` gives it), -1 for a word the lexicon lacks (or not a
        string): the batch lookup, compiled (`_query_kernel`), the words folded as `key_id` folds
        them, all at once."""
        import numpy as np

        words = list(words)
        if not words:  # ("".join of none is one empty word to split)
            return np.empty(0, np.int64)
        codes, starts, ends = self._word_codes(words)
        numbers = np.empty(len(starts), np.int64)
        self._query_kernel("lookup", codes, starts, ends, numbers)
        return numbers

    def _query_kernel(self, export: str, *arrays: np.ndarray):
        """A query kernel of this format's walk ("lookup": its batch lookup, "listing": its word listing)
        run on the walk's inputs and `arrays`: compiled ahead of time where it can be
        (`aot.query_function`, built on first use, loaded without numba), else by numba."""
        from .. import aot

        walk = self.walk
        compiled = aot.query_function(export, walk, arrays)
        if compiled is not None:
            return compiled(walk.inputs, *arrays)
        from .. import jit

        kernel = walk.numbers_kernel if export == "lookup" else walk.words_kernel
        return jit.compiled_kernel(kernel)(*walk.inputs, *arrays)

    def contains_many(self, words: Iterable[str]) -> np.ndarray:
        """Whether each word is in the lexicon, as `word in lexicon` says: `key_ids(words) >= 0`."""
        return self.key_ids(words) >= 0

    def _word_codes(self, words: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The letter codes of `words` folded as `_folded` folds one, in one array: word i is
        codes[starts[i]:ends[i]]; a letter outside the charset, or a tile's letter outside its face,
        is a code no kernel follows (BAD_CODE). Each step runs over all the words at once."""
        import numpy as np

        try:
            text = "\n".join(words)
        except TypeError:  # not all strings
            text = None
        if text is None or text.count("\n") != len(words) - 1:  # a non-string or a line end is no word: "?"
            text = "\n".join(w if isinstance(w, str) and "\n" not in w else "?" for w in words)
        if self.language_section is not None:
            text = self.language.game_form(text)
        elif text.isascii():
            text = text.lower()
        else:
            text = "".join(map(lower, unicodedata.normalize("NFC", text)))
        tiles = self.charset.tiles_longest_first
        marks = TILE_MARKS if len(tiles) <= len(TILE_MARKS) else [chr(0xF0000 + i) for i in range(len(tiles))]
        for mark, (_, face) in zip(marks, tiles):  # each face kept aside, then a tile's letter left alone is bad
            text = text.replace(face, mark)
        for mark, (symbol, _) in zip(marks, tiles):
            text = text.replace(symbol, "?").replace(mark, symbol)
        if text.isascii():  # a table lookup per byte
            data = self._ascii_codes[np.frombuffer(text.encode("ascii"), np.uint8)]
        else:
            data = np.frombuffer(bytearray(self._encoded(text)), np.uint8)
        ends = np.flatnonzero(data == WORD_END)
        starts = np.concatenate(([0], ends + 1))
        return data, starts, np.concatenate((ends, [len(data)]))

    @cached_property
    def _ascii_codes(self) -> np.ndarray:
        """The code of each ASCII character as `_code_map` gives it."""
        import numpy as np

        table = np.full(128, BAD_CODE, np.uint8)
        for code, letter in enumerate(self.charset.letters):
            if letter.isascii():
                table[ord(letter)] = code
        table[ord("\n")] = WORD_END
        return table

    @cached_property
    def _letter_table(self) -> str:
        """The letter of each code, and a line end for WORD_END: a charmap decoding table (codecs)."""
        letters = self.charset.letters
        return letters + "\ufffe" * (WORD_END - len(letters)) + "\n"

    def _encoded(self, text: str) -> bytes:
        """The codes of `text`'s characters: a letter's code, WORD_END for a line end, BAD_CODE for any other."""
        return codecs.charmap_encode(text, "replace", self._code_map)[0].translate(self._code_fixes)

    @cached_property
    def _code_map(self):
        """The charmap (codecs) of this lexicon's letters to their codes, a line end to WORD_END, "?"
        (what any other character becomes) to BAD_CODE, but letter 0 to SPARE_CODE (`_charmap`)."""
        return self._charmap(set(self.charset.letters), "\n?")

    def _charmap(self, letters: set[str], tail: str):
        """A codecs charmap of `letters` (of the charset) to their codes and of `tail` to the codes from WORD_END
        on. CPython encodes through a compact table, at C speed (a few ns a character), only when the
        character of code 0 is NUL (else through a dict, about 60 ns a character), so NUL holds code 0,
        letter 0 takes SPARE_CODE and `_code_fixes` swaps them back, NUL becoming BAD_CODE."""
        table = ["\0"] + ["\ufffe"] * (WORD_END - 1) + list(tail)  # U+FFFE: no character has this code
        for code, letter in enumerate(self.charset.letters):
            if letter in letters:
                table[code or SPARE_CODE] = letter
        return codecs.charmap_build("".join(table))

    @cached_property
    def _code_fixes(self) -> bytes:
        """What turns `_charmap`'s codes into letter codes (a bytes.translate table)."""
        fixes = bytearray(range(256))
        fixes[0], fixes[SPARE_CODE] = BAD_CODE, 0
        return bytes(fixes)

    def key_id(self, word: str) -> int:
        """The number of a word (as `dawgc words --numbers` prints it; marisa-trie's name); KeyError
        when it is not in the lexicon."""
        folded = self._folded(word)
        number = self._descents.number(folded) if folded else None
        if number is None:
            raise KeyError(word)
        return number

    def restore_key(self, number: int) -> str:
        """The word of a number (marisa-trie's name), where the format numbers its words densely."""
        steps = self._lookup_steps
        if steps.rank is None or steps.rank_of is None:
            raise ParameterError("number", f"the {self.format} format numbers words by node, so a number "
                                 f"cannot be looked up; open the dawg or adtdawg format")
        rank = steps.rank_of(int(number)) if is_whole(number) else -1  # key_ids' numpy integers too
        if not 0 <= rank < self.word_count:
            raise ParameterError("number", f"{number!r} is not the number of a word of this {self.format} "
                                 f"lexicon ({self.word_count} words)")
        entries = [(steps.root, "")]
        while True:
            state, text = [e for e in entries if steps.rank(e[0]) <= rank][-1]
            if steps.rank(state) == rank and steps.number(state) is not None:
                return self.charset.unfold(text)
            entries = [(child, text + self.charset.letters[letter]) for letter, child in steps.children(state)]

    def info(self) -> dict:
        return {"format": self.format, "path": str(self.path), "charset": "".join(map(upper, self.charset.letters)),
                "words": self.word_count, "max_length": self.max_length}


class Descents(NamedTuple):
    """A format's lookups of a folded word, each a loop over its letters: `number` gives the word's
    number or None; `has` something or None, skipping what numbering costs where it costs (the dawg's
    ranks, the ADTDAWG's markers); `word_ends` the lengths of its prefixes that are words, shortest first."""

    number: Callable[[str], int | None]
    has: Callable[[str], object | None]
    word_ends: Callable[[str], list[int]]


class WordSteps(NamedTuple):
    """The ordered word walk of a format: `root` is the state of the empty word, `children(state)`
    yields (letter code, child state) in letter order, `child(state, code)` is one of them, found in
    constant time (the rank of the letter in the node's letters), or None, `number(state)` is the word
    number where the state ends a word, else None. Where words are numbered densely, `rank(state)`
    is the alphabetical rank of the first word at or below a state and `rank_of(number)` the rank
    of a word number; else both are None."""

    root: object
    children: Callable[[object], Iterable[tuple[int, object]]]
    child: Callable[[object, int], object | None]
    number: Callable[[object], int | None]
    rank: Callable[[object], int] | None = None
    rank_of: Callable[[int], int] | None = None


class Field:
    """One bit field of an array's words, read word by word as a Python int (a lazy column for
    `Lexicon.word_steps`); item i is in word i * stride + offset."""

    def __init__(self, words: np.ndarray, shift: int = 0, mask: int = -1, stride: int = 1, offset: int = 0) -> None:
        import numpy as np

        self.words = np.ascontiguousarray(words).data  # items read as Python ints, without numpy scalars
        self.shift, self.mask, self.stride, self.offset = shift, mask, stride, offset

    def __getitem__(self, index: int) -> int:
        return (self.words[index * self.stride + self.offset] >> self.shift) & self.mask


def _prefix(prefix: object) -> str:
    if not isinstance(prefix, str):
        raise ParameterError("prefix", f"must be a string, got {prefix!r}")
    return prefix


def letter_step(nodes: np.ndarray, layout: NodeLayout) -> Callable[[int, int], int | None]:
    """`step(node, letter)`: the index (a trie's child node, a DAWG's edge) that a trie or DAWG node's
    letter leads to, its first child plus the rank of the letter among the node's letters, or None
    where the node has no such letter: one read of a node word for the letters, one for the first child."""
    import numpy as np

    words = np.ascontiguousarray(nodes).data
    stride, mask_word, shift, letters_mask = layout.words, layout.mask_word, layout.mask_shift, layout.letter_mask

    def step(node: int, letter: int) -> int | None:
        base = node * stride
        letters = (words[base + mask_word] >> shift) & letters_mask
        if not (letters >> letter) & 1:
            return None
        return (words[base] & INDEX_MASK) + (letters & ((1 << letter) - 1)).bit_count()

    return step


def node_columns(nodes: np.ndarray, layout: NodeLayout):
    """(first child or edge, letter mask, end-of-word) of trie/DAWG node words, as lazy `Field` columns."""
    words = layout.words
    return (Field(nodes, 0, INDEX_MASK, words), Field(nodes, layout.mask_shift, layout.letter_mask, words,
                                                      layout.mask_word), Field(nodes, EOW_SHIFT, 1, words))


class TrieNodes:
    """A trie's node words (flat, `layout.words` per node, as solver.layout says; node 0 the root,
    children after their parent, a word's number its end node)."""

    def __init__(self, nodes: np.ndarray, layout: NodeLayout = NARROW) -> None:
        self.nodes, self.layout = nodes, layout

    @property
    def count(self) -> int:
        return len(self.nodes) // self.layout.words

    @cached_property
    def height(self) -> int:
        """Letters on the longest root-to-leaf path (the deepest stack a walk can need)."""
        import numpy as np

        first, mask, _ = self.layout.split(self.nodes)
        kids = np.bitwise_count(mask.astype(np.uint64)).astype(np.int64)
        level, height = np.zeros(1, np.int64), 0
        while True:
            level = level[kids[level] > 0]
            if not len(level):
                return height
            level = spans(first[level], kids[level])
            height += 1


def one_file(section: dict) -> list[dict]:
    """The file entries of a manifest section that records one file (`file`, `bytes`, `sha256`)."""
    return [section]


class Format(NamedTuple):
    """A lexicon format as the reader knows it: its registry entry (solver.formats.FORMATS).

    `lexicon.load(snapshot, file names, ManifestEntry or None)` opens and validates it;
    `owns(name, first 8 bytes)` says whether a single file is one of its files;
    `files(snapshot, name)` lists its files that go with the file `name` (or, with
    None, its files in the directory), complete, or None.
    `section` checks its manifest section (a schema check) and `section_files(section)` gives
    the file entries in it; `agree(manifest path, checked manifest data)`, where given, raises
    DawgError when the section disagrees with the rest of the manifest.
    `numbering(i, count)` is the documented number of the i-th of `count` words in alphabetical
    order, or None where numbers are not a function of the rank (they are then checked distinct).

    The writer side (bytes out, the section's values, the line of `dawgc build`) is the
    compiler's: `compiler.writers.WRITERS` holds a writer under the same name. The formats are
    defined here, once; the compiler imports them, never the other way round.
    """

    name: str
    summary: str
    lexicon: type[Lexicon]
    owns: Callable[[str, bytes], bool]
    files: Callable[[Snapshot, str | None], list[str] | None]
    section: Check
    section_files: Callable[[dict], list[dict]] = one_file
    agree: Callable[[Path, dict], None] | None = None
    numbering: Callable[[int, int], int] | None = None


class FileHeader(NamedTuple):
    """A checked trie or DAWG header: its fields (`HEADER`'s), the charset, the node layout and where the body starts."""

    fields: dict
    charset: Charset
    layout: NodeLayout
    body: memoryview


def read_header(path: Path, data: memoryview, magic: bytes, kind: str) -> FileHeader:
    """The checked 64-byte header of a trie or DAWG file (magic, version, charset, CRC-32) and,
    in format version 2, its alphabet block."""
    if len(data) < HEADER.size:
        raise DawgError(f"{path}: truncated ({len(data)} bytes, the header alone is {HEADER.size})")
    head = HEADER.unpack(data)
    if head["magic"] != magic:
        raise DawgError(f"{path}: not a {kind} file (bad magic number)")
    version = head["version"]
    if version not in FORMAT_VERSIONS:
        raise DawgError(f"{path}: format version {version}, this reader knows "
                        f"{', '.join(map(str, FORMAT_VERSIONS))}")
    n = head["charset_size"]
    block = head["alphabet_bytes"]
    body = data[HEADER.size:]
    if zlib.crc32(body) != head["crc32"]:
        raise DawgError(f"{path}: checksum mismatch (corrupt file)")
    try:
        if version == LEGACY_VERSION:
            charset = Charset(head["charset"].rstrip(b"\0").decode("ascii").lower())
            ok = charset.legacy and block == 0 and head["node_words"] == 0
        else:
            charset = read_alphabet(bytes(body[:block]))
            ok = block % 8 == 0 and not any(head["charset"]) and head["node_words"] == node_layout(len(charset)).words
    except (ValueError, UnicodeDecodeError):
        ok = False
    if not ok or len(charset) != n or any(head["reserved1"]):
        raise DawgError(f"{path}: header charset is invalid")
    if head["words"] < 1:
        raise DawgError(f"{path}: holds no words")
    return FileHeader(head, charset, node_layout(len(charset)), body[block:])


def narrow_halves(words: np.ndarray, layout: NodeLayout) -> memoryview | None:
    """Narrow trie or DAWG nodes as 32-bit halves, which Python reads as small ints (a whole word is
    a large one, slower to shift and mask): node n's first child or edge at 2n, its letters (from
    bit 0, as LETTERS_SHIFT is 32) and end of word (bit HALF_EOW_SHIFT) at 2n + 1. None for wide
    nodes, or where the machine's byte order is not the files' (little-endian)."""
    import numpy as np

    if layout.words != 1 or sys.byteorder != "little":
        return None
    return np.ascontiguousarray(words).view(np.uint32).data


def wide_quarters(words: np.ndarray, layout: NodeLayout) -> tuple[memoryview, memoryview] | None:
    """Wide trie or DAWG nodes as 32-bit quarters and 64-bit words, so that only a node's letters are read
    as a large int: node n's first child or edge at quarter 4n, its end of word at bit HALF_EOW_SHIFT of
    quarter 4n + 1, its letters at word 2n + 1. None for narrow nodes, or where the machine's byte
    order is not the files' (`narrow_halves` reads narrow ones)."""
    if layout.words != 2 or sys.byteorder != "little":
        return None
    import numpy as np

    nodes = np.ascontiguousarray(words)
    return nodes.view(np.uint32).data, nodes.data


def check_node_bits(path: Path, nodes: np.ndarray, layout: NodeLayout, letters: int, what: str) -> None:
    """Check trie or DAWG node words: letter masks within the charset, reserved bits zero. A bit set in
    any word is set in the OR of all of them: one pass over the file, no copy."""
    import numpy as np

    ored = np.bitwise_or.reduce(nodes.reshape(-1, layout.words), axis=0)
    check(layout.split(ored)[1] >> letters == 0, path, f"{what} letter mask names letters beyond the charset")
    check(layout.reserved(ored) == 0, path, f"{what} has reserved bits set")


def child_ranges(nodes: np.ndarray, layout: NodeLayout, lowest: int,
                 limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool, bool]:
    """Of trie or DAWG node words that passed `check_node_bits`: each node's end of word (bool), the
    nodes with children, the range [start, end) of their children (int64: numpy indexes with these
    fastest), whether every node without children points at none and whether every range lies in
    [lowest, limit)."""
    import numpy as np

    first, kids, eow = layout.children(nodes)
    inner = np.flatnonzero(kids != 0)  # numpy finds the true items of a bool array fastest
    start = first[inner].astype(np.int64)
    end = start + kids[inner]
    in_range = not len(inner) or bool(start.min() >= lowest and end.max() <= limit)
    return eow, inner, start, end, np.count_nonzero(first) == np.count_nonzero(start), in_range


def popcount_children(first: int, mask: int):
    j = 0
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1, first + j
        j += 1
        mask ^= low
