"""The Fit result class: posterior draws of a fitted model, its metrics, diagnostics and file.

:class:`Fit` wraps the ArviZ InferenceData made by :func:`passhat.fit` (or
read back by :func:`load_fit`): the hyperparameter draws per system, the
stored metrics, the count data. It computes any metric in either scope per
posterior draw (closed forms of :mod:`passhat.model.metrics`), checks the
sampler's diagnostics, gives the posterior tables of
:mod:`passhat.model.summaries`, the pointwise log-likelihood for LOO, and
saves itself as netCDF.

Seeds: everything random that a Fit draws after sampling (benchmark-scope
p_i draws, task-posterior intervals, PPC replicates) uses its own stream
``[seed, system index, _BENCH_SALT (+ 1, + 2)]`` of the fit's recorded seed,
so the same fit gives the same values on every call and after a reload.

Examples
--------
>>> import passhat as ph
>>> f = ph.fit(ph.load_example("abcd"), k=[1, 2], method="grid", seed=0, chains=2, draws=500)
>>> type(f).__name__, f.method, f.k
('Fit', 'grid', [1, 2])
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
import xarray as xr
from numpy.typing import NDArray

from passhat._repr import Display
from passhat._result import Result
from passhat._validate import check_ci, norm_k
from passhat.errors import ModelError, OptionError
from passhat.model.build import Priors, compress
from passhat.model.checks import AGREEMENT_COLUMNS, agreement_rows
from passhat.model.comparison import ModelComparison
from passhat.model.diagnostics import Diagnostics, compute_diagnostics
from passhat.model.fit_summary import FitSettings, FitSummary
from passhat.model.histogram import informative, population_bound
from passhat.model.metrics import Groups, system_metrics
from passhat.model.parts import COMPONENTS, component_idata, hyper_draws, model_variables
from passhat.model.shape import MAX_RUNS, SHAPE_COLUMNS, shape_check, shape_rows
from passhat.model.summaries import (
    SCOPES,
    SUMMARY_METRICS,
    TASK_POSTERIOR_COLUMNS,
    loglik_array,
    ppc_rows,
    summary_table,
    task_posterior_frames,
)
from passhat.model.text import (
    BENCHMARK_RULE,
    POPULATION_BOUND_RULE,
    POPULATION_RULE,
    mean_outside_note,
    method_label,
)
from passhat.trials import provenance

__all__ = ["K_METRICS", "Fit"]

#: Metrics with a k.
K_METRICS = ("pass_at_k", "pass_hat_k")
_BENCH_SALT = 104729
#: Salt of the streams of the discrete model's identified values (:mod:`passhat.model.histogram`).
_HIST_SALT = 130363
_LOO_MAX_ELEMENTS = 50_000_000


@dataclass(frozen=True, repr=False, eq=False)
class Fit(Result):
    """A fitted hierarchical model (one independent fit per system).

    Build with :func:`passhat.fit` or :func:`load_fit`. It shows itself (terminal, notebook,
    ``repr``) and writes its JSON document as its :meth:`summarize` does, for the k it was
    fitted with and 95% intervals.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior``: ``mu``, ``kappa`` (and ``pi_pass``, ``pi_fail`` for
        the inflated model) over (chain, draw, system), plus the derived
        ``icc`` and ``{mean,pass_at_k,pass_hat_k}_{population,benchmark}``
        (the last two with a ``k`` dim) for the k given to :func:`passhat.fit`.
        ``sample_stats``: ``diverging``. ``constant_data``: ``n``, ``c``,
        normalised ``weight`` and ``present`` over (system, task).
        ``attrs``: model, method, sampler, seed, priors, k, settings.
    model, method, sampler : str
        ``beta`` or ``inflated``; ``grid`` or ``nuts``; ``grid``, ``nutpie`` or ``pymc``.
    seed : int
        The seed the fit ran with (recorded: the fit is reproduced from it).
    priors : Priors
    k : list of int
        The k whose metrics are stored in ``idata``.

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A.
       and Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press,
       ch. 5: the hierarchical Beta-Binomial model.

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
    >>> f.systems, f.model, f.idata.posterior["pass_hat_k_benchmark"].dims
    (['seed-example'], 'auto', ('chain', 'draw', 'system', 'k'))
    """

    schema: ClassVar[str] = "fit"

    idata: Any
    model: str = field(init=False)
    method: str = field(init=False)
    sampler: str = field(init=False)
    seed: int = field(init=False)
    priors: Priors = field(init=False)
    k: list[int] = field(init=False)
    _group_cache: dict[int, Groups] = field(default_factory=dict, init=False)
    _ppc_cache: dict[tuple[float, int], pd.DataFrame] = field(default_factory=dict, init=False)
    _split_cache: dict[int, dict[tuple[str, int], dict[str, float]]] = field(
        default_factory=dict, init=False
    )
    _summaries: dict[tuple[tuple[int, ...], float], FitSummary] = field(
        default_factory=dict, init=False
    )

    def __post_init__(self) -> None:
        attrs = self.idata.posterior.attrs
        try:
            read = {
                "model": str(attrs["passhat_model"]),
                "method": str(attrs["passhat_method"]),
                "sampler": str(attrs["passhat_sampler"]),
                "seed": int(attrs["passhat_seed"]),
                "priors": Priors.from_json(str(attrs["passhat_priors"])),
                "k": [int(x) for x in json.loads(str(attrs["passhat_k"]))],
            }
        except (KeyError, ValueError, TypeError) as err:
            raise ModelError(
                f"not a passhat fit: posterior attribute {err} is missing or malformed"
            ) from err
        for name, value in read.items():
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------ basics
    @property
    def systems(self) -> list[str]:
        """System names."""
        return [str(s) for s in self.idata.posterior["system"].values]

    @property
    def method_label(self) -> str:
        """Human-readable method, e.g. ``posterior, Beta-Binomial, NUTS (nutpie)``; a stacked
        fit whose every system has one task did not stack
        (:data:`~passhat.model.stacking.STACK_MIN_TASKS`): the Beta model's label, saying so."""
        if self.model == "auto" and not self._stacked():
            return method_label("beta", self.method, self.sampler) + " (one task: no stacking)"
        return method_label(self.model, self.method, self.sampler)

    def _stacked(self) -> bool:
        """Whether some system's model weights came from stacking (not: one task each)."""
        table = self.stacking
        if table is None or "weight_rule" not in table:
            return table is not None
        return bool(table["weight_rule"].str.startswith("stacking").any())

    @property
    def notes(self) -> list[str]:
        """Plain-language notes of the fit: unscored runs, tasks with no decided run left out
        or imputed, tasks of weight 0 (as :func:`passhat.fit` recorded them)."""
        raw = self.idata.posterior.attrs.get("passhat_notes")
        return list(json.loads(raw)) if raw else []

    # ------------------------------------------------------------ shown
    def summarize(self, k: int | Sequence[int] | None = None, *, ci: float = 0.95) -> FitSummary:
        """The fit summarised for ``k`` (default: the k it was fitted with) and the interval
        level ``ci``: what ``passhat fit`` prints and writes (:class:`FitSummary`).

        Computed once per (k, ci) and kept: the summary is seeded, so a second call would give
        the same values.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
        >>> s = f.summarize(ci=0.9)
        >>> s.settings.ci, s.settings.k, s.diagnostics.passed
        (0.9, [2], True)
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        key = (tuple(ks), ci)
        if key not in self._summaries:
            table = self.summary(k=ks, ci=ci)
            self._summaries[key] = FitSummary(
                table=table,
                diagnostics=self.diagnostics,
                settings=FitSettings.from_attrs(self.idata.posterior, k=ks, ci=ci),
                method_label=self.method_label,
                notes=self.notes + mean_outside_note(table),
                source=provenance(self.idata.constant_data),
                models=self.stacking,
                agreement=self.agreement(ks, ci=ci),
                shape=self.shape,
                runs_max=self.runs_max(),
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

    def _hyper(self, si: int) -> dict[str, NDArray[np.float64]]:
        """System ``si``'s draws as parts of the mixing distribution
        (:mod:`passhat.model.mixing`): ``a``, ``b``, and where the model has them ``pi_pass``,
        ``pi_fail``, ``node_weight`` (draws, nodes) with ``node_p``."""
        return hyper_draws(self.idata.posterior, si, self.model)

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
            For pass^k and pass@k (default: the k given to :func:`passhat.fit`).
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
            if "icc" in self.idata.posterior:
                return self.idata.posterior["icc"]
            return self._as_array("icc", [1], self._compute([("icc", 1)], scope=scope), scope)
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
        self,
        requests: list[tuple[str, int]],
        *,
        scope: str,
        rao_blackwell: bool = False,
        own: bool = False,
    ) -> list[dict[tuple[str, int], NDArray[np.float64]]]:
        """Each system's metrics per draw (:func:`~passhat.model.metrics.system_metrics`);
        benchmark draws from the system's own seeded stream.

        Benchmark scope, k up to the fewest runs of a task: every draw takes the histogram's
        model-free values (U + se · z, the rule of ``estimate``; :mod:`passhat.model.histogram`),
        whatever the model, where they have a spread (not where every task passed or failed all
        its runs: :func:`~passhat.model.histogram.informative`), so a model can move these
        numbers only above the runs. ``own`` gives the model's own values there instead (the
        discrete model's are the histogram's anyway): what :meth:`agreement` checks against the
        unbiased estimate."""
        bench = scope != "population"
        identified = "discrete" if own else "all"
        return [
            system_metrics(
                self._hyper(si),
                requests,
                scope=scope,
                groups=self._groups(si),
                rng=np.random.default_rng([self.seed, si, _BENCH_SALT]) if bench else None,
                rao_blackwell=rao_blackwell,
                hist_rng=np.random.default_rng([self.seed, si, _HIST_SALT, int(bench)]),
                identified=identified,
            )
            for si in range(len(self.systems))
        ]

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
    def _splits(self, ks: list[int]) -> dict[str, dict[tuple[str, int], dict[str, float]]]:
        """Each system's variance split per (metric, k) (seeded: the same p draws for any k)."""
        from passhat.model.split import variance_split

        requests = [("mean", 1)] + [(m, kk) for kk in ks for m in K_METRICS]
        for si in range(len(self.systems)):
            cache = self._split_cache.setdefault(si, {})
            todo = [r for r in requests if r not in cache]
            n, c, _, _ = self._tasks(si)
            if not todo or not len(n):
                continue
            if self.model in ("beta", "inflated"):
                rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 3])
                cache.update(
                    variance_split(n, c, self._hyper(si), todo, priors=self.priors, rng=rng)
                )
            else:  # no hyperparameters to condition on: the benchmark value is E[θ | p]
                cache.update(self._ratio_split(si, todo))
        return {s: self._split_cache[si] for si, s in enumerate(self.systems)}

    def _ratio_split(
        self, si: int, todo: list[tuple[str, int]]
    ) -> dict[tuple[str, int], dict[str, float]]:
        """The variance split of the discrete and stacked models
        (:func:`passhat.model.split.ratio_split`), from the metrics' draws in both scopes."""
        from passhat.model.split import ratio_split

        out = {}
        for m, kk in todo:
            draws = {
                scope: np.asarray(
                    self.metric(m, None if m == "mean" else [kk], scope=scope)
                    .isel(system=si)
                    .values,
                    dtype=float,
                ).ravel()
                for scope in SCOPES
            }
            out[(m, kk)] = ratio_split(draws["benchmark"], draws["population"])
        return out

    def summary(self, k: int | Sequence[int] | None = None, *, ci: float = 0.95) -> pd.DataFrame:
        """Tidy posterior summary per system, metric, k and scope.

        Columns: system, metric, k, scope, mean, sd, lower, upper, ci,
        within_task_share, task_sampling_share, method, diagnostics, extrapolated (k above
        the largest number of decided runs of the system's tasks: the value is the model's,
        named in ``method``). ``method`` names each row's rule: benchmark rows of the mean and
        of k up to the fewest runs of a task are the unbiased estimate ± z·se, model-free
        (:data:`~passhat.model.text.BENCHMARK_RULE`); the others the model's posterior.
        Intervals are equal-tailed. The variance split of a population row, by the law of total
        variance given these tasks'
        rates p: ``within_task_share`` = Var(E[θ | p] | y) / Var(θ | y) is the
        part of the posterior variance that unlimited runs on these tasks
        would remove; ``task_sampling_share`` (the rest, E[Var(θ | p) | y])
        remains however many runs are added (:mod:`passhat.model.split`).
        Benchmark rows have shares 1 and 0 (the benchmark value is a function
        of p). One ``icc`` row per system (population scope, no k).

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
        diag = self.diagnostics
        draws: dict[tuple[str, str], xr.DataArray] = {}
        for scope in SCOPES:
            for m in SUMMARY_METRICS:
                draws[(m, scope)] = self.metric(m, None if m == "mean" else ks, scope=scope)
        table = summary_table(
            draws,
            self.metric("icc"),
            systems=self.systems,
            ks=ks,
            ci=ci,
            method=self.method_label,
            status={s: diag.status(s) for s in self.systems},
            splits=self._splits(ks),
        )
        n_max = table["system"].map(self.runs_max())
        k_metric = table["metric"].isin(K_METRICS)
        kk = table["k"].fillna(0).astype(int)
        table["extrapolated"] = k_metric & (kk > n_max)
        free = self._model_free(table)
        bench = (table["scope"] == "benchmark").to_numpy()
        table.loc[free & bench, "method"] = BENCHMARK_RULE
        table.loc[free & ~bench, "method"] = POPULATION_RULE
        table.loc[free & ~bench & self._bounded(table), "method"] = POPULATION_BOUND_RULE
        return table

    def _bounded(self, table: pd.DataFrame) -> NDArray[np.bool_]:
        """The population rows whose values are the Clopper–Pearson-type bound
        (:func:`~passhat.model.histogram.population_bound`)."""
        index = {s: si for si, s in enumerate(self.systems)}
        kk = table["k"].fillna(1).astype(int)
        return np.array(
            [
                scope == "population"
                and m in ("mean", "pass_at_k", "pass_hat_k")
                and population_bound(self._groups(index[str(s)]), m, int(k))
                for s, m, k, scope in zip(
                    table["system"], table["metric"], kk, table["scope"], strict=True
                )
            ],
            dtype=bool,
        )

    def _model_free(self, table: pd.DataFrame) -> NDArray[np.bool_]:
        """The rows of a summary table whose values are the histogram's, not the model's: the
        benchmark scope where the histogram fixes the value and gives it a spread
        (:func:`~passhat.model.histogram.informative`)."""
        index = {s: si for si, s in enumerate(self.systems)}
        kk = table["k"].fillna(1).astype(int)
        return np.array(
            [
                scope in SCOPES and informative(self._groups(index[str(s)]), m, int(k), scope=scope)
                for s, m, k, scope in zip(
                    table["system"], table["metric"], kk, table["scope"], strict=True
                )
            ],
            dtype=bool,
        )

    def runs_max(self) -> dict[str, int]:
        """Each system's largest number of decided runs of a task: above it a pass^k or pass@k
        is the model's extrapolation."""
        return {s: int(self._tasks(si)[0].max(initial=0)) for si, s in enumerate(self.systems)}

    def more_runs(
        self,
        runs: int | Sequence[int] = (1, 2, 5, 10),
        *,
        k: int | Sequence[int] | None = None,
        ci: float = 0.95,
        simulations: int = 200,
    ) -> pd.DataFrame:
        """Expected interval width after m more runs on every task (preposterior; beta model).

        ``simulations`` sets of new runs per m, drawn from the posterior
        predictive, each give their posterior exactly on a grid
        (:mod:`passhat.model.preposterior`; seeded by the fit's seed).
        ``runs_added`` 0 is today; ``inf`` the floor (these tasks' rates
        known), below which only more tasks narrow the population interval.

        Returns
        -------
        pandas.DataFrame
            system, metric, k, scope, runs_added, expected_sd,
            expected_width, width_ratio, interval, ci.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, model="beta", seed=0, chains=2, draws=500)
        >>> t = f.more_runs(runs=[5], simulations=50)
        >>> t.query("metric == 'pass_hat_k' and scope == 'population'")["runs_added"].tolist()
        [0.0, 5.0, inf]
        """
        from passhat.model.preposterior import more_runs_rows

        if self.model not in ("beta", "inflated"):
            raise OptionError(
                f"more_runs simulates the Beta model's posterior; this fit's model is "
                f"{self.model!r}: use fit.component('beta').more_runs(...) or "
                "fit(..., model='beta')"
            )
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        ms = [runs] if isinstance(runs, int | np.integer) else list(runs)
        requests = [("mean", 1)] + [(m, kk) for kk in ks for m in K_METRICS]
        rows = []
        for si, s in enumerate(self.systems):
            n, c, w, _ = self._tasks(si)
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 4])
            got = more_runs_rows(n, c, w, self._hyper(si), requests, runs=ms, priors=self.priors,
                                 ci=ci, simulations=simulations, rng=rng)  # fmt: skip
            rows += [{"system": s, **r, "ci": ci} for r in got]
        return pd.DataFrame(rows)

    def task_posterior(
        self, k: int | Sequence[int] | None = None, *, ci: float = 0.95
    ) -> pd.DataFrame:
        """Per task: posterior mean and equal-tailed interval of p_i and of p_i^k.

        See :func:`passhat.model.summaries.task_posterior_frames` (p_i's
        conditional Beta posterior, exact means, intervals from draws).

        Returns
        -------
        pandas.DataFrame
            system, task, n, c, k, p_mean, p_lower, p_upper, p_k_mean,
            p_k_lower, p_k_upper, ci.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
        >>> tp = f.task_posterior()
        >>> bool(((tp["p_lower"] <= tp["p_mean"]) & (tp["p_mean"] <= tp["p_upper"])).all())
        True
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        tasks = np.asarray(self.idata.constant_data["task"].values, dtype=object)
        frames: list[pd.DataFrame] = []
        for si, s in enumerate(self.systems):
            n, c, _, present = self._tasks(si)
            if len(n) == 0:
                continue
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 1])
            frames += task_posterior_frames(
                s, tasks[present], n, c, self._hyper(si), ks=ks, ci=ci, rng=rng
            )
        if not frames:
            return pd.DataFrame(columns=list(TASK_POSTERIOR_COLUMNS))
        out = pd.concat(frames, ignore_index=True)
        return out.sort_values(["system", "k"], kind="stable").reset_index(drop=True)

    # ------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> Diagnostics:
        """R-hat, bulk/tail ESS and divergences, checked against thresholds.

        See :mod:`passhat.model.diagnostics` (thresholds of Vehtari et al. 2021).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=500)
        >>> f.diagnostics.passed, f.diagnostics.status("A")
        (True, 'ok')
        """
        variables = model_variables(self.model)
        div = self.idata.sample_stats["diverging"].values if "sample_stats" in self.idata else None
        return compute_diagnostics(
            self.idata.posterior, div, variables=variables, method=self.method
        )

    # ------------------------------------------------------------ checks
    @property
    def stacking(self) -> pd.DataFrame | None:
        """A stacked fit's models (``model="auto"``), one row per system and model: the exact
        leave-one-task-out comparison (elpd_loo, se, p_loo, elpd_diff, dse, rank) and the
        stacking weight, the share of draws from that model; None for a one-model fit."""
        raw = self.idata.posterior.attrs.get("passhat_stacking")
        return None if not raw else pd.DataFrame(json.loads(raw))

    def model_comparison(self) -> ModelComparison:
        """A stacked fit's comparison of its models as a :class:`ModelComparison` (exact
        leave-one-task-out, computed when the fit was made; no sampling).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, seed=0, chains=2, draws=500)
        >>> sorted(f.model_comparison().table["model"])
        ['beta', 'discrete', 'inflated']
        """
        table = self.stacking
        if table is None:
            raise OptionError(
                f"this fit has one model ({self.model!r}): fit(..., model='auto') compares the "
                "Beta, inflated and discrete models, passhat.compare_models(...) any fits"
            )
        return ModelComparison(table, ic="loo", models=COMPONENTS, exact=True)

    def agreement(self, k: int | Sequence[int] | None = None, *, ci: float = 0.95) -> pd.DataFrame:
        """The model's benchmark values against the unbiased estimates, for every k up to the
        fewest decided runs of a system's tasks (:mod:`passhat.model.checks`).

        Returns
        -------
        pandas.DataFrame
            system, metric, k, model_mean, model_sd, estimate, estimate_se, z, disagrees, ci.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, seed=0, chains=2, draws=500)
        >>> f.agreement()["disagrees"].tolist()
        [False, False, False]
        """
        ci = check_ci(ci)
        ks = self.k if k is None else norm_k(k)
        requests = [("mean", 1)] + [(m, kk) for kk in ks if kk > 1 for m in K_METRICS]
        vals = self._compute(requests, scope="benchmark", own=True)
        rows = []
        for si, s in enumerate(self.systems):
            n, c, w, _ = self._tasks(si)
            bench = {req: vals[si][req] for req in requests}
            rows += [{"system": s, **r} for r in agreement_rows(n, c, w, bench, ci=ci)]
        return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))

    @cached_property
    def shape(self) -> pd.DataFrame:
        """The shape check (:mod:`passhat.model.shape`): the histogram of successes per task
        against each model's prediction, G statistic and calibrated p-value, per system, model
        and number of runs (``runs`` 0: all tasks). A stacked fit checks its three models (its
        ``weight`` column: each model's stacking weight). Tasks with more than
        :data:`passhat.model.shape.MAX_RUNS` runs are left out of the check.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, model="beta", seed=0, chains=2, draws=500)
        >>> f.shape[["model", "runs", "tasks"]].values.tolist()
        [['beta', 5, 4]]
        """
        models = list(COMPONENTS) if self.model == "auto" else [self.model]
        weights = self.stacking
        rows = []
        for si, s in enumerate(self.systems):
            n, c, _, _ = self._tasks(si)
            few = n <= MAX_RUNS  # a histogram of n + 1 cells: not for 2^32 runs (shape.MAX_RUNS)
            if not few.any():
                continue
            comp = compress(n[few], c[few])
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 5])
            for m in models:
                chk = shape_check(comp, model=m, priors=self.priors, rng=rng)
                weight = 1.0
                if weights is not None:
                    sel = (weights["system"] == s) & (weights["model"] == m)
                    weight = float(weights.loc[sel, "weight"].iloc[0])
                rows += shape_rows(s, chk, weight)
        return pd.DataFrame(rows, columns=list(SHAPE_COLUMNS))

    def component(self, name: str) -> Fit:
        """One model of a stacked fit as a fit of its own: ``"beta"`` or ``"inflated"``, with
        every draw of that model (the stacked fit keeps all of them; the discrete model keeps
        only the draws it lent to the stack).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, seed=0, chains=2, draws=500)
        >>> f.component("beta").model, f.component("beta").method_label
        ('beta', 'posterior, Beta-Binomial, grid quadrature')
        """
        if self.model != "auto" or name not in ("beta", "inflated"):
            raise OptionError(
                f"component({name!r}): a stacked fit (model='auto') has the 'beta' and "
                f"'inflated' components; this fit's model is {self.model!r}"
            )
        return Fit(component_idata(self.idata, name))

    # --------------------------------------------------------------- PPC
    def ppc(self, *, ci: float = 0.9, max_draws: int = 1000) -> pd.DataFrame:
        """Posterior predictive check of the histogram of c/n over tasks.

        For each posterior draw a replicate benchmark is simulated (every task
        keeps its n, gets a new p from the fitted task distribution, then
        c ~ Binomial(n, p)); the replicate histogram's mean and equal-tailed
        ``ci`` interval per bin are set against the observed one
        (:func:`passhat.model.summaries.ppc_rows`: bins, cost, reference).
        Computed once per (ci, max_draws) and cached; callers get a copy.

        Returns
        -------
        pandas.DataFrame
            system, bin, label, observed, expected, lower, upper, ci, tasks.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=500)
        >>> t = f.ppc()
        >>> t.groupby("system")["observed"].sum().tolist()   # each of the 4 tasks once
        [4]
        """
        ci = check_ci(ci)
        key = (float(ci), int(max_draws))
        if key in self._ppc_cache:  # seeded, so a second call would repeat the same work
            return self._ppc_cache[key].copy()
        rows = []
        for si, s in enumerate(self.systems):
            n, c, _, _ = self._tasks(si)
            rng = np.random.default_rng([self.seed, si, _BENCH_SALT + 2])
            rows += ppc_rows(s, n, c, self._hyper(si), ci=ci, max_draws=max_draws, rng=rng)
        table = pd.DataFrame(rows)
        self._ppc_cache[key] = table
        return table.copy()

    # --------------------------------------------------------------- LOO
    def log_likelihood(self) -> xr.DataArray:
        """Pointwise log-likelihood per task and draw (chain, draw, system, task).

        Computed once per distinct (n, c) pair and expanded to tasks; tasks a
        system did not run hold NaN. Each term is the Beta-Binomial probability
        of the task's c given its n (binomial coefficient included). Used for
        PSIS-LOO (:func:`passhat.compare_models`).

        Raises
        ------
        ModelError
            The array would hold more than 50 million values.

        References
        ----------
        .. [1] Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian
           model evaluation using leave-one-out cross-validation and WAIC.
           *Statistics and Computing* 27, 1413–1432.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=100)
        >>> f.log_likelihood().dims
        ('chain', 'draw', 'system', 'task')
        """
        chains, draws = self._shape()
        cd = self.idata.constant_data
        size = chains * draws * int(cd.sizes["task"]) * len(self.systems)
        if size > _LOO_MAX_ELEMENTS:
            raise ModelError(
                f"pointwise log-likelihood would hold {size:,} values (> {_LOO_MAX_ELEMENTS:,}); "
                "refit with fewer draws for LOO"
            )
        per_system = [
            (*self._tasks(si)[:2], self._tasks(si)[3], self._hyper(si))
            for si in range(len(self.systems))
        ]
        return loglik_array(per_system, self.idata.posterior, cd["task"].values)

    # ---------------------------------------------------------------- io
    def to_netcdf(self, path: str | Path, *, force: bool = False) -> Path:
        """Save the InferenceData as netCDF (read back with :func:`load_fit`); an existing
        ``path`` only with ``force``, the file the fit was read from never (OptionError).
        Written as :func:`passhat._write.atomic_path` writes: a failed or interrupted save
        leaves a previous file whole (OutputError).

        Examples
        --------
        >>> import passhat as ph, tempfile, pathlib
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=100)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = ph.load_fit(f.to_netcdf(pathlib.Path(d) / "fit.nc"))
        >>> back.seed, back.systems == f.systems
        (0, True)
        """
        from passhat._write import input_paths, write_netcdf

        write_netcdf(path, self.idata, inputs=input_paths(self.idata.constant_data), force=force)
        return Path(path)
