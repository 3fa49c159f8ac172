"""Lay out a DAWG as a four-part ADTDAWG (see docs/formats.md).

An ADTDAWG node is a slot in a child block: (end-of-word, first child, child
set, tracking number T). T counts the words below the slot and below every
slot after it in the block, so the same DAWG state appears as different
nodes when it has different younger siblings. Blocks are identified by their
content, so two parents share a block whenever their children agree slot by
slot, whatever the letters.

Because T strictly decreases along a block and its last slot holds only that
slot's own words, two blocks can overlap only when one is a suffix of the
other. The layout therefore writes each block that is not a proper suffix of
another one as a run, and every other block points into the run it ends. This
is the fewest nodes any layout with the documented word numbering can have.

`WRITER`, the ADTDAWG's entry in compiler.writers, lays out the build's DAWG and writes
the four part files with their manifest section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver.formats.adtdawg import ADT_FILES, TRACKING_BYTE_MAX
from ..solver.layout import AdtLayout, child_set_entries
from .dawg import Dawg
from .format_writer import BuildWords, Writer, Written, file_entry


@dataclass
class Adt:
    """The four parts, as arrays ready to write."""

    layout: AdtLayout
    nodes: np.ndarray       # node words for nodes 1..N
    child_sets: np.ndarray  # (M, words) child-set words
    tracking: np.ndarray    # T for nodes 1..N
    wide_nodes: int         # K: nodes 1..K hold the tracking numbers above 255

    @property
    def node_count(self) -> int:
        return len(self.nodes)


def child_set_words(masks: list[int], letters: int) -> np.ndarray:
    """Child-set entries for letter masks: each letter's field holds its 1-based rank in the mask."""
    has = (np.asarray(masks, np.int64).reshape(-1, 1) >> np.arange(letters)) & 1
    return child_set_entries(np.where(has == 1, np.cumsum(has, axis=1), 0), letters)


def build_adtdawg(dawg: Dawg, letters: int) -> Adt:
    """The smallest ADTDAWG with the documented numbering for the words of a DAWG."""
    eow = dawg.eow.tolist()
    count = dawg.count.tolist()
    mask = dawg.mask.tolist()

    # Child sets: one entry per distinct letter set, sorted by entry value; index 0 is the empty set.
    distinct = sorted(set(mask[1:]) | {0})
    entries = child_set_words(distinct, letters)
    order = sorted(range(len(distinct)), key=lambda r: tuple(reversed(entries[r].tolist())))
    entries = entries[order]
    set_index = {distinct[r]: i for i, r in enumerate(order)}

    # Blocks by content, leaves first (states are numbered parents before children).
    block_of = [0] * dawg.states          # state -> block id (1-based), 0 = no children
    block_id: dict[tuple, int] = {}
    blocks: list[tuple] = []

    def slots(children: list[tuple[int, int] | None]) -> tuple:
        out, t = [], 0
        for child in reversed(children):
            if child is not None:
                c = child[1]
                t += count[c]
                out.append((eow[c], block_of[c], set_index[mask[c]], t))
            else:  # a start letter no word begins with
                out.append((0, 0, 0, t))
        return tuple(reversed(out))

    def intern(content: tuple) -> int:
        found = block_id.get(content)
        if found is None:
            found = block_id[content] = len(blocks) + 1
            blocks.append(content)
        return found

    for state in range(dawg.states - 1, 0, -1):
        children = dawg.children(state)
        if children:
            block_of[state] = intern(slots(children))
    by_letter = dict(dawg.children(0))
    root_block = intern(slots([(i, by_letter[i]) if i in by_letter else None for i in range(letters)]))

    # Suffix sharing: a suffix is (slot, next suffix); block heads that no
    # longer block continues into are the runs that get written.
    suffix_id: dict[tuple, int] = {}
    suffix_next = [0]
    suffix_slot: list[tuple | None] = [None]
    heads = [0]
    for content in blocks:
        nxt = 0
        for slot in reversed(content):
            key = (slot, nxt)
            sid = suffix_id.get(key)
            if sid is None:
                sid = suffix_id[key] = len(suffix_next)
                suffix_next.append(nxt)
                suffix_slot.append(slot)
            nxt = sid
        heads.append(nxt)
    continued = set(suffix_next)
    runs = [b for b in range(1, len(blocks) + 1) if heads[b] not in continued]
    runs.sort(key=lambda b: (b != root_block, -blocks[b - 1][0][3], b))

    position = [0] * len(suffix_next)     # suffix id -> node index of its first copy
    layout_slots: list[tuple] = []
    for b in runs:
        sid = heads[b]
        while sid:
            layout_slots.append(suffix_slot[sid])
            if not position[sid]:
                position[sid] = len(layout_slots)
            sid = suffix_next[sid]

    n_nodes = len(layout_slots)
    layout = AdtLayout.fitting(letters, n_nodes, len(entries))
    node_eow = np.fromiter((s[0] for s in layout_slots), np.uint64, n_nodes)
    first_child = np.fromiter((position[heads[s[1]]] if s[1] else 0 for s in layout_slots), np.uint64, n_nodes)
    child_set = np.fromiter((s[2] for s in layout_slots), np.uint64, n_nodes)
    tracking = np.fromiter((s[3] for s in layout_slots), np.int64, n_nodes)
    nodes = layout.node_words(first_child, child_set, node_eow)
    wide = np.flatnonzero(tracking > TRACKING_BYTE_MAX)
    return Adt(layout=layout, nodes=nodes, child_sets=entries, tracking=tracking,
               wide_nodes=int(wide[-1]) + 1 if len(wide) else 0)


def adtdawg_parts(adt: Adt) -> list[bytes]:
    """The four part files: node words, child sets, wide and narrow tracking numbers."""
    k = adt.wide_nodes
    return [
        np.uint32(adt.node_count).astype("<u4").tobytes() + adt.nodes.tobytes(),
        np.uint64(len(adt.child_sets)).astype("<u8").tobytes() + adt.child_sets.astype("<u8").tobytes(),
        np.uint32(k).astype("<u4").tobytes() + adt.tracking[:k].astype("<u4").tobytes(),
        adt.tracking[k:].astype(np.uint8).tobytes(),
    ]


def write_adtdawg(words: BuildWords, built: dict[str, object]) -> Written:
    adt = build_adtdawg(built["dawg"], len(words.charset))
    parts = adtdawg_parts(adt)
    section = {
        "files": [file_entry(name, data) for name, data in zip(ADT_FILES, parts)],
        "bytes": sum(map(len, parts)),
        "nodes": adt.node_count,
        "child_sets": len(adt.child_sets),
        "wide_nodes": adt.wide_nodes,
        "layout": adt.layout.to_manifest(),
    }
    return Written(dict(zip(ADT_FILES, parts)), section, adt)


def summary(section: dict) -> str:
    layout = "reference layout" if AdtLayout.from_manifest(section["layout"]).is_reference else "extended layout"
    return (f"{section['nodes']:>9} nodes  {section['child_sets']:>9} child sets {section['bytes']:>10} bytes  "
            f"adtdawg-1..4.dat ({layout}, K = {section['wide_nodes']})")


WRITER = Writer("adtdawg", "laying out ADTDAWG", ADT_FILES, write_adtdawg, summary)
