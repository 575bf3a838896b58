"""Section "Partial credit": the expected best and worst of k runs' scores, and the threshold
curve (pass^k as a function of the pass threshold), when the runs carry scores in [0, 1].

Every number is the report's estimate's (``scores=True``: :mod:`passhat.scores`): the score
rows of its table with both scopes' intervals, and its :class:`~passhat.scores.result.
ThresholdCurve`. Nothing is computed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from passhat._format import fixed
from passhat._labels import METRIC_LABELS
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import interval_lookup, methods_note, scope_columns, shown

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["SCORES_TITLE", "scores_section", "skipped_section"]

SCORES_TITLE = "Partial credit"

#: The score metrics, in the order the table shows them.
SCORE_METRICS = ("mean_score", "best_of_k", "worst_of_k")


def skipped_section(section_id: str, title: str, results: ReportResults) -> Section | None:
    """The section left out with its reason, when its column was detected but could not be used
    (None when the data carry no such column)."""
    why = dict(results.extras.skipped).get(section_id)
    if why is None:
        return None
    return Section(id=section_id, title=title, status="skipped", note=why)


def _rows(results: ReportResults) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """One row per (system, score metric, k) the report shows, and each scope's methods."""
    est, ks = results.estimate, results.ks
    iv = interval_lookup(est.table)
    rows: list[dict[str, Any]] = []
    methods: dict[str, list[str]] = {}
    for r in est.wide().itertuples():
        for metric in SCORE_METRICS:
            if not shown("mean" if metric == "mean_score" else "pass_hat_k", int(r.k), ks):
                continue
            row: dict[str, Any] = {
                "system": str(r.system),
                "metric": METRIC_LABELS[metric],
                "k": int(r.k) if metric != "mean_score" else None,
                "value": float(getattr(r, metric)),
            }
            for scope in ("benchmark", "population"):
                got = iv.get((str(r.system), int(r.k), metric, scope))
                if got:
                    row[f"{scope}_lower"], row[f"{scope}_upper"] = got["lower"], got["upper"]
                    seen = methods.setdefault(scope, [])
                    seen += [] if got["method"] in seen else [got["method"]]
            rows.append(row)
    return rows, methods


def _curve_table(results: ReportResults) -> Table:
    """The threshold curve, one row per (system, threshold): pass^k and pass@k at each k."""
    curve = results.estimate.curve
    t = curve.table if curve is not None else None
    ks = results.ks
    rows: list[dict[str, Any]] = []
    if t is not None:
        for (system, threshold), part in t.groupby(["system", "threshold"], sort=False):
            row: dict[str, Any] = {"system": str(system), "threshold": float(threshold)}
            for r in part.itertuples():
                row[f"pass_hat_{int(r.k)}"] = float(r.pass_hat_k)
                row[f"pass_at_{int(r.k)}"] = float(r.pass_at_k)
            rows.append(row)
    cols = [Column("system", "System"), Column("threshold", "Pass threshold t", "g")]
    cols += [Column(f"pass_hat_{k}", f"pass^{k} (score ≥ t)", "pct") for k in ks]
    cols += [Column(f"pass_at_{k}", f"pass@{k} (score ≥ t)", "pct") for k in ks if k > 1]
    return Table(
        id="scores_curve",
        caption="pass^k and pass@k by pass threshold (success = score ≥ t; unbiased, averaged "
        "over tasks)",
        columns=cols,
        rows=rows,
        note="The area under the pass^k curve over t in [0, 1] is the expected worst of k, "
        "under pass@k the expected best of k.",
    )


def _sentences(results: ReportResults, rows: list[dict[str, Any]], level: str) -> list[str]:
    """At the largest k, per system: the expected worst and best of k against the mean score."""
    kmax = results.settings.kmax
    by = {(r["system"], r["metric"], r["k"]): r for r in rows}
    out = []
    for system in results.systems:
        mean = by.get((system, METRIC_LABELS["mean_score"], None))
        worst = by.get((system, METRIC_LABELS["worst_of_k"], kmax))
        best = by.get((system, METRIC_LABELS["best_of_k"], kmax))
        if mean is None or worst is None or best is None:
            continue
        pop = (
            f" ({level} interval for tasks like these {fixed(worst['population_lower'])}–"
            f"{fixed(worst['population_upper'])})"
            if "population_lower" in worst
            else ""
        )
        out.append(
            f"{system}: mean score {fixed(mean['value'])} per run; the expected worst of "
            f"{kmax} runs' scores is {fixed(worst['value'])}{pop} and the expected best "
            f"{fixed(best['value'])}, averaged over the tasks."
        )
    if out:
        out.append(
            "The worst of k generalises pass^k and the best of k pass@k to scores in [0, 1] "
            "(with scores of 0 and 1 only they are equal): each task's unbiased estimate from "
            "its sorted scores, averaged like the headline. The threshold curve shows pass^k "
            "when a run counts as a success from a score of t on; the area under it is the "
            "expected worst of k."
        )
    return out


def scores_section(results: ReportResults) -> Section | None:
    """The partial-credit section, the section left out with its reason, or None (no scores).

    Parameters
    ----------
    results : ReportResults
        With ``extras.scores``: the estimate's score rows and threshold curve.

    Returns
    -------
    Section or None
        Id ``scores``: the score table (both scopes' intervals), the threshold curve figure
        (``threshold_curve``) and its table.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> scores_section(compute_results(ph.load_example("abcd"), model=False, plan=False)) is None
    True
    """
    if not results.extras.scores:
        return skipped_section("scores", SCORES_TITLE, results)
    rows, methods = _rows(results)
    ci = results.settings.ci
    level = f"{ci:.0%}" if ci else ""
    cols = [
        Column("system", "System"),
        Column("metric", "Metric"),
        Column("k", "k", "int"),
        Column("value", "Estimate", "num"),
    ]
    if methods:
        cols += scope_columns(level, "interval_fixed")
    note = methods_note(methods, none="Intervals are not available (a report without ci=).")
    table = Table(
        id="scores",
        caption="Mean score and the expected best / worst of k runs' scores per system "
        "(unbiased per-task estimates, averaged over tasks)",
        columns=cols,
        rows=rows,
        note=note,
    )
    sent = _sentences(results, rows, level)
    if results.clusters is not None and ci is not None:
        sent.append(
            "These intervals treat the tasks as independent: only the pass/fail metrics' "
            "population intervals resample the clusters."
        )
    return Section(
        id="scores",
        title=SCORES_TITLE,
        sentences=sent,
        tables=[table, _curve_table(results)],
        figures=["threshold_curve"],
    )
