"""Run counts in closed form (passhat.planner.runs): detect, bound, certify, width, gate, k.

Oracles, named per test: the seeds' printed tables (shared/seeds/pass-at-k-vs-pass-hat-k.txt,
output of 2026-09-28); scipy.stats (binomial); statsmodels ``proportion_confint``
(Clopper–Pearson "beta" and Wilson); and simulations with known truth whose tolerances are
derived from their Monte-Carlo error (fixed seeds).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat import planner as plan
from passhat.errors import OptionError, PasshatError


# ------------------------------------------------------------------ seeds
def test_seed_clean_runs_exact():
    # seeds: "3 clean runs rule out failure rates above 63.2%" … "60 … 4.9%"
    printed = {3: "63.2%", 5: "45.1%", 10: "25.9%", 20: "13.9%", 30: "9.5%", 60: "4.9%"}
    for n, text in printed.items():
        assert f"{ph.plan.failure_upper_bound(runs=n, failures=0, ci=0.95):.1%}" == text


def test_seed_flip_rate_runs_exact():
    # seeds: "flip rate 10%: 29 runs", "flip rate 5%: 59 runs"
    assert ph.plan.runs_to_detect(flip_rate=0.1, ci=0.95) == 29
    assert ph.plan.runs_to_detect(flip_rate=0.05, ci=0.95) == 59


def test_seed_gate_exact():
    # seeds: "p=0.9, gate passes if any of 3 attempts passes: 99.9%; all 3 must pass: 72.9%"
    g = ph.plan.retry(rate=0.9, attempts=3)
    assert f"{g.quantities['retry_until_green']:.1%}" == "99.9%"
    assert f"{g.quantities['all_must_pass']:.1%}" == "72.9%"
    assert "99.9%" in g.reasoning and "72.9%" in g.reasoning


def test_certify_matches_seed_and_detect():
    # 0 allowed failures: the same ⌈ln α / ln(1−f)⌉ as the seeds' 59 runs for 5%
    assert ph.plan.runs_to_certify(max_failure_rate=0.05, ci=0.95) == 59


# ------------------------------------------------ closed forms vs oracles
@pytest.mark.parametrize("f,q", [(0.1, 0.95), (0.05, 0.95), (0.2, 0.9), (0.01, 0.99)])
def test_runs_to_detect_is_minimal_exact(f, q):
    n = int(plan.runs_to_detect(flip_rate=f, ci=q))
    assert 1 - (1 - f) ** n >= q > 1 - (1 - f) ** (n - 1)


def test_runs_to_detect_by_simulation():
    # known truth: flip rate 10%, 29 runs; share of sequences with ≥ 1 failure
    rng = np.random.default_rng(1)
    reps = 40_000
    fails = rng.random((reps, 29)) < 0.10
    share = fails.any(axis=1).mean()
    mc = math.sqrt(0.95 * 0.05 / reps)
    assert share >= 0.95 - 3 * mc
    assert abs(share - (1 - 0.9**29)) < 4 * mc


def test_runs_to_detect_solves_each_none():
    assert abs(float(plan.runs_to_detect(flip_rate=0.1, runs=29, ci=None)) - (1 - 0.9**29)) < 1e-12
    f = float(plan.runs_to_detect(ci=0.95, runs=29, flip_rate=None))
    assert abs(1 - (1 - f) ** 29 - 0.95) < 1e-12


@pytest.mark.parametrize("n,x", [(30, 0), (30, 2), (10, 1), (100, 7), (5, 5)])
def test_failure_upper_bound_is_clopper_pearson(n, x):
    # oracle: statsmodels' Clopper–Pearson ("beta") two-sided at 2α gives the one-sided upper bound
    got = float(plan.failure_upper_bound(runs=n, failures=x, ci=0.95))
    _, hi = proportion_confint(x, n, alpha=0.10, method="beta")
    assert got == pytest.approx(hi if x < n else 1.0, abs=1e-10)


@pytest.mark.parametrize("f_true", [0.02, 0.1, 0.3])
def test_failure_upper_bound_covers_by_simulation(f_true):
    # known truth: failures ~ Binomial(30, f_true); the 95% upper bound must cover f_true ≥ 95%
    n, reps = 30, 20_000
    bounds = np.array(
        [float(plan.failure_upper_bound(runs=n, failures=x, ci=0.95)) for x in range(n + 1)]
    )
    x = np.random.default_rng(2).binomial(n, f_true, size=reps)
    cover = (bounds[x] >= f_true).mean()
    assert cover >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps)


@pytest.mark.parametrize("f0,x", [(0.05, 0), (0.05, 2), (0.1, 1), (0.01, 3)])
def test_runs_to_certify_minimal_exact(f0, x):
    # oracle: scipy binomial cdf. At the true rate f0, ≤ x failures must have probability ≤ α
    n = int(plan.runs_to_certify(max_failure_rate=f0, ci=0.95, allowed_failures=x))
    assert stats.binom.cdf(x, n, f0) <= 0.05 < stats.binom.cdf(x, n - 1, f0)
    # the Clopper–Pearson bound after x failures in n runs is then ≤ f0
    assert float(plan.failure_upper_bound(runs=n, failures=x, ci=0.95)) <= f0 + 1e-12


def test_runs_to_certify_by_simulation():
    # known truth: a system failing exactly 5% of runs; with 124 runs and ≤ 2 allowed failures
    # it is (wrongly) certified at most 5% of the time
    n = int(plan.runs_to_certify(max_failure_rate=0.05, allowed_failures=2))
    reps = 40_000
    x = np.random.default_rng(3).binomial(n, 0.05, size=reps)
    assert (x <= 2).mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    conf = float(plan.runs_to_certify(max_failure_rate=0.05, allowed_failures=2, runs=n, ci=None))
    assert conf >= 0.95


@pytest.mark.parametrize("method,sm", [("wilson", "wilson"), ("clopper-pearson", "beta")])
@pytest.mark.parametrize("rate,h", [(0.8, 0.05), (0.5, 0.1), (0.95, 0.03)])
def test_runs_for_width_exact_search(method, sm, rate, h):
    # oracle: statsmodels proportion_confint at the expected count c = rate·n
    n = int(plan.runs_for_width(half_width=h, rate=rate, method=method, ci=0.95))

    def hw(m):
        lo, hi = proportion_confint(rate * m, m, alpha=0.05, method=sm)
        return (hi - lo) / 2

    assert hw(n) <= h < hw(n - 1)


def test_runs_for_width_by_simulation():
    # known truth p = 0.8: at the planned n, Wilson half-widths of simulated counts average ≈ h
    n = int(plan.runs_for_width(half_width=0.05, rate=0.8))
    c = np.random.default_rng(4).binomial(n, 0.8, size=5000)
    lo, hi = proportion_confint(c, n, alpha=0.05, method="wilson")
    assert abs(np.mean((hi - lo) / 2) - 0.05) < 0.002
    # and the interval covers 0.8 about 95% of the time
    cover = np.mean((lo <= 0.8) & (0.8 <= hi))
    assert abs(cover - 0.95) < 0.02


def test_gate_by_simulation():
    rng = np.random.default_rng(5)
    reps = 40_000
    runs = rng.random((reps, 3)) < 0.9
    mc = math.sqrt(0.25 / reps)
    g = plan.retry(rate=0.9, attempts=3).quantities
    assert abs(runs.any(axis=1).mean() - g["retry_until_green"]) < 4 * mc
    assert abs(runs.all(axis=1).mean() - g["all_must_pass"]) < 4 * mc


def test_rate_for_pass_hat_k_and_simulation():
    r = float(ph.plan.rate_for_pass_hat_k(target=0.9, k=5))
    assert r == pytest.approx(0.9 ** (1 / 5))
    reps = 40_000
    allpass = (np.random.default_rng(6).random((reps, 5)) < r).all(axis=1).mean()
    assert abs(allpass - 0.9) < 4 * math.sqrt(0.09 / reps)
    assert float(plan.rate_for_pass_hat_k(rate=0.95, k=3)) == pytest.approx(0.95**3)
    k = int(plan.rate_for_pass_hat_k(target=0.8, rate=0.95))
    assert 0.95**k >= 0.8 > 0.95 ** (k + 1)


def test_choose_k_and_simulation():
    res = plan.choose_k(unacceptable_failure_rate=0.2, ci=0.9, acceptable_failure_rate=0.002)
    k = int(res)
    assert k == int(plan.runs_to_detect(flip_rate=0.2, ci=0.9))
    assert res.quantities["k_max"] >= k
    assert 0.998 ** res.quantities["k_max"] >= 0.95 > 0.998 ** (res.quantities["k_max"] + 1)
    reps = 40_000
    gate_fails = (np.random.default_rng(7).random((reps, k)) < 0.2).any(axis=1).mean()
    assert gate_fails >= 0.9 - 3 * math.sqrt(0.09 / reps)
    with pytest.raises(OptionError, match="no k works"):
        plan.choose_k(unacceptable_failure_rate=0.02, ci=0.99, acceptable_failure_rate=0.01)


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call",
    [
        lambda: plan.runs_to_detect(flip_rate=0.0, ci=0.95),
        lambda: plan.runs_to_detect(flip_rate=1.2, ci=0.95),
        lambda: plan.runs_to_detect(flip_rate=0.1, ci=1.0),
        lambda: plan.runs_to_detect(flip_rate=0.1, ci=-0.1),
        lambda: plan.runs_to_detect(flip_rate=0.1, ci=0.9, runs=3),  # nothing to solve
        lambda: plan.runs_to_detect(),  # three unknowns
        lambda: plan.failure_upper_bound(runs=5, failures=6),
        lambda: plan.failure_upper_bound(runs=0),
        lambda: plan.failure_upper_bound(runs=5, ci=1.5),
        lambda: plan.runs_to_certify(max_failure_rate=1.0),
        lambda: plan.runs_for_width(half_width=0.6, rate=0.5),
        lambda: plan.runs_for_width(half_width=0.05, rate=0.5, method="wald"),
        lambda: plan.retry(rate=0.9, attempts=0),
        lambda: plan.retry(rate=-0.1, attempts=2),
        lambda: plan.rate_for_pass_hat_k(target=0.9, k=0),
    ],
)
def test_bad_input_raises_passhat_error(call):
    with pytest.raises(PasshatError):
        call()


def test_runs_to_detect_keeps_precision_at_tiny_flip_rates() -> None:
    # oracle: 1 − (1 − f)^n → 1 − e^(−nf) as f → 0; (1 − f) rounds to 1 in floating point
    r = plan.runs_to_detect(flip_rate=1e-300)
    assert r.quantities["achieved_ci"] == pytest.approx(0.95, abs=1e-6)  # was 0.0
    assert "0.00% ≥" not in r.reasoning
    c = plan.runs_to_detect(flip_rate=1e-17, runs=10**17, ci=None)
    assert float(c) == pytest.approx(1 - math.exp(-1), rel=1e-9)


@pytest.mark.parametrize(("f", "q"), [(1e-12, 0.95), (1e-9, 0.99), (3e-7, 0.5), (0.1, 0.95)])
def test_runs_to_detect_is_minimal_at_tiny_flip_rates(f, q):
    # Oracle: 50-digit decimal arithmetic, n = ⌈ln(1 − q) / ln(1 − f)⌉. The old rounding slack
    # (1e-9 relative) answered 2,995,732,270,557 at f = 1e-12, about 3,000 runs short of q.
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    exact = (Decimal(1) - Decimal(q)).ln() / (Decimal(1) - Decimal(f)).ln()
    want = int(exact.to_integral_value(rounding="ROUND_CEILING"))
    assert plan.runs_to_detect(flip_rate=f, ci=q).value == want


# ------------------------------------------------------------- renamed in this release
def test_gate_is_now_retry_and_confidence_is_now_ci_both_with_a_warning():
    with pytest.warns(DeprecationWarning, match="plan.gate is deprecated: use plan.retry"):
        old = plan.gate(rate=0.9, attempts=3)
    assert old == plan.retry(rate=0.9, attempts=3) and old.query == "retry"
    with pytest.warns(DeprecationWarning, match="confidence= is deprecated: use ci="):
        assert plan.failure_upper_bound(runs=30, confidence=0.9) == plan.failure_upper_bound(
            runs=30, ci=0.9
        )
    with pytest.warns(DeprecationWarning), pytest.raises(OptionError, match="not both"):
        plan.runs_to_detect(flip_rate=0.1, ci=0.9, confidence=0.95)


def test_the_level_defaults_to_95_unless_it_is_the_one_left_out():
    # oracle: 1 − 0.9^10 = 0.6513 (the probability that 10 runs catch a 10% flip)
    r = plan.runs_to_detect(flip_rate=0.1, runs=10)
    assert r.solved_for == "ci" and float(r) == pytest.approx(1 - 0.9**10, rel=1e-12)
    assert plan.runs_to_detect(flip_rate=0.1).quantities["ci"] == 0.95
    assert plan.choose_k(unacceptable_failure_rate=0.2, k=5).solved_for == "ci"


def test_the_rule_of_the_unknowns_reads_in_python_terms():
    with pytest.raises(OptionError) as err:
        plan.runs_to_detect()
    assert str(err.value) == (
        "give all but one of flip_rate, ci and runs (ci defaults to 0.95); the one left out "
        "is solved for (given: none); e.g. runs_to_detect(flip_rate=0.1)"
    )
    with pytest.raises(OptionError, match=r"^failures 9 exceeds runs 5$"):
        plan.failure_upper_bound(runs=5, failures=9)
