"""What the two precision numbers of ``plan next`` are, and how they relate.

``plan next`` prints the interval's half-width now / after the batch / after even runs
(z standard errors: E[Var(estimate | p)] over each task's posterior, the spread over repeated
runs) and beside it the root-mean-square error the batch minimises (the expected distance of
the estimate from the true value *given the outcomes so far*). On the agents example they read
±0.0332 (SE 0.0169) and 0.0149: not a contradiction but two quantities.

Oracles: simulation with a known truth (the truths drawn from the stated prior's posterior
given the runs, the batch's runs drawn from them; tolerance 4 Monte Carlo standard errors);
the law of total expectation with scipy's Beta-Binomial pmf (exact).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

import passhat as ph
from passhat.planner.next_runs_result import NextRuns

_N = np.array([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4])
_C = np.array([4, 4, 4, 4, 4, 3, 3, 2, 1, 0, 0, 4])
_PRIOR = ph.plan.Assumptions(mean=0.7, kappa=1.2)
_K = 3


def _unbiased(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    out = np.ones(np.broadcast(n, c).shape)
    for j in range(k):
        out = out * np.clip((c - j) / (n - j), 0.0, None)
    return out


def _plan_and_batch(budget: int) -> tuple[NextRuns, np.ndarray]:
    data = ph.counts_from_arrays(_N, _C)
    t = ph.plan.next_runs(data, budget=budget, k=_K, prior=_PRIOR)
    tasks = [str(x) for x in ph.estimators.as_counts(data)["task"].values]
    extra = np.zeros(len(_N), dtype=np.int64)
    for task, m in zip(t.batch["task"], t.batch["extra_runs"], strict=True):
        extra[tasks.index(str(task))] = int(m)
    return t, extra


def test_the_rmse_is_the_realised_error_given_the_runs_and_the_width_the_sampling_spread() -> None:
    # Known truth: p_i ~ Beta(a + c_i, b + n_i − c_i) (the stated prior given the runs), the
    # batch's runs Binomial(x_i, p_i), the estimate the average unbiased pass^3 after them.
    res, extra = _plan_and_batch(budget=24)
    T, R = len(_N), 100_000
    uniform = np.full(T, 24 // T)
    rng = np.random.default_rng(20261202)
    p = rng.beta(_PRIOR.a + _C, _PRIOR.b + _N - _C, size=(R, T))
    truth = (p**_K).mean(axis=1)
    for name, x in (("now", np.zeros(T, dtype=np.int64)), ("after", extra), ("uniform", uniform)):
        new = rng.binomial(x, p)
        sq = (_unbiased(_N + x, _C + new, _K).mean(axis=1) - truth) ** 2
        mc = sq.std() / np.sqrt(R)
        assert getattr(res, f"squared_error_{name}") == pytest.approx(sq.mean(), abs=4 * mc), name
    # the width's variance: the spread of the estimate over fresh runs of the same tasks at a
    # fixed truth, averaged over the truths (E[Var(estimate | p)] over the posterior)
    pilots = rng.binomial(_N[None, None, :], p[:1000, None, :], size=(1000, 200, T))
    within = _unbiased(_N, pilots, _K).mean(axis=2).var(axis=1, ddof=1)
    mc = within.std() / np.sqrt(len(within))
    assert res.variance_now == pytest.approx(within.mean(), abs=4 * mc)
    z = float(special.ndtri(0.975))
    assert res.width_now / 2 == pytest.approx(z * np.sqrt(res.variance_now), rel=1e-12)


@pytest.mark.parametrize(("n", "k"), [(5, 2), (4, 4), (8, 3)])
def test_over_the_runs_a_prior_gives_the_two_agree_on_average(n: int, k: int) -> None:
    # For one task with c ~ BetaBinomial(n, a, b): E_c[E[(Û − p^k)² | c]] = E[(Û − p^k)²] =
    # E_p[Var(Û | p)] = E_c[E[Var(Û | p) | c]] (Û unbiased; law of total expectation). So the
    # squared RMSE and the squared standard error are the same number on average over the runs
    # the prior produces, and differ for one set of runs (where the RMSE conditions on them).
    pmf = stats.betabinom.pmf(np.arange(n + 1), n, _PRIOR.a, _PRIOR.b)
    err, var = np.zeros(n + 1), np.zeros(n + 1)
    for c in range(n + 1):
        t = ph.plan.next_runs(ph.counts_from_arrays([n], [c]), budget=1, k=k, prior=_PRIOR)
        err[c], var[c] = t.squared_error_now, t.variance_now
    assert pmf @ err == pytest.approx(pmf @ var, rel=1e-9)
    assert not np.allclose(err, var, rtol=1e-3)  # per set of runs they differ


def test_the_sentence_names_the_standard_error_and_the_rmse_as_different_numbers() -> None:
    # Regression: the agents example printed "±0.0332" and "root-mean-square error ... 0.0149"
    # with nothing saying that the first is 1.96 standard errors (0.0169) over repeated runs
    # and the second an error given the outcomes so far, so they read as contradictory.
    t = ph.plan.next_runs(ph.load_example("agents"), budget=100, k=5, system="baseline")
    se = np.sqrt(t.variance_now)
    rmse = [np.sqrt(getattr(t, f"squared_error_{w}")) for w in ("now", "after", "uniform")]
    assert f"±{t.width_now / 2:.4f}" in t.reasoning
    assert f"Those half-widths are 1.96 standard errors ({se:.4f} now)" in t.reasoning
    assert "the spread of the estimate over repeated runs of these tasks" in t.reasoning
    assert (
        "root-mean-square error given the outcomes so far (how far the estimate is expected to "
        "lie from the true pass^5 of these tasks under the fitted prior"
    ) in t.reasoning
    assert "{:.4f} now, {:.4f} after the batch, {:.4f} after even runs".format(*rmse) in (
        t.reasoning
    )
    # the numbers of the issue, and the relation the sentence states: here the RMSE is smaller
    assert (round(t.width_now / 2, 4), round(se, 4), round(rmse[0], 4)) == (
        0.0332,
        0.0169,
        0.0149,
    )


def test_more_runs_per_task_than_the_arithmetic_holds_is_refused_by_name() -> None:
    """Found by fuzzing: a task with 2^53 runs and one failure gave a RuntimeWarning and
    "--prior-mean must lie in (0, 1) (got nan)", an option the user never gave."""
    from passhat.planner.next_runs import MAX_RUNS_PER_TASK

    big = 2**53
    data = ph.counts_from_arrays([big, big], [big - 1, 5], tasks=["a", "b"])
    with pytest.raises(ph.InputError, match=r"task 'a': 9007199254740992 decided runs"):
        ph.plan.next_runs(data, budget=5)
    at_limit = ph.counts_from_arrays([MAX_RUNS_PER_TASK, 10], [MAX_RUNS_PER_TASK - 3, 5])
    assert ph.plan.next_runs(at_limit, budget=5, k=1) is not None  # the limit itself is planned
