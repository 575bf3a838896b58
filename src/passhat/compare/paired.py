"""Paired comparison of systems on matched tasks: difference, interval and p-value in two scopes.

For each task run by both systems the difference of the unbiased estimates
d_i = U_i(candidate) − U_i(baseline) is formed for mean, pass@k and pass^k
(:mod:`passhat.estimators`); the value compared is their mean (equal weight
per task). Two scopes, as everywhere in passhat:

* **population** — would the difference hold on new tasks from the same
  distribution: the paired task bootstrap (the same tasks drawn for both
  systems, over the distinct (n_A, c_A, n_B, c_B) categories;
  :mod:`passhat.bootstrap`), percentile or BCa [1]_, and a sign-flip
  permutation p-value;
* **benchmark** — on these tasks, given their finitely many runs: the
  difference ± z·SE from the unbiased per-task variances
  (:func:`passhat.intervals.benchmark_se`), and a normal p-value.

Tasks run by one system only are an error naming them, or dropped and
listed (``intersect=True``).

References
----------
.. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.

Examples
--------
>>> from passhat.compare import paired_difference
>>> r = paired_difference([4, 4, 4], [1, 2, 4], [4, 4, 4], [3, 2, 4], k=2, n_boot=200, seed=0)
>>> r.loc[r["scope"] == "population", ["metric", "difference"]].round(3).values.tolist()
[['mean', 0.167], ['pass_at_k', 0.167], ['pass_hat_k', 0.167]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._repr import View, as_html, as_text
from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_method,
    check_n_boot,
    make_rng,
    norm_k,
    resolve_seed,
)
from passhat.bootstrap import (
    CI_METHODS,
    compress,
    draw_stats,
    interval_from_draws,
    sign_flip_draws,
)
from passhat.compare.selection import select_systems
from passhat.errors import ShortTaskError, ValidationError
from passhat.estimators import METRIC_LABELS, METRICS, subset_ratio
from passhat.exclusions import exclusions
from passhat.intervals import benchmark_se
from passhat.trials import Trials

__all__ = ["Comparison", "compare", "paired_difference"]


@dataclass
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per (baseline, candidate, k, metric, scope): values of
        both systems, difference (candidate − baseline), lower, upper,
        p_value, tasks, method, p_method.
    discordant : pandas.DataFrame
        McNemar-style counts per pair at k = 1 (see :func:`compare`).
    dropped : pandas.DataFrame
        Tasks left out of a pair, with the reason: only one system ran them
        (``intersect=True``; ``only`` names it), or the exclusion rules
        (``min_runs``, ``on_short="exclude"``, ``unscored_tasks``) left them
        out for either system, and so for both.
    settings : dict
    """

    table: pd.DataFrame
    discordant: pd.DataFrame
    dropped: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def _view(self) -> View:
        t = self.table
        scope = "population" if "scope" in t.columns else None
        rows = t[t["scope"] == scope] if scope else t
        frame = pd.DataFrame(
            {
                "candidate − baseline": [
                    f"{c} − {b}" for b, c in zip(rows["baseline"], rows["candidate"], strict=True)
                ],
                "metric": [METRIC_LABELS.get(str(m), str(m)) for m in rows["metric"]],
                "k": rows["k"].astype(str),
                "difference (interval)": [
                    f"{d * 100:+.1f} pts ({lo * 100:+.1f} to {hi * 100:+.1f})"
                    for d, lo, hi in zip(
                        rows["difference"], rows["lower"], rows["upper"], strict=True
                    )
                ],
                "p-value": [f"{p:.3g}" for p in rows["p_value"]],
                "tasks": rows["tasks"].astype(str),
            }
        )
        notes = []
        if len(rows):
            notes.append(
                f"{self.settings.get('ci', 0.95):.0%} interval, {scope or 'benchmark'} scope: "
                f"{rows['method'].iloc[0]}; p-value: {rows['p_method'].iloc[0]}."
                + (" The benchmark scope is in .table." if scope else "")
            )
        if len(self.dropped):
            notes.append(f"{len(self.dropped)} task(s) run by one system only: see .dropped.")
        return View("Comparison on matched tasks (paired)", frame, tuple(notes))

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())


def _values(n: NDArray[np.float64], c: NDArray[np.float64], ks: list[int]) -> NDArray[np.float64]:
    """Per-task columns [mean, pass@k for ks..., pass^k for ks...] (needs n ≥ max k)."""
    cols = [c / n]
    cols += [1.0 - subset_ratio(n - c, n, kv) for kv in ks]
    cols += [subset_ratio(c, n, kv) for kv in ks]
    return np.column_stack(cols)


