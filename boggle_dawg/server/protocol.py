"""The server's connections: uvicorn's HTTP/1.1 protocol (h11) with the deadlines it lacks, and the API's
JSON errors where uvicorn would answer in plain text.

uvicorn closes a connection left idle between two requests (`timeout_keep_alive`), but sets no deadline
on receiving a request (its issue 157): a client that connects and sends nothing, or dribbles its headers
or its body a byte at a time, holds the connection, and the endpoint's task waiting for the body, for as
long as it likes. `GuardedProtocol` gives each request `Timeouts.headers` seconds for its headers (from the
connection's start, or from the request's first byte on a kept-alive connection) and `Timeouts.body`
seconds for its body once the headers are in; the server's own time answering does not count. Late
headers are answered 408; a connection that sent nothing is closed; a late body, which an endpoint is
already waiting for, ends the connection (the endpoint sees the client gone).

uvicorn passes this class (`uvicorn.Config(http=...)`) the bytes of each connection; h11 still parses them.
Imported only by `dawg-solve serve`, as uvicorn is.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .served import Timeouts


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on whatever the client owes: a request's headers, or its body."""

    def __init__(self, *args, timeouts: Timeouts, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.timeouts = timeouts
        self.owed: str | None = None  # "headers", "body" (Timeouts' fields), or None: the client owes nothing
        self.deadline: asyncio.TimerHandle | None = None
        self.upgraded = False  # the connection is a WebSocket now

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._owe("headers")

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.upgraded:
            return
        state = self.conn.their_state
        self._owe("headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """The connection becomes a WebSocket (a room's), which owes no request: its deadlines end here (the body's
        would otherwise close it 30 s on, as h11 still waits for the upgrade request's body). The WebSocket is pinged
        by its own protocol, and the room bounds its messages."""
        self.upgraded = True
        self._owe(None)
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._owe(None)
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """A stopping server answers the requests it holds, not those still arriving: close these at once
        (an endpoint waiting for a body sees the client gone) rather than wait the graceful shutdown out."""
        if self.owed is None:
            super().shutdown()
        else:
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """What h11 cannot parse (uvicorn's `msg` says no more than that): the API's JSON error."""
        self._answer(400, "malformed HTTP request (or its headers over 16 KiB)")

    def _owe(self, owed: str | None) -> None:
        """Start the deadline for what the client owes now, unless it owed that already: the deadline is
        for all of the headers or all of the body, not for each piece of them."""
        if owed == self.owed:
            return
        if self.deadline is not None:
            self.deadline.cancel()
        self.owed = owed
        self.deadline = None if owed is None else self.loop.call_later(getattr(self.timeouts, owed), self._late)

    def _late(self) -> None:
        owed = self.owed
        self.owed = self.deadline = None
        if owed == "headers" and self.conn.our_state is h11.IDLE and self.conn.trailing_data[0]:
            self._answer(408, f"request headers not received within {self.timeouts.headers:g} s")
        else:
            self.transport.close()

    def _answer(self, status: int, message: str) -> None:
        """Answer `status` with `{"error": message}` and close: for a request no endpoint has seen."""
        body = json.dumps({"error": message}, separators=(",", ":")).encode()  # as the API writes it
        headers = [*self.server_state.default_headers, (b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
        for event in (h11.Response(status_code=status, headers=headers, reason=HTTPStatus(status).phrase),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()
