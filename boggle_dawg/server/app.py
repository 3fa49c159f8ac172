"""The warm server's ASGI application: a JSON API over opened lexicons, and the browser game at `/`.

`create_app(served, limits, allow_origins)` builds it (FastAPI, which also writes the
OpenAPI schema at /openapi.json from the request and response models below). Every
endpoint is a plain function, which FastAPI runs on its thread pool: a slow board never
stalls the event loop, and the compiled walks release the GIL, so boards are solved in
parallel. Errors are JSON, `{"error": "..."}`: 400 for bad values (a bad board, an
unknown lexicon or dice set, a limit passed, a lone surrogate in a text), 413 for a body
over the limit, 422 for a request of the wrong shape (a missing field, a wrong type), 503
for a request the server gave up on as it stopped; never a 500 for anything a client sends
(a bug's 500 is JSON too). No request names a file: lexicons and dice sets by their served
names.

Every language: a board is read by the lexicon it is scored with (its charset, tiles and
one-letter folds: Я, Ñ, Ł), dice are rolled with that lexicon's charset, typed words are
judged through its language's folds, and cells come back as the language writes them.
"""

from __future__ import annotations

import asyncio
from itertools import islice
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException

from ..solver import __version__
from ..solver.board import Board, blank_foreign, parse_size
from ..solver.board import BoardError as BatchBoardError
from ..solver.dice_sets import DiceSet, random_seed, roll
from ..solver.errors import DawgError
from ..solver.game import Round
from ..solver.rules import Rules, builtin_rules_names, load_rules
from .served import Limits, Served

STATIC = Path(__file__).with_name("static")
SHOWN = 40  # characters of a client's value repeated in an error


def shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN - 3] + "...")


def place(part: str | int) -> str:
    """A step of an error's location: a field's name or an item's index as it is; a key of the client's own (an
    unknown field: any text, newlines and all) shown as its other values are."""
    return str(part) if isinstance(part, int) or (part.isidentifier() and len(part) <= SHOWN) else shown(part)


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


def answer(model: BaseModel) -> Response:
    """A model as JSON, serialised once by pydantic: a model returned as it is would be checked again."""
    return Response(model.model_dump_json(), media_type="application/json")


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status)


# --- request and response models (the OpenAPI schema) ------------------------------------


class Strict(BaseModel):
    """A request: fields of exactly their types (no "5" for 5), and no field the schema lacks (a typo)."""

    model_config = ConfigDict(strict=True, extra="forbid")


LONE_SURROGATE = "lone_surrogate"  # the validation error of a text that is not Unicode
NOT_UNICODE = {LONE_SURROGATE, "string_unicode"}  # and pydantic's, of a field's name that is not: 400s, as bad JSON


def unicode_text(text: str) -> str:
    """A JSON string may hold a lone surrogate ("\\ud800"), which is no character: refused here, naming its
    field, as no answer holding it could be written in UTF-8 (nor judged, nor looked up)."""
    try:
        text.encode()
    except UnicodeEncodeError as err:
        raise PydanticCustomError(LONE_SURROGATE, "lone surrogate U+{code} at character {at}: not Unicode text",
                                  {"code": f"{ord(text[err.start]):04X}", "at": err.start}) from None
    return text


Text = Annotated[str, AfterValidator(unicode_text)]  # every text of a request body (a query's cannot hold one)
LexiconName = Annotated[Text | None, Field(description="A served lexicon's name (GET /api/lexicons); "
                                                       "default: the first served.")]
SizeText = Annotated[Text | None, Field(description="Board size RxC, where the notation does not give it "
                                                    "(rows split by '/', or a square).")]
BoardText = Annotated[Text, Field(description="Board notation, read with the lexicon's letters (any alphabet): "
                                             "cells row by row, a tile's letter its die ('q' Qu in English), "
                                             "'(th)' a two-letter face, '.' a blank; rows may be split by '/'.",
                                 examples=["qaiu/test/abcd/efgh"])]


RulesName = Annotated[Text | None, Field(description="The rules of play: a served rule set's name (GET /api/lexicons: "
                                                    "standard, big, words); default: the lexicon's.")]


class SolveRequest(Strict):
    board: BoardText
    size: SizeText = None
    lexicon: LexiconName = None
    rules: RulesName = None
    skip_foreign: bool = Field(False, description="Score letters outside the lexicon's charset as blanks "
                                                  "instead of refusing the board.")


class ScoreRequest(Strict):
    boards: list[Text] = Field(description="Boards in notation; sizes may be mixed.")
    size: SizeText = None
    lexicon: LexiconName = None
    rules: RulesName = None
    skip_foreign: bool = False


