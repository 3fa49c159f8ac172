"""Fuzz worker, run in a subprocess by test_fuzz.py: corrupt a build many ways, open and score it.

Usage: python fuzz_worker.py BUILD_DIR FORMAT FIRST_SEED COUNT WORK_DIR

For each seed it copies the build, corrupts one file (truncation, flipped
bits, out-of-range values at random words), usually repairs the trie/DAWG
CRC and drops the manifest so that the structural checks themselves are
what stands between the file and the kernels, then opens the lexicon and
scores boards with both engines. A clean rejection is a DawgError; any other
exception prints UNEXPECTED and makes the exit status 3; a crash kills the
process with a signal, which the test sees.
"""

from __future__ import annotations

import random
import shutil
import sys
import zlib
from pathlib import Path

import msgpack
import numpy as np

from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import ADT_FILES, DAWG_FILE, HEADER, MANIFEST_FILE, TRIE_FILE
from boggle_dawg.solver.lexicon import open_lexicon

BOARDS = ["abcdefghijklmnop", "serstaplrtesienq", "etaoinsrhldcumfp", "qqqqaaaaeeeessss", "tsetsetsetsetset"]


def corrupt(data: bytearray, rng: random.Random, word: int, body_start: int) -> bytearray:
    """One random corruption of a file's bytes."""
    mode = rng.choices(["truncate", "flip", "delta", "value", "zero", "big"], [2, 8, 5, 3, 1, 1])[0]
    if mode == "truncate" and len(data) > 1:
        return data[:rng.randrange(len(data))]
    if len(data) <= body_start:
        return data + bytes(rng.randrange(1, 16))
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(body_start, len(data) - word + 1) // word * word if len(data) - body_start >= word \
            else body_start
        at = max(at, body_start)
        if mode == "flip":
            bit = rng.randrange(8)
            data[min(at + rng.randrange(word), len(data) - 1)] ^= 1 << bit
        elif mode == "delta":  # a near miss: a small change to one word's value
            value = int.from_bytes(data[at:at + word], "little") + rng.choice([-3, -2, -1, 1, 2, 3])
            data[at:at + word] = (value % (1 << (8 * word))).to_bytes(word, "little")[:len(data) - at]
        elif mode == "zero":
            data[at:at + word] = bytes(min(word, len(data) - at))
        elif mode == "big":
            data[at:at + word] = b"\xff" * min(word, len(data) - at)
        else:
            value = rng.getrandbits(8 * word)
            data[at:at + word] = value.to_bytes(word, "little")[:len(data) - at]
    return data


def mangle_manifest(path: Path, rng: random.Random) -> None:
    """Change one value somewhere in the manifest, keeping it valid msgpack."""
    data = msgpack.unpackb(path.read_bytes())
    node = data
    while True:
        key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
        if isinstance(node[key], (dict, list)) and node[key] and rng.random() < 0.7:
            node = node[key]
            continue
        node[key] = rng.choice([0, -1, 1, 2**40, "x", None, [], {}, "abc", 3.5, rng.randrange(100)])
        break
    path.write_bytes(msgpack.packb(data))


def one_case(build: Path, fmt: str, seed: int, work: Path) -> str:
    rng = random.Random(seed)
    case = work / f"case{seed}"
    shutil.copytree(build, case)
    manifest = rng.random()
    if manifest < 0.1:
        mangle_manifest(case / MANIFEST_FILE, rng)
        return opened(case, fmt)
    if manifest > 0.15:
        (case / MANIFEST_FILE).unlink()
    if fmt == "trie":
        target, word, start = case / TRIE_FILE, 8, HEADER.itemsize
    elif fmt == "dawg":
        target, word, start = case / DAWG_FILE, rng.choice([8, 4]), HEADER.itemsize
    else:
        part = rng.randrange(4)
        target = case / ADT_FILES[part]
        word, start = [(4, 4), (8, 8), (4, 4), (1, 0)][part]
        if rng.random() < 0.1:
            word, start = (4, 0) if part != 1 else (8, 0)  # the count headers
    data = corrupt(bytearray(target.read_bytes()), rng, word, start)
    if fmt in ("trie", "dawg") and len(data) >= HEADER.itemsize and rng.random() < 0.8:
        head = np.frombuffer(bytes(data[:HEADER.itemsize]), HEADER).copy()
        head["crc32"] = zlib.crc32(bytes(data[HEADER.itemsize:]))
        data[:HEADER.itemsize] = head.tobytes()
    target.write_bytes(bytes(data))
    return opened(case, fmt)


def opened(case: Path, fmt: str) -> str:
    """Open a corrupted case and score boards with both engines; 'accepted' or 'rejected ...'."""
    try:
        lex = open_lexicon(case, fmt)
        scores = lex.score_many(BOARDS, skip_foreign=True)
        single = [lex.score(b, skip_foreign=True) for b in BOARDS]
        for b in BOARDS[:2]:
            lex.words(b, skip_foreign=True)
        lex.numbered_words()
    except DawgError as err:
        message = str(err)
        assert "\n" not in message and message
        return f"rejected {message}"
    finally:
        shutil.rmtree(case)
    if scores.tolist() != single:
        return f"UNEXPECTED engines disagree on an accepted file: {scores.tolist()} vs {single}"
    return "accepted"


def main() -> None:
    build, fmt, first, count, work = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
    failed = False
    for seed in range(first, first + count):
        try:
            outcome = one_case(build, fmt, seed, work)
        except Exception as err:  # anything but DawgError is a bug
            outcome = f"UNEXPECTED {type(err).__name__}: {err}"
        failed |= outcome.startswith("UNEXPECTED")
        print(f"{seed} {outcome}", flush=True)
    sys.exit(3 if failed else 0)


if __name__ == "__main__":
    main()
