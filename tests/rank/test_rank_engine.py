"""Tests of passhat.rank.engine's resample counts: the compiled count against ``bincount``,
and the bootstrap draws on the compiled path and on numpy's.

Oracle: :func:`passhat.rank.engine.resample_counts` (``np.bincount`` of the drawn tasks),
which the paired bootstrap used before the compiled count; same seed, same counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from passhat.rank.engine import draw_counts, paired_draws, resample_counts


def test_draw_counts_of_the_same_draws_equal_resample_counts() -> None:
    old = resample_counts(300, 40, np.random.default_rng(3))
    new = draw_counts(np.random.default_rng(3).integers(0, 300, size=(40, 300)), 300)
    np.testing.assert_array_equal(new, old.astype(np.float32))


@pytest.mark.parametrize("compiled", [True, False])
def test_paired_draws_equal_the_draws_from_bincount_counts(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from passhat.rank import engine as mod

    monkeypatch.setattr(mod, "_COMPILED_CELLS", 0 if compiled else 10**18)
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


def test_pairwise_counts_compiled_equal_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # rank's simultaneous pairwise counts: the compiled maxima against numpy's, same numbers
    from passhat.rank import draws as mod

    g = np.random.default_rng(6)
    d = g.normal(size=(400, 6)) * 0.02 + np.linspace(0.3, 0.5, 6)
    d[:, 1] = d[:, 2]  # a pair no draw separates
    point = d.mean(axis=0) + g.normal(size=6) * 1e-3
    monkeypatch.setattr(mod, "_COMPILED_CELLS", 0)
    fast = mod._pairwise_counts(d, point, 0.05)
    monkeypatch.setattr(mod, "_COMPILED_CELLS", 10**18)
    slow = mod._pairwise_counts(d, point, 0.05)
    for x, y in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(x, y)