class RoundRequest(Strict):
    board: BoardText
    size: SizeText = None
    lexicon: LexiconName = None
    rules: RulesName = None
    words: list[Text] = Field(description="The player's words so far, in the order typed.")
    min_length: int | None = Field(None, ge=1, le=128, description="Shortest word that counts, the rules' card "
                                                                   "unchanged [default: the rules' own].")
    finished: bool = Field(False, description="The round is over: also sum it up (missed words, maximum, paths).")


class RulesOut(BaseModel):
    name: str
    title: str = Field(description="As a person reads it: Boggle, Big Boggle, Word count.")
    min_length: int = Field(description="The shortest word that counts.")
    points: list[list[int]] = Field(description="[length, points] where the points change; longer words score as the "
                                                "last length at or below theirs.")
    tiles_count: str = Field(description="letters: a tile such as Qu counts its letters; one: one letter.")


class BoardOut(BaseModel):
    board: str = Field(description="Canonical notation.")
    size: str
    rows: int
    cols: int
    cells: list[str] = Field(description="Each cell's face as the die shows it, row by row ('Qu', 'A', 'Я', 'ß', '.').")
    faces: list[str] = Field(description="Each cell's letters as words spell them, row by row ('qu', 'a', '' blank).")


class WordOut(BaseModel):
    word: str
    points: int
    path: list[int] = Field(description="The cells of one path spelling it: 0-based, row by row.")


class SolveOut(BaseModel):
    lexicon: str
    rules: RulesOut
    board: BoardOut
    score: int
    word_count: int
    words: list[WordOut] = Field(description="Longest first, then alphabetical.")


class ScoreOut(BaseModel):
    lexicon: str
    rules: RulesOut
    scores: list[int] = Field(description="One score per board, in order.")


class LookupOut(BaseModel):
    word: str
    found: bool
    number: int | None = Field(description="Its number in the lexicon's numbering (dawgc words --numbers).")
    prefixes: list[str] = Field(description="The words that are prefixes of it (itself included), shortest first.")


class LookupsOut(BaseModel):
    lexicon: str
    words: list[LookupOut]


class WordsOut(BaseModel):
    lexicon: str
    prefix: str
    words: list[str] = Field(description="Alphabetical.")
    more: bool = Field(description="More words start with the prefix than `limit`.")


class RollOut(BaseModel):
    lexicon: str = Field(description="The lexicon whose letters read the dice: score the boards with it.")
    dice: str
    seed: int
    boards: list[BoardOut]


class VerdictOut(BaseModel):
    word: str = Field(description="As judged: in the language's game form (lower case, its folds applied: "
                                  "German Straße is strasse), spaces trimmed.")
    verdict: str = Field(description="accepted, repeated, too_short, not_letters, not_on_board or not_in_dictionary.")
    text: str = Field(description="The verdict as a player reads it.")
    points: int


class SummaryOut(BaseModel):
    score: int
    maximum: int
    word_count: int
    found: list[WordOut] = Field(description="The player's scoring words, in the order found.")
    missed: list[WordOut] = Field(description="Best first: most points, then alphabetical.")


class RoundOut(BaseModel):
    lexicon: str
    rules: RulesOut
    board: BoardOut
    min_length: int
    score: int
    verdicts: list[VerdictOut]
    summary: SummaryOut | None = Field(description="With `finished` only.")


class LanguageOut(BaseModel):
    name: str = Field(description="Short name: en, de, ru, ...")
    title: str = Field(description="As a person reads it: English, Deutsch, Русский.")


class DiceOut(BaseModel):
    name: str = Field(description="A built-in set's name, or a `serve --dice` file's (its folder's for Tanglet's "
                                  "`dice`, else its stem).")
    description: str
    size: str = Field(description="The board it fills; a file may hold a set for each of several sizes.")
    dice: int


class LexiconOut(BaseModel):
    name: str
    format: str
    charset: str
    words: int
    max_length: int
    min_length: int | None = Field(description="Shortest word its build kept (None without a manifest).")
    rules: str = Field(description="The rule set it scores under unless a request names another.")
    language: LanguageOut
    dice: list[DiceOut] = Field(description="The served dice sets whose every face is in its charset.")
    default_dice: str | None = Field(description="The set a roll without `dice` uses (None: no set fits).")


class LexiconsOut(BaseModel):
    version: str
    default: str
    lexicons: list[LexiconOut]
    rules: list[RulesOut] = Field(description="The rule sets a request may name.")
    limits: dict[str, int]


class ErrorOut(BaseModel):
    error: str


