"""The run loop every search method shares: rounds of batch scoring, the budget, the top list.

A method is a function that proposes batches of boards forever; it hands each
batch to `SearchRun.score`, which scores it with the run's scoring backend in
rounds of at most ROUND_LIMIT boards, offers the scores to the top list,
reports progress and raises `Stop` when the budget is spent or the target is
reached. `run_until_stopped` turns that (and Ctrl-C) into the reason the
search stopped.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..backends import Scorer
from ..board import Shape
from ..errors import DawgError, ParameterError
from .space import BoardSpace, codes_to_board
from .symmetry import SeenBoards, canonical_codes, fingerprints

ROUND_LIMIT = 32768  # most boards in one round: bounds the time between two budget checks
MAX_SECONDS = 1e9  # about 32 years: a larger budget is a typo, not a plan


@dataclass(frozen=True)
class Budget:
    """When a search stops: the first limit reached, checked before each round after the
    first. `target` stops once a board scores at least that much; at least one other limit
    is required so that every search ends."""

    seconds: float | None = None
    rounds: int | None = None
    evaluations: int | None = None
    target: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.rounds is None and self.evaluations is None:
            raise DawgError("a search needs a limit: seconds, rounds or evaluations")
        for name, kinds in (("seconds", numbers.Real), ("rounds", numbers.Integral), ("evaluations", numbers.Integral),
                            ("target", numbers.Integral)):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
                kind = "a number" if name == "seconds" else "a whole number"
                raise ParameterError(name, f"must be {kind}, got {value!r}")
            if value is not None and name != "target" and not value > 0:
                raise ParameterError(name, f"must be positive, got {value}")
        if self.seconds is not None and not (math.isfinite(self.seconds) and self.seconds <= MAX_SECONDS):
            raise ParameterError("seconds", f"must be a finite number of seconds up to {MAX_SECONDS:g}, "
                                            f"got {self.seconds}")


@dataclass(frozen=True)
class ScoredBoard:
    board: str  # canonical notation
    score: int


@dataclass(frozen=True)
class SearchStatus:
    """Where a search stands after a round (for progress displays)."""

    rounds: int
    evaluations: int
    seconds: float
    best: ScoredBoard | None


@dataclass(frozen=True)
class SearchResult:
    method: str
    shape: Shape
    alphabet: str
    seed: int
    top: list[ScoredBoard]  # best first; ties in notation order
    rounds: int
    evaluations: int
    seconds: float
    stopped: str  # "seconds", "rounds", "evaluations", "target" or "interrupted"

    @property
    def best(self) -> ScoredBoard:
        return self.top[0]


class Stop(Exception):
    """Raised inside a method when its run must end; carries the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class TopBoards:
    """The `size` best distinct boards offered so far, by canonical form."""

    def __init__(self, size: int, shape: Shape) -> None:
        self.size = size
        self.shape = shape
        self.scores: dict[bytes, int] = {}
        self.floor = -1  # a board scoring less cannot enter a full list
        self.best: tuple[bytes, int] | None = None

    def offer(self, codes: np.ndarray, scores: np.ndarray) -> None:
        chosen = np.flatnonzero(scores >= self.floor)
        if len(chosen) > 8 * self.size:  # enough for `size` distinct boards unless many repeat
            chosen = chosen[np.argsort(-scores[chosen], kind="stable")[:8 * self.size]]
        if not len(chosen):
            return
        canonical = canonical_codes(codes[chosen], self.shape).astype(np.uint8)
        for row, score in zip(canonical, scores[chosen].tolist()):
            key = row.tobytes()
            self.scores[key] = score
            if self.best is None or (-score, key) < (-self.best[1], self.best[0]):
                self.best = (key, score)
        if len(self.scores) >= self.size:
            kept = self.ranked()[:self.size]
            self.scores = dict(kept)
            self.floor = kept[-1][1]

    def ranked(self) -> list[tuple[bytes, int]]:
        return sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))


