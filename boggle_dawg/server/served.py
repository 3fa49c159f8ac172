"""What a server serves: its lexicons, opened and warmed once, the dice sets that fit each, and
the limits it keeps.

Dice sets are the built-in ones and the files of `serve --dice FILE`, served by a name: a file
called `dice` (Tanglet's layout, .../tanglet/de/dice) by its folder's name (`de`), any other by its
stem (my-dice.txt: `my-dice`). Each lexicon reads every set with its own charset (a Polish 'Q' is a
plain Q, an English one the Qu die) and offers the sets whose faces all lie in that charset.

Kept free of the web framework, so that `dawg-solve serve --help` (which reads the limits'
defaults) and the rest of the program never import it.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..defaults import DEFAULT_WORD_LIST, lexicon_or_default
from ..solver.backends import Scorer
from ..solver.board import MAX_SIDE, Board, Shape
from ..solver.board_walk import Found, solve_one
from ..solver.charset import Charset
from ..solver.dice_sets import DEFAULT_DICE, DICE_FOR_SIDE, DiceSet, builtin_dice_names, load_dice_sets
from ..solver.errors import DawgError
from ..solver.formats.common import MANIFEST_FILE
from ..solver.language import own_language
from ..solver.lexicon import Lexicon, read_manifest
from ..solver.rules import Rules

WARM_SIDE = 5  # the warm-up board: 5x5, the largest common game
TANGLET_DICE_FILE = "dice"  # Tanglet's dice file, one per language folder


@dataclass(frozen=True)
class Limits:
    """What one request may ask for; anything more is refused with a 4xx and a JSON error."""

    body_bytes: int = 1 << 20  # request body
    cells: int = 36  # cells of a board (6x6, Super Big Boggle's)
    batch: int = 10_000  # boards of one batch, rolls of one request
    words: int = 1_000  # words listed for a prefix

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value < 1:
                raise DawgError(f"limit {name}: must be 1 or more, got {value}")


@dataclass(frozen=True)
class PlayLimits:
    """What rooms, their players and the daily board may hold; anything more is refused in one line (a JSON
    error over HTTP; over a WebSocket, that connection closed with a code and a reason, no one else's)."""

    rooms: int = 1_000  # rooms open at once
    players: int = 8  # players of a room
    name_chars: int = 24  # characters of a player's name (printable, trimmed, not empty)
    message_bytes: int = 1_024  # one WebSocket message (a word is tens of bytes)
    messages_per_second: int = 10  # a connection's messages, on average ...
    message_burst: int = 20  # ... and in a burst above it
    idle_minutes: int = 30  # a room with no activity this long is dropped (its finished rounds stay in the database)
    connections: int = 3  # a player's connections at once (tabs, devices)
    hello_seconds: int = 10  # for a new connection to say whose it is
    queued: int = 1_000  # messages waiting for a connection that does not read them; then it is closed
    daily_results: int = 10_000  # results kept for one daily board

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value < 1:
                raise DawgError(f"limit {name}: must be 1 or more, got {value}")


@dataclass(frozen=True)
class Timeouts:
    """Seconds a client may take over what it owes, after which its connection is closed (server/protocol.py:
    uvicorn bounds only the idle time between requests), and that a stopping server gives the requests it is
    answering. Dribbling a request a byte at a time must not hold a connection, and the task behind it, for good."""

    headers: float = 10.0  # a request's headers: from the connection's start, or from the request's first byte
    body: float = 30.0  # its body, from the end of its headers (the largest body at 35 KB/s)
    keep_alive: float = 5.0  # idle between two requests of a connection (uvicorn's timeout_keep_alive)
    shutdown: float = 5.0  # answering the requests in hand at Ctrl-C or SIGTERM (uvicorn's timeout_graceful_shutdown)

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not 0 < value < math.inf:
                raise DawgError(f"timeout {name}: must be a number of seconds above 0, got {value}")


@dataclass
class Served:
    """One lexicon as the server holds it: its name in requests, the lexicon, the shortest word
    its build kept (None without a manifest), the scorer that batches use (under the lexicon's
    rules) with its threads, and the served dice sets that fit it. Batches under other rules get a scorer of
    their own, with as many threads, opened on first use (`scorer_for`)."""

    name: str
    lexicon: Lexicon
    min_length: int | None
    scorer: Scorer
    jobs: int
    dice: tuple[DiceSet, ...] = ()  # the served sets that fit, read with its charset
    others: dict = field(default_factory=dict)  # Rules -> Scorer, for rules other than the lexicon's
    _opening: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def scorer_for(self, rules: Rules) -> Scorer:
        """The batch scorer under `rules`: the lexicon's own, or one opened (once) with as many threads."""
        if rules == self.scorer.rules:
            return self.scorer
        with self._opening:
            if rules not in self.others:
                self.others[rules] = self.lexicon.scorer(self.jobs, rules=rules)
            return self.others[rules]

    def default_dice(self, shape: Shape | None) -> DiceSet | None:
        """The set a roll uses when none is named: of those that fit and fill `shape` (any, without
        one), the one named as the lexicon's language (Tanglet's `de` for German), else the real game's
        for the size (classic, big, super-big), else the first; None when no set fits."""
        filling = [d for d in self.dice if shape is None or len(d.dice) == shape.cells]
        preferred = (self.lexicon.language.name, DICE_FOR_SIDE.get(shape.rows) if shape and shape.square else DEFAULT_DICE)
        return next((d for name in preferred for d in filling if d.name == name), next(iter(filling), None))

    def words(self, board: Board, skip_foreign: bool = False, rules: Rules | None = None) -> list[Found]:
        """`Lexicon.words` under `rules` (None: the lexicon's), on the compiled walk: numba is loaded
        here anyway, for the batches."""
        lex = self.lexicon
        return lex.with_written(solve_one(lex.walk, lex.walk.inputs, board, lex.charset,
                                          lex.rules if rules is None else rules, skip_foreign, want_words=True,
                                          compiled=True)[2])

    def describe(self) -> dict:
        info = self.lexicon.info()
        language = self.lexicon.language
        default = self.default_dice(None)
        return {"name": self.name, "format": info["format"], "charset": info["charset"], "words": info["words"],
                "max_length": info["max_length"], "min_length": self.min_length, "rules": self.lexicon.rules.name,
                "language": {"name": language.name, "title": language.title,
                             "dictionary": own_language(language).dictionary or None},
                "dice": [describe_dice(d) for d in self.dice], "default_dice": default.name if default else None}


def describe_dice(dice: DiceSet) -> dict:
    return {"name": dice.name, "description": dice.description, "size": str(dice.shape()), "dice": len(dice.dice)}


@dataclass(frozen=True)
class DiceSource:
    """A dice set as the server serves it: its name in requests and what `load_dice` reads."""

    name: str
    spec: str

    def sets(self, charset: Charset, folds: dict[int, str] | None = None) -> list[DiceSet]:
        """Every set of the source read with `charset` and the language's `folds` (Tanglet's files hold a
        4x4 and a 5x5 set; `load_dice` picks one by the board it fills), named by the source; each fills a
        square board."""
        every = load_dice_sets(self.spec, charset, folds)
        found = {}
        for one in sorted(every, key=lambda d: len(d.dice)):  # smallest board first
            side = math.isqrt(len(one.dice))
            if side * side == len(one.dice) and side <= MAX_SIDE:
                found.setdefault(one.dice, one)
        if not found:
            every[0].shape()  # the library's one line: these dice fill no square board
        return [dataclasses.replace(one, name=self.name) for one in found.values()]

    def fitting(self, lexicon: Lexicon) -> list[DiceSet]:
        """The sets whose every face the lexicon's charset can show (a blank, a letter, a tile, two letters of
        it), read as its language reads a face (Catalan's '·L' is the tile 'ŀl')."""
        charset = lexicon.charset
        sets = self.sets(charset, lexicon.language.letter_folds(charset))
        return [d for d in sets if all(charset.cell_code(face) >= 0 for die in d.dice for face in die)]


def dice_sources(files: list[Path]) -> list[DiceSource]:
    """The built-in sets, then each dice file by its served name (see the module); a name served twice
    is a one-line error."""
    sources = [DiceSource(name, name) for name in builtin_dice_names()]
    for file in files:
        name = file.parent.resolve().name if file.name == TANGLET_DICE_FILE else file.stem
        if not file.exists():
            raise DawgError(f"--dice {file}: no such file")
        if not file.is_file():  # a device (/dev/zero), a FIFO, a directory
            raise DawgError(f"--dice {file}: not a regular file (a dice file must be one)")
        taken = next((s for s in sources if s.name == name), None)
        if taken is not None:
            raise DawgError(f"--dice {file}: would be served as {name!r}, as {taken.spec} is; rename the file")
        sources.append(DiceSource(name, str(file)))
    return sources


def served_name(file: Path | None) -> str:
    """How requests name a lexicon: its file's stem (a build directory's name), or the shipped word
    list's stem for the default lexicon."""
    return Path(DEFAULT_WORD_LIST).stem if file is None else file.resolve().stem


def _min_length(file: Path) -> int | None:
    directory = file if file.is_dir() else file.parent
    if not (directory / MANIFEST_FILE).is_file():
        return None
    return read_manifest(directory / MANIFEST_FILE).data["options"]["min_length"]


def open_served(files: list[Path | None], fmt: str | None, jobs: int, announce=None,
                dice_files: list[Path] = ()) -> dict[str, Served]:
    """Open each lexicon once (None: the shipped default, compiled on first use, which `announce`
    is told), open a scorer of `jobs` threads for it, find the dice sets that fit it (the built-in
    ones and `dice_files`), and warm both compiled paths (the walk of one board with its words, the
    batch driver) on a board of its own words, so the first request waits for neither numba's cache
    nor its compiler. A dice file that fits none of the lexicons is a one-line error."""
    served: dict[str, Served] = {}
    sources = dice_sources(list(dice_files))
    try:
        for file in files:
            name = served_name(file)
            if name in served:
                raise DawgError(f"{file}: two lexicons would be served as {name!r}; serve one of them")
            lexicon = lexicon_or_default(file, fmt, announce)
            min_length = _min_length(Path(lexicon.path))
            dice = tuple(d for source in sources for d in source.fitting(lexicon))
            served[name] = Served(name, lexicon, min_length, lexicon.scorer(jobs), jobs, dice)
            warm(served[name])
        used = {d.name for one in served.values() for d in one.dice}
        unused = next((s for s in sources[len(builtin_dice_names()):] if s.name not in used), None)
        if unused is not None:
            raise DawgError(f"--dice {unused.spec}: fits none of the served lexicons (its faces use letters "
                            f"outside their charsets)")
    except BaseException:
        close_served(served)
        raise
    return served


def warm_board(lexicon: Lexicon) -> Board:
    """A 5x5 board of the lexicon's own words (the first of each letter), laid along a snake of
    adjacent cells: its walk finds words in any alphabet, so every kernel path is compiled."""
    cells = WARM_SIDE * WARM_SIDE
    symbols = ""
    for letter in lexicon.charset.letters:
        if len(symbols) >= cells:
            break
        symbols += next((folded for folded, _ in lexicon.iter_numbered_words(prefix=letter)), "")
    symbols = (symbols or lexicon.charset.letters) * cells
    snake = [row * WARM_SIDE + (col if row % 2 == 0 else WARM_SIDE - 1 - col)
             for row in range(WARM_SIDE) for col in range(WARM_SIDE)]
    faces = [""] * cells
    for at, cell in enumerate(snake):
        faces[cell] = lexicon.charset.face_of(symbols[at])
    return Board(tuple(faces), Shape(WARM_SIDE, WARM_SIDE))


def warm(served: Served) -> None:
    board = warm_board(served.lexicon)
    served.words(board)
    served.lexicon.score_many([board], scorer=served.scorer)


def close_served(served: dict[str, Served]) -> None:
    for one in served.values():
        one.scorer.close()
        for other in one.others.values():
            other.close()