# --- the application ------------------------------------------------------------------------


def rules_json(rules: Rules) -> RulesOut:
    return RulesOut(title=rules.title, **rules.as_dict())


def board_json(board: Board) -> BoardOut:
    return BoardOut(board=board.notation, size=str(board.shape), rows=board.shape.rows, cols=board.shape.cols,
                    cells=[board.cell_text(c) for c in range(board.shape.cells)], faces=list(board.faces))


def create_app(served: dict[str, Served], limits: Limits = Limits(), allow_origins: tuple[str, ...] = ()) -> FastAPI:
    """The application over already opened (and warmed) lexicons; the first is the default."""
    if not served:
        raise DawgError("no lexicon to serve")
    default = next(iter(served))
    dice_names = list(dict.fromkeys(d.name for one in served.values() for d in one.dice))
    app = FastAPI(title="boggle-dawg", version=__version__, docs_url=None, redoc_url=None,
                  description="Boggle boards solved and scored, words looked up, dice rolled, from warm lexicons.")
    api = APIRouter(prefix="/api", responses={400: {"model": ErrorOut}, 413: {"model": ErrorOut},
                                              422: {"model": ErrorOut}})

    def lexicon_of(name: str | None) -> Served:
        if name is None:
            return served[default]
        if name not in served:
            raise DawgError(f"lexicon {shown(name)}: not served here (served: {', '.join(served)})")
        return served[name]

    def rules_of(name: str | None, one: Served) -> Rules:
        if name is None:
            return one.lexicon.rules
        if name not in builtin_rules_names():
            raise DawgError(f"rules {shown(name)}: not served here (served: {', '.join(builtin_rules_names())})")
        return load_rules(name)

    def board_of(text: str, size: str | None, one: Served) -> Board:
        board = one.lexicon.board(text, parse_size(size) if size else None)
        if board.shape.cells > limits.cells:
            raise DawgError(f"board {shown(board.notation)}: {board.shape.cells} cells, more than this server's "
                            f"limit of {limits.cells}")
        return board

    def at_most(what: str, count: int, limit: int) -> None:
        if count > limit:
            raise DawgError(f"{what}: {count}, more than this server's limit of {limit}")

    @api.get("/lexicons", response_model=LexiconsOut,
              summary="The served lexicons, each with its language and the dice sets that fit it, and the limits")
    def lexicons() -> Response:
        return answer(LexiconsOut(version=__version__, default=default, lexicons=[s.describe() for s in served.values()],
                                  rules=[rules_json(load_rules(name)) for name in builtin_rules_names()],
                                  limits=vars(limits)))

    @api.post("/solve", response_model=SolveOut,
              summary="One board: its score and every word with a path")
    def solve(request: SolveRequest) -> Response:
        one = lexicon_of(request.lexicon)
        rules = rules_of(request.rules, one)
        board = board_of(request.board, request.size, one)
        found = one.words(board, skip_foreign=request.skip_foreign, rules=rules)
        if request.skip_foreign:
            board = blank_foreign(board, one.lexicon.charset)
        return answer(SolveOut(lexicon=one.name, rules=rules_json(rules), board=board_json(board),
                               score=sum(f.points for f in found),
                               word_count=len(found),
                               words=[WordOut(word=f.word, points=f.points, path=list(f.path)) for f in found]))

    @api.post("/score", response_model=ScoreOut,
              summary="A batch of boards scored by the compiled kernels")
    def score(request: ScoreRequest) -> Response:
        one = lexicon_of(request.lexicon)
        rules = rules_of(request.rules, one)
        at_most("boards", len(request.boards), limits.batch)
        shape = parse_size(request.size) if request.size else None
        for index, text in enumerate(request.boards):
            if len(text) > limits.cells:  # a board has at most one cell per character: parse only these
                try:
                    board_of(text, request.size, one)
                except DawgError as err:
                    raise DawgError(f"boards[{index}]: {err}") from None
        try:
            scores = one.lexicon.score_many(request.boards, skip_foreign=request.skip_foreign, shape=shape,
                                            scorer=one.scorer_for(rules))
        except BatchBoardError as err:
            raise DawgError(f"boards[{err.index}]: {err}") from None
        return answer(ScoreOut(lexicon=one.name, rules=rules_json(rules), scores=scores.tolist()))

    @api.get("/lookup", response_model=LookupsOut,
              summary="Whether words are in a lexicon, and their prefixes that are words")
    def lookup(word: Annotated[list[str], Query(description="A word; repeat for more.")],
               lexicon: Annotated[str | None, Query(description="A served lexicon's name.")] = None) -> Response:
        one = lexicon_of(lexicon)
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

    @api.get("/words", response_model=WordsOut,
              summary="The words that start with a prefix, alphabetically")
    def words(prefix: Annotated[str, Query(description="Letters the words start with ('' for all).")] = "",
              limit: Annotated[int | None, Query(ge=1, description="Most words to list [default: the server's "
                                                            "limit].")] = None,
              lexicon: Annotated[str | None, Query(description="A served lexicon's name.")] = None) -> Response:
        one = lexicon_of(lexicon)
        limit = limits.words if limit is None else limit
        at_most("limit", limit, limits.words)
        listed = list(islice(one.lexicon.keys(prefix), limit + 1))
        return answer(WordsOut(lexicon=one.name, prefix=prefix, words=listed[:limit], more=len(listed) > limit))

    def dice_of(one: Served, name: str | None, shape) -> DiceSet:
        """The served set `name` (default: the lexicon's for the size) as `one` reads it, of the size asked."""
        if name is None:
            chosen = one.default_dice(shape)
            if chosen is None:
                raise DawgError(f"lexicon {one.name}: no served dice set fits it{f' and fills {shape}' if shape else ''}")
            return chosen
        if name not in dice_names:
            raise DawgError(f"dice {shown(name)}: not served here (served: {', '.join(dice_names)})")
        sets = [d for d in one.dice if d.name == name]
        if not sets:
            raise DawgError(f"dice {name}: its faces use letters outside lexicon {one.name}'s charset "
                            f"(GET /api/lexicons lists the sets that fit each lexicon)")
        filling = [d for d in sets if shape is None or len(d.dice) == shape.cells]
        return (filling or sets)[0]

    @api.get("/roll", response_model=RollOut,
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
        one = lexicon_of(lexicon)
        at_most("count", count, limits.batch)
        shape = parse_size(size) if size else None
        chosen_dice = dice_of(one, dice, shape)
        if len(chosen_dice.dice) > limits.cells:  # the dice fill the board: one cell each
            raise DawgError(f"dice {chosen_dice.name}: {len(chosen_dice.dice)} cells, more than this server's limit "
                            f"of {limits.cells}")
        chosen = random_seed() if seed is None else seed
        boards = [board_json(b) for b in roll(chosen_dice, shape, chosen, count)]
        return answer(RollOut(lexicon=one.name, dice=chosen_dice.name, seed=chosen, boards=boards))

    @api.post("/round", response_model=RoundOut,
              summary="Judge a player's words on a board (the game); finished: sum the round up")
    def play_round(request: RoundRequest) -> Response:
        one = lexicon_of(request.lexicon)
        board = board_of(request.board, request.size, one)
        at_most("words", len(request.words), limits.batch)
        rules = rules_of(request.rules, one)
        rules = rules if request.min_length is None else rules.with_min_length(request.min_length)
        answers = one.words(board, rules=rules)
        game = Round(board, answers, rules, one.lexicon.language)
        verdicts = [game.submit(text) for text in request.words]
        summary = None
        if request.finished:
            paths = {f.word: list(f.path) for f in answers}
            result = game.summary()
            summary = SummaryOut(score=result.score, maximum=result.maximum, word_count=result.word_count,
                                 found=[WordOut(word=w, points=p, path=paths[w]) for w, p in result.found],
                                 missed=[WordOut(word=w, points=p, path=paths[w]) for w, p in result.missed])
        judged = [VerdictOut(word=v.word, verdict=v.outcome.name.lower(), text=v.outcome.value, points=v.points)
                  for v in verdicts]
        return answer(RoundOut(lexicon=one.name, rules=rules_json(rules), board=board_json(board),
                               min_length=game.min_length, score=game.score,
                               verdicts=judged, summary=summary))

    app.include_router(api)

    @app.get("/", include_in_schema=False)
    def game_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(DawgError)
    async def bad_value(_request: Request, err: DawgError) -> JSONResponse:
        return error_response(400, str(err))

    @app.exception_handler(RequestValidationError)
    async def bad_shape(_request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0]
        if first["type"] == "json_invalid":
            at = f" at character {first['loc'][1]}" if len(first["loc"]) > 1 else ""
            return error_response(400, f"malformed JSON{at}: {first.get('ctx', {}).get('error', first['msg'])}")
        where = ".".join(place(part) for part in first["loc"][1:]) or first["loc"][0]
        return error_response(400 if first["type"] in NOT_UNICODE else 422, f"{where}: {first['msg']}")

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, err: HTTPException) -> JSONResponse:
        return error_response(err.status_code, str(err.detail))

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
