"""Rich's console and table made literal (loaded by :mod:`passhat.commands._output` only when
something is printed, so that ``--help`` and ``--json`` never import rich).

Examples
--------
>>> import io
>>> out = io.StringIO()
>>> c = LiteralConsole(file=out, width=40)
>>> c.print("[red]t2[/red]")
>>> out.getvalue()
'[red]t2[/red]\\n'
"""

from __future__ import annotations

from typing import Any

import rich.console
import rich.table
from rich.text import Text

from passhat._format import printable, short_names

__all__ = ["LiteralConsole", "Table"]


class LiteralConsole(rich.console.Console):
    """A console that shows every string literally (no markup, emoji or highlighting; control
    characters escaped, line feeds kept)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        kwargs.update(markup=False, emoji=False, highlight=False)
        return super().render_str(short_names(printable(text, keep_newlines=True)), **kwargs)

    def on_broken_pipe(self) -> None:
        """The reader went away (``| head``): rich's default exits with status 1, which is a
        failed gate's alone; the CLI's handler ends quietly with the I/O status instead."""
        self.quiet = True
        raise BrokenPipeError


def _text(value: Any) -> Any:
    """A cell as literal text (a name never spans lines); rich renderables stay as they are."""
    if isinstance(value, str):
        return Text(short_names(printable(value)))  # a name of 10^5 characters: its ends
    return value


class Table(rich.table.Table):
    """:class:`rich.table.Table` whose title, caption, headers and cells are shown literally."""

    def __init__(self, *headers: Any, **kwargs: Any) -> None:
        for key in ("title", "caption"):
            if key in kwargs:
                kwargs[key] = _text(kwargs[key])
        super().__init__(*(_text(h) for h in headers), **kwargs)

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(_text(header), *args, **kwargs)

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(_text(r) for r in renderables), **kwargs)
