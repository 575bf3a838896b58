"""Expected interval width after m more runs per task (preposterior), and its floor.

Oracles: a brute-force enumeration of every new outcome on two tasks with an independent
quadrature of each posterior (``split_oracles``); the martingale identity
E[Var(θ | y, y')] + Var(E[θ | y, y']) = Var(θ | y); the limit m → ∞ against the floor
computed from p (a different code path: Beta likelihoods of p instead of Beta-Binomial runs).
"""

from __future__ import annotations

import numpy as np
import pytest
from split_oracles import TwoTasks

import passhat as ph
from passhat.errors import ModelError, OptionError
from passhat.model.build import Priors
from passhat.model.metrics import Groups
from passhat.model.preposterior import after_runs, more_runs_rows
from passhat.model.split import beta_part, quad_grid, softmax_rows

N2, C2 = [3, 4], [1, 3]


@pytest.fixture(scope="module")
def two_task_fit():
    return ph.fit(
        ph.counts_from_arrays(N2, C2), k=[2], method="grid", model="beta", seed=3, draws=5000
    )


@pytest.fixture(scope="module")
def fifteen():
    """T = 15 tasks × 3 runs (seeded Beta(1, 1) rates)."""
    rng = np.random.default_rng(5)
    c = rng.binomial(3, rng.beta(1, 1, 15))
    return np.full(15, 3), c


def test_expected_width_matches_enumeration_on_two_tasks(two_task_fit):
    """m = 2 more runs on each of two tasks: 9 outcomes, each posterior by brute force."""
    bf = TwoTasks(N2, C2, n_phi=80, n_p=40)
    now = bf.summary("pass_hat_k", 2)
    after = bf.after_runs("pass_hat_k", 2, 2)
    assert after["prob"] == pytest.approx(1.0, abs=1e-9)
    rows = more_runs_rows(
        np.array(N2),
        np.array(C2),
        np.ones(2),
        two_task_fit._hyper(0),
        [("pass_hat_k", 2)],
        runs=[2],
        priors=Priors(),
        ci=0.95,
        simulations=3000,
        rng=np.random.default_rng(1),
    )
    got = {(r["scope"], r["runs_added"]): r for r in rows}
    assert got[("population", 0.0)]["expected_sd"] == pytest.approx(now["sd"], rel=0.01)
    assert got[("population", 0.0)]["expected_width"] == pytest.approx(now["width"], rel=0.01)
    assert got[("benchmark", 0.0)]["expected_sd"] == pytest.approx(now["sd_bench"], rel=0.01)
    assert got[("population", 2.0)]["expected_sd"] == pytest.approx(after["sd"], rel=0.02)
    assert got[("population", 2.0)]["expected_width"] == pytest.approx(after["width"], rel=0.02)
    assert got[("benchmark", 2.0)]["expected_sd"] == pytest.approx(after["sd_bench"], rel=0.02)
    # the floor (p known): its variance is E[Var(θ | p)], the brute force's task-sampling part
    floor = got[("population", np.inf)]
    assert floor["expected_sd"] ** 2 < now["var_total"] - 0.5 * now["var_within"]
    assert got[("benchmark", np.inf)]["expected_width"] == 0.0


def test_the_posterior_is_a_martingale(fifteen):
    """E[Var(θ | y, y')] + Var(E[θ | y, y']) = Var(θ | y) over simulated new runs (m = 3)."""
    n, c = fifteen
    data = ph.counts_from_arrays(n.tolist(), c.tolist())
    f = ph.fit(data, k=[3], method="grid", model="beta", seed=2)
    h = f._hyper(0)
    kap = h["a"] + h["b"]
    grid = quad_grid(h["a"] / kap, kap, Priors())
    groups = Groups.from_tasks(n, c, np.ones(15))
    from passhat.model.grid import grid_log_posterior

    lpy = grid_log_posterior(grid.theta, grid.lam, groups.n, groups.c, groups.mult)
    th = beta_part(grid, [("pass_hat_k", 3)])[:, 0]
    w0 = softmax_rows(lpy[None, :].copy())[0]
    var0 = w0 @ th**2 - (w0 @ th) ** 2
    sim = after_runs(grid, lpy, groups, 3, simulations=4000, rng=np.random.default_rng(4))
    e = sim.weights @ th
    v = sim.weights @ th**2 - e**2
    assert v.mean() + e.var() == pytest.approx(var0, rel=0.03)
    assert e.mean() == pytest.approx(w0 @ th, abs=3 * np.sqrt(e.var() / 4000))
    assert sim.counts.sum(axis=2).tolist() == [groups.mult.tolist()] * 4000


