"""`dawg-solve --boards`: a batch of boards read, scored and reported line by line.

`BoardLines` reads the lines of a file or stdin in chunks, so results flow while input
still arrives; `score_chunk` scores a chunk's boards (in one call when they are all good);
`BatchReport` writes the results in input order and reports each bad line on stderr as
`FILE line N: message` (and as a JSON record with an "error" field with --json); the rest
is scored, and the exit status is 1 at the end. `--strict` stops at the first bad line,
after printing every result before it.
"""

from __future__ import annotations

import json
import os
import select
import stat
import sys
import time
from collections.abc import Iterator

import numpy as np

from .cli_common import cli_message, plural, progress_bar, workers_label
from .program import PROG
from .solver.backends import Scorer
from .solver.board import BoardError, Shape, encode_texts
from .solver.errors import DawgError, reading
from .solver.lexicon import Lexicon
from .solver.rules import Rules
from .solver.walk_kernels import NO_LETTER

CHUNK_LINES = 4096  # input lines scored and printed at a time in batch mode
MAX_LINE_BYTES = 4096  # longer than any board's notation: such a line is reported, not buffered
READ_BYTES = 1 << 16


class BoardLines:
    """The lines of a boards file or stdin, read from the descriptor in chunks.

    A chunk ends after `limit` lines, or earlier when no more input is ready (a
    pipe or terminal that pauses), so an interactive `--boards -` answers each
    line as it is typed. Lines are numbered from 1; a line longer than any board
    is reported as bad instead of being held in memory. A NUL byte means the
    input is not text at all (`/dev/zero`, a binary file): the lines before its
    line are handed out, then reading it raises DawgError naming that line.
    """

    def __init__(self, source: str) -> None:
        self.name = "stdin" if source == "-" else source
        self.file = None
        if source == "-":
            try:
                self.fd = sys.stdin.fileno()
                os.fstat(self.fd)
            except (AttributeError, ValueError, OSError):
                raise DawgError("stdin is closed: give --boards PATH") from None
        else:
            with reading(source, "boards file"):
                self.file = open(source, "rb", buffering=0)  # noqa: SIM115 (read in chunks, closed by close())
            self.fd = self.file.fileno()
        self.ready: list[bytes | None] = []  # complete lines not yet handed out (None: over-long)
        self.pending = b""  # the start of the next line
        self.at_end = False
        self.skipping = False  # inside an over-long line, discarding up to its end
        self.number = 0  # lines handed out so far
        self.binary_line = 0  # the line holding a NUL byte, where reading stops (0: none seen)
        self.typed = os.isatty(self.fd)  # a terminal: someone types the boards

    def close(self) -> None:
        if self.file is not None:
            self.file.close()

    def line_count(self) -> int | None:
        """Lines in a regular file (for a progress total); None for a pipe or terminal."""
        if self.file is None or not stat.S_ISREG(os.fstat(self.fd).st_mode):
            return None
        with reading(self.name, "boards file"), open(self.name, "rb") as fh:
            count, last = 0, b"\n"
            for block in iter(lambda: fh.read(1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
        return count + (last != b"\n")

    def chunks(self, limit: int) -> Iterator[list[tuple[int, bytes | None]]]:
        """Lists of (line number, line bytes or None for an over-long line)."""
        while True:
            lines = self._take(limit)
            if not lines:
                return
            yield lines

    def _take(self, limit: int) -> list[tuple[int, bytes | None]]:
        while len(self.ready) < limit and not self.at_end:
            if self.ready and not select.select([self.fd], [], [], 0)[0]:
                break  # input paused: answer what has come so far
            self._read()
        if self.at_end and self.pending:
            self.ready.append(self.pending)
            self.pending = b""
        if self.binary_line and not self.ready:
            raise DawgError(f"{self.name} line {self.binary_line}: binary data (a NUL byte), not boards")
        taken, self.ready = self.ready[:limit], self.ready[limit:]
        first = self.number + 1
        self.number += len(taken)
        return [(first + i, line if line is None or len(line) <= MAX_LINE_BYTES else None)
                for i, line in enumerate(taken)]

    def _read(self) -> None:
        with reading(self.name, "boards file"):
            block = os.read(self.fd, READ_BYTES)
        if not block:
            self.at_end = True
            return
        nul = block.find(b"\0")
        if nul < 0:
            self._split(block)
            return
        self._split(block[:nul])
        self.binary_line = self.number + len(self.ready) + (0 if self.skipping else 1)
        if self.skipping and self.ready:
            self.ready.pop()  # the over-long line holding the NUL: reported as binary instead
        self.pending, self.skipping, self.at_end = b"", False, True

    def _split(self, block: bytes) -> None:
        """Queue the lines that `block` completes; keep the start of the next one."""
        if self.skipping:
            end = block.find(b"\n")
            if end < 0:
                return
            block, self.skipping = block[end + 1:], False
        lines = (self.pending + block).split(b"\n")
        self.pending = lines.pop()
        self.ready.extend(lines)
        if len(self.pending) > MAX_LINE_BYTES:
            self.ready.append(None)
            self.pending, self.skipping = b"", True


class BatchReport:
    """Writes a batch's results in input order, reports bad lines, and keeps the tallies."""

    def __init__(self, name: str, as_json: bool, numbered: bool, strict: bool, rules: str) -> None:
        self.name, self.as_json, self.numbered, self.strict = name, as_json, numbered, strict
        self.rules = rules  # the rules' name, on every JSON line
        self.scored = 0
        self.bad_lines: list[int] = []

    def write(self, records: list[tuple[int, str, int | None, str | None]]) -> None:
        """Print (line, board text, score or None, error or None) records; raise at a bad
        line when strict, after printing everything before it."""
        out = []
        for number, text, score, error in records:
            if error is None:
                self.scored += 1
                if self.as_json:
                    out.append(json.dumps({"line": number, "board": text, "score": score, "rules": self.rules})
                               + "\n")
                else:
                    out.append(f"{number}\t{score}\n" if self.numbered else f"{score}\n")
                continue
            self.bad_lines.append(number)
            if self.as_json:
                out.append(json.dumps({"line": number, "board": text, "error": error}) + "\n")
            sys.stdout.write("".join(out))
            sys.stdout.flush()
            out = []
            message = f"{self.name} line {number}: {error}"
            if self.strict:
                raise DawgError(message + " (--strict stops at the first bad line)")
            print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
        sys.stdout.write("".join(out))
        sys.stdout.flush()

    def finish(self) -> None:
        """Exit status 1 (one closing line) when any line was bad."""
        if self.bad_lines:
            count = len(self.bad_lines)
            shown = ", ".join(map(str, self.bad_lines[:5])) + (", ..." if count > 5 else "")
            raise DawgError(f"{self.name}: {count} bad {plural('line', count)} ({plural('line', count)} {shown}); "
                            f"every other board was scored")


def _decode_all(lines: list[tuple[int, bytes | None]]) -> list[tuple[int, str, str | None]]:
    """(line, text, error) for each line: all at once when the chunk is clean UTF-8."""
    raw = [line for _, line in lines]
    if None not in raw:
        try:
            texts = b"\n".join(raw).decode("utf-8").split("\n")
            return [(number, text.strip(), None) for (number, _), text in zip(lines, texts)]
        except UnicodeDecodeError:
            pass
    return [(number, *_decode(line)) for number, line in lines]


def _decode(line: bytes | None) -> tuple[str, str | None]:
    """A line's text (stripped) and the error that makes it unusable, if any."""
    if line is None:
        return "", f"longer than {MAX_LINE_BYTES} bytes: not a board"
    try:
        return line.decode("utf-8").strip(), None
    except UnicodeDecodeError:
        return line.decode("utf-8", "replace").strip(), "not UTF-8 text"


def score_chunk(lex: Lexicon, scorer: Scorer, lines: list[tuple[int, bytes | None]], shape: Shape | None,
                skip_foreign: bool, progress) -> list[tuple[int, str, int | None, str | None]]:
    """(line, board, score, error) for every board line of a chunk, in order; blank and
    '#' comment lines give nothing. Bad boards are found one by one only when the chunk
    has any, so a clean chunk is encoded and scored in one call."""
    records = [[number, text, None, error] for number, text, error in _decode_all(lines)
               if error or (text and text[0] != "#")]
    good = [r for r in records if r[3] is None]
    try:
        scores = lex.score_many([r[1] for r in good], skip_foreign=skip_foreign, shape=shape, progress=progress,
                                scorer=scorer)
    except BoardError:
        for record in good:
            try:
                encode_texts([lex.board_text(record[1])], lex.charset, shape, skip_foreign)
            except DawgError as err:
                record[3] = cli_message(err)
        good = [r for r in good if r[3] is None]
        scores = lex.score_many([r[1] for r in good], skip_foreign=skip_foreign, shape=shape, progress=progress,
                                scorer=scorer)
    for record, score in zip(good, scores.tolist()):
        record[2] = score
    return [tuple(r) for r in records]


def _start_up(scorer: Scorer) -> float:
    """Load the compiled batch driver or kernel (the ahead-of-time build, built first if need be, or numba's) on a
    one-cell blank board; returns the seconds it took, which the scoring rate leaves out."""
    started = time.perf_counter()
    scorer.score_codes(np.full((1, 1), NO_LETTER, np.int64), Shape(1, 1))
    return time.perf_counter() - started


def score_stream(lex: Lexicon, source: str, shape: Shape | None, jobs: int, as_json: bool, numbered: bool,
                 strict: bool, skip_foreign: bool, quiet: bool, backend: str = "cpu", rules: Rules | None = None) -> None:
    """Score every board of a batch on `backend` under `rules` (None: the lexicon's) and print one
    result per board line, in input order."""
    with lex.scorer(jobs, backend, rules) as scorer:  # opened first: a backend that cannot run fails before any input
        _score_stream(lex, scorer, source, shape, as_json, numbered, strict, skip_foreign, quiet,
                      workers_label(backend, jobs))


def _score_stream(lex: Lexicon, scorer: Scorer, source: str, shape: Shape | None, as_json: bool, numbered: bool,
                  strict: bool, skip_foreign: bool, quiet: bool, workers: str) -> None:
    reader = BoardLines(source)
    report = BatchReport(reader.name, as_json, numbered, strict, scorer.rules.name)
    progress = None
    start_up = scoring = 0.0
    try:
        if not quiet and sys.stderr.isatty() and not reader.typed:  # a bar would redraw over the typing
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            progress = progress_bar(TextColumn("scoring lines"), BarColumn(), MofNCompleteColumn(),
                                    TimeElapsedColumn())
            task = progress.add_task("lines", total=reader.line_count())
            progress.start()
        for lines in reader.chunks(CHUNK_LINES):
            if not start_up:
                start_up = _start_up(scorer)
            started = time.perf_counter()
            records = score_chunk(lex, scorer, lines, shape, skip_foreign,
                                  (lambda n: progress.advance(task, n)) if progress else None)
            if progress:
                progress.advance(task, len(lines) - sum(r[2] is not None for r in records))
            scoring += time.perf_counter() - started
            report.write(records)
    finally:
        if progress:
            progress.stop()
        reader.close()
    if not quiet:
        total = report.scored
        rate = f"{total / scoring:,.0f} boards/s" if scoring > 0 else "-"
        print(f"scored {total:,} {plural('board', total)} in {scoring:.2f} s: {rate} "
              f"({lex.format}, {workers}; start-up {start_up:.2f} s)", file=sys.stderr)
    report.finish()
