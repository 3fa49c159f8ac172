"""Boggle dice: the real sets as data, user dice files, and seeded rolls.

A dice file (the built-in sets in solver/dice/ use the same format, and so do
the Tanglet game's `dice` files) holds one die per line. Its faces are
separated by spaces or commas; a face is a letter of any alphabet ("Ñ", "Я"),
a tile of the language ("Qu"; in English a lone "Q" means the same, as the
letter 'q' stands for the Qu die; in Polish, which has no tiles, "Q" is a
plain Q), a two-letter face such as "Th", or a blank written "." or "_". A die
may instead be one word with a face per character, a tile being one face:
"AAEEGN", "HIMNQuU"; two-letter faces need the separated form. Case does not
matter. '#' starts a comment. Every die has the same number of faces.

A blank line between dice ends a set: a file may hold several sets (Tanglet's
hold the 16 dice of the 4x4 game, a blank line, then the 25 of the 5x5 game);
the set whose dice fill the board of the size asked for is used, the first one
without a size. The dice fill the board: a square one unless a size RxC is
given.

A roll shakes the dice like the real game: a random permutation puts the dice
in the cells, and each die shows a random face. Same seed, same boards, on any
machine and numpy version: the draws are raw 64-bit outputs of PCG64, whose
stream numpy keeps stable, rather than Generator methods whose algorithms may
change between releases.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .board import MAX_SIDE, Board, Shape
from .charset import ENGLISH_CHARSET, Charset, letter_problem, lower
from .errors import DawgError, ParameterError, is_whole, reading

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


def load_dice(spec: str, charset: Charset = ENGLISH_CHARSET, size: Shape | None = None,
              folds: dict[int, str] | None = None) -> DiceSet:
    """A built-in set by name, or a dice file by path; `charset` says what a tile's letter alone
    means (English 'Q': Qu), `size` picks the set of a file of several, `folds` (`Language.letter_folds`)
    reads a face's letter as the language folds it (Catalan's face '·L' is the tile 'ŀl')."""
    return parse_dice(_dice_text(spec), spec, charset, size, folds)


def load_dice_sets(spec: str, charset: Charset = ENGLISH_CHARSET, folds: dict[int, str] | None = None) -> list[DiceSet]:
    """Every set of a built-in set or dice file, in file order (Tanglet's hold a 4x4 and a 5x5 set)."""
    return parse_dice_sets(_dice_text(spec), spec, charset, folds)


def _dice_text(spec: str) -> str:
    if spec in builtin_dice_names():
        return (_dice_directory() / f"{spec}.txt").read_text(encoding="utf-8")
    if not Path(spec).exists():
        raise ParameterError("dice", f"{spec!r} is neither a dice file nor a built-in set "
                        f"({', '.join(builtin_dice_names())})")
    return _read_dice_file(spec)


def _read_dice_file(spec: str) -> str:
    """The text of a dice file, read in bounded memory: whatever the path names (/dev/zero, a
    huge or binary file) is refused after at most MAX_DICE_BYTES, and a FIFO nobody writes to
    reads as empty instead of waiting for a writer."""
    with reading(spec, "dice file"):
        fd = os.open(spec, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO must not wait for a writer
        with open(fd, "rb") as fh:
            os.set_blocking(fd, True)  # a pipe that has a writer is read to its end
            data = fh.read(MAX_DICE_BYTES + 1)
            unwritten = not data and stat.S_ISFIFO(os.fstat(fd).st_mode)
    if unwritten:
        raise DawgError(f"{spec}: a named pipe that nothing was written to, not a dice file")
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


def parse_dice(text: str, name: str, charset: Charset = ENGLISH_CHARSET, size: Shape | None = None,
               folds: dict[int, str] | None = None) -> DiceSet:
    """The dice of a dice file's text for a board of `size` (see the module); errors name the file
    (`name`) and line."""
    sets = parse_dice_sets(text, name, charset, folds)
    dice = _pick_set([one.dice for one in sets], name, size)
    if len(dice) > MAX_SIDE * MAX_SIDE:
        raise DawgError(f"{name}: {len(dice)} dice, more than the {MAX_SIDE}x{MAX_SIDE} board's "
                        f"{MAX_SIDE * MAX_SIDE} cells")
    return DiceSet(name, sets[0].description, dice)


def parse_dice_sets(text: str, name: str, charset: Charset = ENGLISH_CHARSET,
                    folds: dict[int, str] | None = None) -> list[DiceSet]:
    """Every set of a dice file's text, in order, each face's letters read through `folds` (as
    `load_dice`); errors name the file (`name`) and line."""
    sets: list[list[tuple[str, ...]]] = [[]]
    description = ""
    first_die_line = 0
    for number, raw in enumerate(unicodedata.normalize("NFC", text).splitlines(), 1):
        line, _, comment = raw.partition("#")
        if not description and comment.strip() and not any(sets):
            description = comment.strip()
        tokens = [t for t in _SEPARATORS.split(line.translate(folds) if folds else line) if t]
        if not tokens:
            if not raw.strip() and sets[-1]:
                sets.append([])
            continue
        where = f"{name} line {number}"
        die = _compact_die(tokens[0], where, charset) if len(tokens) == 1 else \
            tuple(_face(t, where, charset) for t in tokens)
        dice = sets[-1]
        if dice and len(die) != len(dice[0]):
            raise DawgError(f"{where}: die has {len(die)} faces, the die on line {first_die_line} "
                            f"has {len(dice[0])}; every die needs the same number")
        if not dice:
            first_die_line = number
        dice.append(die)
    sets = [dice for dice in sets if dice]
    if not sets:
        raise DawgError(f"{name}: no dice (one die per line, e.g. 'A A E E G N')")
    return [DiceSet(name, description, tuple(dice)) for dice in sets]


def _pick_set(sets: list[tuple[tuple[str, ...], ...]], name: str, size: Shape | None) -> tuple[tuple[str, ...], ...]:
    """The set that fills a board of `size`; the first without a size, or when the file has one."""
    if size is None or len(sets) == 1:
        return sets[0]
    fitting = [dice for dice in sets if len(dice) == size.cells]
    if not fitting:
        counts = ", ".join(str(len(dice)) for dice in sets)
        raise DawgError(f"dice {name}: no set fills a {size} board ({size.cells} dice); its sets have {counts}")
    return fitting[0]


def _face(token: str, where: str, charset: Charset) -> str:
    """One face written alone: 'A', 'Ñ', 'Qu' (or a tile's letter alone, 'Q'), 'Th', '.' or '_'."""
    face = "".join(map(lower, token))
    if face in _BLANKS:
        return ""
    if face in charset.tile_letters or len(face) > 1 and charset.symbol_of(face) != face:
        return charset.face_of(charset.symbol_of(face))
    if len(face) <= 2 and not any(letter_problem(ch) or ch in charset.tile_letters for ch in face):
        return face
    tiles = ", ".join(f.capitalize() for _, f in charset.tiles)
    raise DawgError(f"{where}: face {token!r} is not a letter{', ' + tiles if tiles else ''}, a two-letter "
                    f"face like Th, or a blank ('.' or '_')")


def _compact_die(token: str, where: str, charset: Charset) -> tuple[str, ...]:
    """A die written as one word, one face per character, a tile ('Qu', or 'Q' alone) being one face."""
    lowered = "".join(map(lower, token))
    faces = []
    at = 0
    while at < len(lowered):
        tile = next((face for _, face in charset.tiles if lowered.startswith(face, at)), None)
        ch = lowered[at]
        if tile is not None:
            faces.append(tile)
            at += len(tile)
            continue
        if ch in _BLANKS:
            faces.append("")
        elif not letter_problem(ch):
            faces.append(charset.face_of(ch))
        else:
            raise DawgError(f"{where}: {token[at]!r} in {token!r} is not a face (letters, tiles such as Qu, "
                            f"'.' or '_'; separate two-letter faces by spaces)")
        at += 1
    return tuple(faces)


def random_seed() -> int:
    """A fresh seed, short enough to type back."""
    return int.from_bytes(os.urandom(8), "little") % 10**9


def roll(dice: DiceSet, shape: Shape | tuple[int, int] | None, seed: int, count: int = 1) -> Iterator[Board]:
    """`count` boards shaken from the dice; board i depends only on the seed and i.

    For each board the generator gives 2n raw 64-bit draws: the first n order
    the dice into the cells (sorting random keys gives a uniform permutation),
    the next n pick each die's face (the modulo bias is below 1e-18).
    """
    if not is_whole(seed):
        raise ParameterError("seed", f"must be a whole number, got {seed!r}")
    if seed < 0:
        raise ParameterError("seed", f"must be 0 or more, got {seed}")
    if count < 1:
        raise ParameterError("count", f"must be 1 or more, got {count}")
    return _shake(dice, dice.shape(None if shape is None else Shape.of(shape)), seed, count)


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
