"""Fuzz cases: base lexicons, boards, and corrupted copies of a build, each made from a spec.

A spec is a small dict {"lexicon", "fmt", "kind", "seed"}: the same spec
always makes the same bytes, so any failure replays from it. Kinds:

  flip      random bit flips and byte writes in the format's files, checksums repaired
  field     one or two fields (header, node, edge, count, child set, tracking number,
            part count) set to a boundary value: 0, 1, v±1, n-1, n, n+1, 2^31-1, 2^31,
            2^32-1, the field's maximum; checksums repaired
  resize    truncation, extension, or a count changed together with the data it counts
            (nodes added or removed, the wide/narrow split moved), checksums repaired
  raw       flips and field edits with the checksums left wrong
  splice    one file taken from another lexicon's build, manifest repaired
  manifest  one manifest value replaced by a value of the wrong type or range, a key
            removed or added, file names with NUL, '/', '..' or another format's file
  hostile   a hand-built file of `adversarial.CATALOGUE` (seed picks which)

and, apart from the lexicon kinds, checkpoint cases (`mangle_checkpoint`): a real run's
checkpoint with one record's field given a value of the wrong type, removed or added, nested
deep, its task id or board text changed (checksums recomputed), or the file truncated, a byte
changed, the header edited; and language cases (`language_case`): a language file of letters
from cased and caseless scripts with tiles, folds and vowels, one edit of LANGUAGE_EDITS, and a
small word list for it, to build with `dawgc build --language`.

Repaired cases keep the manifest (sizes and SHA-256 rewritten) and the header
CRC-32 right, so that the structural checks are what rejects them; a quarter
of them also lose the manifest, which sends the ADTDAWG of a JPA14 lexicon
through the reference-layout reader.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import msgpack
from adversarial import (
    CATALOGUE,
    make_hostile,
    read_manifest_dict,
    repair_crc,
    repair_manifest,
)

from boggle_dawg.solver.formats.adtdawg import ADT_FILES
from boggle_dawg.solver.formats.common import HEADER, MANIFEST_FILE
from boggle_dawg.solver.formats.dawg import DAWG_FILE
from boggle_dawg.solver.formats.trie import TRIE_FILE
from boggle_dawg.solver.layout import (
    EOW_SHIFT,
    INDEX_MASK,
    LETTER_MASK,
    LETTERS_SHIFT,
    RESERVED_MASK,
    RESERVED_SHIFT,
    SKIP_SHIFT,
    AdtLayout,
    child_set_fields,
)

KINDS = ("flip", "field", "resize", "raw", "splice", "manifest", "hostile")
FORMATS = ("trie", "dawg", "adtdawg")

# --- base lexicons ---------------------------------------------------------------------

SMALL_WORDS = ["tea", "teas", "tease", "teased", "eat", "eats", "seat", "seated", "state", "stated", "quest",
               "quests", "aqua", "equate", "tasted", "sated", "dates", "date", "dated", "ease", "eased", "tee",
               "tees", "set", "sets", "test", "tests", "tested", "stead", "steed", "deed", "deeds"]
JPA14_WEIGHTS = {"a": 8, "c": 3, "d": 4, "e": 12, "g": 2, "i": 7, "l": 4, "m": 3, "n": 7, "o": 7, "p": 3,
                 "r": 6, "s": 7, "t": 9}


def random_words(count: int, seed: int) -> list[str]:
    """Distinct random words over the JPA14 letters, 3 to 12 letters long."""
    rng = random.Random(seed)
    letters, weights = zip(*JPA14_WEIGHTS.items())
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choices(letters, weights, k=rng.choice([3, 4, 4, 5, 5, 6, 6, 7, 8, 9, 12]))))
    return sorted(words)


def q_words(seed: int) -> list[str]:
    """Words with 'qu' (the Qu die) among ordinary ones, some of them 16 to 20 letters long."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnoprstuvwxyz"
    words = set(SMALL_WORDS) | {"quiz", "queen", "quest", "equal", "squire", "quququ", "aquaqua", "quote",
                                "tranquil", "quintessentially", "unquestionableness", "quadrilateralquest"}
    while len(words) < 400:
        core = "".join(rng.choices(alphabet, k=rng.randint(2, 9)))
        cut = rng.randrange(len(core) + 1)
        words.add(core[:cut] + "qu" + core[cut:] if rng.random() < 0.5 else core + "s" * rng.randint(1, 2))
        if rng.random() < 0.05:
            words.add("".join(rng.choices(alphabet, k=rng.randint(16, 20))))
    return sorted(words)


LEXICONS = {  # name -> (words, charset)
    "small": (lambda: SMALL_WORDS, "26"),
    "random2k": (lambda: random_words(2000, 7), "14"),
    "qwords": (lambda: q_words(11), "26"),
}


def build_lexicons(directory: Path) -> dict[str, Path]:
    """Build every base lexicon under directory (once); name -> build directory."""
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    directory.mkdir(parents=True, exist_ok=True)
    builds = {}
    for name, (words, charset) in LEXICONS.items():
        out = directory / name
        if not (out / MANIFEST_FILE).is_file():
            source = directory / f"{name}.txt"
            source.write_text("\n".join(words()) + "\n")
            build_lexicon(source, parse_charset(charset), out)
        builds[name] = out
    return builds


# --- boards -------------------------------------------------------------------------

SIZES = ((2, 2), (3, 3), (4, 4), (5, 5), (3, 5), (6, 6), (7, 7), (8, 8), (4, 4), (5, 5))


