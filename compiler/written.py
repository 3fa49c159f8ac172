"""Write a build's `written.bin`: the spellings of its words as the list wrote them (layout: solver.written)."""

from __future__ import annotations

import zlib

import numpy as np

from ..solver.charset import Charset
from ..solver.written import BLOCK_WORDS, HEADER, MAGIC, VERSION, block_text

COMPRESSION = 9  # fixed, so the same spellings give the same bytes


def written_bytes(spellings: dict[str, tuple[str, ...]], charset: Charset) -> bytes:
    """The file of `spellings` (folded word -> its spellings, each word's in the order the list gave them)."""
    entries = sorted(spellings.items(), key=lambda item: charset.order_key(item[0]))
    blocks = [entries[i:i + BLOCK_WORDS] for i in range(0, len(entries), BLOCK_WORDS)]
    data = [zlib.compress(block_text(block), COMPRESSION) for block in blocks]
    keys = [block[0][0].encode() for block in blocks]
    head = HEADER.pack(magic=MAGIC, version=VERSION, words=len(entries), blocks=len(blocks), block_words=BLOCK_WORDS,
                       key_bytes=sum(map(len, keys)), data_bytes=sum(map(len, data)))
    tables = [np.cumsum([0, *map(len, part)], dtype="<u4").tobytes() for part in (data, keys)]
    return head + b"".join(tables) + b"".join(keys) + b"".join(data)
