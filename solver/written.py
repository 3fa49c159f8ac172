"""Words as written: the spellings a list gives its words beside the form the game plays.

The game plays "glaesern" and "strasse"; the list wrote "gläsern" and
"Straße" (a plain list's own line before folds and lower case, or the further
columns of a Tanglet `words` file). A build keeps those spellings, for the
words that have any, in `written.bin` beside its formats, and the manifest
records the file (its `written` field, with its size and SHA-256). The
solver shows them (`Lexicon.written`); scoring never reads them.

The layout (little-endian), defined here and imported by the compiler's writer:
`HEADER`; then `blocks + 1` uint32 offsets of each block in the data; then
`blocks + 1` uint32 offsets of each block's first word in the key text; the key
text (UTF-8, each block's first word as folded, in code order); the data. A
block holds BLOCK_WORDS words (the last one fewer) in code order, zlib-compressed
UTF-8 lines `word TAB form [TAB form...]` joined by newlines. A lookup finds
the block by binary search over the first words, then its word in that block:
the file stays a few bytes a word (compressed), and it is read a block at a
time. Opening checks the header, the offsets and the first words; a block is
checked when first read (its compressed bytes are vouched for by the manifest's
SHA-256, checked on open).
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .charset import Charset
from .errors import DawgError
from .record import Record

if TYPE_CHECKING:
    import numpy as np

WRITTEN_FILE = "written.bin"
MAGIC = b"BGWRITN1"
VERSION = 1
BLOCK_WORDS = 64  # words per block: a lookup decompresses one block of about a kilobyte
MAX_FORMS = 8  # spellings kept for one word (German "aal": "aal", "Aal")
MAX_FORM_CHARS = 255  # characters of one spelling
MAX_BLOCK_BYTES = BLOCK_WORDS * (1 + MAX_FORMS) * (4 * MAX_FORM_CHARS + 1)  # a block's text, decompressed
CACHED_BLOCKS = 16

HEADER = Record(
    ("magic", "8s"),
    ("version", "I"),
    ("words", "I"),  # words with spellings
    ("blocks", "I"),
    ("block_words", "I"),
    ("key_bytes", "I"),
    ("data_bytes", "I"),
)
assert HEADER.size == 32


def block_text(entries: list[tuple[str, tuple[str, ...]]]) -> bytes:
    """One block's text, uncompressed: a line a word, its spellings after tabs."""
    return "\n".join("\t".join((word, *forms)) for word, forms in entries).encode()


def form_problem(form: str) -> str | None:
    """Why `form` cannot be a recorded spelling, or None: one printable line without tabs, within MAX_FORM_CHARS."""
    if not form or len(form) > MAX_FORM_CHARS or not form.isprintable() or "\t" in form:
        return f"{form[:40]!r} is not a spelling (1 to {MAX_FORM_CHARS} printable characters, no tab)"
    return None


