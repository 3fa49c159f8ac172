"""What every endpoint reads a request's names with: the served lexicons, rule sets and dice sets by name,
boards checked against the limits, and the judge of a round on a board (solve/game.py's `Round`), kept warm.

Framework-free: the HTTP routes, the room service and the daily board all go through one `Catalog`, so a
word in a room is judged exactly as `POST /api/round` judges it, and a bad name is the same one line.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass

from ..solver.board import Board, Shape, parse_size
from ..solver.board_walk import shown_spelling
from ..solver.dice_sets import DiceSet
from ..solver.errors import DawgError
from ..solver.game import Round
from ..solver.rules import Rules, builtin_rules_names, load_rules
from .served import Limits, Served

SHOWN = 40  # characters of a client's value repeated in an error
JUDGES_KEPT = 256  # boards whose answers are kept solved beyond one for each room a server holds (a room's
# round judges many words on one board: never solve it again while the room plays it)


def shown(text: str) -> str:
    """A client's value in an error: quoted, and cut short."""
    return repr(cut(text))


def cut(text: str) -> str:
    """A client's value cut short, as an error repeats it."""
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def place(part: str | int) -> str:
    """A step of an error's location: a field's name or an item's index as it is; a key of the client's own (an
    unknown field: any text, newlines and all) shown as its other values are."""
    return str(part) if isinstance(part, int) or (part.isidentifier() and len(part) <= SHOWN) else shown(part)


def shown_word(one: Served, word: str) -> str:
    """A word as a page shows it: as its list wrote it (German "gläsern" for the game word "glaesern";
    its spellings joined where it has several). Every word the rooms and the daily board send goes through here."""
    return shown_spelling(word, one.lexicon.written(word))


def at_most(what: str, count: int, limit: int) -> None:
    if count > limit:
        raise DawgError(f"{what}: {count}, more than this server's limit of {limit}")


@dataclass(frozen=True)
class Judge:
    """A board's answers under rules, solved once: `game()` is a fresh Round on them, `paths` one path a word."""

    template: Round
    paths: dict[str, list[int]]

    def game(self, found: dict[str, int] | None = None) -> Round:
        """A Round whose player has `found` these words already (the answers shared, not copied)."""
        game = copy.copy(self.template)
        game.found = dict(found or {})
        return game


class Catalog:
    """The served lexicons, rule sets and dice sets, read by the names requests give."""

    def __init__(self, served: dict[str, Served], limits: Limits, rooms: int = 0) -> None:
        if not served:
            raise DawgError("no lexicon to serve")
        self.served = served
        self.limits = limits
        self.judges_kept = rooms + JUDGES_KEPT  # `rooms`: the most rooms open at once
        self.default = next(iter(served))
        self.dice_names = list(dict.fromkeys(d.name for one in served.values() for d in one.dice))
        self._judges: OrderedDict[tuple, Judge] = OrderedDict()
        self._lock = threading.Lock()

    def lexicon(self, name: str | None) -> Served:
        if name is None:
            return self.served[self.default]
        if name not in self.served:
            raise DawgError(f"lexicon {shown(name)}: not served here (served: {', '.join(self.served)})")
        return self.served[name]

    @staticmethod
    def rules(name: str | None, one: Served) -> Rules:
        if name is None:
            return one.lexicon.rules
        if name not in builtin_rules_names():
            raise DawgError(f"rules {shown(name)}: not served here (served: {', '.join(builtin_rules_names())})")
        return load_rules(name)

    def board(self, text: str, size: str | None, one: Served) -> Board:
        board = one.lexicon.board(text, parse_size(size) if size else None)
        if board.shape.cells > self.limits.cells:
            raise DawgError(f"board {shown(board.notation)}: {board.shape.cells} cells, more than this server's "
                            f"limit of {self.limits.cells}")
        return board

    def dice(self, one: Served, name: str | None, shape: Shape | None) -> DiceSet:
        """The served set `name` (default: the lexicon's for the size) as `one` reads it, of the size asked,
        within the cells limit."""
        if name is None:
            chosen = one.default_dice(shape)
            if chosen is None:
                raise DawgError(f"lexicon {one.name}: no served dice set fits it{f' and fills {shape}' if shape else ''}")
        elif name not in self.dice_names:
            raise DawgError(f"dice {shown(name)}: not served here (served: {', '.join(self.dice_names)})")
        else:
            sets = [d for d in one.dice if d.name == name]
            if not sets:
                raise DawgError(f"dice {name}: its faces use letters outside lexicon {one.name}'s charset "
                                f"(GET /api/lexicons lists the sets that fit each lexicon)")
            chosen = next((d for d in sets if shape is None or len(d.dice) == shape.cells), sets[0])
        if len(chosen.dice) > self.limits.cells:  # the dice fill the board: one cell each
            raise DawgError(f"dice {chosen.name}: {len(chosen.dice)} cells, more than this server's limit "
                            f"of {self.limits.cells}")
        return chosen

    def judge(self, one: Served, rules: Rules, board: Board) -> Judge:
        """The judge of rounds on `board`: solved on first use (the compiled walk, a millisecond or two), then
        kept for the next words, players and rematches on it."""
        key = (one.name, rules, board)
        with self._lock:
            if key in self._judges:
                self._judges.move_to_end(key)
                return self._judges[key]
        answers = one.words(board, rules=rules)
        judge = Judge(Round(board, answers, rules, one.lexicon.language), {f.word: list(f.path) for f in answers})
        with self._lock:
            self._judges[key] = judge
            while len(self._judges) > self.judges_kept:
                self._judges.popitem(last=False)
        return judge
