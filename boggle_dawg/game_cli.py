"""`dawg-solve roll` and `dawg-solve play`: shake the dice, and play a timed round in the terminal.

    dawg-solve roll [--dice NAME|FILE] [--seed N] [--count K]   boards in notation, one per line
    dawg-solve play [FILE] [--dice NAME|FILE] [--seconds 180]    type words against the clock

`play` reads words one per line from stdin, so it can be scripted as well as
played; on a terminal the prompt shows the time left.
"""

from __future__ import annotations

import json
import math
import os
import select
import sys
import textwrap
import time
from pathlib import Path

import typer

from .cli_common import (
    MAX_SECONDS,
    RULES_HELP,
    UsageError,
    cli_lexicon,
    finite_option,
    language_option,
    plural,
    rules_option,
)
from .program import PROG
from .solver.board import Board, Shape, parse_size
from .solver.charset import Charset, upper
from .solver.dice_sets import DiceSet, builtin_dice_names, dice_for_size, load_dice, random_seed
from .solver.dice_sets import roll as roll_dice
from .solver.errors import DawgError
from .solver.formats import format_help
from .solver.game import Outcome, Round, Summary, Verdict
from .solver.language import DEFAULT_LANGUAGE, Language, builtin_language_names, own_language
from .solver.lexicon import Lexicon
from .solver.rules import DEFAULT_RULES, MAX_MIN_LENGTH

WIDTH = 79  # columns for word lists in the summary

DICE_HELP = (f"A built-in set ({', '.join(builtin_dice_names())}) or a dice file, in any alphabet; of a file "
             f"of several sets (Tanglet's), the one that fills --size [default: classic; big for --size 5x5, "
             f"super-big for 6x6].")


def _dice_and_shape(dice: str | None, size: str | None, charset: Charset, language: Language) -> tuple[DiceSet, Shape]:
    """The dice (a tile's letter alone read as `charset` says, a face's letters as `language` folds them)
    and the board they fill."""
    shape = parse_size(size) if size else None
    dice_set = load_dice(dice or dice_for_size(shape), charset, shape, language.letter_folds(charset))
    return dice_set, dice_set.shape(shape)


def _language_dice(lex) -> str | None:
    """The dice of the lexicon's language where it is a built-in one naming its own (Hungarian's from
    tanglet-data): what a round in that language rolls unless --dice says otherwise."""
    return own_language(lex.language).dice()


def _list_dice() -> None:
    for name in builtin_dice_names():
        dice_set = load_dice(name)
        print(f"{name:<12} {dice_set.shape()}  {len(dice_set.dice)} dice  {dice_set.description}")


def roll(
    dice: str | None = typer.Option(None, "--dice", "-d", metavar="NAME|FILE", help=DICE_HELP),
    seed: int | None = typer.Option(None, "--seed", help="Seed; the same seed gives the same boards "
                                                             "[default: random, printed on stderr]."),
    count: int = typer.Option(1, "--count", "-n", help="Boards to roll."),
    size: str | None = typer.Option(None, "--size", "-s", metavar="RxC",
                                       help="Board size RxC: picks the dice (5x5 big, 6x6 super-big) or "
                                            "shapes a dice file that is not square."),
    grid: bool = typer.Option(False, "--grid", "-g", help="Print each board as a grid (Qu spelled out)."),
    as_json: bool = typer.Option(False, "--json", help="JSON lines: seed, roll number, dice, board, size."),
    list_sets: bool = typer.Option(False, "--list", help="List the built-in dice sets and exit."),
    language: str = typer.Option(DEFAULT_LANGUAGE, "--language", "-l", metavar="NAME|FILE",
                                 help=f"The dice's language ({', '.join(builtin_language_names())} or a file): "
                                      f"its tiles say what a lone Q is (Qu in English, Q in Polish); without --dice, its "
                                      f"own dice where it names them (cs, el, he, hu, pt, pt-br: Debian's tanglet-data)."),
) -> None:
    """Shake dice into boards, printed in board notation (pipe them into `--boards -`)."""
    if list_sets:
        _list_dice()
        return
    lang = language_option(language)
    dice_set, shape = _dice_and_shape(dice or lang.dice(), size, lang.charset(), lang)
    chosen = random_seed() if seed is None else seed
    boards = roll_dice(dice_set, shape, chosen, count)
    if seed is None:
        print(f"{PROG}: seed {chosen}", file=sys.stderr)
    for number, board in enumerate(boards):
        if as_json:
            print(json.dumps({"seed": chosen, "roll": number, "dice": dice_set.name, "board": board.notation,
                              "size": str(board.shape)}))
        elif grid:
            print(("\n" if number else "") + board.grid())
        else:
            print(board.notation)


