"""Inputs that are not regular files: a pipe is read once into a bounded temporary file, a device
is refused, both with a clear message.

passhat reads an input more than once (sniffing its format, then reading it, then hashing it).
A named pipe (``mkfifo``) or a process substitution (``passhat estimate <(zcat runs.csv.gz)``,
which passes ``/dev/fd/63``) can be read once only: sniffing consumed its head and the reader
then found "the file is empty"; ``/dev/zero`` grew without bound; a pipe with no writer blocked
forever. :func:`readable_input` copies a pipe's bytes, once, into a temporary file of the same
name (so that its extension still tells the format) of at most :data:`SPOOL_LIMIT` bytes, waits
at most :data:`WRITER_WAIT` seconds for a writer, and refuses character and block devices and
sockets. Messages name the path the user gave, never the temporary copy.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp(); fifo = os.path.join(d, "runs.csv"); os.mkfifo(fifo)
>>> with readable_input(Path(d) / "x.csv") as (p, spooled):
...     p.name, spooled
('x.csv', False)
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from passhat.errors import FormatError, PasshatError

__all__ = ["SPOOL_LIMIT", "WRITER_WAIT", "readable_input", "renamed_errors"]

#: The most bytes read from a pipe (beyond: save it to a file first).
SPOOL_LIMIT = 4 * 2**30
#: Seconds a named pipe may stay without a writer before it is refused.
WRITER_WAIT = 30.0


def _kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, or None for a file or directory."""
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


@contextlib.contextmanager
def readable_input(path: Path) -> Iterator[tuple[Path, bool]]:
    """``(path to read, spooled)``: ``path`` itself when it is a file, a directory, missing or a
    pattern; for a pipe a temporary copy of its bytes (removed afterwards).

    Raises
    ------
    FormatError
        A device or socket; a pipe without a writer, or larger than :data:`SPOOL_LIMIT`.
    """
    try:
        st = os.stat(path)
    except OSError:
        yield path, False
        return
    kind = _kind(st.st_mode)
    if kind is not None:
        raise FormatError(
            f"{path}: is {kind}, not a file; passhat reads files (save the data to a file first)"
        )
    if not stat.S_ISFIFO(st.st_mode):
        yield path, False
        return
    folder = Path(tempfile.mkdtemp(prefix="passhat-pipe-"))
    try:
        copy = folder / (path.name if path.name not in ("", ".", "..") else "input")
        _spool(path, copy)
        with renamed_errors(copy, path):
            yield copy, True
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _spool(path: Path, copy: Path) -> None:
    """Copy a pipe's bytes into ``copy``: wait for a writer, stop at :data:`SPOOL_LIMIT`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never blocks, writer or not
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + WRITER_WAIT
        got = 0
        started = False
        with open(copy, "wb") as out:
            while True:
                if not poller.poll(200):  # nothing yet: no writer, or a slow one
                    if not started and time.monotonic() > deadline:
                        raise FormatError(
                            f"{path}: a named pipe with no writer for {WRITER_WAIT:.0f} s; start "
                            "the command that writes it, or save the data to a file"
                        )
                    continue
                try:
                    block = os.read(fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not block:
                    if started or _writer_gone(fd):
                        return
                    if time.monotonic() > deadline:  # never had a writer
                        raise FormatError(
                            f"{path}: a named pipe with no writer for {WRITER_WAIT:.0f} s; start "
                            "the command that writes it, or save the data to a file"
                        )
                    time.sleep(0.05)
                    continue
                started = True
                got += len(block)
                if got > SPOOL_LIMIT:
                    raise FormatError(
                        f"{path}: a pipe giving more than {SPOOL_LIMIT // 2**30} GiB; save the "
                        "data to a file and read the file"
                    )
                out.write(block)
    finally:
        os.close(fd)


def _writer_gone(fd: int) -> bool:
    """Whether a writer came and went (POLLHUP) rather than never came."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(ev & select.POLLHUP for _, ev in poller.poll(0))


@contextlib.contextmanager
def renamed_errors(copy: Path, path: Path) -> Iterator[None]:
    """Errors raised while ``copy`` is read name ``path`` instead."""
    try:
        yield
    except PasshatError as err:
        err.args = tuple(
            str(a).replace(str(copy), str(path)) if isinstance(a, str) else a for a in err.args
        )
        raise
