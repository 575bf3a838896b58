"""The result of :func:`passhat.estimate`: what it holds, and what it shows.

:class:`Estimate` holds the tidy table, the per-task values, the excluded tasks, a per-system
summary and plain-language notes. One display (:func:`est_display`) serves the terminal
(``passhat estimate``), a notebook and ``repr``: the benchmark table per system and k, or with
intervals one row per (system, k, metric) with each scope's interval, and, when asked, the
per-task table. Nothing here computes an estimate: every number is read from the result.

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("abcd"), k=2)
>>> print(est_display(est).parts[0].frame.to_string(index=False))
      system tasks runs unscored k  mean pass@k pass^k
seed-example     4   20        0 2 0.550  0.675  0.425
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._format import num, row_names
from passhat._paper import (
    PaperTable,
    interval_cell,
    level_words,
    method_words,
    metric_label,
    scope_words,
)
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat._validate import check_k, check_method
from passhat.cost import CostCells, cost_estimate
from passhat.cost_of import check_cost_of, missing_column
from passhat.cost_result import CostEstimate
from passhat.errors import OptionError
from passhat.estimate_view import VALUES_TITLE, values_notes, values_table
from passhat.estimators import METRIC_LABELS, METRICS, per_task_metrics
from passhat.groups.result import CategoryEstimate
from passhat.intervals import task_intervals
from passhat.scores.result import ThresholdCurve

__all__ = ["ALL_METRICS", "SCOPES", "Estimate", "est_display"]

#: Every metric an estimate's table may hold: the 0/1 ones, then (``scores=True``) the mean
#: score and the expected best / worst of k (:mod:`passhat.scores`).
ALL_METRICS = (*METRICS, "mean_score", "best_of_k", "worst_of_k")

#: The scopes of an interval (see :mod:`passhat.intervals`); "predictive" (a new
#: benchmark of T′ tasks) only when asked for with ``predictive=``.
SCOPES = ("benchmark", "population", "predictive")


@dataclass(frozen=True, repr=False, eq=False)
class Estimate(Result):
    """Result of :func:`estimate`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: system, k, metric, value, tasks (and, when intervals were asked
        for, lower, upper, scope, method).
    excluded : pandas.DataFrame
        Tasks left out of the averages (system, task, n, reason).
    summary : pandas.DataFrame
        Per system: tasks, runs, unscored, excluded tasks, and the shares of
        included tasks that are flaky (both outcomes among decided runs),
        all-pass and all-fail.
    settings : dict
        The options used (k, weights, on_short, unscored_tasks, matched, and
        with intervals ci, n_boot, seed, ci_method).
    notes : list of str
        Plain-language notes the output states: tasks left out and why,
        systems averaged over different tasks, the bootstrap's resamples and
        seed.
    source : dict
        Where the data came from, as the reader recorded it (path, format,
        sha256); empty for data built in Python.
    curve : ThresholdCurve or None
        With ``scores=True``: pass^k and pass@k as functions of the pass
        threshold (:class:`passhat.scores.result.ThresholdCurve`; success =
        score ≥ threshold); None otherwise.
    by_category : CategoryEstimate or None
        With ``by="category"``: pass@k / pass^k per category with intervals, and the
        permutation test of whether the categories differ
        (:class:`passhat.groups.result.CategoryEstimate`); None otherwise.
    per_task : xarray.Dataset
        Per-task metrics over (system, task, k) with n, c, unscored, weight
        (built on first access).
    tasks : pandas.DataFrame
        Per task (tidy, one row per system × task): n, c, unscored, flaky,
        all_pass, all_fail, rate and pass@k / pass^k with per-task intervals
        (see :func:`passhat.intervals.task_intervals`), and ``included``.
        Built on first access, so estimates that never look at it do not pay
        for it.
    """

    schema: ClassVar[str] = "estimate"

    table: pd.DataFrame
    excluded: pd.DataFrame
    summary: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: dict[str, str] = field(default_factory=dict)
    curve: ThresholdCurve | None = None
    by_category: CategoryEstimate | None = None
    _counts: xr.Dataset | None = None
    _cost: CostCells | None = None
    _duration: CostCells | None = None
    _cost_of: str = "cost"
    _include: NDArray[np.bool_] | None = None
    _weights: NDArray[np.float64] | None = None

    def to_frame(self) -> pd.DataFrame:
        """The tidy table (one row per system, k, metric and, with intervals, scope)."""
        return self.table.copy()

    def _document(self, *, per_task: bool = False, cost: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "input": dict(self.source),
            "settings": self.settings,
            "summary": records(self.summary),
            "estimates": records(self.table),
            "excluded": records(self.excluded),
            "notes": list(self.notes),
        }
        if per_task:
            doc["tasks"] = records(self.tasks)
        if self.curve is not None:
            doc["curve"] = records(self.curve.table)
        if self.by_category is not None:
            doc["by_category"] = records(self.by_category.table)
            doc["category_tests"] = records(self.by_category.tests)
        if cost:
            doc["cost"] = records(self._cost_result().table)
            doc["cost_of"] = self._cost_of
        return doc

    def to_dict(self, *, per_task: bool = False, cost: bool = False) -> dict[str, Any]:
        """The JSON document (``passhat estimate --json``); ``per_task`` adds the per-task table.

        Examples
        --------
        >>> import passhat as ph
        >>> doc = ph.estimate(ph.load_example("abcd"), k=2).to_dict()
        >>> doc["schema"], [r["value"] for r in doc["estimates"]]
        ('passhat.estimate', [0.55, 0.675, 0.425])
        """
        return self._with_header(self._document(per_task=per_task, cost=cost))

    def _cost_result(self) -> CostEstimate:
        """:attr:`cost`, or an error saying the data have no cost column."""
        if self.cost is None:
            if self._cost_of == "duration":
                where = f"{self.source['path']}: " if "path" in self.source else ""
                raise OptionError(missing_column("duration", where))
            raise OptionError("{param} needs runs with a cost column", param="cost")
        return self.cost

    def view(self, *, per_task: bool = False, curve: bool = False, cost: bool = False) -> Display:
        """The tables the terminal, a notebook and ``repr`` show: the benchmark table (with each
        scope's interval when there are intervals), after the per-task table with ``per_task``,
        and the threshold curve with ``curve`` (an estimate with ``scores=True``)."""
        shown = est_display(self, per_task=per_task, curve=curve)
        if cost:
            shown = Display((*shown.parts, self._cost_result().view()), shown.min_width)
        return shown

    def _paper(self, *, scope: str = "population") -> PaperTable:
        """The table for papers: one row per system, its tasks, the mean and pass@k / pass^k
        at each k > 1 (pass@1 = pass^1 = mean), each cell with its interval in ``scope``
        (``population``, ``benchmark``, or ``predictive`` when asked for) when the estimate
        has intervals; the caption says the level, the scope and each row's method.

        Examples
        --------
        >>> import passhat as ph
        >>> est = ph.estimate(ph.load_example("abcd"), k=2, ci=0.95, n_boot=200)
        >>> print(est.to_markdown().splitlines()[2])
        | seed-example | 4 | 0.550 [0.212, 0.823] | 0.675 [0.279, 0.907] | 0.425 [0.127, 0.755] |
        """
        return est_paper(self, scope=scope)

    @cached_property
    def per_task(self) -> xr.Dataset:
        """Per-task metrics over (system, task, k) with n, c, unscored, weight, included.

        Built on first access: the benchmark values themselves are computed
        from the distinct (n, c) pairs and never need this (system × task × k)
        array.
        """
        if self._counts is None or self._include is None or self._weights is None:
            raise OptionError("this Estimate holds no count table to expand per task")
        ds = self._counts
        per = per_task_metrics(ds, self.settings["k"])
        for var in ("n", "c", "unscored", "present"):
            per[var] = ds[var]
        per["weight"] = (("system", "task"), self._weights)
        per["included"] = (("system", "task"), self._include)
        return per

    def with_cost_of(self, cost_of: str) -> Estimate:
        """The same estimate whose :attr:`cost` reads the runs' ``cost`` column (``"cost"``, the
        default) or their ``duration_s`` column (``"duration"``: seconds per run, per success
        and per all-k-pass, and pass^k per second, computed the same way and labelled so).

        Examples
        --------
        >>> import passhat as ph
        >>> est = ph.estimate(ph.load_example("agents"), k=[1]).with_cost_of("duration")
        >>> round(float(est.cost.to_frame()["cost_per_success"].iloc[0]), 2)
        63.8
        """
        return replace(self, _cost_of=check_cost_of(cost_of))

    @cached_property
    def cost(self) -> CostEstimate | None:
        """Cost per run, per success, per all-k-pass and pass^k per unit cost per (system, k)
        (:class:`passhat.cost_result.CostEstimate`), from the runs' ``cost`` column (or their
        ``duration_s`` column after :meth:`with_cost_of`); None without it. Built on first
        access; a run without a cost is an error then.

        Examples
        --------
        >>> import passhat as ph
        >>> est = ph.estimate(ph.load_example("agents"), k=[1])
        >>> round(float(est.cost.to_frame()["cost_per_success"].iloc[0]), 4)
        0.134
        """
        cells = self._duration if self._cost_of == "duration" else self._cost
        if cells is None or self._include is None or self._weights is None:
            return None
        ks = self.settings["k"]
        boot = None
        rates = None
        if self.settings.get("ci") is not None:
            per = self.per_task
            rates = np.concatenate([per["mean"].values[:, :, :1], per["pass_hat_k"].values], axis=2)
            boot = {k: self.settings[k] for k in ("ci", "n_boot", "seed")}
        return cost_estimate(
            cells, self.wide(), self._include, self._weights, ks,
            systems=[str(s) for s in self.summary["system"]], source=self.source,
            rates=rates, boot=boot, cost_of=self._cost_of,
        )  # fmt: skip

    @cached_property
    def tasks(self) -> pd.DataFrame:
        """Per-task table with intervals and the flaky flag (see the class docstring)."""
        per = self.per_task
        df = task_intervals(
            per[["n", "c", "unscored", "present"]],
            method=self.settings.get("task_method", "wilson"),
            ci=self.settings.get("task_ci", 0.95),
            k=self.settings["k"],
        )
        # one row per present (system, task), in row-major order
        present = np.asarray(per["present"].values, dtype=bool)
        df["included"] = np.asarray(per["included"].values, dtype=bool)[present]
        return df

    def wide(self) -> pd.DataFrame:
        """One row per (system, k), one column per metric.

        Examples
        --------
        >>> import passhat as ph
        >>> ph.estimate(ph.load_example("abcd"), k=[1, 2]).wide()["pass_hat_k"].round(3).tolist()
        [0.55, 0.425]
        """
        have = set(self.table["metric"])
        return self.table.pivot_table(
            index=["system", "k"], columns="metric", values="value", sort=False
        )[[m for m in ALL_METRICS if m in have]].reset_index()

    def _rows(self, metric: str, k: int, system: str | None, scope: str | None) -> pd.DataFrame:
        """The table's rows of one (metric, k[, system][, scope]), or an error saying why not."""
        have = [m for m in ALL_METRICS if m in set(self.table["metric"])]
        if metric not in have:
            extra = "" if metric not in ALL_METRICS else " (estimate with scores=True has it)"
            raise OptionError(f"metric must be one of {', '.join(have)} (got {metric!r}){extra}")
        k = check_k(k)  # k=True would match the k = 1 rows
        t = self.table
        if scope is not None:
            scope = check_method(scope, SCOPES, "scope")
            if "scope" in t.columns:
                t = t[t["scope"] == scope]
        sel = (t["metric"] == metric) & (t["k"] == k)
        if system is not None:
            sel &= t["system"] == system
        rows = t.loc[sel]
        if rows.empty:
            raise OptionError(
                f"no value for metric={metric!r}, k={k}, system={system!r}; this estimate has "
                f"k = {', '.join(map(str, self.settings.get('k', [])))} and systems "
                f"{', '.join(map(str, pd.unique(self.table['system'])))}"
            )
        systems = list(pd.unique(rows["system"]))
        if len(systems) > 1:
            raise OptionError(
                f"metric={metric!r}, k={k} has a value for each of {len(systems)} systems "
                f"({', '.join(map(str, systems))}): name the system with system="
            )
        return rows

    def value(
        self, metric: str, k: int, system: str | None = None, *, scope: str | None = None
    ) -> float:
        """A single benchmark value (name the system when there are several).

        The point value is the same in both scopes (only the intervals differ),
        so ``scope`` is never needed here; giving it checks the name.

        Examples
        --------
        >>> import passhat as ph
        >>> est = ph.estimate(ph.load_example("agents"), k=1, ci=0.95, n_boot=200)
        >>> round(est.value("mean", 1, system="guided"), 3)
        0.815
        """
        return float(self._rows(metric, k, system, scope)["value"].iloc[0])

    def interval(
        self, metric: str, k: int, system: str | None = None, *, scope: str
    ) -> tuple[float, float]:
        """The (lower, upper) interval of one value in one scope.

        Parameters
        ----------
        metric : {"mean", "pass_at_k", "pass_hat_k"}
        k : int
        system : str, optional
            Needed when the estimate holds several systems.
        scope : {"benchmark", "population", "predictive"}
            ``benchmark``: these tasks (within-task uncertainty only);
            ``population``: the expected value over tasks like these;
            ``predictive``: a new benchmark of T′ tasks (with ``predictive=T′``).

        Examples
        --------
        >>> import passhat as ph
        >>> est = ph.estimate(ph.load_example("abcd"), k=2, ci=0.95, n_boot=200)
        >>> lo, hi = est.interval("pass_hat_k", 2, scope="population")
        >>> lo <= est.value("pass_hat_k", 2) <= hi
        True
        """
        if "scope" not in self.table.columns:
            raise OptionError("this estimate has no intervals: give ci= (e.g. ci=0.95)")
        row = self._rows(metric, k, system, scope).iloc[0]
        return float(row["lower"]), float(row["upper"])


