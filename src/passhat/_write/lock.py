"""The writer's lock of an output directory, and the removal of what interrupted writes left."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from passhat._write.files import TMP
from passhat.errors import OutputError

__all__ = ["OLD", "STAGING", "clean_leftovers", "locked"]

STAGING = ".passhat-new-"
OLD = ".passhat-old-"
_LOCK = ".passhat-lock"


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


@contextlib.contextmanager
def locked(out: Path, timeout: float) -> Iterator[Path]:
    """Hold the writer's lock of ``out``: a directory created beside it (inside it when the
    parent is not writable). A lock left by a process that no longer runs is taken over."""
    parent = out.parent
    if os.access(parent, os.W_OK | os.X_OK):
        lock = parent / f".{out.name}{_LOCK}"
    else:
        lock = out / _LOCK
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            if os.path.islink(lock) or not os.path.isdir(lock):
                raise OutputError(
                    f"{lock}: is not passhat's lock (a file or link); remove it"
                ) from None
            owner = _lock_owner(lock)
            here = socket.gethostname()
            try:
                young = time.time() - os.lstat(lock).st_mtime < 5.0
            except FileNotFoundError:
                continue
            stale = (owner is None and not young) or (
                owner is not None and owner[0] == here and not _alive(owner[1])
            )
            if stale:
                shutil.rmtree(lock, ignore_errors=True)
                continue
            if time.monotonic() >= deadline:
                who = f"pid {owner[1]} on {owner[0]}" if owner else "another process"
                raise OutputError(
                    f"{out}: another passhat ({who}) is writing there; try again when it has "
                    f"finished (if none runs, remove {lock})"
                ) from None
            time.sleep(0.1)
    try:
        (lock / "owner").write_text(f"{socket.gethostname()} {os.getpid()}\n", encoding="utf-8")
        yield lock
    finally:
        shutil.rmtree(lock, ignore_errors=True)


def clean_leftovers(out: Path, owned: Iterable[str]) -> None:
    """Remove what interrupted writes of ``out`` left (called with the lock held)."""
    prefix = f".{out.name}"
    with contextlib.suppress(OSError):
        for entry in os.listdir(out.parent):
            if entry.startswith((prefix + STAGING, prefix + OLD)):
                full = out.parent / entry
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full, ignore_errors=True)
    dirs = [out] + [out / o for o in owned if os.path.isdir(out / o)]
    for d in dirs:
        with contextlib.suppress(OSError):
            for entry in os.listdir(d):
                full = d / entry
                if entry.startswith(".") and entry.endswith(TMP) and os.path.isfile(full):
                    os.unlink(full)
