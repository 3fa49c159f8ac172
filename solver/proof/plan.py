"""Board classes: a bucket of letters per cell, class ids, symmetry and the split order.

A class is every board whose cell i holds a letter of the bucket chosen for
cell i. The buckets of a cell partition the lexicon's charset, so each board
lies in exactly one class. A class id is the mixed-radix number of the bucket
chosen at each cell (cell 0 the least significant digit).

A cell's buckets depend only on its kind (a corner, with at most 3 neighbours,
or any other cell), which every rotation and reflection preserves; so the image
of a class under a symmetry is a class, and only the classes whose id is the
smallest of their images (`canonical_ids`) need a proof.

Default split (letters not in the lexicon's charset are left out, empty
buckets dropped; letters of the charset in no bucket join the last one; the
vowels are the lexicon's language's, aeiou in English, and leave the other
buckets):
  up to 9 cells (3x3): 2 buckets, aeiou | the rest, on every cell;
  10 to 12 cells (3x4): corners 1 bucket (the whole charset), other cells
  3 buckets, aeiou | bcdfghjkmpqvwxyz | lnrst;
  larger boards: the published prover's 4x4 split, corners 2 buckets
  (aeiosuy | bcdfghjklmnpqrtvwxz), other cells 3 (aeijou | bcdfgmpqvwxz |
  hklnrsty): 1,068,363 canonical classes on 4x4.
Coarser classes cost less to list and sort (listing a class visits each of
its word paths once, however many boards share it) and more to search; the
defaults are the fastest of the splits measured on ENABLE2K
(benchmarks/results/prove.md, which has the figures, also of the splits
not chosen on 3x4: 3 buckets everywhere, 134,865 classes, and 2 buckets on
the other cells, 88 classes proved in pieces in larger classes that need
more memory; on 4x4: corners aeiou | bcdfgmpqvwxz | lnrst | hjky and the
3x4 buckets elsewhere, 17 million canonical classes, projected 11 times
the CPU time of the published split, and aeiou | the rest on the corners
with the 3x4 buckets elsewhere, 1.8 times).
`--classes SPEC` overrides it: comma-separated buckets for every cell
("aeiou,bcdfgh...,..."), or "CORNERS/OTHERS" with a comma list each side.
A proof never lists its classes up front: `canonical_order(seed)` goes through the
class ids in a seeded pseudo-random permutation (a Feistel network over the
smallest even power of two that holds them, the ids past the last skipped)
and yields the canonical ones, a block at a time, so a split of any size (the
default 4x5 one has 172 million canonical classes) starts proving at once in
constant memory; `canonical_count` counts them (Burnside's lemma) for
progress. `canonical_ids` lists them all, for small splits and tests.

The split order (the order cells are forced in) is the cells by neighbour count,
most first (centre, then edges, then corners), ties in reading order; 4x4 takes
the published prover's order (SPLIT_ORDERS), which gives the same classes the
same trees as that prover, so that per-class times compare the methods: over
23 classes its total time is ours' within 1% (benchmarks/results/prove.md).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..board import Shape, neighbours
from ..charset import Charset
from ..errors import ParameterError
from ..search.symmetry import symmetries

ONE = ("abcdefghijklmnopqrstuvwxyz",)
TWO = ("aeiou", "bcdfghjklmnpqrstvwxyz")
THREE = ("aeiou", "bcdfghjkmpqvwxyz", "lnrst")
MEASURED_VOWELS = "aeiou"  # English's: the defaults below are as measured for it
LARGE_CORNERS = ("aeiosuy", "bcdfghjklmnpqrtvwxz")  # the published prover's 4x4 split
LARGE_OTHERS = ("aeijou", "bcdfgmpqvwxz", "hklnrsty")
SPLIT_ORDERS = {(4, 4): (5, 9, 6, 10, 4, 7, 8, 11, 1, 13, 2, 14, 0, 3, 12, 15)}  # by (rows, cols): centre,
# the left and right edges' middles, the top and bottom ones, corners
MAX_CLASSES = 1 << 40  # ids must stay exact in int64 arithmetic
FEISTEL_ROUNDS = 4
ORDER_BLOCK = 1 << 16  # ids permuted and tested for canonical form at a time


def _feistel(positions: np.ndarray, half: int, keys: list[np.uint64]) -> np.ndarray:
    """A bijection of 0..2 ** (2 * half) - 1: Feistel rounds on the two halves' bits, each round
    mixing one half with a key (a 64-bit multiply-xorshift hash) into the other."""
    shift, mask = np.uint64(half), np.uint64((1 << half) - 1)
    left, right = positions >> shift, positions & mask
    for key in keys:
        mixed = (right ^ key) * np.uint64(0x9E3779B97F4A7C15)
        mixed ^= mixed >> np.uint64(31)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(29)
        left, right = right, left ^ (mixed & mask)
    return (left << shift) | right


def _default(shape: Shape) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if shape.cells <= 9:
        return TWO, TWO
    if shape.cells <= 12:
        return ONE, THREE
    return LARGE_CORNERS, LARGE_OTHERS


def _parse_list(text: str, charset: str) -> tuple[str, ...]:
    buckets = [b.strip().lower() for b in text.split(",")]
    if any(not b for b in buckets):
        raise ParameterError("classes", f"empty bucket in {text!r}")
    letters = Charset(charset)
    seen: dict[str, str] = {}
    for b in buckets:
        if letters.outside(b):
            raise ParameterError("classes", f"bucket {letters.foreign(b)}")
        for ch in b:
            if ch in seen:
                raise ParameterError("classes", f"letter {ch!r} is in more than one bucket ({seen[ch]!r}, {b!r})")
            seen[ch] = b
    missing = [ch for ch in charset if ch not in seen]
    if missing:
        raise ParameterError("classes", f"buckets do not cover the charset: {''.join(missing).upper()} missing")
    return tuple("".join(sorted(b)) for b in buckets)


def parse_classes(spec: str, charset: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(corner buckets, other buckets) from a --classes SPEC (see the module)."""
    parts = spec.split("/")
    if len(parts) > 2:
        raise ParameterError("classes", f"{spec!r}: at most one '/' (CORNERS/OTHERS)")
    lists = [_parse_list(p, charset) for p in parts]
    return (lists[0], lists[-1])


