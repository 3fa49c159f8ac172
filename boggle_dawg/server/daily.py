"""The daily board: one board a day (UTC) for each lexicon and rule set, the same for every player, rolled from a
seed that the date, the lexicon and the rules give; its results are kept in the results database.

A player plays it as any board (`POST /api/round` judges their words during the round), then submits their name
and words with the day played: the server judges them again on that day's board, and keeps the score it finds,
not one the page says. A day's board takes results until DAILY_LATE_SECONDS after its end, so that a round which runs
past midnight (UTC) is judged on the board it was played on.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import UTC, datetime

from ..solver.board import Shape
from ..solver.dice_sets import roll
from ..solver.errors import DawgError
from ..solver.game import Verdict
from .catalog import Catalog, at_most, shown, shown_word
from .models import DAILY_LATE_SECONDS
from .results import Results
from .rooms import NotNow, player_name
from .served import PlayLimits, Served

DAILY_SIDE = {"big": 5}  # the side of a rule set's daily board where it is not 4 (Big Boggle's rules: 5x5)
SEED_RANGE = 10**9  # as random_seed's: short enough to type back
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class Daily:
    def __init__(self, catalog: Catalog, results: Results, limits: PlayLimits, clock: Callable[[], float]) -> None:
        self.catalog = catalog
        self.results = results
        self.limits = limits
        self.clock = clock

    def today(self) -> str:
        return self._day_at(self.clock())

    @staticmethod
    def _day_at(seconds: float) -> str:
        return datetime.fromtimestamp(seconds, UTC).date().isoformat()

    def board(self, lexicon: str | None, rules: str | None, day: str | None = None, keep: bool | None = None) -> dict:
        """The daily board of `day` (default: today), as kept when first asked for, or as dealt; a dealt board is
        kept if `keep` (default: if it is today's)."""
        one = self.catalog.lexicon(lexicon)
        chosen = self.catalog.rules(rules, one)
        day = self._day(day)
        kept = self.results.daily(day, one.name, chosen.name)
        if kept is None:
            kept = self._deal(day, one, chosen.name)
            if keep or (keep is None and day == self.today()):
                kept = self.results.keep_daily(kept)
        return kept

    def submit(self, lexicon: str | None, rules: str | None, name: str, words: list[str],
               day: str | None = None) -> tuple[dict, list[Verdict], int]:
        """Judge a player's words on the board of `day` (default: today; a day gone until DAILY_LATE_SECONDS after its
        end) and keep their result: the board, the verdicts, the number of results it has now."""
        name = player_name(name, self.limits.name_chars)
        at_most("words", len(words), self.catalog.limits.batch)
        one = self.catalog.lexicon(lexicon)
        chosen = self.catalog.rules(rules, one)
        day = self._day(day)
        if day != self.today() and day != self._day_at(self.clock() - DAILY_LATE_SECONDS):
            raise NotNow("daily_closed", day=day, minutes=DAILY_LATE_SECONDS // 60)
        board = self.board(lexicon, rules, day, keep=True)
        game = self.catalog.judge(one, chosen, self.catalog.board(board["board"], board["size"], one)).game()
        verdicts = [game.submit(text) for text in words]
        count = self.results.add_daily_result(board["id"], name, game.score, list(game.found.items()), self.clock(),
                                              self.limits.daily_results)
        if count is None:
            raise NotNow("daily_full", day=board["day"], results=self.limits.daily_results)
        return board, verdicts, count

    def standings(self, lexicon: str | None, rules: str | None, day: str | None, most: int) -> tuple[dict, list[dict]]:
        """A daily board and its best `most` results, best first, each word as a page shows it."""
        board = self.board(lexicon, rules, day)
        one = self.catalog.lexicon(lexicon)
        results = [] if board.get("id") is None else self.results.daily_results(board["id"], most)
        for result in results:
            for word in result["words"]:
                word["shown"] = shown_word(one, word["word"])
        return board, results

    def _day(self, day: str | None) -> str:
        today = self.today()
        if day is None:
            return today
        try:
            valid = DAY.fullmatch(day) and datetime.strptime(day, "%Y-%m-%d")
        except ValueError:
            valid = None
        if not valid:
            raise DawgError(f"date {shown(day)}: not a date (YYYY-MM-DD)")
        if day > today:
            raise DawgError(f"date {day}: still to come (today is {today}, UTC)")
        return day

    def _deal(self, day: str, one: Served, rules: str) -> dict:
        side = DAILY_SIDE.get(rules, 4)
        shape = Shape(side, side)
        dice = self.catalog.dice(one, None, shape)
        seed = int.from_bytes(hashlib.sha256(f"{day} {one.name} {rules}".encode()).digest()[:8], "big") % SEED_RANGE
        board = next(roll(dice, shape, seed))
        return {"id": None, "day": day, "lexicon": one.name, "rules": rules, "dice": dice.name, "seed": seed,
                "board": board.notation, "size": str(shape)}