class WrittenForms:
    """The spellings of a build's words, read from its `written.bin` (mapped; see the module docstring)."""

    def __init__(self, path: Path, data: memoryview, charset: Charset, word_count: int) -> None:
        self.path = path
        self.charset = charset
        self._data = data
        head, blocks, key_offsets = self._layout(data, word_count)
        self.words = int(head["words"])
        self._blocks = blocks
        self._base = HEADER.size + 8 * (len(blocks))  # where the key text starts
        self._data_start = self._base + int(head["key_bytes"])
        keys = bytes(data[self._base:self._data_start])
        try:
            firsts = [keys[a:b].decode() for a, b in zip(key_offsets[:-1], key_offsets[1:])]
        except UnicodeDecodeError:
            raise self._bad("a block's first word is not UTF-8") from None
        for word in firsts:
            if not word or charset.outside(word):
                raise self._bad(f"first word {word[:40]!r} is not a word of the charset")
        self._firsts = [charset.order_key(word) for word in firsts]
        if any(a >= b for a, b in zip(self._firsts, self._firsts[1:])):
            raise self._bad("the blocks are not in code order")
        self._first_words = firsts
        self._cache: OrderedDict[int, dict[str, tuple[str, ...]]] = OrderedDict()

    def _bad(self, problem: str) -> DawgError:
        return DawgError(f"{self.path}: {problem}; the file is corrupt or from another build")

    def _layout(self, data: memoryview, word_count: int) -> tuple[dict, np.ndarray, np.ndarray]:
        import numpy as np

        if len(data) < HEADER.size:
            raise self._bad("shorter than its header")
        head = HEADER.unpack(data)
        if head["magic"] != MAGIC or head["version"] != VERSION:
            raise self._bad(f"not a written-forms file of version {VERSION}")
        blocks, words, per = int(head["blocks"]), int(head["words"]), int(head["block_words"])
        if per != BLOCK_WORDS or not 0 < words <= word_count or blocks != -(-words // per):
            raise self._bad(f"header counts disagree ({words} words in {blocks} blocks of {per})")
        tables = HEADER.size + 8 * (blocks + 1)
        size = tables + int(head["key_bytes"]) + int(head["data_bytes"])
        if len(data) != size:
            raise self._bad(f"{len(data)} bytes, its header says {size}")
        offsets = np.frombuffer(data[HEADER.size:tables], "<u4").astype(np.int64)
        block_offsets, key_offsets = offsets[:blocks + 1], offsets[blocks + 1:]
        for table, end in ((block_offsets, head["data_bytes"]), (key_offsets, head["key_bytes"])):
            if table[0] != 0 or table[-1] != end or np.any(np.diff(table) <= 0):
                raise self._bad("offsets out of order")
        return head, block_offsets, key_offsets

    def forms(self, folded: str) -> tuple[str, ...]:
        """The spellings of a folded word, in the order the list gave them; () where it gave none."""
        if not folded or self.charset.outside(folded):
            return ()
        import bisect  # here: opening a lexicon, which imports this module, need not load it

        block = bisect.bisect_right(self._firsts, self.charset.order_key(folded)) - 1
        return self._block(block).get(folded, ()) if block >= 0 else ()

    def items(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Every (folded word, spellings) pair, in code order, each block checked as it is read."""
        for index in range(len(self._first_words)):
            yield from self._read_block(index).items()

    def _block(self, index: int) -> dict[str, tuple[str, ...]]:
        cached = self._cache.get(index)
        if cached is None:
            cached = self._cache[index] = self._read_block(index)
            if len(self._cache) > CACHED_BLOCKS:
                self._cache.popitem(last=False)
        return cached

    def _read_block(self, index: int) -> dict[str, tuple[str, ...]]:
        start, end = self._data_start + self._blocks[index], self._data_start + self._blocks[index + 1]
        try:
            inflate = zlib.decompressobj()
            text = inflate.decompress(bytes(self._data[start:end]), MAX_BLOCK_BYTES)
            if inflate.unconsumed_tail or not inflate.eof:
                raise self._bad(f"block {index} is not one whole compressed block within {MAX_BLOCK_BYTES} bytes")
            lines = text.decode().split("\n")
        except (zlib.error, UnicodeDecodeError):
            raise self._bad(f"block {index} is not compressed UTF-8 text") from None
        expected = min(BLOCK_WORDS, self.words - index * BLOCK_WORDS)
        entries = [line.split("\t") for line in lines]
        if len(entries) != expected or entries[0][0] != self._first_words[index]:
            raise self._bad(f"block {index} does not hold the {expected} words its tables say")
        keys = [self.charset.order_key(word) if word and not self.charset.outside(word) else "" for word, *_ in entries]
        if any(not key for key in keys) or any(a >= b for a, b in zip(keys, keys[1:])):
            raise self._bad(f"block {index}: words out of code order or outside the charset")
        block = {}
        for word, *forms in entries:
            problem = next(filter(None, map(form_problem, forms)), None) if forms else "a word without a spelling"
            if problem or len(forms) > MAX_FORMS:
                raise self._bad(f"block {index}, word {word!r}: {problem or f'more than {MAX_FORMS} spellings'}")
            block[word] = tuple(forms)
        return block