def _with_vowels(buckets: tuple[str, ...], vowels: str, charset: str) -> tuple[str, ...]:
    """A default split with the language's vowels as its first bucket and the charset's other
    letters that no bucket names (Cyrillic, Polish ł) in the last one; English's (aeiou, the
    vowels the defaults were measured with) keep the defaults as they are (the larger boards'
    first buckets add a few consonants)."""
    if len(buckets) == 1 or vowels == MEASURED_VOWELS:
        return buckets
    others = ["".join(ch for ch in b if ch not in vowels) for b in buckets[1:]]
    others[-1] += "".join(ch for ch in charset if ch not in vowels and not any(ch in b for b in others))
    return (vowels, *others)


def _restrict(buckets: tuple[str, ...], charset: str) -> tuple[str, ...]:
    kept = ("".join(ch for ch in b if ch in charset) for b in buckets)
    out = tuple(b for b in kept if b)
    rest = "".join(ch for ch in charset if not any(ch in b for b in buckets))
    return out[:-1] + (out[-1] + rest,) if rest and out else out or (charset,)


@dataclass(frozen=True)
class ProofPlan:
    """What a proof over one shape splits the boards into: small, frozen and picklable."""

    shape: Shape
    charset: str                       # the lexicon's letters
    buckets: tuple[tuple[str, ...], ...]  # per cell, its buckets
    lexicon_digest: str                # what the lexicon holds (formats.base.Lexicon.identity)

    @cached_property
    def radix(self) -> np.ndarray:
        return np.array([len(b) for b in self.buckets], np.int64)

    @property
    def class_count(self) -> int:
        return int(np.prod(self.radix, dtype=object))

    @cached_property
    def order(self) -> tuple[int, ...]:
        """The split order: cells by neighbour count, most first, ties in reading order (or the
        shape's entry in SPLIT_ORDERS)."""
        if (self.shape.rows, self.shape.cols) in SPLIT_ORDERS:
            return SPLIT_ORDERS[self.shape.rows, self.shape.cols]
        nbrs = neighbours(self.shape)
        return tuple(sorted(range(self.shape.cells), key=lambda c: (-len(nbrs[c]), c)))

    def digits(self, class_id: int) -> list[int]:
        if not 0 <= class_id < self.class_count:
            raise ParameterError("class_id", f"{class_id} is outside 0..{self.class_count - 1}")
        out = []
        for r in self.radix.tolist():
            out.append(class_id % r)
            class_id //= r
        return out

    def class_of(self, board: str) -> int:
        """The id of the class holding a board given as one letter per cell ('q' for Qu)."""
        letters = board.lower()
        if len(letters) != self.shape.cells:
            raise ParameterError("board", f"{board!r} is not {self.shape.cells} letters (a {self.shape} board)")
        class_id, weight = 0, 1
        for buckets, ch in zip(self.buckets, letters):
            digit = next((i for i, b in enumerate(buckets) if ch in b), None)
            if digit is None:
                raise ParameterError("board", Charset(self.charset).foreign(ch.upper()))
            class_id += digit * weight
            weight *= len(buckets)
        return class_id

    def class_buckets(self, class_id: int) -> list[str]:
        """The letters each cell of the class may hold."""
        return [self.buckets[c][d] for c, d in enumerate(self.digits(class_id))]

    def describe(self, class_id: int) -> str:
        """The class as its cells' buckets, row by row ('/' between rows)."""
        cells = self.class_buckets(class_id)
        cols = self.shape.cols
        return "/".join(" ".join(f"[{b}]" for b in cells[r * cols:(r + 1) * cols]) for r in range(self.shape.rows))

    def canonical_count(self) -> int:
        """How many ids `canonical_ids` lists, without listing them: the symmetry orbits of the classes
        (Burnside's lemma; a symmetry fixes the classes whose buckets agree along each of its cycles)."""
        perms = symmetries(self.shape)
        fixed = 0
        for perm in perms.tolist():
            count, seen = 1, set()
            for start in range(self.shape.cells):
                if start not in seen:
                    count *= int(self.radix[start])  # a cycle's cells are of one kind: the same buckets
                    cell = start
                    while cell not in seen:
                        seen.add(cell)
                        cell = perm[cell]
            fixed += count
        return fixed // len(perms)

    def canonical_class(self, class_id: int) -> int:
        """The id of the canonical class of `class_id`'s symmetry orbit (the smallest of its images)."""
        digits = np.array(self.digits(class_id), np.int64)
        weights = np.concatenate([[1], np.cumprod(self.radix[:-1])]).astype(np.int64)
        return int(min((digits[perm] * weights).sum() for perm in symmetries(self.shape)))

    def canonical_ids(self) -> list[int]:
        """The class ids that are the smallest of their images under the shape's symmetries, in order
        (all of them in memory: for small splits; a proof iterates `canonical_order`)."""
        out = []
        for lo in range(0, self.class_count, ORDER_BLOCK):
            ids = np.arange(lo, min(lo + ORDER_BLOCK, self.class_count), dtype=np.int64)
            out.extend(ids[self._canonical(ids)].tolist())
        return out

    def canonical_order(self, seed: int) -> Iterator[int]:
        """Every canonical class id once, in an order shuffled by `seed` (the same on every run and
        machine), listed lazily: a block of ORDER_BLOCK positions of a seeded permutation of the ids
        at a time, so memory does not grow with the number of classes."""
        bits = max(2, (self.class_count - 1).bit_length())
        half = (bits + 1) // 2  # a balanced Feistel network permutes 2 ** (2 * half) >= class_count positions
        rng = random.Random(seed)
        keys = [np.uint64(rng.getrandbits(64)) for _ in range(FEISTEL_ROUNDS)]
        for lo in range(0, 1 << (2 * half), ORDER_BLOCK):
            ids = _feistel(np.arange(lo, lo + ORDER_BLOCK, dtype=np.uint64), half, keys).astype(np.int64)
            ids = ids[ids < self.class_count]
            yield from ids[self._canonical(ids)].tolist()

    def _canonical(self, ids: np.ndarray) -> np.ndarray:
        """Which of `ids` are the smallest of their images under the shape's symmetries."""
        radix = self.radix
        weights = np.concatenate([[1], np.cumprod(radix[:-1])]).astype(np.int64)
        digits = (ids[:, None] // weights[None, :]) % radix[None, :]
        keep = np.ones(len(ids), bool)
        for perm in symmetries(self.shape)[1:]:
            # the image's cell i holds the bucket of cell perm[i]; buckets are alike on both
            keep &= (digits[:, perm] * weights).sum(axis=1) >= ids
        return keep

    def _coarser(self) -> str:
        """A split with few enough classes (a hint for a refused split): the whole charset on the
        corners and two buckets on the other cells, or the whole charset everywhere."""
        two = _restrict(TWO, self.charset)
        nbrs = neighbours(self.shape)
        buckets = tuple((self.charset,) if len(nbrs[c]) <= 3 else two for c in range(self.shape.cells))
        coarser = ProofPlan(self.shape, self.charset, buckets, self.lexicon_digest)
        return coarser.spec() if coarser.class_count <= MAX_CLASSES else self.charset

    def fingerprint(self) -> str:
        """Identifies the lexicon's content, the shape and the split (for checkpoint headers)."""
        text = f"{self.lexicon_digest}|{self.shape}|{';'.join(','.join(b) for b in self.buckets)}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def spec(self) -> str:
        """The split as a --classes SPEC."""
        corner, other = self._kinds()
        return ",".join(corner) if corner == other else f"{','.join(corner)}/{','.join(other)}"

    def _kinds(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        nbrs = neighbours(self.shape)
        corner = next((self.buckets[c] for c in range(self.shape.cells) if len(nbrs[c]) <= 3), self.buckets[0])
        other = next((self.buckets[c] for c in range(self.shape.cells) if len(nbrs[c]) > 3), corner)
        return corner, other


def make_plan(lexicon, shape: Shape | tuple[int, int], classes: str | None = None) -> ProofPlan:
    """The split of the boards of `shape` over `lexicon`'s charset: the default one, or --classes."""
    try:
        shape = Shape.of(shape)
    except Exception as err:
        raise ParameterError("shape", str(err).removeprefix("shape: ")) from None
    charset = lexicon.charset.letters
    if classes is not None and not isinstance(classes, str):
        raise ParameterError("classes", f"must be the buckets' letters as text (as --classes), got {classes!r}")
    if classes is not None:
        corner, other = parse_classes(classes, charset)
    else:
        vowels = lexicon.language.vowels
        corner, other = (_restrict(_with_vowels(b, vowels, charset), charset) for b in _default(shape))
    nbrs = neighbours(shape)
    buckets = tuple(corner if len(nbrs[c]) <= 3 else other for c in range(shape.cells))
    plan = ProofPlan(shape, charset, buckets, lexicon.identity)
    if plan.class_count > MAX_CLASSES:
        raise ParameterError("classes", f"{plan.class_count:,} classes for {shape}: too many (at most "
                             f"{MAX_CLASSES:,}); use coarser buckets, e.g. '{plan._coarser()}'")
    return plan
