"""Boggle dice: the real sets as data, user dice files, and seeded rolls.

A dice file (the built-in sets in solver/dice/ use the same format) holds one
die per line. Its faces are separated by spaces or commas; a face is a letter,
"Qu" (a lone "Q" means the same), a two-letter face such as "Th", or a blank
written "." or "_". A die may instead be one word with a face per character,
"Qu" or "Q" being one face: "AAEEGN", "HIMNQuU"; two-letter faces need the
separated form. Case does not matter. '#' starts a comment; blank lines are
skipped. Every die has the same number of faces, and the dice fill the board:
a square one unless a size RxC is given.

A roll shakes the dice like the real game: a random permutation puts the dice
in the cells, and each die shows a random face. Same seed, same boards, on any
machine and numpy version: the draws are raw 64-bit outputs of PCG64, whose
stream numpy keeps stable, rather than Generator methods whose algorithms may
change between releases.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .board import MAX_SIDE, Board, Shape
from .charset import QU, QU_FACE
from .errors import DawgError, ParameterError, reading

DEFAULT_DICE = "classic"
DICE_FOR_SIDE = {4: DEFAULT_DICE, 5: "big", 6: "super-big"}  # what a player expects on each square board
_SEPARATORS = re.compile(r"[\s,]+")
_BLANKS = (".", "_")
_ROLL_BLOCK = 4096  # boards drawn at a time
MAX_DICE_BYTES = 1 << 20  # far more than 64 dice and their comments: a larger file is not a dice file


@dataclass(frozen=True)
class DiceSet:
    """Named dice; each die's faces are written as in Board.faces ('a', 'qu', 'th', '' for blank)."""

    name: str
    description: str
    dice: tuple[tuple[str, ...], ...]

    def shape(self, size: Shape | None = None) -> Shape:
        """The board these dice fill: `size` if given (it must fit them exactly), else a square."""
        count = len(self.dice)
        if size is not None:
            if size.cells != count:
                raise DawgError(f"dice {self.name}: {count} dice cannot fill a {size} board "
                                f"({size.cells} cells)")
            return size
        side = round(count ** 0.5)
        if side * side != count:
            raise DawgError(f"dice {self.name}: {count} dice do not fill a square board; give --size RxC")
        return Shape(side, side)


def builtin_dice_names() -> list[str]:
    """Names of the dice sets shipped in solver/dice/."""
    return sorted(p.name[:-4] for p in _dice_directory().iterdir() if p.name.endswith(".txt"))


def _dice_directory() -> Path:
    return Path(__file__).with_name("dice")


def dice_for_size(size: Shape | None) -> str:
    """The built-in set for a board size: classic without one, else Big or Super Big Boggle."""
    if size is None:
        return DEFAULT_DICE
    if size.square and size.rows in DICE_FOR_SIDE:
        return DICE_FOR_SIDE[size.rows]
    raise DawgError(f"no built-in dice set fills a {size} board; give --dice FILE")


def load_dice(spec: str) -> DiceSet:
    """A built-in set by name, or a dice file by path."""
    if spec in builtin_dice_names():
        return parse_dice((_dice_directory() / f"{spec}.txt").read_text(encoding="utf-8"), spec)
    if not Path(spec).exists():
        raise ParameterError("dice", f"{spec!r} is neither a dice file nor a built-in set "
                        f"({', '.join(builtin_dice_names())})")
    return parse_dice(_read_dice_file(spec), spec)


