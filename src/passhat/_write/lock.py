"""The writer's lock of an output directory, and the removal of what interrupted writes left."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from passhat._write.files import TMP
from passhat.errors import OutputError

__all__ = ["OLD", "STAGING", "clean_leftovers", "locked"]

STAGING = ".passhat-new-"
OLD = ".passhat-old-"
_LOCK = ".passhat-lock"
_NEW = ".passhat-lock-new"


def _lock_owner(lock: Path) -> tuple[str, int] | None:
    try:
        host, pid = (lock / "owner").read_text(encoding="utf-8").split()[:2]
        return host, int(pid)
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_owner(folder: Path) -> None:
    """Say who holds the lock (for the message of a writer that has to wait), atomically."""
    tmp = folder / "owner.tmp"
    tmp.write_text(f"{socket.gethostname()} {os.getpid()}\n", encoding="utf-8")
    os.replace(tmp, folder / "owner")


def _flock(fd: int, *, wait: bool = False) -> bool | None:
    """Take the kernel's lock of a descriptor: True when taken, False when another process holds
    it, None when the file system cannot lock."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError as err:
        if err.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            return None
        raise
    return True


def _create(lock: Path) -> int | None:
    """Make a lock complete and locked under a unique name, then rename it into place (which
    fails when a lock is there). The descriptor holding it, or None."""
    if os.path.lexists(lock):
        return None
    tmp = Path(tempfile.mkdtemp(prefix=f"{lock.name}.", suffix=_NEW, dir=lock.parent))
    fd = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _flock(fd, wait=True)  # nobody else knows the name yet: never waits
        _write_owner(tmp)
        os.rename(tmp, lock)  # a non-empty directory there: ENOTEMPTY or EEXIST
        return fd
    except OSError as err:
        os.close(fd)
        shutil.rmtree(tmp, ignore_errors=True)
        if err.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            return None
        raise


def _take_over(lock: Path) -> int | None:
    """The lock there, when its holder is gone: the kernel's lock of the lock directory is free
    (it is released when a process ends, however it ends). Only one waiting writer can take it,
    and it checks that the directory it locked is still the one at ``lock``."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None  # released meanwhile: create it anew
    except OSError as err:
        if err.errno in (errno.ENOTDIR, errno.ELOOP):
            msg = f"{lock}: is not passhat's lock (a file or link); remove it"
            raise OutputError(msg) from None
        raise
    try:
        got = _flock(fd)
        if got is None:  # no kernel locks here: judge by the owner's process, as before
            owner = _lock_owner(lock)
            got = owner is not None and owner[0] == socket.gethostname() and not _alive(owner[1])
        if got:
            st, here = os.fstat(fd), os.lstat(lock)
            if (st.st_dev, st.st_ino) == (here.st_dev, here.st_ino):
                _write_owner(lock)
                return fd
    except FileNotFoundError:
        pass  # removed by its holder as this writer looked
    os.close(fd)
    return None


@contextlib.contextmanager
def locked(out: Path, timeout: float) -> Iterator[Path]:
    """Hold the writer's lock of ``out``: a directory beside it (inside it when the parent is not
    writable) whose kernel lock (``flock``) the holder keeps while it writes. A lock whose
    holder has ended, however it ended, is taken over by one waiting writer only."""
    parent = out.parent
    if os.access(parent, os.W_OK | os.X_OK):
        lock = parent / f".{out.name}{_LOCK}"
    else:
        lock = out / _LOCK
    deadline = time.monotonic() + timeout
    while True:
        fd = _create(lock)
        if fd is None:
            fd = _take_over(lock)
        if fd is not None:
            break
        if time.monotonic() >= deadline:
            owner = _lock_owner(lock)
            who = f"pid {owner[1]} on {owner[0]}" if owner else "another process"
            raise OutputError(
                f"{out}: another passhat ({who}) is writing there; try again when it has "
                f"finished (if none runs, remove {lock})"
            )
        time.sleep(0.05)
    try:
        yield lock
    finally:
        shutil.rmtree(lock, ignore_errors=True)  # removed while still held: then released
        os.close(fd)


def clean_leftovers(out: Path, owned: Iterable[str]) -> None:
    """Remove what interrupted writes of ``out`` left (called with the lock held)."""
    prefix = f".{out.name}"
    with contextlib.suppress(OSError):
        for entry in os.listdir(out.parent):
            full = out.parent / entry
            if entry.startswith((prefix + STAGING, prefix + OLD)):
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full, ignore_errors=True)
            elif entry.startswith(prefix + _LOCK + ".") and entry.endswith(_NEW):
                _remove_unheld(full)  # a lock being made when its writer was killed
    dirs = [out] + [out / o for o in owned if os.path.isdir(out / o)]
    for d in dirs:
        with contextlib.suppress(OSError):
            for entry in os.listdir(d):
                full = d / entry
                if entry.startswith(".") and entry.endswith(TMP) and os.path.isfile(full):
                    os.unlink(full)


def _remove_unheld(folder: Path) -> None:
    """Remove a lock directory nobody holds (its kernel lock is free)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        if _flock(fd):
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)
