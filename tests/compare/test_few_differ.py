"""The population interval where few tasks differ: paired Bayesian bootstrap joined with the
sign-flip test (passhat.compare.few_differ)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from passhat.compare.draw_tests import draw_interval
from passhat.compare.engine import paired_table
from passhat.compare.few_differ import few_differ_intervals, paired_bayesian_bootstrap


def test_without_pseudo_tasks_the_share_that_differs_is_beta() -> None:
    # Oracle (Rubin 1981): Dirichlet(1, …, 1) weights of T tasks, m of them with d = 1, give
    # the weighted share Beta(m, T − m) exactly.
    d = paired_bayesian_bootstrap(
        np.array([[1.0], [0.0]]),
        np.ones(2),
        [3, 37],
        n_draws=20_000,
        rng=np.random.default_rng(0),
        pseudo=0.0,
    )
    assert stats.kstest(d[:, 0], stats.beta(3, 37).cdf).pvalue > 1e-3


def test_categories_and_weights_match_the_task_by_task_dirichlet() -> None:
    # Oracle: brute force, one Exp(1) weight per task times its task weight, pseudo-tasks at ±1
    # of one effective task's weight Σw²/Σw with Gamma(1/2) weights.
    rng = np.random.default_rng(1)
    vals = np.array([[1.0, 0.5], [-0.5, 0.0], [0.0, 0.0]])
    w = np.array([5.0, 1.0, 1.0])
    freq = np.array([2, 3, 10])
    m = 40_000
    got = paired_bayesian_bootstrap(vals, w, freq, n_draws=m, rng=rng)
    per_task_v = np.repeat(vals, freq, axis=0)
    per_task_w = np.repeat(w, freq)
    g = rng.exponential(size=(m, per_task_w.size)) * per_task_w
    w_bar = (per_task_w**2).sum() / per_task_w.sum()  # one effective task (Kish)
    up, down = rng.gamma(0.5, size=m) * w_bar, rng.gamma(0.5, size=m) * w_bar
    ref = (g @ per_task_v + (up - down)[:, None]) / (g.sum(axis=1) + up + down)[:, None]
    for j in range(2):
        assert stats.ks_2samp(got[:, j], ref[:, j]).pvalue > 1e-3


def test_nothing_differs_nothing_rejected() -> None:
    lo, hi, p, how = few_differ_intervals(
        np.zeros((40, 2)), np.ones(40), ci=0.9, n_draws=2000, rng=np.random.default_rng(2)
    )
    assert np.all(lo < 0) and np.all(hi > 0) and np.all(p == 1.0)
    assert how.startswith("exact")
    # about the Jeffreys-like width of "none of 40 tasks differs": a few hundredths
    assert np.all(hi < 0.08)


@pytest.mark.parametrize("m", [2, 3, 4, 5])
def test_the_sign_flip_test_keeps_its_exact_level(m: int) -> None:
    # m tasks of 30 all favour B by a full run: the exact sign-flip p is 2 / 2^m; the Bayesian
    # bootstrap alone would reject for m ≥ 3 at 10% (its tail at 0 is about 0.5^(m+1) · …)
    d = np.r_[np.ones(m), np.zeros(30 - m)][:, None]
    rng = np.random.default_rng(3)
    lo, _hi, p, _ = few_differ_intervals(d, np.ones(30), ci=0.9, n_draws=20_000, rng=rng)
    assert p[0] == pytest.approx(min(1.0, 2.0 / 2**m))
    assert (lo[0] > 0) == (p[0] <= 0.1)
    bb = paired_bayesian_bootstrap(d[[0, -1]], np.ones(2), [m, 30 - m], n_draws=20_000, rng=rng)
    p_bb = draw_interval(bb[:, 0], ci=0.9)[2]
    assert p[0] >= p_bb
    if m in (3, 4):  # the bootstrap alone would reject; the exact test (p = 0.25, 0.125) not
        assert p_bb <= 0.1 < p[0]


def test_interval_and_test_agree_on_random_sparse_differences() -> None:
    rng = np.random.default_rng(4)
    for _ in range(60):
        t = int(rng.integers(8, 80))
        m = int(rng.integers(0, 10))
        d = np.zeros((t, 3))
        idx = rng.choice(t, size=min(m, t), replace=False)
        d[idx] = rng.choice([-1.0, -0.5, -0.25, 0.25, 0.5, 1.0], size=(idx.size, 3))
        w = rng.choice([1.0, 3.0], size=t)
        lo, hi, p, _ = few_differ_intervals(d, w, ci=0.9, n_draws=500, rng=rng)
        mean = w @ d / w.sum()
        for j in range(3):
            assert lo[j] <= hi[j]
            assert (lo[j] > 0 or hi[j] < 0) == (p[j] <= 0.1)
            assert lo[j] - 1e-12 <= mean[j] <= hi[j] + 1e-12


def test_the_engine_uses_it_below_ten_differing_tasks_and_names_it() -> None:
    n = np.full((2, 60), 5)
    c = np.vstack([np.zeros(60, dtype=int), np.r_[np.full(6, 5), np.zeros(54, dtype=int)]])
    t = paired_table(
        n, c, np.ones(60), [(0, 1)], [5], ci=0.9, n_boot=4000, rng=np.random.default_rng(5)
    )
    pop = t[(t["scope"] == "population") & (t["metric"] == "pass_hat_k")].iloc[0]
    assert pop["method"].startswith("paired Bayesian bootstrap of the matched tasks")
    assert "fewer than 10 tasks differ" in pop["method"]
    assert "sign-flip permutation p-value (exact" in pop["p_method"]
    # 6 of 60 tasks fixed outright: the truth-like value 0.1 lies inside, and p is the exact
    # sign-flip p = 2 / 2^6 (the bootstrap's tail is far smaller)
    assert pop["lower"] < 0.1 < pop["upper"]
    assert pop["p_value"] == pytest.approx(2 / 2**6)
    assert pop["lower"] > 0
