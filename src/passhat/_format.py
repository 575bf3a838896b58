r"""Formatting helpers shared by the report and the CLI: JSON-safe values, percentages, short text,
names made safe to print.

Examples
--------
>>> from passhat._format import jsonable, pct, printable, short
>>> jsonable({"a": 0.1 + 0.2, "b": float("nan")}), pct(0.4213), short("abcdefgh", 5)
({'a': 0.3, 'b': None}, '42.1%', 'abcd…')
>>> print(printable("t1\x1b[31m\u202e"))
t1\x1b[31m\u202e
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from passhat._lazy import is_numpy

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "fixed",
    "fmt_ratio",
    "jsonable",
    "num",
    "p_clause",
    "p_text",
    "pct",
    "plural",
    "printable",
    "row_names",
    "short",
    "short_names",
]

#: The types of pandas' missing values (``pd.NA``, ``pd.NaT``), JSON null.
_PANDAS_MISSING = frozenset({"NAType", "NaTType"})


def plural(n: int, noun: str) -> str:
    """A count with its noun: ``1 task``, ``2 tasks``.

    Examples
    --------
    >>> plural(1, "task"), plural(3, "clean run")
    ('1 task', '3 clean runs')
    """
    return f"{n} {noun}{'' if n == 1 else 's'}"


def row_names(rows: pd.DataFrame, *, by: str | None = None, of: int = 0) -> str:
    """The rows of a result table named for a reader: ``mean; pass@1–4; pass^4``.

    Per metric its k values: one (``pass^4``), a run of consecutive ones
    (``pass@1–4``) or a list (``pass^1, 2, 5``); the mean has no k. With
    ``by`` (a column such as the system) the names are given per value of
    that column (``a: mean | b: pass^4``), once when all ``of`` values of the
    whole table are present and have the same names.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"metric": ["mean"] + ["pass_at_k"] * 3 + ["pass_hat_k"] * 2,
    ...                   "k": [1, 1, 2, 3, 1, 5]})
    >>> row_names(t)
    'mean; pass@1–3; pass^1, 5'
    >>> row_names(t.iloc[:2].assign(system=["a", "b"]), by="system", of=2)
    'a: mean | b: pass@1'
    >>> row_names(pd.concat([t.assign(system="a"), t.assign(system="b")]), by="system", of=2)
    'mean; pass@1–3; pass^1, 5'
    """
    from passhat._labels import METRIC_LABELS  # "pass@k": its mark is "pass@"

    def names(part: pd.DataFrame) -> str:
        out = []
        for metric, sub in part.groupby("metric", sort=False):
            if metric in ("mean", "mean_score"):  # no k
                out.append(METRIC_LABELS[str(metric)])
                continue
            mark = METRIC_LABELS[str(metric)].removesuffix("k")
            ks = sorted({int(k) for k in sub["k"]})
            if len(ks) == 1:
                out.append(f"{mark}{ks[0]}")
            elif ks == list(range(ks[0], ks[-1] + 1)):
                out.append(f"{mark}{ks[0]}–{ks[-1]}")
            else:
                out.append(mark + ", ".join(map(str, ks)))
        return "; ".join(out)

    if by is None:
        return names(rows)
    per = {str(key): names(part) for key, part in rows.groupby(by, sort=False)}
    if len(set(per.values())) == 1 and len(per) == of:
        return next(iter(per.values()))
    return " | ".join(f"{printable(key)}: {text}" for key, text in per.items())


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python values, non-finite floats and NA as None, and floats
    rounded to 12 significant digits (stable across platforms' last-bit noise: 0.42, not
    0.42000000000000004); dict keys become strings."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if is_numpy(obj, "generic"):
        obj = obj.item()
    if isinstance(obj, float):
        if not math.isfinite(obj):
            return None
        return float(f"{obj:.12g}")
    if type(obj).__name__ in _PANDAS_MISSING and type(obj).__module__.startswith("pandas."):
        return None  # pd.NA, pd.NaT: known by their type, so formatting never imports pandas
    return obj


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage with ``digits`` decimals; "—" when missing or not finite.

    A share strictly between 0 and 1 never reads as exactly 0% or 100%: it
    gets the decimals it needs (up to 12).

    >>> pct(0.25), pct(0.9999), pct(1e-9), pct(1.0)
    ('25.0%', '99.99%', '0.0000001%', '100.0%')
    """
    if x is None or not math.isfinite(x):
        return "—"
    text = f"{x:z.{digits}%}"  # z: a tiny negative share reads 0.0%, not -0.0%
    while 0 < x < 1 and digits < 12 and float(text[:-1]) in (0.0, 100.0):
        digits += 1
        text = f"{x:.{digits}%}"
    return text


