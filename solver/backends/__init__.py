"""Scoring backends: the one seam through which batches of boards are scored.

A `Scorer` is bound to one lexicon and owns its workers (CPU threads in `cpu.py`,
an NVIDIA GPU in `cuda.py`); `score_codes(codes, shape)` scores a (boards, cells)
array of letter codes and `close()` releases the workers. Batch scoring,
search, rearrangement and the game all score through a Scorer, so a new
backend is one module and one `Backend` entry in BACKENDS, from which the
command line's `--device` choices, its help and `--device auto` are derived.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import ParameterError
from ..rules import Rules, load_rules

if TYPE_CHECKING:
    from ..board import Shape
    from ..board_walk import Walk
    from ..charset import Charset


class Trie(Protocol):
    """A lexicon's nodes as a trie (`Lexicon.as_trie`): node words laid out as solver.layout says,
    and the letters on the longest root-to-leaf path."""

    @property
    def nodes(self) -> np.ndarray: ...

    @property
    def height(self) -> int: ...


class WalkableLexicon(Protocol):
    """What a backend needs of a lexicon (any format's `Lexicon` is one): the walk of its format,
    its charset, its default rules, the check that its mapped files are unchanged, and, for a backend that walks a
    trie itself, its nodes as a trie (None for a format that holds none; `format` names it)."""

    @property
    def walk(self) -> Walk: ...

    @property
    def charset(self) -> Charset: ...

    @property
    def format(self) -> str: ...

    @property
    def rules(self) -> Rules: ...

    def check_unchanged(self) -> None: ...

    def as_trie(self) -> Trie | None: ...


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_jobs(jobs: int) -> int:
    """Workers for a `jobs` value, the same rule everywhere: 0 means one per core, N means at
    most N, capped at the cores (more would only compete)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ParameterError("jobs", f"must be 0 (all cores) or a positive number of threads, got {jobs!r}")
    return min(jobs, usable_cores()) if jobs else usable_cores()


CHANGES_PER_CALL = 1 << 16  # boards of single-letter changes made and scored at a time by `best_changes`


class Scorer(ABC):
    """Scores batches of boards of one lexicon. Use as a context manager, or call close()."""

    name = ""

    def __init__(self, lexicon: WalkableLexicon, rules: Rules) -> None:
        self.lexicon = lexicon
        self.rules = rules  # what every board it scores is scored under

    @abstractmethod
    def score_codes(self, codes: np.ndarray, shape: Shape,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Scores of boards given as a (boards, cells) array of letter indices into the
        lexicon's charset (`kernels.NO_LETTER` for a blank cell, two-letter faces encoded as
        `board.encode` does); `progress(n)` is called as n more boards are done."""

    def best_changes(self, codes: np.ndarray, shape: Shape,
                     alphabet: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each board (a row of `codes`), its best single-letter change: a cell set to a letter
        of `alphabet` (letter indices), changes to the letter already there left out. Returns
        (score, cell, letter) arrays; a tie goes to the lowest cell, then the earliest letter of
        `alphabet`; a board with no change gets score -1 (and cell 0, alphabet[0]).

        This version makes every change here and scores them with score_codes; a backend that
        can make and score them where it scores (the CUDA backend, on the device) overrides it."""
        from ..board_walk import checked_codes

        shape, codes = checked_codes(codes, shape, self.lexicon.charset)
        alphabet = np.asarray(alphabet, np.int64)
        if not len(alphabet):
            raise ParameterError("alphabet", "needs at least one letter")
        cells, letters = shape.cells, len(alphabet)
        variants = cells * letters
        scores = np.full((len(codes), variants), -1, np.int64)
        cell = np.repeat(np.arange(cells), letters)
        letter = np.tile(alphabet, cells)
        step = max(1, CHANGES_PER_CALL // max(1, variants))
        for lo in range(0, len(codes), step):
            part = codes[lo:lo + step]
            changed = np.repeat(part, variants, axis=0).reshape(len(part), variants, cells)
            changed[:, np.arange(variants), cell] = letter
            fresh = part[:, cell] != letter
            scores[lo:lo + len(part)][fresh] = self.score_codes(changed[fresh], shape)
        best = scores.argmax(axis=1)
        return scores[np.arange(len(codes)), best], best // letters, alphabet[best % letters]

    def close(self) -> None:  # noqa: B027 (a backend without workers has nothing to release)
        """Release the workers; the scorer must not be used afterwards."""

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _runs_anywhere() -> tuple[bool, str]:
    """A backend that needs nothing this machine may lack."""
    return True, "this machine"


def _scores_any(lexicon: WalkableLexicon) -> None:
    """A backend that scores every lexicon it is given."""


@dataclass(frozen=True)
class Backend:
    """A scoring backend as the registry holds it: what the command line and `open_scorer` need to
    know of it, so that adding one is one entry in BACKENDS.

    `open(lexicon, jobs, rules)` makes its Scorer (a module imported only then); `available()` says
    whether it can run on this machine: (True, what runs it) or (False, why not); `check(lexicon)`
    raises the DawgError opening it for `lexicon` would (it cannot run here, or cannot score that
    lexicon); `about` describes it in --device's help. `--device auto` takes the first backend after
    the first (the CPU's, always available) that is available."""

    open: Callable[[WalkableLexicon, int, Rules], Scorer]
    about: str = ""
    available: Callable[[], tuple[bool, str]] = _runs_anywhere
    check: Callable[[WalkableLexicon], None] = _scores_any


def _cpu(lexicon: WalkableLexicon, jobs: int, rules: Rules) -> Scorer:
    from .cpu import CpuScorer

    return CpuScorer(lexicon, jobs, rules)


def _cuda(lexicon: WalkableLexicon, jobs: int, rules: Rules) -> Scorer:
    from .cuda import CudaScorer

    return CudaScorer(lexicon, jobs, rules)


def cuda_available() -> tuple[bool, str]:
    """(True, what runs the CUDA kernels) or (False, why the CUDA backend cannot run here)."""
    from .cuda import availability

    return availability()


def _cuda_check(lexicon: WalkableLexicon) -> None:
    from .cuda import usable_trie

    usable_trie(lexicon)


BACKENDS: dict[str, Backend] = {
    "cpu": Backend(_cpu),
    "cuda": Backend(_cuda, "an NVIDIA GPU; needs the cuda extra and a trie lexicon", cuda_available, _cuda_check),
}
AUTO = "auto"  # the device choice that picks a backend, not a backend itself


def devices() -> tuple[str, ...]:
    """The `device` choices: every backend, then "auto"."""
    return (*BACKENDS, AUTO)


def choose_backend(device: str) -> tuple[str, str | None]:
    """The backend for a `device` choice (a backend's name, or "auto") and, when "auto" falls back to
    the CPU, a line saying why. A backend named is taken as asked: opening its scorer fails with the
    reason when it cannot run."""
    if device not in devices():
        raise ParameterError("device", f"unknown device {device!r} (choose from {', '.join(devices())})")
    if device != AUTO:
        return device, None
    first, *others = BACKENDS
    reasons = []
    for name in others:
        usable, reason = BACKENDS[name].available()
        if usable:
            return name, None
        reasons.append(f"the {name.upper()} backend cannot run: {reason}")
    return first, "; ".join([*reasons, f"scoring on the {first.upper()}"])


def check_backend(lexicon: WalkableLexicon, backend: str) -> None:
    """Raise the error that opening a `backend` scorer of `lexicon` would for a backend that cannot
    run here or cannot score `lexicon`, without opening one (one board is walked on the CPU
    whatever the backend, but a backend that was asked for and cannot run is still an error)."""
    if backend not in BACKENDS:
        raise ParameterError("backend", f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    BACKENDS[backend].check(lexicon)


def open_scorer(lexicon: WalkableLexicon, backend: str = "cpu", jobs: int = 0, rules: Rules | str | None = None) -> Scorer:
    """A scorer of `lexicon` on `backend` with `jobs` workers (0 = all cores), scoring under `rules`
    (a Rules, a built-in name or a rules file; None: the lexicon's own, `Lexicon.rules`)."""
    check_backend(lexicon, backend)
    return BACKENDS[backend].open(lexicon, resolve_jobs(jobs), lexicon.rules if rules is None else load_rules(rules))
