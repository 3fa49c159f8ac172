"""Rooms over HTTP: make one, join one, see one, and read its finished rounds from the results database.
Playing happens over the room's WebSocket (routes_room_socket.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .models import JoinedOut, JoinRequest, KeptRoundOut, KeptRoundsOut, RoomOut, RoomRequest
from .rooms import NoSuchRoom, Rooms

MAX_ROUND = (1 << 63) - 1  # SQLite's largest integer: a round number past it is in no room


def room_routes(rooms: Rooms) -> APIRouter:
    router = APIRouter()

    @router.post("/rooms", response_model=JoinedOut,
                 summary="Make a room: its code, the link that joins it, and its creator's token")
    def make_room(request: RoomRequest) -> JSONResponse:
        return JSONResponse(rooms.create(request.name, request.lexicon, request.rules, request.dice, request.size,
                                         request.board, request.seconds, request.cancel, request.auto_start))

    @router.post("/rooms/{code}/players", response_model=JoinedOut,
                 summary="Join a room by its code with a name: the player's token")
    def join_room(code: str, request: JoinRequest) -> JSONResponse:
        return JSONResponse(rooms.join(code.upper(), request.name))

    @router.get("/rooms/{code}", response_model=RoomOut,
                summary="A room as anyone with its code sees it: who is in, their counts, the clock; the words at the end")
    def see_room(code: str) -> JSONResponse:
        return JSONResponse(rooms.view(code.upper()))

    @router.get("/rooms/{code}/rounds", response_model=KeptRoundsOut,
                summary="A room's finished rounds, from the results database (also once the room is closed)")
    def kept_rounds(code: str) -> JSONResponse:
        return JSONResponse({"room": code.upper(), "rounds": rooms.results.rounds(code.upper())})

    @router.get("/rooms/{code}/rounds/{number}", response_model=KeptRoundOut,
                summary="One finished round of a room, from the results database")
    def kept_round(code: str, number: int) -> JSONResponse:
        found = rooms.results.rounds(code.upper(), number) if 0 < number <= MAX_ROUND else []
        if not found:
            raise NoSuchRoom("no_such_round", room=code, round=number)
        return JSONResponse(found[0])

    return router
