"""The API's request and response models (FastAPI writes the OpenAPI schema at /openapi.json from them),
and the helpers that write answers: a model serialised once, an error as `{"error": "one line"}` (with a code
and its params where a page says it in its player's language: ERRORS).

The rooms' and the daily board's answers are the plain data the room service keeps and pushes over
WebSockets; their models here describe them for the schema (the tests check answers against them).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi.responses import JSONResponse, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from ..solver.board import Board
from ..solver.rules import Rules


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
    word: str = Field(description="In the language's game form (lower case, its folds applied: German strasse).")
    shown: str = Field(description="As a page shows it: as the lexicon's list wrote it (German Straße, gläsern), "
                                   "its spellings joined by ' / ' where it gave several; else the word.")
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
    shown: str = Field(description="As a page shows it: as the lexicon's list wrote it (German Straße).")
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
    dictionary: str | None = Field(description="Where a word is looked up: a URL template, %s the word as written "
                                               "(the language file's `dictionary`); null for none.")


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
    play_limits: dict[str, int] = Field(description="What rooms, their players and the daily board may hold.")


# Each refusal a player can meet in a room or on the daily board, by its code: its English line, the `error` of
# its answer, filled in from the code's `params` (`!r`: a client's value, quoted). A page says a code in its
# player's language from its own catalogue (static/i18n: `error.<code>`), the params filled in the same way.
ERRORS = {
    "no_such_room": "room {room!r}: no such room (a room closes after {minutes} minutes without activity, and when "
                    "the server restarts)",
    "no_such_round": "room {room!r} round {round}: no such finished round",
    "room_expired": "room {room} closed after {minutes} minutes without activity",
    "room_full": "room {room}: full ({players} players, this server's limit)",
    "server_full": "rooms: {rooms} open, this server's limit; try again later",
    "name_empty": "name: empty; a player needs a name",
    "name_too_long": "name: {length} characters, more than this server's limit of {most}",
    "name_not_printable": "name {name!r}: only printable characters (no control characters, tabs or line breaks)",
    "name_taken": "name {name!r}: taken in room {room}; choose another",
    "not_a_player": "token: not a player's of room {room} (join it for one)",
    "too_many_connections": "player {player}: {connections} connections open already, this server's limit a player",
    "creator_starts": "start: only the room's creator starts a round",
    "creator_rematches": "rematch: only the room's creator starts a rematch",
    "round_not_started": "word: the round has not started",
    "round_running": "start: the round is running already",
    "round_over": "start: the round is over; ask for a rematch",
    "round_not_over": "rematch: the round is not over yet",
    "board_and_dice": "board and dice: give one (a board is played every round; dice roll a new one)",
    "auto_start_over": "auto_start: {players} players, more than this server's limit of {most} a room",
    "daily_full": "daily board {day}: {results} results kept already, this server's limit",
    "daily_closed": "daily board {day}: closed (a day's board takes results until {minutes} minutes after its end, UTC)",
}


class ErrorOut(BaseModel):
    error: str = Field(description="What is wrong, in one line of English.")
    code: Literal[tuple(ERRORS)] | None = Field(None, description="A refusal of a room's or the daily board's: "
                                                                  "what it is, for a page to say in its player's "
                                                                  "language (absent for other errors).")
    params: dict[str, str | int] | None = Field(None, description="With `code`: the values its line names "
                                                                  "(a room's code, a name, a limit).")


# --- the application ------------------------------------------------------------------------


# --- rooms and the daily board ---------------------------------------------------------------


PlayerName = Annotated[Text, Field(description="A player's name: printable, trimmed, not empty, kept and returned "
                                               "as given (a page escapes it).")]


class RoomRequest(Strict):
    name: PlayerName
    lexicon: LexiconName = None
    rules: RulesName = None
    dice: Text | None = Field(None, description="A served dice set that fits the lexicon, rolled anew every round "
                                                "[default: the lexicon's for the size].")
    size: SizeText = None
    board: BoardText | None = Field(None, description="A board to play every round instead of rolling dice.")
    seconds: int = Field(180, ge=10, le=3600, description="A round's time.")
    cancel: bool = Field(True, description="Boggle's rule: a word found by two players or more scores for none.")
    auto_start: int | None = Field(None, ge=1, description="Start the round by itself once this many players are in "
                                                           "[default: the creator starts it].")


class JoinRequest(Strict):
    name: PlayerName


class RoomSettingsOut(BaseModel):
    lexicon: str
    rules: str
    dice: str | None = Field(description="None: the room plays a board given at its making, every round.")
    size: str
    seconds: int
    cancel: bool
    auto_start: int | None


class RoomPlayerOut(BaseModel):
    id: int
    name: str
    creator: bool
    connected: bool = Field(description="A connection of theirs is open.")
    words: int = Field(description="How many words they have found this round (which, only at the end).")
    score: int = Field(description="Their points this round, before the cancel rule.")


class ResultWordOut(BaseModel):
    word: str = Field(description="In the language's game form: the word judged.")
    shown: str = Field(description="As a page shows it.")
    points: int
    cancelled: bool = Field(description="Found by another player too, with the cancel rule on: no points.")
    path: list[int]


class MissedWordOut(BaseModel):
    word: str
    shown: str
    points: int
    path: list[int]


class ResultPlayerOut(BaseModel):
    id: int
    name: str
    words: list[ResultWordOut] = Field(description="In the order found.")
    score: int = Field(description="After the cancel rule.")


class ResultsOut(BaseModel):
    round: int
    cancel: bool
    players: list[ResultPlayerOut] = Field(description="In the order they joined.")
    cancelled: list[str] = Field(description="Words found by two players or more, alphabetical (none with the rule "
                                             "off).")
    missed: list[MissedWordOut] = Field(description="The words nobody found, best first.")
    maximum: int
    word_count: int


class RoomOut(BaseModel):
    code: str
    link: str = Field(description="The page's path that joins the room.")
    phase: str = Field(description="waiting, playing or finished.")
    round: int = Field(description="The round's number in the room, from 1.")
    started: float | None = Field(description="When the round started, in seconds since 1970 (UTC), by the "
                                              "server's clock.")
    ends: float | None = Field(description="When it ends (a word after it is refused).")
    now: float = Field(description="The server's clock as it answered: a page counts down by it.")
    settings: RoomSettingsOut
    board: BoardOut | None = Field(description="Once the round has started.")
    players: list[RoomPlayerOut]
    results: ResultsOut | None = Field(None, description="Once the round is over.")


class PlayerTokenOut(BaseModel):
    id: int
    name: str
    token: str = Field(description="The player's secret: the only way to act for them (kept by their page).")


class JoinedOut(BaseModel):
    code: str
    link: str
    player: PlayerTokenOut
    room: RoomOut


class KeptWordOut(BaseModel):
    word: str
    points: int
    cancelled: bool


class KeptPlayerOut(BaseModel):
    name: str
    score: int
    words: list[KeptWordOut]


class KeptRoundOut(BaseModel):
    room: str
    number: int
    lexicon: str
    rules: str
    dice: str | None
    seed: int | None
    board: str
    size: str
    seconds: int
    cancel: bool
    started: float
    ended: float
    maximum: int
    word_count: int
    players: list[KeptPlayerOut]
    cancelled: list[str]


class KeptRoundsOut(BaseModel):
    room: str
    rounds: list[KeptRoundOut]


class DailyOut(BaseModel):
    date: str = Field(description="The day (UTC), YYYY-MM-DD.")
    lexicon: str
    rules: RulesOut
    dice: str
    seed: int
    board: BoardOut
    results: int = Field(description="How many results are kept for it.")


DAILY_LATE_SECONDS = 3600  # a day's board takes results this long after its end (UTC): a round begun before midnight


class DailyRequest(Strict):
    name: PlayerName
    lexicon: LexiconName = None
    rules: RulesName = None
    words: list[Text] = Field(description="The player's words, in the order found.")
    date: Text | None = Field(None, description="The day of the board played, YYYY-MM-DD (UTC), as GET /api/daily "
                                                "gave it [default: today]. A day's board takes results until "
                                                f"{DAILY_LATE_SECONDS // 60} minutes after its end, for a round "
                                                "that ran past midnight.")


class DailyResultOut(BaseModel):
    date: str
    lexicon: str
    score: int
    verdicts: list[VerdictOut]
    results: int = Field(description="How many results are kept for the board, this one included.")


class DailyWordOut(BaseModel):
    word: str
    shown: str
    points: int


class DailyEntryOut(BaseModel):
    name: str
    score: int
    submitted: float
    words: list[DailyWordOut]


class DailyResultsOut(BaseModel):
    daily: DailyOut
    results: list[DailyEntryOut] = Field(description="Best first: most points, then the earliest.")


def rules_json(rules: Rules) -> RulesOut:
    return RulesOut(title=rules.title, **rules.as_dict())


def board_json(board: Board) -> BoardOut:
    return BoardOut(board=board.notation, size=str(board.shape), rows=board.shape.rows, cols=board.shape.cols,
                    cells=[board.cell_text(c) for c in range(board.shape.cells)], faces=list(board.faces))

