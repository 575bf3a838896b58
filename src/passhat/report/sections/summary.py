"""The report's summary: what a release reviewer reads in one screen, taken from the sections.

Nothing here is computed anew. The key-numbers table copies cells of the sections'
tables (the data section's systems, the headline's estimates with their population-scope
intervals, the spread's uniform reference and task shares); the lines under it are
sentences the sections wrote, verbatim: what was run (the data section's first), the paired
comparison at the largest k, each system's spread reading, any section that failed, and the
most frequent divergence point. So the summary can never disagree with the page below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from passhat.report.document import Column, Section, Table

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["SUMMARY_TITLE", "summary_section"]

SUMMARY_TITLE = "Summary"


def _table(sections: dict[str, Section], table_id: str) -> list[dict[str, Any]]:
    for s in sections.values():
        for t in s.tables:
            if t.id == table_id:
                return t.rows
    return []


def _headline_cells(rows: list[dict[str, Any]], system: str, metric: str, k: int | None) -> dict:
    for r in rows:
        if (
            r.get("system") == system
            and r.get("metric") == metric
            and (metric == "mean" or r.get("k") == k)
        ):
            return {
                "value": r.get("value"),
                "lower": r.get("population_lower"),
                "upper": r.get("population_upper"),
            }
    return {}


def _key_rows(sections: dict[str, Section], kmax: int) -> list[dict[str, Any]]:
    head = _table(sections, "headline")
    spread = {(r.get("system"), r.get("k")): r for r in _table(sections, "spread")}
    shares = {r.get("system"): r for r in _table(sections, "spread_shares")}
    data = {r.get("system"): r for r in _table(sections, "data_systems")}
    systems = list(dict.fromkeys(str(r["system"]) for r in head))
    rows = []
    for system in systems:
        row: dict[str, Any] = {"system": system}
        for key, metric in (("mean", "mean"), ("pass_hat_k", "pass^k"), ("pass_at_k", "pass@k")):
            got = _headline_cells(head, system, metric, kmax)
            row[key] = got.get("value")
            row[f"{key}_lower"], row[f"{key}_upper"] = got.get("lower"), got.get("upper")
        row["uniform"] = spread.get((system, kmax), {}).get("uniform")
        for key in ("always_pass", "flaky", "always_fail"):
            row[key] = shares.get(system, {}).get(key)
        row["unscored"] = data.get(system, {}).get("unscored")
        rows.append(row)
    return rows


def _sentences(sections: dict[str, Section], systems: list[str], pairs: list[str]) -> list[str]:
    out: list[str] = []
    data = sections.get("data")
    if data is not None and data.sentences:
        out.append(data.sentences[0])
        out += [s for s in data.sentences if s.startswith("Task weights: ")]  # with weights
    board = sections.get("leaderboard")
    head = sections.get("headline")
    if board is not None and board.sentences:  # three systems or more: the order, not pairs
        out += board.sentences[:2]
    elif head is not None:
        out += [s for s in head.sentences if any(s.startswith(f"{p}:") for p in pairs)]
    spread = sections.get("spread")
    if spread is not None:
        for system in systems:
            out += [s for s in spread.sentences if s.startswith(f"{system}: ")][:1]
    if head is not None:  # the clusters' warning (few clusters)
        out += [s for s in head.sentences if s.startswith("Warning:")]
    for s in sections.values():
        if s.status == "failed":
            out.append(f"Warning: {s.title}: {s.note}")
    div = sections.get("divergence")
    if div is not None:
        out += [s for s in div.sentences if s.startswith("The most frequent divergence point")]
    return out


def summary_section(sections: list[Section], results: ReportResults) -> Section:
    """The summary at the top of the report, from the sections' own tables and sentences.

    Parameters
    ----------
    sections : list of Section
        The report's sections (data, headline with its comparison, spread, …).
    results : ReportResults
        The report's results, for its k values (the summary speaks of the largest) and its
        interval level (none: no intervals).

    Returns
    -------
    Section
        Id ``summary``: a key-numbers table (one row per system) and sentences
        copied verbatim from the sections.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import build_report_data
    >>> rd = build_report_data(ph.load_example("abcd"), k=[1, 2], model=False, plan=False)
    >>> sec = rd.section("summary")
    >>> sec.sentences[0] == rd.section("data").sentences[0], len(sec.tables[0].rows)
    (True, 1)
    """
    by_id = {s.id: s for s in sections}
    kmax, ci = results.settings.kmax, results.settings.ci
    rows = _key_rows(by_id, kmax)
    systems = [r["system"] for r in rows]
    pairs = list(
        dict.fromkeys(
            f"{r['candidate']} − {r['baseline']}" for r in _table(by_id, "headline_compare")
        )
    )
    level = f"{ci:.0%} " if ci else ""
    cols = [
        Column("system", "System"),
        Column("mean", f"Mean success ({level}interval)", "pct_interval"),
    ]
    if kmax > 1:
        cols += [
            Column(
                "pass_hat_k", f"pass^{kmax}: all {kmax} runs pass ({level}interval)", "pct_interval"
            ),
            Column("pass_at_k", f"pass@{kmax}: one of {kmax} passes", "pct"),
            Column("uniform", f"pass^{kmax} if failures were uniform (mean^{kmax})", "pct"),
        ]
    cols += [
        Column("always_pass", "Tasks always passing", "int"),
        Column("flaky", "Flaky tasks", "int"),
        Column("always_fail", "Tasks always failing", "int"),
        Column("unscored", "Unscored runs", "int"),
    ]
    table = Table(
        id="summary",
        caption=f"Key numbers at k = {kmax} (intervals: expected value over tasks like these)"
        if ci
        else f"Key numbers at k = {kmax}",
        columns=cols,
        rows=rows,
        note="Every number is repeated from the sections below (Headline, Clustered vs "
        "uniform spread, Data), where its method is stated.",
    )
    return Section(
        id="summary",
        title=SUMMARY_TITLE,
        sentences=_sentences(by_id, systems, pairs),
        tables=[table],
    )
