r"""Tables for papers: a result's table as LaTeX (booktabs, through pandas' Styler) or Markdown.

A result that has a table for papers builds one :class:`PaperTable` (its cells as display
text, a caption naming the scope and the method of its intervals);
:meth:`passhat._result.Result.to_latex` and :meth:`~passhat._result.Result.to_markdown`
render it here. Every string is escaped for its target, so a name from the data prints as
itself and cannot break the table:

* LaTeX: ``& % $ # _ { } ~ ^ \`` and ``< > |`` are written as the characters they are, ``--``
  stays two hyphens, a cell opening with ``[`` is not read as the optional argument of
  ``\\``; the symbols passhat's words use (``−``, ``≥``, ``κ``, ``×``, …) become math
  (``\ensuremath``), so the table compiles with pdflatex (other non-ASCII text is left as
  UTF-8). The table needs ``\usepackage{booktabs}``.
* Markdown (GitHub's and pandoc's pipe tables): ``|`` in any cell; in names (columns marked
  ``names``), headers and the caption also `````, ``*``, ``_``, ``[``, ``]``, ``~``, ``\`` and
  HTML (``<``, ``>``, ``&``). The caption follows the table as pandoc's ``Table:`` line.

Control characters in names are shown escaped first (:func:`passhat._format.printable`), and a
name longer than 160 characters by its start and end, as in every table passhat shows.

Examples
--------
>>> import pandas as pd
>>> t = PaperTable(pd.DataFrame({"system": ["a_1 & co"], "mean": ["0.420 [0.367, 0.473]"]}),
...                "Mean success (population scope: tasks like these; 95% intervals).")
>>> print(latex_table(t))
\begin{table}
\centering
\caption{Mean success (population scope: tasks like these; 95\% intervals).}
\begin{tabular}{lr}
\toprule
system & mean \\
\midrule
a\_1 \& co & 0.420 [0.367, 0.473] \\
\bottomrule
\end{tabular}
\end{table}
<BLANKLINE>
>>> print(markdown_table(t))
| system | mean |
|:---|---:|
| a\_1 &amp; co | 0.420 [0.367, 0.473] |
<BLANKLINE>
Table: Mean success (population scope: tasks like these; 95% intervals).
<BLANKLINE>
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from passhat._format import printable, row_names, short_names

__all__ = [
    "NAME_COLUMNS",
    "PaperTable",
    "interval_cell",
    "latex_escape",
    "latex_table",
    "level_words",
    "markdown_table",
    "md_escape",
    "method_words",
    "metric_label",
    "scope_words",
]

#: Columns whose cells are names from the data (escaped as names in Markdown).
NAME_COLUMNS = frozenset({"system", "task", "baseline", "candidate", "category", "tool"})


@dataclass(frozen=True)
class PaperTable:
    """A result's table for papers: display text, caption, and which columns hold what.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table: one column per header, every cell display text (numbers formatted).
    caption : str
        Plain text (escaped when rendered): what the numbers are, the scope and level of
        their intervals and how they were computed.
    names : frozenset of str
        Columns whose cells are names from the data (Markdown escapes them fully).
    left : frozenset of str
        Columns aligned left (names, words); the others are numbers, aligned right.
    group : str, optional
        A column whose value, where it changes, starts a new block (a rule in LaTeX).
    """

    frame: pd.DataFrame
    caption: str
    names: frozenset[str] = NAME_COLUMNS
    left: frozenset[str] = NAME_COLUMNS | {"metric"}
    group: str | None = None


def interval_cell(value: str, lower: str, upper: str) -> str:
    """A value with its interval, as papers write it: ``0.420 [0.367, 0.473]``.

    Examples
    --------
    >>> interval_cell("0.420", "0.367", "0.473")
    '0.420 [0.367, 0.473]'
    """
    return f"{value} [{lower}, {upper}]"


def metric_label(metric: str, k: int) -> str:
    """``pass^4``, ``pass@1`` or ``mean`` (the mean has no k).

    Examples
    --------
    >>> metric_label("pass_hat_k", 4), metric_label("mean", 4)
    ('pass^4', 'mean')
    """
    from passhat.estimators import METRIC_LABELS

    return "mean" if metric == "mean" else METRIC_LABELS[metric].replace("k", str(k))


def level_words(ci: float) -> str:
    """An interval level as papers write it: ``95%``, ``97.5%``.

    Examples
    --------
    >>> level_words(0.95), level_words(0.975)
    ('95%', '97.5%')
    """
    return f"{ci * 100:.10g}%"


def method_words(
    rows: pd.DataFrame, *, by: str | None = "system", column: str = "method", what: str = "Method"
) -> str:
    """How the intervals of a table's rows were computed, as sentences: one method alone,
    several each with the rows it made (named by :func:`passhat._format.row_names`).

    Parameters
    ----------
    rows : pandas.DataFrame
        Tidy rows with metric, k and ``column`` (and ``by``).
    by : str, optional
        A column naming each row's system (or candidate), when the rows hold several.
    column, what : str
        The column of the method, and what the sentence calls it.

    Examples
    --------
    >>> t = pd.DataFrame({"metric": ["mean", "pass_hat_k"], "k": [1, 5], "method": ["a", "b"]})
    >>> method_words(t, by=None)
    'Method (mean): a. Method (pass^5): b.'
    >>> method_words(t.assign(method="a"), by=None)
    'Method: a.'
    """
    groups = list(rows.groupby(column, sort=False))
    if len(groups) == 1:
        return f"{what}: {groups[0][0]}."
    of = rows[by].nunique() if by is not None else 0
    named = by if of > 1 else None
    return " ".join(f"{what} ({row_names(part, by=named, of=of)}): {m}." for m, part in groups)


def scope_words(scope: str, *, new_tasks: int | None = None) -> str:
    """A scope in words, for a caption.

    Examples
    --------
    >>> scope_words("population")
    'population scope (the expected value over tasks like these)'
    >>> scope_words("predictive", new_tasks=50)
    'predictive scope (the value a new benchmark of 50 tasks like these would show)'
    """
    words = {
        "benchmark": "these tasks, uncertainty from their finite runs only",
        "population": "the expected value over tasks like these",
        "predictive": f"the value a new benchmark of {new_tasks} tasks like these would show",
    }
    return f"{scope} scope ({words[scope]})"


# ------------------------------------------------------------------------------- LaTeX
#: LaTeX for each character that is not itself in LaTeX text: the ten specials, the three that
#: OT1 fonts print as other glyphs, and the symbols passhat's own words use.
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "−": r"\ensuremath{-}",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "≥": r"\ensuremath{\geq}",
    "≤": r"\ensuremath{\leq}",
    "≠": r"\ensuremath{\neq}",
    "≈": r"\ensuremath{\approx}",
    "±": r"\ensuremath{\pm}",
    "·": r"\ensuremath{\cdot}",
    "×": r"\ensuremath{\times}",
    "→": r"\ensuremath{\rightarrow}",
    "←": r"\ensuremath{\leftarrow}",
    "∞": r"\ensuremath{\infty}",
    "∈": r"\ensuremath{\in}",
    "√": r"\ensuremath{\surd}",
    "′": r"\ensuremath{'}",
    "½": r"\ensuremath{\frac{1}{2}}",
    "²": r"\ensuremath{^2}",
    "³": r"\ensuremath{^3}",
    "⁴": r"\ensuremath{^4}",
    "⁺": r"\ensuremath{^+}",
    "⁻": r"\ensuremath{^-}",
    "₀": r"\ensuremath{_0}",
    "₁": r"\ensuremath{_1}",
    "ℓ": r"\ensuremath{\ell}",
    "α": r"\ensuremath{\alpha}",
    "β": r"\ensuremath{\beta}",
    "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}",
    "θ": r"\ensuremath{\theta}",
    "κ": r"\ensuremath{\kappa}",
    "λ": r"\ensuremath{\lambda}",
    "μ": r"\ensuremath{\mu}",
    "π": r"\ensuremath{\pi}",
    "ρ": r"\ensuremath{\rho}",
    "σ": r"\ensuremath{\sigma}",
    "τ": r"\ensuremath{\tau}",
    "ψ": r"\ensuremath{\psi}",
    "ω": r"\ensuremath{\omega}",
    "Γ": r"\ensuremath{\Gamma}",
    "Δ": r"\ensuremath{\Delta}",
    "Π": r"\ensuremath{\Pi}",
    "Σ": r"\ensuremath{\Sigma}",
}

#: Pairs of characters that TeX's fonts join into one glyph (``--`` an en dash, ``''`` a closing
#: quote, ``!``` ¡, ``,,`` a low quote): a ``{}`` between them keeps both.
_LIGATURES = frozenset({"--", "``", "''", "`'", "'`", "!`", "?`", ",,"})


def _shown(value: object) -> str:
    """A cell, header or caption as passhat shows text: control characters escaped, a very
    long name cut to its start and end."""
    return str(short_names(printable(value)))


def latex_escape(text: str) -> str:
    r"""``text`` as LaTeX that prints it: specials escaped, ligatures broken, passhat's symbols
    as math (other characters, accented letters included, as they are).

    Examples
    --------
    >>> print(latex_escape(r"50% of a_b & {c} ~ ^ \ #"))
    50\% of a\_b \& \{c\} \textasciitilde{} \textasciicircum{} \textbackslash{} \#
    >>> print(latex_escape("$1 -- ≥ 3 κ"))
    \$1 -{}- \ensuremath{\geq} 3 \ensuremath{\kappa}
    """
    out: list[str] = []
    for ch in text:
        piece = _LATEX.get(ch, ch)
        if out and out[-1][-1] + piece[0] in _LIGATURES:  # "-" then "–" (written "--") too
            out.append("{}")
        out.append(piece)
    return "".join(out)


def _latex_cell(value: object) -> str:
    """A cell as LaTeX; one that opens with ``[`` gets a leading ``{}`` (else, at the start of a
    row, ``\\`` would read it as its optional argument)."""
    text = latex_escape(_shown(value))
    return "{}" + text if text.startswith("[") else text


def _column_format(table: PaperTable) -> str:
    return "".join("l" if str(c) in table.left else "r" for c in table.frame.columns)


def _group_starts(table: PaperTable) -> list[int]:
    """Rows (from 1) that open a new block of ``table.group``: a rule goes above each."""
    if table.group is None or table.group not in table.frame.columns:
        return []
    values = table.frame[table.group].astype(str).tolist()
    return [i for i in range(1, len(values)) if values[i] and values[i] != values[i - 1]]


def latex_table(table: PaperTable, *, label: str | None = None) -> str:
    r"""The table as a LaTeX ``table`` float: caption, optional ``\label``, booktabs rules
    (a ``\midrule`` between blocks of ``table.group``); rendered by pandas' Styler.

    Parameters
    ----------
    table : PaperTable
    label : str, optional
        The ``\label`` to refer to the table by (``tab:reliability``); written as given
        (a label is a key, not text).
    """
    frame = table.frame.map(_latex_cell)
    frame.columns = [latex_escape(_shown(c)) for c in table.frame.columns]
    styler = frame.style.hide(axis="index")
    text = styler.to_latex(
        column_format=_column_format(table),
        hrules=True,
        label=label,
        caption=latex_escape(_shown(table.caption)),
        position_float="centering",
        environment="table",
    )
    return _rules_between_groups(text, _group_starts(table))


def _rules_between_groups(text: str, starts: list[int]) -> str:
    r"""``\midrule`` above each body row in ``starts`` (rows counted from 1 after the header)."""
    if not starts:
        return text
    lines = text.splitlines(keepends=True)
    body = next(i for i, line in enumerate(lines) if line.startswith(r"\midrule")) + 1
    for row in sorted(starts, reverse=True):
        lines.insert(body + row, "\\midrule\n")
    return "".join(lines)


# ---------------------------------------------------------------------------- Markdown
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# A block marker at the start (a heading's #, a list item's - or +): a name that opens a line,
# as a report's sentences do ("- NAME: ..."), would become a heading or a nested list.
_MD_BLOCK_START = re.compile(r"^(#{1,6}|[-+])(\s|$)")


def md_escape(value: object) -> str:
    """Escape a string for Markdown text and table cells (HTML characters too).

    Examples
    --------
    >>> print(md_escape("a|b <i>"))
    a\\|b &lt;i&gt;
    """
    text = str(value).replace("\r", " ").replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return "\\" + text if _MD_BLOCK_START.match(text) else text  # "# x" -> "\# x"


def _md_cell(value: object, *, name: bool) -> str:
    """A cell in a pipe table: a name fully escaped; passhat's own text (numbers, intervals)
    with only ``|`` escaped, so ``0.420 [0.367, 0.473]`` reads as it is in the source too."""
    text = _shown(value)
    return md_escape(text) if name else text.replace("|", "\\|")


def markdown_table(table: PaperTable) -> str:
    """The table as a Markdown pipe table (GitHub, pandoc), then its caption as pandoc's
    ``Table:`` line.

    Examples
    --------
    >>> import pandas as pd
    >>> t = PaperTable(pd.DataFrame({"system": ["`x` | <b>"]}), "Systems.")
    >>> print(markdown_table(t).splitlines()[2])
    | \\`x\\` \\| &lt;b&gt; |
    """
    cols = [str(c) for c in table.frame.columns]
    head = "| " + " | ".join(md_escape(_shown(c)) for c in cols) + " |"
    rule = "|" + "|".join(":---" if c in table.left else "---:" for c in cols) + "|"
    rows = [
        "| "
        + " | ".join(_md_cell(v, name=c in table.names) for c, v in zip(cols, row, strict=True))
        + " |"
        for row in table.frame.itertuples(index=False)
    ]
    caption = f"Table: {md_escape(_shown(table.caption))}"
    return "\n".join([head, rule, *rows, "", caption]) + "\n"
