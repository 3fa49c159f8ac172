"""A room's WebSocket, `/api/rooms/{code}/socket` (Starlette's, on uvicorn): how a player plays in a room.

The first message says whose connection it is (`hello`, with the player's token); then `word`, `start` and
`rematch` act for that player, and the server pushes `welcome`, `state`, `verdict`, `results` and `error`
(docs/server.md lists each kind's fields; a room's refusal that closes the connection is an `error` first, with
its code, as a close's reason is English only). A message that is not what this server reads (bad JSON, a binary
frame, a frame over the size limit, a wrong type, an unknown kind, a token not the connection's, more messages
than the rate allows) closes that connection, with a code and a reason, and no one else's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from ..solver.errors import DawgError
from .catalog import place, shown
from .live import Close, Link, message_text
from .models import Strict, Text
from .rooms import NoSuchRoom, NotAllowed, RoomError, Rooms, said

BINARY, MALFORMED, REFUSED, TOO_BIG, SERVER_ERROR = 1003, 1007, 1008, 1009, 1011  # RFC 6455's close codes
NOT_YOURS, NO_ROOM = 4003, 4004  # this server's: a token refused, a room that is not (or no longer) open
CLOSE_FOR = {NoSuchRoom: NO_ROOM, NotAllowed: NOT_YOURS}  # a refusal of the hello: its close code (else REFUSED)

log = logging.getLogger(__name__)


class Hello(Strict):
    kind: Literal["hello"]
    token: Text


class WordMessage(Strict):
    kind: Literal["word"]
    word: Text
    token: Text | None = None


class StartMessage(Strict):
    kind: Literal["start"]
    token: Text | None = None


class RematchMessage(Strict):
    kind: Literal["rematch"]
    token: Text | None = None


MESSAGES: dict[str, type[Strict]] = {"hello": Hello, "word": WordMessage, "start": StartMessage,
                                     "rematch": RematchMessage}
# what each message after the hello does, for the connection's player
ACTS: dict[str, Callable[[Rooms, str, int, Strict], None]] = {
    "word": lambda rooms, code, player, message: rooms.submit(code, player, message.word),
    "start": lambda rooms, code, player, message: rooms.start(code, player),
    "rematch": lambda rooms, code, player, message: rooms.rematch(code, player),
}


class Bucket:
    """The messages a connection may send: `burst` at once, refilled at `rate` a second by the server's clock."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = burst, clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + max(now - self.at, 0.0) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def error_message(about: str, err: DawgError) -> str:
    """A message refused, as its connection is told: the error's line, and a room's refusal's code and params."""
    return message_text({"kind": "error", "about": about, **said(err)})


def same_token(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass"))


async def send_all(websocket: WebSocket, link: Link) -> None:
    """Send the link's messages in order until a Close (sent) or a None (the client left)."""
    while True:
        item = await link.outbox.get()
        try:
            if item is None:
                return
            if isinstance(item, Close):
                await websocket.close(item.code, item.frame_reason())
                return
            await websocket.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):  # the client is gone
            return


def room_socket_routes(rooms: Rooms) -> APIRouter:
    router = APIRouter()
    limits = rooms.limits

    async def next_message(websocket: WebSocket, bucket: Bucket) -> Strict | None:
        """The connection's next message, read and checked; None once the client has left."""
        event = await websocket.receive()
        if event["type"] == "websocket.disconnect":
            return None
        text = event.get("text")
        if text is None:
            raise Close(BINARY, "binary message: a message is JSON text")
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limits.message_bytes:
            raise Close(TOO_BIG, f"message of {size} bytes, more than this server's limit of {limits.message_bytes}")
        if not bucket.take():
            raise Close(REFUSED, f"more than {limits.messages_per_second} messages a second (bursts of "
                                 f"{limits.message_burst}), this server's limit")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise Close(MALFORMED, f"malformed JSON: {err}") from None
        kind = data.get("kind") if isinstance(data, dict) else None
        if not isinstance(kind, str) or kind not in MESSAGES:
            named = f"kind {shown(kind)}" if isinstance(kind, str) else "a JSON object with a kind"
            raise Close(REFUSED, f"{named}: a message is one of {', '.join(MESSAGES)}")
        try:
            return MESSAGES[kind].model_validate(data)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(place(part) for part in first["loc"])
            raise Close(REFUSED, f"{kind} message: {where}: {first['msg']}") from None

    async def play(websocket: WebSocket, code: str, link: Link) -> None:
        """The connection's messages: the hello, then each act, until the client leaves or is refused."""
        bucket = Bucket(limits.messages_per_second, limits.message_burst, rooms.clock)
        player = None
        try:
            try:
                hello = await asyncio.wait_for(next_message(websocket, bucket), limits.hello_seconds)
            except TimeoutError:
                raise Close(REFUSED, f"no hello within {limits.hello_seconds} s") from None
            if hello is None:
                return link.push(None)
            if not isinstance(hello, Hello):
                raise Close(REFUSED, 'the first message says whose connection it is: {"kind": "hello", "token": ...}')
            try:
                player = await run_in_threadpool(rooms.player, code, hello.token)
                await run_in_threadpool(rooms.connect, code, player, link)
            except RoomError as err:  # said with its code first: the close's reason is English only
                link.push(error_message("hello", err))
                raise Close(CLOSE_FOR.get(type(err), REFUSED), str(err)) from None
            while (message := await next_message(websocket, bucket)) is not None:
                if isinstance(message, Hello):
                    raise Close(REFUSED, "hello: said already; a connection is one player's")
                if message.token is not None and not same_token(message.token, hello.token):
                    raise Close(NOT_YOURS, "token: not this connection's player (a connection acts for the player of "
                                           "its hello only)")
                try:
                    await run_in_threadpool(ACTS[message.kind], rooms, code, player, message)
                except DawgError as err:  # not now, not yours: this act is refused, the connection stays
                    link.push(error_message(message.kind, err))
                    if isinstance(err, NoSuchRoom):  # no room: the connection closes too
                        raise Close(NO_ROOM, str(err)) from None
            link.push(None)
        except Close as close:
            link.push(close)
        except Exception:  # a bug: logged with its traceback, this connection closed, the others untouched
            log.exception("room %s: connection of player %s", code, player)
            link.push(Close(SERVER_ERROR, "internal error (the server's log has the details)"))
        finally:
            if player is not None:
                rooms.disconnect(code, link)

    @router.websocket("/rooms/{code}/socket")
    async def room_socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        link = Link(asyncio.get_running_loop(), limits.queued)
        sending = asyncio.create_task(send_all(websocket, link))
        reading = asyncio.create_task(play(websocket, code.upper(), link))
        try:
            await asyncio.wait({sending, reading}, return_when=asyncio.FIRST_COMPLETED)
            if reading.done():
                await sending  # it ends with what reading queued last: a Close, or None
        finally:
            for task in (reading, sending):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return router