#: Headers of the scopes' interval columns.
_SCOPE_HEADS = {"benchmark": "benchmark", "population": "population"}


def _iv(lo: float, hi: float) -> str:
    return f"[{num(lo)}, {num(hi)}]"


def est_display(est: Estimate, *, per_task: bool = False, curve: bool = False) -> Display:
    """The estimate's display: the per-task table (``per_task``), then the benchmark table
    (with each scope's interval when the estimate has them), then the threshold curve
    (``curve``, with scores)."""
    parts = [_tasks_view(est)] if per_task else []
    parts.append(_intervals_view(est) if "scope" in est.table.columns else _values_view(est))
    if curve:
        if est.curve is None:
            raise OptionError("{param} needs {scores}", param="curve", also=("scores",))
        parts.append(est.curve.view())
    if est.by_category is not None:
        parts.extend(est.by_category.view().parts)
    return Display(tuple(parts), min_width=140 if per_task else None)


def _values_view(est: Estimate) -> View:
    """One row per (system, k): tasks, runs, unscored, mean, pass@k, pass^k
    (:func:`passhat.estimate_view.values_view`)."""
    wide = est.wide().merge(est.summary, on="system")
    metrics = [m for m in ALL_METRICS if m in wide.columns]
    rows = [
        (r["system"], r["tasks"], r["runs"], r["unscored"], r["k"], [r[m] for m in metrics])
        for r in wide.to_dict(orient="records")
    ]
    return View(
        VALUES_TITLE,
        values_table(rows, metrics).to_frame(),
        notes=values_notes(est.notes, int(est.summary["unscored"].sum())),
    )


