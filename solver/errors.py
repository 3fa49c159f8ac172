"""The one exception type the tools raise for bad input, and the CLI wrapper that prints it.

Every user-facing failure (a missing file, a corrupt lexicon, a malformed board)
raises `DawgError` with a one-line message naming the file, line or field. The
command-line entry points turn it into `prog: error: message` and exit status 1,
so no user ever sees a traceback for bad input.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


class DawgError(Exception):
    """Bad input: the message is one line and says which file, line or field is wrong."""


class ParameterError(DawgError):
    """A bad value of a named API parameter. The message names the parameter as the API does
    (`seconds: ...`); the command-line wrapper names it as the flag that set it."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name}: {problem}")
        self.name = name
        self.problem = problem


ARGUMENT_NAMES = {"letters": "LETTERS", "board": "BOARD"}  # parameters the CLIs take as arguments


def cli_message(err: DawgError) -> str:
    """The message of an error as a command-line user reads it: parameters named as flags."""
    if isinstance(err, ParameterError):
        return f"{ARGUMENT_NAMES.get(err.name, '--' + err.name.replace('_', '-'))}: {err.problem}"
    return str(err)


@contextmanager
def reading(path, what: str = "file") -> Iterator[None]:
    """Turn the OS errors of opening or reading `path` into one-line DawgErrors."""
    try:
        yield
    except FileNotFoundError:
        raise DawgError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DawgError(f"{path}: is a directory, not a {what}") from None
    except PermissionError:
        raise DawgError(f"{path}: permission denied") from None
    except OSError as err:
        raise DawgError(f"{path}: cannot read ({err.strerror})") from None


def run_cli(app: Callable, prog: str) -> None:
    """Run a typer app; bad input becomes one line on stderr and exit status 1.

    Usage errors (unknown option, missing argument) are reported by typer itself
    with exit status 2.
    """
    try:
        app(prog_name=prog)
    except DawgError as err:
        _fail(prog, cli_message(err), 1)
    except KeyboardInterrupt:
        _fail(prog, "interrupted", 130)


def _fail(prog: str, message: str, status: int) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(status)
