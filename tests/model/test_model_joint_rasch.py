"""The Rasch form of the joint model (``model="rasch"``, κ = ∞): the compressed likelihood
against a brute-force integral of every task's uncompressed likelihood (scipy.integrate.quad),
the PyTensor graph against the numpy value, the compression's size, the task effects'
conditional draws against their exact moments, recovery of known truth, agreement with the
crossed model with a deviation when the data have none, the dispersion check, and bad
inputs. The fits are small and shared by the module."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

import passhat as ph
from passhat.errors import ModelError
from passhat.model.joint_build import JointData, joint_counts
from passhat.model.joint_metrics import correlation_draws
from passhat.model.joint_quad import design, marginal_loglik
from passhat.model.joint_rasch import (
    build_rasch_model,
    draw_rasch_effects,
    rasch_design,
    rasch_loglik,
)

S, T = 20, 14


def _cells(seed: int = 0) -> tuple[JointData, np.ndarray, np.ndarray]:
    """20 systems × 14 tasks × 5 runs, one system with 8 runs, some cells not run, a task
    every system failed and one every system passed."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, S)
    beta = rng.normal(0.0, 2.0, T)
    n = np.full((S, T), 5)
    n[2] = 8
    n[5, :4] = 0
    c = rng.binomial(n, special.expit(theta[:, None] + beta[None, :]))
    c[:, 0] = 0
    c[:, 1] = n[:, 1]
    d = JointData.from_arrays(n, c, n > 0, [f"s{i}" for i in range(S)], [str(i) for i in range(T)])
    return d, n, c


def _brute(n: np.ndarray, c: np.ndarray, theta: np.ndarray, sd: float) -> np.ndarray:
    """log ∫ Π_s Binomial(c_s | n_s, logistic(θ_s + β)) N(β | 0, σ) dβ per task, without
    the binomial coefficients, uncompressed, by scipy's adaptive quadrature."""
    out = []
    for i in range(n.shape[1]):
        run = n[:, i] > 0
        ni, ci, th = n[run, i], c[run, i], theta[run]

        def log_f(b, ni=ni, ci=ci, th=th):
            b = np.atleast_1d(b)[:, None]
            lp = stats.binom.logpmf(ci, ni, special.expit(th[None, :] + b)).sum(axis=1)
            return lp - np.log(special.comb(ni, ci)).sum() + stats.norm.logpdf(b[:, 0], 0, sd)

        xs = np.linspace(-40, 40, 8001)
        vals = log_f(xs)
        peak, top = xs[np.argmax(vals)], vals.max()
        val, _ = integrate.quad(
            lambda b, log_f=log_f, top=top: float(np.exp(log_f(b)[0] - top)),
            -40,
            40,
            points=[peak - 1, peak, peak + 1],
            limit=400,
            epsabs=0,
            epsrel=1e-11,
        )
        out.append(top + np.log(val))
    return np.array(out)


@pytest.mark.parametrize("sd", [0.7, 1.7, 3.5])
def test_compressed_loglik_matches_brute_force_integral(sd):
    """Σ_s θ_s C_s + Σ_rows m_r log ∫ … (the compressed form on the model's grid) equals the
    sum over tasks of each task's uncompressed integrated likelihood, task by task (1e-7)."""
    d, n, c = _cells()
    q = rasch_design(d)
    rng = np.random.default_rng(int(sd * 10))
    theta = rng.normal(0.0, 1.0, S)
    brute = _brute(n, c, theta, sd)
    rows = rasch_loglik(q, theta[None], np.array([sd]), per_row=True)[0]
    # a task's term: its row's integral times exp(Σ_s θ_s c_si)
    per_task = rows[q.row_of_task] + theta @ np.where(n > 0, c, 0)
    assert np.max(np.abs(per_task - brute)) < 1e-7
    total = rasch_loglik(q, theta[None], np.array([sd]))[0]
    assert total == pytest.approx(brute.sum(), abs=1e-6)


def test_pytensor_graph_matches_numpy_loglik():
    """The model's ``loglik`` potential (the graph NUTS differentiates) equals the numpy
    value at random parameters, and its gradient matches finite differences."""
    d, _, _ = _cells(1)
    q = rasch_design(d)
    import pytensor

    m = build_rasch_model(d, quad=q)
    (pot,) = m.replace_rvs_by_values([m["loglik"]])
    fn = pytensor.function(m.value_vars, pot)  # θ and log σ_β (the sampler's coordinates)
    dfn = pytensor.function(m.value_vars, pytensor.grad(pot, m.value_vars[0]))
    rng = np.random.default_rng(2)
    for sd in (0.5, 2.0):
        theta = rng.normal(0.0, 1.0, S)
        got = float(fn(theta, np.log(sd)))
        assert got == pytest.approx(float(rasch_loglik(q, theta[None], np.array([sd]))[0]))
        g = np.asarray(dfn(theta, np.log(sd)))
        eps = 1e-6
        for s in (0, 2, 5):
            e = np.zeros(S)
            e[s] = eps
            fd = (float(fn(theta + e, np.log(sd))) - float(fn(theta - e, np.log(sd)))) / (2 * eps)
            assert g[s] == pytest.approx(fd, rel=1e-5, abs=1e-5)


