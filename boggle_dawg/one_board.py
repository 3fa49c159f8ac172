"""One board, printed: what `dawg-solve [FILE] BOARD` and `dawg-solve solve` both do.

Kept free of typer, so the plain one-board form (`dawg_solve.main`) answers
without importing it.
"""

from __future__ import annotations

from pathlib import Path

from .cli_common import UsageError, cli_lexicon, lone_path_error, plural, rules_option
from .program import PROG, near_command
from .solver.board import Board, Shape, blank_foreign, parse_board
from .solver.charset import ENGLISH_CHARSET, Charset, upper
from .solver.errors import DawgError
from .solver.lexicon import Lexicon
from .solver.rules import DEFAULT_RULES, Rules


def _tally(score: int, count: int, rules: Rules) -> str:
    """'13 points, 9 words', naming the rules when they are not the standard ones."""
    under = "" if rules.name == DEFAULT_RULES else f"; rules {rules.describe()}"
    return f"{score} {plural('point', score)}, {count} {plural('word', count)}{under}"


def print_board(lex: Lexicon, board: Board, show_words: bool, show_paths: bool, as_json: bool,
                skip_foreign: bool, rules: Rules) -> None:
    """The grid and score under `rules` (and the words); with `skip_foreign`, a foreign letter's
    cell is shown as the blank it scores as, in the grid and in the JSON board alike."""
    if skip_foreign:
        board = blank_foreign(board, lex.charset)
    if not (show_words or show_paths or as_json):
        score, count = lex.score_and_count(board, rules=rules)
        print(board.grid())
        print(_tally(score, count, rules))
        return
    found = lex.words(board, rules=rules)
    score = sum(f.points for f in found)
    if as_json:
        import json

        words = [{"word": f.word, "points": f.points, **({"written": list(f.written)} if f.written else {}),
                  **({"path": [board.cell_name(c) for c in f.path]} if show_paths else {})} for f in found]
        print(json.dumps({"board": board.notation, "size": str(board.shape), "rules": rules.as_dict(),
                          "score": score, "words": words}))
        return
    print(board.grid())
    print(_tally(score, len(found), rules))
    for f in found:
        path = "  " + " ".join(board.cell_name(c) for c in f.path) if show_paths else ""
        written = f"  ({f.shown})" if f.written else ""
        print(f"{f.points:3}  {f.word}{written}{path}")


def _lone_argument_is_board(text: str, shape: Shape | None) -> Board:
    """`dawg-solve ARG`: ARG is a board whenever it reads as one, even if a file has that name."""
    try:
        return parse_board(text, shape)
    except DawgError as err:
        if Path(text).exists():
            raise lone_path_error(text, "a BOARD (or --boards PATH)") from None
        command = near_command(text)
        if command:
            raise UsageError(f"{err} (or did you mean '{PROG} {command}'?)") from None
        raise _foreign_or(err, text, ENGLISH_CHARSET) from None  # the shipped lexicon's letters


def _foreign_or(err: DawgError, text: str, charset: Charset) -> DawgError:
    """The error for a board that does not parse: its letters outside `charset` when it has any
    ('жизнь' is 5 cells, not square, but for English what is wrong is its letters), else `err`."""
    foreign = sorted({upper(ch) for ch in text.lower() if ch.isalpha() and ch not in charset})
    return DawgError(f"board {text!r} {charset.foreign()}: {', '.join(foreign)}") if foreign else err


def _lexicon_file(text: str) -> Path:
    """FILE of `dawg-solve FILE BOARD`; a missing one named like a command is taken for its typo."""
    path = Path(text)
    command = None if path.exists() else near_command(text)
    if command:
        raise UsageError(f"{text}: no such file or directory, nor a command (did you mean '{PROG} {command}'?)")
    return path


def solve_board(args: list[str], shape: Shape | None, fmt: str | None, words: bool, paths: bool, as_json: bool,
                skip_foreign: bool, backend: str = "cpu", rules: str | None = None) -> None:
    """Print one board's score (and words) under the rules `--rules` names: args is [BOARD] or
    [FILE, BOARD]. The board is walked here on the CPU; another `backend` asked for must still be
    able to score the lexicon."""
    if len(args) == 1:
        board = _lone_argument_is_board(args[0], shape)
        lex = cli_lexicon(None, fmt)
    else:
        file = _lexicon_file(args[0])
        try:
            parse_board(args[1], shape)  # a malformed board is reported before the lexicon is opened...
        except DawgError:
            lex = cli_lexicon(file, fmt)  # ...in its terms when the lexicon lacks its letters
            try:
                lex.board(args[1], shape)  # a mark the language folds into a letter (Catalan's '·')
            except DawgError as own:  # what is wrong in the lexicon's terms
                raise _foreign_or(own, lex.board_text(args[1]), lex.charset) from None
        else:
            lex = cli_lexicon(file, fmt)
        board = lex.board(args[1], shape)  # read with the lexicon's tiles and letter folds
    if backend != "cpu":
        from .solver.backends import check_backend

        check_backend(lex, backend)
    print_board(lex, board, words, paths, as_json, skip_foreign, rules_option(rules, lex.rules))
