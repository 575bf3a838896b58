"""The builder: assembles a ReportData from the section modules, the figure data and a stamp.

:func:`build_report_data` computes every number of the report (pure: no files
read or written, nothing printed or plotted); :mod:`passhat.report.render`
turns the result into HTML, Markdown and ``results.json``.
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

import numpy as np
import xarray as xr

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, resolve_seed
from passhat.errors import OptionError
from passhat.estimate import estimate
from passhat.estimators import as_counts
from passhat.exclusions import default_ks
from passhat.io import input_stamp
from passhat.report.document import ReportData
from passhat.report.figure_data import (
    curve_frame,
    figure_texts,
    ppc_text,
    rate_frame,
    thin_curve,
)
from passhat.report.sections.comparison import comparison_table
from passhat.report.sections.data import data_section
from passhat.report.sections.divergence import divergence_section, trace_divergence
from passhat.report.sections.flaky import flaky_section
from passhat.report.sections.headline import headline_section
from passhat.report.sections.leaderboard import (
    MIN_SYSTEMS,
    leaderboard_figure_texts,
    leaderboard_section,
)
from passhat.report.sections.model import model_section
from passhat.report.sections.plan import plan_section
from passhat.report.sections.spread import spread_section
from passhat.report.sections.summary import summary_section
from passhat.spread import spread
from passhat.traces import Traces
from passhat.trials import Trials

__all__ = ["build_report_data", "task_table"]


def _package_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("passhat", "numpy", "scipy", "pandas", "xarray", "matplotlib", "jinja2", *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def _data_hash(ds: xr.Dataset) -> str:
    """sha256 of the count table the report is computed from."""
    h = hashlib.sha256()
    for var in ("n", "c", "unscored"):
        h.update(np.ascontiguousarray(ds[var].values, dtype=np.int64).tobytes())
    for coord in ("system", "task"):
        h.update("\x1f".join(map(str, ds[coord].values)).encode())
    return h.hexdigest()


def _default_title(data: Trials | xr.Dataset) -> str:
    src = input_stamp(data)
    if "example" in src:
        return f"Reliability report: bundled example {src['example']!r}"
    if "path" in src:
        return f"Reliability report: {Path(src['path']).name}"
    return "Reliability report"


def build_report_data(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = None,
    title: str | None = None,
    seed: int | None = DEFAULT_SEED,
    ci: float | None = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    weights: Any = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    unscored_tasks: Literal["exclude", "error"] = "exclude",
    model: bool | Any = True,
    model_method: str = "grid",
    compare_models: bool = True,
    plan: bool = True,
    divergence: Any = None,
    traces: Traces | None = None,
    tolerate_extra_lookups: bool = False,
    baseline: str | None = None,
    progress: bool | None = None,
) -> ReportData:
    """Compute every number of the report.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials, or a count table (then the status slices are omitted).
    k : int or sequence of int, optional
        k values of the headline and spread tables (default:
        :func:`passhat.exclusions.default_ks`, 1, 2, 5 capped at the fewest
        decided runs of a task — the CLI's default too).
    title : str, optional
        Report title (default: the input's name).
    seed : int or None
        Seed of every random step (bootstrap, model sampler); default
        :data:`passhat._validate.DEFAULT_SEED`; None draws one, recorded in
        the stamp.
    ci : float, optional
        Interval level (None: no intervals).
    n_boot : int
        Bootstrap resamples (default :data:`passhat._validate.DEFAULT_N_BOOT`,
        as every entry point).
    weights, on_short, min_runs, unscored_tasks
        As in :func:`passhat.estimate`. With several systems the exclusions
        apply to matched tasks (``matched=True``): every system is reported
        on the same tasks, and the tasks left out are listed.
    model : bool or fit
        Fit the hierarchical model (True), skip it (False), or use a given fit.
    model_method : str
        Method for the fit when ``model`` is True ("grid" is exact and fast).
    compare_models : bool, default True
        Also fit the zero/one-inflated model (NUTS) and compare the two by
        PSIS-LOO when both fits pass their diagnostics.
    progress : bool, optional
        Progress bar of the inflated model's NUTS fit: None shows it on a terminal only,
        False never (``passhat report --quiet``).
    plan : bool
        Include the planner's section ("What to run next").
    divergence : object, optional
        Result of :func:`passhat.divergence` (or any object with ``.table``)
        for "Where failing runs diverge".
    traces : passhat.Traces, optional
        Traces of the same runs: their divergence is computed here (after
        checking that they share tasks with ``data``). Not with ``divergence``.
    tolerate_extra_lookups : bool
        With ``traces``: as in :func:`passhat.divergence`.
    baseline : str, optional
        The system the others are compared with (default: the first).

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
    if traces is not None:
        if divergence is not None:
            raise OptionError("give traces= or divergence=, not both")
        divergence = trace_divergence(data, traces, tolerate_extra_lookups=tolerate_extra_lookups)
    elif tolerate_extra_lookups:
        raise OptionError("tolerate_extra_lookups= needs traces=")
    ds_all = as_counts(data)
    seed = resolve_seed(seed)
    est_opts: dict[str, Any] = {
        "k": default_ks(ds_all) if k is None else k,
        "weights": weights,
        "on_short": on_short,
        "min_runs": min_runs,
        "unscored_tasks": unscored_tasks,
        "matched": True,
    }
    if ci is not None:
        # the predictive interval: what a new benchmark of as many tasks would show
        est_opts.update(ci=ci, seed=seed, n_boot=n_boot, predictive=int(ds_all.sizes["task"]))
    est = estimate(ds_all, **est_opts)
    ks = [int(v) for v in est.settings["k"]]
    # every later section sees the tasks the estimate kept (the same for every system)
    ds = ds_all.assign(
        present=ds_all["present"]
        & xr.DataArray(est.per_task["included"].values, dims=("system", "task"))
    )
    sp = spread(
        ds,
        k=ks,
        weights=weights,
        on_short=on_short,
        min_runs=min_runs,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
    )
    systems = [str(s) for s in ds["system"].values]
    name = title or _default_title(data)

    if baseline is not None and baseline not in systems:  # before the (slow) model fit
        raise OptionError(
            f"baseline {baseline!r} is not a system of the data (have {', '.join(systems)})"
        )

    # the k-curve first, while few per-task tables are alive (its estimates are the report's
    # largest transient memory at a million tasks)
    inc = est.per_task["included"].values.astype(bool)
    n_inc = ds["n"].values[inc]
    kmax_curve = int(max(ks[-1], min(int(n_inc.min()) if n_inc.size else 1, 20)))
    curve = (
        curve_frame(ds, kmax=kmax_curve, ci=ci, seed=seed, n_boot=n_boot, weights=weights)
        if n_inc.size
        else None
    )

    model_sec, model_rows, fit = model_section(
        ds,
        model,
        ks=ks,
        ci=ci,
        seed=seed,
        method=model_method,
        compare=compare_models,
        progress=progress,
    )
    headline = headline_section(est, ks=ks, ci=ci, model_rows=model_rows)
    if len(systems) > 1 and ci is not None:
        cmp_table, cmp_sentences = comparison_table(
            ds,
            ks=ks,
            ci=ci,
            seed=seed,
            n_boot=n_boot,
            baseline=baseline or systems[0],
            weights=weights,
        )
        headline.tables.append(cmp_table)
        headline.sentences.extend(cmp_sentences)
    ranking = None
    leaderboard = []
    if len(systems) >= MIN_SYSTEMS and ci is not None:  # two systems: the paired comparison
        lb_sec, ranking = leaderboard_section(ds, ks=ks, ci=ci, seed=seed, n_boot=n_boot)
        leaderboard.append(lb_sec)
    # the planner's section before the flaky one: the per-task table (est.tasks, ~250 MB at a
    # million tasks) is built only after the planner's transients are gone
    plan_sec = plan_section(ds, fit=fit, ks=ks, plan=plan)
    sections = [
        data_section(data, ds_all, est),
        headline,
        *leaderboard,
        spread_section(sp, ks=ks, ci=ci),
        model_sec,
        flaky_section(est, ci=ci),
        plan_sec,
    ]
    if divergence is not None:
        sections.append(divergence_section(divergence))
    sections.insert(0, summary_section(sections, ks=ks, ci=ci))

    # ---- figure data
    rates = rate_frame(systems, ds["task"].values, ds["n"].values, ds["c"].values, inc)
    kmax = ks[-1]
    contrib = sp.contributions[sp.contributions["k"] == kmax]
    conc = thin_curve(
        contrib[["system", "task", "contribution", "cumulative", "task_share"]].reset_index(
            drop=True
        )
    )
    figures = figure_texts(sp, curve=curve, rates=rates, kmax=kmax)
    # the spread's contributions at every k (~130 MB at a million tasks) go before the task
    # table is joined with those at kmax
    del sp
    tasks = task_table(est.tasks, contrib, kmax=kmax)
    if ranking is not None:
        figures.update(leaderboard_figure_texts(ranking))
    if model_sec.status == "ok" and fit is not None:
        model_sec.figures.append("ppc")
        figures["ppc"] = ppc_text(fit)
    stamp: dict[str, Any] = {
        "input": input_stamp(data),
        "counts_sha256": _data_hash(ds_all),
        "versions": _package_versions(("statsmodels", "pymc", "arviz") if fit is not None else ()),
        "seed": seed,
        "settings": {
            "k": ks,
            "ci": ci,
            "n_boot": n_boot,
            "seed": seed,
            "weights": weights if isinstance(weights, str | None) else "mapping",
            "on_short": on_short,
            "min_runs": min_runs,
            "unscored_tasks": unscored_tasks,
            "matched": True,
            "model": model_sec.status == "ok",
            "model_method": model_method if fit is not None else None,
            "compare_models": compare_models,
            "baseline": baseline,
            "plan": plan,
            "title": name,
        },
        "notes": [
            *(data.notes if isinstance(data, Trials) else data.attrs.get("notes", [])),
            *est.notes,
        ],
    }
    return ReportData(
        title=name,
        sections=sections,
        figure_data={
            "curve": curve,
            "rates": rates,
            "concentration": conc,
            "fit": fit,
            "ranking": ranking,
        },
        figures=figures,
        stamp=stamp,
        divergence=divergence,
        tasks=tasks,
    )


def task_table(tasks: Any, contributions: Any, *, kmax: int) -> Any:
    """The report's per-task detail (``tasks.parquet``): the estimate's per-task table with each
    task's share of the gap mean − pass^kmax.

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.load_example("abcd")
    >>> sp = ph.spread(ds, k=[2])
    >>> t = task_table(ph.estimate(ds, k=[1, 2]).tasks, sp.contributions, kmax=2)
    >>> t[["task", "n", "c", "gap_contribution"]].round(3).values.tolist()[1]
    ['B', 5, 4, 0.05]
    """
    gap = contributions[["system", "task", "contribution"]].rename(
        columns={"contribution": "gap_contribution"}
    )
    out = tasks.merge(gap, on=["system", "task"], how="left", sort=False)
    out.attrs["gap_k"] = int(kmax)
    return out
