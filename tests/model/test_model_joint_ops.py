"""The optimised likelihood kernel of the joint model against the kernel it replaced (the
oracle, tests/model/joint_ops_oracle.py): logp and gradient equal to 1e-10."""

from __future__ import annotations

import numpy as np
import pytest
from joint_ops_oracle import _quad_loglik as old_quad_loglik
from joint_ops_oracle import _table as old_table

from passhat.model.joint_build import JointData, quad_model_data
from passhat.model.joint_ops import _quad_loglik, _table
from passhat.model.joint_quad import design


def _design(systems: int, tasks: int, runs: int, seed: int, full_grid_max: int) -> dict:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, systems)
    beta = rng.normal(0, 2, tasks)
    mu = 1 / (1 + np.exp(-(theta[:, None] + beta[None, :])))
    n = rng.integers(1, runs + 1, (systems, tasks))
    c = rng.binomial(n, rng.beta(6 * mu, 6 * (1 - mu)))
    present = rng.random((systems, tasks)) > 0.1
    present[:, 0] = True
    names = [f"s{i}" for i in range(systems)]
    d = JointData.from_arrays(n, c, present, names, [f"t{i}" for i in range(tasks)])
    return quad_model_data(design(d, full_grid_max=full_grid_max))


@pytest.mark.parametrize(
    ("systems", "tasks", "runs", "full"), [(3, 40, 5, 0), (5, 60, 8, 0), (2, 10, 3, 10**9)]
)
def test_kernel_equals_oracle(systems: int, tasks: int, runs: int, full: int) -> None:
    v = _design(systems, tasks, runs, seed=systems * tasks, full_grid_max=full)
    data = tuple(v[k] for k in ("grid", "pair_n", "pair_c", "base", "stride", "log_step", "mult"))
    rng = np.random.default_rng(1)
    for _ in range(5):
        th = rng.normal(0, 1.5, systems)
        sd, kap = float(rng.uniform(0.3, 4)), float(np.exp(rng.uniform(-1, 7)))
        new = _quad_loglik(th, sd, kap, *data, len(v["width"]))
        old = old_quad_loglik(th, sd, kap, *data, len(v["width"]))
        assert abs(new[0] - old[0]) <= 1e-10 * abs(old[0])
        np.testing.assert_allclose(new[1], old[1], rtol=1e-10, atol=1e-10)
        for a, b in zip(new[2:], old[2:], strict=True):
            assert abs(a - b) <= 1e-10 * max(1.0, abs(b))


def test_kernel_equals_oracle_with_strided_windows() -> None:
    # every other row summed over every other node of the whole grid (stride 2)
    v = _design(3, 30, 5, seed=4, full_grid_max=10**9)
    q = len(v["grid"])
    width = (q + 1) // 2
    stride = np.where(np.arange(len(v["mult"])) % 2 == 1, 2, 1).astype(np.int64)
    h = v["grid"][1] - v["grid"][0]
    args = (v["grid"], v["pair_n"], v["pair_c"], v["base"], stride, np.log(h * stride), v["mult"])
    th = np.array([0.4, -1.0, 1.3])
    new = _quad_loglik(th, 1.7, 9.0, *args, width)
    old = old_quad_loglik(th, 1.7, 9.0, *args, width)
    assert abs(new[0] - old[0]) <= 1e-10 * abs(old[0])
    np.testing.assert_allclose(new[1], old[1], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(new[2:], old[2:], rtol=1e-10, atol=1e-10)


def test_table_equals_oracle() -> None:
    grid = np.linspace(-9, 9, 31)
    pn, pc = np.array([0, 4, 4, 4, 9]), np.array([0, 0, 3, 4, 2])
    th = np.array([-2.0, 0.5])
    size = len(th) * len(pn) * len(grid)
    got = [np.empty(size) for _ in range(3)]
    ref = [np.empty(size) for _ in range(3)]
    for kap in (0.05, 3.0, 1e4):
        _table(th, kap, grid, pn, pc, *got, True)
        old_table(th, kap, grid, pn, pc, *ref, True)
        for a, b in zip(got, ref, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
