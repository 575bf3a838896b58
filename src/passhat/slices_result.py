"""The result of :func:`passhat.slices`: runs by status and category, and what it shows.

:class:`Slices` is frozen and shows itself one way (``passhat slices``, a notebook and
``repr``): one table per slice key, the severe statuses' rates with their intervals, and the
lines that say what the tables leave out. Nothing here counts a run.

Examples
--------
>>> import passhat as ph
>>> sl = ph.slices(ph.load_example("agents"), by=["status"])
>>> [p.title for p in sl.view().parts][:1]
['runs by status']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._repr import Display, View
from passhat._result import Result, records

__all__ = ["SLICE_KEYS", "Slices"]

#: What runs can be sliced by.
SLICE_KEYS = ("status", "category")


@dataclass(frozen=True, repr=False, eq=False)
class Slices(Result):
    """Result of :func:`passhat.slices`.

    Attributes
    ----------
    tables : dict of str → pandas.DataFrame
        One tidy table per slice key ("status", "category"), one row per
        (system, value): runs (all), decided (n), successes, failures,
        unscored, share_of_runs, share_of_failures, success_rate (successes
        / decided; NaN when nothing was decided).
    severe : pandas.DataFrame
        Per (system, severe status): runs, count, rate (count / runs) with a
        Wilson interval (lower, upper) and method.
    by : tuple of str
        The slice keys.
    severe_statuses : tuple of str
        The statuses asked for as severe.
    ci : float
        Level of the severe statuses' intervals.
    statuses : tuple of str
        Every status the runs have (sorted), to point out a severe status no run has.
    category_skipped : bool
        Whether the default slices left out category because the runs have none.
    source : dict
        Where the runs came from, as the reader recorded it.
    """

    schema: ClassVar[str] = "slices"

    tables: dict[str, pd.DataFrame]
    severe: pd.DataFrame
    by: tuple[str, ...] = ()
    severe_statuses: tuple[str, ...] = ()
    ci: float = 0.95
    statuses: tuple[str, ...] = ()
    category_skipped: bool = False
    source: dict[str, str] = field(default_factory=dict)

    @property
    def settings(self) -> dict[str, Any]:
        """The options used: by, severe, ci."""
        return {"by": list(self.by), "severe": list(self.severe_statuses), "ci": self.ci}

    def to_frame(self) -> pd.DataFrame:
        """Every slice table stacked, with the key (``slice``) and its value (``value``)."""
        frames = [
            df.rename(columns={key: "value"}).assign(slice=key) for key, df in self.tables.items()
        ]
        if not frames:
            return pd.DataFrame(columns=["slice", "system", "value"])
        out = pd.concat(frames, ignore_index=True)
        return out[["slice", *(c for c in out.columns if c != "slice")]]

    def _document(self) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "settings": self.settings,
            "slices": {key: records(df) for key, df in self.tables.items()},
            "severe": records(self.severe),
        }

    def view(self) -> Display:
        """One table per slice key, the severe statuses' rates, and what is left out."""
        parts = [_slice_view(key, self.tables[key]) for key in SLICE_KEYS if key in self.tables]
        if len(self.severe):
            parts.append(_severe_view(self))
        lines = ["unscored runs are not decided: they are never counted in n."]
        if self.category_skipped:
            lines.append("no category column: runs sliced by status only (map one with --map).")
        parts.append(View("", None, lines=tuple(lines)))
        return Display(tuple(parts), min_width=140)


def _share(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.1%}"


def _slice_view(key: str, df: pd.DataFrame) -> View:
    """Runs, decided, passed, failed and unscored per (system, value), with the shares."""
    cells = [
        [
            str(r["system"]),
            str(r[key]),
            str(r["runs"]),
            str(r["decided"]),
            str(r["successes"]),
            str(r["failures"]),
            str(r["unscored"]),
            f"{r['share_of_runs']:.1%}",
            _share(float(r["share_of_failures"])),
            num(r["success_rate"]),
        ]
        for r in df.to_dict(orient="records")
    ]
    cols = ["system", key, "runs", "decided", "passed", "failed", "unscored"]
    cols += ["% of runs", "% of failures", "pass rate"]
    return View(
        f"runs by {key}",
        pd.DataFrame(cells, columns=cols),
        left=frozenset({"system", key}),
        no_wrap=True,
    )


def _severe_view(sl: Slices) -> View:
    """Each severe status's rate over all runs, its interval and method, and the statuses no
    run has (a misspelling, most likely)."""
    cells = [
        [
            str(r["system"]),
            str(r["status"]),
            str(r["runs"]),
            str(r["count"]),
            f"{r['rate']:.2%}",
            f"[{r['lower']:.2%}, {r['upper']:.2%}]",
        ]
        for r in sl.severe.to_dict(orient="records")
    ]
    lines = [f"method: {sl.severe['method'].iloc[0]}"]
    for status, count in sl.severe.groupby("status", sort=False)["count"].sum().items():
        if count == 0:
            lines.append(
                f"note: status {status!r} occurs in no run (statuses seen: "
                f"{', '.join(sl.statuses)}); check the spelling."
            )
    cols = ["system", "status", "runs", "count", "rate", "interval"]
    return View(
        f"severe statuses: rate over all runs ({sl.ci:g} interval)",
        pd.DataFrame(cells, columns=cols),
        lines=tuple(lines),
        left=frozenset({"system", "status"}),
    )
