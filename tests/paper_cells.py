"""Reading a table for papers back (not a test module): its Markdown parsed by markdown-it into
rows of cell texts, and a cell ``0.420 [0.367, 0.473]`` into numbers."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

_CELL = re.compile(r"^([+-]?\d+\.\d+)(?: \[([+-]?\d+\.\d+), ([+-]?\d+\.\d+)\])?$")


def markdown_rows(text: str) -> list[dict[str, str]]:
    """The body rows of a Markdown pipe table, each a dict header → cell text."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    rows: list[list[str]] = []
    cell = False
    for tok in tokens:
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type in ("th_open", "td_open"):
            cell = True
        elif tok.type in ("th_close", "td_close"):
            cell = False
        elif tok.type == "inline" and cell:
            rows[-1].append("".join(c.content for c in tok.children or []))
    head, *body = rows
    return [dict(zip(head, r, strict=True)) for r in body]


def numbers(cell: str) -> tuple[float, float | None, float | None]:
    """``0.420 [0.367, 0.473]`` → (0.42, 0.367, 0.473); ``0.420`` → (0.42, None, None)."""
    m = _CELL.match(cell)
    assert m is not None, cell
    lo, hi = m.group(2), m.group(3)
    return float(m.group(1)), None if lo is None else float(lo), None if hi is None else float(hi)


def close(shown: float | None, value: float, digits: int = 3) -> bool:
    """A number shown with ``digits`` decimals is ``value`` rounded (half a unit of the last)."""
    return shown is not None and abs(shown - value) <= 0.5 * 10**-digits + 1e-12
