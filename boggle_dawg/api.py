"""The library a game author picks up: `import boggle_dawg`, then build or open a lexicon and solve boards.

    import boggle_dawg

    lex = boggle_dawg.build_lexicon(["cat", "cats", "act"], out="build/mine")   # or a word list's path
    boggle_dawg.solve("catsxxxxxxxxxxxx", lex).score                            # 2: cat, cats
    boggle_dawg.solve("catsxxxxxxxxxxxx", lex, rules="big").words               # [Found("cats", 1, ...)]
    boggle_dawg.default_lexicon()                                               # the shipped list, compiled once

Each function is a thin layer over the solver (`solver.lexicon`, `solver.rules`) and the
compiler (`compiler.build`); the package imports this module only when one of them is
first used, so `import boggle_dawg` costs nothing.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .solver.board import Board
from .solver.board_walk import Found
from .solver.errors import DawgError, ParameterError
from .solver.language import DEFAULT_LANGUAGE, Language
from .solver.lexicon import Lexicon, open_lexicon
from .solver.rules import Rules, load_rules

__all__ = ["Solution", "build_lexicon", "default_lexicon", "open_lexicon", "solve"]


@dataclass(frozen=True)
class Solution:
    """One board solved: its notation, the rules it was scored under, its score and every word that
    counts, with its points and a path, longest first."""

    board: str
    rules: Rules
    score: int
    words: list[Found]


def default_lexicon(format: str | None = None) -> Lexicon:
    """The shipped default lexicon (SOWPODS), compiled into the user cache on first use, as the
    command line does."""
    from .defaults import lexicon_or_default

    return lexicon_or_default(None, format)


def build_lexicon(words: str | Path | Iterable[str], out: str | Path | None = None,
                  language: str | Path | Language | None = DEFAULT_LANGUAGE, charset: str | int | None = None,
                  max_length: int | None = None, rules: Rules | str | Path | None = None) -> Lexicon:
    """Compile a word list (a file's path) or the words themselves into every format in `out`
    (default: build/<list>-<charset>, as `dawgc build` names it) and open the result. `language`
    is a built-in language's name, a language file or a Language; `charset` keeps some of its
    letters (a count of the ranked English letters, or the letters), by default all of them, or
    "auto", the letters the list uses (with `language=None`, letters of another script than a-z
    make a build of those letters alone, as `dawgc build --charset` without `--language`);
    `rules` are those the lexicon scores under unless a call names others (default: the language's)."""
    from .compiler.build import build_lexicon as build
    from .compiler.build import choose_alphabet

    options, letters = choose_alphabet(language, charset)
    chosen = None if rules is None else load_rules(rules)
    if isinstance(words, (str, Path)):
        result = build(Path(words), letters, _path(out), max_length, options=options, rules=chosen)
        return open_lexicon(result.out_dir)
    if out is None:
        raise ParameterError("out", "needed when the words are given as a list (no file names the build)")
    with tempfile.TemporaryDirectory() as scratch:
        listed = Path(scratch) / "words.txt"
        with open(listed, "w", encoding="utf-8") as fh:
            for at, word in enumerate(words):
                if not isinstance(word, str):
                    raise ParameterError("words", f"must be strings, got {type(word).__name__}")
                if any(ch in word for ch in "\n\r\0"):  # one item, one word: no line breaks to split it
                    raise ParameterError(f"words[{at}]", f"{word!r}: a line break or NUL inside a word")
                fh.write(word + "\n")
        try:
            result = build(listed, letters, _path(out), max_length, options=options, rules=chosen)
        except DawgError as err:  # said of the list, not of the scratch file it was written to
            raise DawgError(_of_the_list(str(err), str(listed))) from None
    return open_lexicon(result.out_dir)


def _of_the_list(message: str, scratch: str) -> str:
    """A build's error about the scratch file holding a list of words, said of the `words` list: line N
    is item N - 1."""
    line = re.match(re.escape(scratch) + r" line (\d+)", message)
    if line:
        return f"words[{int(line[1]) - 1}]" + message[line.end():]
    return message.replace(scratch, "words")


def solve(board: str | Board, lexicon: Lexicon | str | Path | None = None,
          rules: Rules | str | Path | None = None) -> Solution:
    """Every word on `board` (notation, or a Board) that counts under `rules` (a Rules, a built-in
    name or a rules file; default: the lexicon's), in `lexicon` (an open lexicon, a build's path, or
    the shipped default), with the board's score."""
    lex = default_lexicon() if lexicon is None else lexicon if isinstance(lexicon, Lexicon) else \
        open_lexicon(lexicon)
    chosen = lex.rules if rules is None else load_rules(rules)
    parsed = board if isinstance(board, Board) else lex.board(board)
    found = lex.words(parsed, rules=chosen)
    return Solution(parsed.notation, chosen, sum(f.points for f in found), found)


def _path(out: str | Path | None) -> Path | None:
    return None if out is None else Path(out)
