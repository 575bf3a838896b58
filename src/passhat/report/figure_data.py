"""The frames the report's figures are drawn from, and each figure's title and alt text.

The alt text is written from the numbers, like the sections' sentences. The figures
themselves are drawn by :mod:`passhat.report.plots` when the report is rendered.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat._format import fmt_ratio, pct
from passhat.estimate import estimate
from passhat.report.sections._rows import interval_lookup

__all__ = [
    "MAX_CURVE_POINTS",
    "curve_frame",
    "figure_texts",
    "ppc_frame",
    "ppc_text",
    "rate_frame",
    "thin_curve",
    "threshold_text",
]


def rate_frame(systems: Any, tasks: Any, n: Any, c: Any, mask: Any) -> pd.DataFrame:
    """One row per (system, task) where ``mask[s, t]`` holds: n, c and the rate c/n.

    Examples
    --------
    >>> import numpy as np
    >>> rate_frame(["s"], ["a", "b"], np.array([[4, 2]]), np.array([[1, 2]]),
    ...            np.array([[True, False]]))
      system task  n  c  rate
    0      s    a  4  1  0.25
    """
    si, ti = np.nonzero(np.asarray(mask, dtype=bool))
    n_arr, c_arr = np.asarray(n), np.asarray(c)
    return pd.DataFrame(
        {
            "system": np.asarray([str(x) for x in systems], dtype=object)[si],
            "task": np.asarray([str(x) for x in tasks], dtype=object)[ti],
            "n": n_arr[si, ti].astype(int),
            "c": c_arr[si, ti].astype(int),
            "rate": c_arr[si, ti] / n_arr[si, ti],
        },
        columns=["system", "task", "n", "c", "rate"],
    )


#: Most points per system the gap-concentration curve keeps (figure and results.json).
MAX_CURVE_POINTS = 1000


def thin_curve(conc: pd.DataFrame, *, points: int = MAX_CURVE_POINTS) -> pd.DataFrame:
    """Every m-th row of each system's cumulative curve (and its last), when it has more rows
    than ``points``; unchanged otherwise. The values kept are exact.

    Examples
    --------
    >>> conc = pd.DataFrame({"system": "s", "task_share": [i / 10 for i in range(1, 11)],
    ...                      "cumulative": [i / 10 for i in range(1, 11)]})
    >>> thin_curve(conc, points=4)["task_share"].tolist()
    [0.3, 0.6, 0.9, 1.0]
    """
    parts = []
    for _, part in conc.groupby("system", sort=False):
        if len(part) > points:
            step = -(-len(part) // points)
            keep = np.zeros(len(part), dtype=bool)
            keep[step - 1 :: step] = True
            keep[-1] = True
            part = part[keep]
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else conc


def curve_frame(
    ds: xr.Dataset, *, kmax: int, ci: float | None, seed: int | None, n_boot: int, weights: Any
) -> pd.DataFrame:
    """pass^k and pass@k for k = 1..kmax with population-scope intervals and mean^k.

    Tasks with fewer than k decided runs are left out at that k (``on_short="exclude"``).

    Examples
    --------
    >>> import passhat as ph
    >>> curve = curve_frame(ph.load_example("abcd"), kmax=3, ci=None, seed=0, n_boot=200,
    ...                     weights=None)
    >>> sorted(curve["k"].unique().tolist()), sorted(curve["metric"].unique())
    ([1, 2, 3], ['pass_at_k', 'pass_hat_k'])
    """
    opts: dict[str, Any] = {"weights": weights, "on_short": "exclude"}
    if ci is not None:
        opts.update(ci=ci, seed=seed, n_boot=n_boot)
    # a few k at a time: only the summary is kept, so memory holds a few k's per-task arrays
    # (the same seed gives each k the same task resamples as one call over all k)
    wides, ivs = [], {}
    for first in range(1, kmax + 1, 2):
        est = estimate(ds, k=list(range(first, min(first + 2, kmax + 1))), **opts)
        wides.append(est.wide())
        ivs.update(interval_lookup(est.table))
        del est
    order = {str(x): i for i, x in enumerate(pd.unique(wides[0]["system"]))}
    wide = pd.concat(wides, ignore_index=True)
    wide = wide.sort_values(
        ["system", "k"], key=lambda c: c.map(order) if c.name == "system" else c
    )
    iv = ivs
    rows = []
    for r in wide.itertuples():
        for metric in ("pass_hat_k", "pass_at_k"):
            got = iv.get((str(r.system), int(r.k), metric, "population"), {})
            rows.append(
                {
                    "system": str(r.system),
                    "k": int(r.k),
                    "metric": metric,
                    "value": float(getattr(r, metric)),
                    "lower": got.get("lower", math.nan),
                    "upper": got.get("upper", math.nan),
                    "uniform": float(r.mean) ** int(r.k),
                    "mean": float(r.mean),
                }
            )
    return pd.DataFrame(rows)


def figure_texts(
    sp: Any, *, curve: pd.DataFrame | None, rates: pd.DataFrame, kmax: int
) -> dict[str, dict[str, str]]:
    """Title and alt text of the spread curve, the rate histogram and the gap concentration.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.estimators import as_counts
    >>> ds = as_counts(ph.load_example("abcd"))
    >>> rates = rate_frame(["system"], ds["task"].values, ds["n"].values, ds["c"].values,
    ...                    ds["present"].values)
    >>> texts = figure_texts(ph.spread(ds, k=[1, 2]), curve=None, rates=rates, kmax=2)
    >>> texts["rate_histogram"]["title"]
    'Per-task success rates c/n'
    """
    t = sp.table
    parts = []
    for system in t["system"].unique():
        r = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        parts.append(
            f"{system}: pass^{kmax} {pct(r['pass_hat_k'])} against mean^{kmax} "
            f"{pct(r['uniform'])} ({fmt_ratio(r['ratio'])}×), pass@{kmax} {pct(r['pass_at_k'])}"
        )
    kc = int(curve["k"].max()) if curve is not None and len(curve) else kmax
    hist = []
    for system, part in rates.groupby("system", sort=False):
        hist.append(
            f"{system}: {(part['rate'] == 1).mean():.0%} of tasks at 100%, "
            f"{(part['rate'] == 0).mean():.0%} at 0%, "
            f"{((part['rate'] > 0) & (part['rate'] < 1)).mean():.0%} in between"
        )
    conc = []
    for system in t["system"].unique():
        r = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        conc.append(
            f"{system}: {pct(r['tasks_for_50'])} of tasks carry half of the "
            f"{r['gap'] * 100:.1f}-point gap and {pct(r['tasks_for_100'])} carry all of it"
        )
    return {
        "spread_curve": {
            "title": f"pass^k and pass@k over k = 1..{kc}, with the uniform-spread curve mean^k",
            "alt": "Line chart of pass^k (falling) and pass@k (rising) against k, with shaded "
            "population-scope intervals and a dashed mean^k curve per system. "
            + "; ".join(parts)
            + ".",
        },
        "rate_histogram": {
            "title": "Per-task success rates c/n",
            "alt": "Histogram of per-task success rates per system. " + "; ".join(hist) + ".",
        },
        "gap_concentration": {
            "title": f"Which tasks carry the gap mean − pass^{kmax}",
            "alt": "Cumulative share of the gap against the share of tasks, worst first. "
            + "; ".join(conc)
            + ".",
        },
    }


def threshold_text(curve: pd.DataFrame, *, kmax: int) -> dict[str, str]:
    """Title and alt text of the threshold curve (an estimate's ``curve.table``): per system,
    pass^kmax at the lowest and the highest threshold.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "s", "threshold": [0.5, 1.0], "k": 2,
    ...                   "pass_hat_k": [1.0, 0.25], "pass_at_k": [1.0, 0.5]})
    >>> threshold_text(t, kmax=2)["alt"].split(". ")[-1]
    's: pass^2 100.0% at t = 0.5, 25.0% at t = 1.'
    """
    parts = []
    for system, part in curve[curve["k"] == kmax].groupby("system", sort=False):
        p = part.sort_values("threshold")
        lo, hi = p.iloc[0], p.iloc[-1]
        parts.append(
            f"{system}: pass^{kmax} {pct(round(lo['pass_hat_k'], 9))} at t = "
            f"{lo['threshold']:g}, {pct(round(hi['pass_hat_k'], 9))} at t = {hi['threshold']:g}"
        )
    return {
        "title": "pass^k by pass threshold t (success = score ≥ t)",
        "alt": "Step chart of pass^k against the pass threshold, one line per k, pass@k at the "
        "largest k dotted, one panel per system. " + "; ".join(parts) + ".",
    }


def ppc_frame(fit: Any, *, ci: float = 0.9) -> pd.DataFrame:
    """The posterior predictive check table with its interval in whole tasks.

    The replicated interval's bounds are quantiles of task counts; interpolated
    quantiles fall between counts ("3.95 – 15"), so the bounds are rounded
    outward (3 – 15), and whether an observed count lies outside (column
    ``outside``) is judged against the bounds shown. The report's table,
    sentences, figure and alt text all read this one frame.

    Parameters
    ----------
    fit : passhat.Fit or pandas.DataFrame
        A fit, or the table of :meth:`passhat.Fit.ppc`.
    ci : float
        Interval level (when ``fit`` is a Fit).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"system": "s", "bin": [0], "label": ["0/4"], "observed": [3],
    ...                   "expected": [8.2], "lower": [3.95], "upper": [15.0], "ci": [0.9]})
    >>> ppc_frame(t)[["lower", "upper", "outside"]].values.tolist()
    [[3, 15, False]]
    """
    table = fit.copy() if isinstance(fit, pd.DataFrame) else fit.ppc(ci=ci)
    table["lower"] = np.floor(table["lower"].astype(float) + 1e-9).astype(int)
    table["upper"] = np.ceil(table["upper"].astype(float) - 1e-9).astype(int)
    table["outside"] = (table["observed"] < table["lower"]) | (table["observed"] > table["upper"])
    return table


def ppc_text(fit: Any) -> dict[str, str]:
    """Title and alt text of the posterior predictive check figure, from :meth:`passhat.Fit.ppc`
    (a fit, or its check as :func:`ppc_frame` gives it).

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0)
    >>> ppc_text(f)["title"]
    'Posterior predictive check'
    """
    parts = []
    for system, part in ppc_frame(fit).groupby("system", sort=False):
        parts.append(
            f"{system}: {int(part['outside'].sum())} of {len(part)} bins outside the "
            f"{float(part['ci'].iloc[0]):.0%} predictive interval"
        )
    return {
        "title": "Posterior predictive check",
        "alt": "Bar chart per system of the observed number of tasks in each bin of c/n, "
        "with the model's replicated mean and interval as points with error bars. "
        + "; ".join(parts)
        + ".",
    }
