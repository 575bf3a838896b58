"""The small-sample rule of compare --cost (symmetric bootstrap-t on the jackknife SE).

Oracles: the jackknife standard error by hand on three tasks and against an explicit
leave-one-unit-out loop (tasks and clusters) that recomputes each figure from pandas sums; the
bootstrap-t quantile against the exact bootstrap distribution of the studentised statistic,
enumerated over all 5^5 resamples with an explicit loop (tolerance from the Monte-Carlo error
of a quantile); unbounded ends where leaving a unit out leaves no all-k-pass; the rule switch
at FEW_TASKS units and the warning below FEW_FOR_DIFFERENCES.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.compare.cost import _task_rows
from passhat.compare.cost_result import FEW_FOR_DIFFERENCES, FEW_TASKS
from passhat.compare.cost_small import pair_bootstrap_t, pair_jackknife


def _figures(xb: np.ndarray, xc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(difference, log ratio) of cost per run, per success, per all-k-pass and pass^k per
    cost, from the task rows by plain sums (one k)."""
    out = []
    for x in (xb, xc):
        t, c, m, h = x.sum(axis=0)
        out.append(np.array([c / t, c / m, k * c / h, h / (k * c)]))
    return out[1] - out[0], np.log(out[1] / out[0])


def _loo_se(xb: np.ndarray, xc: np.ndarray, groups: np.ndarray, k: int) -> np.ndarray:
    """Jackknife SE by an explicit loop over the units."""
    units = np.unique(groups)
    full = np.stack(_figures(xb, xc, k), axis=-1)
    dev = np.zeros_like(full)
    for g in units:
        keep = groups != g
        dev += (np.stack(_figures(xb[keep], xc[keep], k), axis=-1) - full) ** 2
    return np.sqrt((len(units) - 1) / len(units) * dev)


