"""Schema checks of decoded data, one set for every reader: the build manifest (msgpack) and
checkpoint records (JSON).

A check is `check(value, name)`: it returns the value as checked (a map keeps only the
fields its schema names) or raises `BadField` with the dotted name of the field that fails,
what was expected and what was found. bool is not an integer here. The reader turns the
first `BadField` into its one-line `DawgError` naming its file (and line) and the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

MAX_COUNT = 2**63 - 1  # counts and sizes are at most this

Check = Callable[[Any, str], Any]


class BadField(Exception):
    """A field that fails its check: its dotted name, what was expected, the value found."""

    def __init__(self, name: str, expected: str, value: Any, missing: bool = False) -> None:
        super().__init__(name)
        self.name, self.expected, self.value, self.missing = name, expected, value, missing

    def problem(self, null: str = "null") -> str:
        """`missing` or `expected X, got Y`; `null` is how the data's format writes None (msgpack: nil)."""
        return "missing" if self.missing else f"expected {self.expected}, got {shown(self.value, null)}"


def shown(value: Any, null: str = "null") -> str:
    """A short, one-line rendering of a decoded value for an error message."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**12 else f"{value:.3e}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, bytes):
        return f"binary data ({len(value)} bytes)"
    if isinstance(value, dict):
        return f"a map of {len(value)} fields" if value else "an empty map"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items" if value else "an empty list"
    return type(value).__name__


def integer(lo: int = 0, hi: int = MAX_COUNT) -> Check:
    def check(value, name):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise BadField(name, f"an integer {lo}..{hi}", value)
        return value
    return check


def number(lo: float = 0.0, hi: float = 1e12) -> Check:
    """A finite number (an integer or a float)."""
    def check(value, name):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and lo <= value <= hi):
            raise BadField(name, f"a number {lo:g}..{hi:g}", value)
        return value
    return check


def text(pattern: str, expected: str) -> Check:
    regex = re.compile(pattern)

    def check(value, name):
        if not isinstance(value, str) or not regex.fullmatch(value):
            raise BadField(name, expected, value)
        return value
    return check


def one_of(*values: str) -> Check:
    def check(value, name):
        if not isinstance(value, str) or value not in values:
            raise BadField(name, "one of " + ", ".join(values), value)
        return value
    return check


def optional(inner: Check) -> Check:
    def check(value, name):
        return None if value is None else inner(value, name)
    return check


def list_of(inner: Check, length: int | None = None, most: int | None = None) -> Check:
    """A list of exactly `length` items, or of at most `most`, each checked by `inner`."""
    expected = f"a list of {length} items" if length is not None else f"a list of at most {most} items"

    def check(value, name):
        if not isinstance(value, list) or (length is not None and len(value) != length) or (
                most is not None and len(value) > most):
            raise BadField(name, expected, value)
        return [inner(item, f"{name}[{i}]") for i, item in enumerate(value)]
    return check


def pair(first: Check, second: Check, expected: str) -> Check:
    """A list of two items, e.g. [board, score]."""
    def check(value, name):
        if not isinstance(value, list) or len(value) != 2:
            raise BadField(name, expected, value)
        return [first(value[0], f"{name}[0]"), second(value[1], f"{name}[1]")]
    return check


def fields(**schema: Check) -> Check:
    """A map with at least these fields, each checked; the checked map keeps only these."""
    def check(value, name):
        if not isinstance(value, dict):
            raise BadField(name, "a map", value)
        return _checked(schema, value, name)
    return check


def only_fields(**schema: Check) -> Check:
    """A map with exactly these fields, each checked: what a program wrote whole, where a field it
    never writes means the data was edited (a checkpoint's records)."""
    def check(value, name):
        if not isinstance(value, dict):
            raise BadField(name, "a map", value)
        extra = next((key for key in value if key not in schema), None)
        if extra is not None:
            raise BadField(f"{name}.{extra}" if name else str(extra), "no such field (edited?)", value[extra])
        return _checked(schema, value, name)
    return check


def _checked(schema: dict, value: dict, name: str) -> dict:
    out = {}
    for key, inner in schema.items():
        child = f"{name}.{key}" if name else key
        if key not in value:
            raise BadField(child, "", None, missing=True)
        out[key] = inner(value[key], child)
    return out


# A file name a reader opens inside a directory: no path, no control characters.
file_name = text(r"(?!\.\.?\Z)[^/\x00-\x1f\x7f]{1,255}", "a plain file name")
sha256 = text(r"[0-9a-f]{64}", "a 64-digit hex string")
FILE_ENTRY = {"file": file_name, "bytes": integer(), "sha256": sha256}  # a file as a manifest records it
