"""Fixed binary records (a file's header), defined once by their fields: the reader unpacks one
into a dict and the compiler packs one, with the standard library's `struct`, so that reading a
header imports nothing heavy (opening a lexicon needs no numpy until its node checks)."""

from __future__ import annotations

import struct


class Record:
    """A little-endian record of named fields, each a `struct` code without the byte order ("8s", "H")."""

    def __init__(self, *fields: tuple[str, str]) -> None:
        self.names = tuple(name for name, _ in fields)
        self._struct = struct.Struct("<" + "".join(code for _, code in fields))
        self.size = self._struct.size
        self._zero = {name: b"" if code.endswith("s") else 0 for name, code in fields}
        self._spans, at = {}, 0
        for name, code in fields:
            size = struct.calcsize("<" + code)
            self._spans[name] = (at, size)
            at += size

    def unpack(self, data) -> dict:
        """The fields of the record at the start of `data` (bytes-like, at least `size` bytes); a
        string field keeps its NUL padding."""
        return dict(zip(self.names, self._struct.unpack_from(data)))

    def pack(self, **values) -> bytes:
        """The record's bytes; a field not given is zero (a string field is NUL-padded)."""
        unknown = set(values) - set(self.names)
        if unknown:
            raise KeyError(f"no field {sorted(unknown)[0]!r} in this record")
        fields = {**self._zero, **values}
        return self._struct.pack(*(fields[name] for name in self.names))

    def span(self, name: str) -> tuple[int, int]:
        """Where field `name` starts in the record, and its size in bytes."""
        return self._spans[name]
