"""Open a compiled lexicon and validate it once, completely.

`open_lexicon(path)` accepts a build directory, its manifest, one format's
file, or a directory holding the four reference ADTDAWG part files (read as
JPA14). Validation checks sizes, checksums, every index, the word numbering
equations and that every walk ends (no cycles, no node that leads to no
word), in the integer types the kernels use, so that the kernels can walk the
arrays with no bounds checks: after it, every reachable child index is inside
its array and every word number a walk can produce lies in the stamp array.
Any failure raises `DawgError` naming the file and what is wrong.

Files are opened relative to one descriptor of their directory, so a build
swapped in while a lexicon opens gives all old or all new files. A file with
no write permission bits is memory-mapped; any other is read into private
memory, so that later writes to it cannot change a running lexicon.
`Lexicon.check_unchanged` detects a mapped file changed in place (docs/formats.md).
"""

from __future__ import annotations

import fnmatch
import hashlib
import mmap
import os
import stat
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from . import kernels
from .board import Board, Shape, encode_texts, parse_board
from .charset import JPA14, Charset
from .engine import Found, Walk, python_inputs, score_codes, solve_one
from .errors import DawgError, reading
from .formats import (
    ADT_FILES,
    DAWG_FILE,
    DAWG_MAGIC,
    EDGE_DTYPE,
    FORMAT_VERSION,
    FORMATS,
    HEADER,
    MANIFEST_FILE,
    NODE_DTYPE,
    REFERENCE_ADT_GLOB,
    TRIE_FILE,
    TRIE_MAGIC,
    AdtLayout,
    child_set_fields,
    dawg_sections,
    reserved_bits,
    split_node_words,
)
from .manifest import Manifest, parse_manifest

DEFAULT_FORMAT = "trie"
REFERENCE_MAX_LENGTH = 15
TRACKING_DTYPE = np.dtype(np.int32)  # the ADTDAWG walk's tracking numbers, hence its word ids
PROGRESS_STEP = 1 << 14  # words listed between progress calls


def display(word: str) -> str:
    """A folded word ('q' = Qu die) as it is spelled."""
    return word.replace("q", "qu")


