"""Board search: the highest-scoring boards of a lexicon, and the best arrangement of given letters.

Rounds. Every method works in rounds: a round builds a batch of boards as
letter codes and scores the whole batch with one call of the compiled kernels
(`Lexicon.score_codes`, on `jobs` threads). Nothing is ever scored one board
at a time in Python.

Reproducibility. All random choices come from one
`numpy.random.Generator(PCG64(seed))` and no decision looks at the clock or
at the thread count, so a search is a pure function of (lexicon, size,
alphabet, method and its options, seed) and the number of rounds it ran.
`--jobs` never changes a result. A budget of rounds or of evaluations is
therefore reproduced exactly; a budget of seconds stops at the first round
boundary past the limit, so its result depends on how far the search got in
that time (on this machine, under this load). Ctrl-C stops at once and keeps
the boards of every finished round.

Symmetry. Boards that are rotations or reflections of each other (8
symmetries of a square board, 4 of other rectangles) are one board. They are
kept and printed in canonical form: the image whose notation is
lexicographically smallest. Letter codes are alphabetical indices and 'q'
(the Qu die) is written 'q', so the smallest code sequence is the smallest
notation.

Methods (moves are "change one cell's letter" and "swap two cells"):

  hillclimb  A pool of `pool` boards. Each round scores every single-letter
             change and every swap of the pool boards not yet expanded, then
             the pool becomes the `pool` best distinct boards seen in this
             climb. When a round changes nothing the climb has converged and
             a new one starts from random boards.
  deviation  Seed 000's search, as a best-first climb over the `pool` best
             boards of the climb. Their single deviations (every one-letter
             change) and swaps are scored first, best board first; when all
             have been, the best board's double deviations (every pair of
             cells, each changed to every other letter) are scored a round at
             a time. Any better board found is expanded next. When the `pool`
             best boards are all fully expanded (a local optimum for two
             changes), the next climb starts from the best board found so
             far after KICK random letter changes, outside the neighbourhood
             already scored (the first climb: `start` or a random board).
             Every board scored is remembered (a 64-bit fingerprint of its
             canonical form in a sorted set, 8 bytes a board) and never
             scored again in the whole search.
  anneal     `pool` independent Metropolis chains run side by side; a round
             scores one proposal per chain (a letter change, or a swap with
             probability `swap_share`). A proposal that loses d points is
             accepted with probability exp(-d / T). T cools geometrically
             from t0 to t1 over `steps` rounds: T(k) = t0 * (t1/t0)^(k/(steps-1)).
             Then a new run starts from random boards and cools again.

Rearranging (seed 003): only swaps are allowed, so the multiset of letters
never changes. The first board is Ernst Munter's greedy "energy" arrangement:
each letter pair is worth the points of the words that contain it and that
the letters can spell, and the swap that most raises the summed worth of
adjacent pairs is made until none does. Then hillclimb or anneal, with
swaps only and random shuffles of the letters for restarts.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from .board import Board, Shape, neighbours, parse_board, points
from .dice_sets import random_seed
from .engine import Found
from .errors import DawgError
from .lexicon import Lexicon

METHODS = ("hillclimb", "deviation", "anneal")
REARRANGE_METHODS = ("hillclimb", "anneal")
ROUND_LIMIT = 32768  # most boards in one round: bounds the time between two budget checks
DEFAULT_POOL = {"hillclimb": 16, "deviation": 1, "anneal": 256}
DEFAULT_ANNEAL = dict(steps=4000, t0=100.0, t1=2.0, swap_share=0.3)
KICK = 3  # random letter changes to the best board that start a new deviation climb


# --- symmetry ----------------------------------------------------------------------------


@lru_cache(maxsize=None)
def symmetries(shape: Shape) -> np.ndarray:
    """The distinct cell permutations mapping a board onto its rotations and reflections,
    identity first: `board[perm]` is an image of `board`."""
    grid = np.arange(shape.cells).reshape(shape.rows, shape.cols)
    images = []
    for turns in range(4):
        turned = np.rot90(grid, turns)
        for image in (turned, np.fliplr(turned)):
            if image.shape == grid.shape:
                images.append(image.ravel())
    perms = np.unique(np.array(images), axis=0)  # rows sorted: the identity comes first
    perms.flags.writeable = False
    return perms


def canonical_codes(codes: np.ndarray, shape: Shape) -> np.ndarray:
    """The canonical form of each board of a (B, cells) code array: its lexicographically
    smallest image under the symmetries of the shape."""
    codes = np.asarray(codes)
    perms = symmetries(shape)
    best = codes[:, perms[0]]
    rows = np.arange(len(codes))
    for perm in perms[1:]:
        image = codes[:, perm]
        differs = image != best
        first = differs.argmax(axis=1)
        smaller = differs[rows, first] & (image[rows, first] < best[rows, first])
        best[smaller] = image[smaller]
    return best


def canonical_board(board: Board) -> Board:
    """The image of a board (any faces) with the lexicographically smallest notation."""
    images = [Board(tuple(board.faces[c] for c in perm), board.shape) for perm in symmetries(board.shape)]
    return min(images, key=lambda b: b.notation)


@lru_cache(maxsize=None)
def _fingerprint_weights() -> np.ndarray:
    """Fixed odd 64-bit weights, one per cell (made on first use: `dawg-solve BOARD` never needs them)."""
    return np.random.Generator(np.random.PCG64(0xB0661E)).integers(0, 2**64, 64, dtype=np.uint64) | np.uint64(1)


def fingerprints(canonical: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each canonical board (a random linear form mod 2^64: two given
    boards collide with probability below 2^-57)."""
    weights = _fingerprint_weights()[:canonical.shape[1]]
    return (canonical.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


class SeenBoards:
    """Fingerprints of the boards scored so far, kept as sorted runs merged like a binary
    counter: a lookup is a few binary searches and a fingerprint is re-merged O(log n)
    times; 8 bytes per board."""

    def __init__(self) -> None:
        self._runs: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(run) for run in self._runs)

    def known(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(len(keys), bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            found |= run[at] == keys
        return found

    def add(self, keys: np.ndarray) -> None:
        """Remember new fingerprints (distinct, and not known yet)."""
        if not len(keys):
            return
        run = np.sort(keys)
        while self._runs and len(self._runs[-1]) <= len(run):
            run = np.concatenate([self._runs.pop(), run])
            run.sort(kind="stable")  # timsort: a linear merge of the two sorted halves
        self._runs.append(run)


# --- boards as codes ------------------------------------------------------------------------


def codes_to_board(codes: np.ndarray, letters: str, shape: Shape) -> Board:
    return Board(tuple("qu" if letters[c] == "q" else letters[c] for c in codes.tolist()), shape)


def board_to_codes(board: Board, letters: str) -> np.ndarray:
    """Letter codes of a board of single letters (and Qu) from the charset."""
    codes = []
    for cell in range(board.shape.cells):
        face = board.faces[cell]
        index = letters.find(face[0]) if face == "qu" or len(face) == 1 else -1
        if index < 0:
            raise DawgError(f"board {board.notation!r}: {board.cell_text(cell)!r} is not a letter of the "
                            f"lexicon's charset {letters.upper()}")
        codes.append(index)
    return np.array(codes, np.int64)


def parse_letters(text: str, charset: str, what: str) -> list[int]:
    """Codes of the letters of `text` ('q' = Qu die; case, spaces and commas ignored)."""
    codes = []
    for ch in text.lower():
        if ch in " ,":
            continue
        if not ("a" <= ch <= "z"):
            raise DawgError(f"{what}: {ch!r} is not a letter a-z ('q' is the Qu die)")
        if ch not in charset:
            raise DawgError(f"{what}: {ch.upper()!r} is not in the lexicon's charset {charset.upper()}")
        codes.append(charset.index(ch))
    if not codes:
        raise DawgError(f"{what}: no letters given")
    return codes


# --- results ----------------------------------------------------------------------------------


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
        for name in ("seconds", "rounds", "evaluations"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise DawgError(f"--{name}: must be positive, got {value}")


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


@dataclass(frozen=True)
class RearrangeResult:
    search: SearchResult
    letters: str  # the multiset, sorted ('q' = Qu die)
    start: ScoredBoard  # the greedy energy arrangement the search started from
    words: list[Found] = field(repr=False)


class _Stop(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


# --- the search machinery ------------------------------------------------------------------------


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


@dataclass
class _Space:
    """The boards a search may visit: any letters of `letters` on every cell, or (rearranging)
    only the arrangements of the letters of `multiset`, reached by swaps."""

    shape: Shape
    letters: np.ndarray
    multiset: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.pairs = np.array(np.triu_indices(self.shape.cells, 1)).T

    def random(self, rng: np.random.Generator, count: int) -> np.ndarray:
        if self.multiset is not None:
            return rng.permuted(np.tile(self.multiset, (count, 1)), axis=1)
        return self.letters[rng.integers(0, len(self.letters), (count, self.shape.cells))]

    def single_changes(self, board: np.ndarray) -> np.ndarray:
        """Every board with one cell's letter changed to another letter of the alphabet."""
        if self.multiset is not None:
            return np.zeros((0, len(board)), board.dtype)
        cells, count = self.shape.cells, len(self.letters)
        cell = np.repeat(np.arange(cells), count)
        letter = np.tile(self.letters, cells)
        keep = letter != board[cell]
        out = np.tile(board, (int(keep.sum()), 1))
        out[np.arange(len(out)), cell[keep]] = letter[keep]
        return out

    def swaps(self, board: np.ndarray) -> np.ndarray:
        """Every board with two cells of different letters exchanged."""
        first, second = self.pairs[:, 0], self.pairs[:, 1]
        keep = board[first] != board[second]
        first, second = first[keep], second[keep]
        out = np.tile(board, (len(first), 1))
        rows = np.arange(len(out))
        out[rows, first] = board[second]
        out[rows, second] = board[first]
        return out

    def neighbours(self, board: np.ndarray) -> np.ndarray:
        return np.concatenate([self.single_changes(board), self.swaps(board)])

    def double_changes(self, board: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """Every board with both cells of each given pair changed to other letters."""
        count = len(self.letters)
        first = np.repeat(pairs[:, 0], count * count)
        second = np.repeat(pairs[:, 1], count * count)
        letter_a = np.tile(np.repeat(self.letters, count), len(pairs))
        letter_b = np.tile(self.letters, count * len(pairs))
        keep = (letter_a != board[first]) & (letter_b != board[second])
        out = np.tile(board, (int(keep.sum()), 1))
        rows = np.arange(len(out))
        out[rows, first[keep]] = letter_a[keep]
        out[rows, second[keep]] = letter_b[keep]
        return out

    def mutate(self, rng: np.random.Generator, boards: np.ndarray, swap_share: float) -> np.ndarray:
        """One random move per board: a swap with probability `swap_share` (always, when
        rearranging), else a cell changed to a different random letter."""
        count, cells = boards.shape
        rows = np.arange(count)
        swap = rng.random(count) < (1.0 if self.multiset is not None else swap_share)
        cell = rng.integers(0, cells, count)
        other = (cell + rng.integers(1, cells, count)) % cells if cells > 1 else cell
        pick = rng.integers(0, len(self.letters) - 1, count) if len(self.letters) > 1 else np.zeros(count, int)
        letter = self.letters[pick]
        # Drawing from all but the last letter and mapping the current letter to the last one
        # gives a uniform choice among the letters other than the current one.
        letter = np.where(letter == boards[rows, cell], self.letters[-1], letter)
        out = boards.copy()
        out[rows, cell] = np.where(swap, boards[rows, other], letter)
        out[rows[swap], other[swap]] = boards[rows[swap], cell[swap]]
        return out


class _Run:
    """The state every method shares: scoring rounds, the budget, the top list, counters."""

    def __init__(self, lex: Lexicon, space: _Space, budget: Budget, seed: int, jobs: int, top: int,
                 on_round: Callable[[SearchStatus], None] | None) -> None:
        self.lex = lex
        self.space = space
        self.shape = space.shape
        self.budget = budget
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.jobs = jobs
        self.top = TopBoards(top, space.shape)
        self.on_round = on_round
        self.rounds = 0
        self.evaluations = 0
        self.started = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def check(self) -> None:
        """Raise _Stop if the budget is spent (called before each round but the first, so
        that every search has a result)."""
        b = self.budget
        if self.rounds == 0:
            return
        if b.rounds is not None and self.rounds >= b.rounds:
            raise _Stop("rounds")
        if b.evaluations is not None and self.evaluations >= b.evaluations:
            raise _Stop("evaluations")
        if b.seconds is not None and self.elapsed >= b.seconds:
            raise _Stop("seconds")

    def score(self, codes: np.ndarray) -> np.ndarray:
        """Scores of a batch of boards, one round per ROUND_LIMIT boards."""
        parts = []
        for lo in range(0, len(codes), ROUND_LIMIT):
            self.check()
            batch = codes[lo:lo + ROUND_LIMIT]
            scores = self.lex.score_codes(batch, self.shape, self.jobs)
            self.rounds += 1
            self.evaluations += len(batch)
            self.top.offer(batch, scores)
            if self.on_round:
                self.on_round(self.status())
            if self.budget.target is not None and self.top.best[1] >= self.budget.target:
                raise _Stop("target")
            parts.append(scores)
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

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
        return ScoredBoard(codes_to_board(codes, self.lex.charset.letters, self.shape).notation, score)

    def status(self) -> SearchStatus:
        best = self.scored_board(*self.top.best) if self.top.best else None
        return SearchStatus(self.rounds, self.evaluations, self.elapsed, best)

    def result(self, method: str, seed: int, stopped: str) -> SearchResult:
        letters = self.lex.charset.letters
        alphabet = "".join(letters[c] for c in self.space.letters.tolist())
        return SearchResult(method, self.shape, alphabet, seed,
                            [self.scored_board(k, s) for k, s in self.top.ranked()[:self.top.size]],
                            self.rounds, self.evaluations, self.elapsed, stopped)


def _best_distinct(scores: np.ndarray, keys: np.ndarray, count: int) -> np.ndarray:
    """Indices of the `count` best boards, ties broken by fingerprint (boards are distinct)."""
    return np.lexsort((keys, -scores))[:count]


def _hillclimb(run: _Run, pool: int, start: np.ndarray | None) -> None:
    while True:
        seen = SeenBoards()
        boards = run.space.random(run.rng, pool)
        if start is not None:
            boards[0], start = start, None
        boards, keys = run.fresh(boards, seen)
        scores = run.score(boards)
        seen.add(keys)
        expanded = np.zeros(len(boards), bool)
        while not expanded.all():
            around = np.concatenate([run.space.neighbours(b) for b in boards[~expanded]])
            new, new_keys = run.fresh(around, seen)
            new_scores = run.score(new)
            seen.add(new_keys)
            boards = np.concatenate([boards, new])
            scores = np.concatenate([scores, new_scores])
            keys = np.concatenate([keys, new_keys])
            expanded = np.concatenate([np.ones(len(expanded), bool), np.zeros(len(new), bool)])
            kept = _best_distinct(scores, keys, pool)
            boards, scores, keys, expanded = boards[kept], scores[kept], keys[kept], expanded[kept]


@dataclass
class _Climber:
    """A board of a deviation climb and how far its neighbourhood has been scored."""

    codes: np.ndarray
    score: int
    key: int
    singles_done: bool = False
    next_pair: int = 0  # double deviations are scored pair of cells by pair of cells


def _deviation(run: _Run, width: int, start: np.ndarray | None) -> None:
    space = run.space
    seen = SeenBoards()
    pair_count = len(space.pairs)
    pairs_per_round = max(1, ROUND_LIMIT // max(1, (len(space.letters) - 1) ** 2))
    while True:
        if start is not None:
            board, start = start[None], None
        elif run.top.best is not None:
            board = np.frombuffer(run.top.best[0], np.uint8).astype(np.int64)[None]
            for _ in range(KICK):
                board = space.mutate(run.rng, board, swap_share=0.0)
        else:
            board = space.random(run.rng, 1)
        board = canonical_codes(board, run.shape)
        key = fingerprints(board)
        score = run.score(board)
        seen.add(key[~seen.known(key)])
        climb = [_Climber(board[0], int(score[0]), int(key[0]))]
        while True:
            todo = ([c for c in climb if not c.singles_done]
                    or [c for c in climb if c.next_pair < pair_count])
            if not todo:
                break
            climber = todo[0]
            if not climber.singles_done:
                around = space.neighbours(climber.codes)
                climber.singles_done = True
            else:
                pairs = space.pairs[climber.next_pair:climber.next_pair + pairs_per_round]
                around = space.double_changes(climber.codes, pairs)
                climber.next_pair += len(pairs)
            new, new_keys = run.fresh(around, seen)
            new_scores = run.score(new)
            seen.add(new_keys)
            for i in _best_distinct(new_scores, new_keys, width):
                climb.append(_Climber(new[i], int(new_scores[i]), int(new_keys[i])))
            climb.sort(key=lambda c: (-c.score, c.key))
            del climb[width:]


def _anneal(run: _Run, chains: int, steps: int, t0: float, t1: float, swap_share: float,
            start: np.ndarray | None) -> None:
    space = run.space
    while True:
        boards = space.random(run.rng, chains)
        if start is not None:
            boards[:] = start
            start = None
        scores = run.score(boards)
        for step in range(steps):
            temperature = t0 * (t1 / t0) ** (step / max(1, steps - 1))
            proposals = space.mutate(run.rng, boards, swap_share)
            new = run.score(proposals)
            accept = (new >= scores) | (run.rng.random(chains) < np.exp(np.minimum(new - scores, 0) / temperature))
            boards[accept] = proposals[accept]
            scores[accept] = new[accept]


def _run_method(run: _Run, method: str, pool: int | None, start: np.ndarray | None, anneal: dict) -> str:
    """Run a method until its budget stops it; returns why it stopped."""
    size = pool or DEFAULT_POOL[method]
    try:
        if method == "hillclimb":
            _hillclimb(run, size, start)
        elif method == "deviation":
            _deviation(run, size, start)
        else:
            _anneal(run, size, start=start, **{**DEFAULT_ANNEAL, **anneal})
    except _Stop as stop:
        return stop.reason
    except KeyboardInterrupt:
        return "interrupted"
    raise AssertionError("search methods only end by their budget")


def _check_options(method: str, methods: tuple[str, ...], pool: int | None, top: int, jobs: int,
                   anneal: dict) -> None:
    if method not in methods:
        raise DawgError(f"--method: unknown method {method!r} (choose from {', '.join(methods)})")
    if pool is not None and pool < 1:
        raise DawgError(f"--pool: must be 1 or more, got {pool}")
    if top < 1:
        raise DawgError(f"--top: must be 1 or more, got {top}")
    if jobs < 1:
        raise DawgError(f"--jobs: must be 1 or more, got {jobs}")
    if anneal and method != "anneal":
        raise DawgError(f"--{next(iter(anneal)).replace('_', '-')} applies to --method anneal only")
    if anneal.get("steps", 1) < 1:
        raise DawgError(f"--steps: must be 1 or more, got {anneal['steps']}")
    if not all(t > 0 for t in (anneal.get("t0", 1), anneal.get("t1", 1))):
        raise DawgError("--t0 and --t1: temperatures must be positive")
    if not 0 <= anneal.get("swap_share", 0) <= 1:
        raise DawgError(f"--swap-share: must be between 0 and 1, got {anneal['swap_share']}")


def _seed(seed: int | None) -> int:
    if seed is None:
        return random_seed()
    if seed < 0:
        raise DawgError(f"--seed: must be 0 or more, got {seed}")
    return seed


def search(lex: Lexicon, shape: Shape, budget: Budget, method: str = "hillclimb", seed: int | None = None,
           jobs: int = 1, top: int = 10, alphabet: str | None = None, start: str | None = None,
           pool: int | None = None, on_round: Callable[[SearchStatus], None] | None = None,
           **anneal) -> SearchResult:
    """Search for the highest-scoring boards of `shape` (see the module docstring).

    `alphabet` restricts the letters (default: the lexicon's charset); `start` is the board
    the first climb or run starts from; `pool` is the hillclimb pool, the deviation width or
    the number of annealing chains; `anneal` may set steps, t0, t1 and swap_share."""
    _check_options(method, METHODS, pool, top, jobs, anneal)
    letters = lex.charset.letters
    codes = sorted(set(parse_letters(alphabet, letters, "--alphabet"))) if alphabet else range(len(letters))
    space = _Space(shape, np.array(codes, np.int64))
    start_codes = board_to_codes(parse_board(start, shape), letters) if start else None
    seed = _seed(seed)
    run = _Run(lex, space, budget, seed, jobs, top, on_round)
    stopped = _run_method(run, method, pool, start_codes, anneal)
    if run.top.best is None:  # interrupted during the first round: nothing to report
        raise KeyboardInterrupt
    return run.result(method, seed, stopped)


# --- rearranging a multiset of letters (seed 003) ----------------------------------------------


def pair_worth(lex: Lexicon, multiset: list[int]) -> np.ndarray:
    """Worth of each letter pair: the points of the lexicon's words that the multiset can
    spell and that have the two letters next to each other (either order)."""
    letters = lex.charset.letters
    have = Counter(letters[c] for c in multiset)
    worth = np.zeros((len(letters), len(letters)), np.int64)
    for word, _ in lex.numbered_words():  # folded: 'q' is the Qu die
        if any(have[ch] < n for ch, n in Counter(word).items()):
            continue
        value = points(len(word) + word.count("q"))
        for a, b in zip(word, word[1:]):
            i, j = letters.index(a), letters.index(b)
            worth[i, j] += value
            if i != j:
                worth[j, i] += value
    return worth


def energy_arrangement(space: _Space, worth: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Munter's greedy pre-arrangement: make the swap that most raises the summed worth of
    adjacent letter pairs until no swap raises it (ties: the first swap in cell order)."""
    links = np.array([(a, b) for a, around in enumerate(neighbours(space.shape)) for b in around if a < b],
                     np.int64).reshape(-1, 2)

    def energy(boards: np.ndarray) -> np.ndarray:
        return worth[boards[:, links[:, 0]], boards[:, links[:, 1]]].sum(axis=1)

    current = int(energy(board[None])[0])
    while True:
        options = space.swaps(board)
        if not len(options):
            return board
        gains = energy(options)
        best = int(gains.argmax())
        if gains[best] <= current:
            return board
        board, current = options[best], int(gains[best])


def rearrange(lex: Lexicon, letters: str, shape: Shape, budget: Budget, method: str = "hillclimb",
              seed: int | None = None, jobs: int = 1, pool: int | None = None,
              on_round: Callable[[SearchStatus], None] | None = None, **anneal) -> RearrangeResult:
    """The best arrangement of exactly the given letters on a board of `shape` (seed 003)."""
    _check_options(method, REARRANGE_METHODS, pool, 1, jobs, anneal)
    charset = lex.charset.letters
    multiset = parse_letters(letters, charset, "LETTERS")
    if len(multiset) != shape.cells:
        raise DawgError(f"LETTERS: {len(multiset)} letters given, a {shape} board has {shape.cells} cells")
    space = _Space(shape, np.array(sorted(set(multiset)), np.int64), np.array(sorted(multiset), np.int64))
    start = energy_arrangement(space, pair_worth(lex, multiset), np.array(multiset, np.int64))
    seed = _seed(seed)
    run = _Run(lex, space, budget, seed, jobs, 1, on_round)
    stopped = _run_method(run, method, pool, start, anneal)
    if run.top.best is None:  # interrupted during the first round: nothing to report
        raise KeyboardInterrupt
    result = run.result(method, seed, stopped)
    start_board = canonical_board(codes_to_board(start, charset, shape))
    return RearrangeResult(result, "".join(sorted(charset[c] for c in multiset)),
                           ScoredBoard(start_board.notation, lex.score(start_board)),
                           lex.words(parse_board(result.best.board, shape)))
