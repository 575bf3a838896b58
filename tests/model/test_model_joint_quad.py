"""The joint model's task effects integrated out by quadrature: against brute-force
numerical integrals of each task's marginal likelihood (scipy.integrate.quad), the
kernel's gradient against finite differences, the task effects' conditional draws
against the exact conditional moments, and the compression of count rows."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

from passhat.model.joint_build import JointData, grid_log_norm, quad_model_data
from passhat.model.joint_ops import quad_loglik
from passhat.model.joint_quad import design, draw_task_effects, marginal_loglik

S, T = 20, 14


def _data(seed: int = 0) -> tuple[JointData, np.ndarray, np.ndarray]:
    """20 systems × 14 tasks × 5 runs, one system with 8 runs, some cells not run."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, S)
    beta = rng.normal(0.0, 2.0, T)
    mu = special.expit(theta[:, None] + beta[None, :])
    n = np.full((S, T), 5)
    n[2] = 8
    n[5, :4] = 0
    p = rng.beta(mu * 8.0, (1.0 - mu) * 8.0)
    c = rng.binomial(n, p)
    c[:, 0] = 0  # a task every system failed
    c[:, 1] = n[:, 1]  # and one every system passed
    d = JointData.from_arrays(n, c, n > 0, [f"s{i}" for i in range(S)], [str(i) for i in range(T)])
    return d, n, c


def _brute(n, c, theta, sd, kappa) -> np.ndarray:
    """log ∫ Π_s BB(c_s | n_s, κμ, κ(1 − μ)) N(β | 0, σ) dβ per task, without the binomial
    coefficients, by adaptive quadrature (scipy) around the integrand's peak."""
    out = []
    for i in range(n.shape[1]):
        run = n[:, i] > 0
        ni, ci, th = n[run, i], c[run, i], theta[run]

        def log_f(b, ni=ni, ci=ci, th=th):
            b = np.atleast_1d(b)[:, None]
            mu = special.expit(th[None, :] + b)
            lp = stats.betabinom.logpmf(ci, ni, kappa * mu, kappa * (1 - mu)).sum(axis=1)
            coef = np.log(special.comb(ni, ci)).sum()
            return lp - coef + stats.norm.logpdf(b[:, 0], 0, sd)

        xs = np.linspace(-30, 30, 6001)
        vals = log_f(xs)
        peak, top = xs[np.argmax(vals)], vals.max()
        val, _ = integrate.quad(
            lambda b, log_f=log_f, top=top: float(np.exp(log_f(b)[0] - top)),
            -30,
            30,
            points=[peak - 1, peak, peak + 1],
            limit=400,
            epsabs=0,
            epsrel=1e-11,
        )
        out.append(top + np.log(val))
    return np.array(out)


@pytest.mark.parametrize("kappa", [0.7, 8.0, 300.0])
@pytest.mark.parametrize("windows", [False, True])
def test_quadrature_matches_brute_force_integral(kappa, windows):
    """Each task's log marginal likelihood by the quadrature (whole grid, or the windows
    the sampler uses, forced here) is within 1e-6 of scipy's adaptive integral."""
    d, n, c = _data()
    q = design(d, full_grid_max=0 if windows else 10**9)
    assert (q.width < len(q.grid)) == windows
    rng = np.random.default_rng(1)
    theta = rng.normal(0.0, 1.0, S)
    sd = 1.7
    rows = marginal_loglik(
        q, theta[None], np.array([sd]), np.array([kappa]), windows=windows, per_row=True
    )[0]
    brute = _brute(n, c, theta, sd, kappa)
    np.testing.assert_allclose(rows[q.row_of_task], brute, atol=1e-6, rtol=0)


def test_kernel_value_and_gradient():
    """The Op's kernel (what nutpie runs) equals the numpy quadrature, and its gradient
    in (θ, σ_β, κ) equals central finite differences."""
    d, _, _ = _data(2)
    q = design(d, full_grid_max=0)
    v = quad_model_data(q)
    args = [v[k] for k in ("grid", "pair_n", "pair_c", "base", "stride", "log_step", "mult")]
    rng = np.random.default_rng(3)
    theta, sd, kappa = rng.normal(0, 1, S), 1.6, 5.0

    def f(th, s_, k_):
        return quad_loglik(th, s_, k_, *args, q.width)

    ll, dth, dsd, dka = f(theta, sd, kappa)
    ref = marginal_loglik(q, theta[None], np.array([sd]), np.array([kappa]))[0]
    assert ll == pytest.approx(ref, abs=1e-8)
    eps = 1e-5
    num = [
        (f(theta + eps * e, sd, kappa)[0] - f(theta - eps * e, sd, kappa)[0]) / (2 * eps)
        for e in np.eye(S)
    ]
    np.testing.assert_allclose(dth, num, rtol=1e-5, atol=1e-5)
    assert dsd == pytest.approx(
        (f(theta, sd + eps, kappa)[0] - f(theta, sd - eps, kappa)[0]) / (2 * eps),
        rel=1e-5,
        abs=1e-5,
    )
    assert dka == pytest.approx(
        (f(theta, sd, kappa + eps)[0] - f(theta, sd, kappa - eps)[0]) / (2 * eps),
        rel=1e-5,
        abs=1e-5,
    )