def _intervals_view(est: Estimate) -> View:
    """One row per (system, k, metric): value and the interval of every scope computed."""
    t = est.table
    new_t = est.settings.get("predictive")
    scopes = ["benchmark", "population"] + (["predictive"] if new_t else [])
    heads = {**_SCOPE_HEADS, "predictive": f"new benchmark ({new_t} tasks)"}
    iv = t.set_index(["system", "k", "metric", "scope"])
    first = t[t["scope"] == "benchmark"].reset_index(drop=True)
    kmin = first["k"].min()
    rows = []
    for b in first.to_dict(orient="records"):
        flat = b["metric"] in ("mean", "mean_score")
        if flat and b["k"] != kmin:
            continue  # the mean does not depend on k
        key = (b["system"], b["k"], b["metric"])
        cells = [
            _iv(iv.loc[(*key, s), "lower"], iv.loc[(*key, s), "upper"])
            if (*key, s) in iv.index
            else "—"  # no predictive scope for the score metrics
            for s in scopes
        ]
        k_text = "—" if flat else str(b["k"])
        label = METRIC_LABELS[str(b["metric"])]
        rows.append([str(b["system"]), str(b["tasks"]), k_text, label, num(b["value"]), *cells])
    columns = ["system", "tasks", "k", "metric", "value"] + [heads[s] for s in scopes]
    return View(
        f"passhat estimate with {est.settings['ci']:g} intervals (two scopes)",
        pd.DataFrame(rows, columns=columns),
        notes=tuple(_interval_notes(est, scopes)),
    )