def test_rasch_is_the_crossed_model_at_infinite_kappa():
    """The crossed model's quadrature at κ = 1e8 gives the same per-task likelihood."""
    d, n, c = _cells(2)
    theta = np.random.default_rng(3).normal(0.0, 1.0, (1, S))
    qj, qr = design(d, full_grid_max=10**9), rasch_design(d)
    joint = marginal_loglik(qj, theta, np.array([1.5]), np.array([1e8]), per_row=True)[0]
    rasch = rasch_loglik(qr, theta, np.array([1.5]), per_row=True)[0]
    per_task = rasch[qr.row_of_task] + theta[0] @ np.where(n > 0, c, 0)
    assert np.max(np.abs(joint[qj.row_of_task] - per_task)) < 1e-5


def test_rows_do_not_grow_with_the_tasks():
    """With equal n and every system on every task: at most S · n + 1 rows at any T."""
    rng = np.random.default_rng(4)
    sizes = []
    for tasks in (50, 5000):
        theta, beta = rng.normal(0, 1, 20), rng.normal(0, 2, tasks)
        n = np.full((20, tasks), 5)
        c = rng.binomial(n, special.expit(theta[:, None] + beta[None, :]))
        d = JointData.from_arrays(n, c, n > 0, [str(s) for s in range(20)], list(map(str, beta)))
        q = rasch_design(d)
        assert q.mult.sum() == tasks and len(q.row_r) <= 20 * 5 + 1
        assert np.array_equal(q.totals, c.sum(axis=1))
        sizes.append(len(q.row_r))
    assert sizes[1] <= 101


def test_task_effect_draws_match_exact_conditional():
    """β_i's draws (one per posterior draw, here the same parameters repeated) have the mean
    and SD of the exact conditional ∝ exp(Σ_s log Binom(c_si | …)) N(β | 0, σ) (scipy)."""
    d, n, c = _cells(5)
    q = rasch_design(d)
    theta = np.random.default_rng(6).normal(0.0, 1.0, S)
    D, sd = 5_000, 1.3  # MC tolerances below scale with D (SD: 5% is ~5 standard errors)
    b, edge = draw_rasch_effects(
        q, np.repeat(theta[None], D, axis=0), np.full(D, sd), rng=np.random.default_rng(7)
    )
    assert edge < 1e-8
    for i in (0, 1, 3, 7):
        run = n[:, i] > 0

        def f(x, power=0, i=i, run=run):
            mu = special.expit(theta[run] + x)
            lp = stats.binom.logpmf(c[run, i], n[run, i], mu).sum() + stats.norm.logpdf(x, 0, sd)
            return x**power * np.exp(lp)

        xs = np.linspace(-30, 30, 6001)
        mus = special.expit(theta[run][None, :] + xs[:, None])  # f on the whole grid at once
        lps = stats.binom.logpmf(c[run, i], n[run, i], mus).sum(axis=1) + stats.norm.logpdf(
            xs, 0, sd
        )
        peak = xs[np.argmax(lps)]

        def moment(power, f=f, peak=peak):
            pts = [peak - 1, peak, peak + 1]
            return integrate.quad(f, -30, 30, args=(power,), points=pts, limit=400)[0]

        z = moment(0)
        mean = moment(1) / z
        var = moment(2) / z - mean**2
        se = np.sqrt(var / D)
        assert abs(b[:, i].mean() - mean) < 4 * se + q.h**2 / 12
        assert b[:, i].std() == pytest.approx(np.sqrt(var), rel=0.05)