def boards_for(letters: str, words: list[str], seed: int) -> list[str]:
    """One board of every size 2x2..8x8 (and 3x5), with a few lexicon words planted along
    paths so that boards score, some two-letter faces '(th)' and blanks '.'; and a 5x5
    board of the first letter only and a 2x4 board of the second and third."""
    rng = random.Random(seed)
    vowels = [ch for ch in letters if ch in "aeiou"] or list(letters)
    pair_letters = [ch for ch in letters if ch != "q"] or ["a"]  # 'q' only appears as the Qu die
    boards = []
    for rows, cols in SIZES:
        cells = []
        for _ in range(rows * cols):
            roll = rng.random()
            if roll < 0.06:
                cells.append(f"({rng.choice(pair_letters)}{rng.choice(pair_letters)})")
            elif roll < 0.11:
                cells.append(".")
            else:
                cells.append(rng.choice(vowels) if rng.random() < 0.4 else rng.choice(letters))
        for _ in range(rng.randint(1, 3)):
            _plant(cells, rows, cols, rng.choice(words).replace("qu", "q"), rng)
        text = "".join(cells) if rows == cols else \
            "/".join("".join(cells[r * cols:(r + 1) * cols]) for r in range(rows))
        boards.append(text)
    boards.append(letters[0] * 25)  # hand-built cycles and word-less ladders use letters[0]
    one, two = letters[1:3] if len(letters) > 2 else (letters[0], letters[0])
    boards.append(f"{one}{two}{one}{two}/{two}{one}{two}{one}")  # counting ladders use letters 1 and 2
    return boards


def _plant(cells: list[str], rows: int, cols: int, word: str, rng: random.Random) -> None:
    """Write a word's letters along a random self-avoiding path (as far as the path goes)."""
    cell = rng.randrange(rows * cols)
    seen = set()
    for letter in word:
        cells[cell] = letter
        seen.add(cell)
        r, c = divmod(cell, cols)
        around = [(r + dr) * cols + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                  if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr) * cols + c + dc not in seen]
        if not around:
            return
        cell = rng.choice(around)


# --- fields of each format -----------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """`width` bits at bit `shift` of the little-endian integer of `size` bytes at `offset`."""

    file: str
    offset: int
    size: int
    shift: int
    width: int
    bound: int   # the count this field indexes or must agree with (for n-1, n, n+1)
    label: str

    def read(self, data: bytes | bytearray) -> int:
        word = int.from_bytes(data[self.offset:self.offset + self.size], "little")
        return (word >> self.shift) & ((1 << self.width) - 1)

    def write(self, data: bytearray, value: int) -> None:
        end = min(self.offset + self.size, len(data))
        if end <= self.offset:
            return
        word = int.from_bytes(data[self.offset:end], "little")
        mask = ((1 << self.width) - 1) << self.shift
        word = (word & ~mask) | ((value << self.shift) & mask)
        data[self.offset:end] = (word & ((1 << (8 * (end - self.offset))) - 1)).to_bytes(end - self.offset, "little")


def _u(data: bytes, offset: int, size: int) -> int:
    return int.from_bytes(data[offset:offset + size], "little") if len(data) >= offset + size else 0


def header_fields(name: str, data: bytes) -> list[Field]:
    out = []
    for key in HEADER.names:
        offset, size = HEADER.span(key)
        if key not in ("magic", "charset"):
            out.append(Field(name, offset, size, 0, 8 * size, _u(data, 40, 4), f"header.{key}"))
    return out


INDEX_BITS = INDEX_MASK.bit_length()


def node_fields(name: str, offset: int, index: int, bound: int, what: str) -> list[Field]:
    at = offset + 8 * index
    return [Field(name, at, 8, 0, INDEX_BITS, bound, f"{what}.first"),
            Field(name, at, 8, LETTERS_SHIFT, LETTER_MASK.bit_length(), bound, f"{what}.mask"),
            Field(name, at, 8, RESERVED_SHIFT, RESERVED_MASK.bit_length(), bound, f"{what}.reserved"),
            Field(name, at, 8, EOW_SHIFT, 1, bound, f"{what}.eow")]


