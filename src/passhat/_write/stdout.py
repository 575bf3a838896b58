"""Standard output with every byte accounted for: a short or failed write is an error naming where
the output went, and a reader that leaves before reading everything is noticed.

Python's own ``sys.stdout`` loses bytes silently when it is unbuffered (``PYTHONUNBUFFERED=1``,
common in containers and CI): its text layer writes straight to the file descriptor and ignores
a short count, so a full disk or ``ulimit -f`` cut the output and the command still exited 0.
And the error of a buffered stdout names no file (``[Errno 27] File too large``).
:func:`checked_stdout` puts a writer in its place while a command runs that

* writes until every byte is out, or raises :class:`~passhat.errors.OutputError` naming the
  file stdout is (``/data/est.csv``) or "standard output", with the reason (disk full, file too
  large, ...); when stdout is a regular file it is cut back to its length before the command,
  so no truncated CSV or JSON that looks whole is left behind;
* when stdout is a pipe, waits at the end until the reader has read what was written: a reader
  that goes away first (``passhat ... | head -1``) is :class:`BrokenPipeError` (exit status 4),
  as it is when the output is larger than the pipe's buffer. A reader that reads nothing for
  two seconds is left to read the rest once passhat has ended (``Popen(...).wait()`` before
  ``.read()`` must not deadlock).

Examples
--------
>>> import os, tempfile
>>> fd, name = tempfile.mkstemp()
>>> out = CheckedWriter(fd)
>>> out.write(b"all of it")
9
>>> os.close(fd); open(name).read()
'all of it'
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import stat
import sys
from collections.abc import Iterator
from typing import Any, cast

from passhat._write.files import reason
from passhat.errors import OutputError

__all__ = ["CheckedWriter", "checked_stdout", "wait_for_reader"]

#: How often the end of a command looks whether a pipe's reader has read everything (seconds).
_POLL = 0.02
#: How long a reader may read nothing before passhat ends anyway, leaving the bytes in the pipe
#: (seconds): a reader that reads only once passhat has ended must not wait forever.
_STALL = 2.0


def _destination(fd: int) -> str:
    """What the descriptor writes to, for messages: the file's path, or "standard output"."""
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return f"{os.readlink(f'/proc/self/fd/{fd}')} (standard output)"
    except OSError:
        pass
    return "standard output"


class CheckedWriter(io.RawIOBase):
    """A raw writer of a file descriptor (not closed with it) whose ``write`` writes all of its
    bytes or raises :class:`~passhat.errors.OutputError`; a closed pipe stays
    :class:`BrokenPipeError` (the reader went away)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._failed = False
        self._start: int | None = None  # where a regular file is cut back to after a failure
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode):
                import fcntl

                append = bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND)
                at = st.st_size if append else os.lseek(fd, 0, os.SEEK_CUR)
                self._start = at if at == st.st_size else None  # only output at the end
        except OSError:
            pass

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")
        total = len(view)
        if self._failed:  # the error was raised once; what follows goes nowhere
            return total
        while view:
            try:
                n = os.write(self._fd, view)
            except BlockingIOError:  # a non-blocking descriptor: wait until it takes more
                select.select([], [self._fd], [])
                continue
            except BrokenPipeError:
                self._failed = True
                raise
            except OSError as err:
                raise self._error(reason(err)) from err
            if n == 0:
                raise self._error("the system wrote nothing")
            view = view[n:]
        return total

    def _error(self, why: str) -> OutputError:
        self._failed = True
        done = "the output is incomplete"
        if self._start is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._start)
                done = "the partial output was removed"
        return OutputError(f"{_destination(self._fd)}: cannot write: {why}; {done}")


def wait_for_reader(fd: int) -> None:
    """When ``fd`` is a pipe: return once its reader has read every byte in it; raise
    :class:`BrokenPipeError` when the reader closed the pipe with bytes unread."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
        import array
        import fcntl
        import termios
    except (OSError, ImportError):
        return
    poller = select.poll()
    poller.register(fd, 0)  # POLLERR and POLLHUP are reported whatever is asked
    unread = array.array("i", [0])
    last, still = -1, 0.0
    while still < _STALL:
        try:
            fcntl.ioctl(fd, termios.FIONREAD, unread, True)
        except OSError:
            return  # not a pipe that tells its unread bytes
        if unread[0] == 0:
            return
        if any(ev & select.POLLERR for _, ev in poller.poll(_POLL * 1000)):
            raise BrokenPipeError(errno.EPIPE, "the reader went away with output unread")
        still = still + _POLL if unread[0] == last else 0.0
        last = unread[0]
    # a reader that reads nothing for _STALL seconds (it reads when passhat has ended, e.g.
    # Popen(...).wait() before .read()) gets the bytes later: never wait for it forever


@contextlib.contextmanager
def checked_stdout() -> Iterator[None]:
    """While the block runs, ``sys.stdout`` is a text stream over :class:`CheckedWriter`; at its
    end the output is flushed and (for a pipe) read by the reader, or an error raised. Only the
    process's own stdout is replaced (a test's captured stream is left alone)."""
    original = sys.stdout
    try:
        fd = original.fileno() if original is sys.__stdout__ and original is not None else -1
    except (OSError, ValueError, AttributeError):
        fd = -1
    if fd < 0:
        yield
        return
    original.flush()
    raw = CheckedWriter(fd)
    stream = io.TextIOWrapper(
        io.BufferedWriter(cast(Any, raw)),
        encoding=original.encoding,
        errors=original.errors,
        line_buffering=bool(getattr(original, "line_buffering", False)),
    )
    sys.stdout = stream
    try:
        yield
        stream.flush()
        wait_for_reader(fd)
    except BaseException:
        with contextlib.suppress(Exception):  # what the command printed before its error
            stream.flush()
        raise
    finally:
        sys.stdout = original
        raw._failed = True  # nothing more goes through it
        with contextlib.suppress(Exception):
            stream.close()
