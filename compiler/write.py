"""Serialise built structures with the layouts of `solver.formats`, and switch builds in atomically.

A build never writes into the output directory. It writes a complete new
directory beside it (`.NAME.new-PID-RANDOM`), every file read-only (0o444)
and flushed to disk, then switches it in with one atomic step: a rename when
there is no output yet, else Linux `renameat2(RENAME_EXCHANGE)`, which swaps
the two directories; the old tree, now at the temporary name, is deleted. A
reader sees the whole old build or the whole new one, wherever the build is
killed. Where the exchange is unavailable (not Linux, glibc before 2.28, a
filesystem without it) the old directory is renamed aside and the new one
renamed in: between those two renames the output is missing (readers get "no
such file"), never mixed.

Builds into one output take an exclusive `flock` on `.NAME.lock` beside it
(an empty file, deleted afterwards) for the write and the switch, so
concurrent builds serialise and the last one wins whole. Holding the lock, a
build first deletes what killed builds left (`.NAME.new-PID-HEX`,
`.NAME.old-PID-HEX`). A build replaces or deletes only what is provably a
build's: the output's entries must be regular files named as build files, a
leftover must be a directory named exactly as above holding only such files,
the lock an empty regular file. Anything else (an output that is not a
directory, a directory or link named `trie.bin`, a user's `.out.new-...`
folder) makes the build refuse before any work, in one line naming the entry,
touching nothing. A shell whose working directory is the output keeps the
old, deleted directory as its working directory.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import os
import re
import secrets
import shutil
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import msgpack
import numpy as np

from ..solver.charset import Charset
from ..solver.errors import DawgError, reading
from ..solver.formats.adtdawg import ADT_FILES
from ..solver.formats.common import FORMAT_VERSION, HEADER, MANIFEST_FILE, MAX_INDEX, node_word
from ..solver.formats.dawg import DAWG_FILE, DAWG_MAGIC
from ..solver.formats.trie import TRIE_FILE, TRIE_MAGIC
from .adtdawg import Adt
from .dawg import Dawg
from .trie import Trie

BUILD_FILES = frozenset((TRIE_FILE, DAWG_FILE, *ADT_FILES, MANIFEST_FILE))
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _header(magic: bytes, charset: Charset, max_length: int, words: int, nodes: int,
            edges: int, body: bytes) -> bytes:
    if max(words, nodes, edges) >= MAX_INDEX:
        raise DawgError(f"lexicon too large for the format ({nodes} nodes, {edges} edges)")
    head = np.zeros((), HEADER)
    head["magic"] = magic
    head["version"] = FORMAT_VERSION
    head["charset_size"] = len(charset)
    if not 0 < max_length <= np.iinfo(HEADER["max_length"]).max:
        raise DawgError(f"max_length {max_length} does not fit the header's byte")
    head["max_length"] = max_length
    head["charset"] = charset.letters.upper().encode("ascii")
    head["words"] = words
    head["nodes"] = nodes
    head["edges"] = edges
    head["crc32"] = zlib.crc32(body)
    return head.tobytes()


def trie_bytes(trie: Trie, charset: Charset, max_length: int, words: int) -> bytes:
    body = node_word(trie.first, trie.mask, trie.eow).tobytes()
    return _header(TRIE_MAGIC, charset, max_length, words, trie.size, 0, body) + body


def dawg_bytes(dawg: Dawg, charset: Charset, max_length: int) -> bytes:
    states = node_word(dawg.first_edge, dawg.mask, dawg.eow)
    edges = dawg.edge_child.astype(np.uint64) | (dawg.edge_skip.astype(np.uint64) << np.uint64(32))
    body = states.tobytes() + edges.astype("<u8").tobytes() + dawg.count.astype("<u4").tobytes()
    return _header(DAWG_MAGIC, charset, max_length, int(dawg.count[0]), dawg.states, dawg.edges,
                   body) + body


def adtdawg_parts(adt: Adt) -> list[bytes]:
    """The four part files: node words, child sets, wide and narrow tracking numbers."""
    k = adt.wide_nodes
    return [
        np.uint32(adt.node_count).astype("<u4").tobytes() + adt.nodes.tobytes(),
        np.uint64(len(adt.child_sets)).astype("<u8").tobytes() + adt.child_sets.astype("<u8").tobytes(),
        np.uint32(k).astype("<u4").tobytes() + adt.tracking[:k].astype("<u4").tobytes(),
        adt.tracking[k:].astype(np.uint8).tobytes(),
    ]


def manifest_bytes(manifest: dict) -> bytes:
    return msgpack.packb(manifest, use_bin_type=True)


def check_output_dir(out_dir: Path) -> None:
    """Refuse an output, or an entry beside it, that a build would replace or delete and that is not
    provably a build's (see the module docstring)."""
    target = Path(os.path.realpath(out_dir))
    if out_dir.is_symlink() or out_dir.exists():
        if not target.is_dir():
            raise DawgError(f"{out_dir}: exists and is not a directory")
        with reading(out_dir, "directory"):
            foreign = [name for name in sorted(os.listdir(target)) if not _is_build_file(target / name)]
        if foreign:
            raise DawgError(f"{out_dir}: holds {foreign[0]!r}, which is not part of a lexicon build; "
                            f"not replacing it")
    for entry in _leftovers(target.parent, target.name):
        if not _is_leftover(entry):
            raise DawgError(f"{entry}: named like a build's, but not a leftover of a build; not deleting it")


