"""`dawg-solve [FILE] BOARD`, the plain one-board form, answered without typer.

One board is the command people type most, and its time is mostly start-up:
the interpreter, numpy, the lexicon's modules and typer. This module is the
program's entry point. The plain form (one or two arguments and no options)
is parsed here and answered by the same code as `dawg-solve solve`
(`one_board`), with the same errors and exit statuses (`cli_common.run_plain`);
anything else goes to the typer program in `solve_cli`.
"""

from __future__ import annotations

import sys

from .cli_common import run_plain
from .one_board import solve_board
from .program import COMMANDS, PROG


def main() -> None:
    """Entry point of `dawg-solve`."""
    argv = sys.argv[1:]
    if 1 <= len(argv) <= 2 and argv[0] not in COMMANDS and not any(a.startswith("-") for a in argv):
        run_plain(lambda: solve_board(argv, None, None, False, False, False, False), PROG)
        return
    from .solve_cli import main as with_typer

    with_typer()


if __name__ == "__main__":
    main()
