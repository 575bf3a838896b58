"""The next batch's tables and greedy steps, computed the fast way, against direct formulas.

``plan next`` at 100 tasks × 500 runs took 14 s (issue 15 wants a batch in about a second):
:func:`expected_error` evaluated log-Gamma on every (group, more runs, new successes) cell, and
:func:`greedy` scored every (group, step, level) cell at every step. Now the log-Gammas are
tabulated per (group, c'), (group, x − c') and (group, x) and gathered, and each greedy step
scores only the cells that hold tasks (benchmarks/bench_next_runs.py has the times).

Oracles: the docstring's sums evaluated cell by cell with :func:`scipy.special.betaln` and
:func:`scipy.special.comb` (exact binomial coefficients), and a greedy that scans the full table
at every step, with ties to the first cell of the (group, step, level) scan.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from passhat.planner.allocate import expected_error, greedy


def _direct(n: float, c: float, a: float, b: float, x: int, k: int) -> tuple[float, float]:
    """E[(ĥ − p^k)²] and E[ĥ − p^k] by the docstring's finite sums, one cell at a time."""
    e_h2 = e_h = e_hp = 0.0
    for cq in range(x + 1):
        p = special.comb(x, cq) * np.exp(special.betaln(a + cq, b + x - cq) - special.betaln(a, b))
        q = special.comb(x, cq) * np.exp(
            special.betaln(a + cq + k, b + x - cq) - special.betaln(a, b)
        )
        h = special.comb(c + cq, k) / special.comb(n + x, k)
        e_h2, e_h, e_hp = e_h2 + p * h * h, e_h + p * h, e_hp + q * h
    e_pk = np.exp(special.betaln(a + k, b) - special.betaln(a, b))
    e_p2k = np.exp(special.betaln(a + 2 * k, b) - special.betaln(a, b))
    return e_h2 - 2 * e_hp + e_p2k, e_h - e_pk


@pytest.mark.parametrize(
    ("n", "c", "k", "metric"),
    [(500, 437, 5, "pass_hat_k"), (500, 500, 5, "pass_hat_k"), (300, 12, 3, "pass_at_k"),
     (2, 1, 5, "pass_hat_k"), (0, 0, 1, "mean"), (450, 449, 1, "mean")],
)  # fmt: skip
def test_expected_error_matches_the_direct_sums(n: int, c: int, k: int, metric: str) -> None:
    a0, b0 = 1.7, 0.4
    more = np.array([0, 1, 3, 8, 40])
    mse, bias = expected_error(
        np.array([n]), np.array([c]), np.array([a0 + c]), np.array([b0 + n - c]), more,
        k=k, metric=metric,
    )  # fmt: skip
    kk = 1 if metric == "mean" else k
    cc, a, b = (n - c, b0 + n - c, a0 + c) if metric == "pass_at_k" else (c, a0 + c, b0 + n - c)
    # E[ĥ²] − 2 E[ĥ p^k] + E[p^2k] cancels terms near 1 to leave ~1e-5: compare to 1e-10
    for j, x in enumerate(more):
        if n + x < kk:
            continue  # no estimate yet: the table is masked by its caller
        want_mse, want_bias = _direct(n, cc, a, b, int(x), kk)
        assert mse[0, j] == pytest.approx(max(want_mse, 0.0), rel=1e-6, abs=1e-10)
        sign = -1 if metric == "pass_at_k" else 1
        assert bias[0, j] == pytest.approx(sign * want_bias, rel=1e-6, abs=1e-10)


def _greedy_full_scan(mse, bias, mult, *, start, room, budget, lookahead=4, max_steps=2000):  # type: ignore[no-untyped-def]
    """The greedy that scores every (group, step, level) cell at every step (the former loop)."""
    P, G, L = mse.shape
    wts = np.full(P, 1.0 / P)
    H = max(1, min(lookahead, L - 1))
    top = np.minimum(start + room, L - 1)
    counts = np.zeros((G, L), dtype=np.int64)
    counts[np.arange(G), start] = mult
    S = (mult[None, :] * bias[:, np.arange(G), start]).sum(axis=1)
    W = mse - bias * bias
    lev, hs = np.arange(L), np.arange(1, H + 1)
    to = np.minimum(lev[None, :] + hs[:, None], L - 1)
    dW, dB = W[:, :, to] - W[:, :, None, :], bias[:, :, to] - bias[:, :, None, :]
    fixed = np.einsum("p,pghl->ghl", wts, dW + dB * dB)
    valid = (lev[None, None, :] + hs[None, :, None]) <= top[:, None, None]
    left, chunk = budget, max(1, budget // max_steps)
    while left > 0:
        ok = valid & (counts[:, None, :] > 0) & (hs[None, :, None] <= left)
        if not ok.any():
            break
        delta = fixed + 2 * np.einsum("p,pghl->ghl", wts * S, dB)
        per_run = np.where(ok, -delta / hs[None, :, None], -np.inf)
        best = int(np.argmax(per_run))
        if not per_run.flat[best] > 0:
            break
        g, h0, lv = np.unravel_index(best, per_run.shape)
        h = int(h0) + 1
        r = int(min(counts[g, lv], max(1, chunk // h), left // h))
        counts[g, lv] -= r
        counts[g, lv + h] += r
        S = S + r * dB[:, g, h0, lv]
        left -= r * h
    return counts, budget - left


@pytest.mark.parametrize("seed", range(12))
def test_greedy_takes_the_steps_of_a_full_scan(seed: int) -> None:
    rng = np.random.default_rng(seed)
    P, G, L = int(rng.integers(1, 5)), int(rng.integers(1, 15)), int(rng.integers(2, 25))
    mse = np.abs(rng.normal(size=(P, G, L))).cumsum(axis=2)[:, :, ::-1].copy() * 0.01
    bias = rng.normal(size=(P, G, L)) * 0.01
    if seed % 3 == 0:  # rounded tables: many exact ties
        mse, bias = np.round(mse, 2), np.round(bias, 2)
    mult = rng.integers(1, 6, G)
    start, room = rng.integers(0, min(3, L), G), rng.integers(0, L, G)
    budget = int(rng.integers(1, 150))
    got = greedy(mse, bias, mult, start=start, room=room, budget=budget)
    want = _greedy_full_scan(mse, bias, mult, start=start, room=room, budget=budget)
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]