class SearchRun:
    """The state every method shares: its random generator, scoring rounds, the budget,
    the top list and the counters."""

    def __init__(self, scorer: Scorer, space: BoardSpace, budget: Budget, seed: int, top: int,
                 on_round: Callable[[SearchStatus], None] | None) -> None:
        self.scorer = scorer
        self.charset = scorer.lexicon.charset
        self.space = space
        self.shape = space.shape
        self.budget = budget
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.top = TopBoards(top, space.shape)
        self.on_round = on_round
        self.rounds = 0
        self.evaluations = 0
        self.started = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def check(self) -> None:
        """Raise Stop if the budget is spent (called before each round but the first, so
        that every search has a result)."""
        b = self.budget
        if self.rounds == 0:
            return
        if b.rounds is not None and self.rounds >= b.rounds:
            raise Stop("rounds")
        if b.evaluations is not None and self.evaluations >= b.evaluations:
            raise Stop("evaluations")
        if b.seconds is not None and self.elapsed >= b.seconds:
            raise Stop("seconds")

    def score(self, codes: np.ndarray) -> np.ndarray:
        """Scores of a batch of boards, one round per ROUND_LIMIT boards."""
        parts = []
        for lo in range(0, len(codes), ROUND_LIMIT):
            self.check()
            batch = codes[lo:lo + ROUND_LIMIT]
            scores = self.scorer.score_codes(batch, self.shape)
            self._finish_round(batch, scores, len(batch))
            parts.append(scores)
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def best_changes(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One round: each board's best single-letter change to a letter of the alphabet (ties:
        the lowest cell, then the earliest letter), as boards and their scores (-1 where a board
        has no change). Every change counts as an evaluation; only the best ones reach the top
        list (on the CUDA backend only they leave the device)."""
        self.check()
        letters = self.space.letters
        scores, cells, chosen = self.scorer.best_changes(boards, self.shape, letters)
        moved = boards.copy()
        moved[np.arange(len(boards)), cells] = chosen
        some = scores >= 0
        self._finish_round(moved[some], scores[some], int((boards[:, :, None] != letters).sum()))
        return moved, scores

    def _finish_round(self, boards: np.ndarray, scores: np.ndarray, evaluations: int) -> None:
        """Count a round, offer its boards to the top list, report it and stop at the target."""
        self.rounds += 1
        self.evaluations += evaluations
        self.top.offer(boards, scores)
        if self.on_round:
            self.on_round(self.status())
        if self.budget.target is not None and self.top.best is not None and self.top.best[1] >= self.budget.target:
            raise Stop("target")

    def fresh(self, codes: np.ndarray, seen: SeenBoards) -> tuple[np.ndarray, np.ndarray]:
        """The canonical forms of the boards not seen yet, each once, in order of first
        appearance, and their fingerprints."""
        canonical = canonical_codes(codes, self.shape)
        keys = fingerprints(canonical)
        _, first = np.unique(keys, return_index=True)
        first.sort()
        first = first[~seen.known(keys[first])]
        return canonical[first], keys[first]

    def scored_board(self, key: bytes, score: int) -> ScoredBoard:
        codes = np.frombuffer(key, np.uint8).astype(np.int64)
        return ScoredBoard(codes_to_board(codes, self.charset, self.shape).notation, score)

    def status(self) -> SearchStatus:
        best = self.scored_board(*self.top.best) if self.top.best else None
        return SearchStatus(self.rounds, self.evaluations, self.elapsed, best)

    def result(self, method: str, seed: int, stopped: str) -> SearchResult:
        alphabet = self.charset.symbols(self.space.letters.tolist())
        return SearchResult(method, self.shape, alphabet, seed,
                            [self.scored_board(k, s) for k, s in self.top.ranked()[:self.top.size]],
                            self.rounds, self.evaluations, self.elapsed, stopped)


def best_distinct(scores: np.ndarray, keys: np.ndarray, count: int) -> np.ndarray:
    """Indices of the `count` best boards, ties broken by fingerprint (boards are distinct)."""
    return np.lexsort((keys, -scores))[:count]


def run_until_stopped(climb: Callable[[], None]) -> str:
    """Run a method until its budget stops it (or Ctrl-C); returns why it stopped."""
    try:
        climb()
    except Stop as stop:
        return stop.reason
    except KeyboardInterrupt:
        return "interrupted"
    raise AssertionError("search methods only end by their budget")
