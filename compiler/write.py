"""Serialise built structures with the layouts of `solver.formats`, atomically.

All files of a build are first written in full to hidden temporary names in
the output directory and flushed to disk; only then are they renamed over
the old ones, manifest last. A build that fails or is interrupted before that
point removes its temporaries and leaves the previous build untouched.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import msgpack
import numpy as np

from solver.charset import Charset
from solver.errors import DawgError
from solver.formats import (DAWG_MAGIC, FORMAT_VERSION, HEADER, MANIFEST_FILE, MAX_INDEX, TRIE_MAGIC,
                            node_word)

from .adtdawg import Adt
from .dawg import Dawg
from .trie import Trie


def _header(magic: bytes, charset: Charset, max_length: int, words: int, nodes: int,
            edges: int, body: bytes) -> bytes:
    if max(words, nodes, edges) >= MAX_INDEX:
        raise DawgError(f"lexicon too large for the format ({nodes} nodes, {edges} edges)")
    head = np.zeros((), HEADER)
    head["magic"] = magic
    head["version"] = FORMAT_VERSION
    head["charset_size"] = len(charset)
    head["max_length"] = min(max_length, 255)
    head["charset"] = charset.letters.upper().encode("ascii")
    head["words"] = words
    head["nodes"] = nodes
    head["edges"] = edges
    head["crc32"] = zlib.crc32(body)
    return head.tobytes()


def trie_bytes(trie: Trie, charset: Charset, max_length: int, words: int) -> bytes:
    body = node_word(trie.first, trie.mask, trie.eow).tobytes()
    return _header(TRIE_MAGIC, charset, max_length, words, trie.size, 0, body) + body


def dawg_bytes(dawg: Dawg, charset: Charset, max_length: int) -> bytes:
    states = node_word(dawg.first_edge, dawg.mask, dawg.eow)
    edges = dawg.edge_child.astype(np.uint64) | (dawg.edge_skip.astype(np.uint64) << np.uint64(32))
    body = states.tobytes() + edges.astype("<u8").tobytes() + dawg.count.astype("<u4").tobytes()
    return _header(DAWG_MAGIC, charset, max_length, int(dawg.count[0]), dawg.states, dawg.edges,
                   body) + body


def adtdawg_parts(adt: Adt) -> list[bytes]:
    """The four part files: node words, child sets, wide and narrow tracking numbers."""
    k = adt.wide_nodes
    return [
        np.uint32(adt.node_count).astype("<u4").tobytes() + adt.nodes.tobytes(),
        np.uint64(len(adt.child_sets)).astype("<u8").tobytes() + adt.child_sets.astype("<u8").tobytes(),
        np.uint32(k).astype("<u4").tobytes() + adt.tracking[:k].astype("<u4").tobytes(),
        adt.tracking[k:].astype(np.uint8).tobytes(),
    ]


def manifest_bytes(manifest: dict) -> bytes:
    return msgpack.packb(manifest, use_bin_type=True)


def write_files(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write name -> bytes into out_dir so that either all land or none does (manifest last)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise DawgError(f"{out_dir}: cannot create output directory ({err.strerror})") from None
    if not out_dir.is_dir():
        raise DawgError(f"{out_dir}: not a directory")
    names = sorted(files, key=lambda n: n == MANIFEST_FILE)
    staged: list[Path] = []
    try:
        for name in names:
            tmp = out_dir / f".{name}.tmp-{os.getpid()}"
            staged.append(tmp)
            with open(tmp, "wb") as fh:
                fh.write(files[name])
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, name in zip(staged, names):
            os.replace(tmp, out_dir / name)
        staged.clear()
        _fsync_dir(out_dir)
    except OSError as err:
        where = err.filename or out_dir
        raise DawgError(f"{where}: cannot write ({err.strerror})") from None
    finally:
        for tmp in staged:
            tmp.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

