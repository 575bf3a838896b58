"""Fit the hierarchical model and read posterior metrics from it.

Examples
--------
>>> import passhat as ph
>>> fit = ph.fit(ph.load_example("abcd"), k=[1, 2], method="grid", seed=0,
...              chains=2, draws=500)
>>> s = fit.summary(k=[2])
>>> sorted(set(s["scope"]))
['benchmark', 'population']
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import check_ci, norm_k
from passhat.errors import ModelError, OptionError
from passhat.estimators import as_counts, task_weights
from passhat.model.build import (
    Compressed,
    Priors,
    build_model,
    check_model,
    compress,
    model_data,
    pair_loglik,
)
from passhat.model.diagnostics import Diagnostics, compute_diagnostics, import_arviz
from passhat.model.grid import grid_posterior
from passhat.model.metrics import (
    Groups,
    benchmark_draws,
    benchmark_expected,
    population_metrics,
)
from passhat.trials import Trials

__all__ = ["Fit", "compare_models", "fit", "load_fit"]

METHODS = ("nuts", "grid")
SAMPLERS = ("auto", "nutpie", "pymc")
SCOPES = ("population", "benchmark")
K_METRICS = ("pass_at_k", "pass_hat_k")
SUMMARY_METRICS = ("mean", "pass_at_k", "pass_hat_k")
_BENCH_SALT = 104729
_LOO_MAX_ELEMENTS = 50_000_000

_NUTPIE_CACHE: dict[tuple[str, str], Any] = {}


# ------------------------------------------------------------------ helpers
def _method_label(model: str, method: str, sampler: str) -> str:
    m = "Beta-Binomial" if model == "beta" else "zero/one-inflated Beta-Binomial"
    how = "grid quadrature" if method == "grid" else f"NUTS ({sampler})"
    return f"posterior, {m}, {how}"


@contextmanager
def _quiet_pymc(quiet: bool) -> Any:
    logger = logging.getLogger("pymc")
    old = logger.level
    if quiet:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(old)


def _sub_seed(seed: int, *keys: int) -> int:
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def _resolve_sampler(sampler: str) -> str:
    if sampler not in SAMPLERS:
        raise OptionError(f"sampler must be one of {', '.join(SAMPLERS)} (got {sampler!r})")
    if sampler == "pymc":
        return "pymc"
    try:
        import nutpie  # noqa: F401
    except ImportError as err:
        if sampler == "nutpie":
            from passhat.errors import DependencyError

            raise DependencyError(
                "sampler='nutpie' needs nutpie: pip install 'passhat[fast]'"
            ) from err
        return "pymc"
    return "nutpie"


def _sample_nutpie(
    model: str,
    priors: Priors,
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    w: NDArray[np.int64],
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    import nutpie

    key = (model, priors.to_json())
    if key not in _NUTPIE_CACHE:
        with _quiet_pymc(True):
            pm_model = build_model(n, c, w, model=model, priors=priors)
            _NUTPIE_CACHE[key] = nutpie.compile_pymc_model(pm_model)
    compiled = _NUTPIE_CACHE[key].with_data(**model_data(n, c, w, model=model))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = nutpie.sample(
            compiled,
            chains=chains,
            draws=draws,
            tune=tune,
            seed=seed,
            progress_bar=progress,
            save_warmup=False,
            target_accept=target_accept,
            cores=min(chains, os.cpu_count() or 1),
        )
    return _extract(tr, model)


def _sample_pymc(
    model: str,
    priors: Priors,
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    w: NDArray[np.int64],
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    import pymc as pm

    with _quiet_pymc(not progress):
        pm_model = build_model(n, c, w, model=model, priors=priors)
        with pm_model:
            tr = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=1,
                random_seed=seed,
                progressbar=progress,
                compute_convergence_checks=False,
                target_accept=target_accept,
                return_inferencedata=True,
            )
    return _extract(tr, model)


def _extract(tr: Any, model: str) -> dict[str, NDArray[Any]]:
    post = tr.posterior
    out = {
        "mu": np.asarray(post["mu"].values, dtype=float),
        "kappa": np.asarray(post["kappa"].values, dtype=float),
        "diverging": np.asarray(tr.sample_stats["diverging"].values, dtype=bool),
    }
    if model == "inflated":
        out["pi_pass"] = np.asarray(post["pi_pass"].values, dtype=float)
        out["pi_fail"] = np.asarray(post["pi_fail"].values, dtype=float)
    return out


def _jsonable_attr(v: Any) -> Any:
    return json.dumps(v) if isinstance(v, list | dict | tuple) else v


def _str_labels(values: Any) -> Any:
    """Task labels (or per-task coordinate values) as strings.

    Labels that already are all ``str`` are passed on as they are: a pandas
    index is reused by xarray as is, so a 10^6-task fit does not copy the labels
    into a new string array nor build a new index (~0.25 s); other labels
    (numbers, ...) are converted with ``astype(str)``.
    """
    if isinstance(values, pd.Index):
        if pd.api.types.is_string_dtype(values.dtype) and (
            values.dtype != object or pd.api.types.infer_dtype(values, skipna=False) == "string"
        ):
            return values
        return np.asarray(values).astype(str)
    arr = np.asarray(values)
    if arr.dtype.kind == "U" or (
        arr.dtype == object and pd.api.types.infer_dtype(arr, skipna=False) == "string"
    ):
        return arr
    return arr.astype(str)


# --------------------------------------------------------------------- Fit
class Fit:
    """A fitted hierarchical model (one independent fit per system).

    Build with :func:`fit` or :func:`load_fit`.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior``: ``mu``, ``kappa`` (and ``pi_pass``, ``pi_fail`` for
        the inflated model) over (chain, draw, system), plus the derived
        ``icc`` and ``{mean,pass_at_k,pass_hat_k}_{population,benchmark}``
        (the last two with a ``k`` dim) for the k given to :func:`fit`.
        ``sample_stats``: ``diverging``. ``constant_data``: ``n``, ``c``,
        normalised ``weight`` and ``present`` over (system, task).
        ``attrs``: model, method, sampler, seed, priors, k.
    """

    def __init__(self, idata: Any) -> None:
        self.idata = idata
        self._group_cache: dict[int, Groups] = {}
        self._ppc_cache: dict[tuple[float, int], pd.DataFrame] = {}
        attrs = idata.posterior.attrs
        try:
            self.model: str = str(attrs["passhat_model"])
            self.method: str = str(attrs["passhat_method"])
            self.sampler: str = str(attrs["passhat_sampler"])
            self.seed: int = int(attrs["passhat_seed"])
            self.priors = Priors.from_json(str(attrs["passhat_priors"]))
            self.k: list[int] = [int(x) for x in json.loads(str(attrs["passhat_k"]))]
        except (KeyError, ValueError, TypeError) as err:
            raise ModelError(
                f"not a passhat fit: posterior attribute {err} is missing or malformed"
            ) from err

    # ------------------------------------------------------------ basics
    @property
    def systems(self) -> list[str]:
        """System names."""
        return [str(s) for s in self.idata.posterior["system"].values]

    @property
    def method_label(self) -> str:
        """Human-readable method, e.g. ``posterior, Beta-Binomial, NUTS (nutpie)``."""
        return _method_label(self.model, self.method, self.sampler)

    def __repr__(self) -> str:
        p = self.idata.posterior
        return (
            f"Fit(model={self.model!r}, method={self.method!r}, systems={self.systems}, "
            f"chains={p.sizes['chain']}, draws={p.sizes['draw']}, "
            f"diagnostics={'ok' if self.diagnostics.passed else 'FAILED'})"
        )

    def _hyper(self, si: int) -> dict[str, NDArray[np.float64]]:
        p = self.idata.posterior
        mu = p["mu"].values[..., si].ravel()
        kappa = p["kappa"].values[..., si].ravel()
        out = {"a": mu * kappa, "b": (1.0 - mu) * kappa}
        if self.model == "inflated":
            out["pi_pass"] = p["pi_pass"].values[..., si].ravel()
            out["pi_fail"] = p["pi_fail"].values[..., si].ravel()
        return out

    def _tasks(self, si: int) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        cd = self.idata.constant_data
        present = np.asarray(cd["present"].values[si], dtype=bool)
        return (
            np.asarray(cd["n"].values[si])[present],
            np.asarray(cd["c"].values[si])[present],
            np.asarray(cd["weight"].values[si])[present],
            present,
        )

    def _groups(self, si: int) -> Groups:
        """System ``si``'s tasks grouped by distinct (n, c, weight), computed once per fit."""
        if si not in self._group_cache:
            n, c, w, _ = self._tasks(si)
            self._group_cache[si] = Groups.from_tasks(n, c, w)
        return self._group_cache[si]

    def _shape(self) -> tuple[int, int]:
        p = self.idata.posterior
        return int(p.sizes["chain"]), int(p.sizes["draw"])

    # ----------------------------------------------------------- metrics
    def metric(
        self,
        name: str,
        k: int | Sequence[int] | None = None,
        *,
        scope: str = "population",
        rao_blackwell: bool = False,
    ) -> xr.DataArray:
        """Posterior draws of a metric.

        Parameters
        ----------
        name : {"pass_hat_k", "pass_at_k", "mean", "icc"}
        k : int or list of int, optional
            For pass^k and pass@k (default: the k given to :func:`fit`).
            k may exceed a task's n: the model predicts beyond the runs.
        scope : {"population", "benchmark"}
            "population": a new task from the same distribution (closed form
            per draw). "benchmark": the weighted mean over these tasks, each
            p_i drawn from its conditional posterior (seeded by the fit's
            seed: the same values every call).
        rao_blackwell : bool
            Benchmark scope only: return E[metric | hyperparameters, data]
            per draw instead of draws (same mean, less spread: it omits the
            conditional spread of the p_i and so must not be used for
            intervals).

        Returns
        -------
        xarray.DataArray
            Dims (chain, draw, system[, k]).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=1, chains=2, draws=200)
        >>> f.metric("pass_hat_k", k=[1, 5]).dims
        ('chain', 'draw', 'system', 'k')
        """
        if name not in ("mean", "pass_at_k", "pass_hat_k", "icc"):
            raise OptionError(f"unknown metric {name!r}; choose mean, pass_at_k, pass_hat_k or icc")
        if scope not in SCOPES:
            raise OptionError(f"scope must be 'population' or 'benchmark' (got {scope!r})")
        if name == "icc":
            if scope != "population":
                raise OptionError("icc is a property of the task distribution: scope='population'")
            return self.idata.posterior["icc"]
        ks = self.k if k is None else norm_k(k)
        post = self.idata.posterior
        stored = f"{name}_{scope}"
        if not rao_blackwell and stored in post:
            if name == "mean":
                return post[stored]
            if set(ks) <= {int(x) for x in post["k"].values}:
                return post[stored].sel(k=ks)
        requests = [(name, kk) for kk in ks] if name != "mean" else [("mean", 1)]
        vals = self._compute(requests, scope=scope, rao_blackwell=rao_blackwell)
        return self._as_array(name, ks, vals, scope)

    def _compute(
        self, requests: list[tuple[str, int]], *, scope: str, rao_blackwell: bool = False
    ) -> list[dict[tuple[str, int], NDArray[np.float64]]]:
        out = []
        for si in range(len(self.systems)):
            h = self._hyper(si)
            if scope == "population":
                kk = sorted({k for m, k in requests if m in K_METRICS} or {1})
                pop = population_metrics(
                    h["a"], h["b"], kk, pi_pass=h.get("pi_pass"), pi_fail=h.get("pi_fail")
                )
                res = {}
                for m, k in requests:
                    res[(m, k)] = pop[m] if m in ("mean", "icc") else pop[m][:, kk.index(k)]
                out.append(res)
                continue
            groups = self._groups(si)
            if rao_blackwell:
                out.append(
                    benchmark_expected(
                        groups,
                        h["a"],
                        h["b"],
                        requests,
                        pi_pass=h.get("pi_pass"),
                        pi_fail=h.get("pi_fail"),
                    )
                )
            else:
                rng = np.random.default_rng([self.seed, si, _BENCH_SALT])
                out.append(
                    benchmark_draws(
                        groups,
                        h["a"],
                        h["b"],
                        requests,
                        rng=rng,
                        pi_pass=h.get("pi_pass"),
                        pi_fail=h.get("pi_fail"),
                    )
                )
        return out

    def _as_array(
        self,
        name: str,
        ks: list[int],
        vals: list[dict[tuple[str, int], NDArray[np.float64]]],
        scope: str,
    ) -> xr.DataArray:
        chains, draws = self._shape()
        coords: dict[str, Any] = {
            "chain": self.idata.posterior["chain"].values,
            "draw": self.idata.posterior["draw"].values,
            "system": self.idata.posterior["system"].values,
        }
        if name in ("mean", "icc"):
            arr = np.stack([v[(name, 1)].reshape(chains, draws) for v in vals], axis=-1)
            return xr.DataArray(
                arr,
                dims=("chain", "draw", "system"),
                coords=coords,
                name=f"{name}_{scope}" if name != "icc" else "icc",
            )
        arr = np.stack(
            [np.stack([v[(name, k)].reshape(chains, draws) for k in ks], axis=-1) for v in vals],
            axis=2,
        )
        coords["k"] = np.asarray(ks, dtype=int)
        return xr.DataArray(
            arr, dims=("chain", "draw", "system", "k"), coords=coords, name=f"{name}_{scope}"
        )

    # ----------------------------------------------------------- summary
    def summary(self, k: int | Sequence[int] | None = None, *, ci: float = 0.95) -> pd.DataFrame:
        """Tidy posterior summary per system, metric, k and scope.

        Columns: system, metric, k, scope, mean, sd, lower, upper, ci,
        within_task_share, task_sampling_share, method, diagnostics.
        Intervals are equal-tailed posterior intervals. The variance split:
        the posterior variance of the benchmark-scope value is the
        within-task share (finitely many runs per task); what the
        population-scope variance adds to it is task sampling (which tasks
        happened to be in the benchmark). Benchmark rows have shares 1 and 0
        by definition; population rows carry the split (the within share is
        capped at 1). One ``icc`` row per system (population scope, no k).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
        >>> row = f.summary().query("metric == 'pass_hat_k' and scope == 'population'")
        >>> float(row["within_task_share"].iloc[0] + row["task_sampling_share"].iloc[0])
        1.0
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        lo_q, hi_q = (1 - ci) / 2, 1 - (1 - ci) / 2
        rows = []
        diag = self.diagnostics
        draws: dict[tuple[str, str], xr.DataArray] = {}
        for scope in SCOPES:
            for m in SUMMARY_METRICS:
                draws[(m, scope)] = self.metric(m, None if m == "mean" else ks, scope=scope)
        icc = self.metric("icc")
        for si, s in enumerate(self.systems):
            status = diag.status(s)
            for kk in ks:
                for m in SUMMARY_METRICS:
                    vals = {}
                    for scope in SCOPES:
                        da = draws[(m, scope)].isel(system=si)
                        if "k" in da.dims:
                            da = da.sel(k=kk)
                        vals[scope] = np.asarray(da.values, dtype=float).ravel()
                    var_b = float(np.var(vals["benchmark"]))
                    var_p = float(np.var(vals["population"]))
                    within = 1.0 if var_p <= 0 else min(1.0, var_b / var_p)
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
                                "task_sampling_share": 0.0
                                if scope == "benchmark"
                                else 1.0 - within,
                                "method": self.method_label,
                                "diagnostics": status,
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
                    "method": self.method_label,
                    "diagnostics": status,
                }
            )
        out = pd.DataFrame(rows)
        out["k"] = out["k"].astype("Int64")
        return out

    def task_posterior(
        self, k: int | Sequence[int] | None = None, *, ci: float = 0.95
    ) -> pd.DataFrame:
        """Per task: posterior mean and equal-tailed interval of p_i and of p_i^k.

        Given the hyperparameters, p_i ~ Beta(a + c_i, b + n_i − c_i) (a
        mixture with point masses in the inflated model); the mean of p_i^k is
        exact per draw, the interval comes from one p_i draw per posterior
        draw (p ↦ p^k is monotone, so the interval of p_i^k is the interval of
        p_i raised to k). Tasks with the same (n, c) share their posterior.

        Returns
        -------
        pandas.DataFrame
            system, task, n, c, k, p_mean, p_lower, p_upper, p_k_mean,
            p_k_lower, p_k_upper, ci.
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        tasks = np.asarray(self.idata.constant_data["task"].values, dtype=object)
        frames = []
        for si, s in enumerate(self.systems):
            n, c, _, present = self._tasks(si)
            if len(n) == 0:
                continue
            comp = compress(n, c)
            h = self._hyper(si)
            groups = Groups(
                n=comp.n.astype(float),
                c=comp.c.astype(float),
                weight=np.ones(len(comp)),
                mult=np.ones(len(comp), dtype=np.int64),
            )
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 1])
            from passhat.model.metrics import component_probs

            r1, r0, _ = component_probs(
                groups.n, groups.c, h["a"], h["b"], h.get("pi_pass"), h.get("pi_fail")
            )
            a1 = h["a"][:, None] + groups.c[None, :]
            b1 = h["b"][:, None] + (groups.n - groups.c)[None, :]
            pdraw = rng.beta(a1, b1)
            u = rng.random(pdraw.shape)
            pdraw = np.where(u < r1, 1.0, np.where(u < r1 + r0, 0.0, pdraw))
            lo = np.quantile(pdraw, (1 - ci) / 2, axis=0)
            hi = np.quantile(pdraw, 1 - (1 - ci) / 2, axis=0)
            req = [("mean", 1)] + [("pass_hat_k", kk) for kk in ks]
            exp = {}
            from passhat.model.metrics import _cond_moments

            for m, kk in req:
                e1, _ = _cond_moments(m, float(kk), a1, b1)
                rb = 1.0 - r1 - r0
                exp[(m, kk)] = (r1 + rb * e1).mean(axis=0)
            inv = comp.inverse
            for kk in ks:
                frames.append(
                    pd.DataFrame(
                        {
                            "system": s,
                            "task": tasks[present],
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
                )
        if not frames:
            return pd.DataFrame(
                columns=[
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
                ]
            )
        out = pd.concat(frames, ignore_index=True)
        return out.sort_values(["system", "k"], kind="stable").reset_index(drop=True)

    # ------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> Diagnostics:
        """R-hat, bulk/tail ESS and divergences, checked against thresholds."""
        variables = ["mu", "kappa"] + (["pi_pass", "pi_fail"] if self.model == "inflated" else [])
        div = self.idata.sample_stats["diverging"].values if "sample_stats" in self.idata else None
        return compute_diagnostics(
            self.idata.posterior, div, variables=variables, method=self.method
        )

    # --------------------------------------------------------------- PPC
    def ppc(self, *, ci: float = 0.9, max_draws: int = 1000) -> pd.DataFrame:
        """Posterior predictive check of the histogram of c/n over tasks.

        For each posterior draw, a replicate benchmark is simulated: every
        task keeps its n and gets a new p from the fitted task distribution,
        then c ~ Binomial(n, p). (Tasks sharing n are simulated together by a
        multinomial draw over the exact Beta-Binomial pmf, so the cost does
        not grow with the number of tasks.) The replicate histogram's mean
        and equal-tailed ``ci`` interval per bin are set against the observed
        histogram. Bins: the values c = 0..n when every task has the same n;
        otherwise exactly 0, ten bins over (0, 1) and exactly 1.

        Returns
        -------
        pandas.DataFrame
            system, bin, label, observed, expected, lower, upper, ci, tasks.
        """
        ci = check_ci(ci)
        key = (float(ci), int(max_draws))
        if key in self._ppc_cache:  # seeded, so a second call would repeat the same work
            return self._ppc_cache[key].copy()
        rows = []
        for si, s in enumerate(self.systems):
            n, c, _, _ = self._tasks(si)
            n = n.astype(int)
            c = c.astype(int)
            h = self._hyper(si)
            total = len(h["a"])
            sel = np.unique(np.linspace(0, total - 1, min(max_draws, total)).astype(int))
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 2])
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
                ll = pair_loglik(
                    np.full(nv + 1, nv),
                    cr,
                    h["a"][sel],
                    h["b"][sel],
                    pi_pass=None if "pi_pass" not in h else h["pi_pass"][sel],
                    pi_fail=None if "pi_fail" not in h else h["pi_fail"][sel],
                )
                pmf = np.exp(ll)
                pmf /= pmf.sum(axis=1, keepdims=True)
                counts = rng.multinomial(int(m), pmf)
                b = bin_of(cr, np.full(nv + 1, nv))
                np.add.at(rep.T, b, counts.T)
            for j in range(n_bins):
                rows.append(
                    {
                        "system": s,
                        "bin": j,
                        "label": labels[j],
                        "observed": int(obs[j]),
                        "expected": float(rep[:, j].mean()),
                        "lower": float(np.quantile(rep[:, j], (1 - ci) / 2)),
                        "upper": float(np.quantile(rep[:, j], 1 - (1 - ci) / 2)),
                        "ci": ci,
                        "tasks": int(keep.sum()),
                    }
                )
        table = pd.DataFrame(rows)
        self._ppc_cache[key] = table
        return table.copy()

    # --------------------------------------------------------------- LOO
    def log_likelihood(self) -> xr.DataArray:
        """Pointwise log-likelihood per task and draw (chain, draw, system, task).

        Computed once per distinct (n, c) pair and expanded to tasks; tasks a
        system did not run hold NaN. Used for PSIS-LOO.
        """
        chains, draws = self._shape()
        cd = self.idata.constant_data
        n_tasks = int(cd.sizes["task"])
        size = chains * draws * n_tasks * len(self.systems)
        if size > _LOO_MAX_ELEMENTS:
            raise ModelError(
                f"pointwise log-likelihood would hold {size:,} values (> {_LOO_MAX_ELEMENTS:,}); "
                "refit with fewer draws for LOO"
            )
        out = np.full((chains, draws, len(self.systems), n_tasks), np.nan)
        for si in range(len(self.systems)):
            n, c, _, present = self._tasks(si)
            comp = compress(n, c)
            h = self._hyper(si)
            ll = pair_loglik(
                comp.n, comp.c, h["a"], h["b"], pi_pass=h.get("pi_pass"), pi_fail=h.get("pi_fail")
            )
            out[:, :, si, present] = ll[:, comp.inverse].reshape(chains, draws, -1)
        p = self.idata.posterior
        return xr.DataArray(
            out,
            dims=("chain", "draw", "system", "task"),
            coords={
                "chain": p["chain"].values,
                "draw": p["draw"].values,
                "system": p["system"].values,
                "task": cd["task"].values,
            },
            name="c",
        )

    # ---------------------------------------------------------------- io
    def to_netcdf(self, path: str | Path) -> Path:
        """Save the InferenceData as netCDF (read back with :func:`load_fit`)."""
        p = Path(path)
        self.idata.to_netcdf(str(p))
        return p


