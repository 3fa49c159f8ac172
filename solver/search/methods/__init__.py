"""The search methods, one module each, and the registry the API and the CLI read.

A method is a `SearchMethod`: its name, a line of help, what `pool` means for it
and its default, its own options with their defaults, whether it can rearrange
(work with swaps only), what a unit of its pool costs a round in memory, and
`climb(run, pool, start, **options)`, which proposes batches of boards to
`run.score` until the run's budget stops it. Adding a method is one module here
and one entry in METHODS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ...errors import ParameterError
from ..search_run import SearchRun
from ..space import BoardSpace

MAX_POOL_BYTES = 2 << 30  # the memory a round's pool may take: a larger pool is a typo, not a plan


def _one_board(space: BoardSpace) -> int:
    return 8 * space.shape.cells


@dataclass(frozen=True)
class SearchMethod:
    name: str
    summary: str  # one line for help texts
    pool_meaning: str  # what `pool` counts for this method
    default_pool: int
    climb: Callable[..., None]  # climb(run, pool, start, **options): runs until the budget stops it
    rearranges: bool  # works with swaps only, so it can place a fixed multiset of letters
    options: Mapping[str, float | int] = field(default_factory=dict)  # the method's own options
    check: Callable[[dict], None] = lambda options: None  # raises DawgError on a bad option value
    pool_bytes: Callable[[BoardSpace], int] = _one_board  # memory one unit of the pool takes in a round

    def run(self, run: SearchRun, pool: int | None, start: np.ndarray | None, options: dict) -> None:
        self.climb(run, pool or self.default_pool, start, **{**self.options, **options})

    def validate(self, options: dict) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ParameterError(unknown[0], f"not an option of the {self.name} method"
                                 + (f" (its options: {', '.join(self.options)})" if self.options else ""))
        self.check(options)

    def check_pool(self, pool: int | None, space: BoardSpace) -> None:
        """Refuse a pool whose rounds would take more than MAX_POOL_BYTES, before it is allocated."""
        largest = max(1, MAX_POOL_BYTES // max(1, self.pool_bytes(space)))  # (none: a board with no neighbour)
        if pool is not None and pool > largest:
            raise ParameterError("pool", f"at most {largest:,} for the {self.name} method on {space.shape} boards "
                                         f"over {len(space.letters)} letters (a round would take more than "
                                         f"{MAX_POOL_BYTES >> 30} GiB), got {pool:,}")


def _registry() -> dict[str, SearchMethod]:
    from . import anneal, deviation, hillclimb, steepest

    return {m.name: m for m in (hillclimb.METHOD, deviation.METHOD, anneal.METHOD, steepest.METHOD)}


METHODS: dict[str, SearchMethod] = _registry()
REARRANGE_METHODS = {name: m for name, m in METHODS.items() if m.rearranges}


def method_named(name: str, methods: Mapping[str, SearchMethod] = METHODS) -> SearchMethod:
    if name not in methods:
        raise ParameterError("method", f"unknown method {name!r} (choose from {', '.join(methods)})")
    return methods[name]