def test_conditional_check_matches_enumeration():
    """The Rasch form's check: E and Var of each cell given its task's total, by brute-force
    enumeration of every count vector with that total (weights Π_s Binomial(c_s | n_s,
    logistic(θ_s))), give the observed X²; replicated from that conditional, a cell's
    (c − E)²/Var has mean 1, so a system's replicated X² has mean its informative cells
    (within 4 MC standard errors over 20,000 draws)."""
    import itertools

    theta = np.array([[0.4, -1.0, 1.2]])
    n = np.array([[2, 2, 3], [3, 3, 0], [1, 4, 2]])  # system 1 did not run task 2
    c = np.array([[1, 2, 0], [3, 0, 0], [0, 4, 1]])
    obs_x2 = np.zeros(3)
    cond = {}
    for t in range(3):
        ns = n[:, t]
        r = c[:, t].sum()
        vecs = [v for v in itertools.product(*(range(k + 1) for k in ns)) if sum(v) == r]
        w = np.array([np.prod(stats.binom.pmf(v, ns, special.expit(theta[0]))) for v in vecs])
        w /= w.sum()
        vecs = np.array(vecs)
        mean = w @ vecs
        var = w @ vecs**2 - mean**2
        good = var > 1e-12
        obs_x2[good] += (c[good, t] - mean[good]) ** 2 / var[good]
        cond[t] = (vecs, w)
    from passhat.model.joint_rasch import conditional_check_draws

    obs, _ = conditional_check_draws(theta, n, c, n > 0, rng=np.random.default_rng(0))
    assert np.allclose(obs[0], obs_x2)
    # replicated cells: the same θ repeated D times
    D = 20_000
    big = np.repeat(theta, D, axis=0)
    rng = np.random.default_rng(1)
    obs_d, rep_d = conditional_check_draws(big, n, c, n > 0, rng=rng)
    assert np.allclose(obs_d, obs_x2[None, :])
    # the mean replicated X² of a system is Σ over its informative cells of E[(c − E)²]/Var = 1
    informative = np.array(
        [
            sum(
                1
                for t in range(3)
                if (cond[t][1] @ cond[t][0][:, s] ** 2 - (cond[t][1] @ cond[t][0][:, s]) ** 2)
                > 1e-12
            )
            for s in range(3)
        ]
    )
    se = rep_d.std(axis=0) / np.sqrt(D)
    assert np.all(np.abs(rep_d.mean(axis=0) - informative) < 4 * se)


# --------------------------------------------------------------------------- fits
THETA = np.array([-1.0, -0.2, 0.4, 1.2])
TASK_SD = 1.5


def simulate(seed, tasks=80, runs=4, kappa=None):
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, TASK_SD, tasks)
    mu = special.expit(THETA[:, None] + beta[None, :])
    p = mu if kappa is None else rng.beta(mu * kappa, (1.0 - mu) * kappa)
    n = np.full((len(THETA), tasks), runs)
    return n, rng.binomial(n, p)


@pytest.fixture(scope="module")
def rasch_data():
    n, c = simulate(3)
    n[3, :12] = 0  # system 3 did not run the first 12 tasks
    c[3, :12] = 0
    return joint_counts(n, c, systems=["s0", "s1", "s2", "s3"])


@pytest.fixture(scope="module")
def rf(rasch_data):
    return ph.fit(
        rasch_data, model="rasch", k=[1, 3], seed=5, chains=2, draws=500, tune=500, progress=False
    )


@pytest.mark.integration  # NUTS fits
def test_rasch_fit_recovers_known_truth(rf):
    """θ_s, σ_β and the between-system correlation of the simulation lie in the 99%
    posterior intervals; no κ (it is ∞), no divergences."""
    hyper = rf.hyper_summary(ci=0.99)
    assert set(hyper["parameter"]) == {"theta", "task_sd"}
    for s, truth in zip(rf.systems, THETA, strict=True):
        row = hyper[(hyper["parameter"] == "theta") & (hyper["system"] == s)].iloc[0]
        assert row["lower"] <= truth <= row["upper"], (s, truth, row.to_dict())
    sd = hyper[hyper["parameter"] == "task_sd"].iloc[0]
    assert sd["lower"] <= TASK_SD <= sd["upper"]
    true_rho = correlation_draws(THETA[None, :], np.array([TASK_SD]), np.array([np.inf]))[0]
    corr = rf.correlation(ci=0.99)
    row = corr[(corr["system_a"] == "s0") & (corr["system_b"] == "s2")].iloc[0]
    assert row["lower"] <= true_rho[0, 2] <= row["upper"]
    assert rf.diagnostics.divergences["(all)"] == 0
    assert set(rf.diagnostics.table["variable"]) == {"theta", "task_sd", "beta (worst task)"}


