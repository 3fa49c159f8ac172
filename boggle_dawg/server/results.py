"""Results that last: the finished rounds of rooms and the daily boards with their results, in SQLite (the
standard library's sqlite3), one file under the server's data directory.

Each finished round is written in one transaction as it ends, so a restart (or a kill) of the server loses
none. The schema is versioned by `PRAGMA user_version` and brought up to date at start by the steps of
`MIGRATIONS`, one transaction in all. A damaged file, one written by a newer version, a locked one, or a
directory that cannot be made is one line at start (`DawgError`), before any lexicon is opened.

Framework-free, as served.py: `dawg-solve serve` opens it before it imports the web stack.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from ..solver.errors import DawgError

DATABASE_FILE = "server.sqlite3"
LOCK_SECONDS = 5.0  # how long a write waits for another program's lock on the file before giving up

# Step i brings a database from version i to i + 1; the schema's version is the number of steps. A step is
# never changed once released: a change of schema is a new step.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE rounds (
               id INTEGER PRIMARY KEY,
               room TEXT NOT NULL, number INTEGER NOT NULL,
               lexicon TEXT NOT NULL, rules TEXT NOT NULL, dice TEXT, seed INTEGER,
               board TEXT NOT NULL, size TEXT NOT NULL, seconds INTEGER NOT NULL, cancel INTEGER NOT NULL,
               started REAL NOT NULL, ended REAL NOT NULL, maximum INTEGER NOT NULL, word_count INTEGER NOT NULL,
               UNIQUE (room, number))""",
        """CREATE TABLE round_players (
               round INTEGER NOT NULL REFERENCES rounds (id), seat INTEGER NOT NULL,
               name TEXT NOT NULL, score INTEGER NOT NULL,
               PRIMARY KEY (round, seat))""",
        """CREATE TABLE round_words (
               round INTEGER NOT NULL, seat INTEGER NOT NULL, position INTEGER NOT NULL,
               word TEXT NOT NULL, points INTEGER NOT NULL, cancelled INTEGER NOT NULL,
               PRIMARY KEY (round, seat, position),
               FOREIGN KEY (round, seat) REFERENCES round_players (round, seat))""",
        """CREATE TABLE daily (
               id INTEGER PRIMARY KEY,
               day TEXT NOT NULL, lexicon TEXT NOT NULL, rules TEXT NOT NULL,
               dice TEXT NOT NULL, seed INTEGER NOT NULL, board TEXT NOT NULL, size TEXT NOT NULL,
               UNIQUE (day, lexicon, rules))""",
        """CREATE TABLE daily_results (
               id INTEGER PRIMARY KEY, daily INTEGER NOT NULL REFERENCES daily (id),
               name TEXT NOT NULL, score INTEGER NOT NULL, submitted REAL NOT NULL)""",
        "CREATE INDEX daily_results_by_board ON daily_results (daily, score DESC, submitted)",
        """CREATE TABLE daily_words (
               result INTEGER NOT NULL REFERENCES daily_results (id), position INTEGER NOT NULL,
               word TEXT NOT NULL, points INTEGER NOT NULL,
               PRIMARY KEY (result, position))""",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)

# What an SQLite error at start means to the person starting the server, by its primary result code.
OPEN_ERRORS = {
    sqlite3.SQLITE_BUSY: "locked by another program; stop it, or give another --data directory",
    sqlite3.SQLITE_LOCKED: "locked by another program; stop it, or give another --data directory",
    sqlite3.SQLITE_NOTADB: "not an SQLite database (damaged?); move it away to start with an empty one",
    sqlite3.SQLITE_CORRUPT: "damaged; move it away to start with an empty one",
    sqlite3.SQLITE_READONLY: "read-only here; give a --data directory this server may write",
    sqlite3.SQLITE_CANTOPEN: "cannot be opened or made; give a --data directory this server may write",
}


