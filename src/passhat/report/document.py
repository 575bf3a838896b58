"""The report's document model: Column, Table, Section and ReportData, and their JSON form.

Every section module fills :class:`Section` s with plain-language sentences and
:class:`Table` s whose rows are raw numbers (the renderer formats them); the
builder (:mod:`passhat.report.build`) collects them into a :class:`ReportData`,
which is all that the renderers (:mod:`passhat.report.render`) and
``results.json`` read. So a number shown in the report is the number in
``results.json``.

Examples
--------
>>> t = Table(id="t", caption="Runs", columns=[Column("n", "Runs", "int")], rows=[{"n": 3}])
>>> Section(id="data", title="1. Data", tables=[t]).to_json()["tables"][0]["rows"]
[{'n': 3}]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from passhat._format import jsonable
from passhat._result import header

__all__ = ["Column", "Fmt", "ReportData", "Section", "Table", "frame_rows", "frame_table"]

#: Number formats of a column (the renderer turns each into text).
Fmt = Literal[
    "str",
    "int",
    "pct",
    "pct_interval",
    "num",
    "p",
    "ratio",
    "pts",
    "dpts",
    "g",
    "bool",
    "interval",
    "interval_num",
    "interval_fixed",
    "amount",
    "amount_interval",
]


@dataclass(frozen=True)
class Column:
    """A table column: key in the rows, header label, number format."""

    key: str
    label: str
    fmt: Fmt = "str"


@dataclass
class Table:
    """A real table: rows of raw values (numbers stay numbers)."""

    id: str
    caption: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    note: str = ""
    #: rows left out of the rendered table (all rows are in results.json)
    hidden_rows: int = 0

    def to_json(self) -> dict[str, Any]:
        """The table in ``results.json``: columns with their formats, rows JSON-safe."""
        return {
            "id": self.id,
            "caption": self.caption,
            "columns": [{"key": c.key, "label": c.label, "format": c.fmt} for c in self.columns],
            "rows": [jsonable(r) for r in self.rows],
            "note": self.note,
        }


@dataclass
class Section:
    """One section of the report."""

    id: str
    title: str
    sentences: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    status: Literal["ok", "skipped", "failed"] = "ok"
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """The section in ``results.json``."""
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "note": self.note,
            "sentences": list(self.sentences),
            "tables": [t.to_json() for t in self.tables],
            "figures": list(self.figures),
        }


@dataclass
class ReportData:
    """Everything the report shows.

    Attributes
    ----------
    title : str
    sections : list of Section
        In order: summary, data, headline, spread, model, flaky, plan, divergence.
    figure_data : dict
        Tidy frames the figures are drawn from (``curve``, ``rates``,
        ``concentration``) and, when the model ran, the fit itself under
        ``fit`` (not serialised).
    figures : dict
        Figure id → (title, alt text), filled by the builder so that the
        alt text is written from the numbers too.
    stamp : dict
        Input hashes, package versions, seed, settings (no timestamps).
    divergence : object, optional
        The traces module's divergence result, when given or computed.
    tasks : pandas.DataFrame, optional
        One row per (system, task) with its counts, rate, interval, flags and gap
        contribution: written to ``tasks.parquet`` beside the report, not to
        ``results.json`` (whose size follows the distinct (n, c) pairs, not the tasks).
    """

    title: str
    sections: list[Section]
    figure_data: dict[str, Any]
    figures: dict[str, dict[str, str]]
    stamp: dict[str, Any]
    divergence: Any = None
    tasks: pd.DataFrame | None = None

    def section(self, section_id: str) -> Section:
        """The section with this id (KeyError when the report has none)."""
        for s in self.sections:
            if s.id == section_id:
                return s
        raise KeyError(section_id)

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` document (deterministic: no timestamps), after the header every
        JSON document of passhat has (schema ``passhat.results``, ``schema_version``,
        ``passhat_version``)."""
        curve = self.figure_data.get("curve")
        return {
            **header("results"),
            "title": self.title,
            "stamp": jsonable(self.stamp),
            "sections": [s.to_json() for s in self.sections],
            "figures": {
                fid: {"title": f["title"], "alt": f["alt"]} for fid, f in self.figures.items()
            },
            "figure_data": {
                name: [jsonable(r) for r in frame.to_dict(orient="records")]
                for name, frame in (
                    ("curve", curve),
                    ("rates", _by_pair(self.figure_data.get("rates"))),
                    ("concentration", self.figure_data.get("concentration")),
                )
                if isinstance(frame, pd.DataFrame)
            },
        }


def _by_pair(rates: Any) -> Any:
    """The rate frame by distinct (system, n, c): how many tasks share each pair.

    ``results.json`` holds this instead of one row per task, so its size follows the distinct
    pairs (the per-task rows are in the report's ``tasks.parquet``).

    Examples
    --------
    >>> rates = pd.DataFrame({"system": "s", "task": list("abc"), "n": 4, "c": [1, 4, 1],
    ...                       "rate": [0.25, 1.0, 0.25]})
    >>> _by_pair(rates).to_dict(orient="records")[0]
    {'system': 's', 'n': 4, 'c': 1, 'rate': 0.25, 'tasks': 2}
    """
    if not isinstance(rates, pd.DataFrame) or not {"n", "c"} <= set(rates.columns):
        return rates
    g = rates.groupby(["system", "n", "c"], sort=False)
    out = g["rate"].first().to_frame()
    out["tasks"] = g.size()
    return out.reset_index()


def frame_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    """A data frame's rows as dicts with string keys (values stay raw).

    Examples
    --------
    >>> import pandas as pd
    >>> frame_rows(pd.DataFrame({"task": ["a"], 1: [2]}))
    [{'task': 'a', '1': 2}]
    """
    return [{str(k): v for k, v in r.items()} for r in df.to_dict(orient="records")]


def frame_table(
    df: pd.DataFrame,
    *,
    id: str,
    caption: str,
    formats: dict[str, Fmt] | None = None,
    labels: dict[str, str] | None = None,
    note: str = "",
) -> Table:
    """A :class:`Table` from any data frame, each column's format from its dtype unless given.

    Examples
    --------
    >>> import pandas as pd
    >>> t = frame_table(pd.DataFrame({"task": ["a"], "runs": [4], "share": [0.5]}),
    ...                 id="x", caption="X", formats={"share": "pct"})
    >>> [c.fmt for c in t.columns]
    ['str', 'int', 'pct']
    """
    formats = formats or {}
    labels = labels or {}
    cols = []
    for c in df.columns:
        fmt = formats.get(str(c))
        if fmt is None:
            kind = df[c].dtype.kind
            fmt = (
                "int"
                if kind in "iu"
                else "num"
                if kind == "f"
                else "bool"
                if kind == "b"
                else "str"
            )
        cols.append(Column(str(c), labels.get(str(c), str(c)), fmt))
    return Table(id=id, caption=caption, columns=cols, rows=frame_rows(df), note=note)
