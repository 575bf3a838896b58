"""passhat.graders.draws: the population bootstrap with weights and clusters.

Oracle: the cluster bootstrap done by hand — the same multinomial draw of clusters, each
task of a drawn cluster counted as often as its cluster was drawn, times its weight.
"""

from __future__ import annotations

import numpy as np

from passhat.graders import GraderSpec
from passhat.graders.draws import population_draws, resample_units, values_from_powers
from passhat.graders.estimators import observed_powers


def test_cluster_bootstrap_equals_expanding_clusters_by_hand() -> None:
    rng = np.random.default_rng(4)
    t, g = 30, 7
    n = rng.integers(3, 6, t).astype(float)
    c = rng.binomial(n.astype(int), 0.6).astype(float)
    w = rng.uniform(0.5, 2.0, t)
    codes = np.sort(rng.integers(0, g, t))
    codes = np.unique(codes, return_inverse=True)[1]
    g = int(codes.max()) + 1
    grader = GraderSpec.from_audit((60, 6, 50, 8))
    got = population_draws(n, c, [2, 3], grader, n_boot=200, rng=np.random.default_rng(9),
                           weights=w, clusters=codes)  # fmt: skip
    again = np.random.default_rng(9)
    se, sp = grader.draws(200, again)
    m = again.multinomial(g, np.full(g, 1.0 / g), size=200)
    per_task = m[:, codes] * w[None, :]
    f = per_task / per_task.sum(axis=1, keepdims=True)
    hits, misses = f @ observed_powers(n, c, 3), f @ observed_powers(n, n - c, 3)
    mean, at, hat = values_from_powers(hits, misses, [2, 3], se, sp)
    np.testing.assert_allclose(got.pass_hat_k, hat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.pass_at_k, at, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.mean, mean, rtol=0, atol=1e-12)


def test_units_of_one_task_are_the_task_exactly() -> None:
    h = np.array([[1.0, 0.3], [1.0, 0.7], [1.0, 0.1]])
    w = np.array([0.3, 0.7, 0.1])
    u, _, uw = resample_units(h, h, w, np.array([0, 1, 1]))
    assert u[0].tolist() == [1.0, 0.3] and uw is not None and uw[0] == 0.3
    np.testing.assert_allclose(u[1], [1.0, (0.7 * 0.7 + 0.1 * 0.1) / 0.8])
    assert uw[1] == 0.7 + 0.1
    same, _, none = resample_units(h, h, None, np.array([0, 1, 2]))
    assert same.tolist() == h.tolist() and none is None
