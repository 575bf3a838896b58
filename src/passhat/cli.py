"""Command-line interface: parse → API → write. No statistics here.

Exit statuses, the same for every command (docs/guide/cli.md): 0 success; 1 a gate decided
"fail" (and nothing else); 2 bad input or options; 3 a sequential gate says "continue"
(``passhat gate``); 4 an I/O error (disk full, permission,
out of memory); 130 interrupted (Ctrl-C, SIGINT), 143 terminated (SIGTERM), both after the
temporary files are removed; 70 an unexpected exception, i.e. a bug in passhat. Every
failure prints one line, ``passhat: error: ...``, never a traceback (``PASSHAT_DEBUG=1``
shows it for a bug). Listing the commands (``passhat --help``, ``--version``) imports none of
them, nor pandas, xarray or SciPy: see :mod:`passhat.commands`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

import click

from passhat.commands import LazyGroup, OutputGone
from passhat.commands._notes import flush_notes
from passhat.errors import (
    EXIT_INPUT,
    EXIT_INTERRUPT,
    EXIT_IO,
    EXIT_TERMINATED,
    PasshatError,
)

#: Exit status of an unexpected exception (a bug in passhat; sysexits' EX_SOFTWARE).
EXIT_BUG = 70

__all__ = ["EXIT_BUG", "EXIT_INPUT", "cli", "main"]


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version (looked up only when asked: it costs ~0.1 s)."""
    if not value or ctx.resilient_parsing:
        return
    from passhat._version import __version__

    click.echo(f"passhat, version {__version__}")
    ctx.exit()


# ------------------------------------------------------------------ commands
@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """passhat: pass@k, pass^k and mean success of repeated agent trials."""


# Commands live in passhat.commands, one module per topic, imported when used.


