"""`dawg-solve`: score Boggle boards from a compiled lexicon.

    dawg-solve [FILE] BOARD          one board (FILE defaults to the shipped lexicon)
    dawg-solve [FILE] --boards PATH  a batch, one score per line, in input order

FILE is a build directory, its manifest, one format's file, or a directory of
the four reference ADTDAWG parts.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Iterator, Optional

import typer

from .board import Board, BoardError, Shape, parse_board, parse_size
from .defaults import lexicon_or_default
from .engine import job_count
from .errors import DawgError, reading, run_cli
from .game_cli import play, roll
from .lexicon import Lexicon
from .search_cli import rearrange, search

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False,
                  help="Score Boggle boards from compiled lexicons (trie, DAWG or ADTDAWG).")

BLOCK = 65536  # boards read, scored and printed at a time in batch mode


@app.callback()
def _group() -> None:
    """Score Boggle boards from compiled lexicons. `dawg-solve [FILE] BOARD` runs `solve`."""


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def _cell_name(board: Board, cell: int) -> str:
    r, c = divmod(cell, board.shape.cols)
    return f"{r + 1},{c + 1}"


def print_board(lex: Lexicon, board: Board, show_words: bool, show_paths: bool, as_json: bool,
                skip_foreign: bool) -> None:
    found = lex.words(board, skip_foreign=skip_foreign)
    score = sum(f.points for f in found)
    if as_json:
        words = [{"word": f.word, "points": f.points,
                  **({"path": [_cell_name(board, c) for c in f.path]} if show_paths else {})} for f in found]
        print(json.dumps({"board": board.notation, "size": str(board.shape), "score": score, "words": words}))
        return
    print(board.grid())
    print(f"{score} points, {len(found)} words")
    if show_words or show_paths:
        for f in found:
            path = "  " + " ".join(_cell_name(board, c) for c in f.path) if show_paths else ""
            print(f"{f.points:3}  {f.word}{path}")


def read_boards(source: str) -> Iterator[tuple[list[str], list[int]]]:
    """Boards from a file or '-' (stdin), one per line ('#' comments and blank lines skipped),
    in blocks of (texts, line numbers)."""
    with reading(source, "boards file"):
        stream = sys.stdin if source == "-" else open(source, encoding="utf-8", errors="strict")
    texts: list[str] = []
    lines: list[int] = []
    try:
        for number, line in enumerate(stream, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            texts.append(text)
            lines.append(number)
            if len(texts) == BLOCK:
                yield texts, lines
                texts, lines = [], []
    except UnicodeDecodeError:
        raise DawgError(f"{'stdin' if source == '-' else source}: not UTF-8 text") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    if texts:
        yield texts, lines


def score_stream(lex: Lexicon, source: str, shape: Optional[Shape], jobs: int, as_json: bool,
                 skip_foreign: bool, quiet: bool) -> None:
    """Score every board of a batch and print one result per line, in input order."""
    name = "stdin" if source == "-" else source
    show_progress = not quiet and sys.stderr.isatty()
    total = 0
    started = time.perf_counter()
    progress = None
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=_stderr_console(), transient=True)
        progress.start()
        task = progress.add_task("boards", total=None)
    try:
        for texts, lines in read_boards(source):
            try:
                scores = lex.score_many(texts, jobs=jobs, skip_foreign=skip_foreign, shape=shape,
                                        progress=(lambda n: progress.advance(task, n)) if progress else None)
            except BoardError as err:
                raise DawgError(f"{name} line {lines[err.index]}: {err}") from None
            if as_json:
                out = "".join(json.dumps({"board": t, "score": int(s)}) + "\n" for t, s in zip(texts, scores))
            else:
                out = "".join(f"{s}\n" for s in scores.tolist())
            sys.stdout.write(out)
            total += len(texts)
    finally:
        if progress:
            progress.stop()
    seconds = time.perf_counter() - started
    if not quiet:
        rate = f"{total / seconds:,.0f} boards/s" if seconds > 0 else "-"
        print(f"scored {total} boards in {seconds:.2f} s: {rate} ({lex.format}, {jobs} job{'s' * (jobs > 1)})",
              file=sys.stderr)


@app.command()
def solve(
    args: list[str] = typer.Argument(None, metavar="[FILE] [BOARD]",
                                     help="Lexicon (default: the shipped one) and a board, row by row."),
    boards: Optional[str] = typer.Option(None, "--boards", "-b", help="Score every board in PATH ('-' = stdin)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="trie, dawg or adtdawg [default: fastest]."),
    size: Optional[str] = typer.Option(None, "--size", "-s", help="Board size RxC when not square."),
    words: bool = typer.Option(False, "--words", "-w", help="List the words found, longest first."),
    paths: bool = typer.Option(False, "--paths", "-p", help="List the words with the cells they use."),
    as_json: bool = typer.Option(False, "--json", help="JSON output (JSON lines for --boards)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Threads for --boards (0 = all cores)."),
    skip_foreign: bool = typer.Option(False, "--skip-foreign",
                                      help="Treat letters outside the lexicon's charset as blank cells "
                                           "instead of an error."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Score one board, or a batch of boards."""
    args = args or []
    shape = parse_size(size) if size else None
    jobs = job_count(jobs)
    if boards is not None:
        if len(args) > 1:
            raise DawgError("give either BOARD or --boards, not both")
        lex = lexicon_or_default(Path(args[0]) if args else None, fmt)
        score_stream(lex, boards, shape, jobs, as_json, skip_foreign, quiet)
        return
    if not args:
        raise DawgError("give a BOARD (or --boards PATH); see --help")
    if len(args) > 2:
        raise DawgError(f"too many arguments: {' '.join(args[2:])}")
    if len(args) == 1 and Path(args[0]).exists():
        raise DawgError(f"{args[0]} is a lexicon path: give a BOARD after it, or --boards PATH")
    file = Path(args[0]) if len(args) == 2 else None
    lex = lexicon_or_default(file, fmt)
    print_board(lex, parse_board(args[-1], shape), words, paths, as_json, skip_foreign)


app.command()(roll)
app.command()(play)
app.command()(search)
app.command()(rearrange)

SUBCOMMANDS = {"solve", "roll", "play", "search", "rearrange"}


def main() -> None:
    """Entry point: `dawg-solve ARGS` means `dawg-solve solve ARGS` unless ARGS names a subcommand."""
    argv = sys.argv[1:]
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("--help", "-h")):
        sys.argv[1:] = ["solve", *argv]
    run_cli(app, "dawg-solve")


if __name__ == "__main__":
    main()
