"""Section 2, "Headline": mean, pass@k and pass^k per system with both scopes' intervals.

When the model ran, each row also carries the model's population-scope posterior and
whether the estimator's and the model's intervals overlap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from passhat._format import pct
from passhat._labels import METRIC_LABELS
from passhat.clusters import FEW_RULE
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import interval_lookup, population_row, scope_columns, shown
from passhat.report.sections.comparison import comparison_table

if TYPE_CHECKING:
    from passhat.report.results import Clusters, ReportResults

__all__ = ["cluster_sentences", "headline_section"]


def _rows(
    est: Any, ks: list[int], model_rows: pd.DataFrame | None
) -> tuple[list[dict[str, Any]], list[str], dict[str, str], list[str]]:
    """Table rows, the (system metric k) whose estimator and model disagree, interval methods,
    and the estimates that lie outside an interval of their row (with the scopes)."""
    iv = interval_lookup(est.table)
    rows = []
    flagged = []
    outside: list[str] = []
    methods: dict[str, str] = {}
    for r in est.wide().itertuples():
        for metric in ("mean", "pass_at_k", "pass_hat_k"):
            if not shown(metric, int(r.k), ks):
                continue
            value = float(getattr(r, metric))
            row: dict[str, Any] = {
                "system": str(r.system),
                "k": int(r.k) if metric != "mean" else None,
                "metric": METRIC_LABELS[metric],
                "value": value,
            }
            missed = []
            for scope in ("benchmark", "population", "predictive"):
                got = iv.get((str(r.system), int(r.k), metric, scope))
                if got:
                    row[f"{scope}_lower"] = got["lower"]
                    row[f"{scope}_upper"] = got["upper"]
                    row[f"{scope}_method"] = got["method"]
                    methods[scope] = got["method"]
                    if not got["lower"] - 1e-9 <= value <= got["upper"] + 1e-9:
                        missed.append(scope)
            if missed:
                k_txt = "" if metric == "mean" else f" (k = {int(r.k)})"
                outside.append(
                    f"{r.system} {METRIC_LABELS[metric]}{k_txt}: {', '.join(missed)} scope"
                )
            if model_rows is not None and len(model_rows):
                m = population_row(model_rows, str(r.system), metric, int(r.k))
                if m is not None:
                    row["model_mean"] = float(m["mean"])
                    row["model_lower"] = float(m["lower"])
                    row["model_upper"] = float(m["upper"])
                    row["model_method"] = str(m["method"]) + ", population scope"
                    lo, hi = row.get("population_lower"), row.get("population_upper")
                    agree = (
                        True
                        if lo is None
                        else not (row["model_upper"] < lo or row["model_lower"] > hi)
                    )
                    row["agree"] = "yes" if agree else "NO: intervals do not overlap"
                    if not agree:
                        flagged.append(f"{r.system} {METRIC_LABELS[metric]} (k = {int(r.k)})")
            rows.append(row)
    return rows, flagged, methods, outside


def cluster_sentences(clusters: Clusters, *, intervals: bool) -> list[str]:
    """How many clusters the tasks fall in, what resamples them, and a warning (a sentence
    starting "Warning:", which the summary repeats) below ``clusters.few`` clusters.

    Examples
    --------
    >>> from passhat.report.results import Clusters
    >>> cluster_sentences(Clusters({"a": 6}, few=20), intervals=True)[1][:40]
    'Warning: only 6 clusters (a: 6): below 2'
    """
    counts = clusters.counts
    shown = ", ".join(f"{s}: {g}" for s, g in counts.items())
    out = [
        f"The tasks are clustered ({shown} clusters, from the cluster column): "
        + (
            "the population and new-benchmark intervals above and the pass^k-over-k figure "
            "resample clusters, each with all its tasks (cluster bootstrap; below "
            f"{clusters.few} clusters the population intervals are the {FEW_RULE}); the "
            "benchmark scope is unchanged. The paired comparison, the leaderboard and the cost "
            "comparison use the clusters too (each says how); the spread, the model and the "
            "partial-credit, per-category and cost intervals treat the tasks as independent."
            if intervals
            else "a report with intervals resamples clusters in the population scope."
        )
    ]
    if one := [s for s, g in counts.items() if g < 2]:
        out.append(
            f"Warning: one cluster only ({', '.join(one)}): no population interval (new tasks "
            "would come from new clusters, and one cluster says nothing of how clusters differ)."
        )
    few = {s: g for s, g in counts.items() if 2 <= g < clusters.few}
    if few:
        out.append(
            f"Warning: only {', '.join(map(str, sorted(set(few.values()))))} clusters "
            f"({', '.join(f'{s}: {g}' for s, g in few.items())}): below {clusters.few} "
            f"clusters the population intervals above are the {FEW_RULE} (where that is "
            "undefined, a value or a value without one cluster at 0 or 1, Clopper–Pearson with "
            "the clusters as trials), as the cluster "
            "bootstrap under-covers there; what still resamples clusters may be too narrow."
        )
    return out


def headline_section(results: ReportResults) -> Section:
    """The headline section: one row per system, metric and k, and sentences at the largest k.

    Parameters
    ----------
    results : ReportResults
        The report's results: the estimate (with intervals unless the report has none), the
        k values (the mean once, pass@k and pass^k for k > 1), the model's summary when it
        ran, and the paired comparison with two systems or more
        (:mod:`passhat.report.sections.comparison`).

    Returns
    -------
    Section
        Id ``headline``.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], n_boot=200, model=False,
    ...                       plan=False)
    >>> [r["metric"] for r in headline_section(res).tables[0].rows]
    ['mean', 'pass@k', 'pass^k']
    """
    est, ks = results.estimate, results.ks
    model_rows = results.model.summary if results.model is not None else None
    table, sent = _estimate_table(est, ks, results.settings.ci, model_rows)
    tables = [table]
    if results.comparison is not None:
        cmp_table, cmp_sentences = comparison_table(results)
        tables.append(cmp_table)
        sent.extend(cmp_sentences)
    if results.clusters is not None:
        sent += cluster_sentences(results.clusters, intervals=results.settings.ci is not None)
    return Section(id="headline", title="2. Headline", sentences=sent, tables=tables)


def _estimate_table(
    est: Any, ks: list[int], level: float | None, model_rows: pd.DataFrame | None
) -> tuple[Table, list[str]]:
    """The estimates' table and its sentences."""
    rows, flagged, methods, outside = _rows(est, ks, model_rows)
    shown_level = f"{level:.0%}" if level else ""
    new_t = (getattr(est, "settings", {}) or {}).get("predictive")
    cols = _columns(
        shown_level, methods, new_t, with_model=model_rows is not None and len(model_rows) > 0
    )
    note = (
        " ".join(f"{scope.capitalize()} scope: {m}." for scope, m in sorted(methods.items()))
        or "Intervals are not available (passhat.estimate without ci=)."
    )
    table = Table(
        id="headline",
        caption="Mean success, pass@k and pass^k per system (unbiased per-task estimates, "
        "averaged over tasks)",
        columns=cols,
        rows=rows,
        note=note,
    )
    kmax = ks[-1]
    iv = interval_lookup(est.table)
    wide = est.wide()
    sent = []
    for r in wide[wide["k"] == kmax].itertuples():
        pop = iv.get((str(r.system), kmax, "pass_hat_k", "population"))
        pop_txt = (
            f" ({shown_level} interval for the expected value over tasks like these "
            f"{pct(pop['lower'])}–{pct(pop['upper'])})"
            if pop
            else ""
        )
        runs = "a run of a task passes" if kmax == 1 else f"{kmax} runs of a task all pass"
        some = "a run passes" if kmax == 1 else f"at least one of {kmax} runs passes"
        sent.append(
            f"{r.system}: mean success {pct(r.mean)} per run; pass^{kmax} = "
            f"{pct(r.pass_hat_k)}{pop_txt}, the chance that {runs}, averaged over the tasks; "
            f"pass@{kmax} = {pct(r.pass_at_k)}, the chance that {some}."
        )
    if methods:
        sent.append(
            "The benchmark interval covers only the finite runs of these tasks; the population "
            "interval is for the expected value over tasks like these, so it also covers which "
            "tasks were drawn."
            + (
                f" A new benchmark of {new_t} such task{'s' if new_t != 1 else ''} would itself "
                "vary around that expected "
                "value: the last interval column is the range its value would fall in."
                if "predictive" in methods
                else ""
            )
        )
    if outside:
        sent.append(
            "The estimate lies outside its interval for "
            + "; ".join(outside)
            + ". The estimate is the unbiased per-task average of these runs; each interval's "
            "method is named under the table. A posterior pools the tasks and pulls each task's "
            "rate toward the others (with few runs per task, no task passing all k runs gives "
            "pass^k = 0 while the posterior leaves every task some chance), and a BCa bootstrap "
            "interval corrects for skew: either can leave the unbiased estimate outside."
        )
    if flagged:
        sent.append(
            "The estimator and the model disagree beyond their intervals for: "
            + ", ".join(flagged)
            + "."
        )
    elif model_rows is not None and len(model_rows):
        sent.append("The estimator and the model's posterior agree within their intervals.")
    return table, sent


def _columns(
    shown_level: str, methods: dict[str, str], new_t: Any, *, with_model: bool
) -> list[Column]:
    """The headline table's columns: the estimate, each scope's interval, the model's."""
    cols = [
        Column("system", "System"),
        Column("metric", "Metric"),
        Column("k", "k", "int"),
        Column("value", "Estimate", "pct"),
    ]
    if methods:
        cols += scope_columns(shown_level, "interval")
        if "predictive" in methods:
            cols.append(
                Column(
                    "predictive",
                    f"{shown_level} interval for a new benchmark of {new_t} tasks like these",
                    "interval",
                )
            )
    if with_model:
        cols += [
            Column("model_mean", "Model posterior mean (population)", "pct"),
            Column("model", f"Model {shown_level} interval", "interval"),
            Column("agree", "Estimator and model agree"),
        ]
    return cols
