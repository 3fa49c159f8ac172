"""The single player's judge: `POST /api/round` judges the words found so far on a board, and sums a finished
round up. The server keeps nothing between these requests: a round is its board and its words."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .catalog import Catalog, at_most, shown_word
from .models import RoundOut, RoundRequest, SummaryOut, VerdictOut, WordOut, answer, board_json, rules_json
from .served import Served


def verdict_json(verdict, one: Served) -> VerdictOut:
    return VerdictOut(word=verdict.word, shown=shown_word(one, verdict.word), verdict=verdict.outcome.name.lower(),
                      text=verdict.outcome.value, points=verdict.points)


def round_routes(catalog: Catalog) -> APIRouter:
    router = APIRouter()

    @router.post("/round", response_model=RoundOut,
                 summary="Judge a player's words on a board (the game); finished: sum the round up")
    def play_round(request: RoundRequest) -> Response:
        one = catalog.lexicon(request.lexicon)
        board = catalog.board(request.board, request.size, one)
        at_most("words", len(request.words), catalog.limits.batch)
        rules = catalog.rules(request.rules, one)
        rules = rules if request.min_length is None else rules.with_min_length(request.min_length)
        judge = catalog.judge(one, rules, board)
        game = judge.game()
        verdicts = [game.submit(text) for text in request.words]
        summary = None
        if request.finished:
            result = game.summary()
            listed = [[WordOut(word=w, shown=shown_word(one, w), points=p, path=judge.paths[w]) for w, p in words]
                      for words in (result.found, result.missed)]
            summary = SummaryOut(score=result.score, maximum=result.maximum, word_count=result.word_count,
                                 found=listed[0], missed=listed[1])
        return answer(RoundOut(lexicon=one.name, rules=rules_json(rules), board=board_json(board),
                               min_length=game.min_length, score=game.score,
                               verdicts=[verdict_json(v, one) for v in verdicts], summary=summary))

    return router
