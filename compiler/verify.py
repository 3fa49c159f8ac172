"""`dawgc verify`: everything a reader checks, plus a round trip back to the word list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from solver.charset import Charset
from solver.lexicon import Lexicon, open_all

from .wordlist import load_word_list

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


def expected_numbers(fmt: str, count: int) -> list[int] | None:
    """Word numbers in alphabetical order as documented; None where ids are node ids (trie)."""
    if fmt == "dawg":
        return list(range(count))
    if fmt == "adtdawg":
        return list(range(count, 0, -1))
    return None


def check_lexicon(lex: Lexicon, result: Verification,
                  progress: Callable[[int], None] | None = None) -> list[str]:
    """Numbering and word checks of one opened (hence structurally valid) lexicon; returns its words.
    `progress(n)` is called as n more words are enumerated."""
    numbered = lex.numbered_words(progress)
    words = [w for w, _ in numbered]
    numbers = [n for _, n in numbered]
    name = f"{lex.format} ({lex.path})"
    if len(words) != lex.word_count:
        result.failed(f"{name}: enumerates {len(words)} words, header says {lex.word_count}")
    elif words != sorted(set(words)):
        result.failed(f"{name}: words are not unique and in alphabetical order")
    elif (expected := expected_numbers(lex.format, len(words))) is not None and numbers != expected:
        result.failed(f"{name}: word numbers differ from the documented numbering")
    elif lex.format == "trie" and len(set(numbers)) != len(numbers):
        result.failed(f"{name}: two words share a node")
    else:
        result.passed(f"{name}: structure valid, {len(words)} words, numbering as documented")
    return words


def verify(path: Path, source: Path | None = None, progress: Progress | None = None) -> Verification:
    """Open every lexicon at `path` (a directory: every format present), check each fully, compare
    them, and with `source` the word list. `progress` follows the word-by-word checks."""
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

    word_lists = {lex.format: check_lexicon(lex, result, advance(f"enumerating the {lex.format}"))
                  for lex in lexicons}
    reference = next(iter(word_lists.values()))
    if len(word_lists) > 1:
        if all(words == reference for words in word_lists.values()):
            result.passed(f"{', '.join(word_lists)} hold the same {len(reference)} words")
        else:
            result.failed(f"{', '.join(word_lists)} hold different words")

    if source is not None:
        if manifest is None:
            charset: Charset = lexicons[0].charset
            max_length = None
        else:
            charset, max_length = manifest.charset, manifest.data["options"].get("max_length")
        if progress:
            progress(f"reading {source.name}", done, total)
        words = load_word_list(source, charset, max_length)
        if progress:
            advance(f"reading {source.name}")(lexicons[0].word_count)
        if manifest and words.sha256 != manifest.data["source"]["sha256"]:
            result.failed(f"source: {source} is not the list this build was made from (SHA-256 differs)")
        elif words.words == reference:
            result.passed(f"source: round trip to {source} gives exactly its {len(words.words)} "
                          f"words for charset {charset.letters.upper()}")
        else:
            missing = len(set(words.words) - set(reference))
            extra = len(set(reference) - set(words.words))
            result.failed(f"source: {missing} words of {source} missing, {extra} not in it")
    elif manifest is not None:
        result.checks.append(f"skip  source: round trip needs --source {manifest.data['source']['name']}")
    return result


def describe(path: Path) -> dict:
    """`dawgc info`: the manifest's figures and the header of every lexicon present, validated
    (a build directory and its manifest give the same)."""
    manifest, lexicons = open_all(path)
    formats = {lex.format: lex.info() for lex in lexicons}
    return {"manifest": manifest.data, "formats": formats} if manifest else {"formats": formats}
