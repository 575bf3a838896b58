"""Tests of passhat.rank.draws: rank statistics as pure functions of a draw matrix.

Oracles: ranks counted by hand (``1 + #{j : v_j > v_i}``, ties sharing the smaller
rank), scipy's rankdata, the max of independent |N(0, 1)| (its 90% point
solves Φ-based ``(2Φ(c) − 1)^m = 0.9``), and the Mogstad et al. rank set
recomputed with explicit loops over systems and draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from passhat.errors import ValidationError
from passhat.rank.draws import point_ranks, rank_from_draws, simultaneous_band


def test_point_ranks_share_ties() -> None:
    v = np.array([0.3, 0.9, 0.3, 0.1, 0.9])
    hand = [1 + sum(x > y for x in v) for y in v]
    assert point_ranks(v).tolist() == hand == [3, 1, 3, 5, 1]
    assert point_ranks(v).tolist() == stats.rankdata(-v, method="min").astype(int).tolist()


def test_share_first_splits_ties_and_sums_to_one() -> None:
    rng = np.random.default_rng(1)
    d = np.round(rng.random((500, 4)), 1)  # many ties in a draw
    r = rank_from_draws(d, list("abcd"), d.mean(axis=0))
    assert r["share_first"].sum() == pytest.approx(1.0)
    # by hand: each draw gives 1/m to each of its m top systems
    hand = np.zeros(4)
    for row in d:
        top = np.flatnonzero(row == row.max())
        hand[top] += 1.0 / top.size
    assert np.allclose(r["share_first"], hand / 500)


def test_identical_systems_half_each_and_one_rank_set() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(0.5, 0.05, 2000)
    d = np.column_stack([x, x, x - 0.3])
    r = rank_from_draws(d, ["a", "b", "c"], [0.5, 0.5, 0.2], ci=0.9)
    assert r["share_first"].round(6).tolist() == [0.5, 0.5, 0.0]
    assert r["rank"].tolist() == [1, 1, 3]
    assert r[["rank_lower", "rank_upper"]].values.tolist() == [[1, 2], [1, 2], [3, 3]]


def _loop_rank_set(d: np.ndarray, point: np.ndarray, alpha: float) -> list[tuple[int, int]]:
    s = d.shape[1]
    out = []
    for i in range(s):
        se = np.array([np.std(d[:, j] - d[:, i]) for j in range(s)])
        mx = np.zeros(d.shape[0])
        for j in range(s):
            if j == i or se[j] == 0:
                continue
            mx = np.maximum(mx, np.abs((d[:, j] - d[:, i]) - (point[j] - point[i])) / se[j])
        crit = np.sort(mx)[int(np.ceil((1 - alpha) * d.shape[0])) - 1]
        better = sum(
            1 for j in range(s) if j != i and se[j] > 0 and point[j] - point[i] - crit * se[j] > 0
        )
        worse = sum(
            1 for j in range(s) if j != i and se[j] > 0 and point[j] - point[i] + crit * se[j] < 0
        )
        out.append((1 + better, s - worse))
    return out


def test_pairwise_rank_set_against_loops() -> None:
    rng = np.random.default_rng(3)
    common = rng.normal(0, 0.03, (3000, 1))  # correlated systems, as on shared tasks
    mu = np.array([0.70, 0.66, 0.65, 0.55, 0.54, 0.30])
    d = mu + common + rng.normal(0, 0.02, (3000, 6))
    r = rank_from_draws(d, list("abcdef"), mu, ci=0.9)
    got = list(zip(r["rank_lower"], r["rank_upper"], strict=True))
    assert got == _loop_rank_set(d, mu, 0.1)


def test_percentile_rank_interval() -> None:
    rng = np.random.default_rng(4)
    d = np.array([0.6, 0.5, 0.4]) + rng.normal(0, 0.06, (4000, 3))
    r = rank_from_draws(d, list("abc"), [0.6, 0.5, 0.4], ci=0.9, rank_method="percentile")
    ranks = stats.rankdata(-d, method="min", axis=1)
    for i in range(3):
        assert r["rank_lower"][i] == int(np.quantile(ranks[:, i], 0.05, method="inverted_cdf"))
        assert r["rank_upper"][i] == int(np.quantile(ranks[:, i], 0.95, method="inverted_cdf"))


def test_simultaneous_band_max_of_normals() -> None:
    rng = np.random.default_rng(5)
    m = 4
    d = rng.normal(0, 1, (40_000, m))
    lo, hi, c = simultaneous_band(d, np.zeros(m), ci=0.9)
    exact = stats.norm.ppf((1 + 0.9 ** (1 / m)) / 2)  # (2Φ(c) − 1)^m = 0.9
    assert c == pytest.approx(exact, abs=0.03)
    assert c > stats.norm.ppf(0.95)  # wider than the marginal interval
    # coverage over the draws themselves: all m columns inside in ≈ 90% of draws
    inside = np.all((d >= lo) & (d <= hi), axis=1).mean()
    assert inside == pytest.approx(0.9, abs=0.01)


def test_bad_draws() -> None:
    with pytest.raises(ValidationError, match="columns for 3 systems"):
        rank_from_draws(np.zeros((10, 2)), list("abc"), [0, 0, 0])
    with pytest.raises(ValidationError, match="finite"):
        rank_from_draws(np.full((10, 2), np.nan), list("ab"), [0, 0])