def test_task_effect_draws_match_exact_conditional():
    """β_i drawn given fixed (θ, σ_β, κ) has the conditional mean and sd of the exact
    integrand (scipy quadrature), within Monte-Carlo error; the windows cover it."""
    d, n, c = _data(4)
    q = design(d, full_grid_max=0)
    rng = np.random.default_rng(5)
    theta, sd, kappa = rng.normal(0, 1, S), 1.8, 6.0
    D = 2000  # SD check: 6% is ~3.8 Monte-Carlo standard errors (1/sqrt(2D)) at D = 2000
    beta, edge = draw_task_effects(
        q, np.tile(theta, (D, 1)), np.full(D, sd), np.full(D, kappa), rng=np.random.default_rng(6)
    )
    assert edge < 1e-6
    for i in (0, 1, 3, 7):
        run = n[:, i] > 0
        ni, ci, th = n[run, i], c[run, i], theta[run]
        xs = np.linspace(-25, 25, 50001)
        mu = special.expit(th[None, :] + xs[:, None])
        lf = stats.betabinom.logpmf(ci, ni, kappa * mu, kappa * (1 - mu)).sum(axis=1)
        lf = lf + stats.norm.logpdf(xs, 0, sd)
        w = np.exp(lf - lf.max())
        w /= w.sum()
        m = (w * xs).sum()
        s = np.sqrt((w * (xs - m) ** 2).sum())
        assert abs(beta[:, i].mean() - m) < 4 * s / np.sqrt(D)
        assert abs(beta[:, i].std() / s - 1) < 0.06


def test_design_compresses_identical_rows():
    """Tasks with the same (n, c) for every system are one row with a multiplicity;
    a task every system failed and one every system passed are rows of their own."""
    n = np.full((3, 5), 4)
    c = np.array([[0, 4, 2, 2, 0], [0, 4, 1, 1, 0], [0, 4, 3, 3, 0]])
    d = JointData.from_arrays(n, c, n > 0, ["a", "b", "c"], list("vwxyz"))
    q = design(d)
    assert len(q.rows) == 3 and sorted(q.mult.tolist()) == [1, 2, 2]
    assert q.row_of_task[0] == q.row_of_task[4] and q.row_of_task[2] == q.row_of_task[3]
    # pair 0 is (0, 0): the term of a task a system did not run
    assert (q.pair_n[0], q.pair_c[0]) == (0, 0)


