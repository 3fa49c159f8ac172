"""Simulated annealing: many Metropolis chains side by side, cooling geometrically."""

from __future__ import annotations

import math

import numpy as np

from ...errors import ParameterError
from ..search_run import SearchRun
from ..space import BoardSpace
from . import SearchMethod


def climb(run: SearchRun, chains: int, start: np.ndarray | None, steps: int, t0: float, t1: float,
          swap_share: float) -> None:
    """`chains` independent chains; a round scores one proposal per chain (a letter change,
    or a swap with probability `swap_share`). A proposal that loses d points is accepted with
    probability exp(-d / T); T cools from t0 to t1 over `steps` rounds,
    T(k) = t0 * (t1/t0)^(k/(steps-1)). Then a new run starts from random boards."""
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


def check(options: dict) -> None:
    if options.get("steps", 1) < 1:
        raise ParameterError("steps", f"must be 1 or more, got {options['steps']}")
    for name in ("t0", "t1"):
        value = options.get(name, 1.0)
        if not (math.isfinite(value) and value > 0):
            raise ParameterError(name, f"a temperature must be a positive finite number, got {value}")
    t0, t1 = (options.get(name, METHOD.options[name]) for name in ("t0", "t1"))
    if t1 > t0:
        raise ParameterError("t1", f"must be at most t0 ({t0:g}): the chains cool from t0 to t1, got {t1:g}")
    share = options.get("swap_share", 0.0)
    if not 0 <= share <= 1:
        raise ParameterError("swap_share", f"must be between 0 and 1, got {share}")


def pool_bytes(space: BoardSpace) -> int:
    """A chain's board, its proposal and the move's copy, and a dozen numbers per chain."""
    return 8 * (4 * space.shape.cells + 16)


METHOD = SearchMethod(
    name="anneal",
    summary="Metropolis chains side by side, cooling geometrically, then reheating",
    pool_meaning="chains",
    default_pool=256,
    climb=climb,
    rearranges=True,
    options={"steps": 4000, "t0": 100.0, "t1": 2.0, "swap_share": 0.3},
    check=check,
    pool_bytes=pool_bytes,
)
