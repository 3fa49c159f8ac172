"""Reading the small TOML files users write (languages, rule sets): one way, with one set of errors.

A command names one by a built-in's name (a file shipped in a folder of the package) or by a path
(`named_file`); `read_toml` reads it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import DawgError, reading


def read_toml(path: Path, what: str, max_bytes: int) -> dict:
    """The table of the TOML file at `path`, a `what` ("language file"); a one-line DawgError for a file
    that is not a regular file (a FIFO is refused without waiting), is larger than `max_bytes`, is not
    UTF-8 or not TOML, or nests values too deeply for the parser."""
    with reading(path, what), open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise DawgError(f"{path}: not a regular file, so not a {what}")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise DawgError(f"{path}: larger than {max_bytes >> 10} KiB, not a {what}")
    import tomllib  # here: its import costs milliseconds, which one board under the built-in standard rules need not pay

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DawgError(f"{path} line {line}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise DawgError(f"{path}: not a TOML file ({err})") from None
    except RecursionError:
        raise DawgError(f"{path}: not a TOML file (values nested too deeply)") from None


def named_file(spec: str, directory: Path, kind: str, builtin: str) -> Path:
    """The file `spec` names: the built-in `directory/SPEC.toml`, else the path `spec`; a one-line
    DawgError for a bare name that is neither (`kind`: "language"; `builtin`: "a built-in language")."""
    names = sorted(p.stem for p in directory.glob("*.toml"))
    if spec in names:
        return directory / f"{spec}.toml"
    if not Path(spec).exists() and "/" not in spec and not spec.endswith(".toml"):
        raise DawgError(f"{kind} {spec!r}: neither a {kind} file nor {builtin} ({', '.join(names)})")
    return Path(spec)