# --------------------------------------------------------------------- main
class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl-C, so every ``finally`` removes its temporary files."""


@contextlib.contextmanager
def _signals_unwind() -> Iterator[list[int]]:
    """While a command runs, SIGINT raises KeyboardInterrupt and SIGTERM :class:`Terminated`, and
    both are recorded in the yielded list: a library that turns the interrupt into an error of its
    own (pandas' CSV parser reports "read failed") still ends as an interrupt. Outside the main
    thread (a test runner's thread) the handlers cannot be set and are left alone."""
    caught: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        caught.append(signum)
        raise KeyboardInterrupt if signum == signal.SIGINT else Terminated()

    try:
        previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:
        yield caught
        return
    try:
        yield caught
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


#: The longest error line printed; a longer one (a name of 10^5 characters in it) keeps its start
#: (the file, row and name) and its end (the rule broken), with the count of what was left out.
MAX_LINE = 2000


def _cap(text: str) -> str:
    """``text`` cut to :data:`MAX_LINE` characters in the middle, saying how much was cut.

    Examples
    --------
    >>> line = _cap("passhat: error: runs.csv: row 2: task_id '" + "x" * 9000 + "' is blank")
    >>> len(line) <= MAX_LINE, line.endswith("' is blank")
    (True, True)
    """
    if len(text) <= MAX_LINE:
        return text
    head, tail = MAX_LINE * 2 // 3, MAX_LINE // 4
    return f"{text[:head]} … [{len(text) - head - tail:,} characters left out] … {text[-tail:]}"


def _say(message: str, *, lines: bool = False) -> None:
    """A message on stderr, control characters of names shown escaped (line feeds too, unless
    ``lines``: an error is one line, click's usage text several), cut to :data:`MAX_LINE`."""
    try:
        from passhat._format import printable  # here: _format imports pandas (~0.3 s)
    except MemoryError:  # out of memory before pandas was imported: the message is ours
        with contextlib.suppress(OSError, ValueError):
            click.echo(message.encode("ascii", "backslashreplace").decode(), err=True)
        return
    text = printable(message, keep_newlines=lines)
    with contextlib.suppress(OSError, ValueError):
        click.echo(text if lines else _cap(text), err=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``passhat`` console script; returns the exit status."""
    from passhat._lazy import defer_dask
    from passhat._write.stdout import checked_stdout

    defer_dask()  # xarray imports dask (~0.3 s) only once a command uses it (--scheduler)
    caught: list[int] = []
    try:
        with _signals_unwind() as caught, checked_stdout():
            try:
                rv = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
            except BrokenPipeError as err:  # the end of the output met the reader's absence
                raise OutputGone from err
    except BaseException as err:  # every exit status is decided here, none by accident
        _reader_notes(keep=isinstance(err, click.exceptions.Exit) and not caught)
        if caught or isinstance(err, KeyboardInterrupt | Terminated | click.exceptions.Abort):
            terminated = isinstance(err, Terminated) or signal.SIGTERM in caught
            _say("passhat: terminated" if terminated else "passhat: interrupted")
            return EXIT_TERMINATED if terminated else EXIT_INTERRUPT
        return _failure(err)
    _reader_notes(keep=True)
    return rv if isinstance(rv, int) else 0


def _reader_notes(*, keep: bool) -> None:
    """The input's notes (which column was read as the system, ...) after a command's output,
    or none after an error: bad input is one line on stderr."""
    flush_notes(keep=keep)


def _os_error(err: OSError) -> str:
    """An operating-system error as "FILE: reason", not Python's ``[Errno 13] ...``; a file in a
    directory that cannot be entered says which directory."""
    from passhat._write.files import reason

    why = reason(err)
    if not err.filename:
        return why
    name = os.fsdecode(err.filename)
    if err.errno == errno.EACCES:
        parent = os.path.dirname(os.path.abspath(name))
        while parent and not os.path.exists(parent):  # an unreadable one hides what is below
            parent = os.path.dirname(parent)
        blocked = next((d for d in _ancestors(parent) if not os.access(d, os.X_OK)), None)
        if blocked is not None:
            why += f" (the directory {blocked} cannot be entered)"
    return f"{name}: {why}"


def _ancestors(folder: str) -> list[str]:
    out = []
    while True:
        out.append(folder)
        up = os.path.dirname(folder)
        if up == folder:
            return out[::-1]
        folder = up


def _failure(err: BaseException) -> int:
    """Print one line for ``err`` and return its exit status (docs/guide/cli.md)."""
    if isinstance(err, PasshatError):
        _say(f"passhat: error: {err}")
        return err.exit_code
    if isinstance(err, click.exceptions.Exit):
        return int(err.exit_code)
    if isinstance(err, click.exceptions.NoArgsIsHelpError):  # `passhat` alone: the help
        _say(err.format_message(), lines=True)
        return EXIT_INPUT
    if isinstance(err, click.ClickException):
        _say(f"passhat: error: {err.format_message()}", lines=True)
        return EXIT_INPUT if err.exit_code == 1 else err.exit_code  # 1 is the gates' alone
    if isinstance(err, BrokenPipeError | OutputGone):  # the reader went away (`| head`): quiet
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_IO
    if isinstance(err, MemoryError):
        _say("passhat: error: out of memory (the input is too large for this machine's memory)")
        return EXIT_IO
    if isinstance(err, RecursionError):
        _say("passhat: error: the input is nested too deeply to process")
        return EXIT_INPUT
    if isinstance(err, OSError):
        _say(f"passhat: error: {_os_error(err)}")
        return EXIT_IO
    if not isinstance(err, Exception):  # SystemExit, GeneratorExit: not ours to translate
        raise err
    if os.environ.get("PASSHAT_DEBUG"):
        traceback.print_exception(err)
    _say(
        f"passhat: error: unexpected {type(err).__name__}: {err} (a bug in passhat; "
        "PASSHAT_DEBUG=1 shows the traceback)"
    )
    return EXIT_BUG


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
