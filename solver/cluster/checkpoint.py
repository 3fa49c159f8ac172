"""Checkpoints: a header, then one record per finished task, appended durably as it arrives.

The format, defined here only. A checkpoint is a text file of JSON lines:

- line 1, the header: ``{"format": "dawg-solve checkpoint", "version": 2, "header": {...}}``.
  The inner header says what the run is (its kind, e.g. ``search`` or ``prove``, the
  lexicon's identity, the board shape and every option that changes the answer);
  a resume must match it exactly. It is written to a temporary file, fsynced and renamed
  into place, so a checkpoint never has a torn header. Version 2 names the lexicon by
  what it holds (`Lexicon.identity`: words, letters, tiles), stable across versions of
  the program; version 1 named it by the compiled arrays of the program that wrote it.
  A version-1 checkpoint is read, and resumed where its run can show the lexicon is the
  same (`Plan.upgrade_header`: a proof's plan fingerprint holds the words' digest); its
  header line is left as it is.
- then one line per finished task: ``{"task": ID, "record": {...}, "sha256": "..."}``,
  where ``sha256`` is the first 16 hex digits of the SHA-256 of the canonical JSON of
  ``[ID, record]``. Each line is written with one ``write``, then fsynced, before the
  next is taken.

Reading it back. A driver killed while writing can leave only its last line torn (no
newline, or not JSON, or a wrong checksum): that line is ignored, and cut off before
anything else is appended. A bad line anywhere else means the file was damaged, not torn,
and is refused, as is a header of another format version or another run. A task recorded
twice keeps its first record (the engine never writes a second). A record whose checksum is
right but whose fields are not what its job writes (a hand edit) is refused when a run resumes,
naming its line and field: each job gives `Checkpoint.open` its record schema (`check_record`,
made of the checks below, in the style of solver.manifest).

One run at a time. A run holds an exclusive lock (flock) on ``PATH.lock`` beside the checkpoint's
real file (symbolic links to it resolved, so every way of naming one checkpoint takes one lock)
while it has the checkpoint open, the lock file naming its process; a second run is refused in
one line naming the first. The lock file is never followed if it is a symbolic link, and must be a
regular file. Records are appended (O_APPEND) with one ``write`` each, and a write
that fails (disk full, file too large, read-only file system) is cut back off, so a copy taken at
any moment reads back whole, at most with a torn last line.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import socket
import stat
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DawgError
from ..rules import describe_dict
from ..schema import BadField

FORMAT = "dawg-solve checkpoint"
VERSION = 2
READABLE = (1, 2)  # format versions this program reads (1: the lexicon named by its compiled arrays)


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digest(task, record) -> str:
    return hashlib.sha256(_canonical([task, record])).hexdigest()[:16]


def header_line(header: dict) -> bytes:
    return _canonical({"format": FORMAT, "version": VERSION, "header": header}) + b"\n"


def record_line(task, record: dict) -> bytes:
    return _canonical({"task": task, "record": record, "sha256": _digest(task, record)}) + b"\n"


# --- reading ---------------------------------------------------------------------------------


@dataclass
class Contents:
    """What a checkpoint file holds: its header (None when empty or never finished), the
    records by task id in file order (and the line each is on), how many bytes are sound and
    whether a torn last line follows them."""

    header: dict | None
    version: int = VERSION
    records: dict = field(default_factory=dict)
    sound_bytes: int = 0
    torn: bool = False
    duplicates: int = 0
    lines: dict = field(default_factory=dict)


def _json(line: bytes):
    """A line's JSON value; ValueError for anything else, a line nested too deep for the parser included."""
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("nested too deep") from None