def trie_fields(data: bytes, rng: random.Random) -> list[Field]:
    n = max(1, (len(data) - HEADER.size) // 8)
    return header_fields(TRIE_FILE, data) + node_fields(TRIE_FILE, 64, rng.randrange(n), n, "node")


def dawg_fields(data: bytes, rng: random.Random) -> list[Field]:
    n, e = max(1, _u(data, 44, 4)), _u(data, 48, 4)
    fields = header_fields(DAWG_FILE, data) + node_fields(DAWG_FILE, 64, rng.randrange(n), e, "state")
    counts_at = 64 + 8 * n + 8 * e
    fields.append(Field(DAWG_FILE, counts_at + 4 * rng.randrange(n), 4, 0, 32, _u(data, 40, 4), "count"))
    if e:
        at = 64 + 8 * n + 8 * rng.randrange(e)
        fields += [Field(DAWG_FILE, at, 8, 0, INDEX_BITS, n, "edge.child"),
                   Field(DAWG_FILE, at, 8, SKIP_SHIFT, 64 - SKIP_SHIFT, _u(data, 40, 4), "edge.skip")]
    return fields


def case_layout(case: Path) -> AdtLayout:
    """The ADTDAWG layout the manifest declares (the reference layout without one)."""
    try:
        return AdtLayout.from_manifest(read_manifest_dict(case)["adtdawg"]["layout"])
    except Exception:  # noqa: BLE001 (a mangled manifest: read as the reference layout)
        return AdtLayout()


def adt_fields(parts: list[bytes], layout: AdtLayout, rng: random.Random) -> list[Field]:
    p1, p2, p3, p4 = ADT_FILES
    n, m, k = _u(parts[0], 0, 4), _u(parts[1], 0, 8), _u(parts[2], 0, 4)
    nb, f, c = layout.node_bytes, layout.first_child_bits, layout.child_set_bits
    fields = [Field(p1, 0, 4, 0, 32, n, "part1.count"), Field(p2, 0, 8, 0, 64, m, "part2.count"),
              Field(p3, 0, 4, 0, 32, k, "part3.count")]
    if n:
        at = 4 + nb * rng.randrange(n)
        fields += [Field(p1, at, nb, 0, f, n, "node.first_child"), Field(p1, at, nb, f, c, m, "node.child_set"),
                   Field(p1, at, nb, f + c, 1, 1, "node.eow"),
                   Field(p1, at, nb, f + c + 1, 8 * nb - f - c - 1, 1, "node.beyond_eow")]
    if m:
        word, shift, width = child_set_fields(layout.letters)
        letter = rng.randrange(layout.letters)
        at = 8 + 8 * (rng.randrange(m) * layout.child_set_words + int(word[letter]))
        fields.append(Field(p2, at, 8, int(shift[letter]), int(width[letter]), layout.letters, "child_set.position"))
        end = int(shift[-1] + width[-1])
        if layout.child_set_words == 1 and end < 64:
            fields.append(Field(p2, at, 8, end, 64 - end, 1, "child_set.spare_bits"))
    if k:
        fields.append(Field(p3, 4 + 4 * rng.randrange(k), 4, 0, 32, _u(parts[2], 4, 4), "tracking.wide"))
    if n > k:
        fields.append(Field(p4, rng.randrange(n - k), 1, 0, 8, 255, "tracking.narrow"))
    return fields


def boundary_value(field: Field, current: int, rng: random.Random) -> int:
    top = (1 << field.width) - 1
    choices = [0, 1, current - 1, current + 1, field.bound - 1, field.bound, field.bound + 1, top,
               1 << (field.width - 1), (1 << (field.width - 1)) - 1, 2**31 - 1, 2**31, 2**32 - 1,
               rng.getrandbits(field.width)]
    return rng.choice(choices) & top


def byte_string_edit(data: bytearray, rng: random.Random) -> str:
    """Magic number or charset of a trie/DAWG header set to something almost right."""
    if rng.random() < 0.4:
        data[0:8] = rng.choice([b"BOGDAWG\0", b"BOGTRIE\0", b"bogtrie\0", b"BOGTRIE1", bytes(8), b"\xff" * 8])
        return "header.magic"
    letters = bytearray(data[12:38].rstrip(b"\0"))
    edit = rng.choice(["lower", "duplicate", "swap", "nul", "high", "drop", "add", "empty"])
    if edit == "lower":
        letters = letters.lower()
    elif edit == "duplicate" and letters:
        letters[-1:] = letters[:1] + letters[-1:]
    elif edit == "swap" and len(letters) > 1:
        letters[0], letters[1] = letters[1], letters[0]
    elif edit == "nul" and len(letters) > 2:
        letters[1] = 0
    elif edit == "high" and letters:
        letters[0] = 0xC9
    elif edit == "drop":
        letters = letters[:-1]
    elif edit == "add":
        letters += b"Z" if b"Z" not in letters else b"["
    else:
        letters = bytearray()
    data[12:38] = bytes(letters[:26]).ljust(26, b"\0")
    return f"header.charset.{edit}"


# --- mutations ----------------------------------------------------------------------------


def format_files(fmt: str) -> tuple[str, ...]:
    return {"trie": (TRIE_FILE,), "dawg": (DAWG_FILE,), "adtdawg": ADT_FILES}[fmt]


def flip(case: Path, fmt: str, rng: random.Random) -> str:
    name = rng.choice(format_files(fmt))
    data = bytearray((case / name).read_bytes())
    edits = rng.randint(1, 8)
    for _ in range(edits):
        if not data:
            break
        at = rng.randrange(len(data))
        if rng.random() < 0.7:
            data[at] ^= 1 << rng.randrange(8)
        else:
            data[at] = rng.choice([0, 0xFF, 0x80, 0x7F, rng.randrange(256)])
    (case / name).write_bytes(bytes(data))
    return f"{name}: {edits} flips"


def field_edit(case: Path, fmt: str, rng: random.Random) -> str:
    done = []
    for _ in range(rng.choice([1, 1, 1, 2])):
        if fmt == "adtdawg":
            parts = [(case / n).read_bytes() for n in ADT_FILES]
            fields = adt_fields(parts, case_layout(case), rng)
        else:
            name = format_files(fmt)[0]
            data = (case / name).read_bytes()
            if rng.random() < 0.12:
                buf = bytearray(data)
                done.append(byte_string_edit(buf, rng))
                (case / name).write_bytes(bytes(buf))
                continue
            fields = (trie_fields if fmt == "trie" else dawg_fields)(data, rng)
        field = rng.choice(fields)
        data = bytearray((case / field.file).read_bytes())
        value = boundary_value(field, field.read(data), rng)
        field.write(data, value)
        (case / field.file).write_bytes(bytes(data))
        done.append(f"{field.label}@{field.offset}={value}")
    return ", ".join(done)


def resize(case: Path, fmt: str, rng: random.Random) -> str:
    mode = rng.choice(["truncate", "extend", "grow", "shrink", "split"] if fmt == "adtdawg"
                      else ["truncate", "extend", "grow", "shrink"])
    if mode in ("truncate", "extend"):
        name = rng.choice(format_files(fmt))
        data = (case / name).read_bytes()
        if mode == "truncate":
            data = data[:rng.choice([0, 1, 4, 8, 63, 64, 65, rng.randrange(len(data) + 1), len(data) - 1])]
        else:
            data += bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 8, 16, 64])))
        (case / name).write_bytes(data)
        return f"{name}: {mode} to {len(data)} bytes"
    k = rng.choice([1, 1, 2, 5])
    if fmt == "trie":
        return _resize_counted(case, TRIE_FILE, 44, 64, 8, k if mode == "grow" else -k, rng)
    if fmt == "dawg":
        data = bytearray((case / DAWG_FILE).read_bytes())
        n, e = _u(data, 44, 4), _u(data, 48, 4)
        end_edges = 64 + 8 * n + 8 * e
        if mode == "grow":
            data[end_edges:end_edges] = _words(rng, k, 8)
            e += k
        else:
            k = min(k, e)
            del data[end_edges - 8 * k:end_edges]
            e -= k
        data[48:52] = e.to_bytes(4, "little")
        (case / DAWG_FILE).write_bytes(bytes(data))
        return f"{DAWG_FILE}: edges {mode} by {k}"
    layout = case_layout(case)
    p1, p4 = bytearray((case / ADT_FILES[0]).read_bytes()), bytearray((case / ADT_FILES[3]).read_bytes())
    p3 = bytearray((case / ADT_FILES[2]).read_bytes())
    n, kw = _u(p1, 0, 4), _u(p3, 0, 4)
    if mode == "split":  # move the wide/narrow boundary K by one, keeping every tracking number
        if rng.random() < 0.5 and p4:
            p3 += int(p4[0]).to_bytes(4, "little")
            del p4[0]
            kw += 1
        elif kw:
            value = _u(p3, 4 + 4 * (kw - 1), 4)
            del p3[-4:]
            p4[0:0] = bytes([value & 0xFF])
            kw -= 1
        p3[0:4] = kw.to_bytes(4, "little")
        (case / ADT_FILES[2]).write_bytes(bytes(p3))
        (case / ADT_FILES[3]).write_bytes(bytes(p4))
        return f"adtdawg: wide nodes K -> {kw}"
    if mode == "grow":
        p1 += _words(rng, k, layout.node_bytes)
        p4 += bytes(rng.choice([0, rng.randrange(256)]) for _ in range(k))
        n += k
    else:
        k = min(k, n)
        del p1[len(p1) - k * layout.node_bytes:]
        del p4[max(0, len(p4) - k):]
        n -= k
    p1[0:4] = n.to_bytes(4, "little")
    (case / ADT_FILES[0]).write_bytes(bytes(p1))
    (case / ADT_FILES[3]).write_bytes(bytes(p4))
    return f"adtdawg: nodes {mode} by {k}"


