"""Section 3, "Clustered vs uniform spread": measured pass^k against mean^k, who carries the gap."""

from __future__ import annotations

from typing import Any

import pandas as pd

from passhat.report.document import Column, Section, Table

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


def spread_section(sp: Any, *, ks: list[int], ci: float | None) -> Section:
    """The spread section: the ratio table, the all-pass/all-fail/flaky shares, the gap's carriers.

    Parameters
    ----------
    sp : passhat.spread.Spread
        From :func:`passhat.spread` (with ``ci=`` when the report has
        intervals: the heterogeneity test then runs at level 1 − ci).
    ks : list of int
        k values; the sentences speak of the largest.
    ci : float, optional
        Interval level, for the column header.

    Returns
    -------
    Section
        Id ``spread``, with the figures ``spread_curve``, ``rate_histogram``
        and ``gap_concentration``.

    Examples
    --------
    >>> import passhat as ph
    >>> sec = spread_section(ph.spread(ph.load_example("agents"), k=[1, 5]), ks=[1, 5], ci=None)
    >>> [t.id for t in sec.tables]
    ['spread', 'spread_test', 'spread_shares', 'spread_contributions']
    """
    t = sp.table
    level = f"{ci:.0%}" if ci else ""
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
    spread_table = Table(
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
    het_table = Table(
        id="spread_test",
        caption="Do the tasks' success rates differ? Tarone's test of one common rate with "
        "independent runs",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks", "int"),
            Column("runs", "Decided runs", "int"),
            Column("statistic", "Tarone's Z", "num"),
            Column("p_value", "p-value", "num"),
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
    share_table = Table(
        id="spread_shares",
        caption="Tasks whose decided runs all pass, all fail, or both (flaky), and where the "
        "failing runs are",
        columns=share_cols,
        rows=sp.shares.to_dict(orient="records"),
    )
    kmax = ks[-1]
    sent = []
    for system in t["system"].unique():
        sent += [f"{system}: {part}" for part in sp.sentence_parts(system, kmax)]
    if len(t["system"].unique()) > 1:
        cmp = sp.consistency_sentence(kmax)
        if cmp:
            sent.append(cmp)
    sent += list(getattr(sp, "notes", []))
    tables = [spread_table]
    if len(sp.heterogeneity):
        tables.append(het_table)
    tables += [share_table, _contributions_table(sp, kmax)]
    return Section(
        id="spread",
        title="3. Clustered vs uniform spread",
        sentences=sent,
        tables=tables,
        figures=["spread_curve", "rate_histogram", "gap_concentration"],
    )