class LineReader:
    """Lines from a file descriptor, waiting no later than a deadline.

    select() and os.read() instead of a reader thread: when time runs out in
    the middle of a line nothing is left blocked on stdin. Works alike on a
    terminal (one line per read), a pipe or a file.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""
        self.at_end = False

    def readline(self, deadline: float | None) -> str | None:
        """The next line without its end; None at end of input; TimeoutError at the deadline."""
        while b"\n" not in self.pending and not self.at_end:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, 65536)
            self.at_end = not chunk
            self.pending += chunk
        if not self.pending:
            return None
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("utf-8", "replace")


def _clock(seconds: float) -> str:
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def _verdict_text(verdict: Verdict, round_: Round) -> str:
    if verdict.outcome is Outcome.ACCEPTED:
        return f"{verdict.word}: +{verdict.points} {plural('point', verdict.points)} (score {round_.score})"
    if verdict.outcome is Outcome.TOO_SHORT:
        return f"{verdict.word}: too short ({round_.min_length} letters or more)"
    return f"{verdict.word}: {verdict.outcome.value}"


def _summary_text(summary: Summary, ending: str) -> str:
    lines = [ending]
    if summary.found:
        listed = ", ".join(f"{w}\xa0({p})" for w, p in summary.found)  # no line break inside "word (2)"
        lines.append(f"You found {len(summary.found)} {plural('word', len(summary.found))} "
                     f"for {summary.score} {plural('point', summary.score)}:")
        lines.append(textwrap.fill(listed, WIDTH, initial_indent="  ", subsequent_indent="  ").replace("\xa0", " "))
    else:
        lines.append("You found no words.")
    share = f" (you scored {100 * summary.score // summary.maximum}%)" if summary.maximum else ""
    lines.append(f"The board holds {summary.word_count} {plural('word', summary.word_count)} of "
                 f"{summary.min_length}+ letters for {summary.maximum} {plural('point', summary.maximum)}{share}.")
    if summary.missed:
        lines.append(f"Missed {len(summary.missed)}, best first:")
        for worth in sorted({p for _, p in summary.missed}, reverse=True):
            words = " ".join(w for w, p in summary.missed if p == worth)
            lines.append(textwrap.fill(words, WIDTH, initial_indent=f"{worth:>4}: ", subsequent_indent=" " * 6))
    elif summary.found:
        lines.append("You found them all.")
    return "\n".join(lines)


ENDINGS = {"time": "Time's up.", "end": "Round over (end of input).", "interrupt": "Round stopped."}


def run_round(round_: Round, seconds: float, as_json: bool) -> tuple[Summary, str]:
    """Read and judge words until time is up, input ends or Ctrl-C; returns the summary and why it ended."""
    interactive = sys.stdin.isatty()
    reader = LineReader(sys.stdin.fileno())
    deadline = time.monotonic() + seconds if seconds else None
    try:
        while True:
            if interactive:
                left = f"[{_clock(deadline - time.monotonic())}] " if deadline else ""
                sys.stderr.write(f"{left}word> ")
                sys.stderr.flush()
            try:
                line = reader.readline(deadline)
            except TimeoutError:
                reason = "time"
                break
            if line is None:
                reason = "end"
                break
            if not line.strip():
                continue
            verdict = round_.submit(line)
            if as_json:
                print(json.dumps({"event": "word", "word": verdict.word, "verdict": verdict.outcome.name.lower(),
                                  "points": verdict.points, "score": round_.score}), flush=True)
            else:
                print(_verdict_text(verdict, round_), flush=True)
    except KeyboardInterrupt:
        reason = "interrupt"
    if interactive:
        import termios  # POSIX only: imported here so that the other commands load anywhere

        termios.tcflush(reader.fd, termios.TCIFLUSH)  # a word cut off by the end must not reach the shell
        sys.stderr.write("\n")
    return round_.summary(), reason


def _check_letters(board: Board, lex: Lexicon, rolled: bool) -> None:
    """Refuse a board with letters the lexicon cannot hold: none of its words could use those
    cells, and a player would look for them in vain. The advice is in the lexicon's terms: letters
    of its language call for a build of all of them, other letters for a board or dice in it."""
    charset, language = lex.charset, lex.language
    used = "".join(charset.symbol_of(face) for face in board.faces)
    if charset.outside(used):
        foreign = sorted({ch for ch in used if ch not in charset})
        where = "the dice rolled" if rolled else "the board has"
        if set(foreign) <= set(language.letters):
            advice = f"play with a lexicon of every letter of {language.title} (dawgc build without --charset)"
        else:
            advice = (f"{'it is not a letter' if len(foreign) == 1 else 'they are not letters'} of {language.title} "
                      f"({language.name}): play a board in its letters, or dice of that language (--dice FILE)")
        raise DawgError(f"board {board.notation} ({where} {', '.join(map(upper, foreign))}) {charset.foreign()}; "
                        f"{advice}")


def play(
    file: Path | None = typer.Argument(None, metavar="[FILE]", help="Lexicon (default: the shipped one)."),
    dice: str | None = typer.Option(None, "--dice", "-d", metavar="NAME|FILE", help=DICE_HELP),
    board_text: str | None = typer.Option(None, "--board", metavar="BOARD",
                                             help="Play this board (notation) instead of a roll."),
    size: str | None = typer.Option(None, "--size", "-s", metavar="RxC",
                                       help="Board size RxC, as for roll (or of a --board that is not square)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the roll [default: random, shown]."),
    seconds: float = typer.Option(180, "--seconds", "-t", help=f"Length of the round (0 = no time limit; "
                                                                f"at most {MAX_SECONDS:g})."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE", help=RULES_HELP),
    min_length: int | None = typer.Option(None, "--min-length",
                                          help="Shortest word that counts, the rules' card unchanged [default: the "
                                               "rules' own; Big Boggle's rules, --rules big, use 4]."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    as_json: bool = typer.Option(False, "--json", help="JSON lines: the start, each word's verdict, the summary."),
) -> None:
    """Play a timed round: type words, one per line; Ctrl-D or Ctrl-C ends it early (Ctrl-C with status 130)."""
    if sys.stdin is None or sys.stdin.closed:
        raise DawgError("stdin is closed: play reads the player's words from it")
    finite_option("--seconds", seconds, 0, MAX_SECONDS, low_inclusive=True)
    if min_length is not None and not 1 <= min_length <= MAX_MIN_LENGTH:
        raise UsageError(f"--min-length: must be 1..{MAX_MIN_LENGTH}, got {min_length}")
    dice_name = None
    if board_text is not None and (dice is not None or seed is not None):
        raise UsageError("give either --board or --dice/--seed, not both")
    lex = cli_lexicon(file, fmt)  # its charset reads the board and the dice (Polish 'q' is Q, English's Qu)
    if board_text is not None:
        board = lex.board(board_text, parse_size(size) if size else None)
    else:
        dice_set, shape = _dice_and_shape(dice or _language_dice(lex), size, lex.charset, lex.language)
        dice_name = dice_set.name
        seed = random_seed() if seed is None else seed
        board = next(roll_dice(dice_set, shape, seed))
    _check_letters(board, lex, rolled=dice_name is not None)
    chosen = rules_option(rules, lex.rules)
    chosen = chosen if min_length is None else chosen.with_min_length(min_length)
    round_ = Round(board, lex.words(board, rules=chosen), chosen, lex.language)
    if as_json:
        print(json.dumps({"event": "start", "board": board.notation, "size": str(board.shape), "dice": dice_name,
                          "seed": seed, "seconds": seconds, "rules": chosen.as_dict(),
                          "min_length": round_.min_length}), flush=True)
    origin = f"{dice_name} dice, seed {seed}" if dice_name else f"board {board.notation}"
    limit = f"{_clock(seconds)} to play" if seconds else "no time limit"
    under = "" if chosen.name == DEFAULT_RULES else f" ({chosen.name} rules)"
    header = f"{origin}: {limit}, words of {round_.min_length}+ letters{under}.\n\n{board.grid()}\n"
    if sys.stdin.isatty():
        header += "\nType one word per line; Ctrl-D ends the round early.\n"
    print(header, file=sys.stderr if as_json else sys.stdout, flush=True)
    summary, reason = run_round(round_, seconds, as_json)
    if as_json:
        print(json.dumps({"event": "end", "reason": reason, **summary.to_json()}), flush=True)
    else:
        print(_summary_text(summary, ENDINGS[reason]), flush=True)
    if reason == "interrupt":
        raise KeyboardInterrupt  # summed up; Ctrl-C still ends the command as it ends any, with status 130
