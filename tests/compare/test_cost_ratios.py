"""The cost figures from sums over tasks and the two systems' difference and ratio.

Oracle: the definitions by hand on two tasks (cost per run = Σcost / T, per success =
Σcost / Σmean, per all-k-pass = k·Σcost / Σpass^k, pass^k per cost its inverse)."""

from __future__ import annotations

import numpy as np
import pytest

from passhat.compare.cost_ratios import compare_values, metric_values


def test_metric_values_by_hand() -> None:
    sums = np.array([2.0, 0.3, 1.2, 0.5, 0.2])  # T, Σcost, Σmean, Σpass^1, Σpass^3
    got = metric_values(sums, [1, 3])
    want = [0.15, 0.25, 0.3 / 0.5, 3 * 0.3 / 0.2, 0.5 / 0.3, 0.2 / 0.9]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_compare_values_and_undefined() -> None:
    with np.errstate(divide="ignore"):
        base = metric_values(np.array([1.0, 1.0, 0.0, 0.0]), [1])
    out = compare_values(base, base)
    assert out[0].tolist() == [0.0, 1.0]
    assert np.isnan(out[1]).all()  # ∞ − ∞ and ∞ / ∞
    assert out[3, 0] == 0.0 and np.isnan(out[3, 1])  # 0 − 0, 0 / 0
    assert compare_values(np.array([2.0]), np.array([3.0]))[0].tolist() == pytest.approx([1, 1.5])
