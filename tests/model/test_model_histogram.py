"""The discrete model's identified values (:mod:`passhat.model.histogram`).

Oracles: the unbiased estimates by brute force over subsets of runs, the Dirichlet's mean of a
linear form, and a simulated two-point benchmark (half the tasks at p = 0.4, half at 0.95,
200 tasks × 5 runs) where the NPMLE's own pass@5 lies below the histogram's.
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.model.histogram import identified, identified_values, task_values
from passhat.model.metrics import Groups


def test_identified_up_to_the_fewest_runs():
    g = Groups.from_tasks([3, 5, 4], [1, 2, 4], [1.0, 1.0, 1.0])
    assert identified(g, "mean", 1)
    assert identified(g, "pass_hat_k", 3) and identified(g, "pass_at_k", 3)
    assert not identified(g, "pass_hat_k", 4) and not identified(g, "icc", 1)


def test_task_values_are_the_unbiased_estimates():
    """C(c, k)/C(n, k) and 1 − C(n − c, k)/C(n, k): 4 of 5 runs, k = 2 → 6/10 and 1."""
    g = Groups.from_tasks([5, 5], [4, 0], [1.0, 1.0])
    order = np.argsort(g.c)
    np.testing.assert_allclose(task_values(g, "pass_hat_k", 2)[order], [0.0, 0.6])
    np.testing.assert_allclose(task_values(g, "pass_at_k", 2)[order], [0.0, 1.0])
    np.testing.assert_allclose(task_values(g, "mean", 1)[order], [0.0, 0.8])


def test_draws_do_not_depend_on_the_requests():
    """The same generator state gives the same draws whatever else is asked (so a metric
    computed alone or with others is the same number)."""
    g = Groups.from_tasks([4] * 6, [0, 1, 2, 3, 4, 4], [1.0] * 6)
    for scope in ("population", "benchmark"):
        one = identified_values(g, [("pass_at_k", 2)], 50, scope=scope,
                                rng=np.random.default_rng(3))  # fmt: skip
        two = identified_values(g, [("pass_hat_k", 3), ("pass_at_k", 2), ("pass_at_k", 9)], 50,
                                scope=scope, rng=np.random.default_rng(3))  # fmt: skip
        np.testing.assert_array_equal(one[("pass_at_k", 2)], two[("pass_at_k", 2)])
        assert ("pass_at_k", 9) not in two  # above the runs: not identified


@pytest.fixture(scope="module")
def two_point() -> tuple[np.ndarray, ph.Fit]:
    rng = np.random.default_rng([0, 200, 5, 1])  # fit_shapes' replicate 1 of this design
    p = np.where(rng.random(200) < 0.5, 0.4, 0.95)
    c = rng.binomial(5, p)
    f = ph.fit(ph.counts_from_arrays(np.full(200, 5), c), k=[5, 6], model="discrete", seed=1,
               chains=2, draws=250, progress=False)  # fmt: skip
    return c, f


def test_two_point_pass_at_n_is_the_histograms_not_the_npmles(two_point):
    """pass@5 at n = 5 is the share of tasks with a success: the population draws' mean is
    the Dirichlet mean (#{c > 0} + ½)/(T + 1) within 4 Monte-Carlo s.e.; the NPMLE's own value
    (1 − Σ_j w_j (1 − p_j)^5 from the stored node weights) is lower by more than 0.01 on this
    replicate (its spurious mass near p = 0: the bias this module removes). The benchmark's
    Rao–Blackwellised value is the share itself."""
    c, f = two_point
    got = f.metric("pass_at_k", [5]).values.ravel()
    want = (np.sum(c > 0) + 0.5) / (c.size + 1)
    assert abs(got.mean() - want) < 4 * got.std() / np.sqrt(got.size)
    w = f.idata.posterior["node_weight"].values[:, :, 0, :].reshape(got.size, -1)
    p = f.idata.posterior["node"].values
    npmle = 1.0 - w @ (1.0 - p) ** 5
    assert got.mean() - npmle.mean() > 0.01
    rb = f.metric("pass_at_k", [5], scope="benchmark", rao_blackwell=True).values.ravel()
    np.testing.assert_allclose(rb, np.mean(c > 0), rtol=1e-12)


def test_above_the_runs_the_nodes_extrapolate(two_point):
    """k = 6 > n: the value is the NPMLE's, Σ_j w_j p_j^6 per draw."""
    _, f = two_point
    w = f.idata.posterior["node_weight"].values[:, :, 0, :].reshape(-1, 101)
    p = f.idata.posterior["node"].values
    got = f.metric("pass_hat_k", [6]).values.ravel()
    np.testing.assert_allclose(got, w @ p**6, rtol=1e-10)
