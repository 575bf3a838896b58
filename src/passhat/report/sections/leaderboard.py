"""The leaderboard section (three systems or more): tiers, rank intervals, P(rank = 1).

With two systems the report keeps the paired comparison of the headline; from
three on it adds this section: :func:`passhat.rank` on the report's matched
tasks, the table of the headline metric (pass^k at the largest k) with tiers,
and two figures (rank intervals; pairwise differences).
"""

from __future__ import annotations

import xarray as xr

from passhat.rank import Ranking, rank
from passhat.rank.result import metric_name
from passhat.report.document import Column, Section, Table

__all__ = ["MIN_SYSTEMS", "leaderboard_figure_texts", "leaderboard_section"]

#: Systems from which the report has a leaderboard section.
MIN_SYSTEMS = 3


def leaderboard_section(
    ds: xr.Dataset, *, ks: list[int], ci: float, seed: int | None, n_boot: int
) -> tuple[Section, Ranking]:
    """The leaderboard section and the ranking behind it.

    Parameters
    ----------
    ds : xarray.Dataset
        The report's count table (its matched tasks are ranked).
    ks : list of int
    ci : float
    seed : int, optional
    n_boot : int

    Returns
    -------
    (Section, Ranking)

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.estimators import as_counts
    >>> sec, r = leaderboard_section(as_counts(ph.load_example("agents")), ks=[1, 2], ci=0.95,
    ...                              seed=0, n_boot=300)
    >>> sec.id, sec.figures
    ('leaderboard', ['rank_intervals', 'pairwise_differences'])
    """
    r = rank(ds, k=ks, ci=ci, n_boot=n_boot, seed=seed, intersect=True)
    metric, kk = r.settings["headline"]
    name = metric_name(metric, kk)
    t = r.table[(r.table["metric"] == metric) & (r.table["k"] == kk)]
    rows = [
        {
            "tier": f"{row.tier}*" if row.separated_from_leader else str(row.tier),
            "system": str(row.system),
            "value": float(row.value),
            "value_lower": float(row.lower),
            "value_upper": float(row.upper),
            "rank": int(row.rank),
            "rank_interval": f"{row.rank_lower}–{row.rank_upper}"
            if row.rank_lower != row.rank_upper
            else str(row.rank_lower),
            "p_first": float(row.p_first),
            "separated_from_leader": bool(row.separated_from_leader),
        }
        for row in t.itertuples()
    ]
    table = Table(
        id="leaderboard",
        caption=f"Leaderboard by {name}, best first ({ci:.0%} intervals)",
        columns=[
            Column("tier", "Tier"),
            Column("system", "System"),
            Column("value", name, "pct_interval"),
            Column("rank", "Rank", "int"),
            Column("rank_interval", "Rank interval"),
            Column("p_first", "P(rank = 1)", "num"),
        ],
        rows=rows,
        note=(
            "Value: expected value over tasks like these, marginal "
            f"{r.settings['value_interval']}"
            ". Rank interval: marginal per system, simultaneous over its "
            "comparisons with the others. Tier: walking down from the leader, a new tier starts "
            "only at a system whose paired test (the comparison's rule) rejects against every "
            f"system of the tier above, at {1 - ci:.0%} after Holm across the "
            f"{r.settings['pairs_tested']} pairs; * in its leader's tier through a chain of ties "
            "but separated from the leader."
        ),
    )
    tiers = t.groupby("tier", sort=True)["system"].apply(list)  # int tiers of the ranking
    top = tiers.iloc[0]
    level = f"{1 - ci:.0%}"
    apart = [str(x) for x in t.loc[t["separated_from_leader"].astype(bool), "system"]]
    apart_top = [x for x in apart if x in top]
    chain = (
        f"a chain: each is not separable at {level} from a system above it, but {top[0]} is "
        f"separated from {', '.join(apart_top)} (marked *)"
    )
    if len(tiers) == 1:
        head = (
            f"{top[0]} leads and no other system is separated from it at {level}."
            if not apart_top
            else f"one tier, {chain}."
        )
    else:
        if len(top) == 1:
            detail = " alone"
        elif apart_top:
            detail = f" ({chain})"
        else:
            detail = f" ({len(top)} systems the data cannot order at {level})"
        head = f"the top tier is {', '.join(top)}{detail}; {len(tiers)} tiers in all."
    sent = [
        f"{len(r.systems)} systems on the same {r.settings['tasks']} tasks, ranked by {name}: "
        + head,
        f"P(rank = 1) is the share of {r.settings.get('draws_word', 'resamples')} in which a "
        "system ranks first: "
        + ", ".join(f"{row.system} {row.p_first:.2f}" for row in t.head(3).itertuples())
        + ".",
    ]
    if len(r.dropped):
        shown = "; ".join(f"{d.task} ({d.reason})" for d in r.dropped.head(8).itertuples())
        more = f" and {len(r.dropped) - 8} more" if len(r.dropped) > 8 else ""
        sent.append(
            f"{len(r.dropped)} task(s) are left out of the leaderboard, which compares systems "
            f"on the tasks all of them ran: {shown}{more}."
        )
    if apart and apart != apart_top:
        sent.append(
            "Some systems sit in their leader's tier through a chain of ties but are separated "
            "from the leader itself (marked *)."
        )
    sec = Section(
        id="leaderboard",
        title="Leaderboard",
        sentences=sent,
        tables=[table],
        figures=["rank_intervals", "pairwise_differences"],
    )
    return sec, r


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
        f"{row.system}: rank {row.rank} ({row.rank_lower}–{row.rank_upper}), tier {row.tier}"
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
