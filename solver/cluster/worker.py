"""What a worker process keeps between tasks: each lexicon opened once, its scorers warm.

Tasks name their lexicon by a `LexiconRef` (its path, format, the driver's
fingerprint of its compiled arrays and the identity of the words it holds), never by
its data. The first task in a worker process that names a lexicon opens it
(memory-mapped and validated once, as `open_lexicon` does) and checks that its
fingerprint is the driver's: a worker whose file at that
path differs (another build, a stale copy on another machine) fails the task with a
one-line error instead of computing a different answer. Later tasks reuse the
lexicon and its scorers (compiled kernels loaded, scratch memory allocated) until
the process ends.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

import numpy as np

from ..errors import DawgError

_lock = threading.Lock()
_lexicons: dict = {}
_scorers: dict = {}


def lexicon_fingerprint(lexicon) -> str:
    """A SHA-256 of what a lexicon scores with: its format, charset and the kernel arrays (the
    compiled file's contents), so two builds of the same list in the same format agree. Cheap,
    and what driver and workers of one version compare; checkpoints, which outlive versions,
    record `Lexicon.identity` instead."""
    digest = hashlib.sha256()
    digest.update(f"{lexicon.format}\0{lexicon.charset.letters}\0".encode())
    for value in lexicon.walk.inputs:
        if isinstance(value, np.ndarray):
            digest.update(f"{value.dtype.str}{value.shape}".encode())
            digest.update(np.ascontiguousarray(value).view(np.uint8).data)
        else:
            digest.update(repr(value).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class LexiconRef:
    """A lexicon as tasks name it: where it is on every machine, the arrays a worker must find
    there (`fingerprint`) and the words they hold (`identity`, what checkpoints record)."""

    path: str
    format: str
    fingerprint: str
    identity: str

    @classmethod
    def of(cls, lexicon) -> LexiconRef:
        return cls(str(lexicon.path.resolve()), lexicon.format, lexicon_fingerprint(lexicon), lexicon.identity)


def lexicon(ref: LexiconRef):
    """The lexicon `ref` names, opened once per process and checked against its fingerprint."""
    with _lock:
        if ref not in _lexicons:
            from ..lexicon import open_lexicon

            opened = open_lexicon(ref.path, ref.format)
            if lexicon_fingerprint(opened) != ref.fingerprint:
                raise DawgError(f"{ref.path}: this worker's lexicon differs from the driver's (another build "
                                f"at the same path?); give every worker the same files")
            _lexicons[ref] = opened
        return _lexicons[ref]


def scorer(ref: LexiconRef, rules, backend: str = "cpu", jobs: int = 1):
    """A scorer over `ref`'s lexicon under `rules`, made once per process (its kernels stay compiled and warm)."""
    key = (ref, rules, backend, jobs)
    opened = lexicon(ref)
    with _lock:
        if key not in _scorers:
            from ..backends import open_scorer

            _scorers[key] = open_scorer(opened, backend, jobs, rules)
        return _scorers[key]