@pytest.mark.slow
def test_integrated_posterior_matches_sampled_task_effects():
    """Oracle: the same model with the task effects sampled (non-centred, as passhat did
    before they were integrated out), fitted by PyMC's NUTS on a small case. The posterior
    means of θ_s, σ_β and κ agree within Monte-Carlo error (5 combined standard errors).
    Slow (PyMC compiles and samples the sampled model: minutes on a shared machine)."""
    import arviz as az
    import pymc as pm
    import pytensor.tensor as pt

    import passhat as ph
    from passhat.model.joint_build import JointPriors, joint_counts

    rng = np.random.default_rng(11)
    S_, T_ = 3, 25
    theta = np.array([-0.8, 0.0, 0.9])
    beta = rng.normal(0.0, 1.3, T_)
    mu = special.expit(theta[:, None] + beta[None, :])
    n = np.full((S_, T_), 4)
    n[2, :5] = 0
    c = rng.binomial(n, rng.beta(mu * 6.0, (1.0 - mu) * 6.0))
    ds = joint_counts(n, c, systems=["a", "b", "c"])
    draws = 1000
    fit = ph.fit(ds, model="joint", seed=1, chains=2, draws=draws, tune=700, progress=False)

    pri = JointPriors()
    s_idx, t_idx = np.nonzero(n > 0)
    nn, cc = n[s_idx, t_idx], c[s_idx, t_idx]
    with pm.Model():
        th = pm.Normal("theta", 0.0, pri.theta_sd, shape=S_)
        sd = pm.HalfNormal("task_sd", pri.task_sd_scale)
        ka = pm.LogNormal("kappa", pri.log_kappa_mean, pri.log_kappa_sd)
        z = pm.Normal("z", 0.0, 1.0, shape=T_)
        m = pt.sigmoid(th[s_idx] + sd * z[t_idx])
        a, b = ka * m, ka * (1.0 - m)
        pm.Potential(
            "loglik",
            pt.sum(
                pt.gammaln(a + cc)
                - pt.gammaln(a)
                + pt.gammaln(b + nn - cc)
                - pt.gammaln(b)
                - pt.gammaln(ka + nn)
                + pt.gammaln(ka)
            ),
        )
        ref = pm.sample(
            draws=2000,
            tune=1000,
            chains=2,
            cores=1,
            random_seed=2,
            progressbar=False,
            compute_convergence_checks=False,
            target_accept=0.95,
        )
    post = fit.idata.posterior
    for name in ("theta", "task_sd", "kappa"):
        a_ = np.asarray(post[name].values).reshape(2 * draws, -1)
        b_ = np.asarray(ref.posterior[name].values).reshape(4000, -1)
        se_a = np.asarray(az.mcse(post[[name]])[name].values).reshape(-1)
        se_b = np.asarray(az.mcse(ref.posterior[[name]])[name].values).reshape(-1)
        diff = np.abs(a_.mean(axis=0) - b_.mean(axis=0))
        assert (diff < 5 * np.sqrt(se_a**2 + se_b**2)).all(), (name, diff, se_a, se_b)
        # and the spreads agree (a wrong likelihood shows in the width first); κ's posterior
        # is heavy-tailed (log-normal prior), so its spread is compared on the log scale
        f = np.log if name == "kappa" else np.asarray
        np.testing.assert_allclose(f(a_).std(axis=0), f(b_).std(axis=0), rtol=0.15)


def test_grid_covers_task_effects_when_many_tasks_are_all_pass():
    """Empirical logits understate σ_β when most tasks are all-pass or all-fail (rates near
    1, as in the agents example); the grid must still cover the task effects' conditionals
    at σ_β well above the truth: no integrand is cut off at the grid's ends."""
    rng = np.random.default_rng(8)
    theta, tau, kappa = np.array([3.0, 3.9]), 4.6, 4.6
    beta = rng.normal(0.0, tau, 168)
    mu = special.expit(theta[:, None] + beta[None, :])
    n = np.full((2, 168), 5)
    c = rng.binomial(n, rng.beta(mu * kappa, (1.0 - mu) * kappa))
    d = JointData.from_arrays(n, c, n > 0, ["a", "b"], [str(i) for i in range(168)])
    q = design(d)
    D = 50
    for sd in (tau, 1.4 * tau):
        _, edge = draw_task_effects(
            q,
            np.tile(theta, (D, 1)),
            np.full(D, sd),
            np.full(D, kappa),
            rng=np.random.default_rng(0),
        )
        assert edge < 1e-8, (sd, edge)


def test_tasks_with_the_same_counts_get_independent_task_effects():
    """Tasks that share a count row share its likelihood term, not their task effect: their
    β draws are independent given the parameters (else the benchmark-scope average over
    tasks would keep the spread of one task)."""
    n = np.full((2, 40), 5)
    c = np.full((2, 40), 5)  # every task all-pass: one row, multiplicity 40
    c[:, :3] = [[1, 2, 3], [2, 2, 4]]
    d = JointData.from_arrays(n, c, n > 0, ["a", "b"], [str(i) for i in range(40)])
    q = design(d)
    assert q.mult.max() == 37
    D = 3000
    beta, _ = draw_task_effects(
        q,
        np.tile([0.5, 1.0], (D, 1)),
        np.full(D, 2.0),
        np.full(D, 5.0),
        rng=np.random.default_rng(1),
    )
    same = beta[:, 3:]
    r = np.corrcoef(same[:, 0], same[:, 1])[0, 1]
    assert abs(r) < 4 / np.sqrt(D)
    # the mean over the 37 tasks varies as an average of independent draws
    assert same.mean(axis=1).std() == pytest.approx(same[:, 0].std() / np.sqrt(37), rel=0.1)


def test_grid_covers_task_effects_with_few_short_tasks():
    """3 systems × 25 tasks × 4 runs: the grid's spacing (0.5) is wider than small σ_β
    values, which the profile of σ_β must not over-weight (it once sized the grid ±2 wide)."""
    rng = np.random.default_rng(11)
    theta = np.array([-0.8, 0.0, 0.9])
    mu = special.expit(theta[:, None] + rng.normal(0.0, 1.3, 25)[None, :])
    n = np.full((3, 25), 4)
    n[2, :5] = 0
    c = rng.binomial(n, rng.beta(mu * 6.0, (1.0 - mu) * 6.0))
    q = design(JointData.from_arrays(n, c, n > 0, ["a", "b", "c"], [str(i) for i in range(25)]))
    D = 50
    for sd in (0.5, 1.3, 3.0):
        _, edge = draw_task_effects(
            q,
            np.tile(theta, (D, 1)),
            np.full(D, sd),
            np.full(D, 6.0),
            rng=np.random.default_rng(0),
        )
        assert edge < 1e-8, (sd, edge)