def paired_difference(
    n_a: ArrayLike,
    c_a: ArrayLike,
    n_b: ArrayLike,
    c_b: ArrayLike,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    method: str = "bca",
) -> pd.DataFrame:
    """Paired difference B − A on matched tasks given as arrays (the core of :func:`compare`).

    Parameters
    ----------
    n_a, c_a, n_b, c_b : array_like
        Decided runs and successes of systems A and B on the same tasks, in
        the same order; every n ≥ max k.
    k, ci, n_boot, seed, method
        As in :func:`compare`.

    Returns
    -------
    pandas.DataFrame
        One row per (k, metric, scope): base_value, cand_value, difference,
        lower, upper, p_value, tasks, method, p_method.

    Examples
    --------
    >>> from passhat.compare import paired_difference
    >>> r = paired_difference([5, 5, 5], [1, 2, 3], [5, 5, 5], [1, 2, 3], n_boot=200, seed=0)
    >>> r[["scope", "difference", "p_value"]].values.tolist()[:2]
    [['benchmark', 0.0, 1.0], ['population', 0.0, 1.0]]
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "method")
    ks = norm_k(k)
    rng = make_rng(seed)
    na, ca = np.asarray(n_a, dtype=float), np.asarray(c_a, dtype=float)
    nc, cc = np.asarray(n_b, dtype=float), np.asarray(c_b, dtype=float)
    if not (na.shape == ca.shape == nc.shape == cc.shape) or na.ndim != 1 or na.size == 0:
        raise ValidationError("paired counts must be four 1-d arrays of one non-zero length")
    if min(na.min(), nc.min()) < max(ks):
        raise ShortTaskError(
            f"k = {max(ks)} exceeds the smallest n = {int(min(na.min(), nc.min()))} "
            "among the compared tasks"
        )
    z = float(stats.norm.isf((1 - level) / 2))
    cols = [("mean", ks[0])] + [(m, kv) for m in ("pass_at_k", "pass_hat_k") for kv in ks]
    va, vc = _values(na, ca, ks), _values(nc, cc, ks)
    d = vc - va
    t_n = d.shape[0]
    theta = d.mean(axis=0)
    cats = compress(np.column_stack([na, ca, nc, cc]), d, np.ones(t_n))
    draws = draw_stats(cats, n_boot=nb, rng=rng)
    lo, hi, labels = interval_from_draws(theta, draws, cats, ci=level, method=meth)
    flips = sign_flip_draws(cats, n_boot=nb, rng=rng)  # after the draws: one seeded stream
    p_perm = (1.0 + (np.abs(flips) >= np.abs(theta) - 1e-12).sum(axis=0)) / (1.0 + nb)
    rows: list[dict[str, Any]] = []
    for j, (m, kv) in enumerate(cols):
        se_a, _ = benchmark_se(na, ca, k=kv, metric=m)
        se_c, _ = benchmark_se(nc, cc, k=kv, metric=m)
        se = float(np.sqrt(se_a**2 + se_c**2))
        if se > 0:
            p_norm = float(2 * stats.norm.sf(abs(theta[j]) / se))
        else:
            p_norm = 1.0 if theta[j] == 0 else 0.0
        scopes = (
            (
                "benchmark",
                (max(-1.0, theta[j] - z * se), min(1.0, theta[j] + z * se), p_norm),
                "normal, unbiased per-task variances (independent runs)",
                "normal approximation",
            ),
            (
                "population",
                (float(lo[j]), float(hi[j]), float(p_perm[j])),
                f"paired task bootstrap {labels[j]}, {nb} resamples",
                f"sign-flip permutation, {nb} flips",
            ),
        )
        for kv_row in ks if m == "mean" else [kv]:
            for scope, (lw, up, pv), mlabel, plabel in scopes:
                rows.append(
                    {
                        "k": kv_row,
                        "metric": m,
                        "scope": scope,
                        "base_value": float(va[:, j].mean()),
                        "cand_value": float(vc[:, j].mean()),
                        "difference": float(theta[j]),
                        "lower": float(lw),
                        "upper": float(up),
                        "p_value": float(pv),
                        "tasks": t_n,
                        "method": mlabel,
                        "p_method": plabel,
                    }
                )
    return pd.DataFrame(rows)


def compare(
    a: Trials | xr.Dataset,
    b: Trials | xr.Dataset | None = None,
    *,
    k: int | Sequence[int] = 1,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    method: Literal["bca", "percentile"] = "bca",
    names: tuple[str, str] | None = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
) -> Comparison:
    """Paired comparison of systems on matched tasks: difference, interval, p-value.

    Only tasks run by both systems are compared (equal weight per task).
    Per task the difference of the unbiased estimates d_i = U_i(cand) −
    U_i(base) is formed for mean, pass@k and pass^k; the benchmark value is
    the mean of d_i.

    * ``population`` scope: paired task bootstrap — each resample draws the
      same tasks for both systems (multinomial over distinct
      (n_A, c_A, n_B, c_B) categories); percentile or BCa. p-value: sign-flip
      permutation test (each task's d_i flips sign at random; n_boot flips;
      ``p = (1 + #{|T*| ≥ |T|}) / (1 + n_boot)``). Exact under "the two systems
      are exchangeable within each task" when n_A = n_B.
    * ``benchmark`` scope: difference ± z·SE with SE² = Σ (V̂_A,i + V̂_B,i)/T²
      (runs of the two systems are independent); p-value from the normal
      approximation.

    Parameters
    ----------
    a, b : Trials or count table
        Baseline and candidate (one system each), or ``a`` alone holding
        several systems, with ``baseline`` naming the one the others are
        compared to (with exactly two systems the first is the baseline).
        The rule is :func:`passhat.compare.select_systems`'.
    k : int or sequence of int
    ci, n_boot, seed, method
        Level, resamples (≥ 100; default 10,000 as every entry point), seed
        (default 0, fixed; None draws one, recorded in ``settings``), "bca" or
        "percentile".
    intersect : bool
        Drop tasks that only one system ran (and report how many) instead of
        raising an error that lists them.
    baseline : str, optional
        The baseline (with two inputs, a system of ``a``).
    names : (str, str), optional
        Labels for ``a`` and ``b`` when both are given.
    on_short, min_runs, unscored_tasks
        As in :func:`passhat.estimate`, applied to matched tasks: a task left
        out for either system is left out of the pair (listed in ``dropped``
        with the reason), so both systems are compared on the same tasks.

    Returns
    -------
    Comparison
        ``discordant`` gives, at k = 1, the McNemar-style task counts:
        ``only_base`` / ``only_cand`` (tasks where one system succeeded in at
        least one run and the other in none), ``base_better`` /
        ``cand_better`` / ``ties`` (by per-task success rate), and for
        single-run data the exact McNemar p-value of the discordant tasks.

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.
    .. [2] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. *Psychometrika*, 12(2), 153–157.

    Examples
    --------
    >>> import passhat as ph
    >>> cmp = ph.compare(ph.load_example("agents"), k=1, seed=0, n_boot=1000, intersect=True)
    >>> cmp.table[["candidate", "metric", "scope"]].iloc[0].tolist()
    ['guided', 'mean', 'benchmark']
    """
    level = check_ci(ci)
    nb = check_n_boot(n_boot)
    meth = check_method(method, CI_METHODS, "method")
    check_method(on_short, ("error", "exclude"), "on_short")
    ks = norm_k(k)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ds, base, cands = sel.counts, sel.baseline, sel.candidates
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    systems = [str(s) for s in ds["system"].values]
    present = np.asarray(ds["present"].values, dtype=bool)
    n_all = np.asarray(ds["n"].values, dtype=float)
    c_all = np.asarray(ds["c"].values, dtype=float)
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    ib = systems.index(base)
    rows: list[dict[str, Any]] = []
    disc_rows: list[dict[str, Any]] = []
    dropped_rows: list[dict[str, Any]] = []
    for cand in cands:
        ic = systems.index(cand)
        both = present[ib] & present[ic]
        if not both.any():
            raise ValidationError(f"systems {base!r} and {cand!r} have no task in common")
        unmatched = (present[ib] | present[ic]) & ~both
        if unmatched.any() and not intersect:
            lst = [
                f"{t} (only {base if present[ib, i] else cand})"
                for i, t in zip(np.flatnonzero(unmatched), tasks[unmatched], strict=True)
            ]
            more = f" and {len(lst) - 8} more" if len(lst) > 8 else ""
            raise ValidationError(
                f"{len(lst)} task(s) not run by both {base!r} and {cand!r}: "
                f"{', '.join(lst[:8])}{more}; pass intersect=True / --intersect to compare "
                "the common tasks only"
            )
        for i in np.flatnonzero(unmatched):
            only = base if present[ib, i] else cand
            dropped_rows.append(
                {
                    "baseline": base,
                    "candidate": cand,
                    "task": tasks[i],
                    "only": only,
                    "reason": f"only {only} ran it",
                }
            )
        both, rule_rows = _matched_exclusions(
            ds.isel(system=[ib, ic]).assign(
                present=ds["present"].isel(system=[ib, ic]) & both[None, :]
            ),
            # on_short="error": short tasks are refused below, naming the smallest n
            max(ks) if on_short == "exclude" else 1,
            on_short=on_short,
            min_runs=min_runs,
            unscored_tasks=unscored_tasks,
        )
        dropped_rows.extend({"baseline": base, "candidate": cand, **r} for r in rule_rows)
        if not both.any():
            why = f" (e.g. {rule_rows[0]['task']}: {rule_rows[0]['reason']})" if rule_rows else ""
            raise ValidationError(
                f"systems {base!r} and {cand!r} have no task in common left after exclusions{why}"
            )
        na, ca = n_all[ib, both], c_all[ib, both]
        nc, cc = n_all[ic, both], c_all[ic, both]
        kmax = max(ks)
        short = (na < kmax) | (nc < kmax)
        if short.any():
            bad = tasks[both][short]
            nmin = int(min(na.min(), nc.min()))
            raise ShortTaskError(
                f"k = {kmax} exceeds the smallest n = {nmin} among the compared tasks "
                f"({len(bad)} task(s), e.g. {', '.join(bad[:5])}); lower k or run more trials"
            )
        part = paired_difference(na, ca, nc, cc, k=ks, ci=level, n_boot=nb, seed=rng, method=meth)
        t_n = int(both.sum())
        part.insert(0, "candidate", cand)
        part.insert(0, "baseline", base)
        rows.extend(part.to_dict(orient="records"))
        rate_a, rate_c = ca / np.maximum(na, 1), cc / np.maximum(nc, 1)
        only_b = int(((ca > 0) & (cc == 0)).sum())
        only_c = int(((cc > 0) & (ca == 0)).sum())
        single = bool(np.all(na == 1) and np.all(nc == 1))
        mcn = (
            float(stats.binomtest(only_c, only_b + only_c, 0.5).pvalue)
            if single and only_b + only_c > 0
            else float("nan")
        )
        disc_rows.append(
            {
                "baseline": base,
                "candidate": cand,
                "tasks": t_n,
                "only_base": only_b,
                "only_cand": only_c,
                "base_better": int((rate_a > rate_c).sum()),
                "cand_better": int((rate_c > rate_a).sum()),
                "ties": int((rate_a == rate_c).sum()),
                "mcnemar_p": mcn,
                "dropped_tasks": int(unmatched.sum()),
            }
        )
    table = pd.DataFrame(rows)
    order = {mm: i for i, mm in enumerate(METRICS)}
    table = (
        table.assign(_m=table["metric"].map(order))
        .sort_values(["candidate", "k", "_m", "scope"], kind="stable")
        .drop(columns="_m")
        .reset_index(drop=True)
    )
    cand_order = {c: i for i, c in enumerate(cands)}
    table = table.sort_values(
        "candidate", key=lambda s: s.map(cand_order), kind="stable"
    ).reset_index(drop=True)
    settings = {
        "k": ks,
        "ci": level,
        "n_boot": nb,
        "seed": seed,
        "method": meth,
        "intersect": intersect,
        "baseline": base,
        "on_short": on_short,
        "min_runs": min_runs,
        "unscored_tasks": unscored_tasks,
    }
    return Comparison(
        table=table,
        discordant=pd.DataFrame(disc_rows),
        dropped=pd.DataFrame(
            dropped_rows, columns=["baseline", "candidate", "task", "only", "reason"]
        ),
        settings=settings,
    )


def _matched_exclusions(
    pair: xr.Dataset,
    kmax: int,
    *,
    on_short: str,
    min_runs: int | None,
    unscored_tasks: str,
) -> tuple[NDArray[np.bool_], list[dict[str, Any]]]:
    """The tasks of a pair left after :func:`passhat.estimate`'s exclusion rules, matched.

    ``pair`` holds the two systems, ``present`` only on the tasks both ran.
    Returns the mask of tasks kept and one row per task left out, whose reason
    names the system it was left out for (:func:`passhat.estimate.exclusions`).
    """
    include, excluded = exclusions(
        pair,
        kmax,
        on_short=on_short,
        min_runs=min_runs,
        unscored_tasks=unscored_tasks,
        matched=True,
    )
    keep: NDArray[np.bool_] = np.asarray(include.all(axis=0), dtype=bool)
    own = excluded[~excluded["reason"].str.startswith("matched tasks")]
    rows = [
        {
            "task": str(task),
            "only": None,
            "reason": "; ".join(f"{s}: {r}" for s, r in zip(g["system"], g["reason"], strict=True)),
        }
        for task, g in own.groupby("task", sort=False)
    ]
    return keep, rows
