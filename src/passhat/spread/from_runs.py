"""Clustered vs uniform spread measured from runs: pass^k against Mean^k per system and k, which
tasks carry the gap, and whether the task rates differ at all (a test, with population intervals).

Examples
--------
>>> import passhat as ph
>>> sp = ph.spread(ph.load_example("abcd"), k=2, seed=0)
>>> sp.table[["system", "ratio", "p_value", "clustered"]].round(3).to_dict(orient="records")[0]
{'system': 'seed-example', 'ratio': 1.405, 'p_value': 0.008, 'clustered': True}
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
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, check_k, named_rng, root_seed
from passhat.errors import OptionError
from passhat.estimate import estimate as _estimate
from passhat.estimators import WeightSpec, as_counts
from passhat.intervals import outside_mask
from passhat.spread.heterogeneity import heterogeneity_test
from passhat.spread.posterior import describe_method, posterior_spread
from passhat.spread.sentences import describe_row
from passhat.trials import Trials

__all__ = ["DEFAULT_ALPHA", "GAP_LEVELS", "Spread", "spread"]

#: Level of the heterogeneity test when no interval level is given (else 1 − ci).
DEFAULT_ALPHA = 0.05

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
        (mean − pass^k), flaky_share, the shares of tasks that carry 50%,
        80% and 100% of the gap in this sample (``tasks_for_50``,
        ``tasks_for_80``, ``tasks_for_100``), the model-based share of tasks
        like these that carry 80% (``tasks_for_80_model``), the shares of
        failing runs in always-fail and flaky tasks, and the system's
        heterogeneity test: ``p_value``, ``clustered`` (the test rejects at
        ``alpha``), ``testable`` and ``test_reason``. With ``ci``:
        ``pass_hat_k_lower``/``_upper``, ``scope`` and ``method`` from the
        estimator's population-scope intervals, and population-scope
        intervals ``ratio_lower``/``_upper``, ``consistency_lower``/``_upper``
        and ``tasks_for_80_model_lower``/``_upper`` (Beta-Binomial posterior,
        joined with the homogeneous model when the test does not reject;
        see :mod:`passhat.spread.posterior`).
    shares : pandas.DataFrame
        Per system: tasks, always_pass, always_fail, flaky (counts) and their
        shares of the included tasks; failures (failing decided runs) and
        how many of them lie in always-fail and in flaky tasks.
    contributions : pandas.DataFrame
        Per (system, k, task) with a positive contribution to the gap, worst
        first: n, c, mean, pass_hat_k, contribution (weighted), share (of the
        gap), cumulative (share), task_rank, task_share (rank / tasks).
    excluded : pandas.DataFrame
        Tasks left out (from :func:`passhat.estimate`).
    method : dict
        How each column is computed.
    settings : dict
        The options used (k, ci, alpha, n_boot, seed, ...).
    heterogeneity : pandas.DataFrame
        Per system: Tarone's test of "one common success rate, independent
        runs" (:func:`passhat.spread.heterogeneity_test`): tasks, runs,
        rate, statistic, p_value, alpha, clustered, testable, reason,
        method; and the Beta-Binomial posterior's ICC (median, with an
        interval when ``ci`` is given) and κ.
    notes : list of str
        Plain-language notes the output states: a figure that lies outside
        its interval and why, and figures not given for fewer than two tasks
        (how task rates spread is then not identified).
    """

    table: pd.DataFrame
    shares: pd.DataFrame
    contributions: pd.DataFrame
    excluded: pd.DataFrame
    method: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    heterogeneity: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: list[str] = field(default_factory=list)

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
            "mean^k is pass^k if every task had the same success rate; any spread of task rates "
            "puts pass^k above it, so .heterogeneity tests whether failures cluster beyond what "
            "independent runs at a common rate give; .contributions lists the tasks with the gap.",
        )
        return View("Spread: measured pass^k against the uniform-spread reference", frame, notes)

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())

    def row(self, system: str, k: int) -> pd.Series:
        """The table row of one system and k."""
        k = check_k(k)  # k=True would match the k = 1 row
        sel = self.table[(self.table["system"] == system) & (self.table["k"] == k)]
        if len(sel) != 1:
            raise OptionError(f"no spread row for system={system!r}, k={k}")
        return sel.iloc[0]

    def sentence(self, system: str, k: int) -> str:
        """Plain-language reading of one row, written from its numbers (:func:`describe_row`)."""
        r = self.row(system, k)
        return describe_row(r)


