"""Hand-built hostile lexicon files, and the writers and checksum repair the fuzz cases share.

Each file here is built field by field (not by the compiler) so that it is
exactly as hostile as intended: cycles that make a board walk run forever,
word counts past what the kernels' integer types hold, counts that wrap, an
ADTDAWG re-encoded with wide fields. Every checksum is repaired (header CRC-32,
the manifest's sizes and SHA-256), so only the structural checks stand
between such a file and the kernels.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from pathlib import Path

import msgpack
import numpy as np

from boggle_dawg.solver.charset import JPA14
from boggle_dawg.solver.formats.adtdawg import ADT_FILES
from boggle_dawg.solver.formats.common import HEADER, LEGACY_VERSION, MANIFEST_FILE
from boggle_dawg.solver.formats.dawg import DAWG_FILE, DAWG_MAGIC
from boggle_dawg.solver.formats.trie import TRIE_FILE, TRIE_MAGIC
from boggle_dawg.solver.layout import NARROW, AdtLayout, child_set_entries, edge_word

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
CRC_OFFSET = HEADER.span("crc32")[0]


# --- writers -------------------------------------------------------------------------


def header_bytes(magic: bytes, letters: str, max_length: int, words: int, nodes: int, edges: int,
                 body: bytes) -> bytes:
    """A trie/DAWG header; counts are stored modulo 2**32 as the u32 fields would hold them."""
    return HEADER.pack(magic=magic, version=LEGACY_VERSION, charset_size=len(letters), max_length=min(max_length, 255),
                       charset=letters.upper().encode("ascii"), words=words % 2**32, nodes=nodes % 2**32,
                       edges=edges % 2**32, crc32=zlib.crc32(body))


def trie_file(letters: str, first, mask, eow, max_length: int) -> bytes:
    body = NARROW.pack(np.asarray(first), np.asarray(mask), np.asarray(eow)).astype("<u8").tobytes()
    return header_bytes(TRIE_MAGIC, letters, max_length, int(np.sum(eow)), len(first), 0, body) + body


def dawg_file(letters: str, first, mask, eow, child, skip, counts, max_length: int) -> bytes:
    states = NARROW.pack(np.asarray(first), np.asarray(mask), np.asarray(eow)).astype("<u8")
    edges = edge_word(child, skip)
    counts = np.asarray([c % 2**32 for c in counts], "<u4")
    body = states.tobytes() + edges.astype("<u8").tobytes() + counts.tobytes()
    return header_bytes(DAWG_MAGIC, letters, max_length, int(counts[0]), len(states), len(edges),
                        body) + body


def adt_parts(layout: AdtLayout, first, child_set, eow, positions, tracking, wide: int | None = None) -> list[bytes]:
    """The four ADTDAWG part files for nodes 1..N (arrays without the null node 0).

    Tracking numbers of nodes 1..wide go to part 3 (u32, stored modulo 2**32),
    the rest to part 4 (u8); by default every node is wide.
    """
    n = len(first)
    wide = n if wide is None else wide
    nodes = layout.node_words(first, child_set, eow)
    sets = child_set_entries(np.asarray(positions), layout.letters)
    t = [int(v) % 2**32 for v in tracking]
    return [np.uint32(n).tobytes() + nodes.tobytes(),
            np.uint64(len(sets)).tobytes() + sets.astype("<u8").tobytes(),
            np.uint32(wide).tobytes() + np.asarray(t[:wide], "<u4").tobytes(),
            np.asarray(t[wide:], np.uint8).tobytes()]


def file_entry(name: str, data: bytes) -> dict:
    return {"file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def repair_crc(path: Path) -> None:
    """Recompute the header CRC-32 of a trie/DAWG file, whatever else is wrong with it."""
    data = bytearray(path.read_bytes())
    if len(data) >= HEADER.size:
        data[CRC_OFFSET:CRC_OFFSET + 4] = zlib.crc32(bytes(data[HEADER.size:])).to_bytes(4, "little")
        path.write_bytes(bytes(data))


def repair_manifest(directory: Path) -> None:
    """Make the manifest's file sizes and SHA-256 match the files beside it, where it has them."""
    path = directory / MANIFEST_FILE
    try:
        manifest = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    except Exception:  # noqa: BLE001 (a manifest mangled beyond repair stays as it is)
        return
    if not isinstance(manifest, dict):
        return
    adt = manifest.get("adtdawg")
    entries = [manifest.get("trie"), manifest.get("dawg"), *(adt.get("files") or [] if isinstance(adt, dict) else [])]
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("file"), str):
            target = directory / entry["file"]
            if "\0" not in entry["file"] and target.is_file():
                entry.update(file_entry(entry["file"], target.read_bytes()))
    if isinstance(adt, dict) and isinstance(adt.get("files"), list):
        adt["bytes"] = sum(e.get("bytes", 0) for e in adt["files"] if isinstance(e, dict)
                           and isinstance(e.get("bytes"), int))
    path.write_bytes(msgpack.packb(manifest, use_bin_type=True))


