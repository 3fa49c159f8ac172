"""`search`: the highest-scoring boards of a shape, by any registered method."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..backends import Scorer
from ..board import Shape, parse_board
from ..charset import Charset
from ..dice_sets import random_seed
from ..errors import ParameterError, is_whole
from .methods import METHODS, SearchMethod, method_named
from .search_run import Budget, SearchResult, SearchRun, SearchStatus, run_until_stopped
from .space import BoardSpace, board_to_codes, parse_letters


def check_common(pool: int | None, top: int, seed: int | None) -> int:
    """Validate the options every method has; returns the seed (a fresh one when None)."""
    for name, value, least in (("pool", pool, 1), ("top", top, 1), ("seed", seed, 0)):
        if value is None and name != "top":
            continue
        if not is_whole(value):
            raise ParameterError(name, f"must be a whole number, got {value!r}")
        if value < least:
            raise ParameterError(name, f"must be {least} or more, got {value}")
    return random_seed() if seed is None else int(seed)


def run_method(method: SearchMethod, run: SearchRun, pool: int | None, start: np.ndarray | None,
               options: dict, seed: int) -> SearchResult:
    stopped = run_until_stopped(lambda: method.run(run, pool, start, options))
    if run.top.best is None:  # interrupted during the first round: nothing to report
        raise KeyboardInterrupt
    return run.result(method.name, seed, stopped)


def plan_search(charset: Charset, shape: Shape | tuple[int, int], method: str, seed: int | None, top: int, alphabet: str | None,
                start: str | None, pool: int | None,
                options: dict) -> tuple[SearchMethod, int, BoardSpace, np.ndarray | None]:
    """Check a search's parameters against the lexicon's `charset` before anything runs (a driver
    checks a whole run this way); returns the method, the seed, the board space and the start's
    letter codes."""
    shape = Shape.of(shape)
    chosen = method_named(method, METHODS)
    chosen.validate(options)
    seed = check_common(pool, top, seed)
    codes = sorted(set(parse_letters(alphabet, charset, "alphabet"))) if alphabet else range(len(charset))
    space = BoardSpace(shape, np.array(codes, np.int64))
    chosen.check_pool(pool, space)
    start_codes = board_to_codes(parse_board(start, shape, charset), charset) if start else None
    if start_codes is not None:
        outside = sorted(set(charset.symbols(start_codes.tolist()).upper()) - set(charset.symbols(codes).upper()))
        if outside:
            raise ParameterError("start", f"board {start!r} has {', '.join(outside)}, outside the alphabet "
                                          f"{charset.symbols(codes).upper()}")
    return chosen, seed, space, start_codes


def search(scorer: Scorer, shape: Shape | tuple[int, int], budget: Budget, method: str = "hillclimb", seed: int | None = None,
           top: int = 10, alphabet: str | None = None, start: str | None = None, pool: int | None = None,
           on_round: Callable[[SearchStatus], None] | None = None, **options) -> SearchResult:
    """Search for the highest-scoring boards of `shape`, scoring with `scorer`.

    `alphabet` restricts the letters (default: the lexicon's charset); `start` is the board
    the first climb or run starts from (in those letters); `pool` is what the method's
    `pool_meaning` says (default: its `default_pool`; at most what a round can hold in
    MAX_POOL_BYTES); `options` are the method's own (`METHODS[m].options`)."""
    chosen, seed, space, start_codes = plan_search(scorer.lexicon.charset, shape, method, seed, top,
                                                   alphabet, start, pool, options)
    run = SearchRun(scorer, space, budget, seed, top, on_round)
    return run_method(chosen, run, pool, start_codes, options, seed)
