"""What a single-system fit shows and writes: :class:`FitSummary`, and the settings of a fit.

:meth:`passhat.Fit.summarize` builds a :class:`FitSummary` once (the posterior table for some
k and interval level, the diagnostics, the notes, the settings the fit ran with and where its
data came from); the summary computes nothing more. Its one display is what ``passhat fit``
prints, what a notebook shows of a fit and its ``repr``; :meth:`FitSummary.to_dict` is
``passhat fit --json``.

Examples
--------
>>> import passhat as ph
>>> s = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500).summarize()
>>> frame = s.view().parts[0].frame
>>> frame.columns.tolist()
['system', 'k', 'metric', 'benchmark', 'population', 'runs can remove']
>>> frame.iloc[2].tolist()
['seed-example', '2', 'pass^k', '0.430 [0.262, 0.606]', '0.454 [0.180, 0.750]', '34%']
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd
import xarray as xr

from passhat._format import pct
from passhat._paper import PaperTable, level_words
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.estimators import METRIC_LABELS
from passhat.model.diagnostics import Diagnostics
from passhat.model.text import (
    BENCHMARK_RULE,
    ONE_TASK_NOTE,
    POPULATION_BOUND_RULE,
    POPULATION_RULES,
    SCOPES_NOTE,
    SHAPE_WEIGHT,
    diagnostics_line,
    disagreement_line,
    extrapolation_line,
    interval,
    method_note,
    rules_line,
    saved_note,
    shape_line,
    weights_line,
)

__all__ = ["FitSettings", "FitSummary"]

#: Columns of the fit's table aligned left in a terminal.
_LEFT = frozenset({"system", "metric"})
#: A model the fit uses fails the shape check below this calibrated p-value.
SHAPE_LEVEL = 0.05
#: The ICC's label: 1/(κ+1) in the plain model (True), not in the inflated one.
_ICC = {True: "ICC 1/(κ+1)", False: "ICC"}


@dataclass(frozen=True)
class FitSettings:
    """The settings a fit ran with and a summary of it was made with (the JSON ``settings``).

    Attributes
    ----------
    k : list of int
        The k of the summary.
    method, method_requested : str
        The method that ran (``grid``, ``nuts``) and the one asked for (``auto``, ...; None for
        a fit saved before it was recorded).
    model, sampler : str
    seed : int
    draws, tune, chains : int
        Draws per chain, tuning steps (None when not recorded), chains.
    ci : float
        The level of the summary's intervals.
    weights, unscored_tasks : str, optional
        The task weights (``equal``, ``declared``, ``category``, ``mapping``) and the rule for
        tasks with no decided run.
    priors : str
        The priors, as JSON text.
    """

    k: list[int]
    method: str
    method_requested: str | None
    model: str
    sampler: str
    seed: int
    draws: int
    tune: int | None
    chains: int
    ci: float
    weights: str | None
    unscored_tasks: str | None
    priors: str

    @classmethod
    def from_attrs(cls, posterior: xr.Dataset, *, k: list[int], ci: float) -> FitSettings:
        """The settings a fit recorded in its posterior's attributes, with a summary's k and
        level (a setting that a fit saved by an earlier version did not record is None).

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=3, chains=2, draws=100)
        >>> st = FitSettings.from_attrs(f.idata.posterior, k=[2], ci=0.9)
        >>> st.seed, st.draws, st.chains, st.tune, st.weights, st.method_requested
        (3, 100, 2, 1000, 'equal', 'grid')
        """
        attrs = posterior.attrs
        extra = json.loads(str(attrs.get("passhat_settings", "{}")))
        unscored = attrs.get("passhat_unscored_tasks")
        return cls(
            k=list(k),
            method=str(attrs.get("passhat_method", "nuts")),
            method_requested=extra.get("method_requested"),
            model=str(attrs.get("passhat_model")),
            sampler=str(attrs.get("passhat_sampler")),
            seed=int(attrs["passhat_seed"]),
            draws=int(posterior.sizes["draw"]),
            tune=extra.get("tune"),
            chains=int(posterior.sizes["chain"]),
            ci=ci,
            weights=extra.get("weights"),
            unscored_tasks=None if unscored is None else str(unscored),
            priors=str(attrs["passhat_priors"]),
        )

    def document(self, *, output: str | None = None) -> dict[str, Any]:
        """The ``settings`` of a single-system fit's JSON document (``output``: where the fit
        was saved)."""
        return {
            "k": list(self.k),
            "method": self.method,
            "method_requested": self.method_requested,
            "model": self.model,
            "sampler": self.sampler,
            "seed": self.seed,
            "draws": self.draws,
            "tune": self.tune,
            "chains": self.chains,
            "ci": self.ci,
            "weights": self.weights,
            "unscored_tasks": self.unscored_tasks,
            "priors": self.priors,
            "output": output,
        }

    def joint_document(self, *, output: str | None = None) -> dict[str, Any]:
        """The ``settings`` of a joint fit's JSON document."""
        return {
            "k": list(self.k),
            "method": self.method,
            "model": self.model,
            "sampler": self.sampler,
            "seed": self.seed,
            "ci": self.ci,
            "priors": self.priors,
            "output": output,
            "draws": self.draws,
            "tune": self.tune,
            "chains": self.chains,
        }