def fixed(x: float, digits: int = 3, *, sign: bool = False) -> str:
    """``x`` with ``digits`` decimals (``sign``: a + before positive values), never "-0.000".

    A value that rounds to zero prints as zero without a sign, whichever side of 0 it lies on
    (``-0.0`` or ``-0.00001`` printed "-0.000" before).

    Examples
    --------
    >>> fixed(-0.00001), fixed(-0.0), fixed(0.1234), fixed(-0.1, sign=True), fixed(0.1, sign=True)
    ('0.000', '0.000', '0.123', '-0.100', '+0.100')
    >>> fixed(-0.00001, 4, sign=True), fixed(float("nan"))
    ('0.0000', 'nan')
    """
    text = f"{x:z.{digits}f}"
    return "+" + text if sign and x > 0 and float(text) != 0.0 else text


#: p-values below this print as "<0.0001": the floor of a test with 10,000 random draws is
#: 1/10,001, which four decimals would round up to a p-value it never reached.
P_FLOOR = 1e-4


def p_text(p: float | None) -> str:
    """A p-value, one format everywhere (tables, sentences, the CLI and the report): four
    decimals, "<0.0001" below, "—" when missing.

    Examples
    --------
    >>> p_text(0.00732), p_text(1 / 10_001), p_text(None), p_text(float("nan"))
    ('0.0073', '<0.0001', '—', '—')
    """
    if p is None or not math.isfinite(float(p)):
        return "—"
    return "<0.0001" if float(p) < P_FLOOR else f"{float(p):.4f}"


def p_clause(p: float) -> str:
    """A p-value in a sentence: "p = 0.0073", or "p < 0.0001" (:func:`p_text`).

    Examples
    --------
    >>> p_clause(0.00332), p_clause(9.999e-05)
    ('p = 0.0033', 'p < 0.0001')
    """
    text = p_text(p)
    return f"p < {text[1:]}" if text.startswith("<") else f"p = {text}"


def num(x: float | None, digits: int = 3) -> str:
    """A number for a table cell: ``digits`` decimals (never "-0.000"), "—" when missing.

    Examples
    --------
    >>> num(0.42), num(None), num(float("nan")), num(-0.0001)
    ('0.420', '—', '—', '0.000')
    """
    if x is None or ((isinstance(x, float) or is_numpy(x, "floating")) and math.isnan(x)):
        return "—"
    return fixed(float(x), digits)


def short(value: Any, limit: int = 90) -> Any:
    """Text cut to ``limit`` characters with an ellipsis; a list is joined with "; " first; any
    other value (a number, None) is returned as it is, so a table's cells can be mapped."""
    if isinstance(value, list | tuple):
        value = "; ".join(map(str, value))
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def fmt_ratio(x: float) -> str:
    """A ratio for sentences: 1.9, 23, ∞, and — when undefined (0/0)."""
    if math.isnan(x):
        return "—"
    if not math.isfinite(x):
        return "∞"
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


