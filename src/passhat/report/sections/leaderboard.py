"""The leaderboard section (three systems or more): groups, rank intervals, share first.

With two systems the report keeps the paired comparison of the headline; from
three on it adds this section: :func:`passhat.rank` on the report's matched
tasks, the table of the headline metric (pass^k at the largest k) with the
group letters (systems that share a letter are not separated), and two figures
(rank intervals; pairwise differences).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from passhat.rank.result import metric_name, share_header
from passhat.report.document import Column, Section, Table
from passhat.report.sections._rows import interval_lookup

if TYPE_CHECKING:
    from passhat.rank.result import Ranking
    from passhat.report.results import ReportResults

__all__ = ["leaderboard_figure_texts", "leaderboard_section", "value_intervals"]


def leaderboard_section(results: ReportResults) -> Section:
    """The leaderboard section, from the report's ranking (three systems or more).

    Parameters
    ----------
    results : ReportResults
        The report's results, with a ``ranking`` (:func:`passhat.rank` on the matched tasks).

    Returns
    -------
    Section
        Id ``leaderboard``, with the figures ``rank_intervals`` and ``pairwise_differences``.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("leaderboard"), k=[1, 2], n_boot=300,
    ...                       model=False, plan=False)
    >>> sec = leaderboard_section(res)
    >>> sec.id, sec.figures
    ('leaderboard', ['rank_intervals', 'pairwise_differences'])
    """
    r, level = results.ranking, results.settings.ci
    if r is None or level is None:
        raise ValueError("the report has no ranking (fewer than three systems, or no intervals)")
    table, t = _table(r, level, value_intervals(results))
    sec = Section(
        id="leaderboard",
        title="Leaderboard",
        sentences=_sentences(r, t, level),
        tables=[table],
        figures=["rank_intervals", "pairwise_differences"],
    )
    return sec


def value_intervals(results: ReportResults) -> dict[str, tuple[float, float, str]]:
    """Each ranked system's headline value interval as the rest of the report gives it: the
    estimate's population-scope interval of the same value (one interval per value in the
    report), with its method; a system whose value differs from the estimate's keeps the
    ranking's own.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("leaderboard"), k=[1, 2], n_boot=300,
    ...                       model=False, plan=False)
    >>> iv = value_intervals(res)
    >>> t = res.estimate.table
    >>> row = t[(t["scope"] == "population") & (t["metric"] == "pass_hat_k") & (t["k"] == 2)]
    >>> iv[row["system"].iloc[0]][:2] == (row["lower"].iloc[0], row["upper"].iloc[0])
    True
    """
    r = results.ranking
    if r is None:
        return {}
    metric, kk = r.settings["headline"]
    iv = interval_lookup(results.estimate.table)
    values = {(str(x.system), int(x.k), str(x.metric)): float(x.value) for x in _est_rows(results)}
    out = {}
    for row in r.table[(r.table["metric"] == metric) & (r.table["k"] == kk)].itertuples():
        key = (str(row.system), int(kk), str(metric))
        got = iv.get((*key, "population"))
        if got is not None and abs(values.get(key, math.nan) - float(row.value)) <= 1e-9:
            out[str(row.system)] = (got["lower"], got["upper"], got["method"])
    return out


def _est_rows(results: ReportResults) -> Any:
    t = results.estimate.table
    return t[t["scope"] == "population"].itertuples() if "scope" in t.columns else iter(())


def _table(
    r: Ranking, level: float, same: dict[str, tuple[float, float, str]]
) -> tuple[Table, Any]:
    """The leaderboard's table, and the ranking's rows of its headline metric (``same``: the
    report's interval of each system's value, :func:`value_intervals`)."""
    metric, kk = r.settings["headline"]
    name = metric_name(metric, kk)
    word = r.settings.get("draws_word", "resamples")
    t = r.table[(r.table["metric"] == metric) & (r.table["k"] == kk)]
    methods = "; ".join(sorted({m for *_, m in same.values()}))
    rows = [
        {
            "group": str(row.group),
            "system": str(row.system),
            "value": float(row.value),
            "value_lower": same.get(str(row.system), (float(row.lower),))[0],
            "value_upper": same.get(str(row.system), (0.0, float(row.upper)))[1],
            "rank": int(row.rank),
            "rank_interval": f"{row.rank_lower}–{row.rank_upper}"
            if row.rank_lower != row.rank_upper
            else str(row.rank_lower),
            "share_first": float(row.share_first),
        }
        for row in t.itertuples()
    ]
    table = Table(
        id="leaderboard",
        caption=f"Leaderboard by {name}, best first ({level:.0%} intervals)",
        columns=[
            Column("group", "Group"),
            Column("system", "System"),
            Column("value", name, "pct_interval"),
            Column("rank", "Rank", "int"),
            Column("rank_interval", "Rank interval"),
            Column("share_first", share_header(word).capitalize(), "num"),
        ],
        rows=rows,
        note=(
            "Value: expected value over tasks like these, "
            + (
                f"the interval of the headline table ({methods})"
                if len(same) == len(t)
                else f"marginal {r.settings['value_interval']}"
            )
            + ". Rank interval: marginal per system. Group: systems that share a letter are not "
            "separated by their paired test (the comparison's rule) at "
            f"{1 - level:.0%} after Holm across the {r.settings['pairs_tested']} pairs; a "
            f"system with two letters is not separated from either group. First in: the share "
            f"of {word} in which the system ranks first, not the probability that it is truly "
            "first."
        ),
    )
    return table, t


def _sentences(r: Ranking, t: Any, level: float) -> list[str]:
    """Who leads, who is not separated from the leader, the share ranked first, the tasks
    left out."""
    name = metric_name(*r.settings["headline"])
    alpha = f"{1 - level:.0%}"
    leader = t.iloc[0]
    mine = set(str(leader.group))
    along = [str(row.system) for row in t.iloc[1:].itertuples() if mine & set(str(row.group))]
    letters = sorted({ch for g in t["group"] for ch in str(g)})
    if not along:
        head = f"{leader.system} leads, separated from every other system at {alpha}"
    else:
        head = (
            f"{leader.system} leads; not separated from it at {alpha}: {', '.join(along)} "
            f"(sharing its letter)"
        )
    groups = (
        f"; {len(letters)} letters in all (systems that share a letter are not separated)."
        if len(letters) > 1
        else "; one letter for all: no pair is separated."
    )
    word = r.settings.get("draws_word", "resamples")
    sent = [
        f"{len(r.systems)} systems on the same {r.settings['tasks']} tasks, ranked by {name}: "
        + head
        + groups,
        f"The share of {word} in which a system ranks first (not the probability that it is "
        "truly first): "
        + ", ".join(f"{row.system} {row.share_first:.2f}" for row in t.head(3).itertuples())
        + ".",
    ]
    if len(r.dropped):
        shown = "; ".join(f"{d.task} ({d.reason})" for d in r.dropped.head(8).itertuples())
        more = f" and {len(r.dropped) - 8} more" if len(r.dropped) > 8 else ""
        sent.append(
            f"{len(r.dropped)} task(s) are left out of the leaderboard, which compares systems "
            f"on the tasks all of them ran: {shown}{more}."
        )
    return sent


def leaderboard_figure_texts(r: Ranking) -> dict[str, dict[str, str]]:
    """Title and alt text of the rank-interval figure and the pairwise heatmap.

    Examples
    --------
    >>> import passhat as ph
    >>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=300, seed=0)
    >>> sorted(leaderboard_figure_texts(r))
    ['pairwise_differences', 'rank_intervals']
    """
    metric, kk = r.settings["headline"]
    name = metric_name(metric, kk)
    t = r.table[(r.table["metric"] == metric) & (r.table["k"] == kk)]
    ranks = "; ".join(
        f"{row.system}: rank {row.rank} ({row.rank_lower}–{row.rank_upper}), group {row.group}"
        for row in t.itertuples()
    )
    return {
        "rank_intervals": {
            "title": f"Rank intervals by {name}",
            "alt": f"Rank and {r.settings['ci']:.0%} rank interval per system by {name}: {ranks}.",
        },
        "pairwise_differences": {
            "title": f"Pairwise differences of {name}",
            "alt": f"Heatmap of the paired differences of {name} between every two systems "
            "(row minus column, points); separated pairs after Holm are starred.",
        },
    }
