"""One shape for every result: a frozen dataclass that computes nothing and shows itself.

Every public result (:class:`~passhat.Estimate`, :class:`~passhat.Comparison`,
:class:`~passhat.Ranking`, :class:`~passhat.plan.PlanResult`, …) is a frozen dataclass deriving
from :class:`Result`, which defines three things and gets the rest:

* ``to_frame()``: its main table, tidy (one row per system, k, metric, … as it fits);
* ``_document()``: the body of its JSON document (the CLI's ``--json``), plain values;
* ``view()``: its :class:`~passhat._repr.Display`, the one rendering that the terminal
  (``__rich__``, what the CLI prints), a notebook (``_repr_html_``) and ``repr`` show.

:meth:`Result.to_dict` adds the document's header (``schema``, ``schema_version``,
``passhat_version``) and makes every value JSON-safe; ``repr`` is at most
:data:`MAX_REPR` characters. A result never recomputes when shown: the CLI and the report
render it as it is.

Examples
--------
>>> from dataclasses import dataclass
>>> import pandas as pd
>>> from passhat._repr import View
>>> @dataclass(frozen=True, repr=False, eq=False)
... class Runs(Result):
...     schema = "runs"
...     table: pd.DataFrame
...     def to_frame(self) -> pd.DataFrame:
...         return self.table.copy()
...     def _document(self) -> dict:
...         return {"runs": records(self.table)}
...     def view(self) -> View:
...         return View("Runs", self.table.astype(str))
>>> r = Runs(pd.DataFrame({"system": ["a"], "runs": [3]}))
>>> r.to_dict()["schema"], r.to_dict()["schema_version"], r.to_dict()["runs"]
('passhat.runs', 1, [{'system': 'a', 'runs': 3}])
>>> print(r)
Runs
system runs
     a    3
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from passhat._format import jsonable
from passhat._repr import Display, View, as_html, as_rich, as_text, display

if TYPE_CHECKING:  # a result imports pandas where it builds a table, not here
    import pandas as pd

    from passhat._paper import PaperTable

__all__ = ["MAX_REPR", "SCHEMA_VERSION", "Records", "Result", "header", "records"]

#: Version of the JSON documents' layout (``schema_version`` in every ``--json`` output and
#: ``results.json``): raised when a key is renamed or removed, not when one is added.
SCHEMA_VERSION = 1

#: Longest ``repr`` of a result, in characters (the rest is in ``to_frame()`` / ``to_dict()``).
MAX_REPR = 2000


class Records(list[dict[str, Any]]):
    """Rows of a table (a list of dicts, as JSON writes them) that remember the table's columns,
    so that ``--csv`` of an empty table still writes its header line.

    Examples
    --------
    >>> Records([], columns=["task", "extra_runs"]).columns
    ['task', 'extra_runs']
    """

    def __init__(self, rows: Iterable[dict[str, Any]] = (), *, columns: Sequence[Any] = ()) -> None:
        super().__init__(rows)
        self.columns = [str(c) for c in columns]


def records(df: pd.DataFrame) -> Records:
    """DataFrame rows as JSON-safe dicts (NaN → null), remembering the columns.

    Examples
    --------
    >>> import pandas as pd
    >>> records(pd.DataFrame({"task": ["t1"], "rate": [float("nan")]}))
    [{'task': 't1', 'rate': None}]
    """
    return Records((jsonable(r) for r in df.to_dict(orient="records")), columns=df.columns)


def _short(text: str, limit: int = MAX_REPR) -> str:
    """``text`` cut to ``limit`` characters at a line end, saying how much was left out."""
    if len(text) <= limit:
        return text
    tail = "\n… ({} more characters: to_frame() and to_dict() hold everything)"
    head = text[: limit - len(tail) - 12]
    head = head[: head.rfind("\n")] if "\n" in head else head
    return head + tail.format(len(text) - len(head))


def header(schema: str) -> dict[str, Any]:
    """The header every JSON document of passhat opens with: its name (``passhat.<schema>``),
    the layout's version (:data:`SCHEMA_VERSION`) and passhat's version; the document
    validates against ``passhat/schemas/<schema>.json`` (:mod:`passhat.schemas`).

    Examples
    --------
    >>> list(header("estimate").items())[:2]
    [('schema', 'passhat.estimate'), ('schema_version', 1)]
    """
    from passhat._version import __version__  # importlib.metadata: looked up when asked

    return {
        "schema": f"passhat.{schema}",
        "schema_version": SCHEMA_VERSION,
        "passhat_version": __version__,
    }


class Result:
    """Base of every result: JSON document, terminal, notebook and ``repr`` from one display.

    A subclass is a ``@dataclass(frozen=True, repr=False, eq=False)`` that sets ``schema`` and
    defines :meth:`to_frame`, :meth:`_document` and :meth:`view`.
    """

    #: Name of the JSON document (``passhat.<schema>``).
    schema: ClassVar[str] = "result"

    def to_frame(self) -> pd.DataFrame:
        """The result's main table, tidy."""
        raise NotImplementedError

    def _document(self) -> dict[str, Any]:
        """The JSON document's body (the keys after the header)."""
        raise NotImplementedError

    def view(self) -> View | Display:
        """What the result shows (terminal, notebook, ``repr``)."""
        raise NotImplementedError

    def _paper(self) -> PaperTable:
        """The table for papers (:meth:`to_latex`, :meth:`to_markdown`) and its caption; a
        result that has one defines it (its keyword options are those of ``to_latex``)."""
        raise NotImplementedError(
            f"{type(self).__name__} has no table for papers: to_latex() and to_markdown() "
            "are defined for estimate, compare, rank, fit and spread results"
        )

    def to_latex(self, *, label: str | None = None, **options: Any) -> str:
        r"""The result's table for a paper, as a LaTeX ``table`` (booktabs rules; needs
        ``\usepackage{booktabs}``): intervals as ``0.420 [0.367, 0.473]``, the scope and the
        method in the caption, names from the data escaped (:mod:`passhat._paper`).

        Parameters
        ----------
        label : str, optional
            A ``\label`` for the table (``tab:reliability``).
        **options
            The result's own (e.g. ``scope="benchmark"`` for an estimate or a comparison).
        """
        from passhat._paper import latex_table

        return latex_table(self._paper(**options), label=label)

    def to_markdown(self, **options: Any) -> str:
        """The result's table for a paper or a pull request, as a Markdown pipe table with
        its caption (pandoc's ``Table:`` line); options as for :meth:`to_latex`."""
        from passhat._paper import markdown_table

        return markdown_table(self._paper(**options))

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (the CLI's ``--json``): a header (``schema``, ``schema_version``,
        ``passhat_version``), then the result's own keys; every value JSON-safe (NaN → null)."""
        return self._with_header(self._document())

    def _with_header(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` after the document's header, every value JSON-safe."""
        out: dict[str, Any] = jsonable({**header(self.schema), **body})
        for key, value in body.items():  # keep the columns of empty tables (for --csv)
            if isinstance(value, Records):
                out[key] = Records(out[key], columns=value.columns)
        return out

    def __rich__(self) -> Any:
        return as_rich(display(self.view()))

    def _repr_html_(self) -> str:
        return as_html(display(self.view()))

    def __repr__(self) -> str:
        return _short(as_text(display(self.view())))
