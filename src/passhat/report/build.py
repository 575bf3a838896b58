"""The builder: every result of the report, computed once, in one place.

:func:`compute_results` runs each computation of the report (the estimate, the spread, the
k-curve, the paired comparison, the ranking, the model and its comparison, the planner, the
status slices, the divergence of traces) with one seed stream (see
:mod:`passhat.report.results`) and returns a frozen
:class:`~passhat.report.results.ReportResults`. :func:`build_report_data` then assembles the
document from it (:func:`passhat.report.assemble.assemble_report`: the sections, pure
functions of the results, the figures' texts and the stamp). Pure: no files read or written,
nothing printed or plotted; :mod:`passhat.report.render` writes the files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np
import xarray as xr

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, resolve_seed
from passhat.bootstrap import FEW_CLUSTERS
from passhat.compare import compare
from passhat.compare.cost import compare_cost
from passhat.errors import InputError, OptionError, ValidationError
from passhat.estimate import estimate
from passhat.estimate_result import Estimate
from passhat.estimators import as_counts
from passhat.exclusions import default_ks
from passhat.model import Fit, compare_models, fit
from passhat.model.summaries import mean_outside_note
from passhat.planner import (
    design,
    failure_upper_bound,
    next_runs,
    runs_for_width,
    runs_to_detect,
)
from passhat.rank import rank
from passhat.report.assemble import assemble_report
from passhat.report.document import ReportData
from passhat.report.extras import ExtrasPlan, plan_extras, without_cost
from passhat.report.figure_data import curve_frame, ppc_frame
from passhat.report.results import (
    Clusters,
    DesignPlan,
    Extras,
    FlipPlan,
    ModelComparison,
    ModelResults,
    MoreRuns,
    NextBatch,
    PlanResults,
    ReportResults,
    ReportSeeds,
    ReportSettings,
    SystemPlan,
    TraceCounts,
)
from passhat.slices import Slices, slices
from passhat.spread import Spread, spread
from passhat.traces import Divergence, Traces, divergence
from passhat.trials import Trials, provenance

if TYPE_CHECKING:
    from typing import Unpack

    from passhat.compare.cost_result import CostComparison
    from passhat.compare.paired import Comparison
    from passhat.cost_result import CostEstimate
    from passhat.graders.result import GraderCorrection
    from passhat.graders.spec import GraderSpec
    from passhat.rank.result import Ranking

__all__ = [
    "FLIP_RATE",
    "HALF_WIDTH",
    "MAX_NEXT_ROWS",
    "MIN_SYSTEMS",
    "MORE_RUNS_SIMULATIONS",
    "ReportOptions",
    "build_report_data",
    "compute_results",
    "trace_divergence",
]

#: Systems from which the report ranks them (a leaderboard section); with two, the paired
#: comparison of the headline says it.
MIN_SYSTEMS = 3
#: Flip rate whose detection the plan is made for on tasks that never failed.
FLIP_RATE = 0.10
#: Half-width of a per-task success-rate interval the flaky tasks are planned for.
HALF_WIDTH = 0.10
#: Next-batch rows per system kept in the report and results.json (the batch's largest
#: shares first); ``passhat plan next`` writes the whole batch.
MAX_NEXT_ROWS = 60
#: Simulated sets of new runs behind the "more runs" rows (expected widths; MC error ≈ 1%).
MORE_RUNS_SIMULATIONS = 100


class ReportOptions(TypedDict, total=False):
    """The report's further options, beside those every entry point names (each described
    in :func:`passhat.report`; defaults in :data:`DEFAULTS`)."""

    weights: Any
    on_short: Literal["error", "exclude"]
    min_runs: int | None
    unscored_tasks: Literal["exclude", "error"]
    model_method: str
    compare_models: bool
    tolerate_extra_lookups: bool
    progress: bool | None
    scores: Any
    by: Any
    cost: bool | None
    cost_of: str
    grader: Mapping[str, Any] | None


#: Each further option's default.
DEFAULTS: ReportOptions = {
    "weights": None,
    "on_short": "error",
    "min_runs": None,
    "unscored_tasks": "exclude",
    "model_method": "grid",
    "compare_models": True,
    "tolerate_extra_lookups": False,
    "progress": None,
    "scores": None,
    "by": None,
    "cost": None,
    "cost_of": "cost",
    "grader": None,
}


class _Request(ReportOptions, total=False):
    """Every option of a report, as :func:`compute_results` reads them."""

    k: int | Sequence[int] | None
    title: str | None
    seed: int | None
    ci: float | None
    n_boot: int
    model: bool | Fit
    plan: bool
    baseline: str | None
    divergence: Any


def _further(given: ReportOptions) -> ReportOptions:
    """The further options with their defaults; an unknown one is a TypeError (as for any
    function)."""
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"report() got an unexpected keyword argument {unknown[0]!r}")
    return {**DEFAULTS, **given}


def build_report_data(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = None,
    title: str | None = None,
    seed: int | None = DEFAULT_SEED,
    ci: float | None = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    model: bool | Fit = True,
    plan: bool = True,
    baseline: str | None = None,
    divergence: Any = None,
    traces: Traces | None = None,
    **options: Unpack[ReportOptions],
) -> ReportData:
    """Compute every number of the report (:func:`compute_results`) and assemble its document.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials, or a count table (then the status slices are omitted).
    k, title, seed, ci, n_boot, model, plan, baseline, divergence
        As in :func:`passhat.report`.
    traces : passhat.Traces, optional
        Traces of the same runs: their divergence is computed (after checking that they share
        tasks with ``data``). Not with ``divergence``.
    **options
        The further options of :func:`passhat.report` (:class:`ReportOptions`): ``weights``,
        ``on_short``, ``min_runs``, ``unscored_tasks`` (as in :func:`passhat.estimate`),
        ``model_method``, ``compare_models``, ``tolerate_extra_lookups``, ``progress``,
        ``scores``, ``by``, ``cost``, ``cost_of`` (the sections that follow the data's
        columns: :mod:`passhat.report.extras`), ``grader`` (the grader's error, as
        :func:`passhat.correct_grader` takes it: the "Grader correction" section).

    Returns
    -------
    ReportData

    Examples
    --------
    >>> import passhat as ph
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, seed=0)
    >>> [s.id for s in rd.sections][:3]
    ['summary', 'data', 'headline']
    """
    results = compute_results(
        data,
        k=k,
        title=title,
        seed=seed,
        ci=ci,
        n_boot=n_boot,
        model=model,
        plan=plan,
        baseline=baseline,
        divergence=divergence,
        traces=traces,
        **options,
    )
    return assemble_report(results)


def compute_results(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = None,
    title: str | None = None,
    seed: int | None = DEFAULT_SEED,
    ci: float | None = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    model: bool | Fit = True,
    plan: bool = True,
    baseline: str | None = None,
    divergence: Any = None,
    traces: Traces | None = None,
    **options: Unpack[ReportOptions],
) -> ReportResults:
    """Every result of the report, each computed once, with the report's seed stream.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials, or a count table (then the status slices are omitted).
    k, title, seed, ci, n_boot, model, plan, baseline, divergence
        As in :func:`passhat.report`.
    traces : passhat.Traces, optional
        As in :func:`build_report_data`.
    **options
        As in :func:`build_report_data` (:class:`ReportOptions`). With several systems the
        exclusions apply to matched tasks: every system is reported on the same tasks.

    Returns
    -------
    ReportResults

    Examples
    --------
    >>> import passhat as ph
    >>> res = compute_results(ph.load_example("agents"), k=[1, 5], model=False, plan=False,
    ...                       n_boot=200, seed=1)
    >>> res.seeds.comparison, res.ranking is None, res.comparison.settings["seed"]
    (1, True, 1)
    """
    opts: _Request = {
        **_further(options),
        "k": k,
        "title": title,
        "seed": seed,
        "ci": ci,
        "n_boot": n_boot,
        "model": model,
        "plan": plan,
        "baseline": baseline,
        "divergence": divergence,
    }
    _check_options(opts)  # the options first, before any work
    grading = _grader_spec(data, opts["grader"])
    seed = resolve_seed(opts["seed"])
    seeds = ReportSeeds.from_seed(seed)
    div, trace_counts = _divergence_input(data, traces, opts)
    ds_all = as_counts(data)
    wanted = plan_extras(data, scores=opts["scores"], by=opts["by"], cost=opts["cost"], ds=ds_all,
                         cost_of=opts["cost_of"])  # fmt: skip
    # runs (not their counts) only when a score or a cost is read from them
    est = _estimate(ds_all, opts, seeds, wanted, runs=data)
    extras, cost = _cost(est, wanted.extras)
    settings = _settings(data, est, opts, seed)
    # every later result sees the tasks the estimate kept (the same for every system)
    ds = ds_all.assign(
        present=ds_all["present"]
        & xr.DataArray(est.per_task["included"].values, dims=("system", "task"))
    )
    sp = _spread(ds, settings, seeds.spread)
    systems = [str(s) for s in ds["system"].values]
    if settings.baseline is not None and settings.baseline not in systems:  # before the fit
        raise OptionError(
            f"baseline {settings.baseline!r} is not a system of the data (have "
            f"{', '.join(systems)})"
        )
    # the k-curve first, while few per-task tables are alive (its estimates are the report's
    # largest transient memory at a million tasks)
    curve = _curve(ds, est, settings, seeds.curve)
    model_res = _model_results(ds, opts["model"], settings, seeds, progress=opts["progress"])
    comparison, ranking = _comparisons(ds, settings, seeds)
    fitted = model_res.fit if model_res is not None else None
    plan_res = _plan_results(ds, fitted, settings.kmax) if settings.plan else None
    # the per-task table (~250 MB at a million tasks) once the planner's transients are gone
    est.tasks  # noqa: B018 (built here, once: the flaky section and tasks.parquet read it)
    return ReportResults(
        settings=settings,
        seeds=seeds,
        data=data,
        counts_all=ds_all,
        counts=ds,
        estimate=est,
        spread=sp,
        curve=curve,
        comparison=comparison,
        ranking=ranking,
        model=model_res,
        plan=plan_res,
        slices=_slices(data),
        divergence=div,
        trace_counts=trace_counts,
        extras=extras,
        cost=cost,
        clusters=_cluster_counts(est),
        grader=_grader(ds, _audit_on(data, ds, grading, opts), settings, seeds.grader),
        cost_comparison=_cost_comparison(data, ds, cost, settings, seeds.cost_comparison),
    )


# ------------------------------------------------------------------- inputs and settings
def _check_options(opts: _Request) -> None:
    """Refuse an interval level out of (0, 1) and a ``model`` that is not True, False or a fit."""
    if opts["ci"] is not None:
        check_ci(opts["ci"])
    model = opts["model"]
    if not isinstance(model, Fit) and model is not True and model is not False:
        raise TypeError(f"model= must be True, False or a passhat.Fit (got {type(model).__name__})")


def _divergence_input(
    data: Trials | xr.Dataset, traces: Traces | None, opts: _Request
) -> tuple[Any, TraceCounts | None]:
    """The divergence to show (given, or computed from ``traces``) and what the traces held;
    the options checked before any other work."""
    given = opts["divergence"]
    if traces is not None:
        if given is not None:
            raise OptionError("give traces= or divergence=, not both")
        div = trace_divergence(data, traces, tolerate_extra_lookups=opts["tolerate_extra_lookups"])
        counts = TraceCounts(tool_calls=len(traces.steps), trials=len(traces.trials))
        if counts.tool_calls:  # no tool call: the section says there is nothing to align
            check_divergence(div)
        return div, counts
    if opts["tolerate_extra_lookups"]:
        raise OptionError(
            "{param} needs {traces}", param="tolerate_extra_lookups", also=("traces",)
        )
    if given is not None:
        check_divergence(given)
    return given, None


def check_divergence(div: Any) -> None:
    """Refuse a divergence result with nothing to show: neither a non-empty ``table`` nor
    ``by_action`` data frame.

    Examples
    --------
    >>> import pandas as pd
    >>> class Div:
    ...     table = pd.DataFrame()
    >>> check_divergence(Div())
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: divergence= needs an object with a non-empty .table or \
.by_action data frame
    """
    import pandas as pd

    frames = (getattr(div, "table", None), getattr(div, "by_action", None))
    has_rows = any(isinstance(f, pd.DataFrame) and len(f) for f in frames)
    if not has_rows and not (getattr(div, "sentences", None) or []):
        raise OptionError(
            "divergence= needs an object with a non-empty .table or .by_action data frame"
        )


def trace_divergence(
    data: Trials | xr.Dataset, traces: Traces, *, tolerate_extra_lookups: bool = False
) -> Divergence:
    """The divergence points of the traces of the report's runs.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        The report's runs.
    traces : passhat.Traces
        Traces of the same runs (e.g. read from the same τ-bench file).
    tolerate_extra_lookups : bool
        As in :func:`passhat.divergence`.

    Returns
    -------
    passhat.Divergence

    Raises
    ------
    OptionError
        When none of the traces' tasks is among the runs' tasks: the trace
        file of another benchmark (or another run) was given.

    Examples
    --------
    >>> import passhat as ph, pandas as pd
    >>> steps = pd.DataFrame({"task_id": ["x"], "trial": [0], "action": ["lookup"]})
    >>> trials = pd.DataFrame({"task_id": ["x"], "trial": [0], "success": [True]})
    >>> tr = ph.Traces.from_frames(steps, trials)
    >>> trace_divergence(ph.load_example("abcd"), tr)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: traces: none of its 1 task(s) (e.g. x) is among the tasks of ...
    """
    trace_tasks = {str(t) for t in traces.trials["task_id"].unique()}
    run_tasks = {str(t) for t in as_counts(data)["task"].values}
    if trace_tasks and not trace_tasks & run_tasks:
        where = traces.source.get("path")
        src = provenance(data)
        runs = src.get("example") or src.get("path") or "the runs"
        raise OptionError(
            f"traces{' ' + str(where) if where else ''}: none of its {len(trace_tasks)} task(s) "
            f"(e.g. {', '.join(sorted(trace_tasks)[:3])}) is among the tasks of "
            f"{runs} (e.g. {', '.join(sorted(run_tasks)[:3])}); "
            "give the trace file of the same runs"
        )
    return divergence(traces, tolerate_extra_lookups=tolerate_extra_lookups)


def _default_title(data: Trials | xr.Dataset) -> str:
    from pathlib import PurePath

    src = provenance(data)
    if "example" in src:
        return f"Reliability report: bundled example {src['example']!r}"
    if "file_names" in src:  # several files as one (passhat.inputs.combine_inputs)
        return f"Reliability report: {src['file_names']}"
    if "path" in src:
        return f"Reliability report: {PurePath(src['path']).name}"
    return "Reliability report"


def _settings(
    data: Trials | xr.Dataset, est: Estimate, opts: _Request, seed: int
) -> ReportSettings:
    return ReportSettings(
        ks=tuple(int(v) for v in est.settings["k"]),
        ci=opts["ci"],
        n_boot=opts["n_boot"],
        seed=seed,
        weights=opts["weights"],
        on_short=opts["on_short"],
        min_runs=opts["min_runs"],
        unscored_tasks=opts["unscored_tasks"],
        model_method=opts["model_method"],
        compare_models=opts["compare_models"],
        baseline=opts["baseline"],
        plan=opts["plan"],
        title=opts["title"] or _default_title(data),
    )


# ------------------------------------------------------------ estimate, curve and slices
def _estimate(
    ds_all: xr.Dataset,
    opts: _Request,
    seeds: ReportSeeds,
    wanted: ExtrasPlan,
    *,
    runs: Trials | xr.Dataset,
) -> Estimate:
    """The report's estimate on matched tasks, with intervals when ``ci`` is given, and the
    extras ``wanted`` (partial credit, per category; the cost is read from it later): from the
    ``runs`` when a score or a cost is read from them, else from their count table."""
    k = opts["k"]
    est_opts: dict[str, Any] = {
        "k": default_ks(ds_all) if k is None else k,
        "weights": opts["weights"],
        "on_short": opts["on_short"],
        "min_runs": opts["min_runs"],
        "unscored_tasks": opts["unscored_tasks"],
        "matched": True,
    }
    if wanted.scores is not False:
        est_opts["scores"] = wanted.scores
    if wanted.by is not None:
        est_opts["by"] = wanted.by
    if opts["ci"] is not None:
        # the predictive interval: what a new benchmark of as many tasks would show
        est_opts.update(
            ci=opts["ci"],
            seed=seeds.estimate,
            n_boot=opts["n_boot"],
            predictive=int(ds_all.sizes["task"]),
        )
    est = estimate(runs if wanted.scores or wanted.extras.cost else ds_all, **est_opts)
    return est.with_cost_of(wanted.extras.cost_of)


def _cost(est: Estimate, extras: Extras) -> tuple[Extras, CostEstimate | None]:
    """The estimate's cost result when the cost section is on; a detected cost column whose
    runs cannot be priced leaves the section out with the reason (asked for: the error)."""
    if not extras.cost:
        return extras, None
    try:
        return extras, est.cost
    except ValidationError as err:
        if (extras.asked or {}).get("cost") is True or extras.cost_of != "cost":
            raise
        return without_cost(extras, str(err)), None


def _cost_comparison(
    data: Trials | xr.Dataset,
    ds: xr.Dataset,
    cost: CostEstimate | None,
    settings: ReportSettings,
    seed: int,
) -> CostComparison | str | None:
    """With the cost section, two systems or more and intervals: each system's costs against
    the baseline's (:func:`passhat.compare_cost`) on the report's tasks (``ds``'s present
    cells), with its weights, k, level, resamples and seed; why not, when it cannot be made."""
    systems = [str(s) for s in ds["system"].values]
    if cost is None or len(systems) < 2 or settings.ci is None or not isinstance(data, Trials):
        return None
    import pandas as pd

    present = ds["present"].to_pandas().stack().astype(bool)
    kept = present[present].index
    kept = pd.MultiIndex.from_arrays([kept.get_level_values(i).astype(str) for i in (0, 1)])
    df = data.frame
    pairs = pd.MultiIndex.from_arrays([df["system"].astype(str), df["task_id"].astype(str)])
    mine = np.asarray(pairs.isin(kept), dtype=bool)
    runs = Trials(frame=df[mine].reset_index(drop=True), source=data.source,
                  excluded=data.excluded, notes=list(data.notes))  # fmt: skip
    try:
        return compare_cost(
            runs, k=list(settings.ks), ci=settings.ci, n_boot=settings.n_boot, seed=seed,
            intersect=True, baseline=settings.baseline or systems[0], weights=settings.weights,
            cost_of=cost.cost_of,  # type: ignore[arg-type]
        )  # fmt: skip
    except (ValidationError, OptionError) as err:  # e.g. no matched task with a cost for both
        return str(err)


def _grader_spec(
    data: Trials | xr.Dataset, given: Mapping[str, Any] | None
) -> tuple[GraderSpec, tuple[str, ...]] | None:
    """The grader's error from ``grader`` (the keywords of :func:`passhat.correct_grader` that
    say it; a truth column is read from the runs), checked before any work; None without."""
    if given is None:
        return None
    if not isinstance(given, Mapping):
        raise OptionError(
            "{param} must be a mapping of the grader's error: sensitivity and specificity, "
            f"audit (TP, FN, TN, FP) or truth (a column), got {given!r}",
            param="grader",
        )
    from passhat.graders.correct import grader_spec

    allowed = {"sensitivity", "specificity", "audit", "truth"}
    if unknown := sorted(set(map(str, given)) - allowed):
        raise OptionError(
            f"{{param}}: unknown key {unknown[0]!r} (give {', '.join(sorted(allowed))})",
            param="grader",
        )
    return grader_spec(data, **given)


def _audit_on(
    data: Trials | xr.Dataset,
    ds: xr.Dataset,
    spec: tuple[GraderSpec, tuple[str, ...]] | None,
    opts: _Request,
) -> tuple[GraderSpec, tuple[str, ...]] | None:
    """A truth column's audit counted again on the runs of the tasks the report averages
    (``ds``'s, with its weights), not on every run: the audit is of the runs it corrects."""
    given = opts["grader"]
    if spec is None or given is None or given.get("truth") is None:
        return spec
    from passhat.graders.correct import grader_spec, kept_cells

    return grader_spec(data, truth=given["truth"], keep=kept_cells(ds, opts["weights"]))


def _grader(
    ds: xr.Dataset,
    spec: tuple[GraderSpec, tuple[str, ...]] | None,
    settings: ReportSettings,
    seed: int,
) -> GraderCorrection | None:
    """The headline's values corrected for the grader's error, on the estimate's tasks
    (``ds``), with its weights, clusters, k, interval level and draws; None without ``spec``."""
    if spec is None:
        return None
    from passhat.graders.correct import correct_with

    return correct_with(
        ds,
        spec[0],
        audit_notes=spec[1],
        weights=settings.weights,
        k=list(settings.ks),
        ci=settings.ci,
        n_boot=settings.n_boot,
        seed=seed,
    )


def _cluster_counts(est: Estimate) -> Clusters | None:
    """The clusters per system when the tasks carry a cluster (the estimate's record)."""
    counts = est.settings.get("clusters") or {}
    return Clusters(counts=dict(counts), few=FEW_CLUSTERS) if counts else None


def _curve(ds: xr.Dataset, est: Estimate, settings: ReportSettings, seed: int) -> Any:
    """pass^k and pass@k for k = 1..K (K: the largest k, or up to 20 when every task has
    that many runs), with population-scope intervals; None without an included task."""
    inc = est.per_task["included"].values.astype(bool)
    n_inc = ds["n"].values[inc]
    if not n_inc.size:
        return None
    kmax = int(max(settings.kmax, min(int(n_inc.min()), 20)))
    return curve_frame(
        ds, kmax=kmax, ci=settings.ci, seed=seed, n_boot=settings.n_boot, weights=settings.weights
    )


def _spread(ds: xr.Dataset, settings: ReportSettings, seed: int) -> Spread:
    """The spread on the report's tasks, with its gap contributions at the largest k only: the
    report shows no other (those at every k are ~130 MB at a million tasks)."""
    sp = spread(
        ds,
        k=list(settings.ks),
        weights=settings.weights,
        on_short=settings.on_short,  # type: ignore[arg-type]
        min_runs=settings.min_runs,
        ci=settings.ci,
        n_boot=settings.n_boot,
        seed=seed,
    )
    return _gap_at_kmax(sp, settings.kmax)


def _comparisons(
    ds: xr.Dataset, settings: ReportSettings, seeds: ReportSeeds
) -> tuple[Comparison | None, Ranking | None]:
    """Each system against the baseline (two systems or more) and the ranking (three or more),
    with intervals only."""
    systems = [str(s) for s in ds["system"].values]
    ks, ci, n_boot = list(settings.ks), settings.ci, settings.n_boot
    if len(systems) < 2 or ci is None:
        return None, None
    comparison = compare(
        ds,
        k=ks,
        ci=ci,
        seed=seeds.comparison,
        n_boot=n_boot,
        intersect=True,
        baseline=settings.baseline or systems[0],
        weights=settings.weights,
    )
    ranking = None
    if len(systems) >= MIN_SYSTEMS:  # two systems: the paired comparison says it
        ranking = rank(
            ds,
            k=ks,
            ci=ci,
            n_boot=n_boot,
            seed=seeds.ranking,
            intersect=True,
            weights=settings.weights,
        )
    return comparison, ranking


def _gap_at_kmax(sp: Spread, kmax: int) -> Spread:
    """The spread with its gap contributions at the largest k only: the report shows no other
    (those at every k are ~130 MB at a million tasks; this keeps the report's peak memory)."""
    at_kmax = sp.contributions[sp.contributions["k"] == kmax].copy()
    return replace(sp, contributions=at_kmax)


def _slices(data: Trials | xr.Dataset) -> Slices | None:
    """Runs by status, and by category when every run declares one (trials only)."""
    if not isinstance(data, Trials):
        return None
    by = ["status"]
    if "category" in data.frame.columns and data.frame["category"].notna().all():
        by.append("category")
    return slices(data, by=by)


# ------------------------------------------------------------------------------ the model
def _model_results(
    ds: xr.Dataset,
    model: bool | Fit,
    settings: ReportSettings,
    seeds: ReportSeeds,
    *,
    progress: bool | None,
) -> ModelResults | None:
    """Fit (or take) the hierarchical model and read what the report shows of it."""
    if model is False:
        return None
    ks = list(settings.ks)
    f = (
        model
        if isinstance(model, Fit)
        else fit(
            ds,
            k=ks,
            seed=seeds.fit,
            method=settings.model_method,
            progress=False,
            weights=settings.weights,
        )
    )
    level = settings.ci or 0.95
    summary = f.summary(k=ks, ci=level)
    summarized = f.summarize(k=ks, ci=level)
    comparison = None
    if settings.compare_models:
        comparison = _model_comparison(ds, f, ks, seeds.inflated, progress=progress)
    return ModelResults(
        fit=f,
        level=level,
        summary=summary,
        diagnostics=f.diagnostics,
        label=str(f.method_label),
        hyper=_hyper(f, level),
        ppc=ppc_frame(f),
        outside_notes=tuple(mean_outside_note(summary)),
        comparison=comparison,
        warnings=tuple(summarized.warnings()),
        weights=summarized.settings.weights,
    )


def _hyper(f: Fit, level: float) -> Any:
    """Per system: posterior mean and equal-tailed interval of μ, κ and the ICC (a stacked fit:
    the ICC only; its μ and κ draws are the Beta component's, not the fit's)."""
    import pandas as pd

    post = f.idata.posterior
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    names = ("icc",) if f.model == "auto" else ("mu", "kappa", "icc")
    rows = []
    for system in (str(s) for s in post["system"].values):
        row: dict[str, Any] = {"system": system}
        for var in names:
            if var not in post:
                continue
            x = np.asarray(post[var].sel(system=system).values, dtype=float).ravel()
            row[var] = float(np.mean(x))
            row[f"{var}_ci_lower"] = float(np.quantile(x, lo_q))
            row[f"{var}_ci_upper"] = float(np.quantile(x, hi_q))
        rows.append(row)
    return pd.DataFrame(rows)


def _model_comparison(
    ds: xr.Dataset, f: Fit, ks: list[int], seed: int, *, progress: bool | None
) -> ModelComparison:
    """A stacked fit (the default): its own comparison of the Beta, inflated and discrete
    models by exact leave-one-task-out, with the stacking weights it used (no other fit). A
    one-model fit given to the report: plain Beta vs zero/one-inflated (fitted on its grid)
    by PSIS-LOO, when both fits pass their diagnostics."""
    if not f.diagnostics.passed:
        return ModelComparison("plain_failed")
    if f.model == "auto":
        return ModelComparison("compared", table=f.model_comparison().table, exact=True)
    inflated = fit(ds, k=ks, seed=seed, model="inflated", progress=progress)
    if not inflated.diagnostics.passed:
        return ModelComparison("inflated_failed", problems=tuple(inflated.diagnostics.problems[:3]))
    return ModelComparison(
        "compared", table=compare_models({str(f.model): f, "inflated": inflated}).table
    )


# ------------------------------------------------------------------------------- the plan
def _plan_results(ds: xr.Dataset, f: Fit | None, kmax: int) -> PlanResults:
    """Per system with at least two tasks and k runs: the flip-rate runs, the next batch and
    the designs of the same budget; with a plain Beta fit, what more runs would buy."""
    detect = int(runs_to_detect(flip_rate=FLIP_RATE, ci=0.95))
    plans = []
    for s, system in enumerate(str(x) for x in ds["system"].values):
        present = ds["present"].values[s].astype(bool)
        n = ds["n"].values[s][present]
        c = ds["c"].values[s][present]
        if n.size < 2 or int(n.sum()) < kmax:
            continue
        plans.append(
            SystemPlan(
                flips=_flips(system, n, c),
                next_batch=_next_batch(ds, system, int(n.size), kmax),
                design=_design(ds, f, system, n, kmax),
            )
        )
    n_all = ds["n"].values[ds["present"].values.astype(bool)]
    return PlanResults(
        kmax=kmax,
        flip_rate=FLIP_RATE,
        half_width=HALF_WIDTH,
        detect_runs=detect,
        systems=tuple(plans),
        more_runs=_more_runs(f, int(np.median(n_all)) if n_all.size else 1, kmax),
    )


def _flips(system: str, n: np.ndarray, c: np.ndarray) -> FlipPlan:
    """Runs that bound the flip rate on the clean tasks and pin the flaky tasks' rates."""
    flaky = (c > 0) & (c < n)
    clean = c == n
    n_clean = int(np.median(n[clean])) if clean.any() else int(np.median(n))
    bound = float(failure_upper_bound(runs=max(n_clean, 1), failures=0, ci=0.95))
    plan = FlipPlan(
        system=system,
        clean_tasks=int(clean.sum()),
        clean_runs=n_clean,
        ruled_out_above=bound,
        flaky_tasks=int(flaky.sum()),
    )
    if not flaky.any():
        return plan
    rate = min(max(float(np.median(c[flaky] / n[flaky])), 0.01), 0.99)
    width = int(runs_for_width(half_width=HALF_WIDTH, rate=rate, method="wilson"))
    extra = max(width - int(np.median(n[flaky])), 0)
    return replace(
        plan, flaky_rate=rate, width_runs=width, extra_runs_flaky=extra * int(flaky.sum())
    )


def _next_batch(ds: xr.Dataset, system: str, n_tasks: int, kmax: int) -> NextBatch:
    """The next batch of as many runs as tasks, by :func:`passhat.plan.next_runs`."""
    r = next_runs(ds, budget=max(n_tasks, 1), k=kmax, system=system)
    return NextBatch(
        system=system,
        table=r.batch.head(MAX_NEXT_ROWS).copy(),  # a copy: the whole batch is not kept
        tasks=len(r.batch),
        sentence=r.sentences[0] if r.sentences else "",
        hedge=r.hedge_sentence,  # the batch spread evenly, and why
    )


def _design(ds: xr.Dataset, f: Fit | None, system: str, n: np.ndarray, kmax: int) -> DesignPlan:
    """The current design, the best design of the same budget and the one that halves the
    population interval (assumptions: the model's posterior when it ran, else an ML
    Beta-Binomial fit to the counts)."""
    budget = int(n.sum())
    post = f.idata.posterior if f is not None else None
    from_model = post is not None and "mu" in post and "kappa" in post
    try:
        designed = design(budget_runs=budget, k=kmax, prior=f if from_model else ds, system=system)
    except (InputError, OptionError) as err:  # all pass (or fail), or too many runs to plan
        return DesignPlan(system=system, budget=budget, from_model=from_model, error=str(err))
    tab, opt = designed.table, designed.optimum
    cur_n = round(float(np.median(n)))
    cur = tab[
        (tab["metric"] == "pass_hat_k")
        & (tab["runs_per_task"] == cur_n)
        & (tab["tasks"] == budget // cur_n)
    ]
    se_cur = float(cur["se_population"].iloc[0]) if len(cur) else math.nan
    se_opt = float(opt["se_population"])
    # se_population ∝ 1/√T at fixed n (exact under the design's model): tasks to halve it
    target = se_cur / 2 if math.isfinite(se_cur) else se_opt / 2
    return DesignPlan(
        system=system,
        budget=budget,
        from_model=from_model,
        current_tasks=int(n.size),
        current_runs_per_task=cur_n,
        se_current=se_cur,
        se_current_benchmark=float(cur["se_benchmark"].iloc[0]) if len(cur) else math.nan,
        best_tasks=int(opt["tasks"]),
        best_runs_per_task=int(opt["runs_per_task"]),
        best_runs=int(opt["runs"]),
        se_best=se_opt,
        se_best_benchmark=float(opt["se_benchmark"]),
        half_tasks=math.ceil(opt["tasks"] * (se_opt / target) ** 2),
        se_half=target,
    )


def _more_runs(f: Fit | None, n_runs: int, kmax: int) -> MoreRuns | None:
    """The expected interval after as many more runs per task again (a plain Beta fit only)."""
    if f is None or getattr(f, "model", None) != "beta":
        return None
    table = f.more_runs(runs=[n_runs], k=[kmax], simulations=MORE_RUNS_SIMULATIONS)
    table = table[(table["metric"] == "pass_hat_k") & (table["k"] == kmax)]
    summary = f.summary(k=[kmax])
    pop = summary[(summary["metric"] == "pass_hat_k") & (summary["scope"] == "population")]
    shares = {}
    for system in table["system"].unique():
        mine = pop[pop["system"] == system]
        shares[str(system)] = float(mine["task_sampling_share"].iloc[0]) if len(mine) else math.nan
    return MoreRuns(runs=n_runs, table=table, shares=shares)