def _words(rng: random.Random, count: int, size: int) -> bytes:
    """`count` words of `size` bytes: zeros, or copies of random small numbers, or random bits."""
    style = rng.choice(["zero", "small", "random"])
    out = b""
    for _ in range(count):
        value = 0 if style == "zero" else rng.randrange(64) if style == "small" else rng.getrandbits(8 * size)
        out += value.to_bytes(size, "little")
    return out


def _resize_counted(case: Path, name: str, count_at: int, body_at: int, size: int, by: int,
                    rng: random.Random) -> str:
    data = bytearray((case / name).read_bytes())
    n = _u(data, count_at, 4)
    if by > 0:
        data += _words(rng, by, size)
    else:
        by = -min(-by, n)
        del data[len(data) + by * size:]
    data[count_at:count_at + 4] = (n + by).to_bytes(4, "little")
    (case / name).write_bytes(bytes(data))
    return f"{name}: count {n} -> {n + by} with data"


def splice(case: Path, fmt: str, rng: random.Random, builds: dict[str, Path], own: str) -> str:
    other = rng.choice([name for name in builds if name != own])
    name = rng.choice(format_files(fmt))
    shutil.copyfile(builds[other] / name, case / name)
    return f"{name} from {other}"


# --- manifests ------------------------------------------------------------------------------

DELETE = object()  # a manifest edit that removes the key
BAD_VALUES = [None, {}, [], "str", "", 1.5, float("nan"), float("inf"), True, False, -1, 0, 2**63, 2**64 - 1,
              -2**63, b"\x00bytes", [1, 2], {"x": 1}]
BAD_FILE_NAMES = ["trie\0.bin", "a/b.bin", "../trie.bin", "/etc/hostname", ".", "", "missing.bin", "x" * 5000,
                  "dawg.bin", "trie.bin", "adtdawg-1.dat", "manifest.msgpack"]
LAYOUT_VALUES = [15.0, "15", 14, 16, 32, 33, 31, 62, 0, 1, 18, 19, 26, 27, 4, 8]


def manifest_paths(value, prefix=()) -> list[tuple]:
    """Every key path of a manifest, containers included."""
    paths = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        paths.append(prefix + (key,))
        paths += manifest_paths(child, prefix + (key,))
    return paths


def manifest_edits(base: dict) -> list[tuple[tuple, object]]:
    """Every (key path, replacement) the manifest cases try; replacement DELETE removes the key."""
    edits: list[tuple[tuple, object]] = []
    for path in manifest_paths(base):
        edits += [(path, value) for value in BAD_VALUES + [DELETE]]
        if path[-1] == "file":
            edits += [(path, name) for name in BAD_FILE_NAMES]
        if "layout" in path and len(path) == 3:
            edits += [(path, value) for value in LAYOUT_VALUES]
        if path[-1] in ("charset", "words", "max_length", "manifest_version"):
            edits += [(path, value) for value in ["ABC", "ba", "aab", "abc\0", 255, 256, 2**31, 2**32, 1, 2]]
    edits += [((), value) for value in [None, [], 1, "manifest", b"\x01", {1: 2}]]
    edits += [(("extra",), {"unknown": True}), (("adtdawg", "files"), [])]
    return edits



