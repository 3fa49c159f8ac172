"""Proving a score bound over every board of a shape: per class (`prove_class`) and in full (`prove`).

For a class: list its entries (solver.proof.entries) and build its
sum/choice tree once, as nodes in an arena (solver.proof.tree), whose root's
bound is the class's. While the bound of a subclass reaches the target, force
the next cell of the split order to each letter of its bucket on the tree
itself (the letter's subtree merged into the rest, unchanged subtrees shared;
the nodes made are dropped when the branch is done); once few cells are left
(DEEP_CELLS) or the bound is within DEEP_BOUND times the target, force the
remaining cells by deep forcing (solver.proof.deep_forcing), which
prunes on a bound as tight as a merge's at each cell's top but merges nothing.
The full boards it leaves are scored exactly by the ordinary solver.

Memory per class, for R entry rows and C cells (K = ceil(C / 12) key words a
row, ceil(C / 10) over more than 30 letters): the sort's scratch (16 + 16K
bytes a row: the listing writes its rows there, 8 + 8K bytes a row, and the sort
spreads them into the other half and back), in a buffer with room for MAX_ROWS
rows that is allocated once per process and kept; the tree is built from the
sorted rows themselves. A class that writes RELEASE_BYTES of it or more gives
its pages back as soon as what they hold has been read for the last time
(entries.sort_entries: the spares once sorted; the sorted rows as the tree's
build passes them; the arena once the class is done), so that it never holds
two stages at once: on 4x4 the sort's peak is 48 bytes a listed row, and the
build's the tree beside a chunk of rows. The tree's
arena: 16 bytes a node (a header and the parent's row for it, in two int32
tables of two columns; about 4 nodes a row on ENABLE2K 4x4 classes), with
half as much again to spare, growing by doubling in place (`memory.grow`)
while forced subtrees down the branch being explored need more (they share
what they do not change, so they take a fraction of their parent each), kept
for the next class, beside the merge's log (16 bytes a task, room for one for
every 16 rows of the tree, touched as far as a force queues tasks). A large
class's peak is the larger of the sort's and the tree's with what forcing
adds. Classes below RELEASE_BYTES (56 MiB) keep their pages, for speed: the
3x3 ENABLE2K proof, whose classes are mostly listing, took 6% more CPU at the
same classes' threshold than at twice it, and 9% more at half it. With
the kernels loaded without numba (solver.proof.compiled), every ENABLE2K 4x4
class measured peaks at 0.53-0.78 of the published prover's in a fresh
process (benchmarks/results/prove.md, "The merge breadth first"). A class whose listing
would give more than MAX_ROWS rows (2^25) is proved in pieces, one bucket
halved until each piece fits.
`ClassRecord.peak_bytes` is what a class held as arrays (of the kept buffers,
the most rows any class wrote, whether or not their pages were given back
since: an upper bound on what is resident).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..board import Shape, neighbour_table
from ..charset import Charset
from ..errors import DawgError, ParameterError, is_whole
from ..rules import Rules, load_rules
from ..schema import MAX_COUNT, Check, integer, list_of, number, only_fields, pair, text
from ..search.symmetry import canonical_codes
from .compiled import kernels
from .deep_forcing import FIRST_ROOM
from .memory import release
from .plan import ProofPlan, make_plan
from .tables import tables_of
from .tree import NO_ROOM, Tree

MAX_ROWS = 1 << 25          # entry rows per class (33.5 M) at most: see the memory note above
RELEASE_BYTES = 56 << 20    # listing bytes from which a class gives its buffer's pages back once used (84 MiB while
# the listing wrote rows of its own beside the sort's, 128 MiB while the sorted rows were also written out as
# tokens: the same classes at 4x4 and 3x3)
DEEP_CELLS = 7               # with at most this many cells left to force, force them deep instead of on the tree
DEEP_BOUND = 2.4             # ... or once the bound is at most this many times the target (measured on 3x3,
# 3x4 and 4x4 classes: benchmarks/results/prove.md, "Forcing on the tree"; 2.2 until deep forcing's pushes
# got cheaper: "The merge breadth first")
SCORE_BATCH = 4096           # boards scored exactly per call of the solver


@dataclass
class ClassRecord:
    """The outcome of one class: its root bound, the boards in it reaching the target
    (canonical text, score), bounds computed (nodes), seconds taken (wall and the proving
    thread's CPU), and memory: `peak_bytes`, the most bytes of arrays the class held at once
    (the listing buffers' rows written so far by any class, which stay resident, the tree's
    arena and deep forcing's output; not the lexicon or the interpreter), and `max_rss`, the
    process's peak resident set so far (ru_maxrss: every class it proved before counts too).
    Records of checkpoints written before the last three fields read as CPU = wall, 0 bytes."""

    class_id: int
    bound: int
    boards: list[tuple[str, int]] = field(default_factory=list)
    nodes: int = 0
    scored: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_bytes: int = 0
    max_rss: int = 0

    def to_dict(self) -> dict:
        return {"class_id": self.class_id, "bound": self.bound, "boards": [[b, s] for b, s in self.boards],
                "nodes": self.nodes, "scored": self.scored, "seconds": self.seconds,
                "cpu_seconds": self.cpu_seconds, "peak_bytes": self.peak_bytes, "max_rss": self.max_rss}

    @classmethod
    def from_dict(cls, data: dict) -> ClassRecord:
        data = {**_older_defaults(data), **data}
        return cls(int(data["class_id"]), int(data["bound"]), [(str(b), int(s)) for b, s in data["boards"]],
                   int(data["nodes"]), int(data["scored"]), float(data["seconds"]), float(data["cpu_seconds"]),
                   int(data["peak_bytes"]), int(data["max_rss"]))

    @staticmethod
    def schema(plan: ProofPlan) -> Check:
        """The check of a record's dict (`to_dict`) read back from a checkpoint of `plan`'s proof
        (one written before the CPU and memory fields passes, with `from_dict`'s defaults)."""
        board = text(f"[{plan.charset}]{{{plan.shape.cells}}}", f"a board of {plan.shape.cells} letters")
        check = only_fields(class_id=integer(), bound=integer(), nodes=integer(), scored=integer(), seconds=number(),
                       cpu_seconds=number(), peak_bytes=integer(0, 1 << 50), max_rss=integer(0, 1 << 50),
                       boards=list_of(pair(board, integer(), "a [board, score] pair"), most=MAX_COUNT))
        return lambda value, name: check({**_older_defaults(value), **value} if isinstance(value, dict) else value, name)


def _older_defaults(data: dict) -> dict:
    """The fields a record of an older checkpoint lacks, as `from_dict` reads them."""
    return {"scored": 0, "cpu_seconds": data.get("seconds", 0.0), "peak_bytes": 0, "max_rss": 0}


@dataclass
class ProofResult:
    """Every board of the shape reaching min_score (canonical, best first), and what it took."""

    shape: Shape
    min_score: int
    boards: list[tuple[str, int]]
    classes: int          # canonical classes proved
    class_count: int      # all classes, before symmetry
    nodes: int            # bounds computed
    scored: int           # boards scored exactly
    seconds: float
    cpu_seconds: float
    rules: Rules
    fingerprint: str = ""

    def to_dict(self) -> dict:
        return {"shape": str(self.shape), "min_score": self.min_score, "rules": self.rules.as_dict(),
                "boards": [{"board": b, "score": s} for b, s in self.boards],
                "classes": self.classes, "class_count": self.class_count, "bounds": self.nodes,
                "scored": self.scored, "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
                "fingerprint": self.fingerprint}


_buffers: dict[tuple[int, int], np.ndarray] = {}  # listing's buffer by (cells, wide): see _kept_buffer
_listing_bytes: dict[tuple[int, int], int] = {}  # the most bytes of them written by a class so far
_kept_trees: list = []  # the last class's tree (solver.proof.tree.Tree), whose tables the next class reuses



class _Geometry:
    """The per-shape arrays listing a class's entries needs."""

    def __init__(self, plan: ProofPlan) -> None:
        shape = plan.shape
        self.nbrs, self.nbr_count = neighbour_table(shape)
        self.rank = np.empty(shape.cells, np.int64)
        self.rank[list(plan.order)] = np.arange(shape.cells)


def _check_plan(lexicon, plan: ProofPlan) -> None:
    if not isinstance(plan, ProofPlan):
        raise ParameterError("plan", f"expected a ProofPlan (from make_plan), got {type(plan).__name__}")
    if plan.charset != lexicon.charset.letters:
        raise ParameterError("plan", f"made for charset {plan.charset.upper()}, not this lexicon's "
                             f"{lexicon.charset.letters.upper()}")


def check_min_score(min_score) -> int:
    """A target the prover can take: from 1 up to where the tree's stored bounds saturate (solver.proof.tree)."""
    from .tree import BOUND_CAP

    if not is_whole(min_score) or min_score < 1:
        raise ParameterError("min_score", f"must be a positive whole number, got {min_score!r}")
    if min_score > BOUND_CAP:
        raise ParameterError("min_score", f"must be at most {BOUND_CAP:,} (where the proof's bounds saturate), "
                             f"got {min_score:,}")
    return int(min_score)


class ClassTooLarge(DawgError):
    """Listing the buckets' entries would give more than MAX_ROWS rows (prove_class then splits them)."""


def _halves(cell_letters: list[str], order: tuple[int, ...]) -> list[list[str]]:
    """Two pieces covering cell_letters: the bucket of the first cell in split order holding more
    than one letter, halved (the cell on the most paths first, so the rows shrink fastest)."""
    cell = next((c for c in order if len(cell_letters[c]) > 1), None)
    if cell is None:
        raise DawgError(f"a single board needs more than {MAX_ROWS:,} entry rows")
    bucket = cell_letters[cell]
    low, high = list(cell_letters), list(cell_letters)
    low[cell], high[cell] = bucket[:len(bucket) // 2], bucket[len(bucket) // 2:]
    return [high, low]


def class_entries(lexicon, plan: ProofPlan, cell_letters: list[str], rules: Rules | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The sorted, distinct entry rows (tokens, points under `rules`, by default the lexicon's) of
    the boards whose cell i holds a letter of cell_letters[i] (see solver.proof.entries): each word
    counted once per distinct set of (cell, letter) pairs its paths use."""
    from .entries import emit_rows

    rules = lexicon.rules if rules is None else rules
    table, count, width, _, _ = _entries(lexicon, plan, cell_letters, rules)
    return emit_rows(table, count, plan.shape.cells, tables_of(lexicon, rules).wide, width)


def _kept_bytes(cells: int, wide: int) -> int:
    """The bytes of the buffers kept from class to class: the listing buffers' rows written so
    far (the rest of them is address space never touched) and the last tree."""
    return _listing_bytes.get((cells, wide), 0) + sum(tree.nbytes for tree in _kept_trees)


def _kept_buffer(cells: int, wide: int, words: int) -> np.ndarray:
    """The buffer of listing a class for the shape and layout and sorting its rows (entries.sort_scratch),
    with room for MAX_ROWS rows, allocated once and kept, so that no class is listed twice for want
    of room (untouched, the room costs address space only; a large class gives the pages back once
    used)."""
    from . import entries

    buffer = _buffers.get((cells, wide))
    if buffer is None or buffer.shape[1] < MAX_ROWS:
        buffer = _buffers[cells, wide] = entries.sort_scratch(MAX_ROWS, words)
    return buffer


def _entries(lexicon, plan: ProofPlan, cell_letters: list[str], rules: Rules
             ) -> tuple[np.ndarray, int, int, int, bool]:
    """The listed rows of `class_entries`, sorted by key, in the kept buffers (valid until its
    tree is built): the sort's columns (entries.sort_entries) and how many; the longest row; the
    bytes of arrays held while sorting them (the kept buffers' rows written so far and the last
    tree: for ClassRecord.peak_bytes); and whether the class is large enough that the buffers give
    their pages back once used (RELEASE_BYTES)."""
    from . import entries

    tables = tables_of(lexicon, rules)
    geo = _Geometry(plan)
    bucket_mask = np.array([sum(1 << code for code in lexicon.charset.codes(b)) for b in cell_letters], np.int64)
    cells, wide = plan.shape.cells, tables.wide
    scratch = _kept_buffer(cells, wide, entries.key_words(cells, wide))
    listed = entries.listed_rows(scratch)
    count, longest = kernels().list_entries(tables.nodes, wide, bucket_mask, geo.nbrs, geo.nbr_count,
                                            geo.rank, listed)
    written = min(count, MAX_ROWS) * listed.itemsize * len(listed)
    if count <= MAX_ROWS:
        written *= 2  # and sorted through the spares
    _listing_bytes[cells, wide] = max(_listing_bytes.get((cells, wide), 0), written)
    if count > MAX_ROWS:
        raise ClassTooLarge(f"class needs {count:,} entry rows, more than the {MAX_ROWS:,} a class may hold")
    large = written >= RELEASE_BYTES
    table = entries.sort_entries(scratch, count, cells, wide, give_back=large)  # (a large class's spares given back)
    return table, count, int(longest), _kept_bytes(cells, wide), large


def bound_of(lexicon, plan: ProofPlan, cell_letters: list[str], rules: Rules | None = None) -> int:
    """The sum/choice tree bound over the boards whose cell i holds a letter of cell_letters[i],
    under `rules` (by default the lexicon's)."""
    tokens, pts = class_entries(lexicon, plan, cell_letters, rules)
    return int(kernels().tree_bound(tokens, pts, 0))


class _Prover:
    """Branch and bound over one class, under `rules`."""

    def __init__(self, lexicon, plan: ProofPlan, min_score: int, rules: Rules) -> None:
        self.make_tree = Tree
        self.force_remaining = kernels().force_remaining  # deep forcing: a small subclass's boards left to score
        self.lexicon = lexicon
        self.plan = plan
        self.min_score = min_score
        self.rules = rules
        self.shape = plan.shape
        self.order = plan.order
        self.deep_boards = np.empty((1024, self.shape.cells), np.int64)  # deep forcing's output
        self.deep_pending = self._pending_tables(FIRST_ROOM)  # and its pending choices (pend, cur)
        self.nodes = 0
        self.scored = 0
        self.pending: list[np.ndarray] = []
        self.pending_count = 0
        self.found: list[tuple[np.ndarray, int]] = []
        self.peak_bytes = 0  # see ClassRecord.peak_bytes
        self.wide = tables_of(lexicon, rules).wide
        self.key = self.shape.cells, self.wide  # of the kept buffers

    def run(self, cell_letters: list[str]) -> int:
        """Prove the boards whose cell i holds a letter of cell_letters[i]; return the largest root
        bound of the pieces proved. A piece whose rows would pass MAX_ROWS is split in two (the
        bucket of the first cell in split order with more than one letter, halved) until every
        piece fits: memory stays bounded however coarse the class."""
        bound = 0
        pieces = [cell_letters]
        while pieces:
            piece = pieces.pop()
            try:
                table, count, _, held, large = _entries(self.lexicon, self.plan, piece, self.rules)
            except ClassTooLarge:
                pieces.extend(_halves(piece, self.order))
                continue
            tree = self.make_tree(table, count, self.shape.cells, self.wide, 0, _kept_trees.pop() if _kept_trees else None,
                                  give_back=large)
            self.peak_bytes = max(self.peak_bytes, held + tree.nbytes)
            if large:  # the rows are in the tree now: whatever the sort and the build left resident of the buffer
                release(_buffers[self.key])
            bound = max(bound, self._prove_piece(piece, tree))
            if large:  # a large arena's pages too, or the next class would list and sort beside them
                tree.give_back()
            _kept_trees.append(tree)
        self._flush()
        return bound

    def _prove_piece(self, cell_letters: list[str], tree) -> int:
        self.codes = [np.array(sorted(self.lexicon.charset.codes(b)), np.int64) for b in cell_letters]
        self.letters = np.zeros((self.shape.cells, max(len(c) for c in self.codes)), np.int64)
        self.letter_count = np.array([len(self.codes[c]) for c in self.order], np.int64)
        for r, c in enumerate(self.order):
            self.letters[r, :len(self.codes[c])] = self.codes[c]
        board = np.full(self.shape.cells, -1, np.int64)
        bound = tree.bound(tree.root)  # the piece's
        self._search(tree, tree.root, 0, board)
        return bound

    def _search(self, tree, root: int, depth: int, board: np.ndarray) -> None:
        """Branch on the subclass whose tree is `root`, with `depth` cells of the split order
        forced (as in `board`)."""
        self.nodes += 1
        self.peak_bytes = max(self.peak_bytes, self._held(tree))
        bound = tree.bound(root)
        if bound < self.min_score:
            return
        cells = self.shape.cells
        if depth == cells:
            self._score(board[None, :].copy())
            return
        if self._forces_deep(depth, bound):
            self._force_deep(tree, root, depth, board)
            return
        cell = self.order[depth]
        for letter in self.codes[cell].tolist():
            mark = tree.mark()
            board[cell] = letter
            self._search(tree, tree.force(root, depth, letter), depth + 1, board)
            tree.reset(mark)
        board[cell] = -1

    def _held(self, tree) -> int:
        """The bytes of arrays held now: the kept buffers, the tree's arena and deep forcing's tables."""
        return (_kept_bytes(*self.key) + tree.nbytes + self.deep_boards.nbytes
                + sum(table.nbytes for table in self.deep_pending))

    def _pending_tables(self, room: int) -> tuple[np.ndarray, np.ndarray]:
        """Deep forcing's tables of pending choices, with room for `room` a rank."""
        return np.empty((self.shape.cells, room), np.int64), np.empty((self.shape.cells, room), np.int64)

    def _forces_deep(self, depth: int, bound: int) -> bool:
        """Whether a subclass is finished by deep forcing rather than forced on the tree."""
        return self.shape.cells - depth <= DEEP_CELLS or bound <= DEEP_BOUND * self.min_score

    def _force_deep(self, tree, root, depth, board) -> None:
        """Force the cells left by the allocation-free deep forcing (solver.proof.deep_forcing) of
        the subclass's tree; score the boards it leaves exactly."""
        while True:
            found, nodes = self.force_remaining(*tree.arrays, root, depth, self.letters, self.letter_count, self.wide,
                                                self.min_score, self.deep_boards, *self.deep_pending)
            if found == NO_ROOM:
                self.deep_pending = self._pending_tables(2 * self.deep_pending[0].shape[1])
            elif found > len(self.deep_boards):
                self.deep_boards = np.empty((found, self.shape.cells), np.int64)
            else:
                break
        self.nodes += nodes
        if found:
            rest = list(self.order[depth:])
            many = np.repeat(board[None, :], found, axis=0)
            many[:, rest] = self.deep_boards[:found, depth:]
            self._score(many)

    def _score(self, boards: np.ndarray) -> None:
        self.pending.append(boards)
        self.pending_count += len(boards)
        if self.pending_count >= SCORE_BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        boards = np.concatenate(self.pending)
        self.pending, self.pending_count = [], 0
        scores = self.lexicon.score_codes(boards, self.shape, rules=self.rules)
        self.scored += len(boards)
        good = scores >= self.min_score
        for b, s in zip(boards[good], scores[good].tolist()):
            self.found.append((b, int(s)))


def prove_class(lexicon, plan: ProofPlan, class_id: int, min_score: int,
                rules: Rules | str | None = None) -> ClassRecord:
    """Every board of class `class_id` scoring at least `min_score` under `rules` (a Rules, a built-in
    name or a rules file; by default the lexicon's), in canonical form (distinct, best first), with the
    class's root bound."""
    _check_plan(lexicon, plan)
    min_score = check_min_score(min_score)
    if not is_whole(class_id):
        raise ParameterError("class_id", f"must be a whole number, got {class_id!r}")
    class_id = int(class_id)
    plan.digits(class_id)  # range check
    start, cpu_start = time.perf_counter(), time.thread_time()
    prover = _Prover(lexicon, plan, min_score, lexicon.rules if rules is None else load_rules(rules))
    bound = prover.run(plan.class_buckets(class_id))
    boards: dict[str, int] = {}
    if prover.found:
        codes = canonical_codes(np.array([b for b, _ in prover.found]), plan.shape)
        for row, (_, s) in zip(codes, prover.found):
            boards[lexicon.charset.symbols(row.tolist())] = s
    ordered = sorted(boards.items(), key=lambda kv: (-kv[1], kv[0]))
    return ClassRecord(class_id, bound, ordered, prover.nodes, prover.scored, time.perf_counter() - start,
                       time.thread_time() - cpu_start, prover.peak_bytes,
                       resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)


def prove(lexicon, shape: Shape | tuple[int, int], min_score: int, classes: str | None = None, seed: int = 0,
          on_record: Callable[[ClassRecord, int, int], None] | None = None,
          rules: Rules | str | None = None) -> ProofResult:
    """Every board of `shape` scoring at least `min_score` under `rules` (a Rules, a built-in name or
    a rules file; by default the lexicon's) (canonical, best first, each once): all canonical
    classes proved in this process, in an order shuffled by `seed` (`canonical_order`);
    `on_record(record, done, total)` is called after each class."""
    min_score = check_min_score(min_score)
    if not is_whole(seed) or seed < 0:
        raise ParameterError("seed", f"must be a whole number, 0 or more, got {seed!r}")
    rules = lexicon.rules if rules is None else load_rules(rules)
    plan = make_plan(lexicon, shape, classes)
    start, cpu_start = time.perf_counter(), time.process_time()
    total = plan.canonical_count()
    records = []
    for done, class_id in enumerate(plan.canonical_order(seed), 1):
        record = prove_class(lexicon, plan, class_id, min_score, rules)
        records.append(record)
        if on_record is not None:
            on_record(record, done, total)
    return combine(plan, min_score, records, time.perf_counter() - start, time.process_time() - cpu_start, rules)


def check_records(lexicon, plan: ProofPlan, min_score: int, records: list[ClassRecord], rules: Rules) -> None:
    """Refuse (DawgError, one line naming the class and the board) a record holding a board that a
    proof of its class cannot give: each must be a board of the shape over the charset, in canonical
    form, in the record's class, and score, by the solver here, what the record says, at least
    min_score and at most the class's bound, under `rules`. Records come from checkpoints and workers: this keeps a
    damaged or forged one out of the answer. (A class whose boards were dropped passes: only proving
    it again shows that.)"""
    cells, charset = plan.shape.cells, Charset(plan.charset)
    boards: list[tuple[ClassRecord, str, int]] = []
    for record in records:
        for board, score in record.boards:
            if len(board) != cells:
                _refuse(record, board, f"is not a {plan.shape} board ({len(board)} letters, not {cells})")
            if charset.outside(board):
                _refuse(record, board, charset.foreign())
            boards.append((record, board, score))
    for start in range(0, len(boards), SCORE_BATCH):
        batch = boards[start:start + SCORE_BATCH]
        codes = np.array([charset.codes(board) for _, board, _ in batch], np.int64)
        canonical = canonical_codes(codes, plan.shape)
        scores = lexicon.score_codes(codes, plan.shape, rules=rules).tolist()
        for (record, board, score), row, canon, actual in zip(batch, codes, canonical, scores):
            home = plan.canonical_class(plan.class_of(board))
            if not np.array_equal(row, canon):
                _refuse(record, board, f"is not in canonical form ({charset.symbols(canon.tolist())!r})")
            if home != record.class_id:
                _refuse(record, board, f"belongs to class {home}")
            if actual != score:
                _refuse(record, board, f"scores {actual:,}, not the {score:,} recorded")
            if actual < min_score:
                _refuse(record, board, f"scores {actual:,}, below the min score {min_score:,}")
            if actual > record.bound:
                _refuse(record, board, f"scores {actual:,}, above the class's recorded bound {record.bound:,}")


def _refuse(record: ClassRecord, board: str, problem: str) -> None:
    shown = board if len(board) <= 24 else board[:20] + "..."
    raise DawgError(f"class {record.class_id}: the recorded board {shown!r} {problem}; the record is refused "
                    f"(a damaged or forged checkpoint, or a faulty worker)")


def combine(plan: ProofPlan, min_score: int, records: list[ClassRecord], seconds: float,
            cpu_seconds: float, rules: Rules) -> ProofResult:
    """The result of a proof under `rules` from the records of all its canonical classes (from any workers)."""
    boards: dict[str, int] = {}
    for record in records:
        for board, score in record.boards:
            boards[board] = score
    ordered = sorted(boards.items(), key=lambda kv: (-kv[1], kv[0]))
    return ProofResult(plan.shape, min_score, ordered, len(records), plan.class_count,
                       sum(r.nodes for r in records), sum(r.scored for r in records), seconds, cpu_seconds,
                       rules, plan.fingerprint())
