"""The shipped default lexicon, compiled once into a per-user cache on first use."""

from __future__ import annotations

from pathlib import Path

from .solver.formats.common import MANIFEST_FILE
from .solver.user_cache import cache_root

DEFAULT_WORD_LIST = "sowpods.txt"
DEFAULT_CHARSET = 26


def default_word_list() -> Path:
    """The word list shipped in the package (lexicons/ in the repository)."""
    from importlib.resources import files  # here, not at the top: opening a named lexicon never needs it

    return Path(str(files("boggle_dawg.lexicons") / DEFAULT_WORD_LIST))


def default_lexicon_dir(announce=None) -> Path:
    """The compiled default lexicon, building it first if this word list has no build yet.

    The cache key is the word list's SHA-256 and the tool version, so an edited
    list or a new format version gets a fresh build; `announce(message)` is told
    when a build starts.
    """
    import hashlib

    from .solver import __version__

    source = default_word_list()
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    out = cache_root() / f"{source.stem}-{DEFAULT_CHARSET}-{digest}-v{__version__}"
    if not (out / MANIFEST_FILE).is_file():
        from .compiler.build import build_lexicon
        from .solver.charset import ranked

        if announce:
            announce(f"compiling the default lexicon {source.name} into {out} (once)")
        build_lexicon(source, ranked(DEFAULT_CHARSET), out)
    return out


def lexicon_or_default(file: Path | None, fmt: str | None = None, announce=None):
    """The lexicon at `file`, or the shipped default one (compiled on first use, which
    `announce(message)` is told)."""
    from .solver.lexicon import open_lexicon

    if file is None:
        file = default_lexicon_dir(announce)
    return open_lexicon(file, fmt)
