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
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, named_rng, root_seed
from passhat.estimate import estimate as _estimate
from passhat.estimate_result import Estimate
from passhat.estimators import WeightSpec, as_counts
from passhat.spread.heterogeneity import heterogeneity_test
from passhat.spread.parts import SpreadRow
from passhat.spread.posterior import SpreadPosterior, posterior_spread
from passhat.spread.result import Spread
from passhat.trials import Trials, provenance

__all__ = ["DEFAULT_ALPHA", "GAP_LEVELS", "Spread", "spread"]

#: Level of the heterogeneity test when no interval level is given (else 1 − ci).
DEFAULT_ALPHA = 0.05

#: Shares of the gap for which :func:`spread` reports how many tasks carry them.
GAP_LEVELS = (0.5, 0.8, 1.0)


def spread(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = None,
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
    k : int or sequence of int, optional
        k values; default 1, 2 and 5 capped at the fewest decided runs
        (:func:`passhat.exclusions.default_ks`, the default of every entry point).
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
    cnt = _task_counts(ds, est)
    shares = _shares(cnt)
    het, post = _uncertainty(
        cnt.systems,
        cnt.n,
        cnt.c,
        cnt.inc,
        cnt.ks,
        level=level,
        alpha=alpha,
        n_boot=n_boot,
        seed=seed,
    )
    gap = _GapSplit.of(cnt)
    notes = [x for x in est.notes if x.startswith("k = ") and " left out: " in x]  # k too big
    notes += [x for x in est.notes if " have weight 0 and are left out " in x]
    return Spread(
        rows=tuple(_rows(cnt, est, shares, het, post, gap, alpha=alpha, with_ci=ci is not None)),
        shares=shares,
        contributions=_contributions(cnt, gap),
        excluded=est.excluded,
        heterogeneity=het,
        settings={**est.settings, "ci": ci, "seed": seed, "alpha": alpha, "n_boot": n_boot},
        alpha=alpha,
        weighted=_weighted(cnt.w, cnt.inc),
        estimate_notes=tuple(notes),
        source=provenance(data),
    )


@dataclass(frozen=True)
class _TaskCounts:
    """Per (system, task) counts of the spread's data, and the per-task estimates at each k."""

    systems: list[str]
    tasks: NDArray[np.object_]
    ks: list[int]
    n: NDArray[np.int64]  # (system, task)
    c: NDArray[np.int64]
    inc: NDArray[np.bool_]  # included in the averages
    w: NDArray[np.float64]  # task weights
    mean_t: NDArray[np.float64]  # (system, task, k)
    hat_t: NDArray[np.float64]

    @property
    def n_inc(self) -> NDArray[np.int64]:
        """Included tasks per system."""
        return np.asarray(self.inc.sum(axis=1), dtype=np.int64)


def _task_counts(ds: xr.Dataset, est: Estimate) -> _TaskCounts:
    per = est.per_task
    return _TaskCounts(
        systems=[str(s) for s in ds["system"].values],
        tasks=np.asarray([str(t) for t in ds["task"].values], dtype=object),
        ks=[int(v) for v in est.settings["k"]],
        n=np.asarray(ds["n"].values, dtype=np.int64),
        c=np.asarray(ds["c"].values, dtype=np.int64),
        inc=np.asarray(per["included"].values, dtype=bool),
        w=np.asarray(per["weight"].values, dtype=float),
        mean_t=np.asarray(per["mean"].values, dtype=float),
        hat_t=np.asarray(per["pass_hat_k"].values, dtype=float),
    )


def _shares(cnt: _TaskCounts) -> pd.DataFrame:
    """Per system: always-pass, always-fail and flaky tasks, and where the failing runs are."""
    inc, n, c = cnt.inc, cnt.n, cnt.c
    always_pass = inc & (c == n) & (n > 0)
    always_fail = inc & (c == 0) & (n > 0)
    flaky = inc & (c > 0) & (c < n)
    n_inc = cnt.n_inc
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = pd.DataFrame(
            {
                "system": cnt.systems,
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
    return shares


@dataclass(frozen=True)
class _GapSplit:
    """The gap mean − pass^k split by task, each (system, k) sorted worst first."""

    order: NDArray[np.int64]  # (system, task, k): task positions, worst first
    sorted_c: NDArray[np.float64]  # contributions in that order
    gap: NDArray[np.float64]  # (system, k)
    cum: NDArray[np.float64]  # cumulative share of the gap
    tasks_for: dict[float, NDArray[np.float64]]  # level -> (system, k) share of tasks

    @classmethod
    def of(cls, cnt: _TaskCounts) -> _GapSplit:
        inc, w = cnt.inc, cnt.w
        contrib = np.where(inc[..., None], w[..., None] * (cnt.mean_t - cnt.hat_t), 0.0)
        contrib = np.where(np.isfinite(contrib), np.maximum(contrib, 0.0), 0.0)
        # Sort each (system, k) column of contributions, worst first (stable on task order).
        order = np.argsort(-contrib, axis=1, kind="stable")  # (s, t, k)
        sorted_c = np.take_along_axis(contrib, order, axis=1)
        gap = sorted_c.sum(axis=1)  # (s, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            cum = np.cumsum(sorted_c, axis=1) / np.where(gap > 0, gap, 1.0)[:, None, :]
        tasks_for: dict[float, NDArray[np.float64]] = {}
        n_inc = cnt.n_inc
        for level in GAP_LEVELS:
            # smallest number of tasks whose cumulative share reaches the level
            reach = cum >= level - 1e-12
            first = np.where(reach.any(axis=1), reach.argmax(axis=1) + 1, 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(gap > 1e-15, first / np.maximum(n_inc, 1)[:, None], 0.0)
            tasks_for[level] = share
        return cls(order=order, sorted_c=sorted_c, gap=gap, cum=cum, tasks_for=tasks_for)


def _ratio(hat: float, uni: float) -> float:
    """pass^k / mean^k: infinite above a zero reference, undefined at 0/0."""
    return hat / uni if uni > 0 else (math.inf if hat > 0 else math.nan)


def _rows(
    cnt: _TaskCounts,
    est: Estimate,
    shares: pd.DataFrame,
    het: pd.DataFrame,
    post: list[SpreadPosterior],
    gap: _GapSplit,
    *,
    alpha: float,
    with_ci: bool,
) -> list[SpreadRow]:
    """One typed row per (system, k)."""
    wide = est.wide()
    rows = []
    for si, name in enumerate(cnt.systems):
        sh, h = shares.iloc[si], het.iloc[si]
        for ki, kv in enumerate(cnt.ks):
            sel = wide[(wide["system"] == name) & (wide["k"] == kv)].iloc[0]
            m, hat = float(sel["mean"]), float(sel["pass_hat_k"])
            if kv == 1:
                hat = m  # equal by definition; no rounding residue in the ratio or the gap
            uni = m**kv
            pk = post[si].per_k[kv]
            extra = _interval_fields(est, name, kv, pk) if with_ci else {}
            rows.append(
                SpreadRow(
                    system=name,
                    k=kv,
                    tasks=int(cnt.n_inc[si]),
                    mean=m,
                    pass_at_k=float(sel["pass_at_k"]),
                    pass_hat_k=hat,
                    uniform=uni,
                    ratio=_ratio(hat, uni),
                    consistency=hat / m if m > 0 else math.nan,
                    gap=m - hat,
                    flaky_share=float(sh["flaky_share"]),
                    always_pass_share=float(sh["always_pass_share"]),
                    always_fail_share=float(sh["always_fail_share"]),
                    tasks_for_50=float(gap.tasks_for[0.5][si, ki]),
                    tasks_for_80=float(gap.tasks_for[0.8][si, ki]),
                    tasks_for_100=float(gap.tasks_for[1.0][si, ki]),
                    failures_always_fail_share=float(sh["failures_always_fail_share"]),
                    failures_flaky_share=float(sh["failures_flaky_share"]),
                    tasks_for_80_model=pk["tasks_for_80_model"],
                    p_value=float(h["p_value"]),
                    alpha=alpha,
                    clustered=bool(h["clustered"]),
                    testable=bool(h["testable"]),
                    test_reason=str(h["reason"]),
                    **extra,
                )
            )
    return rows


def _interval_fields(est: Estimate, system: str, k: int, pk: dict[str, float]) -> dict[str, Any]:
    """The population-scope intervals of one row: pass^k's from the estimate, the model's."""
    t = est.table
    iv = t[
        (t["system"] == system)
        & (t["k"] == k)
        & (t["metric"] == "pass_hat_k")
        & (t["scope"] == "population")
    ]
    out: dict[str, Any] = {}
    if len(iv):
        out["pass_hat_k_lower"] = float(iv["lower"].iloc[0])
        out["pass_hat_k_upper"] = float(iv["upper"].iloc[0])
        out["scope"] = "population"
        out["method"] = str(iv["method"].iloc[0])
    for key in ("ratio", "consistency", "tasks_for_80_model"):
        out[f"{key}_lower"] = pk[f"{key}_lower"]
        out[f"{key}_upper"] = pk[f"{key}_upper"]
    return out


def _contributions(cnt: _TaskCounts, gap: _GapSplit) -> pd.DataFrame:
    """Per (system, k, task) with a positive contribution to the gap, worst first."""
    frames = []
    for si, name in enumerate(cnt.systems):
        for ki, kv in enumerate(cnt.ks):
            pos = gap.order[si, :, ki]
            vals = gap.sorted_c[si, :, ki]
            keep = vals > 0
            pos, vals = pos[keep], vals[keep]
            g = float(gap.gap[si, ki])
            ranks = np.arange(1, len(vals) + 1)
            frames.append(
                pd.DataFrame(
                    {
                        "system": name,
                        "k": kv,
                        "task": cnt.tasks[pos],
                        "n": cnt.n[si, pos],
                        "c": cnt.c[si, pos],
                        "mean": cnt.mean_t[si, pos, ki],
                        "pass_hat_k": cnt.hat_t[si, pos, ki],
                        "contribution": vals,
                        "share": vals / g if g > 0 else vals * np.nan,
                        "cumulative": gap.cum[si, : len(vals), ki],
                        "task_rank": ranks,
                        "task_share": ranks / max(int(cnt.n_inc[si]), 1),
                    }
                )
            )
    if not frames:
        return pd.DataFrame(columns=["system", "k", "task", "contribution"])
    return pd.concat(frames, ignore_index=True)


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
) -> tuple[pd.DataFrame, list[SpreadPosterior]]:
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
