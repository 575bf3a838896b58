"""The allocation study (studies/next_runs): the adaptive next batch against the same runs spread
evenly, against the known truth of simulated benchmarks. A fast subset here; the whole grid is
slow (``make study``).

Issue 15 asks for ≥ 1.3× the uniform batch's accuracy (MSE ratio) in the near-all-pass regime
and never worse than uniform beyond Monte Carlo error. Measured since next_runs hedges its batch
against the uncertainty of the fitted prior: never worse than uniform in any regime (near-all-pass
truths get the even spread: factor 1); the 1.3× target near all-pass is not met, a strict xfail:
it is run, and the suite fails the day it passes unnoticed.

The exact analyses (studies/next_runs/analysis.py) say why, and are checked here against their
oracles: the Rao–Blackwell estimate after a pilot-dependent batch is unbiased (exact
enumeration); the best unbiased estimator under a rule (a quadratic programme) matches the
closed-form variance for the even spread and a generic constrained optimiser on a small rule;
near rates of 1 (Beta(12, 0.6) and the other near-1 truths of analysis.NEAR_ONE_TRUTHS) no
unbiased design beats the even spread even with the true prior. The pieces of variants.py's
model-based design (the hierarchical posterior mean as the estimate, the batch by its expected
posterior variance; worse than even runs near rates of 1 in the study) are checked against
independent computations.

What the pilot lacks, a prior fitted to an earlier evaluation of similar tasks supplies
(``plan next --prior-from``; studies/next_runs/variants.py): it reaches 1.3× near all-pass at
T = 50 (checked here at a cheap setting), and a wrong one makes the batch far worse than even
runs, which the pilot's z check flags (checked here too).
"""

from __future__ import annotations

import itertools
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import comb

from passhat.planner.allocate import expected_variance
from study_loader import load_study

ROOT = Path(__file__).resolve().parents[2]


def _study(name: str = "next_runs") -> ModuleType:
    path = ROOT / "studies" / "next_runs" / f"{name}.py"
    return load_study(path, f"study_next_runs_{name}")