@dataclass(frozen=True, repr=False, eq=False)
class FitSummary(Result):
    """A single-system fit summarised for some k and interval level (see the module).

    Attributes
    ----------
    table : pandas.DataFrame
        :meth:`passhat.Fit.summary`: per system, metric, k and scope the posterior mean, sd and
        interval with the variance split; one ``icc`` row per system.
    diagnostics : Diagnostics
        The sampler's diagnostics.
    settings : FitSettings
        What the fit ran with, and the summary's k and level.
    method_label : str
        The method in words (``posterior, Beta-Binomial, grid quadrature``).
    notes : list of str
        Tasks left out or imputed, unscored runs, posterior means outside their interval.
    source : dict
        Where the data came from (path, format, sha256; empty for data built in Python).
    models : pandas.DataFrame or None
        A stacked fit's models per system (:attr:`passhat.Fit.stacking`): exact
        leave-one-task-out and the stacking weights used.
    agreement : pandas.DataFrame or None
        The model's benchmark values against the unbiased estimates
        (:meth:`passhat.Fit.agreement`).
    shape : pandas.DataFrame or None
        The shape check (:attr:`passhat.Fit.shape`).
    runs_max : dict
        Each system's largest number of decided runs (above it, k is extrapolation).
    """

    schema: ClassVar[str] = "fit"

    table: pd.DataFrame
    diagnostics: Diagnostics
    settings: FitSettings
    method_label: str
    notes: list[str] = field(default_factory=list)
    source: dict[str, str] = field(default_factory=dict)
    models: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    shape: pd.DataFrame | None = None
    runs_max: dict[str, int] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        """The systems, in the table's order."""
        return [str(s) for s in pd.unique(self.table["system"])]

    def to_frame(self) -> pd.DataFrame:
        """The posterior table (:attr:`table`)."""
        return self.table.copy()

    def _document(self, *, output: str | None = None) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "settings": self.settings.document(output=output),
            "notes": list(self.notes),
            "summary": records(self.table),
            "diagnostics": self.diagnostics._document(),
            "models": None if self.models is None else records(self.models),
            "checks": {
                "warnings": self.warnings(),
                "agreement": [] if self.agreement is None else records(self.agreement),
                "shape": [] if self.shape is None else records(self.shape),
            },
        }

    def warnings(self) -> list[str]:
        """The lines that say the data contradict a number: the shape check failing a model
        the fit uses, a benchmark value that disagrees with the unbiased estimate, and every k
        above the runs (the model's extrapolation). Empty when nothing is contradicted.

        Examples
        --------
        >>> import passhat as ph
        >>> ph.fit(ph.load_example("abcd"), k=2, seed=0, chains=2, draws=500).summarize().warnings()
        []
        """
        out = []
        for s, part in _shape_totals(self.shape):
            if _shape_fails(part):
                out.append(shape_line(s, part.to_dict(orient="records")))
        if self.agreement is not None:
            for r in self.agreement[self.agreement["disagrees"]].to_dict(orient="records"):
                out.append(disagreement_line(r, self.settings.model))
        extra = self.table[self.table["extrapolated"]] if "extrapolated" in self.table else None
        if extra is not None and len(extra):
            for s, part in extra.groupby("system", sort=False):
                ks = sorted({int(k) for k in part["k"]})
                out.append(
                    extrapolation_line(str(s), ks, self.runs_max.get(str(s), 0),
                                       self.settings.model)
                )  # fmt: skip
        return out

    def to_dict(self, *, output: str | None = None) -> dict[str, Any]:
        """The JSON document (``passhat fit --json``); ``output``: where the fit was saved.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
        >>> doc = f.summarize().to_dict()
        >>> doc["schema"], doc["settings"]["method_requested"]
        ('passhat.fit', 'grid')
        >>> list(doc)[3:]
        ['input', 'settings', 'notes', 'summary', 'diagnostics', 'models', 'checks']
        """
        return self._with_header(self._document(output=output))

    def view(self, *, output: str | None = None) -> Display:
        """The posterior table in both scopes with the share more runs can remove, each
        system's diagnostics, then (left out by ``--quiet``) the method, the scopes in words,
        the notes and, with ``output``, where the fit was saved."""
        st = self.settings
        how = method_note(st.method, st.method_requested, st.model)
        if self.models is not None and not _stacked(self.models):
            how = ONE_TASK_NOTE
        notes = [how, SCOPES_NOTE, *self.notes]
        if output is not None:
            notes.append(saved_note(output))
        lines = (
            self._diagnostics_lines()
            + self._model_lines()
            + _rules(self.table, st.model)
            + self.warnings()
        )
        view = View(
            f"passhat fit ({self.method_label}; {st.ci:.0%} posterior intervals, seed {st.seed})",
            _posterior_frame(self.table, st.k, icc_label=_ICC[st.model == "beta"]),
            notes=tuple(notes),
            lines=tuple(lines),
            left=_LEFT,
            section_by="system",
        )
        return Display((view,), min_width=110)

    def _model_lines(self) -> list[str]:
        """A stacked fit's model weights per system; then each system's shape check when it
        passes (a failing one is a warning)."""
        out = []
        if self.models is not None:
            for s, part in self.models.groupby("system", sort=False):
                out.append(weights_line(str(s), part.to_dict(orient="records")))
        for s, part in _shape_totals(self.shape):
            if not _shape_fails(part):
                out.append(shape_line(s, part.to_dict(orient="records")))
        return out

    def _paper(self) -> PaperTable:
        """The table for papers: per system and metric (pass@k and pass^k at each k > 1) the
        posterior mean with its interval in each scope and the share of the population
        variance that more runs can remove, then the ICC; the caption says the level, the
        method, the scopes and whether the diagnostics passed.

        Examples
        --------
        >>> import passhat as ph
        >>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
        >>> print(f.summarize().to_markdown().splitlines()[4])
        | seed-example | pass^2 | 0.430 [0.262, 0.606] | 0.454 [0.180, 0.750] | 34% |
        """
        st = self.settings
        frame = _posterior_frame(self.table, st.k, icc_label=_ICC[st.model == "beta"])
        metric = [
            m.replace("k", k) if k != "—" else m
            for m, k in zip(frame["metric"], frame["k"], strict=True)
        ]
        frame = frame.drop(columns="k").assign(metric=metric)
        frame[["benchmark", "runs can remove"]] = frame[["benchmark", "runs can remove"]].replace(
            "", "—"
        )
        return PaperTable(frame, self._caption(), group="system")

    def _caption(self) -> str:
        """The fit's caption: level, method, seed, the scopes and columns, the diagnostics."""
        st = self.settings
        diag = "passed" if self.diagnostics.passed else "FAILED (see passhat fit's output)"
        draws = "" if st.method == "grid" else f", {st.chains} chains × {st.draws} draws"
        ones = " (pass@1 = pass^1 = mean)" if 1 in st.k else ""
        return (
            f"Posterior means with {level_words(st.ci)} equal-tailed intervals{ones}: "
            f"{self.method_label}, seed {st.seed}{draws}. Benchmark scope: these tasks, "
            "uncertainty from the finite runs per task only; population scope: the expected "
            "value over tasks like these, adding task sampling. Runs can remove: the share of "
            "the population-scope posterior variance that unlimited runs on these tasks would "
            "remove; the rest only more tasks reduce. ICC: the correlation of two runs of one "
            f"task. Sampler diagnostics {diag}."
        )

    def _diagnostics_lines(self) -> list[str]:
        diag = self.diagnostics
        return [
            diagnostics_line(
                s,
                diag.status(s),
                method=self.settings.method,
                table=diag.table[diag.table["system"] == s],
                divergences=diag.divergences.get(s, 0),
            )
            for s in self.systems
        ]


