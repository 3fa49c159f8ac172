"""Seed 000's search: single and double deviations, best board first, never a board twice."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..search_run import ROUND_LIMIT, SearchRun, best_distinct
from ..space import BoardSpace
from ..symmetry import SeenBoards, canonical_codes, fingerprints
from . import SearchMethod

KICK = 3  # random letter changes to the best board that start a new climb


@dataclass
class _Climber:
    """A board of a climb and how far its neighbourhood has been scored."""

    codes: np.ndarray
    score: int
    key: int
    singles_done: bool = False
    next_pair: int = 0  # double deviations are scored pair of cells by pair of cells


def climb(run: SearchRun, width: int, start: np.ndarray | None) -> None:
    """A best-first climb over the `width` best boards of the climb. Their single deviations
    (every one-letter change) and swaps are scored first, best board first; when all have
    been, the best board's double deviations (every pair of cells, each changed to every
    other letter) are scored a round at a time. Any better board found is expanded next.
    When the `width` best boards are all fully expanded (a local optimum for two changes),
    the next climb starts from the best board found so far after KICK random letter
    changes (the first climb: `start` or a random board). Every board scored is remembered
    (a 64-bit fingerprint of its canonical form, 8 bytes a board) and never scored again."""
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
        climbers = [_Climber(board[0], int(score[0]), int(key[0]))]
        while True:
            todo = ([c for c in climbers if not c.singles_done]
                    or [c for c in climbers if c.next_pair < pair_count])
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
            for i in best_distinct(new_scores, new_keys, width):
                climbers.append(_Climber(new[i], int(new_scores[i]), int(new_keys[i])))
            climbers.sort(key=lambda c: (-c.score, c.key))
            del climbers[width:]


def pool_bytes(space: BoardSpace) -> int:
    """A climber: its board and the object holding it."""
    return 8 * space.shape.cells + 256


METHOD = SearchMethod(
    name="deviation",
    summary="seed 000's single and double deviations, best board first, never a board twice",
    pool_meaning="boards expanded per climb",
    default_pool=1,
    climb=climb,
    rearranges=False,
    pool_bytes=pool_bytes,
)