def _rows(seed: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = np.full(t, 5.0)
    xb = _task_rows(n, rng.integers(2, 6, t).astype(float), rng.lognormal(0, 1, t), [2])
    xc = _task_rows(n, rng.integers(3, 6, t).astype(float), rng.lognormal(0.3, 1, t), [2])
    return xb, xc


def test_jackknife_by_hand() -> None:
    """Three tasks, candidate = baseline with each cost doubled: cost per success 6 / 2 = 3
    against 12 / 2 = 6; without each task the difference is 10/3, 4, 2, so
    SE² = 2/3 · ((1/3)² + 1² + 1²) = 1.40741; the ratio is 2 whatever is left out (SE 0)."""
    x = np.array([[1.0, 1.0, 0.5, 0.5], [1.0, 2.0, 1.0, 1.0], [1.0, 3.0, 0.5, 0.5]])
    theta, se, undefined = pair_jackknife(x, x * [1, 2, 1, 1], np.arange(3), [1])
    assert theta[1, 0] == pytest.approx(3.0) and theta[1, 1] == pytest.approx(np.log(2))
    assert se[1, 0] == pytest.approx(np.sqrt(2 / 3 * (1 / 9 + 2)), rel=1e-12)
    assert se[1, 1] == pytest.approx(0.0, abs=1e-12) and not undefined.any()


@pytest.mark.parametrize("clusters", [False, True])
def test_jackknife_matches_an_explicit_leave_one_out_loop(clusters: bool) -> None:
    xb, xc = _rows(1, 12)
    groups = np.arange(12) // 3 if clusters else np.arange(12)
    theta, se, undefined = pair_jackknife(xb, xc, groups, [2])
    want = np.stack(_figures(xb, xc, 2), axis=-1)
    np.testing.assert_allclose(theta[[0, 1, 2, 3]], want, rtol=1e-12)
    np.testing.assert_allclose(se, _loo_se(xb, xc, groups, 2), rtol=1e-10)
    assert not undefined.any()


def test_bootstrap_t_quantile_matches_the_exact_distribution() -> None:
    """T = 5: the studentised |θ* − θ̂| / SE*_J of all 5^5 equally likely resamples, each by
    the explicit loop, is the exact bootstrap distribution; the library's q (from 20,000
    random resamples) must lie between its quantiles at ci ∓ 4·√(ci(1 − ci)/B)."""
    t, ci, b = 5, 0.8, 20_000
    xb, xc = _rows(4, t)
    theta = np.stack(_figures(xb, xc, 2), axis=-1)
    se = _loo_se(xb, xc, np.arange(t), 2)
    stats = []
    for idx in itertools.product(range(t), repeat=t):
        rb, rc = xb[list(idx)], xc[list(idx)]
        th = np.stack(_figures(rb, rc, 2), axis=-1)
        s = _loo_se(rb, rc, np.arange(t), 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(th - theta) / s
        stats.append(np.where((th == theta) & (s == 0), 0.0, np.where(np.isnan(z), np.inf, z)))
    exact = np.stack(stats)
    lo, hi, undefined = pair_bootstrap_t(xb, xc, np.arange(t), [2], ci=ci, n_boot=b,
                                         rng=np.random.default_rng(0))  # fmt: skip
    assert not undefined.any()
    tol = 4 * np.sqrt(ci * (1 - ci) / b)
    for j in range(4):
        for d, (lo_j, hi_j) in enumerate(((lo[j, 0], hi[j, 0]),
                                          (np.log(lo[j, 1]), np.log(hi[j, 1])))):  # fmt: skip
            q_hi = (hi_j - theta[j, d]) / se[j, d]
            q_lo = (theta[j, d] - lo_j) / se[j, d]
            assert q_hi == pytest.approx(q_lo, rel=1e-9)  # symmetric on its scale
            a, z = np.quantile(exact[:, j, d], [ci - tol, ci + tol], method="inverted_cdf")
            assert a - 1e-9 <= q_hi <= z + 1e-9, (j, d, a, q_hi, z)
    # the ratio of pass^k per cost is the inverse of cost per all-k-pass's, ends swapped
    np.testing.assert_allclose(lo[3, 1], 1 / hi[2, 1], rtol=1e-12)


def test_a_unit_holding_every_all_k_pass_makes_it_unbounded() -> None:
    """Only task 0 has an all-2-pass for either system: without it pass^2 is 0 for both, so
    cost per all-2-pass is ∞ − ∞ and ∞ / ∞ and pass^2 per cost 0 / 0 (its difference 0 − 0 is
    defined): those intervals are unbounded and counted, not clipped. pass^2 per cost's
    difference is unbounded too, though defined everywhere: a third of the resamples lack
    task 0 and have no spread (SE* 0 with θ* ≠ θ̂), which cannot be studentised (∞). Cost per
    run keeps a finite interval."""
    n = np.full(4, 4.0)
    xb = _task_rows(n, np.array([4.0, 1, 1, 0]), np.array([1.0, 2, 3, 4]), [2])
    xc = _task_rows(n, np.array([4.0, 1, 0, 1]), np.array([2.0, 2, 5, 4]), [2])
    lo, hi, undefined = pair_bootstrap_t(xb, xc, np.arange(4), [2], ci=0.9, n_boot=200,
                                         rng=np.random.default_rng(0))  # fmt: skip
    _, _, loo = pair_jackknife(xb, xc, np.arange(4), [2])
    assert loo[2].tolist() == [1, 1] and loo[3].tolist() == [0, 1]  # without task 0
    for j, d in ((2, 0), (2, 1), (3, 1)):
        assert undefined[j, d] > 0 and lo[j, d] == -np.inf and hi[j, d] == np.inf
    assert undefined[3, 0] == 0 and lo[3, 0] == -np.inf and hi[3, 0] == np.inf
    assert np.isfinite(lo[0]).all() and np.isfinite(hi[0]).all() and undefined[0].sum() == 0


def _runs(tasks: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"system": s, "task_id": f"t{t}", "trial": r, "success": bool(rng.uniform() < p),
             "cost": float(rng.gamma(2.0, scale))}
            for s, p, scale in (("base", 0.6, 0.1), ("new", 0.7, 0.14))
            for t in range(tasks) for r in range(3)]  # fmt: skip
    return pd.DataFrame(rows)


def test_rule_switches_at_few_tasks_and_warns_below_few_for_differences() -> None:
    r = ph.compare_cost(ph.Trials.from_frame(_runs(FEW_TASKS)), k=1, n_boot=200)
    assert r.table["interval"].iloc[0] == f"percentile bootstrap over {FEW_TASKS} matched tasks"
    assert not any(n.startswith("few ") for n in r.all_notes())
    r = ph.compare_cost(ph.Trials.from_frame(_runs(FEW_TASKS - 1)), k=1, n_boot=200)
    rule = str(r.table["interval"].iloc[0])
    assert rule.startswith(f"symmetric bootstrap-t over {FEW_TASKS - 1} matched tasks (leave-one")
    assert "symmetric bootstrap-t" in r.method
    assert not any(n.startswith("few ") for n in r.all_notes())
    few = FEW_FOR_DIFFERENCES - 1
    r = ph.compare_cost(ph.Trials.from_frame(_runs(few)), k=1, n_boot=200)
    note = [n for n in r.all_notes() if n.startswith(f"few matched tasks (base vs new: {few})")]
    assert len(note) == 1 and "intervals of the differences" in note[0] and "study" in note[0]
    assert r.to_dict()["cost"][0]["interval"].startswith("symmetric bootstrap-t")