def test_many_more_runs_approach_the_floor(fifteen):
    n, c = fifteen
    data = ph.counts_from_arrays(n.tolist(), c.tolist())
    f = ph.fit(data, k=[3], method="grid", model="beta", seed=2)
    t = f.more_runs(runs=[3, 30, 300], k=3, simulations=300)
    pop = t[(t["metric"] == "pass_hat_k") & (t["scope"] == "population")]
    sd = pop.set_index("runs_added")["expected_sd"]
    assert sd[0.0] > sd[3.0] > sd[30.0] > sd[np.inf]
    assert sd[300.0] == pytest.approx(sd[np.inf], rel=0.05)
    bench = t[(t["metric"] == "pass_hat_k") & (t["scope"] == "benchmark")]
    ratio = bench.set_index("runs_added")["width_ratio"]
    assert ratio[0.0] == 1.0 and ratio[300.0] < 0.15 and ratio[np.inf] == 0.0
    # seeded by the fit: the same table on every call
    once = f.more_runs(runs=[3], k=3, simulations=50)
    assert once.equals(f.more_runs(runs=[3], k=3, simulations=50))


def test_more_runs_refuses_what_it_cannot_do(two_task_fit):
    with pytest.raises(OptionError, match="runs must be whole numbers"):
        two_task_fit.more_runs(runs=[0])
    with pytest.raises(OptionError, match="simulations"):
        two_task_fit.more_runs(runs=[1], simulations=5)
    h = dict(two_task_fit._hyper(0))
    h.update(pi_pass=np.full(len(h["a"]), 0.1), pi_fail=np.full(len(h["a"]), 0.1))
    with pytest.raises(ModelError, match="plain Beta-Binomial"):
        more_runs_rows(
            np.array(N2), np.array(C2), np.ones(2), h, [("mean", 1)], runs=[1],
            priors=Priors(), ci=0.9, simulations=20, rng=np.random.default_rng(0),
        )  # fmt: skip


def test_predictive_of_all_pass_tasks_at_a_tiny_b_is_a_distribution() -> None:
    # At a grid point with b = 6.8e-16 the predictive of m = 10 new runs of a 10/10 task
    # computed b + 0 + 10 − 10 in that order: 0, so betaln(·, 0) = inf and the table held
    # +inf, which turned the simulated posteriors into NaN (plan more-runs printed nan at +10
    # for two 10/10 tasks). Oracle: a pmf over c' = 0..m sums to one; with b → 0 every new
    # run passes (c' = m has probability → 1).
    from passhat.model.preposterior import _bb_log_table

    t = _bb_log_table(10, 10.0, 0.0, np.array([2.4e-7, 1.0]), np.array([6.8e-16, 1.0]))
    assert np.isfinite(t).all()
    np.testing.assert_allclose(np.exp(t).sum(axis=1), 1.0, rtol=1e-9)
    assert np.exp(t[0, -1]) == pytest.approx(1.0, abs=1e-9)


def test_more_runs_on_all_pass_tasks_is_finite() -> None:
    tab = ph.plan.more_runs(ph.counts_from_arrays([10, 10], [10, 10]), k=2).to_frame()
    num = tab[["expected_sd", "expected_width", "width_ratio", "within_task_share"]]
    assert np.isfinite(num.to_numpy(dtype=float)).all(), tab
