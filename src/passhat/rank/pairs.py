"""The pairwise matrix of a leaderboard: every pair's paired test, Holm per column, P(b beats a).

Every pair of systems is compared by the paired rule of :func:`passhat.compare`
(:func:`passhat.compare.paired_table`: in each scope the interval and the test
are one construction). The pairs that need random sign flips share one set of
them (:mod:`passhat.signflip_shared`: the same test per pair, at a cost nearly
flat in the number of pairs), drawn from a fresh stream of the seed, so that
with two systems the pair is exactly :func:`passhat.compare`'s. There are at
least 2 · pairs / α flips: a permutation p-value resolves down to
1 / (flips + 1), and Holm's first step needs α / pairs. The p-values are
adjusted by Holm's method across the pairs of one metric and k
(:func:`passhat.rank.tiers.holm_by_column`), and each row gets the share of the
leaderboard's joint draws in which system b beats system a (a tie counts half).
:func:`passhat.rank` cuts the tiers from this table.

Examples
--------
>>> import numpy as np
>>> from passhat.rank.pairs import win_probabilities
>>> draws = np.array([[[0.1], [0.2]], [[0.3], [0.3]], [[0.4], [0.1]]])  # draws × systems × cols
>>> win_probabilities(draws, np.array([0]), np.array([1]), np.array([0])).tolist()
[0.5]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._validate import make_rng, named_rng
from passhat.compare import paired_table
from passhat.compare.multiplicity import holm
from passhat.hierarchical import Column
from passhat.rank.draws import point_ranks
from passhat.rank.tiers import holm_by_column

__all__ = ["paired_rank_sets", "pairwise", "win_probabilities"]


def pairwise(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    w: NDArray[np.float64],
    draws: NDArray[np.float64],
    systems: Sequence[str],
    cols: Sequence[Column],
    ks: Sequence[int],
    mets: Sequence[str],
    *,
    level: float,
    n_boot: int,
    seed: int | None,
) -> tuple[pd.DataFrame, int, int]:
    """Every pair's paired comparison, Holm-adjusted per (metric, k), with P(b beats a).

    Parameters
    ----------
    n, c : ndarray
        (systems, tasks) decided runs and successes on the common tasks.
    w : ndarray
        (tasks,) the shared task weights.
    draws : ndarray
        (draws, systems, columns) the leaderboard's joint draws (for the win
        probabilities).
    systems : sequence of str
    cols : sequence of (metric, k)
        The draws' columns.
    ks : sequence of int
        The k grid (the mean is kept at its first k only).
    mets : sequence of str
        The metrics ranked.
    level : float
        The interval level; the tests' α = 1 − level.
    n_boot : int
        The resamples; the pairs get at least this many sign flips.
    seed : int, optional
        Seed of the sign flips' stream (a fresh one, as :func:`passhat.compare`).

    Returns
    -------
    table : pandas.DataFrame
        ``system_a``, ``system_b``, the columns of
        :func:`passhat.compare.paired_table` (with the indices ``a``, ``b``),
        ``p_holm``, ``separated`` (p_holm ≤ α) and ``win_probability``.
    pairs : int
        Pairs tested.
    flips : int
        Random sign flips per pair.
    """
    alpha = round(1.0 - level, 12)
    pair_idx = [(a, b) for a in range(len(systems)) for b in range(a + 1, len(systems))]
    # random sign flips resolve p down to 1/(flips + 1): Holm's first step needs α / pairs
    n_flips = max(n_boot, math.ceil(2 * len(pair_idx) / alpha))
    # one set of random sign flips serves every pair (the same test per pair, a cost nearly
    # flat in the pairs); a fresh stream of the same seed: with two systems, `compare`'s pair
    pt = paired_table(
        n,
        c,
        w,
        pair_idx,
        list(ks),
        ci=level,
        n_boot=n_flips,
        # the stream of these systems' names (issue 33, item 12): two systems, `compare`'s pair
        rng=make_rng(None) if seed is None else named_rng(seed, *map(str, systems)),
        shared_flips=True,
    )
    pt = pt[pt["metric"].isin(mets)]
    pt = pt[(pt["metric"] != "mean") | (pt["k"] == ks[0])].reset_index(drop=True)
    pt["p_holm"] = holm_by_column(pt)
    pt["separated"] = pt["p_holm"] <= alpha
    a_idx, b_idx = pt["a"].to_numpy(int), pt["b"].to_numpy(int)
    col_of = {col: j for j, col in enumerate(cols)}
    j_idx = np.array([col_of[(m, int(kk))] for m, kk in zip(pt["metric"], pt["k"], strict=True)])
    pt["win_probability"] = win_probabilities(draws, a_idx, b_idx, j_idx)
    pt.insert(0, "system_b", [systems[i] for i in b_idx])
    pt.insert(0, "system_a", [systems[i] for i in a_idx])
    return pt, len(pair_idx), n_flips


def win_probabilities(
    draws: NDArray[np.float64],
    a_idx: NDArray[np.int64],
    b_idx: NDArray[np.int64],
    j_idx: NDArray[np.int64],
) -> NDArray[np.float64]:
    """P(b beats a) over the joint draws for each row (a tie counts half).

    Column by column, on that column's values rounded to 12 decimals and
    replaced, draw by draw, by their dense ranks among the systems (small
    integers: the same order and the same ties, an eighth of the memory to
    compare); rows that repeat an (a, b, column) (the two scopes) are computed
    once.
    """
    key = np.column_stack([j_idx, a_idx, b_idx])
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    out = np.empty(uniq.shape[0])
    m = draws.shape[0]
    for j in np.unique(uniq[:, 0]).tolist():
        rows = np.flatnonzero(uniq[:, 0] == j)
        x = _dense_ranks(np.round(draws[:, :, j], 12))  # systems × draws
        step = max(1, 20_000_000 // max(m, 1))
        for start in range(0, rows.size, step):
            r = rows[start : start + step]
            da, db = x[uniq[r, 1]], x[uniq[r, 2]]
            # as (db > da).mean() + 0.5 * (db == da).mean(), to the last bit
            wins = np.count_nonzero(db > da, axis=1) / m
            out[r] = wins + 0.5 * (np.count_nonzero(db == da, axis=1) / m)
    return out[np.asarray(inv).ravel()]


def _dense_ranks(v: NDArray[np.float64]) -> NDArray[np.generic]:
    """Per row (draw) of ``v`` (draws × systems), each value's dense rank among the row's
    values (equal values share one), transposed to systems × draws.

    Two systems compare within a draw as their values do (greater, equal). A row
    with NaN keeps its values (NaN is neither greater nor equal).

    >>> _dense_ranks(np.array([[0.5, 0.2, 0.5], [0.1, 0.3, 0.2]])).tolist()
    [[1, 0], [0, 2], [1, 1]]
    """
    if np.isnan(v).any():
        return np.ascontiguousarray(v.T)
    order = np.argsort(v, axis=1, kind="stable")
    ranked = np.take_along_axis(v, order, axis=1)
    steps = np.zeros(v.shape, dtype=np.int64)
    np.cumsum(ranked[:, 1:] != ranked[:, :-1], axis=1, out=steps[:, 1:])
    ranks = np.empty_like(steps)
    np.put_along_axis(ranks, order, steps, axis=1)
    small = np.min_scalar_type(max(v.shape[1] - 1, 0))
    return np.ascontiguousarray(ranks.T.astype(small))


def paired_rank_sets(
    pop: pd.DataFrame, point: NDArray[np.float64], n_sys: int, *, alpha: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Rank intervals from the paired tests of each system against every other.

    For system s, the population-scope p-values of its S − 1 pairs (the rule of
    :func:`passhat.compare`, paired at any number of tasks) are adjusted by
    Holm's method among themselves; the rank interval is
    [1 + #{j separated and ahead of s}, S − #{j separated and behind s}]. Holm
    keeps the chance of any false separation among s's comparisons at most α,
    so the interval holds s's true rank (every rank it shares with systems of
    equal truth) with probability at least 1 − α, marginally per system, as
    the pairwise rank set of :func:`passhat.rank.draws.rank_from_draws` does
    from joint draws (Mogstad et al. 2024, with tests in place of draws). The
    reported rank always lies in its interval.

    Parameters
    ----------
    pop : pandas.DataFrame
        One column's population-scope rows of :func:`pairwise`: ``a``, ``b``,
        ``difference`` (b − a) and ``p_value`` (before Holm).
    point : ndarray, shape (S,)
        The point values (their competition ranks are the reported ranks).
    n_sys : int
    alpha : float

    Returns
    -------
    lower, upper : ndarray of int, shape (S,)

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from passhat.rank.pairs import paired_rank_sets
    >>> pop = pd.DataFrame({"a": [0, 0, 1], "b": [1, 2, 2], "difference": [-0.1, -0.3, -0.2],
    ...                     "p_value": [0.2, 0.001, 0.01]})
    >>> lo, hi = paired_rank_sets(pop, np.array([0.8, 0.7, 0.5]), 3, alpha=0.05)
    >>> lo.tolist(), hi.tolist()
    ([1, 1, 3], [2, 2, 3])
    """
    a = pop["a"].to_numpy(int)
    b = pop["b"].to_numpy(int)
    diff = pop["difference"].to_numpy(float)
    p = pop["p_value"].to_numpy(float)
    ahead = np.zeros(n_sys, dtype=np.int64)
    behind = np.zeros(n_sys, dtype=np.int64)
    for s in range(n_sys):  # systems, not tasks
        mine = np.flatnonzero((a == s) | (b == s))
        if mine.size == 0:
            continue
        sep = holm(p[mine]) <= alpha
        other_minus_s = np.where(a[mine] == s, diff[mine], -diff[mine])
        ahead[s] = int(np.sum(sep & (other_minus_s > 0)))
        behind[s] = int(np.sum(sep & (other_minus_s < 0)))
    rk = point_ranks(point)
    lower = np.minimum(1 + ahead, rk)
    upper = np.maximum(n_sys - behind, rk)
    return lower.astype(np.int64), upper.astype(np.int64)
