"""Reliability reports: summaries (data) → render (HTML / Markdown / JSON) ← plots.

:func:`report` is the one call: it computes every number
(:func:`passhat.report.summaries.build_report_data`) and writes the files
(:func:`passhat.report.render.write_report`).

Examples
--------
>>> import passhat as ph, tempfile
>>> res = ph.report(ph.load_example("abcd"), tempfile.mkdtemp(), k=[1, 2], model=False)
>>> res.paths.html.name
'index.html'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import xarray as xr

    from passhat.report.render import ReportPaths
    from passhat.report.summaries import ReportData
    from passhat.trials import Trials

__all__ = ["Report", "report"]


@dataclass(frozen=True)
class Report:
    """Result of :func:`report`: the numbers and where the files are."""

    data: ReportData
    paths: ReportPaths


def report(
    trials: Trials | xr.Dataset,
    out_dir: str | Path,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    seed: int | None = 0,
    model: bool | Any = True,
    title: str | None = None,
    ci: float | None = 0.95,
    n_boot: int = 2000,
    model_method: str = "grid",
    compare_models: bool = False,
    plan: bool = True,
    divergence: Any = None,
    baseline: str | None = None,
    on_short: str = "error",
    min_runs: int | None = None,
) -> Report:
    """Compute and write the reliability report.

    Parameters
    ----------
    trials : Trials or xarray.Dataset
        Trials (or a count table).
    out_dir : str or Path
        Directory for ``index.html``, ``report.md``, ``figures/`` and
        ``results.json`` (created when missing).
    k : int or sequence of int
        k values of the headline and spread tables.
    seed : int, optional
        Seed of every random step; same input and seed → byte-identical
        ``results.json``.
    model : bool or fit
        Fit the hierarchical model (True), skip it (False) or use a given fit.
    title : str, optional
        Title of the report.
    ci : float, optional
        Interval level (None: no intervals).
    n_boot : int
        Bootstrap resamples of the population-scope intervals.
    model_method : str
        Method of the fit ("grid": exact quadrature, fast).
    compare_models : bool
        Also fit the zero/one-inflated model (NUTS, slower) and compare by PSIS-LOO.
    plan : bool
        Add "What to run next" from the planner.
    divergence : object, optional
        The traces module's divergence result ("Where failing runs diverge").
    baseline : str, optional
        System the others are compared with in the headline (default: the first).
    on_short, min_runs
        As in :func:`passhat.estimate`.

    Returns
    -------
    Report
    """
    from passhat.report.render import write_report
    from passhat.report.summaries import build_report_data

    data = build_report_data(
        trials,
        k=k,
        title=title,
        seed=seed,
        ci=ci,
        n_boot=n_boot,
        model=model,
        model_method=model_method,
        compare_models=compare_models,
        plan=plan,
        divergence=divergence,
        baseline=baseline,
        on_short=on_short,  # type: ignore[arg-type]
        min_runs=min_runs,
    )
    paths = write_report(data, out_dir)
    return Report(data=data, paths=paths)
