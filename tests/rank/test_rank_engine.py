"""Tests of passhat.rank.engine's resample counts: the compiled count against ``bincount``.

Oracle: :func:`passhat.rank.engine.resample_counts` (``np.bincount`` of the drawn tasks),
which the paired bootstrap used before the compiled count; same seed, same counts.
"""

from __future__ import annotations

import numpy as np

from passhat.rank.engine import draw_counts, paired_draws, resample_counts


def test_draw_counts_of_the_same_draws_equal_resample_counts() -> None:
    old = resample_counts(300, 40, np.random.default_rng(3))
    new = draw_counts(np.random.default_rng(3).integers(0, 300, size=(40, 300)), 300)
    np.testing.assert_array_equal(new, old.astype(np.float32))


def test_paired_draws_equal_the_draws_from_bincount_counts() -> None:
    g = np.random.default_rng(5)
    n = np.full((3, 80), 4.0)
    c = g.integers(0, 5, size=(3, 80)).astype(float)
    cols = [("mean", 1), ("pass_hat_k", 2)]
    got = paired_draws(n, c, np.ones(80), cols, n_boot=50, rng=np.random.default_rng(7))
    # the same resamples by the old counts, values by the per-task estimators
    from passhat.scopes import column_values

    m = resample_counts(80, 50, np.random.default_rng(7)).astype(float)
    vals = np.stack([column_values(n[s], c[s], cols) for s in range(3)])
    want = np.einsum("bt,stc->bsc", m, vals) / 80.0
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
