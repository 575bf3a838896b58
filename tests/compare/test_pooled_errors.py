"""The benchmark scope's simulated error, all columns from one set of draws, against the old path.

:func:`passhat.hierarchical.estimate_error_draws` now reads every column (mean,
pass@k, pass^k at every k) from one draw of each task's rate and new runs, and
draws the new runs first, from their Beta-Binomial law by inverting its CDF, then
the rate given them; :func:`passhat.compare.engine.paired_table` fits the pooled
posterior once per pair instead of once per column. The algorithm is the same
joint law, so the numbers may move only by Monte Carlo error.

Oracles: scipy's ``betabinom.cdf`` for the inversion table; a slow reference kept
here — the per-column implementation this replaced (rate from its posterior, new
runs Binomial(n, p) at it, one column per call) — compared by a two-sample
Kolmogorov–Smirnov test and quantiles within Monte Carlo error; and the numbers
the per-column code gave (main at e579678, 40,000 draws, seed 3) on a small
three-system table, recorded below, within Monte Carlo tolerance, with the rows
drawn before any pooled interval (the first pair's population scope) identical.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from passhat.betabinom import GridNodes, posterior_grid
from passhat.compare.engine import paired_table
from passhat.hierarchical import (
    EXACT_GROUP_MAX,
    _estimate_table,
    _g,
    _predictive_cdf,
    estimate_error_draws,
    expected_task_variance,
)


def _reference_error_draws(
    nodes: GridNodes,
    n: np.ndarray,
    c: np.ndarray,
    w: np.ndarray,
    freq: np.ndarray,
    col: tuple[str, int],
    *,
    pick: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """The per-column code of main at e579678: p ~ posterior, c* ~ Binomial(n, p), one column."""
    a, b = nodes.a[pick], nodes.b[pick]
    out = np.zeros(pick.size)
    small = freq <= EXACT_GROUP_MAX
    rep = np.repeat(np.flatnonzero(small), freq[small])
    if rep.size:
        table, offset = _estimate_table(n[rep], col)
        p = rng.beta(a[:, None] + c[rep][None, :], b[:, None] + (n[rep] - c[rep])[None, :])
        u = table[offset[None, :] + rng.binomial(n[rep].astype(np.int64)[None, :], p)]
        out += ((u - _g(p, col)) * w[rep][None, :]).sum(axis=1)
    big = np.flatnonzero(~small)
    if big.size:
        var = expected_task_variance(nodes, n[big], c[big], [col])[:, 0]
        out += np.sqrt(np.sum(freq[big] * w[big] ** 2 * var)) * rng.standard_normal(pick.size)
    return out / float(np.sum(w * freq))


def test_inversion_table_is_the_beta_binomial_cdf() -> None:
    a = np.array([0.01, 0.3, 2.0, 40.0, 3e5])
    b = np.array([5.0, 0.02, 2.0, 9.0, 2e5])
    n = np.array([1.0, 3.0, 5.0, 8.0])
    c = np.array([0.0, 3.0, 2.0, 5.0])
    cdf = _predictive_cdf(a, b, n, c)
    assert cdf.shape == (5, 4, 8)
    for i in range(a.size):
        for j in range(n.size):
            m = np.arange(int(n[j]))
            want = stats.betabinom.cdf(m, int(n[j]), a[i] + c[j], b[i] + n[j] - c[j])
            np.testing.assert_allclose(cdf[i, j, : m.size], want, rtol=1e-9, atol=1e-12)
            assert np.all(cdf[i, j, m.size :] == 2.0)  # beyond n: never reached by a uniform


@pytest.mark.parametrize(
    ("runs", "many"),
    [(np.r_[np.full(8, 5), np.full(4, 3), np.full(3, 8)], 0), (np.full(6, 25), 40)],
    ids=["inversion, mixed n", "binomial (n > 20) and a category of > 30 tasks"],
)
def test_error_draws_match_the_per_column_reference(runs: np.ndarray, many: int) -> None:
    rng = np.random.default_rng(11)
    n = np.r_[runs, np.full(many, runs[0])].astype(float)
    c = np.floor(rng.uniform(0, 1, n.size) * (n + 1)).clip(0, n)
    if many:
        c[runs.size :] = n[runs.size :]  # one category of `many` all-pass tasks: the normal term
    w = np.ones(n.size) if many else rng.choice([0.5, 1.0, 2.0], n.size)
    cat, freq = np.unique(np.column_stack([n, c, w]), axis=0, return_counts=True)
    nodes = posterior_grid(n, c, size=64).nodes()
    cols = [("mean", 1), ("pass_at_k", 3), ("pass_hat_k", 2), ("pass_hat_k", 3)]
    m = 30_000
    new = estimate_error_draws(
        nodes, cat[:, 0], cat[:, 1], cat[:, 2], freq, cols, pick=nodes.sample(m, rng), rng=rng
    )
    assert new.shape == (m, len(cols))
    for j, col in enumerate(cols):
        ref = _reference_error_draws(
            nodes, cat[:, 0], cat[:, 1], cat[:, 2], freq, col, pick=nodes.sample(m, rng), rng=rng
        )
        assert stats.ks_2samp(ref, new[:, j]).pvalue > 1e-3, col
        assert abs(new[:, j].mean()) < 4 * ref.std() / np.sqrt(m)  # unbiased: mean error 0
        assert new[:, j].std() == pytest.approx(ref.std(), rel=0.04), col
        q = [0.05, 0.5, 0.95]
        np.testing.assert_allclose(
            np.quantile(new[:, j], q), np.quantile(ref, q), atol=0.05 * ref.std(), err_msg=col
        )


# main at e579678 (per-column pooled intervals), paired_table(..., [2], ci=0.9, n_boot=40_000,
# rng=default_rng(3), shared_flips=True) on the table below: (lower, upper, p_value)
_OLD = {
    (0, 1, "mean", "benchmark"): (0.1143, 0.4276, 0.0019),
    (0, 1, "mean", "population"): (0.0833, 0.4500, 0.0371),
    (0, 1, "pass_at_k", "benchmark"): (0.0734, 0.4558, 0.0134),
    (0, 1, "pass_at_k", "population"): (0.0107, 0.4496, 0.0849),
    (0, 1, "pass_hat_k", "benchmark"): (0.0733, 0.4840, 0.0181),
    (0, 1, "pass_hat_k", "population"): (-0.0025, 0.4654, 0.1037),
    (0, 2, "mean", "benchmark"): (0.2965, 0.5800, 0.0000),
    (0, 2, "mean", "population"): (0.1872, 0.5822, 0.0043),
    (0, 2, "pass_at_k", "benchmark"): (0.1881, 0.5334, 0.0001),
    (0, 2, "pass_at_k", "population"): (0.1253, 0.5279, 0.0114),
    (0, 2, "pass_hat_k", "benchmark"): (0.3241, 0.7074, 0.0000),
    (0, 2, "pass_hat_k", "population"): (0.2198, 0.6720, 0.0027),
    (1, 2, "mean", "benchmark"): (0.0260, 0.3076, 0.0459),
    (1, 2, "mean", "population"): (-0.0304, 0.3412, 0.1655),
    (1, 2, "pass_at_k", "benchmark"): (-0.0499, 0.2425, 0.3703),
    (1, 2, "pass_at_k", "population"): (-0.0697, 0.2668, 0.3250),
    (1, 2, "pass_hat_k", "benchmark"): (0.0266, 0.4473, 0.0587),
    (1, 2, "pass_hat_k", "population"): (-0.0173, 0.4517, 0.1263),
}


def test_pooled_intervals_equal_the_old_per_column_numbers_within_monte_carlo_error() -> None:
    n = np.full((3, 12), 4)
    c = np.array(
        [
            [0, 1, 2, 4, 1, 0, 3, 2, 1, 0, 4, 2],
            [1, 3, 2, 3, 4, 2, 4, 4, 0, 3, 4, 3],
            [4, 4, 3, 4, 4, 2, 4, 4, 1, 3, 4, 4],
        ]
    )
    draws = 40_000
    t = paired_table(
        n,
        c,
        np.ones(12),
        [(0, 1), (0, 2), (1, 2)],
        [2],
        ci=0.9,
        n_boot=draws,
        rng=np.random.default_rng(3),
        shared_flips=True,
    )
    assert len(t) == len(_OLD)
    for r in t.itertuples():
        lo, hi, p = _OLD[(r.a, r.b, r.metric, r.scope)]
        if str(r.method).startswith("paired Bayesian bootstrap"):
            # fewer than 10 tasks differ: the paired fallback replaced the two posteriors'
            # difference (issue 28); tested in test_few_differ.py
            assert r.scope == "population"
            assert (r.lower > 0 or r.upper < 0) == (r.p_value <= 0.1)
            continue
        if (r.a, r.b, r.scope) == (0, 1, "population"):
            # drawn before any pooled interval: the same random numbers, the same numbers
            assert (round(r.lower, 4), round(r.upper, 4), round(r.p_value, 4)) == (lo, hi, p)
            continue
        # two Monte Carlo estimates of one quantity: 5% / 95% quantiles of 40,000 draws move
        # by ~0.001 here; a two-sided tail count p by 2·sqrt(q(1 − q)/M), q = p/2, each
        q = max(p, r.p_value) / 2
        assert abs(r.p_value - p) <= 4 * np.sqrt(2) * 2 * np.sqrt(q * (1 - q) / draws) + 2e-4
        assert r.lower == pytest.approx(lo, abs=0.006)
        assert r.upper == pytest.approx(hi, abs=0.006)