def default_data_dir() -> Path:
    """$BOGGLE_DAWG_DATA, else $XDG_DATA_HOME/boggle-dawg, else ~/.local/share/boggle-dawg: results are data the
    user keeps, not a cache to be cleared (the kernels' cache is solver/user_cache.py's)."""
    if os.environ.get("BOGGLE_DAWG_DATA"):
        return Path(os.environ["BOGGLE_DAWG_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "boggle-dawg"


def open_results(directory: Path | None, lock_seconds: float = LOCK_SECONDS) -> Results:
    """The results database in `directory` (made if missing), checked and brought to this schema; None: one in
    memory, kept as long as the process (an application made from Python without a data directory)."""
    if directory is None:
        return Results(_migrated(sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None), ":memory:"))
    path = directory / DATABASE_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise DawgError(f"--data {directory}: cannot make the directory ({err.strerror or err})") from None
    connection = None
    try:
        connection = sqlite3.connect(path, timeout=lock_seconds, check_same_thread=False, isolation_level=None)
        (check,) = connection.execute("PRAGMA quick_check(1)").fetchone()
        if check != "ok":
            raise DawgError(f"{path}: damaged ({check}); move it away to start with an empty one")
        return Results(_migrated(connection, str(path)))
    except sqlite3.Error as err:
        if connection is not None:
            connection.close()
        why = OPEN_ERRORS.get(getattr(err, "sqlite_errorcode", -1) & 0xFF, "cannot be used")
        raise DawgError(f"{path}: {why} (SQLite: {err})") from None
    except DawgError:
        if connection is not None:
            connection.close()
        raise


def _migrated(connection: sqlite3.Connection, where: str) -> sqlite3.Connection:
    """`connection` with its schema at SCHEMA_VERSION: the missing steps run in one transaction; a database of a
    newer version is refused, as this version cannot know what its tables mean."""
    connection.execute("PRAGMA foreign_keys = ON")
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise DawgError(f"{where}: written by a newer boggle-dawg (schema version {version}; this one reads up to "
                        f"{SCHEMA_VERSION}); upgrade it, or give another --data directory")
    if where != ":memory:":
        connection.execute("PRAGMA journal_mode = WAL")  # readers do not wait for a round being written
        connection.execute("PRAGMA synchronous = FULL")  # a round written is on the disk when its transaction ends
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]  # another server may have migrated it
        for step in MIGRATIONS[version:]:
            for statement in step:
                connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return connection


