"""The daily board over HTTP: today's board for a lexicon and rules, a player's result submitted and judged,
and a day's results."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ..solver.rules import Rules
from .catalog import at_most
from .daily import Daily
from .models import DailyOut, DailyRequest, DailyResultOut, DailyResultsOut, board_json, rules_json
from .routes_round import verdict_json

LISTED = 100  # results listed by default
Lexicon = Annotated[str | None, Query(description="A served lexicon's name.")]
RulesName = Annotated[str | None, Query(description="A served rule set's name [default: the lexicon's].")]
Day = Annotated[str | None, Query(description="YYYY-MM-DD, UTC [default: today].")]


def daily_routes(daily: Daily) -> APIRouter:
    router = APIRouter()
    catalog = daily.catalog

    def described(board: dict, rules: Rules) -> dict:
        one = catalog.lexicon(board["lexicon"])
        count = 0 if board.get("id") is None else daily.results.daily_count(board["id"])
        return {"date": board["day"], "lexicon": board["lexicon"], "rules": rules_json(rules).model_dump(),
                "dice": board["dice"], "seed": board["seed"],
                "board": board_json(catalog.board(board["board"], board["size"], one)).model_dump(), "results": count}

    @router.get("/daily", response_model=DailyOut,
                summary="The daily board of a lexicon and rules: the same for everyone on a day (UTC)")
    def daily_board(lexicon: Lexicon = None, rules: RulesName = None, date: Day = None) -> JSONResponse:
        board = daily.board(lexicon, rules, date)
        return JSONResponse(described(board, catalog.rules(rules, catalog.lexicon(lexicon))))

    @router.post("/daily", response_model=DailyResultOut,
                 summary="Submit a player's words on a day's daily board: judged by the server, the result kept")
    def submit_daily(request: DailyRequest) -> JSONResponse:
        board, verdicts, count = daily.submit(request.lexicon, request.rules, request.name, request.words,
                                              request.date)
        one = catalog.lexicon(board["lexicon"])
        return JSONResponse({"date": board["day"], "lexicon": board["lexicon"],
                             "score": sum(v.points for v in verdicts),
                             "verdicts": [verdict_json(v, one).model_dump() for v in verdicts], "results": count})

    @router.get("/daily/results", response_model=DailyResultsOut, summary="A daily board's results, best first")
    def daily_results(lexicon: Lexicon = None, rules: RulesName = None, date: Day = None,
                      limit: Annotated[int, Query(ge=1, description="Most results to list.")] = LISTED) -> JSONResponse:
        at_most("limit", limit, catalog.limits.words)
        board, results = daily.standings(lexicon, rules, date, limit)
        return JSONResponse({"daily": described(board, catalog.rules(rules, catalog.lexicon(lexicon))),
                             "results": results})

    return router
