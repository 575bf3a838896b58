"""The document from the results: the sections in order, the figures' frames and texts, the
stamp and the per-task table.

:func:`assemble_report` computes nothing: every number it places comes from the
:class:`~passhat.report.results.ReportResults` that :func:`passhat.report.build.compute_results`
made; the sections are pure functions of it (:mod:`passhat.report.sections`).
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat.io import input_stamp
from passhat.report.document import ReportData, Section
from passhat.report.figure_data import (
    figure_texts,
    ppc_text,
    rate_frame,
    thin_curve,
    threshold_text,
)
from passhat.report.results import ReportResults
from passhat.report.sections.categories import category_section
from passhat.report.sections.cost import cost_section
from passhat.report.sections.cost_comparison import cost_comparison_section
from passhat.report.sections.data import data_section
from passhat.report.sections.divergence import divergence_section
from passhat.report.sections.flaky import flaky_section
from passhat.report.sections.graders import grader_section
from passhat.report.sections.headline import headline_section
from passhat.report.sections.leaderboard import (
    leaderboard_figure_texts,
    leaderboard_section,
    value_intervals,
)
from passhat.report.sections.model import model_section
from passhat.report.sections.plan import plan_section
from passhat.report.sections.scores import scores_section
from passhat.report.sections.spread import spread_section
from passhat.report.sections.summary import summary_section

__all__ = ["assemble_report", "report_sections", "report_stamp", "task_table"]


def assemble_report(results: ReportResults) -> ReportData:
    """The report's document (sections, figures, stamp, per-task table) from its results.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], model=False, n_boot=200)
    >>> assemble_report(res).section("spread").title
    '3. Clustered vs uniform spread'
    """
    sections = report_sections(results)
    est, sp, ds = results.estimate, results.spread, results.counts
    kmax = results.settings.kmax
    inc = est.per_task["included"].values.astype(bool)
    rates = rate_frame(results.systems, ds["task"].values, ds["n"].values, ds["c"].values, inc)
    contrib = sp.contributions[sp.contributions["k"] == kmax]
    conc = thin_curve(
        contrib[["system", "task", "contribution", "cumulative", "task_share"]].reset_index(
            drop=True
        )
    )
    figures = figure_texts(sp, curve=results.curve, rates=rates, kmax=kmax)
    if results.ranking is not None:
        figures.update(leaderboard_figure_texts(results.ranking))
    if results.model is not None and results.model.passed:
        figures["ppc"] = ppc_text(results.model.ppc)
    threshold = est.curve.table if est.curve is not None else None
    if threshold is not None:
        figures["threshold_curve"] = threshold_text(threshold, kmax=kmax)
    return ReportData(
        title=results.settings.title,
        sections=sections,
        figure_data={
            "curve": results.curve,
            "rates": rates,
            "concentration": conc,
            "fit": results.fit,
            "ranking": results.ranking,
            "rank_values": value_intervals(results),
            "threshold_curve": threshold,
        },
        figures=figures,
        stamp=report_stamp(results),
        divergence=results.divergence,
        tasks=task_table(est.tasks, contrib, kmax=kmax),
    )


def report_sections(results: ReportResults) -> list[Section]:
    """The sections in report order: summary, data, headline, leaderboard (three systems or
    more), partial credit (scores), by category, cost (each when the data carry its column),
    cost comparison (with the cost section and two systems or more), grader correction (with
    a grader's error), spread, model, flaky, plan and, with a divergence, where failing runs
    diverge.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> [s.id for s in report_sections(res)]
    ['summary', 'data', 'headline', 'spread', 'model', 'flaky', 'plan']
    """
    sections = [data_section(results), headline_section(results)]
    if results.ranking is not None:
        sections.append(leaderboard_section(results))
    for make in (
        scores_section,
        category_section,
        cost_section,
        cost_comparison_section,
        grader_section,
    ):
        if (extra := make(results)) is not None:
            sections.append(extra)
    sections += [
        spread_section(results),
        model_section(results),
        flaky_section(results),
        plan_section(results),
    ]
    if results.divergence is not None:
        sections.append(divergence_section(results))
    return [summary_section(sections, results), *sections]


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


def report_stamp(results: ReportResults) -> dict[str, Any]:
    """Input hashes, package versions, the seed, the settings and the notes (no timestamps).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> report_stamp(res)["settings"]["k"], report_stamp(res)["seed"]
    ([1, 2], 0)
    """
    fitted = results.fit is not None
    model_ok = results.model is not None and results.model.passed
    return {
        "input": input_stamp(results.data),
        "counts_sha256": _data_hash(results.counts_all),
        "versions": _package_versions(("statsmodels", "pymc", "arviz") if fitted else ()),
        "seed": results.settings.seed,
        "settings": {
            **results.settings.record(model_ok=model_ok, fitted=fitted),
            **_extra_settings(results),
        },
        "notes": [*results.input_notes, *results.estimate.notes],
    }


def _extra_settings(results: ReportResults) -> dict[str, Any]:
    """The data-driven sections' settings, recorded when a section is in or its option was
    given (a report of data without these columns records nothing new): each option as given
    (None: detected), whether its section is in, and the clusters per system."""
    ex = results.extras
    asked = ex.asked or {}
    out: dict[str, Any] = {}
    skipped = dict(ex.skipped)
    sections = (
        ("scores", "scores", ex.scores),
        ("by", "by_category", ex.by_category),
        ("cost", "cost", ex.cost),
    )
    for key, section, on in sections:
        if on or asked.get(key) is not None or section in skipped:
            out[key] = {"asked": asked.get(key), "shown": on}
    if "cost" in out:  # which column the cost sections read
        out["cost"]["cost_of"] = ex.cost_of
    if results.clusters is not None:
        out["clusters"] = dict(results.clusters.counts)
    if results.grader is not None:
        out["grader"] = results.grader.to_dict()["grader"]
    return out


def task_table(tasks: pd.DataFrame, contributions: pd.DataFrame, *, kmax: int) -> pd.DataFrame:
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