class Results:
    """The finished rounds and the daily boards, read and written as plain data (dicts), one transaction a write.
    One connection, used by one thread at a time."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, work):
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._db)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return result

    def _read(self, query: str, *args) -> list[dict]:
        with self._lock:
            cursor = self._db.execute(query, args)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

    # --- rooms' rounds

    def save_round(self, record: dict) -> None:
        """A finished round (`Rooms` makes the record): the round, each player's score and words, at once."""
        def write(db: sqlite3.Connection) -> None:
            fields = ("room", "number", "lexicon", "rules", "dice", "seed", "board", "size", "seconds", "cancel",
                      "started", "ended", "maximum", "word_count")
            cursor = db.execute(f"INSERT INTO rounds ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})",
                                [record[f] for f in fields])
            round_id = cursor.lastrowid
            for seat, player in enumerate(record["players"]):
                db.execute("INSERT INTO round_players (round, seat, name, score) VALUES (?, ?, ?, ?)",
                           (round_id, seat, player["name"], player["score"]))
                db.executemany("INSERT INTO round_words (round, seat, position, word, points, cancelled) "
                               "VALUES (?, ?, ?, ?, ?, ?)",
                               [(round_id, seat, at, w["word"], w["points"], w["cancelled"])
                                for at, w in enumerate(player["words"])])

        self._write(write)

    def room_used(self, code: str) -> bool:
        """Whether a room of this code has finished a round (a new room never takes the code of an old one)."""
        return bool(self._read("SELECT 1 FROM rounds WHERE room = ? LIMIT 1", code))

    def rounds(self, code: str, number: int | None = None) -> list[dict]:
        """The finished rounds of room `code` (only round `number`, if given), in order, each with its players."""
        rows = self._read("SELECT * FROM rounds WHERE room = ? AND (? IS NULL OR number = ?) ORDER BY number",
                          code, number, number)
        for row in rows:
            round_id = row.pop("id")
            row["cancel"] = bool(row["cancel"])
            words: dict[int, list[dict]] = {}
            for word in self._read("SELECT seat, word, points, cancelled FROM round_words WHERE round = ? "
                                   "ORDER BY seat, position", round_id):
                words.setdefault(word["seat"], []).append(
                    {"word": word["word"], "points": word["points"], "cancelled": bool(word["cancelled"])})
            row["players"] = [{"name": p["name"], "score": p["score"], "words": words.get(p["seat"], [])}
                              for p in self._read("SELECT seat, name, score FROM round_players WHERE round = ? "
                                                  "ORDER BY seat", round_id)]
            row["cancelled"] = sorted({w["word"] for p in row["players"] for w in p["words"] if w["cancelled"]})
        return rows

    # --- daily boards

    def daily(self, day: str, lexicon: str, rules: str) -> dict | None:
        found = self._read("SELECT * FROM daily WHERE day = ? AND lexicon = ? AND rules = ?", day, lexicon, rules)
        return found[0] if found else None

    def keep_daily(self, board: dict) -> dict:
        """The daily board of its day, lexicon and rules as first kept (`board` kept if none was)."""
        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR IGNORE INTO daily (day, lexicon, rules, dice, seed, board, size) "
                       "VALUES (:day, :lexicon, :rules, :dice, :seed, :board, :size)", board)

        self._write(write)
        kept = self.daily(board["day"], board["lexicon"], board["rules"])
        assert kept is not None
        return kept

    def add_daily_result(self, daily_id: int, name: str, score: int, words: list[tuple[str, int]], submitted: float,
                         most: int) -> int | None:
        """Keep a player's result of a daily board, with their words, unless it has `most` results already
        (None then); the number of its results."""
        def write(db: sqlite3.Connection) -> int | None:
            (count,) = db.execute("SELECT count(*) FROM daily_results WHERE daily = ?", (daily_id,)).fetchone()
            if count >= most:
                return None
            cursor = db.execute("INSERT INTO daily_results (daily, name, score, submitted) VALUES (?, ?, ?, ?)",
                                (daily_id, name, score, submitted))
            db.executemany("INSERT INTO daily_words (result, position, word, points) VALUES (?, ?, ?, ?)",
                           [(cursor.lastrowid, at, word, points) for at, (word, points) in enumerate(words)])
            return count + 1

        return self._write(write)

    def daily_results(self, daily_id: int, most: int) -> list[dict]:
        """A daily board's best `most` results: most points first, then the earliest."""
        results = self._read("SELECT id, name, score, submitted FROM daily_results WHERE daily = ? "
                             "ORDER BY score DESC, submitted, id LIMIT ?", daily_id, most)
        words: dict[int, list[dict]] = {}
        ids = [r["id"] for r in results]
        for at in range(0, len(ids), 500):  # SQLite's host parameters are limited in number
            part = ids[at:at + 500]
            for word in self._read(f"SELECT result, word, points FROM daily_words WHERE result IN "
                                   f"({', '.join('?' * len(part))}) ORDER BY result, position", *part):
                words.setdefault(word["result"], []).append({"word": word["word"], "points": word["points"]})
        for result in results:
            result["words"] = words.get(result.pop("id"), [])
        return results

    def daily_count(self, daily_id: int) -> int:
        return self._read("SELECT count(*) AS n FROM daily_results WHERE daily = ?", daily_id)[0]["n"]
