"""The analytic population intervals (passhat.analytic) against hand computations and scipy /
statsmodels; their coverage is studied in studies/analytic_interval, not here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from passhat.analytic import (
    analytic_interval,
    logit_t_interval,
    population_se,
    wilson_type_interval,
)


def test_population_se_equal_weights_is_scipy_sem() -> None:
    v = np.random.default_rng(1).random((40, 3))
    theta, se, df = population_se(v, np.ones(40, dtype=np.int64), np.ones(40))
    assert np.allclose(theta, v.mean(axis=0), atol=1e-15)
    assert np.allclose(se, stats.sem(v, axis=0, ddof=1), rtol=1e-12)
    assert df == pytest.approx(39.0)


def test_population_se_frequencies_equal_the_expanded_tasks() -> None:
    vals = np.array([[0.0], [0.25], [1.0]])
    freq = np.array([4, 2, 3])
    expanded = np.repeat(vals, freq, axis=0)
    got = population_se(vals, freq, np.ones(3))
    want = population_se(expanded, np.ones(9, dtype=np.int64), np.ones(9))
    assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])
    assert got[2] == pytest.approx(want[2]) == pytest.approx(8.0)


def test_population_se_weighted_is_the_ratio_estimators_linearised_variance() -> None:
    """Hand loop: SE² = T/(T−1) Σ (w_i/Σw)² (v_i − θ̂)², df = Kish − 1 (Cochran §6.4)."""
    rng = np.random.default_rng(3)
    v, w = rng.random(25), rng.uniform(0.5, 3.0, 25)
    theta_hand = sum(wi * vi for wi, vi in zip(w, v, strict=True)) / sum(w)
    var_hand = (
        25
        / 24
        * sum((wi / sum(w)) ** 2 * (vi - theta_hand) ** 2 for wi, vi in zip(w, v, strict=True))
    )
    kish = sum(w) ** 2 / sum(wi**2 for wi in w)
    theta, se, df = population_se(v, np.ones(25, dtype=np.int64), w)
    assert theta[0] == pytest.approx(theta_hand, rel=1e-12)
    assert se[0] == pytest.approx(np.sqrt(var_hand), rel=1e-12)
    assert df == pytest.approx(kish - 1.0, rel=1e-12)


@pytest.mark.parametrize(
    ("theta", "se", "df", "ci"), [(0.3, 0.05, 29.0, 0.9), (0.92, 0.02, 199.0, 0.95)]
)
def test_logit_t_is_the_hand_computation(theta: float, se: float, df: float, ci: float) -> None:
    t = stats.t.ppf(1 - (1 - ci) / 2, df)
    half = t * se / (theta * (1 - theta))
    want = special.expit(special.logit(theta) + np.array([-half, half]))
    lo, hi = logit_t_interval([theta], [se], df, ci=ci)
    assert np.allclose([lo[0], hi[0]], want, rtol=1e-12)


def test_wilson_type_with_binomial_se_is_statsmodels_wilson() -> None:
    """With SE² = p(1 − p)/n the effective trials are n: Wilson's interval (z as df → ∞)."""
    for count, n in [(3, 40), (20, 100), (97, 100)]:
        p = count / n
        lo, hi = wilson_type_interval([p], [np.sqrt(p * (1 - p) / n)], 1e12, ci=0.9)
        want = proportion_confint(count, n, alpha=0.1, method="wilson")
        assert np.allclose([lo[0], hi[0]], want, rtol=1e-9)


def test_degenerate_estimates_give_nan() -> None:
    for f in (logit_t_interval, wilson_type_interval):
        lo, hi = f([0.0, 1.0, 0.4, 0.4], [0.1, 0.1, 0.0, np.nan], 10.0, ci=0.9)
        assert np.isnan(lo).all() and np.isnan(hi).all()
    lo, hi, _ = analytic_interval(np.full((12, 1), 0.5), np.ones(12), np.ones(12), ci=0.9)
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_analytic_interval_names_its_kind_and_refuses_others() -> None:
    v = np.linspace(0.05, 0.6, 30)[:, None]
    lo, hi, label = analytic_interval(v, np.ones(30), np.ones(30), ci=0.9, kind="wilson")
    assert label == "analytic wilson interval (effective trials θ(1 − θ) / SE², t on 29 df)"
    assert lo[0] < v.mean() < hi[0]
    with pytest.raises(ValueError, match="kind must be one of"):
        analytic_interval(v, np.ones(30), np.ones(30), ci=0.9, kind="normal")
