"""Write a build's files into its output directory, switching builds in atomically.

A build never writes into the output directory. It writes a complete new
directory beside it (`.NAME.new-PID-RANDOM`), every file read-only (0o444)
and flushed to disk, has the caller check it (the compiler opens it as the
readers will: a build no reader opens must not replace one they do), then
switches it in with one atomic step: a rename when
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
build's: the output's entries must be regular files named as build files (the
names the caller gives; this module knows no format), a leftover must be a
directory named exactly as above holding only such files, the lock an empty
regular file. Anything else (an output that is not a
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
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ..solver.errors import DawgError, reading

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def check_output_dir(out_dir: Path, build_files: Collection[str]) -> None:
    """Refuse an output, or an entry beside it, that a build would replace or delete and that is not
    provably a build's (see the module docstring): a build's files are named as in `build_files`."""
    target = Path(os.path.realpath(out_dir))
    if out_dir.is_symlink() or out_dir.exists():
        if not target.is_dir():
            raise DawgError(f"{out_dir}: exists and is not a directory")
        with reading(out_dir, "directory"):
            foreign = [name for name in sorted(os.listdir(target)) if not _is_build_file(target / name, build_files)]
        if foreign:
            raise DawgError(f"{out_dir}: holds {foreign[0]!r}, which is not part of a lexicon build; "
                            f"not replacing it")
    for entry in _leftovers(target.parent, target.name):
        if not _is_leftover(entry, build_files):
            raise DawgError(f"{entry}: named like a build's, but not a leftover of a build; not deleting it")


def _is_build_file(path: Path, build_files: Collection[str]) -> bool:
    return path.name in build_files and stat.S_ISREG(os.lstat(path).st_mode)


def _leftovers(parent: Path, name: str) -> list[Path]:
    """What builds into `parent/name` make beside it: the lock and what killed builds left."""
    leftover = re.compile(rf"\.{re.escape(name)}\.(?:new|old)-\d+-[0-9a-f]{{8}}|\.{re.escape(name)}\.lock")
    if not parent.is_dir():
        return []
    with reading(parent, "directory"):
        names = os.listdir(parent)
    return [parent / entry for entry in sorted(names) if leftover.fullmatch(entry)]


def _is_leftover(path: Path, build_files: Collection[str]) -> bool:
    """The lock is an empty regular file; a killed build's directory holds only build files."""
    try:
        st = os.lstat(path)
        if path.name.endswith(".lock"):
            return stat.S_ISREG(st.st_mode) and st.st_size == 0
        return stat.S_ISDIR(st.st_mode) and all(_is_build_file(path / name, build_files) for name in os.listdir(path))
    except FileNotFoundError:  # deleted meanwhile (a build that finished, or its cleanup)
        return True
    except OSError:  # unreadable: not provably ours
        return False


def write_files(out_dir: Path, files: dict[str, bytes], check: Callable[[Path], None] | None = None,
                build_files: Collection[str] | None = None) -> None:
    """Make `out_dir` hold exactly `files` (name -> bytes), switching from any old build atomically;
    an old build's files are named as `build_files` (default: as these; a build that writes some
    files only for some lists names them all). `check(new directory)` runs before the switch; a
    DawgError it raises keeps the old build and is told as `out_dir`'s."""
    build_files = files.keys() if build_files is None else build_files
    check_output_dir(out_dir, build_files)
    target = Path(os.path.realpath(out_dir))  # through a symlink: the link stays, its directory is swapped
    parent, name = target.parent, target.name
    if target == parent:
        raise DawgError(f"{out_dir}: cannot be an output directory")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        blocker = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), None)
        reason = f"{blocker} is not a directory" if blocker else _reason(err)
        raise DawgError(f"{out_dir}: cannot create output directory ({reason})") from None
    try:
        with _locked(parent / f".{name}.lock"):
            check_output_dir(out_dir, build_files)  # again: another build or a user may have acted while we waited
            _remove_stale(parent, name)
            _switch_in(parent, target, files, check, out_dir)
    except OSError as err:
        raise DawgError(f"{err.filename or out_dir}: cannot write ({_reason(err)})") from None


def _reason(err: OSError) -> str:
    return "permission denied" if isinstance(err, PermissionError) else err.strerror or str(err)


def _switch_in(parent: Path, target: Path, files: dict[str, bytes], check: Callable[[Path], None] | None,
               out_dir: Path) -> None:
    """Write `files` to a new directory beside `target`, check it, then make it `target` in one step."""
    staging = parent / f".{target.name}.new-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        _write_tree(staging, files)
        if check:
            try:
                check(staging)
            except DawgError as err:  # the temporary is deleted below: name its files, not it
                problem = str(err).replace(f"{staging}{os.sep}", "").replace(str(staging), "the new build")
                raise DawgError(f"{out_dir}: the new build does not open, so it is not switched in ({problem})") \
                    from None
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