# ------------------------------------------------------------------- fit()
def fit(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    method: str = "nuts",
    model: str = "beta",
    priors: Priors | None = None,
    weights: Any = None,
    seed: int | None = None,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    sampler: str = "auto",
    target_accept: float = 0.9,
    progress: bool | None = None,
    grid_size: int = 256,
) -> Fit:
    """Fit the hierarchical Beta-Binomial model, one independent fit per system.

    Parameters
    ----------
    data : Trials or count-table Dataset
    k : int or list of int, default (1, 2, 5)
        The k whose metrics are stored in ``idata`` (any k can be asked of
        :meth:`Fit.metric` later; k may exceed n).
    method : {"nuts", "grid"}
        NUTS sampling, or exact quadrature on (logit μ, log κ) (plain model
        only; returns independent draws in the same shape).
    model : {"beta", "inflated"}
        Plain Beta-Binomial, or with shares of always-pass / always-fail tasks.
    priors : Priors, optional
        Defaults documented in :class:`passhat.model.Priors`.
    weights : None, "declared", "category" or mapping
        Task weights for benchmark-scope metrics (as in :func:`passhat.estimate`).
    seed : int, optional
        Seeds the sampler and the benchmark-scope draws. When None a seed is
        drawn and recorded in ``idata`` so the fit can be reproduced.
    draws, tune, chains : int
        Draws kept per chain, tuning steps, chains (grid: chains × draws
        independent draws).
    sampler : {"auto", "nutpie", "pymc"}
        "auto" uses nutpie when installed, else PyMC's NUTS.
    target_accept : float
        NUTS target acceptance rate.
    progress : bool, optional
        Progress bars; default: when stderr is a terminal.
    grid_size : int
        Points per axis of the final grid.

    Returns
    -------
    Fit

    Raises
    ------
    OptionError
        Unknown method/model/sampler, grid with the inflated model, bad sizes.
    ModelError
        A system has no task with decided runs.

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=500)
    >>> f.idata.posterior["mu"].dims
    ('chain', 'draw', 'system')
    """
    if method not in METHODS:
        raise OptionError(f"method must be 'nuts' or 'grid' (got {method!r})")
    check_model(model)
    if method == "grid" and model != "beta":
        raise OptionError(
            "method='grid' evaluates the 2-parameter Beta-Binomial model only; "
            "use method='nuts' for model='inflated'"
        )
    for name, v, lo in (("draws", draws, 1), ("chains", chains, 1), ("tune", tune, 0)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < lo:
            raise OptionError(f"{name} must be a whole number ≥ {lo} (got {v!r})")
    if not 0 < target_accept < 1:
        raise OptionError(f"target_accept must lie in (0, 1) (got {target_accept})")
    ks = norm_k(k)
    pri = priors or Priors()
    ds = as_counts(data)
    w_all = np.asarray(task_weights(ds, weights).values, dtype=float)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % (2**31)  # type: ignore[arg-type]
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise OptionError(f"seed must be a whole number ≥ 0 (got {seed!r})")
    seed = int(seed)
    show = sys.stderr.isatty() if progress is None else bool(progress)
    used_sampler = "grid" if method == "grid" else _resolve_sampler(sampler)

    systems = [str(s) for s in ds["system"].values]
    n_all = np.asarray(ds["n"].values, dtype=np.int64)
    c_all = np.asarray(ds["c"].values, dtype=np.int64)
    present_all = np.asarray(ds["present"].values, dtype=bool)
    weight_norm = np.zeros_like(w_all)
    draws_by_var: dict[str, list[NDArray[Any]]] = {}
    comps: list[Compressed] = []
    for si, s in enumerate(systems):
        present = present_all[si]
        n, c = n_all[si][present], c_all[si][present]
        if len(n) == 0 or n.sum() == 0:
            raise ModelError(f"system {s!r}: no task has a decided run; nothing to fit")
        w = w_all[si][present]
        if w.sum() <= 0:
            raise ModelError(f"system {s!r}: task weights sum to zero")
        weight_norm[si, present] = w / w.sum()
        comp = compress(n, c)
        comps.append(comp)
        sub = _sub_seed(seed, si)
        if method == "grid":
            g = grid_posterior(
                comp.n,
                comp.c,
                comp.mult,
                priors=pri,
                n_draws=chains * draws,
                rng=np.random.default_rng(sub),
                size=grid_size,
            )
            res: dict[str, NDArray[Any]] = {
                "mu": g.mu.reshape(chains, draws),
                "kappa": g.kappa.reshape(chains, draws),
                "diverging": np.zeros((chains, draws), dtype=bool),
            }
        else:
            run = _sample_nutpie if used_sampler == "nutpie" else _sample_pymc
            res = run(
                model,
                pri,
                comp.n,
                comp.c,
                comp.mult,
                chains=chains,
                draws=draws,
                tune=tune,
                seed=sub,
                progress=show,
                target_accept=target_accept,
            )
        for key, val in res.items():
            draws_by_var.setdefault(key, []).append(val)

    coords = {"chain": np.arange(chains), "draw": np.arange(draws), "system": systems}
    post_vars = {
        key: (("chain", "draw", "system"), np.stack(v, axis=-1))
        for key, v in draws_by_var.items()
        if key != "diverging"
    }
    posterior = xr.Dataset(post_vars, coords=coords)
    posterior.attrs.update(
        {
            "passhat_model": model,
            "passhat_method": method,
            "passhat_sampler": used_sampler,
            "passhat_seed": seed,
            "passhat_priors": pri.to_json(),
            "passhat_k": json.dumps(ks),
            "passhat_version": _version(),
        }
    )
    sample_stats = xr.Dataset(
        {"diverging": (("chain", "draw", "system"), np.stack(draws_by_var["diverging"], -1))},
        coords=coords,
    )
    task_coords = {
        name: ("task", _str_labels(crd.values))
        for name, crd in ds.coords.items()
        if name not in ("system", "task") and crd.dims == ("task",)
    }
    constant = xr.Dataset(
        {
            "n": (("system", "task"), n_all),
            "c": (("system", "task"), c_all),
            "weight": (("system", "task"), weight_norm),
            "present": (("system", "task"), present_all.astype(np.int8)),
        },
        coords={
            "system": systems,
            "task": _str_labels(ds.indexes["task"]),
            **task_coords,
        },
    )
    constant.attrs.update({k: _jsonable_attr(v) for k, v in ds.attrs.items()})
    az = import_arviz()
    idata = az.InferenceData(posterior=posterior, sample_stats=sample_stats, constant_data=constant)
    result = Fit(idata)
    for si, comp in enumerate(comps):  # the benchmark-scope groups, from the pairs just made
        present = present_all[si]
        result._group_cache[si] = Groups.from_tasks(
            n_all[si][present], c_all[si][present], weight_norm[si][present], comp=comp
        )
    _store_metrics(result, ks)
    return result


def _version() -> str:
    from passhat._version import __version__

    return str(__version__)


def _store_metrics(result: Fit, ks: list[int]) -> None:
    post = result.idata.posterior
    new: dict[str, xr.DataArray] = {
        "icc": result._as_array(
            "icc", ks, result._compute([("icc", 1)], scope="population"), "population"
        )
    }
    for scope in SCOPES:
        requests = [("mean", 1)] + [(m, k) for m in K_METRICS for k in ks]
        vals = result._compute(requests, scope=scope)
        new[f"mean_{scope}"] = result._as_array("mean", ks, vals, scope)
        for m in K_METRICS:
            new[f"{m}_{scope}"] = result._as_array(m, ks, vals, scope)
    attrs = dict(post.attrs)
    merged = post.assign(new)
    merged.attrs = attrs
    result.idata.posterior = merged


def load_fit(path: str | Path) -> Fit:
    """Load a fit saved with :meth:`Fit.to_netcdf`.

    Raises
    ------
    ModelError
        The file is missing or is not a passhat fit.
    """
    p = Path(path)
    if not p.exists():
        raise ModelError(f"{p}: no such file")
    az = import_arviz()
    try:
        idata = az.from_netcdf(str(p))
    except (OSError, ValueError) as err:
        raise ModelError(f"{p}: not a netCDF InferenceData file ({err})") from err
    if "posterior" not in idata or "constant_data" not in idata:
        raise ModelError(f"{p}: not a passhat fit (posterior or constant_data group missing)")
    idata.constant_data["present"] = idata.constant_data["present"].astype(bool)
    for name in ("system", "task"):
        for grp in ("posterior", "constant_data"):
            ds = getattr(idata, grp, None)
            if ds is not None and name in ds.coords:
                ds.coords[name] = np.asarray(ds[name].values).astype(str)
    try:
        return Fit(idata)
    except ModelError as err:
        raise ModelError(f"{p}: {err}") from err


# ---------------------------------------------------------- model compare
def compare_models(fits: Mapping[str, Fit] | Sequence[Fit], *, ic: str = "loo") -> pd.DataFrame:
    """Compare fits of the same data by PSIS-LOO (ArviZ), separately per system.

    Parameters
    ----------
    fits : mapping name → Fit, or list of Fit (named by their model)
        Fits of the same count data (same systems, tasks, n and c).

    Returns
    -------
    pandas.DataFrame
        system, model and ArviZ's columns (rank, elpd_loo, p_loo, elpd_diff,
        weight, se, dse, warning), best model first within each system.
        The pointwise log-likelihood is one term per task (Beta-Binomial
        probability of its c given n), so LOO asks how well each model
        predicts a left-out task.

    Examples
    --------
    >>> import passhat as ph   # doctest: +SKIP
    >>> ph.compare_models({"beta": f1, "inflated": f2})   # doctest: +SKIP
    """
    if isinstance(fits, Mapping):
        named = {str(k): v for k, v in fits.items()}
    else:
        named = {}
        for f in fits:
            name = f.model
            i = 2
            while name in named:
                name = f"{f.model}_{i}"
                i += 1
            named[name] = f
    if len(named) < 2:
        raise OptionError("compare_models needs at least two fits")
    first = next(iter(named.values()))
    for name, f in named.items():
        if not isinstance(f, Fit):
            raise OptionError(f"{name!r} is not a passhat Fit")
        if f.systems != first.systems or not (
            np.array_equal(f.idata.constant_data["n"].values, first.idata.constant_data["n"].values)
            and np.array_equal(
                f.idata.constant_data["c"].values, first.idata.constant_data["c"].values
            )
        ):
            raise OptionError(
                f"fit {name!r} was made on different data; LOO compares like with like"
            )
    az = import_arviz()
    frames = []
    lls = {name: f.log_likelihood() for name, f in named.items()}
    for si, s in enumerate(first.systems):
        present = np.asarray(first.idata.constant_data["present"].values[si], dtype=bool)
        per = {}
        for name, f in named.items():
            ll = lls[name].isel(system=si).isel(task=np.flatnonzero(present))
            post = f.idata.posterior[["mu", "kappa"]].isel(system=si)
            per[name] = az.InferenceData(posterior=post, log_likelihood=xr.Dataset({"c": ll}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cmp = az.compare(per, ic=ic)
        cmp = cmp.reset_index().rename(columns={"index": "model"})
        cmp.insert(0, "system", s)
        frames.append(cmp)
    return pd.concat(frames, ignore_index=True)
