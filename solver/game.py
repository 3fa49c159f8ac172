"""One round of Boggle against the computer: judge each word a player types, then sum up.

The computer's answers come from one solve of the board (`Lexicon.words`), so
judging a word is a dictionary look-up. Only a word that is not an answer needs
more work: tracing it on the board tells "not in the dictionary" from "not on
the board".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from .board import Board, neighbours
from .board_walk import Found
from .language import ENGLISH, Language
from .rules import Rules


class Outcome(Enum):
    """What became of a typed word; the value is what the player reads."""

    ACCEPTED = "accepted"
    REPEATED = "already found"
    TOO_SHORT = "too short"
    NOT_LETTERS = "letters only"
    NOT_ON_BOARD = "not on the board"
    NOT_IN_DICTIONARY = "not in the dictionary"


@dataclass(frozen=True)
class Verdict:
    word: str          # as judged: in the language's game form (lower case, folds applied), spaces trimmed
    outcome: Outcome
    points: int = 0    # points won (accepted words only)


@dataclass(frozen=True)
class Summary:
    """The end of a round: the player's words in the order found, what was missed, the maximum."""

    board: Board
    rules: Rules
    found: tuple[tuple[str, int], ...]
    missed: tuple[tuple[str, int], ...]   # best first: most points, then alphabetical

    @property
    def min_length(self) -> int:
        return self.rules.min_length

    @property
    def score(self) -> int:
        return sum(p for _, p in self.found)

    @property
    def maximum(self) -> int:
        return self.score + sum(p for _, p in self.missed)

    @property
    def word_count(self) -> int:
        return len(self.found) + len(self.missed)

    def to_json(self) -> dict:
        return {"board": self.board.notation, "size": str(self.board.shape), "rules": self.rules.as_dict(),
                "min_length": self.rules.min_length,
                "score": self.score, "words": [{"word": w, "points": p} for w, p in self.found],
                "maximum": self.maximum, "word_count": self.word_count,
                "missed": [{"word": w, "points": p} for w, p in self.missed]}


def traceable(board: Board, word: str) -> bool:
    """Whether a path of adjacent cells, each used once, spells `word`; a cell gives all the
    letters of its face ('qu', 'th'), and blank cells give none and cannot be used."""
    faces = board.faces
    if not word or not set(word) <= set("".join(faces)):
        return False
    around = neighbours(board.shape)

    def extend(cell: int, at: int, used: int) -> bool:
        at += len(faces[cell])
        if at == len(word):
            return True
        used |= 1 << cell
        return any(not used >> nxt & 1 and faces[nxt] and word.startswith(faces[nxt], at)
                   and extend(nxt, at, used) for nxt in around[cell])

    return any(face and word.startswith(face) and extend(cell, 0, 0) for cell, face in enumerate(faces))


class Round:
    """A board, the computer's answers on it under `rules` (`Lexicon.words` with the same rules),
    and the words the player has found so far."""

    def __init__(self, board: Board, answers: Iterable[Found], rules: Rules, language: Language = ENGLISH) -> None:
        self.board = board
        self.rules = rules
        self.language = language  # typed words are folded as the lexicon's list was: "Straße" is strasse
        self.answers = {f.word: f.points for f in answers}
        self.found: dict[str, int] = {}

    @property
    def min_length(self) -> int:
        return self.rules.min_length

    def _length(self, word: str) -> int:
        """Letters a typed word counts for under the rules (a tile's letters, or one)."""
        return self.rules.word_length(self.language.charset(), word)

    @property
    def score(self) -> int:
        return sum(self.found.values())

    def submit(self, text: str) -> Verdict:
        """Judge one typed word, and keep it if it scores."""
        word = self.language.game_form(text.strip())
        if not word.isalpha():
            return Verdict(word, Outcome.NOT_LETTERS)
        if not self.rules.counts(self._length(word)):
            return Verdict(word, Outcome.TOO_SHORT)
        if word in self.found:
            return Verdict(word, Outcome.REPEATED)
        if word in self.answers:
            self.found[word] = self.answers[word]
            return Verdict(word, Outcome.ACCEPTED, self.answers[word])
        if traceable(self.board, word):
            return Verdict(word, Outcome.NOT_IN_DICTIONARY)
        return Verdict(word, Outcome.NOT_ON_BOARD)

    def summary(self) -> Summary:
        missed = sorted(((w, p) for w, p in self.answers.items() if w not in self.found),
                        key=lambda item: (-item[1], item[0]))
        return Summary(self.board, self.rules, tuple(self.found.items()), tuple(missed))
