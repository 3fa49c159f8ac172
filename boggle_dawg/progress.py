"""Progress of long runs on stderr, one display for runs on the Dask engine and searches in this process.

`Progress` draws it: nothing with --quiet; on a terminal a live display (a bar of tasks
done for an engine run, a spinner line for a search); otherwise the headline, then a plain
line every PLAIN_EVERY seconds (an engine run also ends with its last count). What the
lines say comes from `EngineProgress` (tasks done of all, workers alive and lost, failed
tasks, the best board so far, an ETA; the dashboard's address when there is one) and
`SearchProgress` (the best board, boards scored and their rate).
"""

from __future__ import annotations

import sys

from .cli_common import StatusLine, plural, progress_bar
from .program import PROG

PLAIN_EVERY = 5.0  # seconds between plain progress lines


def say(text: str, flush: bool = True) -> None:
    """One line of the program's on stderr."""
    print(f"{PROG}: {text}", file=sys.stderr, flush=flush)


def closing_line(text: str, quiet: bool) -> None:
    """A run's closing line (time, what ran it), unless quiet."""
    if not quiet:
        say(text, flush=False)


class Progress:
    """The display (see the module docstring); `counted` runs show a bar of `done` of `total`."""

    def __init__(self, quiet: bool, headline: str, counted: bool) -> None:
        self.quiet = quiet
        self.headline = headline
        self.counted = counted
        self.started = False
        self.live = None  # the bar or the spinner line, on a terminal
        self.bar_task = None
        self.unprinted = False  # the last update has not been printed as a plain line
        self.next_plain = PLAIN_EVERY

    def start(self) -> None:
        """Show the headline (once)."""
        if self.quiet or self.started:
            return
        self.started = True
        if not sys.stderr.isatty():
            say(self.headline)
        elif self.counted:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

            self.live = progress_bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self.live.start()
            self.bar_task = self.live.add_task(self.headline, total=None, info="")
        else:
            self.live = StatusLine(self.headline)
            self.live.start()

    def update(self, seconds: float, text: str, line: str | None = None, done: int = 0, total: int = 0) -> None:
        """Show `text` live (beside the bar of a counted run), or `line` (default `text`) as a plain
        line when one is due."""
        if self.quiet:
            return
        self.start()
        self.unprinted = True
        if self.bar_task is not None:
            self.live.update(self.bar_task, total=total, completed=done, info=text)
        elif self.live is not None:
            self.live.update(text)
        elif seconds >= self.next_plain:
            say(line or text)
            self.unprinted = False
            while self.next_plain <= seconds:
                self.next_plain += PLAIN_EVERY

    def stop(self, last_line: str | None = None) -> None:
        """Take the live display down; without one, print `last_line` unless the last update was printed."""
        if self.live is not None:
            self.live.stop()
        elif last_line is not None and self.unprinted:
            say(last_line)


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA -"
    if seconds >= 3600:
        return f"ETA {seconds / 3600:.1f} h"
    return f"ETA {seconds / 60:.1f} min" if seconds >= 120 else f"ETA {seconds:.0f} s"


class EngineProgress:
    """A run on the engine: `start(engine)`, `update(EngineStatus)` and `best(top)` are the run's
    callbacks; used as a context manager around it."""

    def __init__(self, quiet: bool, headline: str, nouns: tuple[str, str]) -> None:
        self.display = Progress(quiet, headline, counted=True)
        self.nouns = nouns  # singular, plural
        self.status = None
        self.top: tuple[str, int] | None = None

    def __enter__(self) -> EngineProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.display.stop(self.line() if exc[0] is None and self.status is not None else None)

    def start(self, engine) -> None:
        """The engine is up: its dashboard's address (when it serves one), then the headline."""
        if self.display.quiet:
            return
        dashboard = engine.dashboard
        if dashboard:
            say(f"Dask dashboard at {dashboard}")
        self.display.start()

    def best(self, top: list) -> None:
        """Offer a task's best board ([board, score] pairs, best first)."""
        if top and (self.top is None or top[0][1] > self.top[1]):
            self.top = (top[0][0], top[0][1])

    def eta(self) -> float | None:
        s = self.status
        fresh = s.done - s.resumed
        if fresh <= 0 or s.seconds <= 0:
            return None
        return s.seconds / fresh * (s.total - s.done)

    def info(self) -> str:
        s = self.status
        text = f"{s.workers} {plural('worker', s.workers)}"
        if s.lost:
            text += f", {s.lost} lost"
        if s.failures:
            text += f", {s.failures} {plural('failure', s.failures)}"
        if self.top is not None:
            text += f", best {self.top[1]:,} {self.top[0]}"
        return text

    def line(self) -> str:
        s = self.status
        return f"{s.done:,}/{s.total:,} {self.nouns[s.total != 1]}, {self.info()}, {s.seconds:.0f} s, {eta_text(self.eta())}"

    def update(self, status) -> None:
        self.status = status
        if not self.display.quiet:
            self.display.update(status.seconds, self.info(), self.line(), status.done, status.total)

    def label(self) -> str:
        """What ran the tasks, for the closing line."""
        if self.status is None:  # the engine never reported: it was not started, every task being recorded
            return "none left to run"
        s = self.status
        return f"{s.total:,} {self.nouns[s.total != 1]} on {s.workers} {plural('worker', s.workers)}"


class SearchProgress:
    """A search in this process: called with each round's `SearchStatus`; the headline waits for the
    first round scored, so bad input stays one line. Used as a context manager around the search."""

    def __init__(self, quiet: bool, headline: str) -> None:
        self.display = Progress(quiet, headline, counted=False)

    def __enter__(self) -> SearchProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.display.stop()

    def __call__(self, status) -> None:
        if self.display.quiet or status.best is None:
            return
        rate = status.evaluations / status.seconds if status.seconds > 0 else 0.0
        self.display.update(status.seconds, f"best {status.best.score:,} {status.best.board}  "
                                            f"{status.evaluations:,} boards  {rate:,.0f} boards/s  {status.seconds:.0f} s")
