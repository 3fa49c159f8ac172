"""Checkpoints: a header, then one record per finished task, appended durably as it arrives.

The format, defined here only. A checkpoint is a text file of JSON lines:

- line 1, the header: ``{"format": "dawg-solve checkpoint", "version": 1, "header": {...}}``.
  The inner header says what the run is (its kind, e.g. ``search`` or ``prove``, the
  lexicon's fingerprint, the board shape and every option that changes the answer);
  a resume must match it exactly. It is written to a temporary file, fsynced and renamed
  into place, so a checkpoint never has a torn header.
- then one line per finished task: ``{"task": ID, "record": {...}, "sha256": "..."}``,
  where ``sha256`` is the first 16 hex digits of the SHA-256 of the canonical JSON of
  ``[ID, record]``. Each line is written with one ``write``, then fsynced, before the
  next is taken.

Reading it back. A driver killed while writing can leave only its last line torn (no
newline, or not JSON, or a wrong checksum): that line is ignored, and cut off before
anything else is appended. A bad line anywhere else means the file was damaged, not torn,
and is refused, as is a header of another format version or another run. A task recorded
twice keeps its first record (the engine never writes a second).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DawgError

FORMAT = "dawg-solve checkpoint"
VERSION = 1


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digest(task, record) -> str:
    return hashlib.sha256(_canonical([task, record])).hexdigest()[:16]


def header_line(header: dict) -> bytes:
    return _canonical({"format": FORMAT, "version": VERSION, "header": header}) + b"\n"


def record_line(task, record: dict) -> bytes:
    return _canonical({"task": task, "record": record, "sha256": _digest(task, record)}) + b"\n"


@dataclass
class Contents:
    """What a checkpoint file holds: its header (None when empty or never finished), the
    records by task id in file order, how many bytes are sound and whether a torn last line
    follows them."""

    header: dict | None
    records: dict = field(default_factory=dict)
    sound_bytes: int = 0
    torn: bool = False
    duplicates: int = 0


def _parse_record(line: bytes):
    """(task, record) of a record line, or None if the line is not a whole, sound record."""
    try:
        item = json.loads(line)
        task, record, digest = item["task"], item["record"], item["sha256"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(record, dict) or digest != _digest(task, record):
        return None
    return task, record


def read_checkpoint(path: Path) -> Contents:
    """Read a checkpoint (see the module docstring for what is ignored and what refused)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Contents(None)
    except OSError as err:
        raise DawgError(f"{path}: cannot read the checkpoint ({err.strerror})") from None
    if not data:
        return Contents(None)
    end = data.find(b"\n")
    if end < 0:  # only a half-written first line: the file was never more than started
        return Contents(None, torn=True)
    try:
        head = json.loads(data[:end])
        ok = isinstance(head, dict) and head.get("format") == FORMAT and isinstance(head.get("header"), dict)
    except ValueError:
        ok = False
    if not ok:
        raise DawgError(f"{path}: not a dawg-solve checkpoint")
    if head.get("version") != VERSION:
        raise DawgError(f"{path}: checkpoint format version {head.get('version')}, this program writes {VERSION}")
    contents = Contents(head["header"], sound_bytes=end + 1)
    position = end + 1
    while position < len(data):
        stop = data.find(b"\n", position)
        parsed = _parse_record(data[position:stop]) if stop >= 0 else None
        if parsed is None:
            if stop < 0 or stop == len(data) - 1:  # the last line: torn by a kill while it was written
                contents.torn = True
                break
            line = data.count(b"\n", 0, position) + 1
            raise DawgError(f"{path}: line {line} is damaged (not a whole record); the checkpoint cannot be trusted")
        task, record = parsed
        if task in contents.records:
            contents.duplicates += 1
        else:
            contents.records[task] = record
        position = stop + 1
        contents.sound_bytes = position
    return contents


def _first_difference(stored: dict, expected: dict, order: list) -> str:
    for key in order + sorted(set(stored) - set(order)):
        if stored.get(key) != expected.get(key):
            return key
    return ""


class Checkpoint:
    """An open checkpoint: the records already in it, and `append` for each new one."""

    def __init__(self, path: Path, records: dict, fd: int) -> None:
        self.path = path
        self.records = records
        self._fd = fd

    @classmethod
    def open(cls, path: Path, header: dict, resume: bool) -> Checkpoint:
        """Open `path` for a run described by `header` (JSON-able). Without `resume` the file
        must not hold a run yet; with it, a file made for the same header is continued (its
        records kept, a torn last line cut off) and a missing or empty one is started."""
        path = Path(path)
        order = list(header)  # the caller's order: the first field that differs is named
        header = json.loads(_canonical(header))  # as it reads back: tuples become lists
        contents = read_checkpoint(path)
        if contents.header is not None:
            if not resume:
                raise DawgError(f"{path}: a checkpoint is already there: add --resume to continue it, or remove it")
            stored = contents.header
            if stored != header:
                key = _first_difference(stored, header, order)
                raise DawgError(f"{path}: checkpoint made for a different run ({key}: "
                                f"{_show(stored.get(key))} there, {_show(header.get(key))} now)")
        else:
            _write_header(path, header)
            contents = Contents(header, sound_bytes=len(header_line(header)))
        try:
            fd = os.open(path, os.O_WRONLY)
            os.ftruncate(fd, contents.sound_bytes)  # a torn last line goes before anything is appended
            os.lseek(fd, 0, os.SEEK_END)
            os.fsync(fd)
        except OSError as err:
            raise DawgError(f"{path}: cannot write the checkpoint ({err.strerror})") from None
        return cls(path, contents.records, fd)

    def append(self, task, record: dict) -> None:
        """Record a finished task: one write, then fsync. A task already recorded is skipped."""
        if task in self.records:
            return
        line = record_line(task, record)
        written = os.write(self._fd, line)
        if written != len(line):
            raise DawgError(f"{self.path}: short write to the checkpoint (disk full?)")
        os.fsync(self._fd)
        self.records[task] = record

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
        temporary.unlink(missing_ok=True)
        raise DawgError(f"{path}: cannot write the checkpoint ({err.strerror})") from None


def stored_header(path: Path) -> dict | None:
    """The header of the checkpoint at `path`, or None when there is none yet."""
    return read_checkpoint(path).header