def _read_dice_file(spec: str) -> str:
    """The text of a dice file, read in bounded memory: whatever the path names (/dev/zero, a
    huge or binary file) is refused after at most MAX_DICE_BYTES, and a FIFO nobody writes to
    reads as empty instead of waiting for a writer."""
    with reading(spec, "dice file"):
        fd = os.open(spec, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO must not wait for a writer
        with open(fd, "rb") as fh:
            os.set_blocking(fd, True)  # a pipe that has a writer is read to its end
            data = fh.read(MAX_DICE_BYTES + 1)
    if len(data) > MAX_DICE_BYTES:
        raise DawgError(f"{spec}: larger than {MAX_DICE_BYTES >> 20} MiB, not a dice file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DawgError(f"{spec} line {line}: not UTF-8 text (a dice file has one die per line)") from None
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DawgError(f"{spec} line {line}: a NUL byte: binary data, not a dice file")
    return text


def parse_dice(text: str, name: str) -> DiceSet:
    """Dice from the text of a dice file; errors name the file (`name`) and line."""
    dice: list[tuple[str, ...]] = []
    description = ""
    first_die_line = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line, _, comment = raw.partition("#")
        if not description and comment.strip() and not dice:
            description = comment.strip()
        tokens = [t for t in _SEPARATORS.split(line) if t]
        if not tokens:
            continue
        where = f"{name} line {number}"
        die = _compact_die(tokens[0], where) if len(tokens) == 1 else tuple(_face(t, where) for t in tokens)
        if dice and len(die) != len(dice[0]):
            raise DawgError(f"{where}: die has {len(die)} faces, the die on line {first_die_line} "
                            f"has {len(dice[0])}; every die needs the same number")
        if not dice:
            first_die_line = number
        dice.append(die)
    if not dice:
        raise DawgError(f"{name}: no dice (one die per line, e.g. 'A A E E G N')")
    if len(dice) > MAX_SIDE * MAX_SIDE:
        raise DawgError(f"{name}: {len(dice)} dice, more than the {MAX_SIDE}x{MAX_SIDE} board's "
                        f"{MAX_SIDE * MAX_SIDE} cells")
    return DiceSet(name, description, tuple(dice))


def _face(token: str, where: str) -> str:
    """One face written alone: 'A', 'Qu' or 'Q', 'Th', '.' or '_'."""
    face = token.lower()
    if face in _BLANKS:
        return ""
    if face in (QU, QU_FACE):
        return QU_FACE
    if face.isascii() and face.isalpha() and len(face) <= 2 and QU not in face:
        return face
    raise DawgError(f"{where}: face {token!r} is not a letter, Qu, a two-letter face like Th, "
                    f"or a blank ('.' or '_')")


def _compact_die(token: str, where: str) -> tuple[str, ...]:
    """A die written as one word, one face per character, 'Qu' or 'Q' being one face."""
    lowered = token.lower()
    faces = []
    at = 0
    while at < len(lowered):
        ch = lowered[at]
        if ch == QU:
            faces.append(QU_FACE)
            at += 2 if lowered.startswith(QU_FACE, at) else 1
            continue
        if ch in _BLANKS:
            faces.append("")
        elif ch.isascii() and ch.isalpha():
            faces.append(ch)
        else:
            raise DawgError(f"{where}: {token[at]!r} in {token!r} is not a face (letters, Qu, "
                            f"'.' or '_'; separate two-letter faces by spaces)")
        at += 1
    return tuple(faces)


def random_seed() -> int:
    """A fresh seed, short enough to type back."""
    return int.from_bytes(os.urandom(8), "little") % 10**9


def roll(dice: DiceSet, shape: Shape | None, seed: int, count: int = 1) -> Iterator[Board]:
    """`count` boards shaken from the dice; board i depends only on the seed and i.

    For each board the generator gives 2n raw 64-bit draws: the first n order
    the dice into the cells (sorting random keys gives a uniform permutation),
    the next n pick each die's face (the modulo bias is below 1e-18).
    """
    if seed < 0:
        raise ParameterError("seed", f"must be 0 or more, got {seed}")
    if count < 1:
        raise ParameterError("count", f"must be 1 or more, got {count}")
    return _shake(dice, dice.shape(shape), seed, count)


def _shake(dice: DiceSet, shape: Shape, seed: int, count: int) -> Iterator[Board]:
    n = len(dice.dice)
    sides = len(dice.dice[0])
    faces = np.array(dice.dice, dtype=object)
    bits = np.random.Generator(np.random.PCG64(seed)).bit_generator
    done = 0
    while done < count:
        block = min(_ROLL_BLOCK, count - done)
        draws = bits.random_raw((block, 2 * n))
        placement = np.argsort(draws[:, :n], axis=1, kind="stable")
        shown = (draws[:, n:] % np.uint64(sides)).astype(np.int64)
        for row in faces[placement, shown]:
            yield Board(tuple(row), shape)
        done += block