def _rules(table: pd.DataFrame, model: str) -> list[str]:
    """The line saying which rule made each scope's intervals, when some rows are the
    histogram's model-free values (their ``method`` is :data:`BENCHMARK_RULE` or
    one of :data:`POPULATION_RULES`)."""
    free = table[table["method"] == BENCHMARK_RULE]
    if free.empty:  # no benchmark row model-free: the population's may still be
        pop_free = table[table["method"].isin(POPULATION_RULES)]
        if pop_free.empty:
            return []
        ks = pop_free[pop_free["metric"] != "mean"]
        upto = ks.groupby("system", sort=False)["k"].max().astype(int).to_dict()
        k_of = {str(s): int(upto.get(s, 1)) for s in pop_free["system"].unique()}
        bound = bool((pop_free["method"] == POPULATION_BOUND_RULE).any())
        return [rules_line(model, k_of, "all", benchmark=False, bound=bound)]
    ks = free[free["metric"] != "mean"]  # the mean's rows repeat for every k
    upto = ks.groupby("system", sort=False)["k"].max().astype(int).to_dict()
    k_of = {str(s): int(upto.get(s, 1)) for s in free["system"].unique()}
    pop = table[(table["scope"] == "population") & table["metric"].isin(free["metric"].unique())]
    pop = pop[pop["k"].fillna(1).astype(int) <= pop["system"].map(k_of).fillna(0)]
    n_free = int(pop["method"].isin(POPULATION_RULES).sum())
    which = "none" if n_free == 0 else ("all" if n_free == len(pop) else "some")
    bench = table[(table["scope"] == "benchmark") & table["metric"].isin(free["metric"].unique())]
    bench = bench[bench["k"].fillna(1).astype(int) <= max(k_of.values())]
    some = bool((bench["method"] != BENCHMARK_RULE).any())  # e.g. a system with few flaky tasks
    bound = bool((pop["method"] == POPULATION_BOUND_RULE).any())
    return [rules_line(model, k_of, which, benchmark_some=some, bound=bound)]


