"""Seed 003's contest: the best arrangement of exactly the given letters.

Only swaps are allowed, so the multiset of letters never changes. The first
board is Ernst Munter's greedy "energy" arrangement: each letter pair is worth
the points of the words that contain it and that the letters can spell, and
the swap that most raises the summed worth of adjacent pairs is made until
none does. Then a method that can work with swaps only, with random shuffles
of the letters for restarts. The start is part of the search: its time counts
in the budget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..backends import Scorer
from ..board import Board, Shape, neighbours, parse_board
from ..board_walk import Found
from ..errors import DawgError
from .find import check_common, run_method
from .methods import REARRANGE_METHODS, method_named
from .search_run import Budget, ScoredBoard, SearchResult, SearchRun, SearchStatus
from .space import BoardSpace, board_to_codes, codes_to_board
from .symmetry import canonical_board


@dataclass(frozen=True)
class RearrangeResult:
    search: SearchResult
    letters: str  # the multiset, sorted ('q' = Qu die)
    start: ScoredBoard  # the greedy energy arrangement the search started from
    words: list[Found] = field(repr=False)


def spellable(scorer: Scorer, multiset: list[int]) -> list[tuple[list[int], int]]:
    """The lexicon's words that the letters can spell, each letter used at most once, as (their codes,
    their points): a descent of the lexicon's word steps that spends a letter at each step and tries
    each distinct letter left once, so it visits each prefix the letters can make once (a board walk
    on cells that all touch each other visits it once per ordering of a repeated letter's copies:
    exponentially often on a large board of few letters)."""
    lex = scorer.lexicon
    steps = lex.word_steps()
    lengths = scorer.rules.code_lengths(lex.charset).tolist()
    card = scorer.rules.card(sum(lengths[code] for code in multiset)).tolist()
    left = dict(Counter(multiset))
    letters = sorted(left)
    found: list[tuple[list[int], int]] = []
    codes: list[int] = []
    stack = [(steps.root, 0, iter(letters))]  # (state, letters counted, letters still to try there)
    while stack:
        state, length, todo = stack[-1]
        code = next((c for c in todo if left[c]), None)
        if code is None:
            stack.pop()
            if codes:
                left[codes.pop()] += 1
            continue
        child = steps.child(state, code)
        if child is None:
            continue
        left[code] -= 1
        codes.append(code)
        counted = length + lengths[code]
        if card[counted] >= 0 and steps.number(child) is not None:
            found.append((list(codes), card[counted]))
        stack.append((child, counted, iter(letters)))
    return found


def pair_worth(scorer: Scorer, multiset: list[int]) -> np.ndarray:
    """Worth of each letter pair: the points of the lexicon's words that the multiset can
    spell and that have the two letters next to each other (either order)."""
    size = len(scorer.lexicon.charset)
    worth = np.zeros(size * size, np.int64)
    firsts, seconds, values = [], [], []
    for codes, points in spellable(scorer, multiset):
        firsts.extend(codes[:-1])
        seconds.extend(codes[1:])
        values.extend([points] * (len(codes) - 1))
    first, second, value = np.array(firsts, np.int64), np.array(seconds, np.int64), np.array(values, np.int64)
    worth += np.bincount(first * size + second, value, size * size).astype(np.int64)
    other = first != second
    worth += np.bincount(second[other] * size + first[other], value[other], size * size).astype(np.int64)
    return worth.reshape(size, size)


def energy_arrangement(space: BoardSpace, worth: np.ndarray, board: np.ndarray) -> np.ndarray:
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


def rearrange(scorer: Scorer, letters: str, shape: Shape | tuple[int, int], budget: Budget, method: str = "hillclimb",
              seed: int | None = None, pool: int | None = None,
              on_round: Callable[[SearchStatus], None] | None = None, **options) -> RearrangeResult:
    """The best arrangement of exactly the given letters on a board of `shape` (seed 003).

    `letters` is read as board notation, as a board to solve is (its rows, if any, are
    ignored: `shape` gives the size); its cells must be letters or Qu."""
    shape = Shape.of(shape)
    chosen = method_named(method, REARRANGE_METHODS)
    chosen.validate(options)
    seed = check_common(pool, 1, seed)
    lex = scorer.lexicon
    charset = lex.charset
    board = parse_board(letters, shape, charset)
    odd = next((cell for cell, face in enumerate(board.faces) if len(charset.symbol_of(face)) != 1), None)
    if odd is not None:
        raise DawgError(f"board {board.notation!r}: {board.cell_text(odd)!r} cannot be rearranged: only letters "
                        f"and Qu, not blanks or two-letter faces")
    multiset = board_to_codes(board, charset).tolist()
    space = BoardSpace(shape, np.array(sorted(set(multiset)), np.int64), np.array(sorted(multiset), np.int64))
    chosen.check_pool(pool, space)
    run = SearchRun(scorer, space, budget, seed, 1, on_round)  # the clock starts here: the start counts
    start = energy_arrangement(space, pair_worth(scorer, multiset), np.array(multiset, np.int64))
    result = run_method(chosen, run, pool, start, options, seed)
    start_board: Board = canonical_board(codes_to_board(start, charset, shape))
    return RearrangeResult(result, "".join(sorted(charset.symbols(multiset))),
                           ScoredBoard(start_board.notation, lex.score(start_board)),
                           lex.words(parse_board(result.best.board, shape, charset)))

