"""One build: word list in, trie + DAWG + ADTDAWG + manifest out, with its figures."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..solver import __version__
from ..solver.charset import Charset
from ..solver.errors import DawgError
from ..solver.formats.adtdawg import ADT_FILES
from ..solver.formats.common import MANIFEST_FILE, MANIFEST_VERSION
from ..solver.formats.dawg import DAWG_FILE
from ..solver.formats.trie import TRIE_FILE
from .adtdawg import build_adtdawg
from .dawg import minimise
from .trie import build_trie
from .wordlist import MIN_LENGTH, load_word_list
from .write import (
    adtdawg_parts,
    check_output_dir,
    dawg_bytes,
    manifest_bytes,
    trie_bytes,
    write_files,
)

Stage = Callable[[str], AbstractContextManager]


@dataclass
class BuildResult:
    out_dir: Path
    manifest: dict
    seconds: float


def default_out_dir(source: Path, charset: Charset) -> Path:
    """build/<list name>-<charset label>, relative to the current directory."""
    return Path("build") / f"{source.stem}-{charset.label}"


def build_lexicon(source: Path, charset: Charset, out_dir: Path | None = None,
                  max_length: int | None = None, stage: Stage | None = None) -> BuildResult:
    """Compile `source` into all three formats in `out_dir`; `stage(name)` wraps each step.

    An `out_dir` that exists and is not a previous build is refused before any work.
    """
    stage = stage or _silent
    started = time.perf_counter()
    out_dir = out_dir or default_out_dir(source, charset)
    check_output_dir(out_dir)
    try:
        files, manifest = compile_lexicon(source, charset, max_length, stage)
    except MemoryError:  # a huge list with little sharing: say so in one line, keep the old build
        raise DawgError(f"{source}: not enough memory to build this lexicon") from None
    with stage(f"writing {out_dir}"):
        write_files(out_dir, files)
    return BuildResult(out_dir=out_dir, manifest=manifest, seconds=time.perf_counter() - started)


def compile_lexicon(source: Path, charset: Charset, max_length: int | None = None,
                    stage: Stage | None = None) -> tuple[dict[str, bytes], dict]:
    """Every file of a build (name -> bytes, the manifest among them) and the manifest; writes nothing."""
    stage = stage or _silent
    with stage("reading word list"):
        words = load_word_list(source, charset, max_length)
    length_cap = max_length or words.max_length
    with stage("building trie"):
        trie = build_trie(words.words, charset)
        trie_file = trie_bytes(trie, charset, length_cap, len(words.words))
    with stage("minimising DAWG"):
        dawg = minimise(trie)
        dawg_file = dawg_bytes(dawg, charset, length_cap)
    with stage("laying out ADTDAWG"):
        adt = build_adtdawg(dawg, len(charset))
        parts = adtdawg_parts(adt)

    files = {TRIE_FILE: trie_file, DAWG_FILE: dawg_file, **dict(zip(ADT_FILES, parts))}
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "tool": f"boggle-dawg {__version__}",
        "source": {"name": source.name, "sha256": words.sha256, "bytes": words.size,
                   "lines": words.lines, "entries": words.entries},
        "options": {"charset": charset.letters, "min_length": MIN_LENGTH, "max_length": max_length},
        "charset": charset.letters,
        "words": len(words.words),
        "max_length": length_cap,
        "dropped": words.dropped,
        "trie": {**_file_entry(TRIE_FILE, trie_file), "nodes": trie.size},
        "dawg": {**_file_entry(DAWG_FILE, dawg_file), "states": dawg.states, "edges": dawg.edges},
        "adtdawg": {
            "files": [_file_entry(name, data) for name, data in zip(ADT_FILES, parts)],
            "bytes": sum(map(len, parts)),
            "nodes": adt.node_count,
            "child_sets": len(adt.child_sets),
            "wide_nodes": adt.wide_nodes,
            "layout": adt.layout.to_manifest(),
        },
    }
    files[MANIFEST_FILE] = manifest_bytes(manifest)
    return files, manifest


def _silent(name: str) -> AbstractContextManager:
    return nullcontext()


def _file_entry(name: str, data: bytes) -> dict:
    return {"file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
