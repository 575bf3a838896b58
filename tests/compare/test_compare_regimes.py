"""Property tests (hypothesis) of ``compare`` in unusual regimes.

Regimes: one to six tasks, one run, unequal n between the systems, both systems all-pass or
all-fail, identical systems, k = min n.

Oracles: plain arithmetic (the difference is the candidate's value minus the baseline's, each
the unweighted average of C(c,k)/C(n,k) computed with ``math.comb``; a difference of two
values in [0, 1] lies in [−1, 1]); identical inputs give a difference of exactly 0 that no
test rejects; and the engine's contract (``passhat.compare.engine``): in every scope the
interval excludes 0 exactly when the reported test rejects at the same level, p ≤ 1 − ci.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import passhat as ph


@st.composite
def pairs(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int]]:
    t = draw(st.integers(1, 6))
    na = draw(st.lists(st.integers(1, 6), min_size=t, max_size=t))
    same_n = draw(st.booleans())
    nb = na if same_n else draw(st.lists(st.integers(1, 6), min_size=t, max_size=t))
    kind = draw(st.sampled_from(["random", "identical", "all_pass", "all_fail"]))
    if kind == "all_pass":
        return na, list(na), nb, list(nb)
    if kind == "all_fail":
        return na, [0] * t, nb, [0] * t
    ca = [draw(st.integers(0, m)) for m in na]
    if kind == "identical":
        return na, ca, list(na), list(ca)
    return na, ca, nb, [draw(st.integers(0, m)) for m in nb]


def _hat(n: list[int], c: list[int], k: int) -> float:
    return sum(math.comb(ci, k) / math.comb(ni, k) for ni, ci in zip(n, c, strict=True)) / len(n)


@given(pairs(), st.sampled_from([0.9, 0.95]))
def test_difference_interval_and_test_agree(case, ci: float) -> None:
    na, ca, nb, cb = case
    k = min(min(na), min(nb))
    ks = sorted({1, k})
    a = ph.counts_from_arrays(na, ca, system="A")
    b = ph.counts_from_arrays(nb, cb, system="B")
    cmp = ph.compare(a, b, k=ks, ci=ci, n_boot=200)
    t = cmp.table
    assert set(t["scope"]) == {"benchmark", "population"}
    for kk in ks:
        rows = t[(t["metric"] == "pass_hat_k") & (t["k"] == kk)]
        want = _hat(nb, cb, kk) - _hat(na, ca, kk)
        np.testing.assert_allclose(rows["difference"], want, atol=1e-12)
    np.testing.assert_allclose(t["difference"], t["cand_value"] - t["base_value"], atol=1e-12)
    assert t["difference"].between(-1, 1).all()
    assert (t["lower"] >= -1 - 1e-12).all() and (t["upper"] <= 1 + 1e-12).all()
    assert (t["lower"] <= t["upper"] + 1e-12).all()
    assert t["p_value"].between(0, 1).all()
    excludes = (t["lower"] > 0) | (t["upper"] < 0)
    rejects = t["p_value"] <= (1 - ci) * (1 + 1e-9)
    assert (excludes == rejects).all(), t[excludes != rejects]
    outside = (t["difference"] < t["lower"] - 1e-9) | (t["difference"] > t["upper"] + 1e-9)
    assert not outside.any() or cmp.notes
    if na == nb and ca == cb:
        assert (t["difference"] == 0).all() and not rejects.any()
