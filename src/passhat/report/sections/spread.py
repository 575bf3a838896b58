"""Section 3, "Clustered vs uniform spread": measured pass^k against mean^k, who carries the gap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from passhat.report.document import Column, Section, Table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["MAX_CONTRIB_ROWS", "spread_section"]

#: Gap contributions shown per system.
MAX_CONTRIB_ROWS = 10


def _contributions_table(sp: Any, kmax: int) -> Table:
    t = sp.table
    cb = sp.contributions
    cb = cb[cb["k"] == kmax]
    top_rows = []
    for system in t["system"].unique():
        part = cb[cb["system"] == system].head(MAX_CONTRIB_ROWS)
        for r in part.to_dict(orient="records"):
            top_rows.append(
                {
                    "system": r["system"],
                    "task": r["task"],
                    "n": int(r["n"]),
                    "c": int(r["c"]),
                    "contribution": float(r["contribution"]),
                    "share": float(r["share"]),
                    "cumulative": float(r["cumulative"]),
                }
            )
    return Table(
        id="spread_contributions",
        caption=f"Tasks carrying the most of the gap mean − pass^{kmax} "
        f"(top {MAX_CONTRIB_ROWS} per system)",
        columns=[
            Column("system", "System"),
            Column("task", "Task"),
            Column("n", "Runs", "int"),
            Column("c", "Successes", "int"),
            Column("contribution", "Points of the gap", "pts"),
            Column("share", "Share of the gap", "pct"),
            Column("cumulative", "Cumulative share", "pct"),
        ],
        rows=top_rows,
        note="Each task contributes w·(c/n − C(c,k)/C(n,k)); tasks whose runs all agree "
        "contribute nothing.",
    )


def spread_section(results: ReportResults) -> Section:
    """The spread section: the ratio table, the all-pass/all-fail/flaky shares, the gap's carriers.

    Parameters
    ----------
    results : ReportResults
        The report's results: the spread (:func:`passhat.spread`, with intervals when the
        report has them: the heterogeneity test then runs at level 1 − ci) and the k values
        (the sentences speak of the largest).

    Returns
    -------
    Section
        Id ``spread``, with the figures ``spread_curve``, ``rate_histogram``
        and ``gap_concentration``.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 5], ci=None, model=False,
    ...                       plan=False)
    >>> [t.id for t in spread_section(res).tables]
    ['spread', 'spread_test', 'spread_shares', 'spread_contributions']
    """
    sp, kmax = results.spread, results.settings.kmax
    level = f"{results.settings.ci:.0%}" if results.settings.ci else ""
    tables = [_spread_table(sp, level)]
    if len(sp.heterogeneity):
        tables.append(_test_table(sp, level))
    tables += [_shares_table(sp), _contributions_table(sp, kmax)]
    return Section(
        id="spread",
        title="3. Clustered vs uniform spread",
        sentences=_sentences(sp, kmax),
        tables=tables,
        figures=["spread_curve", "rate_histogram", "gap_concentration"],
    )


def _spread_table(sp: Any, level: str) -> Table:
    """Measured pass^k against mean^k per system and k, with the population intervals."""
    t = sp.table
    rows = []
    for r in t.to_dict(orient="records"):
        row = dict(r)
        rows.append(row)
    cols = [
        Column("system", "System"),
        Column("k", "k", "int"),
        Column("mean", "Mean", "pct"),
        Column("pass_hat_k", "Measured pass^k", "pct"),
    ]
    if "pass_hat_k_lower" in t.columns:
        cols.append(Column("pass_hat_k_ci", f"{level} interval (population)", "interval"))
        for row in rows:
            row["pass_hat_k_ci_lower"] = row.pop("pass_hat_k_lower")
            row["pass_hat_k_ci_upper"] = row.pop("pass_hat_k_upper")
    cols += [
        Column("uniform", "Uniform spread mean^k", "pct"),
        Column("ratio", "pass^k / mean^k", "ratio"),
    ]
    if "ratio_lower" in t.columns:
        cols.append(Column("ratio", f"{level} interval of the ratio (population)", "interval_num"))
    cols += [
        Column("consistency", "Consistency pass^k / mean", "num"),
        Column("gap", "Gap mean − pass^k", "pts"),
        Column("tasks_for_80", "Tasks carrying 80% of the gap (this sample)", "pct"),
    ]
    if "tasks_for_80_model" in t.columns:
        cols.append(Column("tasks_for_80_model", "Same, model-based (tasks like these)", "pct"))
    if "tasks_for_80_model_lower" in t.columns:
        cols.append(Column("tasks_for_80_model", f"{level} interval (model)", "interval"))
    return Table(
        id="spread",
        caption="Measured pass^k against the uniform-spread reference mean^k",
        columns=cols,
        rows=rows,
        note=(
            "mean^k is what pass^k would be if every task had the same success rate. For tasks "
            "like these the ratio is above 1 whenever their success rates differ at all "
            "(Jensen's inequality); whether they differ beyond chance is the test in the next "
            "table. The sample share of tasks carrying 80% of the gap overstates the "
            "concentration at few runs per task; the model-based share (Beta-Binomial "
            "posterior) estimates it for tasks like these."
        ),
    )


def _test_table(sp: Any, level: str) -> Table:
    """Tarone's test of one common rate per system, and the run-to-run correlation."""
    return Table(
        id="spread_test",
        caption="Do the tasks' success rates differ? Tarone's test of one common rate with "
        "independent runs",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks", "int"),
            Column("runs", "Decided runs", "int"),
            Column("statistic", "Tarone's Z", "num"),
            Column("p_value", "p-value", "p"),
            Column("clustered", "Clustered (test rejects)", "bool"),
            Column("icc", "Run-to-run correlation (ICC)", "num"),
        ]
        + (
            [Column("icc", f"{level} interval of the ICC", "interval_num")]
            if "icc_lower" in sp.heterogeneity.columns
            else []
        ),
        rows=sp.heterogeneity.to_dict(orient="records"),
        note=" ".join(
            sorted({f"{m}." for m in sp.heterogeneity.get("method", pd.Series([], dtype=str))})
        )
        + (
            f" Level α = {float(sp.heterogeneity['alpha'].iloc[0]):g}."
            if len(sp.heterogeneity)
            else ""
        ),
    )