@pytest.mark.integration  # NUTS fits
def test_rasch_fit_outputs(rf, tmp_path):
    """Every output of the joint fit: both scopes, differences, ranks, the planner's spread,
    save/load; benchmark values use p_si = logistic(θ_s + β_i) exactly."""
    assert rf.model == "rasch" and "Rasch form" in rf.method_label
    bench = rf.metric_draws("pass_hat_k", 3, scope="benchmark")
    theta, beta = rf._flat("theta"), rf._flat("beta")
    cd = rf.idata.constant_data
    pres = np.asarray(cd["present"].values, dtype=bool)
    p = special.expit(theta[:, :, None] + beta[:, None, :])
    # a cell not run is predicted from its task effect, as in the crossed model
    assert np.allclose(bench, (p**3).mean(axis=2))
    assert pres.sum() == 4 * 80 - 12
    pop = rf.metric_draws("pass_hat_k", 3, scope="population")
    assert np.isfinite(pop).all() and np.argsort(pop.mean(axis=0)).tolist() == [0, 1, 2, 3]
    assert len(rf.differences("pass_hat_k", 3)) == 6
    assert rf.rank_table("mean")["system"].iloc[0] == "s3"
    assert 0 < rf.pilot("s0", "s2", metric="pass_hat_k", k=2).rho <= 1
    s = rf.summary(k=[3])
    assert ((s["lower"] <= s["mean"]) & (s["mean"] <= s["upper"])).all()
    back = ph.load_fit(rf.to_netcdf(tmp_path / "rasch.nc"))
    assert isinstance(back, ph.JointFit) and back.model == "rasch"
    assert np.allclose(back.metric_draws("pass_hat_k", 3, scope="benchmark"), bench)
    assert np.allclose(back.metric_draws("pass_hat_k", 3, scope="population"), pop)


@pytest.mark.integration  # NUTS fits
def test_rasch_agrees_with_crossed_model_without_deviation(rasch_data, rf):
    """On data with no deviation, the crossed model (κ sampled: its posterior sits at large
    κ) and the Rasch form give the same θ_s, σ_β and population pass^3 within Monte-Carlo
    error: |Δ posterior mean| < 4 MCSE, MCSE from a bulk ESS of at least 400 per fit."""
    jf = ph.fit(
        rasch_data, model="joint", k=[1, 3], seed=5, chains=2, draws=500, tune=500, progress=False
    )
    for f in (rf, jf):
        d = f.diagnostics.table
        assert d[d["variable"].isin(["theta", "task_sd"])]["ess_bulk"].min() >= 400
    kap = jf.hyper_summary()
    assert kap[kap["parameter"] == "kappa"]["lower"].iloc[0] > 10
    for a, b in (
        (rf._flat("theta"), jf._flat("theta")),
        (rf._flat("task_sd")[:, None], jf._flat("task_sd")[:, None]),
        (
            rf.metric_draws("pass_hat_k", 3, scope="population"),
            jf.metric_draws("pass_hat_k", 3, scope="population"),
        ),
    ):
        mcse = np.sqrt(a.var(axis=0) / 400 + b.var(axis=0) / 400)
        gap = np.abs(a.mean(axis=0) - b.mean(axis=0))
        assert np.all(gap < 4 * mcse), (gap, mcse)


@pytest.mark.integration  # NUTS fits
def test_dispersion_check(rf):
    """On Rasch data the check passes; on data with a strong deviation (κ = 2) the Rasch
    form is rejected for every system (the conditional check: 400 draws, p < 0.01) and the
    crossed model is not."""
    ok = rf.dispersion_check()
    assert ok["p_value"].iloc[-1] > 0.01 and ok["system"].iloc[-1] == "(all)"
    n, c = simulate(9, tasks=60, runs=6, kappa=2.0)
    ds = joint_counts(n, c, systems=["s0", "s1", "s2", "s3"])
    small = {"seed": 1, "chains": 2, "draws": 300, "tune": 300, "progress": False}
    bad = ph.fit(ds, model="rasch", **small).dispersion_check()
    assert (bad["p_value"] < 0.01).all()
    good = ph.fit(ds, model="joint", **small).dispersion_check()
    assert good["p_value"].iloc[-1] > 0.01


def test_rasch_bad_inputs():
    n, c = simulate(0, tasks=6)
    one = joint_counts(n[:1], c[:1], systems=["only"])
    with pytest.raises(ModelError, match=r"model='rasch' needs at least two systems"):
        ph.fit(one, model="rasch")
    n2 = n[:2].copy()
    n2[0, 3:] = 0
    n2[1, :3] = 0
    apart = joint_counts(n2, np.minimum(c[:2], n2), systems=["a", "b"])
    with pytest.raises(ModelError, match="'a' shares no task"):
        ph.fit(apart, model="rasch")
    ds = joint_counts(n[:2], c[:2], systems=["a", "b"])
    with pytest.raises(ph.errors.OptionError, match=r"grid. does not apply to model=.rasch."):
        ph.fit(ds, model="rasch", method="grid")
    with pytest.raises(ph.errors.OptionError, match="weights"):
        ph.fit(ds, model="rasch", weights="declared")
    with pytest.raises(ph.errors.OptionError, match="JointPriors"):
        ph.fit(ds, model="rasch", priors=ph.model.Priors())
    with pytest.raises(ph.errors.OptionError, match="unscored_tasks"):
        ph.fit(ds, model="rasch", unscored_tasks="impute")
