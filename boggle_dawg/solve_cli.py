"""`dawg-solve`: score Boggle boards from a compiled lexicon (the typer program).

    dawg-solve [FILE] BOARD          one board (FILE defaults to the shipped lexicon)
    dawg-solve [FILE] --boards PATH  a batch, one score per line, in input order (`batch`)

FILE is a build directory, its manifest, one format's file, or a directory of
the four reference ADTDAWG parts. The other commands are registered from the
program's table (`program.COMMANDS`), each loaded only when asked for.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from .batch import score_stream
from .cli_common import (
    HELP_OPTIONS,
    RULES_HELP,
    UsageError,
    cli_lexicon,
    device_help,
    device_option,
    jobs_option,
    rules_option,
    run_cli,
)
from .one_board import solve_board
from .program import COMMANDS, PROG, near_command
from .solver.board import parse_size
from .solver.formats import format_help

USAGE = """Score Boggle boards from compiled lexicons (trie, DAWG or ADTDAWG).

\b
  dawg-solve [FILE] BOARD           score one board (same as `dawg-solve solve ...`)
  dawg-solve [FILE] --boards PATH   score a batch, one board per line ('-' = stdin)
  dawg-solve COMMAND --help         the options of one command
"""

app = typer.Typer(add_completion=True, rich_markup_mode=None, pretty_exceptions_enable=False,
                  context_settings=HELP_OPTIONS, help=USAGE)


@app.callback()
def _group() -> None:
    pass


def solve(
    args: list[str] = typer.Argument(None, metavar="[FILE] BOARD",
                                     help="Lexicon (default: the shipped one) and a board, row by row."),
    boards: str | None = typer.Option(None, "--boards", "-b", metavar="PATH",
                                         help="Score every board in PATH, one per line ('-' = stdin)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    size: str | None = typer.Option(None, "--size", "-s", metavar="RxC", help="Board size when not square."),
    words: bool = typer.Option(False, "--words", "-w", help="List the words found, longest first."),
    paths: bool = typer.Option(False, "--paths", "-p", help="List the words with the cells (row,col) they use."),
    as_json: bool = typer.Option(False, "--json", help="JSON output (JSON lines with the input line for --boards)."),
    numbered: bool = typer.Option(False, "--line-numbers",
                                  help="--boards: print LINE<TAB>SCORE, LINE being the input line number."),
    strict: bool = typer.Option(False, "--strict", help="--boards: stop at the first bad line [default: report "
                                                        "each bad line, score the rest, exit 1 at the end]."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Threads for --boards (0 = all cores)."),
    device: str = typer.Option("cpu", "--device", help=device_help() + " One board is walked on the CPU "
                                                                     "either way, once the device is checked."),
    skip_foreign: bool = typer.Option(False, "--skip-foreign",
                                      help="Treat letters outside the lexicon's charset as blank cells "
                                           "instead of an error."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE", help=RULES_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Score one board, or a batch of boards."""
    args = args or []
    shape = parse_size(size) if size else None
    jobs = jobs_option(jobs)
    backend = device_option(device)
    if boards is not None:
        if len(args) > 1:
            raise UsageError("give either BOARD or --boards, not both")
        lex = cli_lexicon(Path(args[0]) if args else None, fmt)
        score_stream(lex, boards, shape, jobs, as_json, numbered, strict, skip_foreign, quiet, backend,
                     rules_option(rules, lex.rules))
        return
    if not args:
        raise UsageError("give a BOARD (or --boards PATH); see --help")
    if len(args) > 2:
        raise UsageError(f"too many arguments: {' '.join(args[2:])}")
    solve_board(args, shape, fmt, words, paths, as_json, skip_foreign, backend, rules)


GROUP_OPTIONS = {"--help", "-h", "--version", "--install-completion", "--show-completion"}
COMPLETION_VARIABLE = "_DAWG_SOLVE_COMPLETE"  # set by the shell when it asks for completions


def _register(names) -> None:
    """Register these commands (of `program.COMMANDS`), loading only the modules that define them."""
    from importlib import import_module

    registered = {info.callback.__name__ for info in app.registered_commands}
    for name in names:
        if name not in registered:
            app.command()(getattr(import_module(f".{COMMANDS[name]}", __package__), name))


def full_app() -> typer.Typer:
    """The program with every command registered (help and completion list them all)."""
    _register(COMMANDS)
    return app


def main() -> None:
    """`dawg-solve ARGS` with typer: ARGS means `solve ARGS` unless it names a command or is one of
    the program's own options. (The plain one-board form skips this: `dawg_solve.main`.)"""
    argv = sys.argv[1:]
    if argv and argv[0] in COMMANDS:
        _register(["solve", argv[0]])
    elif not argv or argv[0] in GROUP_OPTIONS or COMPLETION_VARIABLE in os.environ:
        full_app()
    else:
        _register(["solve"])
    meant = None
    if argv and argv[0] not in COMMANDS and argv[0] not in GROUP_OPTIONS:
        sys.argv[1:] = ["solve", *argv]
        meant = None if Path(argv[0]).exists() else near_command(argv[0])  # `serch --seed 3`: search's option
    elif not argv:
        sys.argv[1:] = ["solve"]
    run_cli(app, PROG, meant)


if __name__ == "__main__":
    main()