def spread(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    ci: float | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
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
        Confidence level of the population-scope intervals: pass^k (from
        :func:`passhat.estimate`), the ratio pass^k / mean^k, the
        consistency and the model-based gap concentration. It also sets the
        heterogeneity test's level, α = 1 − ci (0.05 without ``ci``), so
        the ratio's interval reaches 1 exactly when the test does not reject.
    n_boot : int
        Bootstrap resamples for ``ci``, and Monte Carlo draws of the
        heterogeneity test's p-value (default 10,000, as every entry point).
    seed : int or None
        Seed of the bootstrap, the test and the posterior draws (default 0,
        fixed, as every entry point).

    Returns
    -------
    Spread

    Notes
    -----
    Why a test: mean^k < pass^k follows from *any* spread of the task rates
    (Jensen), and at a few runs per task the sample ratio is noisy (with
    30 tasks × 5 runs at a common rate 0.7 it ranges about 0.5–1.5 at k = 5).
    "Clustered" is therefore the decision of Tarone's test of one common
    rate with independent runs, not a threshold on the sample ratio.

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread(ph.counts_from_arrays([5] * 4, [5, 5, 0, 0]), k=5)
    >>> float(s.row("system", 5)["ratio"])   # half always pass, half always fail: 0.5 / 0.5^5
    16.0
    """
    level = check_ci(ci) if ci is not None else None
    alpha = 1.0 - level if level is not None else DEFAULT_ALPHA
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
        fails = np.where(inc, n - c, 0)
        total_fails = fails.sum(axis=1)
        shares["failures"] = total_fails.astype(int)
        shares["failures_always_fail"] = np.where(always_fail, fails, 0).sum(axis=1).astype(int)
        shares["failures_flaky"] = np.where(flaky, fails, 0).sum(axis=1).astype(int)
        shares["failures_always_fail_share"] = shares["failures_always_fail"] / total_fails
        shares["failures_flaky_share"] = shares["failures_flaky"] / total_fails
    het, post = _uncertainty(
        systems, n, c, inc, ks, level=level, alpha=alpha, n_boot=n_boot, seed=seed
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
            if kv == 1:
                hat = m  # equal by definition; no rounding residue in the ratio or the gap
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
                "failures_always_fail_share": float(shares["failures_always_fail_share"].iloc[si]),
                "failures_flaky_share": float(shares["failures_flaky_share"].iloc[si]),
                "tasks_for_80_model": post[si].per_k[kv]["tasks_for_80_model"],
                "p_value": float(het.iloc[si]["p_value"]),
                "alpha": alpha,
                "clustered": bool(het.iloc[si]["clustered"]),
                "testable": bool(het.iloc[si]["testable"]),
                "test_reason": str(het.iloc[si]["reason"]),
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
                pk = post[si].per_k[kv]
                for key in ("ratio", "consistency", "tasks_for_80_model"):
                    row[f"{key}_lower"] = pk[f"{key}_lower"]
                    row[f"{key}_upper"] = pk[f"{key}_upper"]
            rows.append(row)
    table = pd.DataFrame(rows)
    notes = [x for x in est.notes if x.startswith("k = ") and " left out: " in x]  # k too big
    notes += [x for x in est.notes if " have weight 0 and are left out " in x]
    notes += _outside_notes(table) if ci is not None else []
    if (n_inc < 2).any():
        few = ", ".join(s for s, m in zip(systems, n_inc, strict=True) if m < 2)
        notes.append(
            f"{few}: fewer than two tasks, so how task rates spread across tasks is not "
            "identified; the model-based figures (ratio and consistency intervals, ICC, the "
            "model share of tasks carrying the gap) are not given."
        )
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
        "tasks_for_x": (
            "smallest share of these tasks whose sample contributions sum to x of the gap "
            "(overstates the concentration at few runs per task; see tasks_for_80_model)"
        ),
        "failures_x_share": "share of failing decided runs in always-fail / flaky tasks",
        "heterogeneity": (
            f"Tarone's score test of one common success rate with independent runs; "
            f"clustered = the test rejects at α = {alpha:g}"
        ),
        **describe_method(_weighted(w, inc)),
    }
    return Spread(
        table=table,
        shares=shares,
        contributions=contributions,
        excluded=est.excluded,
        method=method,
        settings={**est.settings, "ci": ci, "seed": seed, "alpha": alpha, "n_boot": n_boot},
        heterogeneity=het,
        notes=notes,
    )


def _outside_notes(table: pd.DataFrame) -> list[str]:
    """One sentence per figure whose sample value lies outside its population interval.

    The sample ratio pass^k / mean^k divides the unbiased pass^k by the plug-in mean^k, which
    at a few runs per task puts it below 1 even when every task has the same rate, while the
    population ratio is ≥ 1 for any spread of task rates (Jensen); the interval is the
    population one (:mod:`passhat.spread.posterior`). Said, never left for the reader to find.
    """
    notes: list[str] = []
    for key, name in (("ratio", "pass^k / mean^k"), ("consistency", "pass^k / mean")):
        if f"{key}_lower" not in table.columns:
            continue
        out = outside_mask(table[key], table[f"{key}_lower"], table[f"{key}_upper"])
        if not out.any():
            continue
        r = table[out].iloc[0]
        notes.append(
            f"{int(out.sum())} sample {name} value(s) lie outside their population interval, "
            f"e.g. {r['system']} k = {int(r['k'])}: {float(r[key]):.3f} against "
            f"{float(r[f'{key}_lower']):.3f}–{float(r[f'{key}_upper']):.3f}. The "
            "sample value describes these tasks and is noisy at a few runs per task (the "
            "unbiased pass^k over the plug-in mean^k runs below 1 even when every task has the "
            "same rate); the interval is for tasks like these, whose ratio is at least 1 for "
            "any spread of task rates (Jensen)."
        )
    return notes


def _weighted(w: NDArray[np.float64], inc: NDArray[np.bool_]) -> bool:
    """Whether the included tasks of any system carry unequal weights."""
    for ws, keep in zip(w, inc, strict=True):
        vals = ws[keep]
        if vals.size and not np.allclose(vals, vals[0]):
            return True
    return False


def _uncertainty(
    systems: list[str],
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    inc: NDArray[np.bool_],
    ks: list[int],
    *,
    level: float | None,
    alpha: float,
    n_boot: int,
    seed: int | None,
) -> tuple[pd.DataFrame, list[Any]]:
    """Per system: the heterogeneity test and the model-based figures (:mod:`.posterior`)."""
    root = root_seed(seed)
    rows = []
    posts = []
    for si, name in enumerate(systems):  # over systems, not tasks
        keep = inc[si]
        test_rng, post_rng = named_rng(root, name).spawn(2)  # its own: not its neighbours'

        test = heterogeneity_test(n[si, keep], c[si, keep], n_draws=n_boot, seed=test_rng)
        clustered = test.rejects(alpha)
        post = posterior_spread(
            n[si, keep],
            c[si, keep],
            ks=ks,
            ci=level if level is not None else 1.0 - alpha,
            homogeneous=not clustered,
            rng=post_rng,
        )
        posts.append(post)
        row: dict[str, Any] = {"system": name, **test.to_dict(), "alpha": alpha}
        row["clustered"] = clustered
        row["icc"] = post.icc
        if level is not None:
            row["icc_lower"], row["icc_upper"] = post.icc_lower, post.icc_upper
        row["kappa"] = post.kappa
        rows.append(row)
    cols = ["system", "tasks", "runs", "rate", "statistic", "p_value", "alpha", "clustered"]
    het = pd.DataFrame(rows)
    return het[cols + [c for c in het.columns if c not in cols]], posts
