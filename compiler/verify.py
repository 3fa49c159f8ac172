"""`dawgc verify`: everything a reader checks, plus a round trip back to the word list."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..solver.charset import Charset
from ..solver.errors import DawgError
from ..solver.formats import FORMATS
from ..solver.lexicon import Lexicon, open_all
from .wordlist import ListOptions, load_word_list

Progress = Callable[[str, int, int], None]
"""progress(what is being checked, words checked so far, words to check in all)."""


@dataclass
class Verification:
    """What was checked, one line each; `ok` is False at the first failure."""

    checks: list[str] = field(default_factory=list)
    ok: bool = True

    def passed(self, line: str) -> None:
        self.checks.append(f"ok    {line}")

    def failed(self, line: str) -> None:
        self.checks.append(f"FAIL  {line}")
        self.ok = False


@dataclass(frozen=True)
class Enumerated:
    """How many words a lexicon enumerates and the SHA-256 of their sequence, one per line (folded):
    equal for two lexicons exactly when they hold the same words."""

    count: int
    sha256: str


def enumerate_words(words: Iterable[str]) -> Enumerated:
    digest = hashlib.sha256()
    count = 0
    for word in words:
        digest.update(word.encode() + b"\n")
        count += 1
    return Enumerated(count, digest.hexdigest())


def check_lexicon(lex: Lexicon, result: Verification,
                  progress: Callable[[int], None] | None = None) -> Enumerated:
    """Numbering and word checks of one opened (hence structurally valid) lexicon, streaming its words
    (memory bounded by the longest word, whatever their number). `progress(n)` is called as n
    more words are enumerated."""
    numbering = FORMATS[lex.format].numbering  # None: numbers are node ids, checked distinct
    node_used = bytearray(lex.walk.id_count) if numbering is None else None
    ordered = numbered = distinct_nodes = True
    previous = None
    key = lex.charset.order_key

    def checked_words():
        nonlocal ordered, numbered, distinct_nodes, previous
        for i, (word, number) in enumerate(lex.iter_numbered_words(progress)):
            current = key(word)
            ordered = ordered and (previous is None or previous < current)
            previous = current
            if numbering is not None:
                numbered = numbered and number == numbering(i, lex.word_count)
            elif node_used[number]:
                distinct_nodes = False
            else:
                node_used[number] = 1
            yield word

    enumerated = enumerate_words(checked_words())
    name = f"{lex.format} ({lex.path})"
    if enumerated.count != lex.word_count:
        result.failed(f"{name}: enumerates {enumerated.count} words, header says {lex.word_count}")
    elif not ordered:
        result.failed(f"{name}: words are not unique and in alphabetical order")
    elif not numbered:
        result.failed(f"{name}: word numbers differ from the documented numbering")
    elif not distinct_nodes:
        result.failed(f"{name}: two words share a node")
    else:
        result.passed(f"{name}: structure valid, {enumerated.count} words, numbering as documented")
    return enumerated


def verify(path: Path, source: Path | None = None, progress: Progress | None = None) -> Verification:
    """Open every lexicon at `path` (a directory: every format present), check each fully, compare
    them, and with `source` the word list. `progress` follows the word-by-word checks. The
    lexicons' words are streamed, never held; the source's are (as its build held them)."""
    result = Verification()
    manifest, lexicons = open_all(path)
    if manifest:
        result.passed(f"manifest: {manifest.path}, files match their SHA-256")
    total = sum(lex.word_count for lex in lexicons) + (lexicons[0].word_count if source else 0)
    done = 0

    def advance(what: str) -> Callable[[int], None] | None:
        def step(n: int) -> None:
            nonlocal done
            done += n
            progress(what, done, total)
        return step if progress else None

    enumerated = {lex.format: check_lexicon(lex, result, advance(f"enumerating the {lex.format}"))
                  for lex in lexicons}
    reference = next(iter(enumerated.values()))
    if len(enumerated) > 1:
        if all(words == reference for words in enumerated.values()):
            result.passed(f"{', '.join(enumerated)} hold the same {reference.count} words")
        else:
            result.failed(f"{', '.join(enumerated)} hold different words")

    written = lexicons[0].written_forms
    if written is not None:
        try:
            spellings = dict(written.items())
            result.passed(f"written: the spellings of {len(spellings)} words read back")
        except DawgError as err:
            spellings = None
            result.failed(f"written: {err}")
    if source is not None:
        if manifest is None:
            charset: Charset = lexicons[0].charset
            max_length, options = None, ListOptions()
        else:
            charset, max_length = manifest.charset, manifest.data["options"].get("max_length")
            options = ListOptions.from_manifest(manifest.data["options"], lexicons[0].language)
        if progress:
            progress(f"reading {source.name}", done, total)
        words = load_word_list(source, charset, max_length, options)
        if progress:
            advance(f"reading {source.name}")(lexicons[0].word_count)
        if manifest and words.sha256 != manifest.data["source"]["sha256"]:
            result.failed(f"source: {source} is not the list this build was made from (SHA-256 differs)")
        elif enumerate_words(words.words) == reference:
            result.passed(f"source: round trip to {source} gives exactly its {len(words.words)} "
                          f"words for charset {charset.letters.upper()}")
        else:
            missing, extra = differences(map(charset.order_key, words.words),
                                         (charset.order_key(w) for w, _ in lexicons[0].iter_numbered_words()))
            result.failed(f"source: {missing} words of {source} missing, {extra} not in it")
        if written is not None and spellings is not None:
            if spellings == words.spellings:
                result.passed(f"written: the spellings of {source} for all {len(spellings)} words it writes otherwise")
            else:
                result.failed(f"written: the spellings differ from those of {source}")
    elif manifest is not None:
        result.checks.append(f"skip  source: round trip needs --source {manifest.data['source']['name']}")
    return result


def differences(expected: Iterable[str], found: Iterable[str]) -> tuple[int, int]:
    """(words only in `expected`, words only in `found`) of two sorted sequences (of order keys),
    merged one by one."""
    missing = extra = 0
    expected, found = iter(expected), iter(found)
    want, got = next(expected, None), next(found, None)
    while want is not None or got is not None:
        if got is None or (want is not None and want < got):
            missing += 1
            want = next(expected, None)
        elif want is None or got < want:
            extra += 1
            got = next(found, None)
        else:
            want, got = next(expected, None), next(found, None)
    return missing, extra


def describe(path: Path) -> dict:
    """`dawgc info`: the manifest's figures and the header of every lexicon present, validated
    (a build directory and its manifest give the same)."""
    manifest, lexicons = open_all(path)
    formats = {lex.format: lex.info() for lex in lexicons}
    return {"manifest": manifest.data, "formats": formats} if manifest else {"formats": formats}
