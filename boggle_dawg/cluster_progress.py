"""Progress of a run on the Dask engine, on stderr: tasks done / total, workers alive, workers
lost, failed tasks, the best so far and an ETA; the dashboard's address when there is one.

On a terminal it is a rich progress bar; otherwise a plain line every few seconds and one at
the end; nothing with --quiet.
"""

from __future__ import annotations

import sys
import time

from .cli_common import plural, progress_bar

PLAIN_EVERY = 5.0  # seconds between plain progress lines


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA -"
    if seconds >= 3600:
        return f"ETA {seconds / 3600:.1f} h"
    return f"ETA {seconds / 60:.1f} min" if seconds >= 120 else f"ETA {seconds:.0f} s"


class EngineProgress:
    def __init__(self, quiet: bool, headline: str, engine, nouns: tuple[str, str], prog: str) -> None:
        self.quiet = quiet
        self.headline = headline
        self.engine = engine
        self.nouns = nouns  # singular, plural
        self.prog = prog
        self.status = None
        self.printed = None  # the last status printed as a plain line
        self.top: tuple[str, int] | None = None
        self.bar = None
        self.bar_task = None
        self.next_plain = 0.0
        self.started = time.perf_counter()

    def __enter__(self) -> EngineProgress:
        if self.quiet:
            return self
        dashboard = self.engine.dashboard
        if dashboard:
            print(f"{self.prog}: Dask dashboard at {dashboard}", file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

            self.bar = progress_bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self.bar.start()
            self.bar_task = self.bar.add_task(self.headline, total=None, info="")
        else:
            print(f"{self.prog}: {self.headline}", file=sys.stderr, flush=True)
            self.next_plain = PLAIN_EVERY
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif not self.quiet and self.status is not None and exc[0] is None and self.status is not self.printed:
            print(f"{self.prog}: {self.line()}", file=sys.stderr, flush=True)

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
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.update(self.bar_task, total=status.total, completed=status.done, info=self.info())
        elif status.seconds >= self.next_plain:
            print(f"{self.prog}: {self.line()}", file=sys.stderr, flush=True)
            self.printed = status
            while self.next_plain <= status.seconds:
                self.next_plain += PLAIN_EVERY

    def label(self) -> str:
        """What ran the tasks, for the closing line."""
        if self.status is None:
            return "the Dask engine"
        s = self.status
        return f"{s.total:,} {self.nouns[s.total != 1]} on {s.workers} {plural('worker', s.workers)}"
