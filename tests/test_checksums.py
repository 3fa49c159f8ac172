"""CI regression: rebuild the committed lexicons and compare every file's SHA-256.

build/checksums.txt lists `<sha256>  <build>/<file>` for the shipped default
list and for twl06, sowpods and enable2k from ../shared at charsets 14 and 26.
Regenerate it after an intended format change with
`python tests/test_checksums.py > build/checksums.txt`.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from support import REPO, word_list_path

CHECKSUMS = REPO / "build" / "checksums.txt"
BUILDS = [(name, charset) for name in ("default", "twl06", "sowpods", "enable2k") for charset in ("14", "26")]


def committed() -> dict[str, str]:
    entries = {}
    for line in CHECKSUMS.read_text().splitlines():
        digest, name = line.split()
        entries[name] = digest
    return entries


def digests(out: Path, label: str) -> dict[str, str]:
    return {f"{label}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())}


@pytest.mark.slow
@pytest.mark.parametrize("name, charset", BUILDS, ids=[f"{n}-{c}" for n, c in BUILDS])
def test_rebuild_matches_committed_checksums(built, name, charset):
    label = f"{name}-{charset}"
    expected = {k: v for k, v in committed().items() if k.startswith(label + "/")}
    assert expected, f"{CHECKSUMS} has no entries for {label}"
    actual = digests(built(name, charset), label)
    changed = sorted(k for k in expected.keys() | actual.keys() if expected.get(k) != actual.get(k))
    assert not changed, f"files differ from {CHECKSUMS.name}: {', '.join(changed)}"


def main() -> None:
    """Print the checksum file for the current code (run from the repository root)."""
    import tempfile

    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    with tempfile.TemporaryDirectory() as tmp:
        for name, charset in BUILDS:
            out = Path(tmp) / f"{name}-{charset}"
            build_lexicon(word_list_path(name), parse_charset(charset), out)
            for key, digest in digests(out, f"{name}-{charset}").items():
                sys.stdout.write(f"{digest}  {key}\n")


if __name__ == "__main__":
    main()
