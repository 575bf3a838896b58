"""Reliability reports: the public :func:`report` entry point.

The package runs one way: the builder computes every result once
(:func:`~passhat.report.build.compute_results` → :class:`~passhat.report.results.ReportResults`,
one seed stream) → the sections, pure functions of those results
(:mod:`passhat.report.sections`), fill the document model
(:mod:`~passhat.report.document`, assembled by :mod:`~passhat.report.assemble`) → the renderer
writes HTML, Markdown and JSON (:mod:`~passhat.report.render`) ← figures
(:mod:`~passhat.report.plots`). :func:`report` does all three and returns a
:class:`~passhat.report.result.Report`.

Examples
--------
>>> import passhat as ph, tempfile
>>> res = ph.report(ph.load_example("abcd"), tempfile.mkdtemp(), k=[1, 2], model=False)
>>> res.paths.html.name
'index.html'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xarray as xr

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED
from passhat.errors import OptionError
from passhat.inputs import as_input
from passhat.io import read_traces
from passhat.report import plots
from passhat.report.assemble import assemble_report
from passhat.report.build import ReportOptions, build_report_data, compute_results
from passhat.report.document import Column, ReportData, Section, Table
from passhat.report.render import REPORT_NAMES, ReportPaths, check_report_dir, write_report
from passhat.report.result import Report
from passhat.report.results import ReportResults
from passhat.traces import Traces
from passhat.trials import Trials

if TYPE_CHECKING:
    from typing import Unpack

    from passhat.model import Fit

__all__ = [
    "REPORT_NAMES",
    "Column",
    "Report",
    "ReportData",
    "ReportOptions",
    "ReportPaths",
    "ReportResults",
    "Section",
    "Table",
    "build_report_data",
    "check_report_dir",
    "compute_results",
    "plots",
    "report",
    "write_report",
]


def report(
    trials: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    out_dir: str | Path,
    *,
    k: int | Sequence[int] | None = None,
    seed: int | None = DEFAULT_SEED,
    model: bool | Fit = True,
    title: str | None = None,
    ci: float | None = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    plan: bool = True,
    baseline: str | None = None,
    divergence: Any = None,
    traces: Traces | str | Path | None = None,
    force: bool = False,
    **options: Unpack[ReportOptions],
) -> Report:
    """Compute and write the reliability report.

    Every result is computed once (:func:`~passhat.report.build.compute_results`, one seed
    stream: see :mod:`passhat.report.results`), the sections are written from those results,
    and the files are written all at once.

    Parameters
    ----------
    trials : Trials or xarray.Dataset, or a list of them
        Trials (or a count table); a list of inputs is reported as one, every input's
        systems side by side (files that name no system are named after the files:
        :func:`passhat.inputs.combine_inputs`).
    out_dir : str or Path
        Directory for ``index.html``, ``report.md``, ``figures/`` and
        ``results.json`` (created when missing). It is checked before any work:
        never an input, nor a directory holding files of these names that
        passhat did not write (unless ``force``). The files are replaced all at
        once (see :func:`~passhat.report.render.write_report`).
    k : int or sequence of int, optional
        k values of the headline and spread tables (default: 1, 2, 5 capped at
        the fewest decided runs of a task, as ``passhat report`` without
        ``--k``; :func:`passhat.exclusions.default_ks`).
    seed : int or None
        Seed of every random step (default 0, fixed, recorded in
        ``results.json``); same input and seed → byte-identical
        ``results.json``. None draws a seed, recorded likewise.
    model : bool or fit
        Fit the hierarchical model (True), skip it (False) or use a given fit.
    title : str, optional
        Title of the report.
    ci : float, optional
        Interval level (None: no intervals).
    n_boot : int
        Bootstrap resamples of the population-scope intervals (default
        10,000, as every entry point).
    plan : bool
        Add "What to run next" from the planner.
    baseline : str, optional
        System the others are compared with in the headline (default: the first).
    divergence : passhat.Divergence, optional
        A divergence result to show in "Where failing runs diverge".
    traces : passhat.Traces or path, optional
        Traces of the same runs (a path is read with :func:`passhat.read_traces`,
        its format sniffed): the report checks that they share tasks with
        ``trials`` and computes their divergence itself. Not with ``divergence``.
    force : bool
        Replace files of the report's names in ``out_dir`` that passhat did not
        write (inputs are never written over).
    **options
        The further options (:class:`~passhat.report.build.ReportOptions`):
    model_method : str
        Method of the fit ("grid": exact quadrature, fast).
    compare_models : bool, default True
        Also fit the zero/one-inflated model (NUTS: compiles once per process)
        and compare the two by PSIS-LOO when both fits pass their diagnostics.
    progress : bool, optional
        Progress bar of the inflated model's NUTS fit: None shows it on a terminal only,
        False never (``passhat report --quiet``).
    tolerate_extra_lookups : bool
        With ``traces``: as in :func:`passhat.divergence`.
    weights, on_short, min_runs, unscored_tasks
        As in :func:`passhat.estimate`; with several systems exclusions apply
        to matched tasks (every system is reported on the same tasks; the
        tasks left out are listed). With unequal ``weights`` the Data section lists which
        sections use them and why the others do not (the model's population scope, the
        plan), and the summary says the report is weighted.
    scores : None, bool or sequence of float
        The "Partial credit" section (the expected best / worst of k runs' scores with both
        scopes' intervals, and pass^k by pass threshold), as ``estimate(scores=...)``.
        None (default): detected, on when the runs carry a ``score`` column that gives
        partial credit (a decided run's score neither 0 nor 1); False: off; True or the
        threshold curve's thresholds: on (an error when the runs have no valid scores).
    by : None, "category" or False
        The "By category" section (mean, pass^k and pass@k per category with intervals, and
        the permutation test of whether the categories differ), as ``estimate(by=...)``.
        None (default): detected, on when every task names one of two categories or more;
        False: off; "category": on (an error when a task has none).
    cost : None or bool
        The "Cost" section (cost per run, per success, per all-k-pass and pass^k per unit
        cost, with population intervals), :attr:`passhat.Estimate.cost`. None (default):
        detected, on when the runs carry a ``cost`` column; False: off; True: on (an error
        without one, or for a run without a cost). With two systems or more and ``ci``, a
        "Cost comparison" section follows: :func:`passhat.compare_cost` on the report's tasks
        against the baseline, with the report's k, level, resamples, seed and weights.
    cost_of : {"cost", "duration"}
        What those sections measure: the ``cost`` column (default) or, with ``"duration"``,
        the ``duration_s`` column in seconds (sections "Duration" and "Duration comparison":
        duration per run, per success, per all-k-pass, pass^k per second). ``"duration"``
        turns them on (an error without a duration_s column, or with ``cost=False``); by
        default durations are never shown, even for runs with durations and no cost: a
        report shows one of the two, the one asked for.
    grader : mapping, optional
        The grader's error, as :func:`passhat.correct_grader` takes it: ``{"sensitivity":
        SE, "specificity": SP}``, ``{"audit": (TP, FN, TN, FP)}`` or ``{"truth": COLUMN}``.
        Adds the "Grader correction" section: the headline's mean, pass@k and pass^k corrected
        for the grader's errors on the same tasks (weights, clusters, k, level, seed), beside
        the uncorrected values, with both scopes' intervals.

    Detected columns that cannot be used (a score outside [0, 1], a task without a category,
    a run without a cost) leave their section in the report as "not shown" with the reason.
    Tasks with a ``cluster`` column (or ``--map cluster=COLUMN``) get the cluster bootstrap in
    the headline's population intervals, as :func:`passhat.estimate` (below 20 clusters the
    cluster jackknife logit-t interval); the headline names the clusters and the rule below 20.

    Returns
    -------
    Report
        The document (``.data``) and where the files are (``.paths``); it shows itself as
        ``passhat report`` prints it, and ``to_dict()`` is ``passhat report --json``. The
        results behind the numbers, as Python objects:
        :func:`~passhat.report.build.compute_results` with the same options.

    Raises
    ------
    OptionError
        Among others: ``traces`` that share no task with ``trials``, both
        ``traces`` and ``divergence``, an unknown ``baseline``, an ``out_dir``
        that is refused (before any work).
    OutputError
        The files could not be written (disk full, permission); the previous
        report in ``out_dir``, if any, is unchanged.

    Examples
    --------
    >>> import passhat as ph, tempfile
    >>> res = ph.report(ph.load_example("abcd"), tempfile.mkdtemp(), k=[1, 2], model=False)
    >>> res.data.section("spread").title, res.paths.json.name
    ('3. Clustered vs uniform spread', 'results.json')
    """
    if not isinstance(out_dir, str | os.PathLike) or not str(out_dir):
        raise OptionError(
            f"the output directory (-o DIR, out_dir) must be a non-empty path, got {out_dir!r}"
        )
    several = isinstance(trials, Sequence) and not isinstance(trials, str | bytes)
    given = list(trials) if several else [trials]  # type: ignore[arg-type]
    inputs = (*given, traces)
    check_report_dir(out_dir, inputs=inputs, force=force)  # before the work, not after
    trials = as_input(trials)
    if traces is not None and not isinstance(traces, Traces):
        traces = read_traces(traces)
    results = compute_results(
        trials,
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
    data = assemble_report(results)
    said = set(results.input_notes)  # the reader's notes (already said, on stderr)
    notes = tuple(str(n) for n in data.stamp.get("notes", []) if n not in said)
    del results  # the files are rendered without the per-task results (peak memory)
    paths = write_report(data, out_dir, inputs=inputs, force=force)
    return Report(data=data, paths=paths, notes=notes)


# In the package namespace ``passhat.report`` is this function (``ph.report(...)``), which
# hides the subpackage of the same name from attribute lookups: the public figures module is
# reachable through the function too, so that ``import passhat.report.plots as plots`` and
# ``passhat.report.plots.plot_ppc`` work.
report.plots = plots  # type: ignore[attr-defined]
