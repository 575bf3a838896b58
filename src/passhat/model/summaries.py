"""Posterior tables of a fit: metric summary with its variance split, task posteriors, PPC.

Pure functions of posterior draws (numpy / xarray in, pandas out) behind the
table methods of :class:`passhat.Fit` (:meth:`~passhat.Fit.summary`,
:meth:`~passhat.Fit.task_posterior`, :meth:`~passhat.Fit.ppc`), which pick
the draws, the seeds and the systems and call them:

* :func:`summary_table`: mean, sd and equal-tailed interval per system,
  metric, k and scope, with the variance split of the population-scope rows
  (:func:`passhat.model.split.variance_split`: the share of the posterior
  variance that more runs on these tasks would remove, by the law of total
  variance);
* :func:`task_posterior_frames`: each task's p_i and p_i^k given the data
  (Beta(a + c_i, b + n_i − c_i) per draw of the hyperparameters);
* :func:`ppc_rows`: a posterior predictive check of the histogram of c/n.

What a fit shows is :mod:`passhat.model.fit_summary`; its words, :mod:`passhat.model.text`
(:func:`mean_outside_note` and :func:`method_label` are also importable from here).

References
----------
.. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A.
   and Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press.
   Ch. 5 (the Beta-Binomial hierarchy; p_i's conditional posterior) and
   ch. 6 (posterior predictive checking).

Examples
--------
>>> from passhat.model.summaries import SCOPES, SUMMARY_METRICS
>>> SCOPES, SUMMARY_METRICS
(('population', 'benchmark'), ('mean', 'pass_at_k', 'pass_hat_k'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat.model.build import compress, pair_loglik
from passhat.model.metrics import (
    Groups,
    _cond_moments,
    draw_rates,
    mixed_moments,
    mixture_parts,
    node_part,
)
from passhat.model.text import mean_outside_note, method_label

__all__ = [
    "SCOPES",
    "SUMMARY_METRICS",
    "TASK_POSTERIOR_COLUMNS",
    "loglik_array",
    "mean_outside_note",
    "method_label",
    "ppc_rows",
    "summary_table",
    "task_posterior_frames",
]

#: The two scopes of every metric: a new task (population) or these tasks (benchmark).
SCOPES = ("population", "benchmark")
#: The metrics of :func:`summary_table` (plus one ``icc`` row per system).
SUMMARY_METRICS = ("mean", "pass_at_k", "pass_hat_k")
#: The columns of :meth:`passhat.Fit.task_posterior` (also when it has no row).
TASK_POSTERIOR_COLUMNS = (
    "system",
    "task",
    "n",
    "c",
    "k",
    "p_mean",
    "p_lower",
    "p_upper",
    "p_k_mean",
    "p_k_lower",
    "p_k_upper",
    "ci",
)


def summary_table(
    draws: Mapping[tuple[str, str], xr.DataArray],
    icc: xr.DataArray,
    *,
    systems: Sequence[str],
    ks: Sequence[int],
    ci: float,
    method: str,
    status: Mapping[str, str],
    splits: Mapping[str, Mapping[tuple[str, int], Mapping[str, float]]] | None = None,
) -> pd.DataFrame:
    """The table of :meth:`passhat.Fit.summary` from the metrics' posterior draws.

    Parameters
    ----------
    draws : mapping (metric, scope) → DataArray
        Draws over (chain, draw, system[, k]) of every metric of
        :data:`SUMMARY_METRICS` in both scopes of :data:`SCOPES` (those with a
        k hold every k of ``ks``).
    icc : DataArray
        Draws of the ICC over (chain, draw, system).
    systems : list of str
        The systems, in the order of the ``system`` dimension.
    ks : list of int
    ci : float
        Level of the equal-tailed intervals.
    method : str
        The method label of every row.
    status : mapping system → str
        Each system's diagnostics status (``"ok"`` or ``"FAILED: ..."``).
    splits : mapping system → (metric, k) → mapping, optional
        Each population row's ``within_task_share`` (from
        :func:`passhat.model.split.variance_split`; k = 1 for the mean).
        Without it the population rows' shares are NaN.

    Returns
    -------
    pandas.DataFrame
        system, metric, k, scope, mean, sd, lower, upper, ci,
        within_task_share, task_sampling_share, method, diagnostics. Benchmark
        rows have shares 1 and 0: the benchmark value is a function of these
        tasks' rates, which unlimited runs would reveal.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from passhat.model.summaries import summary_table
    >>> x = xr.DataArray(np.linspace(0, 1, 8).reshape(2, 4, 1), dims=("chain", "draw", "system"))
    >>> d_metrics = ("mean", "pass_at_k", "pass_hat_k")
    >>> d = {(m, s): x for m in d_metrics
    ...      for s in ("population", "benchmark")}
    >>> sp = {"A": {(m, 1): {"within_task_share": 0.25} for m in d_metrics}}
    >>> t = summary_table(d, x, systems=["A"], ks=[1], ci=0.9, method="m", status={"A": "ok"},
    ...                   splits=sp)
    >>> t.loc[t["scope"] == "population", "task_sampling_share"].tolist()[:3]
    [0.75, 0.75, 0.75]
    """
    lo_q, hi_q = (1 - ci) / 2, 1 - (1 - ci) / 2
    rows = []
    for si, s in enumerate(systems):
        for kk in ks:
            for m in SUMMARY_METRICS:
                vals = {}
                for scope in SCOPES:
                    da = draws[(m, scope)].isel(system=si)
                    if "k" in da.dims:
                        da = da.sel(k=kk)
                    vals[scope] = np.asarray(da.values, dtype=float).ravel()
                key = (m, 1 if m == "mean" else int(kk))
                split = (splits or {}).get(s, {}).get(key)
                within = float(split["within_task_share"]) if split is not None else np.nan
                for scope in SCOPES:
                    v = vals[scope]
                    rows.append(
                        {
                            "system": s,
                            "metric": m,
                            "k": kk,
                            "scope": scope,
                            "mean": float(v.mean()),
                            "sd": float(v.std()),
                            "lower": float(np.quantile(v, lo_q)),
                            "upper": float(np.quantile(v, hi_q)),
                            "ci": ci,
                            "within_task_share": 1.0 if scope == "benchmark" else within,
                            "task_sampling_share": 0.0 if scope == "benchmark" else 1.0 - within,
                            "method": method,
                            "diagnostics": status[s],
                        }
                    )
        v = np.asarray(icc.isel(system=si).values, dtype=float).ravel()
        rows.append(
            {
                "system": s,
                "metric": "icc",
                "k": pd.NA,
                "scope": "population",
                "mean": float(v.mean()),
                "sd": float(v.std()),
                "lower": float(np.quantile(v, lo_q)),
                "upper": float(np.quantile(v, hi_q)),
                "ci": ci,
                "within_task_share": np.nan,
                "task_sampling_share": np.nan,
                "method": method,
                "diagnostics": status[s],
            }
        )
    out = pd.DataFrame(rows)
    out["k"] = out["k"].astype("Int64")
    return out


def task_posterior_frames(
    system: str,
    tasks: NDArray[Any],
    n: NDArray[Any],
    c: NDArray[Any],
    hyper: Mapping[str, NDArray[np.float64]],
    *,
    ks: Sequence[int],
    ci: float,
    rng: np.random.Generator,
) -> list[pd.DataFrame]:
    """One system's rows of :meth:`passhat.Fit.task_posterior`, one frame per k.

    Given the hyperparameters, p_i ~ Beta(a + c_i, b + n_i − c_i) (a mixture
    with point masses at 1 and 0 in the inflated model); the mean of p_i^k
    is exact per draw, the interval comes from one p_i draw per posterior
    draw (p ↦ p^k is monotone, so the interval of p_i^k is the interval of
    p_i raised to k). Tasks with the same (n, c) share their posterior.

    Parameters
    ----------
    system : str
    tasks : ndarray
        Labels of the tasks the system ran.
    n, c : ndarray
        Their decided runs and successes.
    hyper : mapping
        Draws ``a``, ``b`` (and ``pi_pass``, ``pi_fail``), each of shape (draws,).
    ks : list of int
    ci : float
    rng : numpy.random.Generator
        For the p_i draws of the intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.summaries import task_posterior_frames
    >>> h = {"a": np.full(4000, 2.0), "b": np.full(4000, 2.0)}
    >>> [f] = task_posterior_frames("A", np.array(["t1"]), np.array([4]), np.array([4]), h,
    ...                             ks=[1], ci=0.9, rng=np.random.default_rng(0))
    >>> float(f["p_mean"].iloc[0])   # Beta(6, 2): mean 6/8
    0.75
    """
    comp = compress(n, c)
    groups = Groups(
        n=comp.n.astype(float),
        c=comp.c.astype(float),
        weight=np.ones(len(comp)),
        mult=np.ones(len(comp), dtype=np.int64),
    )
    a, b = hyper["a"], hyper["b"]
    mw = mixture_parts(groups, a, b, hyper.get("pi_pass"), hyper.get("pi_fail"), node_part(hyper))
    pdraw = draw_rates(groups, np.arange(len(comp)), a, b, mw, rng)
    if mw is None:
        rng.random(pdraw.shape)  # the stream as when every model drew its point masses
    lo = np.quantile(pdraw, (1 - ci) / 2, axis=0)
    hi = np.quantile(pdraw, 1 - (1 - ci) / 2, axis=0)
    a1 = a[:, None] + groups.c[None, :]
    b1 = b[:, None] + (groups.n - groups.c)[None, :]
    req = [("mean", 1)] + [("pass_hat_k", kk) for kk in ks]
    exp = {}
    for m, kk in req:
        e1, _ = _cond_moments(m, float(kk), a1, b1)
        e1, _ = mixed_moments(mw, e1, e1, m, float(kk))
        exp[(m, kk)] = e1.mean(axis=0)
    inv = comp.inverse
    return [
        pd.DataFrame(
            {
                "system": system,
                "task": tasks,
                "n": n.astype(int),
                "c": c.astype(int),
                "k": kk,
                "p_mean": exp[("mean", 1)][inv],
                "p_lower": lo[inv],
                "p_upper": hi[inv],
                "p_k_mean": exp[("pass_hat_k", kk)][inv],
                "p_k_lower": lo[inv] ** kk,
                "p_k_upper": hi[inv] ** kk,
                "ci": ci,
            }
        )
        for kk in ks
    ]


def ppc_rows(
    system: str,
    n: NDArray[Any],
    c: NDArray[Any],
    hyper: Mapping[str, NDArray[np.float64]],
    *,
    ci: float,
    max_draws: int,
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    """One system's rows of :meth:`passhat.Fit.ppc`: the histogram of c/n, observed and replicated.

    For each of at most ``max_draws`` posterior draws (evenly spaced), a
    replicate benchmark is simulated: every task keeps its n and gets a new
    p from the fitted task distribution, then c ~ Binomial(n, p). Tasks
    sharing n are simulated together by a multinomial draw over the exact
    Beta-Binomial pmf, so the cost does not grow with the number of tasks.
    Bins: the values c = 0..n when every task has the same n; otherwise
    exactly 0, ten bins over (0, 1) and exactly 1.

    Parameters
    ----------
    system : str
    n, c : ndarray of int
        Decided runs and successes of the tasks the system ran.
    hyper : mapping
        Draws ``a``, ``b`` (and ``pi_pass``, ``pi_fail``), each of shape (draws,).
    ci : float
        Level of the replicate histogram's equal-tailed interval per bin.
    max_draws : int
    rng : numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.summaries import ppc_rows
    >>> h = {"a": np.full(200, 1.0), "b": np.full(200, 1.0)}
    >>> rows = ppc_rows("A", np.array([2, 2, 2]), np.array([0, 1, 2]), h, ci=0.9,
    ...                 max_draws=100, rng=np.random.default_rng(0))
    >>> [r["label"] for r in rows], [r["observed"] for r in rows]
    (['0/2', '1/2', '2/2'], [1, 1, 1])
    """
    n = n.astype(int)
    c = c.astype(int)
    total = len(hyper["a"])
    sel = np.unique(np.linspace(0, total - 1, min(max_draws, total)).astype(int))
    nvals, nmult = np.unique(n, return_counts=True)
    same_n = len(nvals) == 1
    n_bins = int(nvals[0]) + 1 if same_n else 12
    if same_n:
        labels = [f"{j}/{int(nvals[0])}" for j in range(n_bins)]
    else:
        labels = ["0"] + [f"({j / 10:.1f}, {(j + 1) / 10:.1f}]" for j in range(9)]
        labels += ["(0.9, 1)", "1"]
        labels[1] = "(0, 0.1]"

    def bin_of(cc: NDArray[Any], nn: NDArray[Any], same: bool = same_n) -> NDArray[Any]:
        if same:
            return cc
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.where(nn > 0, cc / np.maximum(nn, 1), np.nan)
        idx = np.ceil(x * 10.0).astype(float)
        idx = np.where(x >= 1.0, 11, np.where(x <= 0.0, 0, np.clip(idx, 1, 10)))
        return np.asarray(idx, dtype=int)

    keep = n > 0
    obs = np.bincount(bin_of(c[keep], n[keep]), minlength=n_bins)
    rep = np.zeros((len(sel), n_bins))
    for nv, m in zip(nvals, nmult, strict=True):
        if nv == 0:
            continue
        cr = np.arange(nv + 1)
        nodes = node_part(hyper)
        ll = pair_loglik(
            np.full(nv + 1, nv),
            cr,
            hyper["a"][sel],
            hyper["b"][sel],
            pi_pass=None if "pi_pass" not in hyper else hyper["pi_pass"][sel],
            pi_fail=None if "pi_fail" not in hyper else hyper["pi_fail"][sel],
            nodes=None if nodes is None else nodes.take(sel),
        )
        pmf = np.exp(ll)
        pmf /= pmf.sum(axis=1, keepdims=True)
        counts = rng.multinomial(int(m), pmf)
        b = bin_of(cr, np.full(nv + 1, nv))
        np.add.at(rep.T, b, counts.T)
    return [
        {
            "system": system,
            "bin": j,
            "label": labels[j],
            "observed": int(obs[j]),
            "expected": float(rep[:, j].mean()),
            "lower": float(np.quantile(rep[:, j], (1 - ci) / 2)),
            "upper": float(np.quantile(rep[:, j], 1 - (1 - ci) / 2)),
            "ci": ci,
            "tasks": int(keep.sum()),
        }
        for j in range(n_bins)
    ]


def loglik_array(
    per_system: Sequence[tuple[NDArray[Any], NDArray[Any], NDArray[Any], Mapping[str, Any]]],
    posterior: xr.Dataset,
    tasks: NDArray[Any],
) -> xr.DataArray:
    """The pointwise log-likelihood of :meth:`passhat.Fit.log_likelihood`.

    ``per_system``: each system's (n, c, present, hyper) in the order of the
    ``system`` dimension of ``posterior``. Computed once per distinct (n, c)
    pair and expanded to tasks; tasks a system did not run hold NaN.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from passhat.model.summaries import loglik_array
    >>> post = xr.Dataset(coords={"chain": [0], "draw": [0], "system": ["A"]})
    >>> h = {"a": np.ones(1), "b": np.ones(1)}
    >>> ll = loglik_array([(np.array([2]), np.array([1]), np.array([True, False]), h)], post,
    ...                   np.array(["t1", "t2"]))
    >>> np.exp(ll.values).round(4).ravel().tolist()   # uniform p: c of 2 runs is 1/3 each
    [0.3333, nan]
    """
    chains, draws = int(posterior.sizes["chain"]), int(posterior.sizes["draw"])
    out = np.full((chains, draws, len(per_system), len(tasks)), np.nan)
    for si, (n, c, present, h) in enumerate(per_system):
        comp = compress(n, c)
        ll = pair_loglik(
            comp.n,
            comp.c,
            h["a"],
            h["b"],
            pi_pass=h.get("pi_pass"),
            pi_fail=h.get("pi_fail"),
            nodes=node_part(h),
        )
        out[:, :, si, present] = ll[:, comp.inverse].reshape(chains, draws, -1)
    return xr.DataArray(
        out,
        dims=("chain", "draw", "system", "task"),
        coords={
            "chain": posterior["chain"].values,
            "draw": posterior["draw"].values,
            "system": posterior["system"].values,
            "task": tasks,
        },
        name="c",
    )
