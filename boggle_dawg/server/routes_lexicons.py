"""The lexicon API: what is served, one board solved, a batch scored, words looked up and listed, dice rolled.

Plain functions, which FastAPI runs on its thread pool: a slow board never stalls the event loop, and the
compiled walks release the GIL, so boards are solved in parallel.
"""

from __future__ import annotations

from itertools import islice
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ..solver import __version__
from ..solver.board import BoardError as BatchBoardError
from ..solver.board import blank_foreign, parse_size
from ..solver.dice_sets import random_seed, roll
from ..solver.errors import DawgError
from ..solver.rules import builtin_rules_names, load_rules
from .catalog import Catalog, at_most
from .models import (
    LexiconsOut,
    LookupOut,
    LookupsOut,
    RollOut,
    ScoreOut,
    ScoreRequest,
    SolveOut,
    SolveRequest,
    WordOut,
    WordsOut,
    answer,
    board_json,
    rules_json,
)
from .served import PlayLimits


def lexicon_routes(catalog: Catalog, play_limits: PlayLimits) -> APIRouter:
    router = APIRouter()
    limits = catalog.limits

    @router.get("/lexicons", response_model=LexiconsOut,
                summary="The served lexicons, each with its language and the dice sets that fit it, and the limits")
    def lexicons() -> Response:
        return answer(LexiconsOut(version=__version__, default=catalog.default,
                                  lexicons=[s.describe() for s in catalog.served.values()],
                                  rules=[rules_json(load_rules(name)) for name in builtin_rules_names()],
                                  limits=vars(limits), play_limits=vars(play_limits)))

    @router.post("/solve", response_model=SolveOut, summary="One board: its score and every word with a path")
    def solve(request: SolveRequest) -> Response:
        one = catalog.lexicon(request.lexicon)
        rules = catalog.rules(request.rules, one)
        board = catalog.board(request.board, request.size, one)
        found = one.words(board, skip_foreign=request.skip_foreign, rules=rules)
        if request.skip_foreign:
            board = blank_foreign(board, one.lexicon.charset)
        return answer(SolveOut(lexicon=one.name, rules=rules_json(rules), board=board_json(board),
                               score=sum(f.points for f in found), word_count=len(found),
                               words=[WordOut(word=f.word, shown=f.shown, points=f.points, path=list(f.path))
                                      for f in found]))

    @router.post("/score", response_model=ScoreOut, summary="A batch of boards scored by the compiled kernels")
    def score(request: ScoreRequest) -> Response:
        one = catalog.lexicon(request.lexicon)
        rules = catalog.rules(request.rules, one)
        at_most("boards", len(request.boards), limits.batch)
        shape = parse_size(request.size) if request.size else None
        for index, text in enumerate(request.boards):
            if len(text) > limits.cells:  # a board has at most one cell per character: parse only these
                try:
                    catalog.board(text, request.size, one)
                except DawgError as err:
                    raise DawgError(f"boards[{index}]: {err}") from None
        try:
            scores = one.lexicon.score_many(request.boards, skip_foreign=request.skip_foreign, shape=shape,
                                            scorer=one.scorer_for(rules))
        except BatchBoardError as err:
            raise DawgError(f"boards[{err.index}]: {err}") from None
        return answer(ScoreOut(lexicon=one.name, rules=rules_json(rules), scores=scores.tolist()))

    @router.get("/lookup", response_model=LookupsOut, summary="Whether words are in a lexicon, and their prefixes that are words")
    def lookup(word: Annotated[list[str], Query(description="A word; repeat for more.")],
               lexicon: Annotated[str | None, Query(description="A served lexicon's name.")] = None) -> Response:
        one = catalog.lexicon(lexicon)
        at_most("words", len(word), limits.batch)
        answers = []
        for text in word:
            try:
                number = one.lexicon.key_id(text)
            except KeyError:
                number = None
            answers.append(LookupOut(word=text, found=number is not None, number=number,
                                     prefixes=one.lexicon.prefixes(text)))
        return answer(LookupsOut(lexicon=one.name, words=answers))

    @router.get("/words", response_model=WordsOut, summary="The words that start with a prefix, alphabetically")
    def words(prefix: Annotated[str, Query(description="Letters the words start with ('' for all).")] = "",
              limit: Annotated[int | None, Query(ge=1, description="Most words to list [default: the server's "
                                                                   "limit].")] = None,
              lexicon: Annotated[str | None, Query(description="A served lexicon's name.")] = None) -> Response:
        one = catalog.lexicon(lexicon)
        limit = limits.words if limit is None else limit
        at_most("limit", limit, limits.words)
        listed = list(islice(one.lexicon.keys(prefix), limit + 1))
        return answer(WordsOut(lexicon=one.name, prefix=prefix, words=listed[:limit], more=len(listed) > limit))

    @router.get("/roll", response_model=RollOut,
                summary="Boards shaken from a served dice set, read with a lexicon's letters; the same seed gives the "
                        "same boards")
    def roll_boards(dice: Annotated[str | None, Query(description="A served set that fits the lexicon (GET "
                                                                  "/api/lexicons) [default: the lexicon's for the "
                                                                  "size].")] = None,
                    size: Annotated[str | None, Query(description="Board size RxC: picks the dice (5x5 big, 6x6 "
                                                                  "super-big) or the set of a file.")] = None,
                    seed: Annotated[int | None, Query(ge=0, description="[default: random, returned].")] = None,
                    count: Annotated[int, Query(ge=1)] = 1,
                    lexicon: Annotated[str | None, Query(description="The lexicon whose letters read the faces (a "
                                                                     "Polish 'Q' is Q, an English one Qu).")] = None
                    ) -> Response:
        one = catalog.lexicon(lexicon)
        at_most("count", count, limits.batch)
        shape = parse_size(size) if size else None
        chosen_dice = catalog.dice(one, dice, shape)
        chosen = random_seed() if seed is None else seed
        boards = [board_json(b) for b in roll(chosen_dice, shape, chosen, count)]
        return answer(RollOut(lexicon=one.name, dice=chosen_dice.name, seed=chosen, boards=boards))

    return router
