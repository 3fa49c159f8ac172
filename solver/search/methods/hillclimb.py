"""Hill climbing from random boards with a pool of the best boards of each climb."""

from __future__ import annotations

import numpy as np

from ..search_run import SearchRun, best_distinct
from ..space import BoardSpace
from ..symmetry import SeenBoards
from . import SearchMethod


def climb(run: SearchRun, pool: int, start: np.ndarray | None) -> None:
    """Each round scores every single-letter change and every swap of the pool boards not yet
    expanded; the pool becomes the `pool` best distinct boards of the climb. When a round
    changes nothing the climb has converged and a new one starts from random boards."""
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
            kept = best_distinct(scores, keys, pool)
            boards, scores, keys, expanded = boards[kept], scores[kept], keys[kept], expanded[kept]


def pool_bytes(space: BoardSpace) -> int:
    """A pool board's neighbours as letter codes, four times over: a round's copies of them
    (canonical forms, the fresh ones, the merged pool) measured about that."""
    changes = 0 if space.multiset is not None else space.shape.cells * (len(space.letters) - 1)
    return 4 * 8 * space.shape.cells * (changes + len(space.pairs))


METHOD = SearchMethod(
    name="hillclimb",
    summary="climb a pool of boards by every letter change and swap; restart when stuck",
    pool_meaning="boards kept per climb",
    default_pool=16,
    climb=climb,
    rearranges=True,
    pool_bytes=pool_bytes,
)