def _stacked(models: pd.DataFrame) -> bool:
    """Whether some system's model weights came from stacking (not: one task each)."""
    if "weight_rule" not in models:
        return True
    return bool(models["weight_rule"].astype(str).str.startswith("stacking").any())


def _posterior_frame(summary: pd.DataFrame, ks: list[int], *, icc_label: str) -> pd.DataFrame:
    """One row per system and shown (metric, k): the benchmark and population intervals and the
    share of the population variance more runs can remove; then the system's ICC."""
    rows = []
    for s in pd.unique(summary["system"]):
        part = summary[summary["system"] == s]
        for kk in ks:
            for m in ("mean", "pass_at_k", "pass_hat_k"):
                if (m == "mean" and kk != ks[0]) or (m != "mean" and kk == 1):
                    continue  # mean does not depend on k; pass@1 = pass^1 = mean
                got = part[(part["metric"] == m) & (part["k"] == kk)]
                b = got[got["scope"] == "benchmark"].iloc[0]
                p = got[got["scope"] == "population"].iloc[0]
                k_text = "—" if m == "mean" else str(kk) + ("*" if b.get("extrapolated") else "")
                share = pct(float(p["within_task_share"]), 0)
                rows.append([str(s), k_text, METRIC_LABELS[m], interval(b), interval(p), share])
        icc = part[part["metric"] == "icc"].iloc[0]
        rows.append([str(s), "—", icc_label, "", interval(icc), ""])
    columns = ["system", "k", "metric", "benchmark", "population", "runs can remove"]
    return pd.DataFrame(rows, columns=columns)


def _shape_totals(shape: pd.DataFrame | None) -> list[tuple[str, pd.DataFrame]]:
    """Per system, the shape check's all-tasks rows (the last row of each model); none
    without a shape check."""
    if shape is None:
        return []
    last = shape.groupby(["system", "model"], sort=False)["runs"].transform("last")
    return [
        (str(s), part) for s, part in shape[shape["runs"] == last].groupby("system", sort=False)
    ]


def _shape_fails(part: pd.DataFrame) -> bool:
    """Whether a model that carries weight fails the shape check."""
    return bool(((part["p_value"] < SHAPE_LEVEL) & (part["weight"] >= SHAPE_WEIGHT)).any())