def _check(ok, path: Path, message: str) -> None:
    if not np.all(ok):
        raise DawgError(f"{path}: {message}")


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indices start, start + 1, ..., start + length - 1 of each span, concatenated."""
    ends = np.cumsum(lengths)
    return np.repeat(starts, lengths) + (np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - lengths, lengths))


# --- files ----------------------------------------------------------------------


@dataclass(frozen=True)
class _MappedFile:
    """A memory-mapped lexicon file: a descriptor kept open and what it was when mapped."""

    path: Path
    fd: int
    identity: tuple


def _identity(st: os.stat_result) -> tuple:
    return st.st_ino, st.st_size, st.st_mtime_ns


class _Snapshot:
    """A directory opened once: every file is opened relative to this one descriptor."""

    def __init__(self, directory: Path) -> None:
        self.path = directory
        with reading(directory, "directory"):
            self.fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        self.mapped: list[_MappedFile] = []

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd))

    def is_file(self, name: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(name, dir_fd=self.fd).st_mode)
        except OSError:
            return False

    def open(self, name: str):
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        return open(name, "rb", opener=lambda n, flags: os.open(n, flags | os.O_NONBLOCK, dir_fd=self.fd))

    def read(self, name: str, what: str = "lexicon file") -> np.ndarray:
        """The bytes of a file: mapped when it has no write permission bits, else a private copy."""
        path = self.path / name
        with reading(path, what), self.open(name) as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise DawgError(f"{path}: not a regular file")
            if st.st_mode & 0o222 or st.st_size == 0:
                return np.frombuffer(fh.read(), np.uint8)
            view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            self.mapped.append(_MappedFile(path, os.dup(fh.fileno()), _identity(st)))
        return np.frombuffer(view, np.uint8)

    def hand_over(self, lex: Lexicon) -> None:
        """Give the mapped files to `lex` (their descriptors close with it)."""
        lex._mapped = tuple(self.mapped)
        weakref.finalize(lex, _close_all, [f.fd for f in self.mapped])
        self.mapped = []

    def close(self) -> None:
        _close_all([self.fd, *(f.fd for f in self.mapped)])
        self.mapped = []


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def read_manifest(path: Path) -> Manifest:
    """Read and check a manifest file (every field's type and range, see solver.manifest)."""
    path = Path(path)
    snap = _Snapshot(path.parent)
    try:
        return parse_manifest(path, snap.read(path.name, "manifest").tobytes())
    finally:
        snap.close()


def _verify_sha256(path: Path, data: np.ndarray, expected: dict) -> None:
    if len(data) != expected["bytes"] or hashlib.sha256(data).hexdigest() != expected["sha256"]:
        raise DawgError(f"{path}: does not match its manifest (size or SHA-256 differs); "
                        f"the file is corrupt or from another build")


# --- the three formats -----------------------------------------------------------------


@dataclass
class Lexicon:
    """What every format offers: its words, charset and the arrays the kernels walk."""

    path: Path
    charset: Charset
    word_count: int
    max_length: int
    manifest: Manifest | None = field(default=None, repr=False)
    _mapped: tuple = field(default=(), repr=False, compare=False)  # _MappedFile of each mapped file

    format = ""

    def check_unchanged(self) -> None:
        """Raise DawgError if a memory-mapped file of this lexicon changed on disk since it was
        opened (its size or times differ): results computed over it cannot be trusted."""
        for mapped in self._mapped:
            if _identity(os.fstat(mapped.fd)) != mapped.identity:
                raise DawgError(f"{mapped.path}: changed on disk while in use; "
                                f"results computed from it are void")

    # --- scoring ---------------------------------------------------------------

    @cached_property
    def walk(self) -> Walk:
        """The kernel inputs of this format: views of the mapped files and small derived tables."""
        raise NotImplementedError

    @cached_property
    def _python_inputs(self) -> tuple:
        return python_inputs(self.walk.inputs)

    def _board(self, board: Board | str) -> Board:
        return board if isinstance(board, Board) else parse_board(board)

    def score(self, board: Board | str, skip_foreign: bool = False) -> int:
        """Points of one board (plain Python: no compile step, a few milliseconds)."""
        return solve_one(self.walk, self._python_inputs, self._board(board), self.charset,
                         skip_foreign, want_words=False)[0]

    def words(self, board: Board | str, skip_foreign: bool = False) -> list[Found]:
        """Every word on one board with its points and a path, longest first."""
        return solve_one(self.walk, self._python_inputs, self._board(board), self.charset,
                         skip_foreign, want_words=True)[1]

    def score_many(self, boards: Iterable[Board | str], jobs: int = 1, skip_foreign: bool = False,
                   shape: Shape | None = None, progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Scores of many boards (Board objects or notation), in input order, with the compiled
        kernels on `jobs` threads. Sizes may be mixed; `shape` sets the size of every text board.
        `progress(n)` is called as n more boards are done. A bad board raises BoardError."""
        boards = list(boards)
        texts = [b.notation if isinstance(b, Board) else b for b in boards]
        scores = np.zeros(len(texts), np.int64)
        for size, (indices, codes) in encode_texts(texts, self.charset, shape, skip_foreign).items():
            scores[indices] = score_codes(self.walk, codes, size, self.charset, jobs, progress)
        self.check_unchanged()
        return scores

    def score_codes(self, codes: np.ndarray, shape: Shape, jobs: int = 1) -> np.ndarray:
        """Scores of boards given as a (boards, cells) array of letter indices into the charset
        (`kernels.NO_LETTER` for a blank cell): the fast path for searches that build boards
        as arrays."""
        scores = score_codes(self.walk, codes, shape, self.charset, jobs)
        self.check_unchanged()
        return scores

    # --- words -------------------------------------------------------------------

    def word_list(self) -> list[str]:
        """All words, alphabetically, as spelled (Qu expanded)."""
        return [display(w) for w, _ in self.numbered_words()]

    def numbered_words(self, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
        """(folded word, word number) pairs in alphabetical order; `progress(n)` is called as n
        more words are found."""
        raise NotImplementedError

    def info(self) -> dict:
        return {"format": self.format, "path": str(self.path), "charset": self.charset.letters.upper(),
                "words": self.word_count, "max_length": self.max_length}


def _read_header(path: Path, data: np.ndarray, magic: bytes) -> np.void:
    if len(data) < HEADER.itemsize:
        raise DawgError(f"{path}: truncated ({len(data)} bytes, the header alone is {HEADER.itemsize})")
    head = data[:HEADER.itemsize].view(HEADER)[0]
    if head["magic"] != magic.rstrip(b"\0"):
        kind = "trie" if magic == TRIE_MAGIC else "DAWG"
        raise DawgError(f"{path}: not a {kind} file (bad magic number)")
    if head["version"] != FORMAT_VERSION:
        raise DawgError(f"{path}: format version {head['version']}, this reader knows {FORMAT_VERSION}")
    n = int(head["charset_size"])
    letters = bytes(head["charset"]).decode("ascii", "replace").lower()
    try:
        charset = Charset(letters)
    except ValueError:
        charset = None
    if charset is None or len(charset) != n:
        raise DawgError(f"{path}: header charset is invalid")
    body = data[HEADER.itemsize:]
    if zlib.crc32(body) != int(head["crc32"]):
        raise DawgError(f"{path}: checksum mismatch (corrupt file)")
    if head["words"] < 1:
        raise DawgError(f"{path}: holds no words")
    return head


def _check_children(path: Path, first: np.ndarray, mask: np.ndarray, reserved: np.ndarray, letters: int,
                    lowest: int, limit: int, what: str) -> np.ndarray:
    """Check letter masks and child ranges [lowest, limit); returns each node's child count."""
    _check(mask >> letters == 0, path, f"{what} letter mask names letters beyond the charset")
    _check(reserved == 0, path, f"{what} has reserved bits set")
    kids = np.bitwise_count(mask.astype(np.uint64)).astype(np.int64)
    _check((kids > 0) | (first == 0), path, f"{what} without children points at children")
    _check((kids == 0) | ((first >= lowest) & (first + kids <= limit)), path,
           f"{what} children out of range")
    return kids


@dataclass
class TrieLexicon(Lexicon):
    nodes: np.ndarray = field(default=None, repr=False)
    format = "trie"

    @classmethod
    def load(cls, snap: _Snapshot, name: str, manifest: Manifest | None) -> TrieLexicon:
        path, data = snap.path / name, snap.read(name)
        if manifest:
            _verify_sha256(path, data, manifest.entry("trie"))
        head = _read_header(path, data, TRIE_MAGIC)
        count = int(head["nodes"])
        if len(data) != HEADER.itemsize + count * NODE_DTYPE.itemsize or count < 1:
            raise DawgError(f"{path}: size does not match its node count (truncated or corrupt)")
        nodes = data[HEADER.itemsize:].view(NODE_DTYPE)
        first, mask, eow = split_node_words(nodes)
        charset = Charset(bytes(head["charset"]).decode().lower())
        kids = _check_children(path, first, mask, reserved_bits(nodes), len(charset), 1, count, "trie node")
        _check((kids == 0) | (first > np.arange(count)), path, "trie child placed before its parent")
        _check(eow[0] == 0, path, "root marked as a word")
        # A tree (every node but the root has one parent) whose leaves all end words: every
        # node leads to a word, so a walk follows only prefixes of words.
        # The child blocks tile 1..count-1 exactly when, block starts counted +1 and block ends
        # -1 at each index, only 1 (+1) and count (-1) are left: every block end is the start
        # of the next. (Nodes without children add +1 and -1 at 0.)
        if count > 1:
            tiles = np.bincount(first, minlength=count + 1) - np.bincount(first + kids, minlength=count + 1)
            tiles[1] -= 1
            tiles[count] += 1
            _check(tiles == 0, path, "trie node without exactly one parent (not a tree)")
        _check(eow[kids == 0] == 1, path, "trie leaf that ends no word")
        _check(eow.sum() == int(head["words"]), path, "word count in header differs from end-of-word marks")
        lex = cls(path=path, charset=charset, word_count=int(head["words"]),
                  max_length=int(head["max_length"]), manifest=manifest, nodes=nodes)
        return lex

    @cached_property
    def walk(self) -> Walk:
        return Walk(kernels.trie_board, "trie_batch", (self.nodes.view(np.int64),), len(self.nodes))

    def info(self) -> dict:
        return {**super().info(), "nodes": len(self.nodes)}

    def numbered_words(self, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
        first, mask, eow = (a.tolist() for a in split_node_words(self.nodes))
        return _walk_words(self.path, self.charset, self.max_length,
                           [(0, "")], lambda node: _popcount_children(first[node], mask[node]),
                           lambda node: node if eow[node] else None, progress)


def _popcount_children(first: int, mask: int):
    j = 0
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1, first + j
        j += 1
        mask ^= low


def _walk_words(path, charset, max_length, roots, children, word_number, progress=None):
    """Depth-first enumeration shared by all formats; states carry (node, prefix)."""
    letters = charset.letters
    out: list[tuple[str, int]] = []
    stack = list(reversed(roots))
    while stack:
        state, prefix = stack.pop()
        number = word_number(state)
        if number is not None:
            out.append((prefix, number))
            if progress and len(out) % PROGRESS_STEP == 0:
                progress(PROGRESS_STEP)
        if len(prefix) > max_length:
            raise DawgError(f"{path}: a path is longer than the maximum word length (cyclic file?)")
        stack.extend((child, prefix + letters[letter]) for letter, child in reversed(list(children(state))))
    if progress:
        progress(len(out) % PROGRESS_STEP)
    return out


@dataclass
class DawgLexicon(Lexicon):
    states: np.ndarray = field(default=None, repr=False)
    edges: np.ndarray = field(default=None, repr=False)
    counts: np.ndarray = field(default=None, repr=False)
    format = "dawg"

    @classmethod
    def load(cls, snap: _Snapshot, name: str, manifest: Manifest | None) -> DawgLexicon:
        path, data = snap.path / name, snap.read(name)
        if manifest:
            _verify_sha256(path, data, manifest.entry("dawg"))
        head = _read_header(path, data, DAWG_MAGIC)
        n_states, n_edges = int(head["nodes"]), int(head["edges"])
        sections = dawg_sections(n_states, n_edges)
        body = data[HEADER.itemsize:]
        if len(body) != sum(size for _, size in sections.values()) or n_states < 1:
            raise DawgError(f"{path}: size does not match its state and edge counts (truncated or corrupt)")

        def section(name, dtype):
            offset, size = sections[name]
            return body[offset:offset + size].view(dtype)

        states, edges, counts = section("states", NODE_DTYPE), section("edges", EDGE_DTYPE), section("counts", "<u4")
        first, mask, eow = split_node_words(states)
        charset = Charset(bytes(head["charset"]).decode().lower())
        kids = _check_children(path, first, mask, reserved_bits(states), len(charset), 0, n_edges, "DAWG state")
        child = (edges & np.uint64(0xFFFF_FFFF)).astype(np.int64)
        skip = (edges >> np.uint64(32)).astype(np.int64)
        count = counts.astype(np.int64)
        _check(child < n_states, path, "DAWG edge points outside the states")
        has = np.flatnonzero(kids)
        owner = np.repeat(has, kids[has])
        edge = _spans(first[has], kids[has])
        _check(child[edge] > owner, path, "DAWG edge goes back to an earlier state (cycle?)")
        # Skips and counts must number the words 0..W-1: skip(first edge) = eow,
        # each next skip adds the previous child's count, count = last skip + last count.
        is_first = np.r_[True, owner[1:] != owner[:-1]] if len(owner) else np.zeros(0, bool)
        expected = np.where(is_first, eow[owner], np.r_[0, skip[edge[:-1]] + count[child[edge[:-1]]]] if len(edge) else 0)
        _check(skip[edge] == expected, path, "DAWG edge skips do not number the words")
        total = eow.copy()
        if len(edge):
            is_last = np.r_[owner[1:] != owner[:-1], True]
            total[owner[is_last]] = skip[edge[is_last]] + count[child[edge[is_last]]]
        _check(total == count, path, "DAWG word counts disagree with the edges")
        # Acyclic (children after parents) with exact counts: count >= 1 means every state
        # leads to a word, so a walk follows only prefixes of words.
        _check(count >= 1, path, "DAWG state that leads to no word")
        _check(count[0] == int(head["words"]), path, "word count in header differs from the root's count")
        return cls(path=path, charset=charset, word_count=int(head["words"]), max_length=int(head["max_length"]),
                   manifest=manifest, states=states, edges=edges, counts=counts)

    @cached_property
    def walk(self) -> Walk:
        return Walk(kernels.dawg_board, "dawg_batch", (self.states.view(np.int64), self.edges.view(np.int64)),
                    self.word_count)

    def info(self) -> dict:
        return {**super().info(), "states": len(self.states), "edges": len(self.edges)}

    def numbered_words(self, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
        first, mask, eow = (a.tolist() for a in split_node_words(self.states))
        child = (self.edges & np.uint64(0xFFFF_FFFF)).astype(np.int64).tolist()
        skip = (self.edges >> np.uint64(32)).astype(np.int64).tolist()

        def children(state):
            node, rank = state
            for letter, e in _popcount_children(first[node], mask[node]):
                yield letter, (child[e], rank + skip[e])

        return _walk_words(self.path, self.charset, self.max_length, [((0, 0), "")], children,
                           lambda state: state[1] if eow[state[0]] else None, progress)


@dataclass
class AdtLexicon(Lexicon):
    layout: AdtLayout = field(default=None, repr=False)
    nodes: np.ndarray = field(default=None, repr=False)       # node words, index 0 = null node
    child_sets: np.ndarray = field(default=None, repr=False)  # (M, words)
    tracking: np.ndarray = field(default=None, repr=False)    # T[0..N], as uint32
    wide_nodes: int = 0
    format = "adtdawg"

    @classmethod
    def load(cls, snap: _Snapshot, names: list[str], manifest: Manifest | None) -> AdtLexicon:
        paths = [snap.path / name for name in names]
        parts = [snap.read(name) for name in names]
        if manifest:
            for p, data, expected in zip(paths, parts, manifest.files("adtdawg")):
                _verify_sha256(p, data, expected)
            layout, charset = manifest.layout, manifest.charset  # their letter counts agree (schema)
        else:
            charset, layout = Charset(JPA14), AdtLayout()
        p1, p2, p3, p4 = parts
        n = _header_count(paths[0], p1, "<u4")
        m = _header_count(paths[1], p2, "<u8")
        k = _header_count(paths[2], p3, "<u4")
        words_per_set = layout.child_set_words
        expect = [(p1, 4 + n * layout.node_bytes), (p2, 8 + m * 8 * words_per_set), (p3, 4 + k * 4),
                  (p4, n - k)]
        for p, (data, size) in zip(paths, expect):
            if len(data) != size:
                raise DawgError(f"{p}: {len(data)} bytes, the part headers call for {size} "
                                f"(truncated, corrupt or parts of different builds)")
        letters = len(charset)
        if n < letters or m < 1:
            raise DawgError(f"{paths[0]}: {n} nodes cannot hold the {letters} start nodes")
        raw = p1[4:].view(layout.node_dtype)
        nodes = np.concatenate([np.zeros(1, layout.node_dtype), raw])
        child_sets = p2[8:].view("<u8").reshape(m, words_per_set)
        tracking = np.concatenate([np.zeros(1, np.uint32), p3[4:].view("<u4"), p4.astype(np.uint32)])
        lex = cls(path=snap.path, charset=charset, word_count=int(tracking[1]),
                  max_length=int(manifest.data["max_length"]) if manifest else REFERENCE_MAX_LENGTH,
                  manifest=manifest, layout=layout, nodes=nodes, child_sets=child_sets, tracking=tracking,
                  wide_nodes=k)
        lex._validate(paths)
        if manifest and lex.word_count != int(manifest.data["words"]):
            raise DawgError(f"{paths[2]}: holds {lex.word_count} words, the manifest says {manifest.data['words']}")
        return lex

    @cached_property
    def walk(self) -> Walk:
        letters = self.layout.letters
        # one extra row: the start block as a virtual child set (letter i -> node i + 1)
        pos = np.vstack([self.positions(), np.arange(1, letters + 1)])
        set_mask = ((pos > 0).astype(np.int64) << np.arange(letters)).sum(axis=1)
        nodes = self.nodes if self.nodes.dtype.itemsize == 4 else self.nodes.view(np.int64)
        lay = self.layout
        inputs = (nodes, self.tracking.astype(TRACKING_DTYPE), pos.astype(np.uint8).ravel(), set_mask, letters,
                  lay.first_child_bits, lay.child_set_bits, lay.eow_shift)
        return Walk(kernels.adtdawg_board, "adtdawg_batch", inputs, self.word_count + 1)

    def fields(self):
        """(first child, child-set index, end-of-word) of every node, as int64 arrays."""
        w = self.nodes.astype(np.uint64)
        lay = self.layout
        first = (w & np.uint64((1 << lay.first_child_bits) - 1)).astype(np.int64)
        child_set = ((w >> np.uint64(lay.first_child_bits)) & np.uint64((1 << lay.child_set_bits) - 1)).astype(np.int64)
        eow = ((w >> np.uint64(lay.eow_shift)) & np.uint64(1)).astype(np.int64)
        return first, child_set, eow

    def positions(self) -> np.ndarray:
        """(M, letters) 1-based position of each letter's child in a child block, 0 = none."""
        word, shift, width = child_set_fields(self.layout.letters)
        sets = self.child_sets[:, word]
        return ((sets >> shift.astype(np.uint64)) & ((np.uint64(1) << width.astype(np.uint64)) - np.uint64(1))).astype(np.int64)

    def _validate(self, paths: list[Path]) -> None:
        p1, p2, p3, _ = paths
        lay = self.layout
        n = len(self.nodes) - 1
        w = self.nodes.astype(np.uint64)
        _check(w >> np.uint64(lay.eow_shift + 1) == 0, p1, "node word has bits set beyond end-of-word")
        first, child_set, eow = self.fields()
        m = len(self.child_sets)
        _check(child_set < m, p1, "node points outside the child sets")
        used_bits = int(child_set_fields(lay.letters)[1][-1] + child_set_fields(lay.letters)[2][-1])
        if self.child_sets.shape[1] == 1 and used_bits < 64:
            _check(self.child_sets[:, 0] >> np.uint64(used_bits) == 0, p2, "child set has bits beyond the last letter")
        pos = self.positions()
        present = pos > 0
        kids = present.sum(axis=1)
        _check(np.where(present, pos == np.cumsum(present, axis=1), True), p2,
               "child set positions are not 1, 2, ... in letter order")
        nk = kids[child_set]
        _check((first == 0) == (nk == 0), p1, "node's first child and child set disagree")
        _check((nk == 0) | (first + nk - 1 <= n), p1, "node's children out of range")
        # Tracking numbers: T[p] = words(p) + T[p+1] inside a child block, = words(p) at its end,
        # where words(p) = eow(p) + T[first child of p]. The start block is nodes 1..letters.
        tracking = self.tracking.astype(np.int64)
        _check(tracking[self.wide_nodes + 1:] <= 255, p3, "tracking number too large for part 4")
        limit = np.iinfo(TRACKING_DTYPE).max
        _check(tracking <= limit, p3, f"tracking number above {limit}: more words than the walk's "
               f"{TRACKING_DTYPE.itemsize * 8}-bit word numbers can count")
        words = eow + np.where(first > 0, tracking[first], 0)
        blocks = np.unique(np.column_stack([first, nk])[first > 0], axis=0)
        starts = np.r_[1, blocks[:, 0]]
        lengths = np.r_[len(self.charset), blocks[:, 1]]
        at = _spans(starts, lengths)
        last = np.zeros(len(at), bool)
        last[np.cumsum(lengths) - 1] = True
        after = np.where(last, 0, tracking[np.minimum(at + 1, n)])
        _check(tracking[at] == words[at] + after, p3, "tracking numbers do not number the words")
        _check(tracking[1] >= 1, p3, "holds no words")
        # Every child leads to a word, so T strictly decreases along a child block and never
        # grows from a node to its children: a cycle would keep T constant, which only the
        # edge from a non-word node p to its first child with T[p] = T[first] does. Those
        # edges form chains (one per node); following each 2^k times for 2^k > N ends every
        # chain at 0 unless a cycle holds it.
        children = at[len(self.charset):]
        _check(words[children] >= 1, p1, "child node that leads to no word")
        in_block = np.zeros(n + 1, bool)
        in_block[children] = True
        chain = np.where(in_block & (eow == 0) & (first > 0) & (tracking == tracking[first]), first, 0)
        for _ in range(n.bit_length() + 1):
            chain = chain[chain]
        _check(chain == 0, p1, "nodes form a cycle (a walk would never end)")

    def numbered_words(self, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
        first, child_set, eow = (a.tolist() for a in self.fields())
        pos = self.positions().tolist()
        t = self.tracking.astype(np.int64).tolist()

        def children(state):
            node, marker = state
            f = first[node]
            if f:
                base = marker - eow[node] - t[f]
                for letter, p in enumerate(pos[child_set[node]]):
                    if p:
                        c = f + p - 1
                        yield letter, (c, base + t[c])

        roots = [((i + 1, t[i + 1]), letter) for i, letter in enumerate(self.charset.letters)]
        return _walk_words(self.path, self.charset, self.max_length, roots, children,
                           lambda state: state[1] if eow[state[0]] else None, progress)

    def info(self) -> dict:
        return {**super().info(), "nodes": len(self.nodes) - 1, "child_sets": len(self.child_sets),
                "wide_nodes": self.wide_nodes, "layout": self.layout.to_manifest(),
                "reference_layout": self.layout.is_reference}


def _header_count(path: Path, data: np.ndarray, dtype: str) -> int:
    size = np.dtype(dtype).itemsize
    if len(data) < size:
        raise DawgError(f"{path}: truncated (no count header)")
    return int(data[:size].view(dtype)[0])


# --- finding the files ------------------------------------------------------------


def _reference_parts(snap: _Snapshot) -> list[str] | None:
    """The four reference part files of a directory, if it holds exactly one of each."""
    names = snap.names()
    found = []
    for part in (1, 2, 3, 4):
        matches = fnmatch.filter(names, REFERENCE_ADT_GLOB.format(part=part))
        if len(matches) != 1 or not snap.is_file(matches[0]):
            return None
        found.append(matches[0])
    return found


def _available(snap: _Snapshot, name: str | None) -> tuple[Manifest | None, dict[str, list[str]]]:
    """The manifest (if it covers what is opened) and the file names of each format present,
    in the order trie, DAWG, ADTDAWG. `name` is a single file asked for, else None."""
    manifest = None
    if snap.is_file(MANIFEST_FILE):
        manifest = parse_manifest(snap.path / MANIFEST_FILE, snap.read(MANIFEST_FILE, "manifest").tobytes())
    if name is not None:
        if manifest and name not in manifest.file_names():
            manifest = None  # a file renamed or copied next to another build's manifest
        fmt = _format_of_file(snap, name)
        if manifest:
            return manifest, {fmt: [e["file"] for e in manifest.files(fmt)]}
        if fmt != "adtdawg":
            return None, {fmt: [name]}
        parts = list(ADT_FILES) if name in ADT_FILES else _reference_parts(snap)
        return None, {fmt: parts} if parts and all(snap.is_file(p) for p in parts) else {}
    if manifest:
        return manifest, {fmt: [e["file"] for e in manifest.files(fmt)] for fmt in FORMATS}
    found = {}
    for fmt, names in (("trie", [TRIE_FILE]), ("dawg", [DAWG_FILE]), ("adtdawg", _reference_parts(snap)),
                       ("adtdawg", list(ADT_FILES))):
        if fmt not in found and names and all(snap.is_file(n) for n in names):
            found[fmt] = names
    return None, found


def _load(snap: _Snapshot, fmt: str, names: list[str], manifest: Manifest | None) -> Lexicon:
    if fmt == "adtdawg":
        lex = AdtLexicon.load(snap, names, manifest)
    else:
        lex = (TrieLexicon if fmt == "trie" else DawgLexicon).load(snap, names[0], manifest)
    if manifest and (lex.charset != manifest.charset or lex.word_count != manifest.data["words"]):
        raise DawgError(f"{lex.path}: charset or word count differs from {manifest.path}")
    snap.hand_over(lex)
    return lex


@contextmanager
def _opened(path: Path) -> Iterator[tuple[_Snapshot, str | None, Manifest | None, dict[str, list[str]]]]:
    """The directory of `path` opened once, the file asked for (None: the whole build), the
    manifest and the formats present (see `_available`); the directory closes after."""
    if not path.exists():
        raise DawgError(f"{path}: no such file or directory")
    if path.is_dir():
        snap, name = _Snapshot(path), None
    else:
        snap, name = _Snapshot(path.parent), None if path.name == MANIFEST_FILE else path.name
    try:
        manifest, found = _available(snap, name)
        if not found:
            raise DawgError(f"{path}: no lexicon here (no {MANIFEST_FILE}, {TRIE_FILE}, {DAWG_FILE} "
                            f"or ADTDAWG part files)")
        yield snap, name, manifest, found
    finally:
        snap.close()


def open_lexicon(path: str | Path, fmt: str | None = None) -> Lexicon:
    """Open and validate a lexicon: a build directory, its manifest, a format file or reference parts.
    Without `fmt`, a directory gives its trie, else its DAWG, else its ADTDAWG."""
    path = Path(path)
    if fmt is not None and fmt not in FORMATS:
        raise DawgError(f"--format: unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    with _opened(path) as (snap, name, manifest, found):
        if fmt is None:
            fmt = next(iter(found))
        elif fmt not in found:
            raise DawgError(f"{path}: is a {next(iter(found))} file, not {fmt}" if name else
                            f"{path}: no {fmt} lexicon here (holds {', '.join(found)})")
        return _load(snap, fmt, found[fmt], manifest)


def open_all(path: str | Path) -> tuple[Manifest | None, list[Lexicon]]:
    """The manifest (if any) and every lexicon present at `path` (one file: that one), each opened
    and validated, all from one snapshot of the directory."""
    with _opened(Path(path)) as (snap, _, manifest, found):
        return manifest, [_load(snap, fmt, names, manifest) for fmt, names in found.items()]


def _format_of_file(snap: _Snapshot, name: str) -> str:
    if name in ADT_FILES or name.startswith("Four_Part_"):
        return "adtdawg"
    with reading(snap.path / name, "lexicon file"), snap.open(name) as fh:
        magic = fh.read(8)
    if magic == TRIE_MAGIC:
        return "trie"
    if magic == DAWG_MAGIC:
        return "dawg"
    raise DawgError(f"{snap.path / name}: not a lexicon file (unknown magic number)")