def _interval_notes(est: Estimate, scopes: list[str]) -> list[str]:
    """The scopes in words, each scope's method per row group, the outcome shares, the notes."""
    new_t = est.settings.get("predictive")
    lines = [
        "benchmark: these tasks, uncertainty from their finite runs only; "
        "population: the expected value over tasks like these (adds which tasks were drawn)"
        + (
            f"; new benchmark: the value a new set of {new_t} tasks like these would show."
            if new_t
            else "."
        )
    ]
    t = est.table
    of = t["system"].nunique()
    by = "system" if of > 1 else None
    for scope in scopes:
        part = t[t["scope"] == scope]
        for method, rows in part.groupby("method", sort=False):
            lines.append(f"{scope} method ({row_names(rows, by=by, of=of)}): {method}")
    for r in est.summary.to_dict(orient="records"):
        lines.append(
            f"{r['system']}: flaky tasks {r['flaky_share']:.1%}, all-pass "
            f"{r['all_pass_share']:.1%}, all-fail {r['all_fail_share']:.1%}"
        )
    return lines + list(est.notes)


def est_paper(est: Estimate, *, scope: str = "population") -> PaperTable:
    """The estimate's table for papers (see :meth:`Estimate._paper`)."""
    t = est.table
    has_iv = "scope" in t.columns
    if has_iv:
        computed = [s for s in SCOPES if s in set(t["scope"])]
        t = t[t["scope"] == check_method(scope, computed, "scope")]
    elif check_method(scope, SCOPES, "scope") != "population":
        raise OptionError(
            "{param} picks the intervals' scope, and this estimate has none: give {ci} (e.g. 0.95)",
            param="scope",
            also=("ci",),
        )
    ks = sorted({int(k) for k in t["k"]})
    shown = [("mean", ks[0])] + [(m, k) for m in METRICS[1:] for k in ks if k > 1]
    rows = []
    for system, part in t.groupby("system", sort=False):
        cells = {(str(r["metric"]), int(r["k"])): r for r in part.to_dict(orient="records")}
        row = {"system": str(system), "tasks": str(int(cells[shown[0]]["tasks"]))}
        for metric, k in shown:
            r = cells.get((metric, k))
            row[metric_label(metric, k)] = _paper_cell(r, has_iv)
        rows.append(row)
    picked = t[[(str(m), int(k)) in shown for m, k in zip(t["metric"], t["k"], strict=True)]]
    return PaperTable(pd.DataFrame(rows), _paper_caption(est, picked, scope, ks))