def mangle_manifest(case: Path, index: int) -> str:
    """Apply one manifest edit to the case's manifest: consecutive indexes stride through the
    edits (7919 is prime to their count), so any run of them spreads over many keys and
    len(edits) consecutive ones try every edit."""
    edits = manifest_edits(msgpack.unpackb((case / MANIFEST_FILE).read_bytes(), raw=False))
    return set_manifest_value(case, *edits[index * 7919 % len(edits)])


def set_manifest_value(case: Path, key_path: tuple, value) -> str:
    path = case / MANIFEST_FILE
    manifest = msgpack.unpackb(path.read_bytes(), raw=False)
    if not key_path:
        manifest = value
    else:
        node = manifest
        for key in key_path[:-1]:
            node = node[key]
        if value is DELETE:
            del node[key_path[-1]]
        else:
            node[key_path[-1]] = value
    path.write_bytes(msgpack.packb(manifest, use_bin_type=True))
    shown = "deleted" if value is DELETE else repr(value)[:40]
    return f"manifest {'.'.join(map(str, key_path)) or '<root>'} = {shown}"


# --- making a case ------------------------------------------------------------------------


@dataclass
class Case:
    fmt: str
    path: Path        # what to open
    expected: str     # "either", "reject" or "same"
    what: str         # the mutation, for the report


def make_case(spec: dict, builds: dict[str, Path], directory: Path) -> Case:
    """Write the case of `spec` into directory (which must not exist)."""
    rng = random.Random(f"{spec['lexicon']}/{spec['fmt']}/{spec['kind']}/{spec['seed']}")
    kind, fmt, build = spec["kind"], spec["fmt"], builds[spec["lexicon"]]
    if kind == "hostile":
        name = sorted(CATALOGUE)[spec["seed"] % len(CATALOGUE)]
        fmt, expected, path = make_hostile(name, directory, build)
        return Case(fmt, path, expected, name)
    shutil.copytree(build, directory)
    if kind == "manifest":
        return Case(fmt, directory, "either", mangle_manifest(directory, spec["seed"]))
    if kind == "splice":
        what = splice(directory, fmt, rng, builds, spec["lexicon"])
    elif kind == "resize":
        what = resize(directory, fmt, rng)
    elif kind == "field":
        what = field_edit(directory, fmt, rng)
    else:
        what = (flip if kind == "flip" or rng.random() < 0.5 else field_edit)(directory, fmt, rng)
    if kind != "raw":
        for name in (TRIE_FILE, DAWG_FILE):
            if name in format_files(fmt) and not ("header.crc32" in what and rng.random() < 0.5):
                repair_crc(directory / name)
        repair_manifest(directory)
    if rng.random() < 0.25:
        (directory / MANIFEST_FILE).unlink()
        what += " (no manifest)"
    path = directory
    if fmt != "adtdawg" and rng.random() < 0.2:
        path = directory / format_files(fmt)[0]
        what += f" (opened as {path.name})"
    return Case(fmt, path, "either", what)