def _small_sd_data(sd: float, seed: int = 5) -> tuple[JointData, np.ndarray, np.ndarray]:
    """4 systems × 40 tasks × 4 runs with task effects of spread ``sd`` (the calibration
    study's shape)."""
    rng = np.random.default_rng(seed)
    S_, T_ = 4, 40
    theta = rng.normal(0.0, 1.0, S_)
    mu = special.expit(theta[:, None] + rng.normal(0.0, sd, T_)[None, :])
    n = np.full((S_, T_), 4)
    c = rng.binomial(n, rng.beta(mu * 8.0, (1.0 - mu) * 8.0))
    names = [f"s{i}" for i in range(S_)], [str(i) for i in range(T_)]
    return JointData.from_arrays(n, c, n > 0, *names), n, c


@pytest.mark.parametrize("truth", [0.05, 0.2])
def test_task_sd_near_zero_is_resolved_by_the_grid(truth):
    """Task effects with a small spread: the grid's spacing follows σ_β's plausible lower end,
    so each task's log marginal likelihood matches scipy's integral of the continuous model
    (1e-4) at σ_β from 0.05 to 1 — the trapezoid rule on a grid coarser than σ_β put
    h · N(0 | 0, σ_β) > 1 of prior mass on the node 0 and pulled σ_β's posterior to 0 (the
    joint calibration study: 90% coverage of σ_β 0.17 for truths below 0.5)."""
    d, n, c = _small_sd_data(truth)
    q = design(d, full_grid_max=10**9)
    assert np.isclose(q.grid, 0.0).any()
    theta = np.log((c.sum(1) + 0.5) / (n.sum(1) - c.sum(1) + 0.5))
    # scipy's adaptive integral per task is the cost: one task per distinct count row (up to
    # 12 rows; the others repeat a checked row's value by construction of the compression)
    _, first = np.unique(q.row_of_task, return_index=True)
    some = np.sort(first)[:12]
    for sd in (0.05, 0.15, 0.4, 1.0):
        rows = marginal_loglik(
            q, theta[None], np.array([sd]), np.array([8.0]), windows=False, per_row=True
        )[0]
        want = _brute(n[:, some], c[:, some], theta, sd, 8.0)
        np.testing.assert_allclose(rows[q.row_of_task[some]], want, atol=1e-4)


@pytest.mark.parametrize("sd", [0.02, 0.05, 0.08])
def test_task_sd_narrower_than_the_grid_is_not_over_weighted(sd):
    """A σ_β narrower than the node spacing (far below its plausible range for these data,
    so the grid is not refined for it): the trapezoid rule on N(β | 0, σ_β) alone puts
    h · N(0 | 0, σ_β) > 1 of prior mass on the node 0 (log 1.5 per task at σ_β = 0.05 here).
    Normalised on the grid, the prior's mass is 1 (a point mass at the node 0 as σ_β → 0,
    not a spike of mass h · N(0 | 0, σ_β)), and the model's potential (the Op minus the
    normaliser) equals the numpy quadrature."""
    d, _, _ = _data()
    q = design(d, full_grid_max=10**9)
    assert q.h > 2 * sd
    assert np.isclose(q.grid, 0.0).any()
    rng = np.random.default_rng(4)
    theta = rng.normal(0.0, 1.0, S)
    kappa = 8.0
    rows = marginal_loglik(
        q, theta[None], np.array([sd]), np.array([kappa]), windows=False, per_row=True
    )[0]
    lp = stats.norm.logpdf(q.grid, 0.0, sd) + np.log(q.h)
    assert special.logsumexp(lp) > 0.05  # the trapezoid rule's prior mass is > 1
    norm = float(grid_log_norm(q.grid, sd).eval())
    assert special.logsumexp(lp) == pytest.approx(norm, abs=1e-12)
    v = quad_model_data(q)
    args = [v[k] for k in ("grid", "pair_n", "pair_c", "base", "stride", "log_step", "mult")]
    raw = quad_loglik(theta, sd, kappa, *args, q.width)[0]
    model = raw - q.mult.sum() * norm
    assert model == pytest.approx(rows @ q.mult, abs=1e-8)
    assert raw - model > 0.05 * q.mult.sum()  # what the unnormalised rule added
