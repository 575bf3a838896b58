"""Tests of passhat.compare.multiplicity and the classification's error rate across tasks.

Oracles
-------
* statsmodels' ``multipletests`` (Holm, Benjamini–Hochberg) when nothing is screened out.
* Tarone's rule by its definition (a loop over K).
* Simulation with known truth: candidate = baseline (every task unchanged) at 168 × 5,
  200 × 10 and 500 × 20 tasks × runs — the share of builds with any false "regression"
  stays ≤ α + Monte-Carlo error under Holm (and the false discovery rate ≤ q under BH
  with planted regressions), where the uncorrected per-task test flags most unchanged
  builds. The full grid is in studies/gates (reports/gates); a fast subset runs here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

import passhat as ph
from passhat.compare.classification import fisher_tails
from passhat.compare.multiplicity import adjust, tarone_testable
from passhat.errors import OptionError

ALPHA = 0.05


@pytest.mark.parametrize(("method", "sm"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_matches_statsmodels(method: str, sm: str) -> None:
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.uniform(size=40), rng.uniform(0, 0.002, size=5)])
    adj, testable = adjust(p, alpha=ALPHA, method=method)
    reject, want, _, _ = multipletests(p, alpha=ALPHA, method=sm)
    np.testing.assert_allclose(adj, want, rtol=1e-12)
    assert testable.all() and ((adj <= ALPHA) == reject).all()


def test_tarone_by_definition() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        pm = rng.choice([1.0, 0.5, 0.1, 0.03, 0.004, 1e-4], size=rng.integers(1, 30))
        m = pm.size
        K = next((K for K in range(1, m + 1) if (pm <= ALPHA / K).sum() <= K), m)
        np.testing.assert_array_equal(tarone_testable(pm, ALPHA), pm <= ALPHA / K)


def test_screened_tasks_are_never_flagged_and_within_limits_the_family() -> None:
    p = np.array([0.001, 0.01, 0.5, 0.002])
    adj, testable = adjust(p, [0.001, 1.0, 0.2, 0.001], alpha=ALPHA, method="holm", within=[1, 1, 1, 0])
    assert testable.tolist() == [True, False, False, False]
    assert adj.tolist() == [0.001, 1.0, 1.0, 1.0]
    raw, fam = adjust(p, alpha=ALPHA, method="none")
    assert raw.tolist() == p.tolist() and fam.all()
    with pytest.raises(OptionError, match="multiplicity must be one of holm, bh, none"):
        adjust(p, alpha=ALPHA, method="bonferroni")


def test_fisher_floor_is_the_extreme_table() -> None:
    p_reg, p_fix, min_reg, min_fix = fisher_tails([5, 5, 5], [5, 3, 5], [5, 5, 5], [0, 2, 5])
    assert min_reg[0] == pytest.approx(1 / 252) and p_reg[0] == pytest.approx(1 / 252)
    # 3/5 vs 2/5 (5 successes in 10): the floor puts all 5 in the base
    assert min_reg[1] == pytest.approx(1 / 252) and min_fix[1] == pytest.approx(1 / 252)
    assert min_reg[2] == 1.0 and min_fix[2] == 1.0  # all pass in both: never significant


# ------------------------------------------------------------ null simulation
def _any_false_regression(T: int, n: int, reps: int, method: str, seed: int) -> float:
    """Share of unchanged builds (candidate = baseline rates) with a task flagged regression."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        rates = np.where(rng.random(T) < 0.4, 1.0, rng.beta(2.6, 1.2, T))  # agents-like
        cb, cc = rng.binomial(n, rates), rng.binomial(n, rates)
        tasks = [f"t{i}" for i in range(T)]
        res = ph.classify(
            ph.counts_from_arrays(np.full(T, n), cb, tasks=tasks, system="a"),
            ph.counts_from_arrays(np.full(T, n), cc, tasks=tasks, system="b"),
            multiplicity=method,
        )
        hits += res.has("regression")
    return hits / reps


def test_unchanged_build_any_false_regression_fast() -> None:
    """168 tasks × 5 runs: Holm keeps P(any false regression) ≤ α; no correction does not."""
    reps = 150
    holm = _any_false_regression(168, 5, reps, "holm", seed=2)
    none = _any_false_regression(168, 5, reps, "none", seed=2)
    assert holm <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert none > 0.2  # the 35% of unchanged builds blocked


def test_planted_regressions_are_found() -> None:
    rng = np.random.default_rng(3)
    T, n = 200, 10
    rates = rng.beta(5, 1, T)
    cand = rates.copy()
    cand[:10] = np.maximum(rates[:10] - 0.6, 0.0)
    tasks = [f"t{i}" for i in range(T)]
    res = ph.classify(
        ph.counts_from_arrays(np.full(T, n), rng.binomial(n, rates), tasks=tasks, system="a"),
        ph.counts_from_arrays(np.full(T, n), rng.binomial(n, cand), tasks=tasks, system="b"),
    )
    found = set(res.tasks("regression"))
    assert len(found & set(tasks[:10])) >= 5 and not found - set(tasks[:10])
    assert res.settings["multiplicity"] == "holm" and res.settings["error_rate"] == "FWER"