def _is_build_file(path: Path) -> bool:
    return path.name in BUILD_FILES and stat.S_ISREG(os.lstat(path).st_mode)


def _leftovers(parent: Path, name: str) -> list[Path]:
    """What builds into `parent/name` make beside it: the lock and what killed builds left."""
    leftover = re.compile(rf"\.{re.escape(name)}\.(?:new|old)-\d+-[0-9a-f]{{8}}|\.{re.escape(name)}\.lock")
    if not parent.is_dir():
        return []
    with reading(parent, "directory"):
        names = os.listdir(parent)
    return [parent / entry for entry in sorted(names) if leftover.fullmatch(entry)]


def _is_leftover(path: Path) -> bool:
    """The lock is an empty regular file; a killed build's directory holds only build files."""
    try:
        st = os.lstat(path)
        if path.name.endswith(".lock"):
            return stat.S_ISREG(st.st_mode) and st.st_size == 0
        return stat.S_ISDIR(st.st_mode) and all(_is_build_file(path / name) for name in os.listdir(path))
    except FileNotFoundError:  # deleted meanwhile (a build that finished, or its cleanup)
        return True
    except OSError:  # unreadable: not provably ours
        return False


def write_files(out_dir: Path, files: dict[str, bytes]) -> None:
    """Make `out_dir` hold exactly `files` (name -> bytes), switching from any old build atomically."""
    check_output_dir(out_dir)
    target = Path(os.path.realpath(out_dir))  # through a symlink: the link stays, its directory is swapped
    parent, name = target.parent, target.name
    if target == parent:
        raise DawgError(f"{out_dir}: cannot be an output directory")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise DawgError(f"{out_dir}: cannot create output directory ({_reason(err)})") from None
    try:
        with _locked(parent / f".{name}.lock"):
            check_output_dir(out_dir)  # again: another build or a user may have acted while we waited
            _remove_stale(parent, name)
            _switch_in(parent, target, files)
    except OSError as err:
        raise DawgError(f"{err.filename or out_dir}: cannot write ({_reason(err)})") from None


def _reason(err: OSError) -> str:
    return "permission denied" if isinstance(err, PermissionError) else err.strerror or str(err)


def _switch_in(parent: Path, target: Path, files: dict[str, bytes]) -> None:
    """Write `files` to a new directory beside `target`, then make it `target` in one step."""
    staging = parent / f".{target.name}.new-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        _write_tree(staging, files)
        if not target.exists():
            os.rename(staging, target)
        elif not _exchange(staging, target):  # on success, staging holds the old build
            aside = parent / f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
            os.rename(target, aside)
            try:
                os.rename(staging, target)  # the output is missing between these two renames
            except BaseException:
                os.rename(aside, target)
                raise
            staging = aside
        _fsync_dir(parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `lock_path`, and delete the file when done.

    The holder deletes the file before unlocking it, so a waiter can end up
    locking a deleted file: it checks that the path still names the file it
    locked, and starts again if not.
    """
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _names_file(lock_path, fd):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    try:
        yield
    finally:
        with suppress(FileNotFoundError):
            os.unlink(lock_path)
        os.close(fd)


def _names_file(path: Path, fd: int) -> bool:
    try:
        return os.path.samestat(os.stat(path), os.fstat(fd))
    except FileNotFoundError:
        return False


def _remove_stale(parent: Path, name: str) -> None:
    """Delete what killed builds left beside the output (checked by `check_output_dir` under the lock)."""
    for entry in _leftovers(parent, name):
        if not entry.name.endswith(".lock"):
            shutil.rmtree(entry, ignore_errors=True)


def _write_tree(directory: Path, files: dict[str, bytes]) -> None:
    """A new directory holding `files`, each read-only and flushed, then the directory flushed."""
    os.mkdir(directory)
    for file_name, data in files.items():
        with open(directory / file_name, "wb", opener=_create_read_only) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    _fsync_dir(directory)


def _create_read_only(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_EXCL, 0o444)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one step (Linux renameat2); False where that is unsupported."""
    renameat2 = _libc_renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@functools.cache
def _libc_renameat2():
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    return renameat2


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
