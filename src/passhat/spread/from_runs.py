"""Clustered vs uniform spread measured from runs: pass^k against Mean^k per system and k, and which
tasks carry the gap.

Examples
--------
>>> import passhat as ph
>>> sp = ph.spread(ph.load_example("abcd"), k=2)
>>> sorted(sp.table.columns)[:3]
['always_fail_share', 'always_pass_share', 'consistency']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._format import fmt_ratio, pct
from passhat._repr import View, as_html, as_text
from passhat.errors import OptionError
from passhat.estimate import estimate as _estimate
from passhat.estimators import WeightSpec, as_counts
from passhat.trials import Trials

__all__ = ["GAP_LEVELS", "Spread", "describe_row", "spread"]

#: Shares of the gap for which :func:`spread` reports how many tasks carry them.
GAP_LEVELS = (0.5, 0.8, 1.0)


@dataclass
class Spread:
    """Result of :func:`spread`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, k): tasks, mean, pass_at_k, pass_hat_k, uniform
        (mean^k), ratio (pass^k / mean^k), consistency (pass^k / mean), gap
        (mean − pass^k), flaky_share, and the shares of tasks that carry 50%,
        80% and 100% of the gap (``tasks_for_50``, ``tasks_for_80``,
        ``tasks_for_100``). With ``ci``: ``pass_hat_k_lower``,
        ``pass_hat_k_upper``, ``scope`` and ``method`` from the estimator's
        intervals.
    shares : pandas.DataFrame
        Per system: tasks, always_pass, always_fail, flaky (counts) and their
        shares of the included tasks.
    contributions : pandas.DataFrame
        Per (system, k, task) with a positive contribution to the gap, worst
        first: n, c, mean, pass_hat_k, contribution (weighted), share (of the
        gap), cumulative (share), task_rank, task_share (rank / tasks).
    excluded : pandas.DataFrame
        Tasks left out (from :func:`passhat.estimate`).
    method : dict
        How each column is computed.
    """

    table: pd.DataFrame
    shares: pd.DataFrame
    contributions: pd.DataFrame
    excluded: pd.DataFrame
    method: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def _view(self) -> View:
        t = self.table
        frame = pd.DataFrame(
            {
                "system": t["system"].astype(str),
                "k": t["k"].astype(str),
                "mean": [pct(v) for v in t["mean"]],
                "pass^k": [pct(v) for v in t["pass_hat_k"]],
                "mean^k (uniform)": [pct(v) for v in t["uniform"]],
                "pass^k / mean^k": [fmt_ratio(v) + "×" for v in t["ratio"]],
                "gap": [f"{v * 100:.1f} pts" for v in t["gap"]],
                "flaky tasks": [pct(v, 0) for v in t["flaky_share"]],
            }
        )
        notes = (
            "mean^k is pass^k if every task had the same success rate; a ratio above 1 means "
            "failures cluster in some tasks. .contributions lists the tasks that carry the gap.",
        )
        return View("Spread: measured pass^k against the uniform-spread reference", frame, notes)

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())

    def row(self, system: str, k: int) -> pd.Series:
        """The table row of one system and k."""
        sel = self.table[(self.table["system"] == system) & (self.table["k"] == k)]
        if len(sel) != 1:
            raise OptionError(f"no spread row for system={system!r}, k={k}")
        return sel.iloc[0]

    def sentence(self, system: str, k: int) -> str:
        """Plain-language reading of one row, written from its numbers."""
        r = self.row(system, k)
        return describe_row(r)


def describe_row(r: pd.Series | dict[str, Any]) -> str:
    """One or two sentences reading a spread row (see :class:`Spread`), from its numbers."""
    k = int(r["k"])
    if k == 1:
        return f"At k = 1, pass^1 equals the mean ({r['mean']:.1%}); the spread shows from k = 2."
    ratio = float(r["ratio"])
    flaky = float(r["flaky_share"])
    uniform = float(r["uniform"])
    gap = float(r["gap"])
    clustered = not math.isfinite(ratio) or ratio > 1.005
    if not math.isfinite(ratio):
        head = (
            f"pass^{k} is {r['pass_hat_k']:.1%} while a uniform spread of the mean "
            f"({r['mean']:.1%}) would give {uniform:.1%}"
        )
    elif ratio > 1.005:
        head = f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%})"
    elif ratio < 0.995:
        head = (
            f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give "
            f"({uniform:.1%}): no sign that failures cluster in some tasks"
        )
    else:
        head = f"pass^{k} matches a uniform spread ({uniform:.1%})"
    if gap <= 0 or flaky == 0:
        tail = "every task's runs agree, so there is no gap between mean and pass^k"
    elif clustered:
        tail = (
            f"failures concentrate in {flaky:.0%} of tasks (the flaky ones), which carry "
            f"the whole {gap * 100:.1f}-point gap; {float(r['tasks_for_80']):.0%} of tasks "
            "carry 80% of it"
        )
    else:
        tail = (
            f"{flaky:.0%} of tasks have both outcomes and share the {gap * 100:.1f}-point gap "
            f"({float(r['tasks_for_80']):.0%} of tasks carry 80% of it)"
        )
    return f"{head}; {tail}." if not clustered else f"{head}: {tail}."


def spread(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    ci: float | None = None,
    n_boot: int = 2000,
    seed: int | None = None,
) -> Spread:
    """Clustered vs uniform spread per system and k, from trials or counts.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials or a count table.
    k : int or sequence of int
        k values.
    weights, on_short, min_runs
        As in :func:`passhat.estimate`.
    ci : float, optional
        Confidence level of the pass^k interval (from the intervals of
        :func:`passhat.estimate`); the population-scope interval is used.
    n_boot : int
        Bootstrap resamples for ``ci``.
    seed : int, optional
        Seed of the bootstrap.

    Returns
    -------
    Spread

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread(ph.counts_from_arrays([5] * 4, [5, 5, 0, 0]), k=5)
    >>> float(s.row("system", 5)["ratio"])   # half always pass, half always fail: 0.5 / 0.5^5
    16.0
    """
    ds = as_counts(data)
    opts: dict[str, Any] = {"k": k, "weights": weights, "on_short": on_short, "min_runs": min_runs}
    if ci is not None:
        opts.update(ci=ci, n_boot=n_boot, seed=seed)
    est = _estimate(ds, **opts)
    ks = [int(v) for v in est.settings["k"]]
    per = est.per_task
    systems = [str(s) for s in ds["system"].values]
    tasks = np.asarray([str(t) for t in ds["task"].values], dtype=object)
    inc = np.asarray(per["included"].values, dtype=bool)
    w = np.asarray(per["weight"].values, dtype=float)
    n = np.asarray(ds["n"].values, dtype=np.int64)
    c = np.asarray(ds["c"].values, dtype=np.int64)
    mean_t = np.asarray(per["mean"].values, dtype=float)  # (s, t, k)
    hat_t = np.asarray(per["pass_hat_k"].values, dtype=float)
    contrib = np.where(inc[..., None], w[..., None] * (mean_t - hat_t), 0.0)
    contrib = np.where(np.isfinite(contrib), np.maximum(contrib, 0.0), 0.0)
    always_pass = inc & (c == n) & (n > 0)
    always_fail = inc & (c == 0) & (n > 0)
    flaky = inc & (c > 0) & (c < n)
    n_inc = inc.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = pd.DataFrame(
            {
                "system": systems,
                "tasks": n_inc.astype(int),
                "always_pass": always_pass.sum(axis=1).astype(int),
                "always_fail": always_fail.sum(axis=1).astype(int),
                "flaky": flaky.sum(axis=1).astype(int),
                "always_pass_share": always_pass.sum(axis=1) / n_inc,
                "always_fail_share": always_fail.sum(axis=1) / n_inc,
                "flaky_share": flaky.sum(axis=1) / n_inc,
            }
        )
    # Sort each (system, k) column of contributions, worst first (stable on task order).
    order = np.argsort(-contrib, axis=1, kind="stable")  # (s, t, k)
    sorted_c = np.take_along_axis(contrib, order, axis=1)
    gap = sorted_c.sum(axis=1)  # (s, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        cum = np.cumsum(sorted_c, axis=1) / np.where(gap > 0, gap, 1.0)[:, None, :]
    tasks_for: dict[float, NDArray[np.float64]] = {}
    for level in GAP_LEVELS:
        # smallest number of tasks whose cumulative share reaches the level
        reach = cum >= level - 1e-12
        first = np.where(reach.any(axis=1), reach.argmax(axis=1) + 1, 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            tasks_for[level] = np.where(gap > 1e-15, first / np.maximum(n_inc, 1)[:, None], 0.0)
    wide = est.wide()
    rows = []
    for si, name in enumerate(systems):
        for ki, kv in enumerate(ks):
            sel = wide[(wide["system"] == name) & (wide["k"] == kv)].iloc[0]
            m, hat = float(sel["mean"]), float(sel["pass_hat_k"])
            uni = m**kv
            row: dict[str, Any] = {
                "system": name,
                "k": kv,
                "tasks": int(n_inc[si]),
                "mean": m,
                "pass_at_k": float(sel["pass_at_k"]),
                "pass_hat_k": hat,
                "uniform": uni,
                "ratio": hat / uni if uni > 0 else (math.inf if hat > 0 else math.nan),
                "consistency": hat / m if m > 0 else math.nan,
                "gap": m - hat,
                "flaky_share": float(shares["flaky_share"].iloc[si]),
                "always_pass_share": float(shares["always_pass_share"].iloc[si]),
                "always_fail_share": float(shares["always_fail_share"].iloc[si]),
                "tasks_for_50": float(tasks_for[0.5][si, ki]),
                "tasks_for_80": float(tasks_for[0.8][si, ki]),
                "tasks_for_100": float(tasks_for[1.0][si, ki]),
            }
            if ci is not None:
                t = est.table
                iv = t[
                    (t["system"] == name)
                    & (t["k"] == kv)
                    & (t["metric"] == "pass_hat_k")
                    & (t["scope"] == "population")
                ]
                if len(iv):
                    row["pass_hat_k_lower"] = float(iv["lower"].iloc[0])
                    row["pass_hat_k_upper"] = float(iv["upper"].iloc[0])
                    row["scope"] = "population"
                    row["method"] = str(iv["method"].iloc[0])
            rows.append(row)
    table = pd.DataFrame(rows)
    crow = []
    for si, name in enumerate(systems):
        for ki, kv in enumerate(ks):
            pos = order[si, :, ki]
            vals = sorted_c[si, :, ki]
            keep = vals > 0
            pos, vals = pos[keep], vals[keep]
            g = float(gap[si, ki])
            frame = pd.DataFrame(
                {
                    "system": name,
                    "k": kv,
                    "task": tasks[pos],
                    "n": n[si, pos],
                    "c": c[si, pos],
                    "mean": mean_t[si, pos, ki],
                    "pass_hat_k": hat_t[si, pos, ki],
                    "contribution": vals,
                    "share": vals / g if g > 0 else vals * np.nan,
                    "cumulative": cum[si, : len(vals), ki],
                    "task_rank": np.arange(1, len(vals) + 1),
                    "task_share": np.arange(1, len(vals) + 1) / max(int(n_inc[si]), 1),
                }
            )
            crow.append(frame)
    contributions = (
        pd.concat(crow, ignore_index=True)
        if crow
        else pd.DataFrame(columns=["system", "k", "task", "contribution"])
    )
    method = {
        "mean": "weighted average of per-task c/n",
        "pass_hat_k": "weighted average of per-task unbiased C(c,k)/C(n,k)",
        "uniform": "mean^k: pass^k if every task had the same success rate",
        "ratio": "pass^k / mean^k (> 1: failures cluster in some tasks)",
        "consistency": "pass^k / mean",
        "gap": "mean − pass^k, split by task as w_i (c_i/n_i − C(c_i,k)/C(n_i,k))",
        "shares": "share of included tasks (unweighted) by decided runs: all pass, all fail, both",
        "tasks_for_x": "smallest share of tasks whose contributions sum to x of the gap",
    }
    return Spread(
        table=table,
        shares=shares,
        contributions=contributions,
        excluded=est.excluded,
        method=method,
        settings={**est.settings, "ci": ci, "seed": seed},
    )
