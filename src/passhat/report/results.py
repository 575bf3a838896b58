"""What the report computed: every result it shows, in one frozen object.

:func:`passhat.report.build.compute_results` computes each number of the report once, in one
place, and returns a :class:`ReportResults`; the sections (:mod:`passhat.report.sections`)
are pure functions from it to a :class:`~passhat.report.document.Section`: they read these
results and compute nothing.

The seed stream
---------------
The report's ``seed`` is resolved once (None draws one, recorded). Each random step then
takes that seed itself, as its own API call would (:class:`ReportSeeds` names them): the
estimate's bootstrap and predictive draws, the spread's intervals, the k-curve (one estimate
per two k), the paired comparison, the ranking, the hierarchical fit, the zero/one-inflated
fit and the grader correction. Each step builds its own generators from its seed, so no
step's draws depend on which steps ran before it, and each number equals the one
``passhat.estimate(..., seed=s)``, ``passhat.compare(..., seed=s)``, ``passhat.fit(...,
seed=s)``… give on the same tasks. What
a fit draws afterwards (posterior summaries, the predictive check, the "more runs"
simulation) comes from streams keyed by the fit's own seed (:mod:`passhat.model.result`).
The planner's steps draw nothing.

Examples
--------
>>> ReportSeeds.from_seed(3).comparison
3
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import xarray as xr

from passhat.trials import Trials

if TYPE_CHECKING:
    from passhat.compare.cost_result import CostComparison
    from passhat.compare.paired import Comparison
    from passhat.cost_result import CostEstimate
    from passhat.estimate_result import Estimate
    from passhat.graders.result import GraderCorrection
    from passhat.model.diagnostics import Diagnostics
    from passhat.model.result import Fit
    from passhat.rank.result import Ranking
    from passhat.slices import Slices
    from passhat.spread.from_runs import Spread

__all__ = [
    "Clusters",
    "DesignPlan",
    "Extras",
    "FlipPlan",
    "ModelComparison",
    "ModelResults",
    "MoreRuns",
    "NextBatch",
    "PlanResults",
    "ReportResults",
    "ReportSeeds",
    "ReportSettings",
    "SystemPlan",
    "TraceCounts",
]


@dataclass(frozen=True)
class ReportSeeds:
    """The seed each random step of the report takes (see the module's *seed stream*).

    Today every step takes the report's seed itself, so that each number is the one the
    step's own API call gives with that seed.
    """

    estimate: int
    spread: int
    curve: int
    comparison: int
    ranking: int
    fit: int
    inflated: int
    grader: int
    cost_comparison: int

    @classmethod
    def from_seed(cls, seed: int) -> ReportSeeds:
        """Every step's seed from the report's (resolved) seed."""
        return cls(**{f.name: int(seed) for f in fields(cls)})


@dataclass(frozen=True)
class ReportSettings:
    """The report's options as resolved (what ``results.json`` records under ``settings``).

    ``ks`` are the k values after the default rule, ``seed`` the seed after resolving None,
    ``title`` the title after the default; the rest as given.
    """

    ks: tuple[int, ...]
    ci: float | None
    n_boot: int
    seed: int
    weights: Any
    on_short: str
    min_runs: int | None
    unscored_tasks: str
    model_method: str
    compare_models: bool
    baseline: str | None
    plan: bool
    title: str

    @property
    def kmax(self) -> int:
        """The largest k (the one the sentences speak of)."""
        return self.ks[-1]

    def record(self, *, model_ok: bool, fitted: bool) -> dict[str, Any]:
        """The ``settings`` of the stamp: ``model`` says whether the model's section is ok,
        ``model_method`` is None when no model was fitted."""
        return {
            "k": list(self.ks),
            "ci": self.ci,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "weights": self.weights if isinstance(self.weights, str | None) else "mapping",
            "on_short": self.on_short,
            "min_runs": self.min_runs,
            "unscored_tasks": self.unscored_tasks,
            "matched": True,
            "model": model_ok,
            "model_method": self.model_method if fitted else None,
            "compare_models": self.compare_models,
            "baseline": self.baseline,
            "plan": self.plan,
            "title": self.title,
        }


# ------------------------------------------------- partial credit, categories, cost, clusters
@dataclass(frozen=True)
class Clusters:
    """The clusters of the report's tasks (a ``cluster`` task coordinate): per system, how many
    the averaged tasks fall in (``counts``), and the number below which the
    population interval is the cluster-robust t interval, not the cluster bootstrap (``few``, from
    :data:`passhat.bootstrap.FEW_CLUSTERS`)."""

    counts: dict[str, int]
    few: int


@dataclass(frozen=True)
class Extras:
    """Which of the sections that follow the data's columns the report holds, and why not.

    ``scores``, ``by_category`` and ``cost``: whether the estimate carries the partial-credit
    rows and threshold curve, the per-category estimate, and the cost result (then in
    :attr:`ReportResults.cost`). ``asked``: each option as given (None: detected from the
    data; True / False / thresholds / "category": given). ``skipped``: (section id, reason)
    for a section the data carry a column for but that could not be computed (a score
    outside [0, 1], a task without a category, a run without a cost) when it was not asked
    for explicitly (then it is an error). ``cost_of``: what the cost sections measure,
    ``"cost"`` (the cost column) or ``"duration"`` (the duration_s column, seconds).
    """

    scores: bool = False
    by_category: bool = False
    cost: bool = False
    cost_of: str = "cost"
    asked: dict[str, Any] | None = None
    skipped: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class ModelComparison:
    """Plain Beta vs zero/one-inflated by PSIS-LOO, or why it was not made.

    ``status``: ``"compared"`` (``table`` is :func:`passhat.compare_models`' table),
    ``"plain_failed"`` (the plain fit failed its diagnostics: the inflated one was not fitted)
    or ``"inflated_failed"`` (``problems`` are the inflated fit's first diagnostics failures).
    ``exact``: the table is a stacked fit's own (Beta, inflated and discrete models, exact
    leave-one-task-out, ``weight`` the stacking weight the fit used).
    """

    status: Literal["compared", "plain_failed", "inflated_failed"]
    table: pd.DataFrame | None = None
    problems: tuple[str, ...] = ()
    exact: bool = False


@dataclass(frozen=True)
class ModelResults:
    """The hierarchical model's results as the report shows them.

    Attributes
    ----------
    fit : passhat.Fit
        The fit (given, or made with the report's seed).
    level : float
        Credible level of its intervals (the report's ``ci``, 0.95 without one).
    summary : pandas.DataFrame
        ``fit.summary(k=ks, ci=level)``.
    diagnostics : passhat.model.diagnostics.Diagnostics
    label : str
        How the fit was made (``fit.method_label``).
    hyper : pandas.DataFrame
        Per system: the posterior mean of μ, κ and the ICC with their equal-tailed intervals
        at ``level`` (``mu``, ``mu_ci_lower``, ``mu_ci_upper``, …).
    ppc : pandas.DataFrame
        The posterior predictive check in whole tasks
        (:func:`passhat.report.figure_data.ppc_frame`).
    outside_notes : tuple of str
        The model's note on posterior means outside their interval (empty when none).
    warnings : tuple of str
        The fit's checks that failed (:meth:`passhat.model.fit_summary.FitSummary.warnings`:
        a model the shape check rejects, a benchmark value the unbiased estimate contradicts,
        k above the runs), shown first in the section.
    comparison : ModelComparison, optional
        None when the comparison was not asked for.
    weights : str, optional
        The task weights the fit recorded (equal, declared, category, mapping; a fit given to
        the report keeps its own): they enter its benchmark scope only.
    """

    fit: Fit
    level: float
    summary: pd.DataFrame
    diagnostics: Diagnostics
    label: str
    hyper: pd.DataFrame
    ppc: pd.DataFrame
    outside_notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    comparison: ModelComparison | None = None
    weights: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the fit passed its diagnostics."""
        return bool(self.diagnostics.passed)


# ------------------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class FlipPlan:
    """Runs that bound the flip rate on a system's clean tasks and pin its flaky tasks' rates.

    ``clean_runs`` is the median number of runs of the tasks that never failed (of all tasks
    when none), ``ruled_out_above`` the exact one-sided 95% bound on their failure rate;
    ``flaky_rate`` (the flaky tasks' median rate, clipped to [0.01, 0.99]), ``width_runs``
    and ``extra_runs_flaky`` are None without a flaky task.
    """

    system: str
    clean_tasks: int
    clean_runs: int
    ruled_out_above: float
    flaky_tasks: int
    flaky_rate: float | None = None
    width_runs: int | None = None
    extra_runs_flaky: int | None = None


@dataclass(frozen=True)
class NextBatch:
    """The next batch of as many runs as tasks (:func:`passhat.plan.next_runs`).

    ``table`` holds the batch's first rows (the largest shares first), ``tasks`` counts all
    the tasks that get runs; ``sentence`` and ``hedge`` are the planner's own words.
    """

    system: str
    table: pd.DataFrame
    tasks: int
    sentence: str
    hedge: str | None = None


@dataclass(frozen=True)
class DesignPlan:
    """The current design, the best of the same budget and the one that halves the
    population interval (:func:`passhat.plan.design`), for pass^k at the largest k.

    ``error`` is the planner's reason when no design can be made (every run passes); the
    numbers are then NaN or 0. ``from_model``: the assumptions are the model's posterior
    (else a Beta-Binomial maximum-likelihood fit to the counts).
    """

    system: str
    budget: int
    from_model: bool
    error: str | None = None
    current_tasks: int = 0
    current_runs_per_task: int = 0
    se_current: float = float("nan")
    se_current_benchmark: float = float("nan")
    best_tasks: int = 0
    best_runs_per_task: int = 0
    best_runs: int = 0
    se_best: float = float("nan")
    se_best_benchmark: float = float("nan")
    half_tasks: int = 0
    se_half: float = float("nan")


@dataclass(frozen=True)
class SystemPlan:
    """A system's part of "What to run next"."""

    flips: FlipPlan
    next_batch: NextBatch
    design: DesignPlan


@dataclass(frozen=True)
class MoreRuns:
    """The expected interval widths of pass^k after ``runs`` more runs per task
    (:meth:`passhat.Fit.more_runs`), and each system's task-sampling share of the
    population posterior variance (``shares``: system → share)."""

    runs: int
    table: pd.DataFrame
    shares: dict[str, float]


@dataclass(frozen=True)
class PlanResults:
    """The planner's results for "What to run next".

    ``detect_runs``: runs per task that show a flip rate of ``flip_rate`` with 95%
    probability; ``systems``: one :class:`SystemPlan` per system with at least two tasks
    and k runs; ``more_runs``: with a plain Beta-Binomial fit only.
    """

    kmax: int
    flip_rate: float
    half_width: float
    detect_runs: int
    systems: tuple[SystemPlan, ...]
    more_runs: MoreRuns | None = None


@dataclass(frozen=True)
class TraceCounts:
    """What the traces given to the report held: tool calls (steps) and runs."""

    tool_calls: int
    trials: int


# ---------------------------------------------------------------------------- the report
@dataclass(frozen=True, repr=False, eq=False)
class ReportResults:
    """Every result the report shows, computed once (:func:`~passhat.report.build.compute_results`).

    Attributes
    ----------
    settings : ReportSettings
    seeds : ReportSeeds
        The seed each random step took.
    data : Trials or xarray.Dataset
        The input.
    counts_all : xarray.Dataset
        Its count table.
    counts : xarray.Dataset
        The same with ``present`` limited to the tasks the estimate kept (the same for every
        system): every later result is computed on these.
    estimate : passhat.Estimate
        Matched tasks, with intervals (and the predictive interval of a new benchmark of as
        many tasks) when ``ci`` is given.
    spread : passhat.spread.Spread
        :func:`passhat.spread` on those tasks, its gap contributions kept at the largest k
        only (the report shows no other).
    curve : pandas.DataFrame, optional
        pass^k and pass@k for k = 1..K with population-scope intervals (the spread figure).
    comparison : passhat.Comparison, optional
        Each system against the baseline (two systems or more, with ``ci``).
    ranking : passhat.Ranking, optional
        Three systems or more, with ``ci``.
    model : ModelResults, optional
        None when the model was not run.
    plan : PlanResults, optional
        None when planning was not asked for.
    slices : passhat.Slices, optional
        Runs by status (and category): trials only.
    divergence : passhat.Divergence or object, optional
        Given, or computed from ``traces``.
    trace_counts : TraceCounts, optional
        With traces: what they held.
    extras : Extras
        Which data-driven sections (partial credit, per category, cost) the report holds.
    cost : passhat.cost_result.CostEstimate, optional
        The estimate's cost result (:attr:`passhat.Estimate.cost`) when the cost section is on.
    clusters : Clusters, optional
        With a cluster column: the clusters per system (the estimate's population intervals
        resample them).
    grader : passhat.graders.GraderCorrection, optional
        With a grader's error given (``grader=``): the headline's values corrected for it, on
        the same tasks with the same weights and clusters (:func:`passhat.correct_grader`).
    cost_comparison : passhat.compare.cost_result.CostComparison or str, optional
        With the cost section, two systems or more and intervals: each system against the
        headline's baseline by :func:`passhat.compare_cost` on the report's tasks with its
        weights, k, level, resamples and seed; a str says why it could not be made.
    """

    settings: ReportSettings
    seeds: ReportSeeds
    data: Trials | xr.Dataset
    counts_all: xr.Dataset
    counts: xr.Dataset
    estimate: Estimate
    spread: Spread
    curve: pd.DataFrame | None = None
    comparison: Comparison | None = None
    ranking: Ranking | None = None
    model: ModelResults | None = None
    plan: PlanResults | None = None
    slices: Slices | None = None
    divergence: Any = None
    trace_counts: TraceCounts | None = None
    extras: Extras = Extras()
    cost: CostEstimate | None = None
    clusters: Clusters | None = None
    grader: GraderCorrection | None = None
    cost_comparison: CostComparison | str | None = None

    @property
    def systems(self) -> list[str]:
        """The systems, in the data's order."""
        return [str(s) for s in self.counts["system"].values]

    @property
    def ks(self) -> list[int]:
        """The k values of the report."""
        return list(self.settings.ks)

    @property
    def fit(self) -> Fit | None:
        """The model's fit, if the model ran."""
        return self.model.fit if self.model is not None else None

    @property
    def input_notes(self) -> list[str]:
        """The reader's notes on the input (they come before the estimate's in the stamp)."""
        if isinstance(self.data, Trials):
            return list(self.data.notes)
        return list(self.data.attrs.get("notes", []))

    @property
    def reader_excluded(self) -> pd.DataFrame | None:
        """Rows the reader excluded, with reasons (trials only)."""
        return self.data.excluded if isinstance(self.data, Trials) else None

    def __repr__(self) -> str:
        held = [
            f.name
            for f in fields(self)
            if f.name not in ("settings", "seeds", "data", "counts_all", "counts", "extras")
            and getattr(self, f.name) is not None
        ]
        return (
            f"ReportResults({len(self.systems)} system(s), k = "
            f"{', '.join(map(str, self.ks))}, seed {self.settings.seed}: {', '.join(held)})"
        )
