"""The warm server's ASGI application: the JSON API over opened lexicons, rooms, the daily board, and the browser
game at `/`.

`create_app(served, limits, allow_origins, ...)` assembles it (FastAPI, which also writes the OpenAPI schema at
/openapi.json from the models of models.py) from routers by concern: the lexicon API (routes_lexicons.py), the
single player's judge (routes_round.py), rooms over HTTP (routes_rooms.py) and their WebSocket
(routes_room_socket.py), and the daily board (routes_daily.py). Errors are JSON, `{"error": "..."}` (a room's
refusal with its `code` and `params` too, for the page to say in its player's language): 400 for bad
values (a bad board, an unknown lexicon or dice set, a limit passed, a lone surrogate in a text), 403 for a token
or act that is not the player's, 404 for a room that is not open, 409 for an act out of its time, 413 for a body
over the limit, 422 for a request of the wrong shape (a missing field, a wrong type), 503 for a request the server
gave up on as it stopped or the room limit; never a 500 for anything a client sends (a bug's 500 is JSON too). No
request names a file: lexicons and dice sets by their served names.

Every language: a board is read by the lexicon it is scored with (its charset, tiles and one-letter folds: Я, Ñ,
Ł), dice are rolled with that lexicon's charset, typed words are judged through its language's folds, and cells
come back as the language writes them.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from ..solver import __version__
from ..solver.errors import DawgError
from .catalog import Catalog, place
from .daily import Daily
from .models import NOT_UNICODE, ErrorOut, error_response
from .results import Results, open_results
from .rooms import Rooms, RoomStore, said
from .routes_daily import daily_routes
from .routes_lexicons import lexicon_routes
from .routes_room_socket import room_socket_routes
from .routes_rooms import room_routes
from .routes_round import round_routes
from .served import Limits, PlayLimits, Served

STATIC = Path(__file__).with_name("static")
ERRORS = {status: {"model": ErrorOut} for status in (400, 403, 404, 409, 413, 422, 503)}


class BodyTooLarge(HTTPException):
    """A body past the limit, found while reading it."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over this server's limit of {limit} bytes")


class BodyLimit:
    """ASGI middleware: refuse a body over `limit` bytes with 413, by its Content-Length before
    reading any of it, or (a chunked body) as soon as the bytes read pass the limit."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            error = BodyTooLarge(self.limit) if length.isdigit() else HTTPException(400, "bad Content-Length")
            return await error_response(error.status_code, error.detail)(scope, receive, send)
        received = 0

        async def limited():
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise BodyTooLarge(self.limit)  # FastAPI hands an HTTPException raised reading a body to its handler
            return message

        await self.app(scope, limited, send)


class AnswerWhenStopped:
    """ASGI middleware: a request the server gives up on as it stops (its task cancelled: the graceful
    shutdown's time ran out, or a second Ctrl-C came) is answered 503 with the JSON error, unless its answer
    has begun, and ends there. Let through, the cancellation would be logged with its traceback and
    answered by uvicorn with a plain-text 500."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def sending(message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:  # the request's own task, which ends here either way
            if not started:
                await error_response(503, "the server is stopping; ask again once it is back")(scope, receive, send)




def unreadable_body(cause: BaseException | None) -> str | None:
    """What is wrong with a JSON body that FastAPI could not parse for a reason other than its syntax (it answers
    those with a line that names nothing)."""
    if isinstance(cause, UnicodeDecodeError):
        return f"body: not UTF-8 (byte {cause.start})"
    if isinstance(cause, RecursionError):
        return "malformed JSON: nested too deeply"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return f"malformed JSON: a number of more than {sys.get_int_max_str_digits():,} digits"
    return None


def create_app(served: dict[str, Served], limits: Limits = Limits(), allow_origins: tuple[str, ...] = (),
               play_limits: PlayLimits = PlayLimits(), results: Results | None = None,
               clock: Callable[[], float] = time.time, store: RoomStore | None = None) -> FastAPI:
    """The application over already opened (and warmed) lexicons, the first the default. `results` keeps the
    finished rounds and daily results (default: a database in memory, for this application's life); `clock`
    is the rooms' and the daily board's (seconds since 1970); `store` holds the rooms' states (default: this
    process's memory). The room service is `app.state.rooms`."""
    catalog = Catalog(served, limits, play_limits.rooms)
    results = open_results(None) if results is None else results
    rooms = Rooms(catalog, results, play_limits, clock, store)
    app = FastAPI(title="boggle-dawg", version=__version__, docs_url=None, redoc_url=None,
                  description="Boggle boards solved and scored, words looked up, dice rolled, from warm lexicons; "
                              "rooms of players on one board; a daily board.")
    app.state.rooms = rooms
    for router in (lexicon_routes(catalog, play_limits), round_routes(catalog), room_routes(rooms),
                   room_socket_routes(rooms), daily_routes(Daily(catalog, results, play_limits, clock))):
        app.include_router(router, prefix="/api", responses=ERRORS)

    @app.get("/", include_in_schema=False)
    def game_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(DawgError)
    async def bad_value(_request: Request, err: DawgError) -> JSONResponse:
        return JSONResponse(said(err), getattr(err, "status", 400))

    @app.exception_handler(RequestValidationError)
    async def bad_shape(_request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0]
        if first["type"] == "json_invalid":
            at = f" at character {first['loc'][1]}" if len(first["loc"]) > 1 else ""
            return error_response(400, f"malformed JSON{at}: {first.get('ctx', {}).get('error', first['msg'])}")
        if first["loc"] == ("body",) and isinstance(first.get("input"), bytes):  # a body FastAPI did not read as JSON
            return error_response(422, "body: not JSON; send a JSON object with Content-Type: application/json")
        where = ".".join(place(part) for part in first["loc"][1:]) or first["loc"][0]
        return error_response(400 if first["type"] in NOT_UNICODE else 422, f"{where}: {first['msg']}")

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, err: HTTPException) -> JSONResponse:
        return error_response(err.status_code, unreadable_body(err.__cause__) or str(err.detail))

    @app.exception_handler(Exception)
    async def server_error(_request: Request, _err: Exception) -> JSONResponse:
        return error_response(500, "internal error (the server's log has the details)")  # a bug, JSON all the same

    app.add_middleware(BodyLimit, limit=limits.body_bytes)
    app.add_middleware(AnswerWhenStopped)
    if allow_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(allow_origins), allow_methods=["GET", "POST"],
                           allow_headers=["content-type"])
    return app
