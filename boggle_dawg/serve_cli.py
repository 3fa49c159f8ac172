"""`dawg-solve serve`: the warm server, a JSON API and the browser game (boggle_dawg/server).

    dawg-solve serve [FILE...] [--dice FILE]... [--host 127.0.0.1] [--port 8000] [--allow-origin ORIGIN]... [limits]
                     [play limits] [timeouts] [--data DIR]

The web framework and uvicorn are imported only here, inside the command: no other
command, and not the one-board path, pays for them. They are the `serve` extra's: without
it the command says what to install, before any lexicon is opened.
"""

from __future__ import annotations

import functools
import gc
import signal
import socket
import sys
from pathlib import Path

import typer

from .cli_common import finite_option, jobs_option
from .program import PROG
from .server.results import default_data_dir, open_results
from .server.served import Limits, PlayLimits, Timeouts, close_served, open_served
from .solver.errors import DawgError
from .solver.formats import format_help

DEFAULTS = Limits()
PLAY = PlayLimits()
TIMEOUTS = Timeouts()
MOST_SECONDS = 3600.0  # the longest a timeout option may be
INSTALL_SERVE = "pip install 'boggle-dawg[serve]'"  # the `serve` extra (pyproject.toml)


def serve(
    files: list[Path] = typer.Argument(None, metavar="[FILE...]",
                                       help="Lexicons to serve, named in requests by their file stem; the first is "
                                            "the default (default: the shipped one)."),
    dice: list[Path] = typer.Option(None, "--dice", "-d", metavar="FILE",
                                    help="A dice file to serve besides the built-in sets (Tanglet's format or the "
                                         "built-in one; any alphabet), named by its stem, or by its folder for a "
                                         "file called dice (.../tanglet/de/dice: de); repeat for more."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port (0: any free one, printed)."),
    allow_origin: list[str] = typer.Option(None, "--allow-origin", metavar="ORIGIN",
                                           help="Let pages from ORIGIN (e.g. http://localhost:3000, or *) call "
                                                "the API (CORS); repeat for more [default: none]."),
    max_body_bytes: int = typer.Option(DEFAULTS.body_bytes, "--max-body-bytes", min=1, help="Largest request body."),
    max_cells: int = typer.Option(DEFAULTS.cells, "--max-cells", min=1, help="Most cells of a board."),
    max_batch: int = typer.Option(DEFAULTS.batch, "--max-batch", min=1,
                                  help="Most boards of a batch (and rolls, looked-up or judged words of a request)."),
    max_words: int = typer.Option(DEFAULTS.words, "--max-words", min=1, help="Most words listed for a prefix."),
    max_rooms: int = typer.Option(PLAY.rooms, "--max-rooms", min=1, help="Most rooms open at once."),
    max_players: int = typer.Option(PLAY.players, "--max-players", min=1, help="Most players a room."),
    max_name_chars: int = typer.Option(PLAY.name_chars, "--max-name-chars", min=1,
                                       help="Most characters of a player's name."),
    max_message_bytes: int = typer.Option(PLAY.message_bytes, "--max-message-bytes", min=1,
                                          help="Largest WebSocket message."),
    max_messages_per_second: int = typer.Option(PLAY.messages_per_second, "--max-messages-per-second", min=1,
                                                help="Most messages a second a WebSocket connection may send (bursts "
                                                     "of twice as many)."),
    room_idle_minutes: int = typer.Option(PLAY.idle_minutes, "--room-idle-minutes", min=1,
                                          help="Drop a room after this many minutes without activity (its finished "
                                               "rounds stay in the database)."),
    data: Path | None = typer.Option(None, "--data", metavar="DIR",
                                     help="Where the results database is kept (finished rounds, daily boards) "
                                          "[default: $BOGGLE_DAWG_DATA, else $XDG_DATA_HOME/boggle-dawg, else "
                                          "~/.local/share/boggle-dawg]."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Threads scoring batches (0 = all cores)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    timeout_headers: float = typer.Option(TIMEOUTS.headers, "--timeout-headers", metavar="SECONDS",
                                          help="Most seconds a client may take to send a request's headers (then "
                                               "408 and the connection closed)."),
    timeout_body: float = typer.Option(TIMEOUTS.body, "--timeout-body", metavar="SECONDS",
                                       help="Most seconds a client may take to send a request's body, from the end "
                                            "of its headers (then the connection is closed)."),
    timeout_keep_alive: float = typer.Option(TIMEOUTS.keep_alive, "--timeout-keep-alive", metavar="SECONDS",
                                             help="Most seconds a connection may stay idle between requests."),
    access_log: bool = typer.Option(False, "--access-log", help="Log every request on stderr."),
) -> None:
    """Serve a JSON API (solve, score, look up, roll; rooms, the daily board) and the browser game at / until
    Ctrl-C or SIGTERM."""
    create_app, protocol = _web_stack()
    files = files or [None]
    limits = Limits(body_bytes=max_body_bytes, cells=max_cells, batch=max_batch, words=max_words)
    play_limits = PlayLimits(rooms=max_rooms, players=max_players, name_chars=max_name_chars,
                             message_bytes=max_message_bytes, messages_per_second=max_messages_per_second,
                             message_burst=2 * max_messages_per_second, idle_minutes=room_idle_minutes)
    timeouts = Timeouts(headers=finite_option("--timeout-headers", timeout_headers, 0, MOST_SECONDS),
                        body=finite_option("--timeout-body", timeout_body, 0, MOST_SECONDS),
                        keep_alive=finite_option("--timeout-keep-alive", timeout_keep_alive, 0, MOST_SECONDS))
    results = open_results(default_data_dir() if data is None else data)  # a bad database: one line, before the lexicons
    try:
        served = open_served(files, fmt, jobs_option(jobs),
                             announce=lambda message: print(f"{PROG}: {message}", file=sys.stderr),
                             dice_files=dice or [])
        try:
            app = create_app(served, limits, tuple(allow_origin or ()), play_limits, results)
            gc.freeze()  # the start-up's objects live as long as the server: no collection walks them again
            sock = _listen(host, port)
            host, port = sock.getsockname()[:2]
            where = f"[{host}]" if ":" in host else host
            print(f"{PROG}: serving {', '.join(served)} at http://{where}:{port}/ (the game; the API under /api, "
                  f"its schema at /openapi.json); Ctrl-C stops", file=sys.stderr, flush=True)
            _run(app, sock, protocol, timeouts, access_log, play_limits.message_bytes)
        finally:
            close_served(served)
    finally:
        results.close()


def _web_stack():
    """`create_app` and the connections' protocol class, which import the web framework and uvicorn (and the
    websockets package, the rooms' WebSockets): without the `serve` extra, one line saying what to install (before
    the lexicons are opened and warmed), not a traceback."""
    try:
        import websockets  # noqa: F401  (uvicorn would import it only at the first WebSocket)

        from .server.app import create_app
        from .server.protocol import GuardedProtocol
    except ModuleNotFoundError as err:
        package = (err.name or "").partition(".")[0]
        if package == __package__:
            raise  # a module of this program's own: a bug, not a missing extra
        raise DawgError(f"serve needs the `serve` extra, which is not installed here (no module named "
                        f"{package!r}): {INSTALL_SERVE}") from None
    return create_app, GuardedProtocol


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that a port in use is one line of error; it listens at once,
    so that connections made as soon as the address is printed wait for uvicorn instead of failing."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        raise DawgError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    return sock


def _run(app, sock: socket.socket, protocol, timeouts: Timeouts, access_log: bool, message_bytes: int) -> None:
    """Run uvicorn until Ctrl-C or SIGTERM, then return: either is a server's normal end (status 0).
    uvicorn catches both, shuts down gracefully and then raises the signal again; the handlers set
    here make that second delivery a no-op instead of a KeyboardInterrupt or a kill. `protocol` makes
    the connections (server/protocol.py: uvicorn's h11 protocol with `timeouts` on receiving requests).
    No lifespan: the app has no start-up or shutdown of its own, and a second Ctrl-C would cancel the
    lifespan's task, which Starlette logs with a traceback. WebSockets run on the websockets package (its
    sans-I/O protocol), which refuses a frame over `message_bytes` itself (close code 1009) before the room's
    reader sees it. A server started with SIGINT ignored
    (`nohup`, `&` in a script) keeps ignoring it, as such programs must: only SIGTERM stops it."""
    import uvicorn

    interrupt_ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame) -> None:
            if not (sig == signal.SIGINT and interrupt_ignored):
                super().handle_exit(sig, frame)

    config = uvicorn.Config(app, http=functools.partial(protocol, timeouts=timeouts), ws="websockets-sansio",
                            ws_max_size=message_bytes, access_log=access_log,
                            log_level="info" if access_log else "warning", timeout_keep_alive=timeouts.keep_alive,
                            timeout_graceful_shutdown=timeouts.shutdown, lifespan="off")
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        Server(config).run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"{PROG}: stopped", file=sys.stderr)