#: Characters that change what a terminal, a page or a figure shows instead of being shown: the
#: Unicode categories Cc (C0/C1 controls: ESC, NUL, BEL, ...), Cf (format: bidirectional
#: overrides such as U+202E, zero-width spaces and joiners, BOM), Zl, Zp (line/paragraph
#: separators) and Cs (lone surrogates), as of Unicode 14 (tests/test_format.py checks the list
#: against :mod:`unicodedata`). ``{c0}`` is the C0 range, narrowed to keep line feeds and tabs.
_INVISIBLE_CLASS = (
    r"[{c0}\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
    r"\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_INVISIBLE = re.compile(_INVISIBLE_CLASS.replace("{c0}", r"\x00-\x1f"))
_INVISIBLE_KEEP_LINES = re.compile(_INVISIBLE_CLASS.replace("{c0}", r"\x00-\x08\x0b-\x1f"))


def _escape(match: re.Match[str]) -> str:
    cp = ord(match.group())
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def printable(value: Any, *, keep_newlines: bool = False) -> str:
    r"""``value`` as text that shows itself: control and invisible format characters escaped.

    Names from data (systems, tasks, tools) pass through this before a terminal, a page or a
    figure sees them: ESC is shown as ``\x1b`` rather than recolouring the terminal, a
    right-to-left override as ``\u202e`` rather than reversing what follows, NUL as ``\x00``.
    Printable text (any script, emoji, markup-like brackets) is kept as it is.

    Parameters
    ----------
    value : object
        Converted with :func:`str` first.
    keep_newlines : bool
        Keep line feeds and tabs (for whole messages; a name never keeps them).

    Examples
    --------
    >>> print(printable("café\x00 \u200b [red]x[/red]"))
    café\x00 \u200b [red]x[/red]
    >>> print(printable("a\nb"), printable("a\nb", keep_newlines=True).split())
    a\x0ab ['a', 'b']
    """
    text = value if isinstance(value, str) else str(value)
    return (_INVISIBLE_KEEP_LINES if keep_newlines else _INVISIBLE).sub(_escape, text)


#: A run of characters without a space longer than this (a name of 10^5 characters) is shortened
#: for display: tables, the report's pages. CSV and JSON keep every name whole.
LONG_TOKEN = 160
_LONG_TOKEN = re.compile(rf"\S{{{LONG_TOKEN + 1},}}")
#: The longest full name a page carries in a ``title`` attribute (beyond: results.json has it).
TITLE_LIMIT = 4000


def _cut(token: str, limit: int) -> str:
    keep_end = limit // 4
    return f"{token[: limit - keep_end - 1]}…{token[-keep_end:]}"


def short_names(text: str, *, limit: int = LONG_TOKEN, html: bool = False) -> Any:
    """``text`` with every run of more than ``limit`` non-space characters (a long name) cut in
    the middle with "…", its start and end kept; other text as it is. With ``html`` the result is
    escaped HTML markup in which each cut name carries the full name (up to
    :data:`TITLE_LIMIT` characters) in a ``title`` attribute.

    Examples
    --------
    >>> short_names("task " + "x" * 300 + " failed", limit=20)
    'task xxxxxxxxxxxxxx…xxxxx failed'
    >>> str(short_names("<" + "y" * 30 + ">", limit=10, html=True))
    '<span title="&lt;yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy&gt;">&lt;yyyyyy…y&gt;</span>'
    """
    pattern = _LONG_TOKEN if limit == LONG_TOKEN else re.compile(rf"\S{{{limit + 1},}}")
    if not html:
        return pattern.sub(lambda m: _cut(m.group(), limit), text)
    from markupsafe import Markup, escape

    out, at = [], 0
    for m in pattern.finditer(text):
        out.append(str(escape(text[at : m.start()])))
        full = m.group()
        title = full if len(full) <= TITLE_LIMIT else _cut(full, TITLE_LIMIT)
        out.append(f'<span title="{escape(title)}">{escape(_cut(full, limit))}</span>')
        at = m.end()
    out.append(str(escape(text[at:])))
    return Markup("".join(out))
