"""The live connections of this process: each WebSocket's outbox, and the rooms' connections by player, so that
what happens in a room (a word, a join, the end of the round) is pushed to every player in it.

Messages are pushed from any thread (the room service runs on the server's thread pool, the round's alarm on
its own thread) into the outbox of a connection, which its own task sends in order; a connection that does not
read its messages is closed rather than let them pile up. The room states live in a `RoomStore`; these links
are this process's only, so rooms spread over several processes would push through a shared channel instead
(Redis pub/sub), as docs/server.md says.
"""

from __future__ import annotations

import asyncio
import json
import threading

CLOSE_REASON_BYTES = 123  # the most a WebSocket close frame's reason may hold (RFC 6455, 5.5.1)


class Close(Exception):
    """Close a connection with this code and reason (cut to what a close frame holds)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(code, reason)
        self.code, self.reason = code, reason

    def frame_reason(self) -> str:
        return self.reason.encode()[:CLOSE_REASON_BYTES].decode(errors="ignore")


def message_text(message: dict) -> str:
    """A message as sent: compact JSON, UTF-8 as it is (names and words in any alphabet)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class Link:
    """One connection's outbox, on its event loop: texts to send, then perhaps a Close, or None to stop quietly."""

    def __init__(self, loop: asyncio.AbstractEventLoop, most_queued: int) -> None:
        self.loop = loop
        self.most_queued = most_queued
        self.outbox: asyncio.Queue[str | Close | None] = asyncio.Queue()

    def push(self, item: str | Close | None) -> None:
        """Queue `item` from any thread; nothing if the connection's loop has ended (the connection is gone)."""
        try:
            self.loop.call_soon_threadsafe(self._put, item)
        except RuntimeError:
            pass

    def _put(self, item: str | Close | None) -> None:
        if self.outbox.qsize() >= self.most_queued:
            while not self.outbox.empty():
                self.outbox.get_nowait()
            item = Close(1008, f"more than {self.most_queued} messages waiting: this connection does not read them")
        self.outbox.put_nowait(item)


class Hub:
    """The links of each room, by player; what a room sends goes to all its links, or one player's."""

    def __init__(self, per_player: int) -> None:
        self.per_player = per_player
        self._rooms: dict[str, dict[Link, int]] = {}
        self._lock = threading.Lock()

    def attach(self, code: str, player: int, link: Link) -> bool:
        """Add `link` as one of `player`'s; False if they have as many as a player may."""
        with self._lock:
            links = self._rooms.setdefault(code, {})
            if sum(1 for p in links.values() if p == player) >= self.per_player:
                return False
            links[link] = player
            return True

    def detach(self, code: str, link: Link) -> None:
        with self._lock:
            links = self._rooms.get(code, {})
            links.pop(link, None)
            if not links:
                self._rooms.pop(code, None)

    def present(self, code: str) -> set[int]:
        """The players with a connection open."""
        with self._lock:
            return set(self._rooms.get(code, {}).values())

    def send(self, code: str, message: dict, player: int | None = None) -> None:
        """`message` to every link of the room, or of one player; written as text once."""
        text = message_text(message)
        with self._lock:
            links = [link for link, p in self._rooms.get(code, {}).items() if player is None or p == player]
        for link in links:
            link.push(text)

    def close(self, code: str, close: Close) -> None:
        """Close every link of the room (the room is gone)."""
        with self._lock:
            links = list(self._rooms.pop(code, {}))
        for link in links:
            link.push(close)