def _paper_cell(row: dict[str, Any] | None, has_iv: bool) -> str:
    if row is None:
        return "—"
    if not has_iv:
        return num(row["value"])
    return interval_cell(num(row["value"]), num(row["lower"]), num(row["upper"]))


def _paper_caption(est: Estimate, t: pd.DataFrame, scope: str, ks: list[int]) -> str:
    """What the table's numbers are, and with intervals their level, scope and methods."""
    words = [
        "Mean success, pass@k and pass^k per system: unbiased per-task estimates, averaged "
        "over the system's tasks" + (" (pass@1 = pass^1 = mean)." if 1 in ks else ".")
    ]
    if "scope" in t.columns:
        new_t = est.settings.get("predictive")
        words.append(
            f"{level_words(est.settings['ci'])} intervals, {scope_words(scope, new_tasks=new_t)}"
            f", seed {est.settings['seed']}. {method_words(t)}"
        )
    else:
        words.append("No intervals: ask for them with ci= (--ci).")
    fewer = t[t["tasks"] != t.groupby("system")["tasks"].transform("first")]
    for (system, k), _ in fewer.groupby(["system", "k"], sort=False):
        n = int(fewer[(fewer["system"] == system) & (fewer["k"] == k)]["tasks"].iloc[0])
        words.append(f"{system} at k = {k}: {n} tasks (those with at least {k} decided runs).")
    if len(est.excluded):
        words.append(f"{len(est.excluded)} task(s) left out (listed in the JSON output).")
    return " ".join(words)


