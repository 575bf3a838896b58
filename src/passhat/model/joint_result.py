"""The JointFit result: per-system metrics, pairwise differences, ranks and correlations.

:class:`JointFit` wraps the InferenceData made by :func:`passhat.fit` with
``model="joint"`` (posterior ``theta`` over system, ``task_sd``, ``kappa``,
``beta`` over task; the cells in ``constant_data``). Everything it reports is
computed from the posterior draws by :mod:`passhat.model.joint_metrics`, in
the two scopes of the single-system fit (population: a new task like these;
benchmark: these tasks). Benchmark-scope draws are seeded by the fit's seed
(stream ``[seed, _BENCH_SALT]``): the same values on every call and after a
reload.

Examples
--------
>>> from passhat.model.joint_build import joint_counts
>>> from passhat.model.joint_fit import fit_joint
>>> ds = joint_counts([[4] * 6, [4] * 6], [[4, 4, 3, 1, 0, 0], [4, 3, 1, 0, 0, 0]],
...                   systems=["A", "B"])
>>> f = fit_joint(ds, k=2, seed=0, chains=1, draws=100, tune=100)
>>> f.metric_draws("pass_hat_k", 2, scope="benchmark").shape
(100, 2)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._repr import Display
from passhat._result import Result
from passhat._validate import check_ci, norm_k
from passhat.errors import ModelError, OptionError
from passhat.model.diagnostics import Diagnostics, joint_diagnostics
from passhat.model.fit_summary import FitSettings
from passhat.model.joint_build import JointPriors
from passhat.model.joint_metrics import (
    CHECK_DRAWS,
    JOINT_METRICS,
    benchmark_draws_joint,
    check_metric,
    correlation_draws,
    dispersion_draws,
    population_table,
    rank_probabilities,
    ranks,
    spread_moments,
)
from passhat.model.joint_rasch import conditional_check_draws
from passhat.model.joint_spread import JointSpread
from passhat.model.joint_summary import JointFitSummary
from passhat.model.text import imh_label, mean_outside_note
from passhat.trials import provenance

__all__ = ["JointFit", "JointSpread"]

_BENCH_SALT = 611953
_PPC_SALT = 52_001
_SCOPES = ("population", "benchmark")


@dataclass(frozen=True, repr=False, eq=False)
class JointFit(Result):
    """A fitted joint model of several systems with crossed task effects.

    Build with :func:`passhat.fit` (``model="joint"``, or ``"rasch"``: :attr:`model`)
    or :func:`passhat.load_fit`. It shows itself (terminal, notebook, ``repr``) and writes its
    JSON document as its :meth:`summarize` does, for the k it was fitted with and 95%
    intervals.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior``: ``theta`` (chain, draw, system), ``task_sd``, ``kappa``
        (chain, draw; absent in the Rasch form, κ = ∞), ``beta`` (chain, draw,
        task); ``sample_stats``:
        ``diverging``; ``constant_data``: ``n``, ``c``, ``present`` over
        (system, task) for the fitted tasks.
    model : str
        "joint", or "rasch": no system × task deviation (κ = ∞, no ``kappa`` variable).
    sampler : str
    seed : int
    priors : JointPriors
    k : list of int
    """

    schema: ClassVar[str] = "joint_fit"
    method: ClassVar[str] = "nuts"

    idata: Any
    model: str = field(init=False)
    sampler: str = field(init=False)
    seed: int = field(init=False)
    priors: JointPriors = field(init=False)
    k: list[int] = field(init=False)
    _bench: dict[tuple[str, int], NDArray[np.float64]] = field(default_factory=dict, init=False)
    _pop: dict[tuple[str, int], NDArray[np.float64]] = field(default_factory=dict, init=False)
    _summaries: dict[tuple[tuple[int, ...], float], JointFitSummary] = field(
        default_factory=dict, init=False
    )

    def __post_init__(self) -> None:
        attrs = self.idata.posterior.attrs
        try:
            read = {
                "model": str(attrs.get("passhat_model", "joint")),
                "sampler": str(attrs["passhat_sampler"]),
                "seed": int(attrs["passhat_seed"]),
                "priors": JointPriors.from_json(str(attrs["passhat_priors"])),
                "k": [int(x) for x in json.loads(str(attrs["passhat_k"]))],
            }
        except (KeyError, ValueError, TypeError) as err:
            raise ModelError(
                f"not a passhat joint fit: posterior attribute {err} is missing or malformed"
            ) from err
        for name, value in read.items():
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------ basics
    @property
    def systems(self) -> list[str]:
        """System names (the column order of :meth:`metric_draws`)."""
        return [str(s) for s in self.idata.posterior["system"].values]

    @property
    def tasks(self) -> list[str]:
        """The fitted tasks (at least one system has a decided run)."""
        return [str(t) for t in self.idata.posterior["task"].values]

    @property
    def method_label(self) -> str:
        """e.g. ``posterior, joint crossed model, NUTS (nutpie)``."""
        form = " without deviation (Rasch form, κ = ∞)" if self.model == "rasch" else ""
        return f"posterior, joint crossed model{form}, {imh_label(self.sampler, self._imh)}"

    @property
    def _imh(self) -> dict[str, Any] | None:
        """What the independence sampler's check found (None: it was not tried)."""
        raw = self.idata.posterior.attrs.get("passhat_imh")
        return None if raw is None else dict(json.loads(str(raw)))

    @property
    def notes(self) -> list[str]:
        """Plain-language notes (cells left out or not run)."""
        raw = self.idata.posterior.attrs.get("passhat_notes")
        return list(json.loads(raw)) if raw else []

    # ------------------------------------------------------------ shown
    def summarize(
        self, k: int | Sequence[int] | None = None, *, ci: float = 0.95
    ) -> JointFitSummary:
        """The fit summarised for ``k`` (default: the k it was fitted with) and the interval
        level ``ci``: what ``passhat fit --model joint`` prints and writes
        (:class:`~passhat.model.joint_summary.JointFitSummary`). Computed once per (k, ci).

        Examples
        --------
        >>> from passhat.model.joint_build import joint_counts
        >>> from passhat.model.joint_fit import fit_joint
        >>> f = fit_joint(joint_counts([[3, 3, 3], [3, 3, 3]], [[3, 1, 0], [2, 1, 0]],
        ...               systems=["A", "B"]), k=2, chains=1, draws=40, tune=40)
        >>> s = f.summarize()
        >>> s.to_dict()["schema"], s.settings.k, len(s.correlation)
        ('passhat.joint_fit', [2], 1)
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        key = (tuple(ks), ci)
        if key not in self._summaries:
            table = self.summary(k=ks, ci=ci)
            self._summaries[key] = JointFitSummary(
                table=table,
                parameters=self.hyper_summary(ci=ci),
                correlation=self.correlation(ci=ci),
                dispersion=self.dispersion_check(),
                diagnostics=self.diagnostics,
                settings=FitSettings.from_attrs(self.idata.posterior, k=ks, ci=ci),
                method_label=self.method_label,
                tasks=len(self.tasks),
                notes=self.notes + mean_outside_note(table),
                source=provenance(self.idata.constant_data),
            )
        return self._summaries[key]

    def to_frame(self) -> pd.DataFrame:
        """The posterior table for the fitted k with 95% intervals (:meth:`summary`)."""
        return self.summarize().to_frame()

    def _document(self) -> dict[str, Any]:
        return self.summarize()._document()

    def view(self) -> Display:
        """What :meth:`summarize` shows for the fitted k with 95% intervals."""
        return self.summarize().view()

    def _flat(self, name: str) -> NDArray[np.float64]:
        v = np.asarray(self.idata.posterior[name].values, dtype=float)
        return v.reshape((v.shape[0] * v.shape[1], *v.shape[2:]))

    def _hyper(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        sd = self._flat("task_sd")
        rasch = self.model == "rasch"  # κ = ∞: the metrics put p_si = logistic(θ_s + β_i)
        return self._flat("theta"), sd, np.full(sd.shape, np.inf) if rasch else self._flat("kappa")

    @property
    def _sampled(self) -> list[str]:
        """The sampled hyperparameters besides θ_s."""
        return ["task_sd"] if self.model == "rasch" else ["task_sd", "kappa"]

    # ----------------------------------------------------------- metrics
    def metric_draws(self, metric: str, k: int = 1, *, scope: str) -> NDArray[np.float64]:
        """Posterior draws of one metric for every system: shape (draws, systems).

        Parameters
        ----------
        metric : {"mean", "pass_at_k", "pass_hat_k"}
        k : int
            Ignored for the mean.
        scope : {"population", "benchmark"}
            population: a new task like these; benchmark: the mean over the
            fitted tasks (cells a system did not run predicted from the task's
            effect), each p_si drawn from its conditional posterior (seeded).

        Examples
        --------
        >>> from passhat.model.joint_build import joint_counts
        >>> from passhat.model.joint_fit import fit_joint
        >>> f = fit_joint(joint_counts([[3, 3, 3], [3, 3, 3]], [[3, 1, 0], [2, 1, 0]],
        ...               systems=["A", "B"]), chains=1, draws=40, tune=40)
        >>> f.metric_draws("pass_at_k", 2, scope="population").shape
        (40, 2)
        """
        metric, k = check_metric(metric, k)
        if scope not in _SCOPES:
            raise OptionError(f"scope must be 'population' or 'benchmark' (got {scope!r})")
        key = (metric, k)
        if scope == "population":
            if key not in self._pop:
                theta, task_sd, kappa = self._hyper()
                reqs = [key] + [(m, kk) for m in JOINT_METRICS for kk in self.k]
                self._pop.update(population_table(theta, task_sd, kappa, reqs))
            return self._pop[key]
        if key not in self._bench:
            self._bench.update(
                self._benchmark([key] + [(m, kk) for m in JOINT_METRICS for kk in self.k])
            )
        return self._bench[key]

    def _benchmark(
        self, requests: list[tuple[str, int]]
    ) -> dict[tuple[str, int], NDArray[np.float64]]:
        cd = self.idata.constant_data
        reqs = list(dict.fromkeys((m, 1 if m == "mean" else kk) for m, kk in requests))
        theta, _, kappa = self._hyper()
        return benchmark_draws_joint(
            theta,
            self._flat("beta"),
            kappa,
            np.asarray(cd["n"].values),
            np.asarray(cd["c"].values),
            np.asarray(cd["present"].values, dtype=bool),
            reqs,
            rng=np.random.default_rng([self.seed, _BENCH_SALT]),
        )

    def _requests(self, k: int | Sequence[int] | None) -> list[tuple[str, int]]:
        ks = self.k if k is None else norm_k(k)
        return [("mean", 1)] + [(m, kk) for kk in ks for m in ("pass_at_k", "pass_hat_k")]

    def summary(self, k: int | Sequence[int] | None = None, *, ci: float = 0.95) -> pd.DataFrame:
        """Per system, metric, k and scope: posterior mean, SD and equal-tailed interval.

        Columns: system, metric, k, scope, mean, sd, lower, upper, ci, method.

        Examples
        --------
        >>> from passhat.model.joint_build import joint_counts
        >>> from passhat.model.joint_fit import fit_joint
        >>> f = fit_joint(joint_counts([[3, 3, 3], [3, 3, 3]], [[3, 1, 0], [2, 1, 0]],
        ...               systems=["A", "B"]), k=2, chains=1, draws=40, tune=40)
        >>> sorted(set(f.summary()["scope"]))
        ['benchmark', 'population']
        """
        ci = check_ci(ci)
        q = [(1 - ci) / 2, (1 + ci) / 2]
        parts = []
        names = self.systems
        for scope in _SCOPES:
            for metric, kk in self._requests(k):
                d = self.metric_draws(metric, kk, scope=scope)
                lo, hi = np.quantile(d, q, axis=0)
                parts.append(
                    pd.DataFrame(
                        {
                            "system": names,
                            "metric": metric,
                            "k": kk,
                            "scope": scope,
                            "mean": d.mean(axis=0),
                            "sd": d.std(axis=0),
                            "lower": lo,
                            "upper": hi,
                            "ci": ci,
                            "method": self.method_label,
                        }
                    )
                )
        return pd.concat(parts, ignore_index=True)

    def hyper_summary(self, *, ci: float = 0.95) -> pd.DataFrame:
        """θ_s per system, σ_β and κ (not in the Rasch form): posterior mean and interval.

        Columns: parameter, system, mean, lower, upper, ci.
        """
        ci = check_ci(ci)
        q = [(1 - ci) / 2, (1 + ci) / 2]
        theta, task_sd, kappa = self._hyper()
        rows = []
        for si, s in enumerate(self.systems):
            lo, hi = np.quantile(theta[:, si], q)
            rows.append(("theta", s, theta[:, si].mean(), lo, hi))
        for name, v in (("task_sd", task_sd), ("kappa", kappa))[: len(self._sampled)]:
            lo, hi = np.quantile(v, q)
            rows.append((name, "", v.mean(), lo, hi))
        out = pd.DataFrame(rows, columns=["parameter", "system", "mean", "lower", "upper"])
        out["ci"] = ci
        return out

    # ------------------------------------------------------- comparisons
    def differences(
        self, metric: str = "mean", k: int = 1, *, scope: str = "population", ci: float = 0.95
    ) -> pd.DataFrame:
        """Every pairwise difference (candidate − baseline) with its interval and P(> 0).

        Intervals are marginal (one pair at a time), equal-tailed.

        Columns: baseline, candidate, metric, k, scope, mean, lower, upper,
        prob_candidate_better, ci.
        """
        ci = check_ci(ci)
        metric, k = check_metric(metric, k)
        d = self.metric_draws(metric, k, scope=scope)
        rows = []
        names = self.systems
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                diff = d[:, j] - d[:, i]
                lo, hi = np.quantile(diff, [(1 - ci) / 2, (1 + ci) / 2])
                rows.append(
                    {
                        "baseline": names[i],
                        "candidate": names[j],
                        "metric": metric,
                        "k": k,
                        "scope": scope,
                        "mean": float(diff.mean()),
                        "lower": float(lo),
                        "upper": float(hi),
                        "prob_candidate_better": float((diff > 0).mean()),
                        "ci": ci,
                    }
                )
        return pd.DataFrame(rows)

    def rank_probabilities(
        self, metric: str = "mean", k: int = 1, *, scope: str = "population"
    ) -> pd.DataFrame:
        """P(rank = r) per system (rows) and rank (columns 1..S); rank 1 is best, ties share."""
        p = rank_probabilities(self.metric_draws(metric, k, scope=scope))
        return pd.DataFrame(
            p,
            index=pd.Index(self.systems, name="system"),
            columns=pd.Index(range(1, len(self.systems) + 1), name="rank"),
        )

    def rank_table(
        self, metric: str = "mean", k: int = 1, *, scope: str = "population", ci: float = 0.95
    ) -> pd.DataFrame:
        """Per system: value, its interval, mean rank, rank interval and P(rank = 1).

        Sorted by the posterior mean value (best first). The intervals are marginal.
        """
        ci = check_ci(ci)
        d = self.metric_draws(metric, k, scope=scope)
        r = ranks(d)
        q = [(1 - ci) / 2, (1 + ci) / 2]
        lo, hi = np.quantile(d, q, axis=0)
        rlo, rhi = np.quantile(r, q, axis=0, method="inverted_cdf")
        out = pd.DataFrame(
            {
                "system": self.systems,
                "mean": d.mean(axis=0),
                "lower": lo,
                "upper": hi,
                "rank_mean": r.mean(axis=0),
                "rank_lower": rlo.astype(int),
                "rank_upper": rhi.astype(int),
                "prob_rank_1": (r == 1).mean(axis=0),
            }
        )
        out["ci"] = ci
        return out.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)

    # ------------------------------------------------------- correlation
    def correlation(self, metric: str = "mean", k: int = 1, *, ci: float = 0.95) -> pd.DataFrame:
        """Between-system correlation of per-task values per pair: mean and interval.

        Columns: system_a, system_b, metric, k, mean, lower, upper, ci.
        """
        ci = check_ci(ci)
        theta, task_sd, kappa = self._hyper()
        r = correlation_draws(theta, task_sd, kappa, metric, k)
        metric, k = check_metric(metric, k)
        names = self.systems
        i, j = np.triu_indices(len(names), 1)
        pairs = r[:, i, j]  # (draws, pairs)
        lo, hi = np.quantile(pairs, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
        return pd.DataFrame(
            {
                "system_a": [names[a] for a in i],
                "system_b": [names[b] for b in j],
                "metric": metric,
                "k": k,
                "mean": pairs.mean(axis=0),
                "lower": lo,
                "upper": hi,
                "ci": ci,
            }
        )

    def rho(
        self,
        baseline: str | None = None,
        candidate: str | None = None,
        *,
        metric: str = "mean",
        k: int = 1,
    ) -> float:
        """Posterior mean correlation of per-task values between two systems.

        Without names: the mean over all pairs. Use as ``correlation=`` of
        :func:`passhat.plan.power` with pilot runs (a what-if of the same
        kind), or pass :meth:`pilot` as ``pilot=``.
        """
        table = self.correlation(metric, k)
        if baseline is None and candidate is None:
            return float(table["mean"].mean())
        a, b = self._pair(baseline, candidate)
        hit = table[
            ((table["system_a"] == a) & (table["system_b"] == b))
            | ((table["system_a"] == b) & (table["system_b"] == a))
        ]
        return float(hit["mean"].iloc[0])

    def _pair(self, baseline: str | None, candidate: str | None) -> tuple[str, str]:
        names = self.systems
        a = names[0] if baseline is None else baseline
        b = (names[1] if a != names[1] else names[0]) if candidate is None else candidate
        for s in (a, b):
            if s not in names:
                raise OptionError(f"system {s!r} is not in the fit ({', '.join(names)})")
        if a == b:
            raise OptionError(f"baseline and candidate are the same system ({a!r})")
        return a, b

    def pilot(
        self,
        baseline: str | None = None,
        candidate: str | None = None,
        *,
        metric: str = "mean",
        k: int = 1,
    ) -> JointSpread:
        """The fitted spread of paired differences, for ``plan.power(pilot=...)``."""
        a, b = self._pair(baseline, candidate)
        metric, k = check_metric(metric, k)
        theta, task_sd, kappa = self._hyper()
        pair = (self.systems.index(a), self.systems.index(b))
        m = spread_moments(theta, task_sd, kappa, pair, metric, k)
        return JointSpread((a, b), metric, k, m, len(self.tasks))

    def dispersion_check(self) -> pd.DataFrame:
        """Posterior predictive check of the cells' spread around θ_s + β_i, per system.

        X² of each system's cells, observed and replicated from the fitted
        model per draw; ``p_value`` = P(replicated ≥ observed). Rasch form:
        the cells given each task's total, which do not depend on the task
        effect (:func:`~passhat.model.joint_rasch.conditional_check_draws`);
        crossed model: Pearson X² against logistic(θ_s + β_i)
        (:func:`~passhat.model.joint_metrics.dispersion_draws`). Both use at most
        400 evenly spaced draws (the p-value's Monte-Carlo s.e. ≤ 0.025). A small
        p-value (say < 0.05) says the counts vary more than the model allows:
        for the Rasch form, a system × task deviation it assumes away (fit
        ``model="joint"`` and look at κ). Seeded by the fit's seed.

        Columns: system ("(all)": the sum), observed, replicated (posterior
        means of X²), cells, p_value.
        """
        cd = self.idata.constant_data
        theta, _, kappa = self._hyper()
        pres = np.asarray(cd["present"].values, dtype=bool)
        n, c = np.asarray(cd["n"].values), np.asarray(cd["c"].values)
        rng = np.random.default_rng([self.seed, _PPC_SALT])
        pick = np.unique(np.linspace(0, len(theta) - 1, min(len(theta), CHECK_DRAWS)).astype(int))
        if self.model == "rasch":
            obs, rep = conditional_check_draws(theta[pick], n, c, pres, rng=rng)
        else:
            beta = self._flat("beta")[pick]
            obs, rep = dispersion_draws(theta[pick], beta, kappa[pick], n, c, pres, rng=rng)
        obs = np.column_stack([obs, obs.sum(axis=1)])
        rep = np.column_stack([rep, rep.sum(axis=1)])
        cells = [*pres.sum(axis=1).tolist(), int(pres.sum())]
        return pd.DataFrame(
            {
                "system": [*self.systems, "(all)"],
                "observed": obs.mean(axis=0),
                "replicated": rep.mean(axis=0),
                "cells": cells,
                "p_value": (rep >= obs).mean(axis=0),
            }
        )

    # ------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> Diagnostics:
        """R-hat, bulk/tail ESS of θ_s, σ_β, κ and the worst task effect; divergences.

        Thresholds as for the single-system fit
        (:func:`~passhat.model.diagnostics.joint_diagnostics`).
        """
        diverging = self.idata.sample_stats["diverging"].values
        return joint_diagnostics(self.idata.posterior, diverging, sampled=self._sampled)

    # ---------------------------------------------------------------- io
    def to_netcdf(self, path: str | Path, *, force: bool = False) -> Path:
        """Save as netCDF (read back with :func:`passhat.load_fit`), as :meth:`Fit.to_netcdf`:
        never over the file the fit was read from, over another existing file only with
        ``force``."""
        from passhat._write import input_paths, write_netcdf

        write_netcdf(path, self.idata, inputs=input_paths(self.idata.constant_data), force=force)
        return Path(path)