def _one_blas_thread() -> AbstractContextManager[Any]:
    """One BLAS thread for the many small L-BFGS-B fits (threads contend on a busy machine:
    5× slower); threadpoolctl comes with pymc, a no-op without it."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with pymc
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def test_u_shaped_truths_adaptive_batch_not_worse_than_uniform_runs() -> None:
    """The issue's check at a fixed seed: not worse than uniform beyond 2 MC standard errors,
    and better as a point estimate (40 benchmarks: 1.14 ± 0.17, the greedy batch kept in all 40;
    the slow grid has 1.29–1.39 ± 0.08–0.09 at 300)."""
    r = _study().compare("U-shaped", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.0 - 2 * r["factor_se"], r
    assert r["factor"] > 1.0, r


def test_near_all_pass_truths_adaptive_batch_not_worse_than_uniform_runs() -> None:
    """The issue's check near rates of 1 (unhedged it failed: 0.90 ± 0.04 at T = 100): not worse
    than uniform beyond 2 MC standard errors (40 benchmarks; the slow grid has 1.00 ± 0.00 at
    300, the even spread in every benchmark)."""
    r = _study().compare("near all-pass", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.0 - 2 * r["factor_se"], r
    assert r["choices"]["uniform"] >= 36, r


@pytest.mark.xfail(
    strict=True,
    reason="issue 15 target not met: near-all-pass truths, the hedged batch falls back to even "
    "runs (factor 1.00); no unbiased estimate after a pilot-dependent batch beats the even "
    "spread there even with the true prior (also for other near-1 truths), every batch that "
    "gains with it loses to even runs under a (μ, κ) a 3-run pilot cannot rule out, and a "
    "model-based estimate (hierarchical posterior mean, batch by its expected posterior "
    "variance) does worse than even runs (reports/next_runs/README.md)",
)
def test_near_all_pass_truths_adaptive_batch_at_least_1_3x() -> None:
    r = _study().compare("near all-pass", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.3, r


@pytest.mark.integration  # Monte-Carlo subset of a study
def test_near_all_pass_a_prior_from_an_earlier_evaluation_reaches_1_3x() -> None:
    """What the 3-run pilot lacks, an earlier evaluation of similar tasks supplies: the prior
    fitted (plan.from_counts) to an independent earlier evaluation from the same truth (200 other
    tasks × 10 runs, a fresh one per benchmark, seed 12345), passed as prior= (as
    ``plan next --prior-from`` does: trusted, no hedge). Threshold: 1.3× beyond 2 Monte Carlo
    standard errors. T = 50, where the study has 2.05 ± 0.21 (300 benchmarks, seed 0); this is
    an independent replication (seed 1: 1.74 ± 0.18, 7 s). At T = 200 the same earlier
    evaluation is not precise enough (1.04 ± 0.11 there: reports/next_runs/README.md)."""
    var = _study("variants")
    with _one_blas_thread(), var.with_earlier_prior((12.0, 0.6)) as used:
        r = _study().compare("near all-pass", tasks=50, budget=100, k=3, reps=300, seed=1)
    assert len({prior.kappa for prior, _ in used}) == 300  # a fresh fit per benchmark
    assert r["factor"] - 2 * r["factor_se"] >= 1.3, r


@pytest.mark.integration  # Monte-Carlo subset of a study
def test_near_all_pass_a_wrong_earlier_prior_is_worse_than_even_runs_and_warned() -> None:
    """The sensitivity row: the earlier evaluation from a less reliable system (Beta(4, 1),
    μ = 0.80, against the pilot's Beta(12, 0.6)). The trusted batch is worse than even runs
    beyond 2 Monte Carlo errors (the study: 0.29 ± 0.02 at T = 50; here, seed 1, 60
    benchmarks: 0.34 ± 0.05), and the pilot's z check warns in most benchmarks (the study: 284
    of 300; here 59 of 60)."""
    var = _study("variants")
    with _one_blas_thread(), var.with_earlier_prior(var.WRONG_TRUTH) as used:
        r = _study().compare("near all-pass", tasks=50, budget=100, k=3, reps=60, seed=1)
    assert r["factor"] + 2 * r["factor_se"] < 1.0, r
    assert sum(abs(z) > 3 for _, z in used) > len(used) / 2


def _rb_mean(pi: np.ndarray, p: float, k: int) -> float:
    """E[Rao–Blackwell estimate] by enumerating every pilot count, batch size and new successes."""
    rb = _study("analysis").rb_estimate
    n1 = pi.shape[0] - 1
    total = 0.0
    for c1, m in itertools.product(range(n1 + 1), range(pi.shape[1])):
        for c2 in range(m + 1):
            prob = stats.binom.pmf(c1, n1, p) * pi[c1, m] * stats.binom.pmf(c2, m, p)
            total += prob * float(rb(c1 + c2, m, pi[:, m], n1=n1, k=k))
    return total


@pytest.mark.parametrize("k", [1, 2, 3])
def test_rao_blackwell_estimate_is_unbiased_whatever_the_rule(k: int) -> None:
    """Oracle: exact enumeration of the two-stage design at several rates (a deterministic
    rule that runs flaky pilots most, the even spread, and a randomized rule)."""
    ana = _study("analysis")
    rng = np.random.default_rng(3)
    randomized = rng.dirichlet(np.ones(6), size=4)
    for pi in (ana.rule_matrix((0, 5, 5, 1), 5), ana.rule_matrix((2, 2, 2, 2), 5), randomized):
        for p in (0.07, 0.5, 0.93, 1.0):
            assert _rb_mean(pi, p, k) == pytest.approx(p**k, abs=1e-12)


def test_rao_blackwell_estimate_of_the_even_spread_is_the_pooled_estimate() -> None:
    rb = _study("analysis").rb_estimate
    w = np.ones(4)
    for c in range(6):
        assert float(rb(c, 2, w, n1=3, k=3)) == pytest.approx(comb(c, 3) / comb(5, 3))


def test_best_unbiased_even_spread_matches_the_closed_form_variance() -> None:
    """With the same runs for every task the pooled estimate is the only unbiased one: its
    expected variance under Beta(a, b) (planner.allocate.expected_variance, another code path)."""
    ana = _study("analysis")
    for a, b in ((12.0, 0.6), (0.3, 0.3), (1.0, 1.0)):
        risk, resid = ana.best_unbiased((2, 2, 2, 2), a, b, k=3)
        closed = float(expected_variance(np.array(5.0), a, b, k=3, metric="pass_hat_k"))
        assert resid < 1e-9
        assert risk == pytest.approx(closed, rel=1e-9)
        pooled, bias = ana.bayes_risk(ana.rule_matrix((2, 2, 2, 2), 2), a, b, n1=3, k=3)
        assert pooled == pytest.approx(closed, rel=1e-9) and abs(bias) < 1e-12


def test_best_unbiased_matches_a_generic_constrained_optimiser() -> None:
    """Oracle for the quadratic programme on a small rule: SLSQP over the 7 values g(c1, c2)
    with the unbiasedness imposed at 5 rates (the identity has degree 4)."""
    ana = _study("analysis")
    rule, a, b, k = (0, 1, 1, 1), 1.0, 1.0, 2
    risk, _ = ana.best_unbiased(rule, a, b, k=k)
    cells = [(c1, c2) for c1 in range(4) for c2 in range(rule[c1] + 1)]
    ps = np.linspace(0.1, 0.9, 5)
    prob = np.array(
        [
            [stats.binom.pmf(c1, 3, p) * stats.binom.pmf(c2, rule[c1], p) for c1, c2 in cells]
            for p in ps
        ]
    )

    def bayes(g: np.ndarray) -> float:  # the expected squared error under Beta(1, 1)
        def sq(p: float) -> float:
            pr = np.array(
                [stats.binom.pmf(c1, 3, p) * stats.binom.pmf(c2, rule[c1], p) for c1, c2 in cells]
            )
            return float(pr @ (g - p**k) ** 2)

        nodes, weights = np.polynomial.legendre.leggauss(20)
        return float(sum(w * sq(0.5 + 0.5 * x) for x, w in zip(nodes, weights, strict=True)) / 2)

    res = optimize.minimize(
        bayes,
        np.zeros(len(cells)),
        method="SLSQP",
        constraints=[{"type": "eq", "fun": lambda g: prob @ g - ps**k}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert res.success
    assert risk == pytest.approx(res.fun, rel=1e-6)


def test_best_unbiased_under_a_randomized_rule_is_at_most_the_rao_blackwell_risk() -> None:
    """The Rao–Blackwell estimate is one unbiased estimator: the programme's optimum is no
    larger (it may be smaller: under a randomized rule an unbiased estimator need only be
    unbiased on average over the batch size drawn)."""
    ana = _study("analysis")
    pi = np.random.default_rng(4).dirichlet(np.ones(5), size=4)
    qp, resid = ana.best_unbiased(pi, 1.0, 1.0, k=2)
    rb, bias = ana.bayes_risk(pi, 1.0, 1.0, n1=3, k=2)
    assert resid < 1e-8 and abs(bias) < 1e-12
    assert 0 < qp <= rb * (1 + 1e-9)


def test_near_all_pass_randomized_rules_do_not_beat_the_even_spread_either() -> None:
    r = _study("analysis").mixtures(12.0, 0.6, m_max=4)
    assert 1.0 <= r["factor_best"] < 1.01, r


@pytest.mark.parametrize("truth", [(12.0, 0.6), (5.0, 0.2), (2.0, 0.1), (20.0, 0.5)])
def test_near_all_pass_no_unbiased_design_beats_the_even_spread(
    truth: tuple[float, float],
) -> None:
    """The exact answer to idea (a): Beta(12, 0.6) (and the other near-1 truths of
    analysis.NEAR_ONE_TRUTHS), pilot 3, pass^3, 2 more runs per task on average, every rule
    m(c1) ≤ 6 with the best unbiased estimator under it: the even spread is the best (the slow
    grid's README has m(c1) ≤ 12, the same)."""
    assert truth[:1] == (12.0,) or truth in _study("analysis").NEAR_ONE_TRUTHS
    r = _study("analysis").search(*truth, m_max=6)
    assert r["factor_best_unbiased"] == pytest.approx(1.0, abs=1e-9), r


def test_u_shaped_truths_unbiased_design_gains() -> None:
    """The same search finds gains where tasks are split (so the previous test can fail)."""
    r = _study("analysis").search(0.3, 0.3, m_max=6)
    assert r["factor_best_unbiased"] > 1.3, r
    assert r["best_rule"][0] == 0, r  # tasks with no pilot success get no more runs


@pytest.mark.slow
def test_next_runs_study_grid(tmp_path: Path) -> None:
    """Every regime × T ∈ {50, 100, 200}: never worse than uniform runs beyond 2 MC standard
    errors; the only failures recorded are the near-all-pass 1.3× target."""
    res = _study().run(tmp_path, seed=0, reps=300)
    for r in res["rows"]:
        assert r["factor"] >= 1 - 2 * r["factor_se"], r
    assert all(f.startswith("near all-pass") and "< 1.3" in f for f in res["failures"])
    assert (tmp_path / "README.md").is_file()


def test_model_estimate_expected_posterior_variance_matches_enumeration() -> None:
    """variants.expected_posterior_variance for one (a, b) node: E over the Beta-Binomial
    predictive of y of m new successes of Var(p^3 | posterior Beta), here from scipy.stats
    (betabinom.pmf, beta.moment), another code path; at m = 0 the posterior variance itself."""
    from types import SimpleNamespace

    var = _study("variants")
    a, b, n, c, k = 7.0, 0.8, np.array([3.0, 5.0]), np.array([3.0, 2.0]), 3
    node = SimpleNamespace(a=np.array([a]), b=np.array([b]), weight=np.array([1.0]))
    got = var.expected_posterior_variance(node, n, c, k=k, m_max=6)
    for i in range(len(n)):
        alpha, beta = a + c[i], b + n[i] - c[i]
        for m in range(7):
            y = np.arange(m + 1)
            pmf = stats.betabinom.pmf(y, m, alpha, beta)
            post = [stats.beta(alpha + j, beta + m - j) for j in y]
            want = sum(
                w * (d.moment(2 * k) - d.moment(k) ** 2) for w, d in zip(pmf, post, strict=True)
            )
            assert got[i, m] == pytest.approx(want, rel=1e-7)
    assert np.all(np.diff(got, axis=1) < 0)  # more runs, smaller expected posterior variance


def test_model_estimate_is_the_posterior_mean_of_the_average() -> None:
    """variants.model_estimate (adaptive grid, 64 points per axis) against a brute-force
    quadrature of the hierarchical model's posterior: a fixed 600 × 600 grid over
    logit μ ∈ [−4, 12], log κ ∈ [−6, 10] with the log likelihood written out here (betaln) and
    the default priors (μ ~ Beta(1, 1), log κ ~ Normal(0, 2))."""
    from scipy.special import betaln, expit

    var = _study("variants")
    n = np.array([3, 3, 3, 5, 5, 5, 5, 3])
    c = np.array([3, 3, 2, 5, 4, 5, 5, 1])
    th, la = np.meshgrid(np.linspace(-4, 12, 600), np.linspace(-6, 10, 600), indexing="ij")
    mu, kappa = expit(th)[..., None], np.exp(la)[..., None]
    a, b = mu * kappa, (1 - mu) * kappa
    loglik = (betaln(a + c, b + n - c) - betaln(a, b)).sum(axis=-1)
    logprior = np.log(mu[..., 0] * (1 - mu[..., 0])) + stats.norm.logpdf(la, 0, 2)
    w = np.exp(loglik + logprior - (loglik + logprior).max())
    m3 = np.prod([(a + c + j) / (a + b + n + j) for j in range(3)], axis=0).mean(axis=-1)
    want = float((w * m3).sum() / w.sum())
    assert var.model_estimate(n, c, k=3) == pytest.approx(want, abs=1e-5)


def test_model_estimate_batch_spends_the_budget() -> None:
    """The greedy batch spends exactly the budget, at most MODEL_MAX_RUNS per task, and gives
    tasks with the same pilot counts the same runs up to one."""
    var = _study("variants")
    c = np.array([3] * 30 + [2] * 6 + [1] * 3 + [0])
    extra = var.model_batch(np.full(40, 3), c, 80, k=3)
    assert extra.sum() == 80 and extra.max() <= var.MODEL_MAX_RUNS
    for value in np.unique(c):
        assert np.ptp(extra[c == value]) <= 1