def _shares_table(sp: Any) -> Table:
    """Always-pass, always-fail and flaky tasks per system, and where the failing runs are."""
    share_cols = [
        Column("system", "System"),
        Column("tasks", "Tasks", "int"),
        Column("always_pass", "Always pass", "int"),
        Column("always_pass_share", "(share)", "pct"),
        Column("always_fail", "Always fail", "int"),
        Column("always_fail_share", "(share)", "pct"),
        Column("flaky", "Flaky (mixed)", "int"),
        Column("flaky_share", "(share)", "pct"),
    ]
    if "failures" in sp.shares.columns:
        share_cols += [
            Column("failures", "Failing runs", "int"),
            Column("failures_always_fail", "in always-fail tasks", "int"),
            Column("failures_flaky", "in flaky tasks", "int"),
        ]
    return Table(
        id="spread_shares",
        caption="Tasks whose decided runs all pass, all fail, or both (flaky), and where the "
        "failing runs are",
        columns=share_cols,
        rows=sp.shares.to_dict(orient="records"),
    )


def _sentences(sp: Any, kmax: int) -> list[str]:
    """Each system's reading at the largest k, the comparison of systems, the spread's notes."""
    t = sp.table
    sent = []
    for system in t["system"].unique():
        sent += [f"{system}: {part}" for part in sp.sentence_parts(system, kmax)]
    if len(t["system"].unique()) > 1:
        cmp = sp.consistency_sentence(kmax)
        if cmp:
            sent.append(cmp)
    sent += list(getattr(sp, "notes", []))
    return sent
