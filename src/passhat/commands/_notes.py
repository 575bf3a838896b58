"""The reader's notes of one command run, queued while it runs and printed when it ends.

A reader's notes (which column was read as the system, rows set aside, …) go to stderr after the
command's own output, a gate's verdict included, and are dropped when the command fails, so that
bad input stays one line. This module imports nothing heavy: :func:`passhat.cli.main` imports it
whatever the command.

Examples
--------
>>> PENDING_NOTES.append("passhat: note: column 'model' read as the system")
>>> flush_notes(keep=False)
>>> PENDING_NOTES
[]
"""

from __future__ import annotations

import contextlib

import click

__all__ = ["PENDING_NOTES", "flush_notes"]

#: The reader's notes of this run (see the module's docstring).
PENDING_NOTES: list[str] = []


def flush_notes(*, keep: bool) -> None:
    """Print the pending notes on stderr (``keep``) or drop them; names' control characters are
    shown escaped."""
    notes = list(PENDING_NOTES)
    PENDING_NOTES.clear()
    if not keep or not notes:
        return
    from passhat._format import printable  # pandas: only when there is a note to print

    for note in notes:
        with contextlib.suppress(OSError, ValueError):
            click.echo(printable(note, keep_newlines=True), err=True)
