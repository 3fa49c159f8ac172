"""Where the tools keep per-user files: compiled kernels and the default lexicon's build."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """$BOGGLE_DAWG_CACHE, else $XDG_CACHE_HOME/boggle-dawg, else ~/.cache/boggle-dawg."""
    if os.environ.get("BOGGLE_DAWG_CACHE"):
        return Path(os.environ["BOGGLE_DAWG_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "boggle-dawg"
