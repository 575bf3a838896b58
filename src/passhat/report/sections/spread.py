"""Section 3, "Clustered vs uniform spread": measured pass^k against mean^k, who carries the gap."""

from __future__ import annotations

from typing import Any

import pandas as pd

from passhat.report.document import Column, Section, Table
from passhat.spread import describe_row

__all__ = ["MAX_CONTRIB_ROWS", "attach_intervals", "spread_section"]

#: Gap contributions shown per system.
MAX_CONTRIB_ROWS = 10


def attach_intervals(sp: Any, table: pd.DataFrame) -> None:
    """Add the population-scope pass^k interval of an estimate's table to the spread table.

    Parameters
    ----------
    sp : passhat.spread.Spread
        Changed in place: its table gains ``pass_hat_k_lower``/``_upper``,
        ``scope`` and ``method``.
    table : pandas.DataFrame
        :attr:`passhat.Estimate.table` with intervals.

    Examples
    --------
    >>> import passhat as ph
    >>> data = ph.load_example("agents")
    >>> sp = ph.spread(data, k=[1, 5])
    >>> attach_intervals(sp, ph.estimate(data, k=[1, 5], ci=0.95, n_boot=200, seed=0).table)
    >>> sp.table["scope"].unique().tolist()
    ['population']
    """
    iv = table[(table["metric"] == "pass_hat_k") & (table["scope"] == "population")]
    merged = sp.table.merge(
        iv[["system", "k", "lower", "upper", "method"]], on=["system", "k"], how="left"
    )
    sp.table["pass_hat_k_lower"] = merged["lower"].to_numpy()
    sp.table["pass_hat_k_upper"] = merged["upper"].to_numpy()
    sp.table["scope"] = "population"
    sp.table["method"] = merged["method"].to_numpy()


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
        From :func:`passhat.spread` (with :func:`attach_intervals` applied
        when the report has intervals).
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
    ['spread', 'spread_shares', 'spread_contributions']
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
        Column("consistency", "Consistency pass^k / mean", "num"),
        Column("gap", "Gap mean − pass^k", "pts"),
        Column("tasks_for_80", "Tasks carrying 80% of the gap", "pct"),
    ]
    spread_table = Table(
        id="spread",
        caption="Measured pass^k against the uniform-spread reference mean^k",
        columns=cols,
        rows=rows,
        note=(
            "mean^k is what pass^k would be if every task had the same success rate. "
            "A ratio above 1 means failures cluster in some tasks."
        ),
    )
    share_table = Table(
        id="spread_shares",
        caption="Tasks whose decided runs all pass, all fail, or both (flaky)",
        columns=[
            Column("system", "System"),
            Column("tasks", "Tasks", "int"),
            Column("always_pass", "Always pass", "int"),
            Column("always_pass_share", "(share)", "pct"),
            Column("always_fail", "Always fail", "int"),
            Column("always_fail_share", "(share)", "pct"),
            Column("flaky", "Flaky (mixed)", "int"),
            Column("flaky_share", "(share)", "pct"),
        ],
        rows=sp.shares.to_dict(orient="records"),
    )
    kmax = ks[-1]
    sent = []
    for system in t["system"].unique():
        row = t[(t["system"] == system) & (t["k"] == kmax)].iloc[0]
        sent.append(f"{system}: {describe_row(row)}")
    if len(t["system"].unique()) > 1:
        best = t[t["k"] == kmax].sort_values("consistency", ascending=False).iloc[0]
        sent.append(
            f"The most consistent system at k = {kmax} is {best['system']} "
            f"(pass^{kmax}/mean = {best['consistency']:.2f})."
        )
    return Section(
        id="spread",
        title="3. Clustered vs uniform spread",
        sentences=sent,
        tables=[spread_table, share_table, _contributions_table(sp, kmax)],
        figures=["spread_curve", "rate_histogram", "gap_concentration"],
    )