def specs(count: int, first_seed: int = 0, kinds=KINDS, formats=FORMATS, lexicons=tuple(LEXICONS)) -> list[dict]:
    """`count` specs cycling through kinds, formats and lexicons (seeds first_seed, first_seed+1, ...)."""
    out = []
    for i in range(count):
        seed = first_seed + i
        out.append({"kind": kinds[i % len(kinds)], "fmt": formats[(i // len(kinds)) % len(formats)],
                    "lexicon": lexicons[(i // (len(kinds) * len(formats))) % len(lexicons)], "seed": seed})
    return out


def spec_text(spec: dict) -> str:
    """A spec as one token, for reports and --replay: kind/fmt/lexicon/seed."""
    return f"{spec['kind']}/{spec['fmt']}/{spec['lexicon']}/{spec['seed']}"


def parse_spec(text: str) -> dict:
    kind, fmt, lexicon, seed = text.split("/")
    return {"kind": kind, "fmt": fmt, "lexicon": lexicon, "seed": int(seed)}


# --- checkpoints ---------------------------------------------------------------------------------
# A checkpoint case is a copy of a base checkpoint (a real search or proof run's records) with one
# edit: most with the record's checksum recomputed, so the record schema is what must refuse them.

CHECKPOINT_EDITS = ("type", "delete", "extra", "nest", "task", "board", "truncate", "flip", "header", "swap")
BAD_JSON_VALUES = [None, True, False, -1, 0, 2**64, -2**70, 1.5, 1e308, "x", "lots", "1e999", "", [], [["abc"]],
                   [[1, 2]], [["abc", "lots"]], {}, {"x": 1}, [None], ["abc", 5]]


def _nested(depth: int, inner) -> str:
    return "[" * depth + json.dumps(inner) + "]" * depth


def _values_at(value, prefix=()) -> list[tuple]:
    """Every key path inside a record (lists and maps), for an edit to pick from."""
    paths = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        paths.append(prefix + (key,))
        paths += _values_at(child, prefix + (key,))
    return paths


def mangle_checkpoint(data: bytes, seed: int) -> tuple[bytes, str]:
    """One edit of a checkpoint's bytes (see CHECKPOINT_EDITS); returns the bytes and what was done."""
    from boggle_dawg.solver.cluster.checkpoint import record_line

    rng = random.Random(f"checkpoint/{seed}")
    lines = data.splitlines(keepends=True)
    edit = CHECKPOINT_EDITS[seed % len(CHECKPOINT_EDITS)]
    at = rng.randrange(1, len(lines))
    item = json.loads(lines[at])
    task, record = item["task"], item["record"]
    if edit == "truncate":
        cut = rng.randrange(len(data))
        return data[:cut], f"truncated to {cut} of {len(data)} bytes"
    if edit == "flip":
        buf = bytearray(data)
        where = rng.randrange(len(buf))
        buf[where] = rng.randrange(256)
        return bytes(buf), f"byte {where} set (checksum left)"
    if edit == "header":
        head = json.loads(lines[0])
        key = rng.choice(sorted(head["header"]) + ["format", "version"])
        value = rng.choice(BAD_JSON_VALUES)
        if key in head["header"]:
            head["header"][key] = value
        else:
            head[key] = value
        lines[0] = (json.dumps(head) + "\n").encode()
        return b"".join(lines), f"header {key} = {json.dumps(value)[:30]}"
    if edit == "swap":  # two records' task ids exchanged, checksums recomputed
        other = rng.randrange(1, len(lines))
        other_item = json.loads(lines[other])
        lines[at] = record_line(other_item["task"], record)
        lines[other] = record_line(task, other_item["record"])
        return b"".join(lines), f"lines {at + 1} and {other + 1} swapped their task ids"
    paths = _values_at(record)
    path = rng.choice(paths)
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    what = f"line {at + 1} record.{'.'.join(map(str, path))}"
    if edit == "type":
        parent[path[-1]] = rng.choice(BAD_JSON_VALUES)
        what += f" = {json.dumps(parent[path[-1]])[:30]}"
    elif edit == "delete":
        if isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
        what += " deleted"
    elif edit == "extra":
        record[rng.choice(["extra", "note", "class", "top2"])] = rng.choice(BAD_JSON_VALUES)
        what = f"line {at + 1} gains a field"
    elif edit == "board":
        text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz.()/ Q") for _ in range(rng.choice([0, 1, 4, 9, 12, 40])))
        parent[path[-1]] = text
        what += f" = {text!r}"
    elif edit == "task":
        task = rng.choice([-1, 10**6, "0", str(task), 2**63, task + 1])
        what = f"line {at + 1} task = {json.dumps(task)}"
    if edit == "nest":
        depth = rng.choice([2, 50, 900, 5000, 200_000])
        line = ('{"record":{"x":' + _nested(depth, 1) + '},"sha256":"0","task":' + json.dumps(task) + "}\n").encode()
        if depth < 900:  # shallow enough to write back: a checksum that matches
            line = record_line(task, {**record, path[-1] if isinstance(path[-1], str) else "x": json.loads(_nested(depth, 1))})
        lines[at] = line
        return b"".join(lines), f"line {at + 1} nested {depth} deep"
    lines[at] = record_line(task, record)
    return b"".join(lines), what


# --- language files ------------------------------------------------------------------------------
# A language case is a language file (docs/languages.md) and a small word list made for it,
# built with `dawgc build --language`: mostly sound files of letters from many scripts, cased and
# caseless, with one kind of edit that a user might make (LANGUAGE_EDITS), so that both what must be
# refused and what must build are reached.

LANGUAGE_EDITS = ("none", "letters", "tiles", "folds", "fields", "toml", "options")
SCRIPTS = {
    "latin": "abcdefghijklmnopqrstuvwxyz",
    "latin+": "àáâäåæçèéêëìíîïñòóôöøùúûüýÿąćęłńśźżőűšžčřďťňěůğşıþðœ",
    "greek": "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώ",
    "cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґў",
    "armenian": "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ",
    "georgian": "აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ",
    "hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
    "arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "devanagari": "अआइईउऊएऐओऔकखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसह",
    "thai": "กขคงจฉชซญดตถทนบปผพฟมยรลวสหอฮ",
    "hiragana": "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん",
    "hangul": "가나다라마바사아자차카타파하",
    "deseret": "𐐨𐐩𐐪𐐫𐐬𐐭𐐮𐐯𐐰𐐱𐐲𐐳",
    "adlam": "𞤢𞤣𞤤𞤥𞤦𞤧𞤨𞤩𞤪𞤫",
}
CASELESS = ("hebrew", "arabic", "devanagari", "thai", "hiragana", "hangul")
# Code points a language file should refuse as letters, or that test the rules' edges.
ODD_LETTERS = ["ß", "ſ", "ǅ", "ǆ", "İ", "ı", "ς", "ŉ", "ﬀ", "ΐ", "A", "Z", "Ä", "Σ", "Ꭰ", "Ꭱ", "ꭰ", "1", "٣", "_",
               "-", "'", " ", "\t", "e\u0301", "\u0301", "\u200b", "😀", "\x00", "\x7f", '"', "\\", "ǰ", "ẞ",
               "\u212a", "\u2126", "ª", "ʰ", "\u0345", "𐐀", "Ⴀ", "ⴀ", "Ა", "\ufb01", "\u00b5"]
BAD_TOML_VALUES = ["5", "true", "1.5", "{a = 1}", "[1, 2]", '[["a"]]', '[["a", 1]]', '"x"', "[]", '[[], []]',
                   '[["a", "b", "c"]]', "{}", "[[[[[[\"a\", \"b\"]]]]]]", "1979-05-27"]


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly (control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_pairs(pairs) -> str:
    return "[" + ", ".join(f"[{toml_string(a)}, {toml_string(b)}]" for a, b in pairs) + "]"


@dataclass
class LanguageCase:
    """A language file, a word list and the `dawgc build` options to build them with."""

    language: bytes
    words: bytes
    options: list[str]
    edit: str
    what: str


def _sound_language(rng: random.Random) -> dict:
    """A language most likely valid: letters of one to three scripts, tiles, folds, vowels."""
    scripts = rng.sample(sorted(SCRIPTS), rng.choice([1, 1, 1, 2, 3]))
    pool = "".join(dict.fromkeys("".join(SCRIPTS[s] for s in scripts)))
    letters = "".join(rng.sample(pool, min(len(pool), rng.choice([1, 2, 3, 5, 8, 12, 20, 26, 40, 62]))))
    symbols = rng.sample(letters, min(len(letters) - 1, rng.choice([0, 0, 0, 1, 1, 2, 3])))
    plain = [ch for ch in letters if ch not in symbols]
    tiles = []
    for symbol in symbols:
        rest = "".join(rng.choices(plain, k=rng.choice([1, 1, 2, 3])))
        tiles.append((symbol, symbol + rest if rng.random() < 0.8 else rng.choice(plain) + rest))
    outside = sorted(set("".join(SCRIPTS.values()) + "ßäöüçñøåæ") - set(letters))
    folds = [(source, "".join(rng.choices(letters, k=rng.choice([1, 1, 2, 3]))))
             for source in rng.sample(outside, rng.choice([0, 0, 1, 2, 4]))]
    vowels = "".join(rng.sample(letters, rng.randint(1, min(5, len(letters)))))
    title = rng.choice(["X", "Test language", " ".join(scripts), "Ελληνικά", "עברית", "日本語"])
    return {"name": f"x{rng.randrange(1000)}", "title": title, "letters": letters, "tiles": tiles, "folds": folds,
            "vowels": vowels, "capitalised_nouns": rng.random() < 0.2, "scripts": scripts}


def _word_list(rng: random.Random, lang: dict) -> list[str]:
    """Words a list of the language might hold: its letters, tile faces, fold sources, capitals; a few
    lines of other things."""
    letters = lang.get("letters")
    letters = letters if isinstance(letters, str) and letters else "abc"
    tiles, folds = (value if isinstance(value, list) else [] for value in (lang.get("tiles"), lang.get("folds")))
    pieces = list(letters) + [face for _, face in tiles] * 3 + [source for source, _ in folds]
    junk = rng.random() < 0.25  # a list with a few lines that are not words of the language
    words = []
    for _ in range(rng.choice([0, 1, 3, 10, 30, 60])):
        word = "".join(rng.choices(pieces, k=rng.choice([1, 2, 3, 3, 4, 5, 7, 10])))
        roll = rng.random()
        if roll < 0.1:
            word = word.upper()
        elif roll < 0.2:
            word = word[:1].upper() + word[1:]
        elif junk and roll < 0.25:
            word = word + rng.choice(["'s", "-x", "1", " two", "\u00e9", "ß", "\t"])
        elif junk and roll < 0.27:
            word = word * rng.choice([30, 90])
        words.append(word)
    return words


def _edit_language(rng: random.Random, lang: dict, edit: str) -> str:
    """Change `lang` (the fields of a file) as `edit` says; what was done."""
    letters = lang["letters"]
    if edit == "letters":
        odd = rng.choice(ODD_LETTERS)
        choice = rng.choice(["odd", "odd", "repeat", "many", "empty", "caseless-only", "cherokee"])
        if choice == "odd":
            at = rng.randrange(len(letters) + 1)
            lang["letters"] = letters[:at] + odd + letters[at:]
            return f"letters gain {odd!r}"
        if choice == "repeat":
            lang["letters"] = letters + rng.choice(letters)
            return "a letter repeated"
        if choice == "many":
            pool = "".join(dict.fromkeys("".join(SCRIPTS.values())))
            lang["letters"] = "".join(rng.sample(pool, rng.choice([62, 63, 80])))
            lang["vowels"] = lang["letters"][0]
            lang["tiles"], lang["folds"] = [], []
            return f"{len(lang['letters'])} letters"
        if choice == "empty":
            lang["letters"] = ""
            return "no letters"
        if choice == "cherokee":
            lang["letters"] = rng.choice(["ᎠᎡᎢ", "ꭰꭱꭲ", "ᎠᎡᎢꭰ"])
            lang["vowels"], lang["tiles"], lang["folds"] = lang["letters"][0], [], []
            return "Cherokee letters"
        lang["letters"] = "".join(rng.sample(SCRIPTS[rng.choice(CASELESS)], rng.randint(1, 14)))
        lang["vowels"], lang["tiles"], lang["folds"] = lang["letters"][0], [], []
        return "caseless letters"
    if edit == "tiles":
        pool = letters + "".join(ODD_LETTERS[:12])
        tiles = list(lang["tiles"])
        choice = rng.choice(["random", "random", "repeat-letter", "repeat-face", "long-face", "long-symbol",
                             "every-letter", "overlap", "short-face"])
        if choice.startswith("repeat") and not tiles:
            choice = "random"
        if choice == "random":
            for _ in range(rng.randint(1, 4)):
                tiles.append((rng.choice(pool), "".join(rng.choices(pool, k=rng.randint(1, 5)))))
        elif choice == "repeat-letter":
            tiles.append((tiles[0][0], tiles[0][1] + rng.choice(letters)))
        elif choice == "repeat-face":
            tiles.append((rng.choice(letters), tiles[0][1]))
        elif choice == "long-face":
            symbol = rng.choice(letters)
            tiles = [(symbol, symbol + "".join(rng.choices(letters, k=rng.choice([7, 8, 30, 31, 40]))))]
        elif choice == "long-symbol":  # two letters, as in "aqu": a substring of the letters
            tiles.append(((letters * 2)[:2], (letters * 2)[:2]))
        elif choice == "every-letter":
            tiles = [(ch, ch + rng.choice(letters)) for ch in letters]
        elif choice == "overlap":
            a, b = (letters * 2)[:2]
            tiles = [(a, a + b), (b, b + a)] if rng.random() < 0.5 else [(a, "".join(rng.choices(letters, k=2))),
                                                                          (b, "".join(rng.choices(letters, k=2)))]
        else:
            tiles.append((rng.choice(letters), rng.choice(["", rng.choice(letters)])))
        lang["tiles"] = tiles
        return f"tiles {choice}: {tiles[:3]!r}"[:80]
    if edit == "folds":
        folds = list(lang["folds"])
        choice = rng.choice(["random", "many", "long", "in-alphabet", "capital", "two-letter", "empty-target"])
        outside = [ch for ch in ODD_LETTERS if ch not in letters] or ["ä"]
        if choice == "random":
            pool = letters + "".join(outside)
            folds += [(rng.choice(pool), "".join(rng.choices(pool, k=rng.randint(1, 4)))) for _ in range(3)]
        elif choice == "many":
            folds = [(rng.choice(outside), rng.choice(letters)) for _ in range(rng.choice([999, 1000, 1001, 1500]))]
        elif choice == "long":
            folds.append((rng.choice(outside), "".join(rng.choices(letters, k=rng.choice([8, 9, 20])))))
        elif choice == "in-alphabet":
            folds.append((rng.choice(letters), rng.choice(letters)))
        elif choice == "capital":
            folds.append((rng.choice("ÄÖÜΣ"), rng.choice(letters)))
        elif choice == "two-letter":
            folds.append(("ae", rng.choice(letters)))
        else:
            folds.append((rng.choice(outside), ""))
        lang["folds"] = folds
        return f"folds {choice} ({len(folds)} pairs)"
    if edit == "fields":
        name = rng.choice(["name", "title", "letters", "tiles", "folds", "vowels", "capitalised_nouns", "colour"])
        choice = rng.choice(["missing", "type", "type", "value"])
        if choice == "missing" and name != "colour":
            lang.pop(name)
            return f"{name} missing"
        if choice == "value" or name == "colour":
            value = {"name": rng.choice(["", "X", "1x", "x" * 41, "x" * 40, "x y", "ñ"]),
                     "title": rng.choice(["", " ", "a\nb", "T" * 200, "T" * 201, "é" * 250, "\u200b", "\x7f"]),
                     "letters": rng.choice(["ab", "abc" * 30]), "tiles": [], "folds": [],
                     "vowels": rng.choice(["", "z", letters + letters[:1], "\u0301"]),
                     "capitalised_nouns": rng.choice([True, False]), "colour": "blue"}[name]
            lang[name] = value
            return f"{name} = {value!r}"[:80]
        lang[name] = ("raw", rng.choice(BAD_TOML_VALUES))
        return f"{name} = {lang[name][1]}"
    return ""


def _language_toml(lang: dict) -> str:
    lines = []
    for key in ("name", "title", "letters", "tiles", "folds", "vowels", "capitalised_nouns", "colour"):
        if key not in lang:
            continue
        value = lang[key]
        if isinstance(value, tuple) and value and value[0] == "raw":
            text = value[1]
        elif key in ("tiles", "folds"):
            text = toml_pairs(value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = toml_string(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def language_case(seed: int) -> LanguageCase:
    """Case `seed`: a language file with one edit of LANGUAGE_EDITS (seed picks which), a word list for
    it, and the build's options."""
    rng = random.Random(f"language/{seed}")
    edit = LANGUAGE_EDITS[seed % len(LANGUAGE_EDITS)]
    lang = _sound_language(rng)
    what = _edit_language(rng, lang, edit)
    words = _word_list(rng, lang)
    scripts = "+".join(lang.pop("scripts"))
    data = _language_toml(lang).encode("utf-8")
    options = []
    if edit == "toml":
        choice = rng.choice(["truncate", "byte", "not-utf8", "nested", "huge", "bom", "duplicate"])
        if choice == "truncate":
            data = data[:rng.randrange(len(data))]
        elif choice == "byte":
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.choice(b'"[]=\\\n\x00#,')]) + data[at + 1:]
        elif choice == "not-utf8":
            data = data + b"# \xff\xfe\n"
        elif choice == "nested":
            depth = rng.choice([10, 200, 900, 5000, 100_000])
            data = data + b"x = " + b"[" * depth + b"]" * depth + b"\n"
        elif choice == "huge":
            data = data + b"# " + b"x" * (64 << 10) + b"\n"
        elif choice == "bom":
            data = b"\xef\xbb\xbf" + data
        else:
            data = data + data.splitlines(keepends=True)[0]
        what = f"toml {choice}"
    elif edit == "options":
        letters = lang["letters"]
        for _ in range(rng.randint(1, 3)):
            option = rng.choice(["lenient", "tanglet", "charset", "charset", "max-length", "charset-bad"])
            if option == "lenient":
                options.append("--lenient")
            elif option == "tanglet":
                options += ["--input-format", "tanglet"]
            elif option == "charset":
                chosen = "".join(rng.sample(letters, rng.randint(1, len(letters))))
                options += ["--charset", chosen.upper() if rng.random() < 0.3 else chosen]
            elif option == "max-length":
                options += ["--max-length", str(rng.choice([2, 3, 4, 6, 255, 256]))]
            else:
                options += ["--charset", rng.choice(["0", "27", "5", "?", "", letters + letters[:1]])]
        what = "options " + " ".join(options)
    elif edit == "none" and rng.random() < 0.3:
        options.append("--lenient")
        what = "lenient"
    text = "\n".join(words) + ("\n" if words else "")
    return LanguageCase(data, text.encode("utf-8"), options, edit, f"{scripts}: {what}"[:100])
