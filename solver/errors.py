"""The exception types the tools raise for bad input.

Every user-facing failure (a missing file, a corrupt lexicon, a malformed board)
raises `DawgError` with a one-line message naming the file, line or field. The
command-line entry points (`boggle_dawg.cli_common.run_cli`) turn it into
`prog: error: message` and exit status 1 (2 for a `ParameterError`, named
there as the flag that set it, as for the command line's own usage errors),
so no user ever sees a traceback for bad input.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager


class DawgError(Exception):
    """Bad input: the message is one line and says which file, line or field is wrong."""


class ParameterError(DawgError):
    """A bad value of a named API parameter. The message names the parameter as the API does
    (`seconds: ...`); the command-line wrapper names it as the flag that set it."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name}: {problem}")
        self.name = name
        self.problem = problem


def is_whole(value: object) -> bool:
    """Whether a parameter's value is a whole number: an int or a numpy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


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