def write_build(directory: Path, base_manifest: dict | None, files: dict[str, bytes], **changes) -> None:
    """Write files into a directory; with a base manifest, write it with `changes` and repaired entries."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (directory / name).write_bytes(data)
    if base_manifest is not None:
        manifest = {**base_manifest, **changes}
        (directory / MANIFEST_FILE).write_bytes(msgpack.packb(manifest, use_bin_type=True))
        repair_manifest(directory)


def read_manifest_dict(build: Path) -> dict:
    return msgpack.unpackb((build / MANIFEST_FILE).read_bytes(), raw=False)


def copy_build(build: Path, directory: Path, skip: tuple[str, ...] = ()) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for path in build.iterdir():
        if path.name not in skip:
            (directory / path.name).write_bytes(path.read_bytes())


# --- hostile ADTDAWGs ---------------------------------------------------------------------


def adt_manifest_changes(base: dict, layout: AdtLayout, nodes: int, sets: int, words: int, max_length: int) -> dict:
    adt = {**base["adtdawg"], "nodes": nodes, "child_sets": sets, "wide_nodes": nodes, "layout": layout.to_manifest()}
    return {"adtdawg": adt, "words": words, "max_length": max_length}


def adt_case(directory: Path, base: dict | None, letters: int, first, child_set, eow, positions, tracking,
             words: int, max_length: int, layout: AdtLayout | None = None) -> None:
    """Write an ADTDAWG as the build's four parts; with `base`, beside the base build's manifest."""
    layout = layout or AdtLayout.fitting(letters, len(first), len(positions))
    parts = adt_parts(layout, first, child_set, eow, positions, tracking)
    changes = adt_manifest_changes(base, layout, len(first), len(positions), words, max_length) if base else {}
    write_build(directory, base, dict(zip(ADT_FILES, parts)), **changes)


def cyclic_start_adt(letters: int, words: int, two_blocks: bool, every_start: bool = False):
    """Start node 1 leads back into the start block (directly, or through one more block);
    with every_start, every start node does (any path on a board is then a prefix).

    The tracking equations hold with T = 0 everywhere except T[1], which the
    equations leave free: a cycle with an arbitrary word count (0 with every_start)."""
    full = np.arange(1, letters + 1)
    positions = np.vstack([np.zeros(letters, np.int64), full])       # set 0: none, set 1: all letters
    first = np.zeros(letters, np.int64)
    child_set = np.zeros(letters, np.int64)
    eow = np.zeros(letters, np.int64)
    tracking = np.zeros(letters, np.int64)
    tracking[0] = words
    if two_blocks:  # node 1 -> block {n+1}; node n+1 -> start block
        first[0], child_set[0] = letters + 1, 2
        positions = np.vstack([positions, np.r_[1, np.zeros(letters - 1, np.int64)]])  # set 2: letter 0
        first, child_set = np.r_[first, 1], np.r_[child_set, 1]
        eow, tracking = np.r_[eow, 0], np.r_[tracking, words]
    elif every_start:
        first[:], child_set[:], tracking[0] = 1, 1, 0
    else:
        first[0], child_set[0] = 1, 1
    return first, child_set, eow, positions, tracking


def counting_ladder_adt(letters: int, target: int):
    """Words over letters 1 and 2 whose count is `target` (any size: bit k of it is the
    end-of-word flag of level k's second slot), in 2 nodes per level.

    Level k is a block of two slots, both leading to level k+1, so level k
    counts 2 * (level k+1) + bit k words; start node 2 (letter 1) leads to level 1."""
    levels = max(1, target.bit_length())
    positions = np.zeros((2, letters), np.int64)
    positions[1, 1:3] = (1, 2)                          # set 1: letters 1 and 2
    first, child_set, eow = [0] * letters, [0] * letters, [0] * letters
    first[1], child_set[1] = 1 + letters, 1
    below = [0] * (levels + 2)                          # X_k: words below level k's first slot
    for k in range(levels, 0, -1):
        below[k] = 2 * below[k + 1] + ((target >> (k - 1)) & 1)
    tracking = [below[1], below[1]] + [0] * (letters - 2)
    for k in range(1, levels + 1):
        child = 1 + letters + 2 * k if k < levels else 0
        bit = (target >> (k - 1)) & 1
        first += [child, child]
        child_set += [1 if child else 0] * 2
        eow += [0, bit]
        tracking += [below[k], bit + below[k + 1]]
    return first, child_set, eow, positions, tracking, levels + 1


def reencoded_adt(lex, layout: AdtLayout):
    """The arrays of an opened ADTDAWG lexicon, ready to write in another layout."""
    first, child_set, eow = (a[1:] for a in lex.fields())
    return first, child_set, eow, lex.positions(), lex.tracking[1:].astype(np.int64)


# --- hostile tries and DAWGs ----------------------------------------------------------------


def ladder_trie(letters: int, levels: int, word_level: int | None) -> bytes:
    """Every node of level k shares one child block (all letters) at level k+1: a DAG
    with letters**levels paths in levels * letters nodes; words only at `word_level`."""
    n = len(ALPHABET[:letters])
    first, mask, eow = [1], [(1 << n) - 1], [0]
    for level in range(1, levels + 1):
        nxt = 1 + level * n if level < levels else 0
        first += [nxt] * n
        mask += [(1 << n) - 1 if nxt else 0] * n
        eow += [1 if level == word_level else 0] * n
    return trie_file(ALPHABET[:letters], first, mask, eow, max_length=levels)


def backward_trie(letters: int, target: str) -> bytes:
    """A two-level trie whose first child block is pointed at itself ('self') or whose leaf
    points back at the root block ('ancestor')."""
    n = letters
    first, mask, eow = [1] + [0] * n, [(1 << n) - 1] + [0] * n, [0] + [1] * n
    if target == "self":
        first[1], mask[1] = 1, (1 << n) - 1
    else:
        first[2], mask[2] = 0, 1  # child at index 0: the root
    return trie_file(ALPHABET[:letters], first, mask, eow, max_length=15)


def ladder_dawg(letters: int, levels: int, branching: int, target: int | None, low: int = 0) -> bytes:
    """State k has `branching` edges (letters low, low+1, ...), all to state k+1. With target=None no state is final
    (zero words); else state k is final when digit k of target in base `branching` is 1, so
    the root counts exactly `target` words (stored modulo 2**32 when that does not fit)."""
    eow = [0] * (levels + 1)
    if target is not None:
        eow = [(target // branching**k) % branching for k in range(levels + 1)]
        assert set(eow) <= {0, 1} and target < branching ** (levels + 1), "target: digits 0/1 only"
    counts = [0] * (levels + 1)
    counts[levels] = eow[levels]
    for k in range(levels - 1, -1, -1):
        counts[k] = eow[k] + branching * counts[k + 1]
    first, mask, child, skip = [], [], [], []
    for k in range(levels + 1):
        if k < levels:
            first.append(len(child))
            mask.append(((1 << branching) - 1) << low)
            for j in range(branching):
                child.append(k + 1)
                skip.append((eow[k] + j * counts[k + 1]) % 2**32)
        else:
            first.append(0)
            mask.append(0)
    return dawg_file(ALPHABET[:letters], first, mask, eow, child, skip, counts, max_length=levels)


# --- the catalogue -------------------------------------------------------------------------

# name -> (format, maker(directory, base build, base manifest) -> path to open, expected outcome)
# expected: "reject" (must be a clean error), "same" (must score exactly as the base build),
# "either" (a clean error or a consistent lexicon).
Maker = Callable[[Path, Path, dict], Path]
CATALOGUE: dict[str, tuple[str, str, Maker]] = {}


def hostile(name: str, fmt: str, expected: str):
    def register(maker: Maker) -> Maker:
        CATALOGUE[name] = (fmt, expected, maker)
        return maker
    return register


def _letters(base: dict) -> int:
    return len(base["charset"])


@hostile("adt-cycle-jpa14-144-bytes", "adtdawg", "reject")
def _adt_cycle_jpa14(directory, build, base):
    arrays = cyclic_start_adt(len(JPA14), 1000, two_blocks=False)
    adt_case(directory, None, len(JPA14), *arrays, words=1000, max_length=15, layout=AdtLayout())
    return directory


@hostile("adt-cycle-every-start-node-jpa14", "adtdawg", "reject")
def _adt_cycle_all(directory, build, base):
    arrays = cyclic_start_adt(len(JPA14), 0, two_blocks=False, every_start=True)
    adt_case(directory, None, len(JPA14), *arrays, words=0, max_length=15, layout=AdtLayout())
    return directory


@hostile("adt-cycle-self", "adtdawg", "reject")
def _adt_cycle_self(directory, build, base):
    copy_build(build, directory, skip=(MANIFEST_FILE, *ADT_FILES))
    adt_case(directory, base, _letters(base), *cyclic_start_adt(_letters(base), base["words"], False),
             words=base["words"], max_length=base["max_length"])
    return directory


@hostile("adt-cycle-two-blocks", "adtdawg", "reject")
def _adt_cycle_two(directory, build, base):
    copy_build(build, directory, skip=(MANIFEST_FILE, *ADT_FILES))
    adt_case(directory, base, _letters(base), *cyclic_start_adt(_letters(base), base["words"], True),
             words=base["words"], max_length=base["max_length"])
    return directory


def _counting_adt(directory, build, base, target, with_manifest):
    if with_manifest:
        copy_build(build, directory, skip=(MANIFEST_FILE, *ADT_FILES))
    letters = _letters(base) if with_manifest else len(JPA14)
    *arrays, longest = counting_ladder_adt(letters, target)
    layout = None if with_manifest else AdtLayout()
    adt_case(directory, base if with_manifest else None, letters, *arrays, words=target,
             max_length=longest, layout=layout)
    return directory


for _target, _label in ((2**31, "2^31"), (2**31 - 1, "2^31-1"), (2**32 - 1, "2^32-1"), (2**32, "2^32-wraps")):
    for _with in (True, False):
        hostile(f"adt-{_label}-words{'' if _with else '-jpa14'}", "adtdawg", "either")(
            lambda d, b, m, t=_target, w=_with: _counting_adt(d, b, m, t, w))


def _wide(directory, build, base, first_bits, set_bits, rewrite):
    from boggle_dawg.solver.lexicon import open_lexicon

    lex = open_lexicon(build, "adtdawg")
    layout = AdtLayout(letters=_letters(base), first_child_bits=first_bits, child_set_bits=set_bits)
    copy_build(build, directory, skip=(MANIFEST_FILE,) + (ADT_FILES if rewrite else ()))
    if rewrite:
        parts = adt_parts(layout, *reencoded_adt(lex, layout), wide=lex.wide_nodes)
        files = dict(zip(ADT_FILES, parts))
    else:
        files = {}
    adt = {**base["adtdawg"], "layout": layout.to_manifest()}
    write_build(directory, base, files, adtdawg=adt)
    return directory


hostile("adt-wide-fields-20-13", "adtdawg", "same")(lambda d, b, m: _wide(d, b, m, 20, 13, True))
hostile("adt-wide-fields-32-30", "adtdawg", "same")(lambda d, b, m: _wide(d, b, m, 32, 30, True))
hostile("adt-wide-fields-16-11-u32", "adtdawg", "same")(lambda d, b, m: _wide(d, b, m, 16, 11, True))
hostile("adt-claims-wide-narrow-files", "adtdawg", "reject")(lambda d, b, m: _wide(d, b, m, 20, 13, False))
hostile("adt-claims-wider-u32", "adtdawg", "either")(lambda d, b, m: _wide(d, b, m, 16, 12, False))


def _alone(directory: Path, name: str, data: bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)
    return directory / name


hostile("dawg-ladder-no-words-3.6KB", "dawg", "reject")(
    lambda d, b, m: _alone(d, DAWG_FILE, ladder_dawg(26, 16, 26, None)))
hostile("dawg-ladder-no-words-deep", "dawg", "reject")(
    lambda d, b, m: _alone(d, DAWG_FILE, ladder_dawg(26, 60, 3, None)))
hostile("dawg-2^31-words", "dawg", "either")(lambda d, b, m: _alone(d, DAWG_FILE, ladder_dawg(26, 31, 2, 2**31, low=1)))
hostile("dawg-2^32-2-words", "dawg", "either")(
    lambda d, b, m: _alone(d, DAWG_FILE, ladder_dawg(26, 32, 2, 2**32 - 2, low=1)))
hostile("dawg-count-wraps-2^32", "dawg", "reject")(
    lambda d, b, m: _alone(d, DAWG_FILE, ladder_dawg(26, 32, 2, 2**32, low=1)))
hostile("trie-child-is-itself", "trie", "reject")(lambda d, b, m: _alone(d, TRIE_FILE, backward_trie(26, "self")))
hostile("trie-child-is-root", "trie", "reject")(lambda d, b, m: _alone(d, TRIE_FILE, backward_trie(26, "ancestor")))
hostile("trie-shared-blocks-no-words", "trie", "reject")(
    lambda d, b, m: _alone(d, TRIE_FILE, ladder_trie(26, 16, None)))
hostile("trie-shared-blocks-words-at-4", "trie", "reject")(
    lambda d, b, m: _alone(d, TRIE_FILE, ladder_trie(26, 16, 4)))


def make_hostile(name: str, directory: Path, build: Path) -> tuple[str, str, Path]:
    """Write the catalogue's file `name` into directory; (format, expected outcome, path to open)."""
    fmt, expected, maker = CATALOGUE[name]
    return fmt, expected, maker(directory, build, read_manifest_dict(build))
