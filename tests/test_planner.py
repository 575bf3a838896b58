"""Planner: closed forms, design table, power.

Oracles, named per test: the seeds' printed tables (shared/seeds/pass-at-k-vs-pass-hat-k.txt,
output of 2026-09-28); scipy.stats (binomial, beta-binomial); statsmodels
``proportion_confint``; the closed-form Beta moments of the pass^k variance
(DESIGN.md "Estimators"); and simulations with known truth whose tolerances are
derived from their Monte-Carlo error (fixed seeds).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat import planner as plan
from passhat.errors import InputError, OptionError, PasshatError

A = plan.Assumptions


# ------------------------------------------------------------------ seeds
def test_seed_clean_runs_table_exact():
    # seeds: "3 clean runs rule out failure rates above 63.2%" … "60 … 4.9%"
    printed = {3: "63.2%", 5: "45.1%", 10: "25.9%", 20: "13.9%", 30: "9.5%", 60: "4.9%"}
    for n, text in printed.items():
        assert f"{ph.plan.failure_upper_bound(runs=n, failures=0, confidence=0.95):.1%}" == text
    table = plan.seed_tables(confidence=0.95)["clean_runs"]
    assert [f"{v:.1%}" for v in table["failure_rate_upper"]] == list(printed.values())


def test_seed_flip_rate_runs_exact():
    # seeds: "flip rate 10%: 29 runs", "flip rate 5%: 59 runs"
    assert ph.plan.runs_to_detect(flip_rate=0.1, confidence=0.95) == 29
    assert ph.plan.runs_to_detect(flip_rate=0.05, confidence=0.95) == 59
    assert plan.seed_tables()["flip_rate"]["runs"].tolist() == [29, 59]


def test_seed_gate_exact():
    # seeds: "p=0.9, gate passes if any of 3 attempts passes: 99.9%; all 3 must pass: 72.9%"
    g = ph.plan.gate(rate=0.9, attempts=3)
    assert f"{g.quantities['retry_until_green']:.1%}" == "99.9%"
    assert f"{g.quantities['all_must_pass']:.1%}" == "72.9%"
    assert "99.9%" in g.reasoning and "72.9%" in g.reasoning


def test_certify_matches_seed_and_detect():
    # 0 allowed failures: the same ⌈ln α / ln(1−f)⌉ as the seeds' 59 runs for 5%
    assert ph.plan.runs_to_certify(max_failure_rate=0.05, confidence=0.95) == 59


# ------------------------------------------------ closed forms vs oracles
@pytest.mark.parametrize("f,q", [(0.1, 0.95), (0.05, 0.95), (0.2, 0.9), (0.01, 0.99)])
def test_runs_to_detect_is_minimal_exact(f, q):
    n = int(plan.runs_to_detect(flip_rate=f, confidence=q))
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
    assert (
        abs(float(plan.runs_to_detect(flip_rate=0.1, runs=29, confidence=None)) - (1 - 0.9**29))
        < 1e-12
    )
    f = float(plan.runs_to_detect(confidence=0.95, runs=29, flip_rate=None))
    assert abs(1 - (1 - f) ** 29 - 0.95) < 1e-12


@pytest.mark.parametrize("n,x", [(30, 0), (30, 2), (10, 1), (100, 7), (5, 5)])
def test_failure_upper_bound_is_clopper_pearson(n, x):
    # oracle: statsmodels' Clopper–Pearson ("beta") two-sided at 2α gives the one-sided upper bound
    got = float(plan.failure_upper_bound(runs=n, failures=x, confidence=0.95))
    _, hi = proportion_confint(x, n, alpha=0.10, method="beta")
    assert got == pytest.approx(hi if x < n else 1.0, abs=1e-10)


@pytest.mark.parametrize("f_true", [0.02, 0.1, 0.3])
def test_failure_upper_bound_covers_by_simulation(f_true):
    # known truth: failures ~ Binomial(30, f_true); the 95% upper bound must cover f_true ≥ 95%
    n, reps = 30, 20_000
    bounds = np.array(
        [float(plan.failure_upper_bound(runs=n, failures=x, confidence=0.95)) for x in range(n + 1)]
    )
    x = np.random.default_rng(2).binomial(n, f_true, size=reps)
    cover = (bounds[x] >= f_true).mean()
    assert cover >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps)


@pytest.mark.parametrize("f0,x", [(0.05, 0), (0.05, 2), (0.1, 1), (0.01, 3)])
def test_runs_to_certify_minimal_exact(f0, x):
    # oracle: scipy binomial cdf. At the true rate f0, ≤ x failures must have probability ≤ α
    n = int(plan.runs_to_certify(max_failure_rate=f0, confidence=0.95, allowed_failures=x))
    assert stats.binom.cdf(x, n, f0) <= 0.05 < stats.binom.cdf(x, n - 1, f0)
    # the Clopper–Pearson bound after x failures in n runs is then ≤ f0
    assert float(plan.failure_upper_bound(runs=n, failures=x, confidence=0.95)) <= f0 + 1e-12


def test_runs_to_certify_by_simulation():
    # known truth: a system failing exactly 5% of runs; with 124 runs and ≤ 2 allowed failures
    # it is (wrongly) certified at most 5% of the time
    n = int(plan.runs_to_certify(max_failure_rate=0.05, allowed_failures=2))
    reps = 40_000
    x = np.random.default_rng(3).binomial(n, 0.05, size=reps)
    assert (x <= 2).mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    conf = float(
        plan.runs_to_certify(max_failure_rate=0.05, allowed_failures=2, runs=n, confidence=None)
    )
    assert conf >= 0.95


@pytest.mark.parametrize("method,sm", [("wilson", "wilson"), ("clopper-pearson", "beta")])
@pytest.mark.parametrize("rate,h", [(0.8, 0.05), (0.5, 0.1), (0.95, 0.03)])
def test_runs_for_width_exact_search(method, sm, rate, h):
    # oracle: statsmodels proportion_confint at the expected count c = rate·n
    n = int(plan.runs_for_width(half_width=h, rate=rate, method=method, confidence=0.95))

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
    g = plan.gate(rate=0.9, attempts=3).quantities
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
    res = plan.choose_k(
        unacceptable_failure_rate=0.2, confidence=0.9, acceptable_failure_rate=0.002
    )
    k = int(res)
    assert k == int(plan.runs_to_detect(flip_rate=0.2, confidence=0.9))
    assert res.quantities["k_max"] >= k
    assert 0.998 ** res.quantities["k_max"] >= 0.95 > 0.998 ** (res.quantities["k_max"] + 1)
    reps = 40_000
    gate_fails = (np.random.default_rng(7).random((reps, k)) < 0.2).any(axis=1).mean()
    assert gate_fails >= 0.9 - 3 * math.sqrt(0.09 / reps)
    with pytest.raises(OptionError, match="no k works"):
        plan.choose_k(unacceptable_failure_rate=0.02, confidence=0.99, acceptable_failure_rate=0.01)


def test_result_carries_reasoning_and_assumptions():
    r = plan.runs_to_detect(flip_rate=0.1, confidence=0.95)
    assert r.solved_for == "runs" and "29" in r.reasoning and "10.0%" in r.reasoning
    assert any("independent" in a for a in r.assumptions)
    assert any("clean state" in a for a in r.assumptions)
    d = r.to_dict()
    assert d["value"] == 29 and d["quantities"]["flip_rate"] == 0.1


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call",
    [
        lambda: plan.runs_to_detect(flip_rate=0.0, confidence=0.95),
        lambda: plan.runs_to_detect(flip_rate=1.2, confidence=0.95),
        lambda: plan.runs_to_detect(flip_rate=0.1, confidence=1.0),
        lambda: plan.runs_to_detect(flip_rate=0.1, confidence=-0.1),
        lambda: plan.runs_to_detect(flip_rate=0.1, confidence=0.9, runs=3),  # nothing to solve
        lambda: plan.runs_to_detect(flip_rate=None, confidence=None, runs=3),  # two unknowns
        lambda: plan.failure_upper_bound(runs=5, failures=6),
        lambda: plan.failure_upper_bound(runs=0),
        lambda: plan.failure_upper_bound(runs=5, confidence=1.5),
        lambda: plan.runs_to_certify(max_failure_rate=1.0),
        lambda: plan.runs_for_width(half_width=0.6, rate=0.5),
        lambda: plan.runs_for_width(half_width=0.05, rate=0.5, method="wald"),
        lambda: plan.gate(rate=0.9, attempts=0),
        lambda: plan.gate(rate=-0.1, attempts=2),
        lambda: plan.rate_for_pass_hat_k(target=0.9, k=0),
        lambda: plan.Assumptions(mean=0.5),
        lambda: plan.Assumptions(mean=0.5, icc=0.3, kappa=2.0),
        lambda: plan.Assumptions(mean=1.0, icc=0.3),
        lambda: plan.Assumptions(mean=0.5, icc=1.0),
        lambda: plan.design(budget_runs=4, k=5, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.design(
            budget_cost=10, cost_per_task=3, cost_per_run=2, k=5, prior=A(mean=0.5, icc=0.3)
        ),
        lambda: plan.design(k=5, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.design(budget_runs=100, k=5),
        lambda: plan.design(budget_runs=100, k=5, prior=A(mean=0.5, icc=0.3), metric="x"),
        lambda: plan.power(tasks=50, runs_per_task=5, prior=A(mean=0.5, icc=0.3)),  # 2 unknowns
        lambda: plan.power(delta=0.6, runs_per_task=5, power=0.8, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.power(delta=0.05, runs_per_task=5, power=1.2, prior=A(mean=0.5, icc=0.3)),
        lambda: plan.power(
            delta=0.05,
            runs_per_task=2,
            power=0.8,
            k=5,
            metric="pass_hat_k",
            prior=A(mean=0.5, icc=0.3),
        ),
    ],
)
def test_bad_input_raises_passhat_error(call):
    with pytest.raises(PasshatError):
        call()


# ---------------------------------------------------------------- design
def test_estimator_moments_match_betabinomial_and_closed_form():
    # oracle 1: scipy.stats.betabinom; oracle 2: E_p Var(U|p) = Σ_j h_j (E p^{2k−j} − E p^{2k})
    a, b, n, k = 1.3, 0.6, 9, 3
    c = np.arange(n + 1)
    pmf = stats.betabinom.pmf(c, n, a, b)
    u = np.array([math.comb(int(ci), k) / math.comb(n, k) for ci in c])
    mean_bf = (pmf * u).sum()
    var_bf = (pmf * u * u).sum() - mean_bf**2
    m, v = plan.estimator_moments([n], a, b, k)["pass_hat_k"]
    assert m[0] == pytest.approx(mean_bf, abs=1e-12)
    assert v[0] == pytest.approx(var_bf, abs=1e-12)

    def mom(j):
        return math.exp(special.betaln(a + j, b) - special.betaln(a, b))

    h = [math.comb(k, j) * math.comb(n - k, k - j) / math.comb(n, k) for j in range(1, k + 1)]
    within = sum(h[j - 1] * (mom(2 * k - j) - mom(2 * k)) for j in range(1, k + 1))
    spread = mom(2 * k) - mom(k) ** 2
    assert v[0] == pytest.approx(within + spread, rel=1e-10)
    assert m[0] == pytest.approx(mom(k), rel=1e-12)


def _row(table, tasks, n, metric):
    sel = table[
        (table["tasks"] == tasks) & (table["runs_per_task"] == n) & (table["metric"] == metric)
    ]
    assert len(sel) == 1
    return sel.iloc[0]


@pytest.mark.parametrize(
    "tasks,n,k,mean,icc",
    [(20, 5, 1, 0.7, 0.3), (50, 5, 5, 0.77, 0.4), (30, 10, 3, 0.5, 0.2), (40, 4, 2, 0.9, 0.6)],
)
def test_design_se_matches_simulation(tasks, n, k, mean, icc):
    # known truth: benchmarks drawn from the same Beta-Binomial. The SD of an SD estimate from R
    # replicates has relative error ≈ 1/√(2R) (≈ 1.1% at R = 4000); tolerance 5%.
    prior = A(mean=mean, icc=icc)
    table = plan.design(budget_runs=tasks * n, tasks=tasks, k=k, prior=prior)
    sim = plan.simulate_design(
        tasks=tasks, runs_per_task=n, k=k, prior=prior, replicates=4000, seed=11
    )
    for m in ("mean", "pass_at_k", "pass_hat_k"):
        row = _row(table, tasks, n, m)
        assert sim[f"sd_population_{m}"] == pytest.approx(row["se_population"], rel=0.05)
        assert sim[f"sd_benchmark_{m}"] == pytest.approx(row["se_benchmark"], rel=0.05)
        assert row["se_population"] ** 2 == pytest.approx(
            row["se_benchmark"] ** 2 + row["se_task_spread"] ** 2
        )


def test_design_grid_covers_budget_and_marks_optimum():
    t = ph.plan.design(budget_runs=2000, k=5, prior=A(mean=0.77, icc=0.4))
    assert (t["runs"] <= 2000).all() and (t["runs_per_task"] >= 5).all()
    sub = t[t["metric"] == "pass_hat_k"]
    # every n from k up to the budget appears with the most tasks it affords (or is dominated)
    assert set(range(5, 45)) <= set(sub["runs_per_task"])
    assert (sub["tasks"] == 2000 // sub["runs_per_task"]).all()
    assert sub["optimal"].sum() == 1
    best = sub[sub["optimal"]].iloc[0]
    assert best["se_population"] == sub["se_population"].min()
    assert t.attrs["optimum"]["tasks"] == best["tasks"]
    assert "tasks" in t.attrs["reasoning"]


def test_design_two_level_optimum_at_k1():
    # classic two-level sampling: with per-task cost, n_opt = √(κ c_task / c_run); the table's
    # population-SE optimum for the mean at k = 1 sits at the nearest integers
    prior = A(mean=0.77, kappa=1.5)
    t = plan.design(
        budget_cost=5000, cost_per_task=3.0, cost_per_run=0.12, k=1, prior=prior, metric="mean"
    )
    n_opt = t.attrs["n_opt_k1"]
    assert n_opt == pytest.approx(math.sqrt(1.5 * 3 / 0.12))
    best = t.attrs["optimum"]["runs_per_task"]
    assert abs(best - n_opt) <= 1.5
    assert (t["cost"] <= 5000 + 1e-9).all()


def test_design_from_fit_duck_type_and_from_counts():
    class Fit:
        pass

    rng = np.random.default_rng(0)
    mu = rng.normal(0.6, 0.01, size=(2, 50, 1))
    kap = rng.normal(3.0, 0.1, size=(2, 50, 1))
    fit = Fit()
    fit.idata = type("I", (), {})()
    fit.idata.posterior = xr.Dataset(
        {"mu": (("chain", "draw", "system"), mu), "kappa": (("chain", "draw", "system"), kap)},
        coords={"system": ["s"]},
    )
    t_mean = plan.design(budget_runs=500, k=2, prior=fit)
    assert t_mean.attrs["prior"]["mean"] == pytest.approx(mu.mean())
    t_int = plan.design(budget_runs=500, k=2, prior=fit, posterior="integrate", draws=20)
    # integrating over draws this tight barely changes the SEs
    assert np.allclose(t_int["se_population"], t_mean["se_population"], rtol=0.02)
    # a count table goes through the Beta-Binomial ML fit
    ds = ph.counts_from_arrays([4] * 8, [0, 1, 4, 4, 3, 2, 4, 0])
    t_data = plan.design(budget_runs=200, k=2, prior=ds)
    assert "ML fit" in t_data.attrs["assumptions"][0]


def test_from_counts_recovers_known_truth():
    # known truth μ = 0.6, κ = 2 (ICC 1/3); 3000 tasks × 6 runs; ML is within a few SEs
    rng = np.random.default_rng(8)
    p = rng.beta(1.2, 0.8, size=3000)
    c = rng.binomial(6, p)
    fit = plan.from_counts(ph.counts_from_arrays(np.full(3000, 6), c))
    assert fit.mean == pytest.approx(0.6, abs=0.02)
    assert fit.kappa == pytest.approx(2.0, rel=0.12)
    with pytest.raises(InputError):
        plan.from_counts(ph.counts_from_arrays([4], [2]))


def test_from_counts_tau_airline(tau_airline_path):
    trials = ph.read(str(tau_airline_path))
    a = plan.from_counts(trials)
    # the ML mean sits near the raw mean success (τ-bench's published pass^1 = 0.420)
    assert a.mean == pytest.approx(0.42, abs=0.05)
    # oracle: brute-force grid maximum of the Beta-Binomial log-likelihood over (μ, log κ)
    ds = trials.counts()
    n, c = ds["n"].values.ravel(), ds["c"].values.ravel()
    mu = np.linspace(0.2, 0.7, 501)[:, None]
    kap = np.exp(np.linspace(-3, 4, 701))[None, :]
    ll = sum(
        special.betaln(ci + mu * kap, ni - ci + (1 - mu) * kap)
        - special.betaln(mu * kap, (1 - mu) * kap)
        for ni, ci in zip(n, c, strict=True)
    )
    i, j = np.unravel_index(ll.argmax(), ll.shape)
    assert a.mean == pytest.approx(mu[i, 0], abs=2e-3)
    assert a.kappa == pytest.approx(kap[0, j], rel=0.02)
    t = plan.design(budget_runs=1000, k=4, prior=trials)
    assert t["optimal"].sum() == 3


# ----------------------------------------------------------------- power
@pytest.mark.parametrize(
    "metric,k,tasks,n,delta",
    [("mean", 1, 60, 5, 0.08), ("pass_hat_k", 3, 80, 6, 0.1), ("pass_at_k", 2, 60, 4, -0.08)],
)
def test_power_analytic_matches_simulation(metric, k, tasks, n, delta):
    # known truth: paired benchmarks simulated from the same copula model; the analytic
    # (normal-approximation) power must agree within 4 MC SEs plus 0.02 for the approximation
    prior = A(mean=0.6, icc=0.3)
    an = plan.power(delta=delta, tasks=tasks, runs_per_task=n, prior=prior, k=k, metric=metric)
    sim = plan.simulate_power(
        tasks=tasks,
        runs_per_task=n,
        delta=delta,
        prior=prior,
        k=k,
        metric=metric,
        replicates=3000,
        seed=9,
    )
    assert abs(float(an) - sim["power"]) < 4 * sim["mc_error"] + 0.02


def test_power_solves_each_unknown_consistently():
    prior = A(mean=0.77, icc=0.4)
    kw = {"prior": prior, "metric": "pass_hat_k", "k": 5}
    t = plan.power(delta=0.05, runs_per_task=5, power=0.8, **kw)
    assert t.solved_for == "tasks"
    tt = int(t)
    assert float(plan.power(delta=0.05, tasks=tt, runs_per_task=5, **kw)) >= 0.8
    assert float(plan.power(delta=0.05, tasks=tt - 1, runs_per_task=5, **kw)) < 0.8
    d = plan.power(tasks=tt, runs_per_task=5, power=0.8, **kw)
    assert float(d) == pytest.approx(0.05, abs=2e-3)
    n = plan.power(delta=0.05, tasks=tt, power=0.8, **kw)
    assert int(n) <= 5
    with pytest.raises(OptionError, match="add tasks"):
        plan.power(delta=0.05, tasks=20, power=0.9, max_runs_per_task=200, **kw)


def test_power_simulation_method_reports_mc_error():
    r = plan.power(
        delta=0.1,
        tasks=40,
        runs_per_task=5,
        prior=A(mean=0.6, icc=0.3),
        method="simulation",
        replicates=500,
        seed=3,
    )
    assert r.quantities["replicates"] == 500 and r.quantities["mc_error"] > 0
    assert "Monte-Carlo" in r.reasoning


# ----------------------------------------------------------------- sweeps
@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_sweep_matches_direct_calls(scheduler):
    prior = A(mean=0.6, icc=0.3)
    pts = [{"tasks": 20, "runs_per_task": 3}, {"tasks": 10, "runs_per_task": 6}]
    df = plan.sweep(
        plan.simulate_design, pts, scheduler=scheduler, k=2, prior=prior, replicates=200, seed=1
    )
    direct = [plan.simulate_design(k=2, prior=prior, replicates=200, seed=1, **p) for p in pts]
    assert df["sd_population_pass_hat_k"].tolist() == [
        d["sd_population_pass_hat_k"] for d in direct
    ]


def test_sweep_on_an_existing_cluster_address():
    # the scheduler=ADDRESS path, on an in-process cluster (quick to start)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        prior = A(mean=0.6, icc=0.3)
        df = plan.power_grid(
            delta=0.1,
            tasks=[30],
            runs_per_task=[3, 5],
            prior=prior,
            replicates=300,
            seed=4,
            scheduler=cluster.scheduler_address,
        )
    direct = plan.simulate_power(
        tasks=30, runs_per_task=5, delta=0.1, prior=prior, replicates=300, seed=5
    )
    assert df["power"].tolist()[1] == direct["power"]


def test_design_check_agrees_within_mc_error():
    prior = A(mean=0.77, icc=0.4)
    t = plan.design(budget_runs=600, k=3, prior=prior)
    chk = plan.design_check(
        t, prior=prior, rows=3, replicates=3000, seed=2, scheduler="synchronous"
    )
    rel = chk["sd_population_simulated"] / chk["se_population"] - 1
    assert (rel.abs() < 5 * chk["relative_mc_error"]).all()


@pytest.mark.slow
def test_sweep_default_local_cluster():
    # scheduler=None starts a 2-worker local dask cluster (slow to start: excluded by default)
    prior = A(mean=0.6, icc=0.3)
    pts = [{"tasks": 20, "runs_per_task": 3, "seed": 1}]
    df = plan.sweep(plan.simulate_design, pts, k=2, prior=prior, replicates=200)
    direct = plan.simulate_design(
        tasks=20, runs_per_task=3, k=2, prior=prior, replicates=200, seed=1
    )
    assert df["sd_population_pass_hat_k"].iloc[0] == direct["sd_population_pass_hat_k"]


def test_design_all_pairs_lists_every_affordable_design():
    # oracle: counting by hand — for each n ≥ k every T = 1..⌊B/n⌋ is affordable
    budget, k = 300, 3
    prior = plan.Assumptions(mean=0.7, icc=0.3)
    full = plan.design(budget_runs=budget, k=k, prior=prior, all_pairs=True)
    eff = plan.design(budget_runs=budget, k=k, prior=prior)
    rows = full[full["metric"] == "pass_hat_k"]
    assert len(rows) == sum(budget // n for n in range(k, budget + 1))
    assert (rows["runs"] <= budget).all()
    # the efficient rows are among them with the same standard errors, and the optimum agrees
    merged = eff.merge(full, on=["tasks", "runs_per_task", "metric"], suffixes=("", "_all"))
    assert len(merged) == len(eff)
    np.testing.assert_allclose(merged["se_population"], merged["se_population_all"], rtol=1e-12)
    assert full.attrs["optimum"] == eff.attrs["optimum"]


def test_api_bad_seed_is_an_option_error() -> None:
    prior = plan.Assumptions(mean=0.5, icc=0.3)
    with pytest.raises(OptionError, match="seed"):
        plan.simulate_power(
            tasks=10, runs_per_task=2, delta=0.1, prior=prior, replicates=10, seed=-1
        )
    with pytest.raises(OptionError, match="seed"):
        plan.simulate_design(tasks=10, runs_per_task=2, k=1, prior=prior, replicates=10, seed=-1)


def test_runs_to_detect_keeps_precision_at_tiny_flip_rates() -> None:
    # oracle: 1 − (1 − f)^n → 1 − e^(−nf) as f → 0; (1 − f) rounds to 1 in floating point
    r = plan.runs_to_detect(flip_rate=1e-300)
    assert r.quantities["achieved_confidence"] == pytest.approx(0.95, abs=1e-6)  # was 0.0
    assert "0.00% ≥" not in r.reasoning
    c = plan.runs_to_detect(flip_rate=1e-17, runs=10**17, confidence=None)
    assert float(c) == pytest.approx(1 - math.exp(-1), rel=1e-9)
