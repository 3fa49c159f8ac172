"""Steepest ascent by single-letter changes, a round per step of every climber: the method
whose rounds a scoring backend can run where it scores (`Scorer.best_changes`)."""

from __future__ import annotations

import numpy as np

from ..search_run import SearchRun
from ..space import BoardSpace
from . import SearchMethod


def climb(run: SearchRun, pool: int, start: np.ndarray | None) -> None:
    """`pool` boards climb side by side. A round finds each board's best single-letter change
    (all cells x all letters); a board moves there if it scores more, else it is at a local
    maximum and starts again from a random board. On the CUDA backend the changes are made and
    scored on the device and only each board's best comes back, so a large pool keeps the GPU
    busy; on the CPU a round scores pool x cells x letters boards."""
    boards = run.space.random(run.rng, pool)
    if start is not None:
        boards[0] = start
    scores = run.score(boards)
    while True:
        moved, best = run.best_changes(boards)
        better = best > scores
        boards[better], scores[better] = moved[better], best[better]
        stuck = np.flatnonzero(~better)
        if len(stuck):
            boards[stuck] = run.space.random(run.rng, len(stuck))
            scores[stuck] = run.score(boards[stuck])


def pool_bytes(space: BoardSpace) -> int:
    """A climber's score of every change (on the CPU) and its board, moved and not."""
    return 8 * space.shape.cells * (len(space.letters) + 4)


METHOD = SearchMethod(
    name="steepest",
    summary="steepest ascent by letter changes, restarting at local maxima (the CUDA backend makes and "
            "scores the changes on the GPU)",
    pool_meaning="boards climbing side by side",
    default_pool=8,
    climb=climb,
    rearranges=False,
    pool_bytes=pool_bytes,
)
