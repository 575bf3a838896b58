"""Leaderboard figures: rank intervals per system and the pairwise-difference heatmap.

Both take a :class:`passhat.Ranking` and draw one metric and k (default: the
ranking's headline, pass^k at the largest k).

Examples
--------
>>> import passhat as ph
>>> from passhat.report.plots_rank import plot_pairwise, plot_rank_intervals
>>> r = ph.rank(ph.load_example("agents"), k=[1, 2], n_boot=300, seed=0)
>>> type(plot_rank_intervals(r)).__name__, type(plot_pairwise(r)).__name__
('Figure', 'Figure')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from passhat.rank.result import Ranking, metric_name
from passhat.report.plots import PALETTE, _figure, _name

__all__ = ["plot_pairwise", "plot_rank_intervals"]


def _column(r: Ranking, metric: str | None, k: int | None) -> tuple[str, int]:
    m, kk = r.settings["headline"]
    return (metric or m, int(k if k is not None else kk))


def _rows(r: Ranking, metric: str, k: int) -> Any:
    t = r.table[r.table["metric"] == metric]
    return t if metric == "mean" else t[t["k"] == k]


def plot_rank_intervals(
    r: Ranking,
    *,
    metric: str | None = None,
    k: int | None = None,
    intervals: Mapping[str, tuple[float, ...]] | None = None,
) -> Any:
    """One row per system, best first: its rank (dot) and rank interval (bar), coloured by its
    first group letter (systems that share a letter are not separated).

    The right-hand labels give the value with its interval and the share of draws in which
    the system ranks first; ``intervals`` (system → (lower, upper, …)) replaces a system's
    value interval by the one the rest of a report gives the same value (the report's
    headline interval).

    Returns
    -------
    matplotlib.figure.Figure
    """
    metric, k = _column(r, metric, k)
    t = _rows(r, metric, k)
    n = len(t)
    fig = _figure(7.0, 0.9 + 0.42 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    first = list(dict.fromkeys(str(g)[0] for g in t["group"]))  # letters in leaderboard order
    for yi, row in zip(y, t.itertuples(), strict=True):
        color = PALETTE[first.index(str(row.group)[0]) % len(PALETTE)]
        lower, upper = (intervals or {}).get(str(row.system), (row.lower, row.upper))[:2]
        ax.plot([row.rank_lower, row.rank_upper], [yi, yi], color=color, lw=5, alpha=0.45)
        ax.plot([row.rank], [yi], "o", color=color, ms=7)
        ax.annotate(
            f"{row.value:.1%} ({lower:.1%}–{upper:.1%}), first in {row.share_first:.2f}",
            xy=(1.0, yi),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_yticks(y, [f"{row.group} {_name(row.system)}" for row in t.itertuples()])
    ax.set_xlim(0.5, len(r.systems) + 0.5)
    ax.set_xticks(np.arange(1, len(r.systems) + 1))
    ax.invert_xaxis()
    ax.set_xlabel(f"rank by {metric_name(metric, k)} ({r.settings['ci']:.0%} rank interval)")
    ax.grid(axis="x", alpha=0.3)
    return fig


def plot_pairwise(r: Ranking, *, metric: str | None = None, k: int | None = None) -> Any:
    """Heatmap of the paired differences row − column (population scope), best first.

    Cells whose Holm-adjusted test separates the pair are marked with ``*``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    metric, k = _column(r, metric, k)
    order = _rows(r, metric, k)["system"].tolist()
    pos = {s: i for i, s in enumerate(order)}
    p = r.pairs[(r.pairs["metric"] == metric) & (r.pairs["scope"] == "population")]
    if metric != "mean":
        p = p[p["k"] == k]
    n = len(order)
    diff = np.zeros((n, n))
    sep = np.zeros((n, n), dtype=bool)
    for row in p.itertuples():
        a, b = pos[str(row.system_a)], pos[str(row.system_b)]
        diff[b, a], diff[a, b] = row.difference, -row.difference
        sep[a, b] = sep[b, a] = bool(row.separated)
    size = 1.6 + 0.55 * n
    fig = _figure(size + 1.2, size)
    ax = fig.add_subplot()
    lim = max(float(np.abs(diff).max()), 1e-6)
    im = ax.imshow(diff * 100, cmap="RdBu", vmin=-lim * 100, vmax=lim * 100)
    for i in range(n):
        for j in range(n):
            if i != j:
                ax.text(
                    j,
                    i,
                    f"{diff[i, j] * 100:+.1f}{'*' if sep[i, j] else ''}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
    labels = [_name(s) for s in order]
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_title(f"{metric_name(metric, k)}: row − column, points (* separated, Holm)", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8, label="difference (points)")
    return fig