def _parse_record(line: bytes):
    """(task, record) of a record line, or None if the line is not a whole, sound record."""
    try:
        item = _json(line)
        task, record, digest = item["task"], item["record"], item["sha256"]
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(task, bool) or not isinstance(task, (int, str)) or not isinstance(record, dict):
        return None
    try:
        return (task, record) if digest == _digest(task, record) else None
    except (ValueError, RecursionError):  # a record JSON cannot write back (e.g. nested too deep)
        return None


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes (None when there is none); DawgError for what is not a regular file,
    found without blocking (a FIFO is opened non-blocking and refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise DawgError(f"{path}: cannot read the checkpoint ({err.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DawgError(f"{path}: not a regular file (a checkpoint must be one)")
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError as err:
        raise DawgError(f"{path}: cannot read the checkpoint ({err.strerror})") from None
    finally:
        os.close(fd)


def read_checkpoint(path: Path) -> Contents:
    """Read a checkpoint (see the module docstring for what is ignored and what refused)."""
    path = Path(path)
    data = _read_bytes(path)
    if not data:
        return Contents(None)
    end = data.find(b"\n")
    if end < 0:  # only a half-written first line: the file was never more than started
        return Contents(None, torn=True)
    try:
        head = _json(data[:end])
        ok = isinstance(head, dict) and head.get("format") == FORMAT and isinstance(head.get("header"), dict)
    except ValueError:
        ok = False
    if not ok:
        raise DawgError(f"{path}: not a dawg-solve checkpoint")
    version = head.get("version")
    if isinstance(version, bool) or version not in READABLE:
        raise DawgError(f"{path}: checkpoint format version {_show(version)}, "
                        f"this program reads {', '.join(map(str, READABLE))}")
    contents = Contents(head["header"], version, sound_bytes=end + 1)
    position, line = end + 1, 1
    while position < len(data):
        stop = data.find(b"\n", position)
        parsed = _parse_record(data[position:stop]) if stop >= 0 else None
        line += 1  # counted as read: counting from the start at each line made reading quadratic
        if parsed is None:
            if stop < 0 or stop == len(data) - 1:  # the last line: torn by a kill while it was written
                contents.torn = True
                break
            raise DawgError(f"{path}: line {line} is damaged (not a whole record); the checkpoint cannot be trusted")
        task, record = parsed
        if task in contents.records:
            contents.duplicates += 1
        else:
            contents.records[task] = record
            contents.lines[task] = line
        position = stop + 1
        contents.sound_bytes = position
    return contents


def _first_difference(stored: dict, expected: dict, order: list) -> str:
    for key in order + sorted(set(stored) - set(order)):
        if stored.get(key) != expected.get(key):
            return key
    return ""


# --- writing ---------------------------------------------------------------------------------


class Checkpoint:
    """An open checkpoint, locked for this run: the records already in it, and `append` for each new one."""

    def __init__(self, path: Path, records: dict, fd: int, size: int, lock: int) -> None:
        self.path = path
        self.records = records
        self._fd = fd
        self._size = size  # bytes of whole lines: what a failed append is cut back to
        self._lock = lock

    @classmethod
    def open(cls, path: Path, header: dict, resume: bool,
             check_record: Callable[[Any, dict], None] | None = None,
             upgrade: Callable[[dict, int], dict] | None = None) -> Checkpoint:
        """Open `path` for a run described by `header` (JSON-able), locking it for this run. Without
        `resume` the file must not hold a run yet; with it, the file must exist, and one made for the
        same header is continued (its records kept, each checked by `check_record(task, record)`,
        which raises BadField; a torn last line cut off), an empty one started. A header of an
        earlier format version is first passed through `upgrade(header, version)`, which returns it
        as this version writes it where the run can vouch for it (else unchanged). A symbolic link
        is followed to the checkpoint it names, which is what is locked and written."""
        path = Path(os.path.realpath(path))
        order = list(header)  # the caller's order: the first field that differs is named
        header = json.loads(_canonical(header))  # as it reads back: tuples become lists
        if resume and not path.exists():
            raise DawgError(f"no checkpoint at {path} to resume")
        lock = _lock(path)
        try:
            contents = read_checkpoint(path)
            if contents.header is not None:
                if not resume:
                    raise DawgError(f"{path}: a checkpoint is already there: add --resume to continue it, or remove it")
                stored = contents.header
                if contents.version < VERSION and upgrade is not None:
                    stored = upgrade(stored, contents.version)
                _check_header(path, stored, header, order, contents.version)
                if check_record is not None:
                    _check_records(path, contents, check_record)
            else:
                _write_header(path, header)
                contents = Contents(header, sound_bytes=len(header_line(header)))
            try:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            except OSError as err:
                raise DawgError(f"{path}: cannot write the checkpoint ({err.strerror})") from None
            try:
                os.ftruncate(fd, contents.sound_bytes)  # a torn last line goes before anything is appended
                os.fsync(fd)
            except OSError as err:
                os.close(fd)
                raise DawgError(f"{path}: cannot write the checkpoint ({err.strerror})") from None
        except BaseException:
            _unlock(path, lock)
            raise
        return cls(path, contents.records, fd, contents.sound_bytes, lock)

    def append(self, task, record: dict) -> None:
        """Record a finished task: one write, then fsync. A task already recorded is skipped. A write
        that fails is cut back off (the checkpoint stays resumable) and raises DawgError."""
        if task in self.records:
            return
        line = record_line(task, record)
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(0, f"short write, {written} of {len(line)} bytes: disk full or file size limit")
            os.fsync(self._fd)
        except OSError as err:
            with suppress(OSError):  # if this fails too, the line left is torn: ignored when resumed
                os.ftruncate(self._fd, self._size)
            raise DawgError(f"{self.path}: cannot append to the checkpoint ({err.strerror or err}); "
                            f"the {len(self.records):,} records before it are kept") from None
        self._size += len(line)
        self.records[task] = record

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            _unlock(self.path, self._lock)

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _check_header(path: Path, stored: dict, header: dict, order: list, version: int) -> None:
    if stored != header:
        key = _first_difference(stored, header, order)
        if key == "lexicon" and version < VERSION:
            raise DawgError(f"{path}: made by an earlier version of dawg-solve, which named the lexicon by its "
                            f"compiled arrays, and nothing else in it shows the words are the same: resume it with "
                            f"the version that made it, or start a new checkpoint")
        if key == "rules":
            raise DawgError(f"{path}: checkpoint made under other rules: {describe_dict(stored.get(key))} there, "
                            f"{describe_dict(header.get(key))} now")
        raise DawgError(f"{path}: checkpoint made for a different run ({key}: "
                        f"{_show(stored.get(key))} there, {_show(header.get(key))} now)")


def _check_records(path: Path, contents: Contents, check_record: Callable[[Any, dict], None]) -> None:
    for task, record in contents.records.items():
        try:
            check_record(task, record)
        except BadField as bad:
            raise DawgError(f"{path}: line {contents.lines[task]}: field {bad.name}: {bad.problem()}") from None


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _lock(path: Path) -> int:
    """An exclusive lock on PATH.lock for this run (DawgError naming the holder if another run has it).
    A lock file that is a symbolic link, or not a regular file, is refused, never written through."""
    lock_path = _lock_path(path)
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as err:
            reason = "a symbolic link, never followed: remove it" if err.errno == errno.ELOOP else err.strerror
            raise DawgError(f"{path}: cannot lock the checkpoint ({lock_path.name}: {reason})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise DawgError(f"{path}: cannot lock the checkpoint ({lock_path.name}: not a regular file; remove it)")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 200).decode("ascii", "replace").strip()
            os.close(fd)
            raise DawgError(f"{path}: in use by another run ({holder or 'its lock file is ' + lock_path.name}); "
                            "one run at a time may use a checkpoint") from None
        try:  # its last holder may have removed the file between our open and lock: lock the one in place
            mine = os.fstat(fd)
            current = os.stat(lock_path)
            if (mine.st_dev, mine.st_ino) == (current.st_dev, current.st_ino):
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    with suppress(OSError):
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
    return fd


def _unlock(path: Path, fd: int) -> None:
    """Remove the lock file while still holding it, then release it."""
    with suppress(OSError):
        os.unlink(_lock_path(path))
    os.close(fd)


def _show(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _write_header(path: Path, header: dict) -> None:
    """A new checkpoint holding only the header, put in place whole (temporary file, fsync, rename)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as fh:
            fh.write(header_line(header))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, path)
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as err:
        with suppress(OSError):  # on a read-only or full file system this can fail too
            temporary.unlink(missing_ok=True)
        raise DawgError(f"{path}: cannot write the checkpoint ({err.strerror or err})") from None


def stored_header(path: Path) -> dict | None:
    """The header of the checkpoint at `path`, or None when there is none yet."""
    return read_checkpoint(path).header