def _tasks_view(est: Estimate) -> View:
    """Per task: n, c, unscored, the rate and pass^k / pass@k at the largest k with their
    intervals, and the flaky flag."""
    tasks = est.tasks
    kmax = max(est.settings["k"])
    level = est.settings.get("ci") or 0.95
    cols = {f"pass^{kmax}": f"pass_hat_{kmax}", f"pass@{kmax}": f"pass_at_{kmax}"}
    frame = pd.DataFrame(
        {c: tasks[c].astype(str) for c in ("system", "task", "n", "c", "unscored")}
    )
    frame["rate"] = [
        f"{num(v)} {_iv(lo, hi)}"
        for v, lo, hi in zip(tasks["rate"], tasks["rate_lower"], tasks["rate_upper"], strict=True)
    ]
    outside = False
    for head, m in cols.items():
        v, lo, hi = tasks[m], tasks[f"{m}_lower"], tasks[f"{m}_upper"]
        frame[head] = [f"{num(a)} {_iv(b, c)}" for a, b, c in zip(v, lo, hi, strict=True)]
        outside = outside or bool(((v < lo - 1e-12) | (v > hi + 1e-12)).any())
    frame["flaky"] = ["yes" if f else "" for f in tasks["flaky"]]
    lines: tuple[str, ...] = ()
    if outside:
        lines = (
            f"pass^{kmax} and pass@{kmax} intervals are for p^k and 1 − (1 − p)^k themselves "
            "(the rate's interval, transformed); the unbiased point value C(c,k)/C(n,k) can lie "
            "outside them.",
        )
    method = str(tasks["method"].iloc[0]).split()[0] if len(tasks) else ""
    return View(
        f"per-task estimates with {level:g} {method} intervals",
        frame,
        lines=lines,
        no_wrap=True,
    )
