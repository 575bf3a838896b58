"""The closed forms and the greedy allocation behind :func:`passhat.plan.next_runs`.

For a task with rate p and n runs, the unbiased pass^k estimator (a
U-statistic of degree k) has variance

    Var(ĥ_n | p) = Σ_{j=1..k} h_j(n) (p^{2k−j} − p^{2k}),
    h_j(n) = C(k,j) C(n−k,k−j) / C(n,k)

(:func:`passhat.estimators.pass_hat_k_variance`). Under the posterior of the
task's rate, p ~ Beta(a, b), its expectation is the same sum with the Beta raw
moments E[p^r] = B(a + r, b) / B(a, b) in place of the powers
(:func:`expected_variance`): the expected squared error of that task's
estimate after n runs, given what its runs so far say. pass@k is pass^k of
the failure rate (a and b swapped), the mean is k = 1.

That variance is the error before any run is made. After a pilot, the runs
already made fix part of each estimate, and the error of the estimate after
x more runs, given them, has a bias as well (:func:`expected_error`, exact
finite sums): an all-pass task's estimate of 1 is too high whenever its rate
is below 1, a 2-of-3 task's pass^3 estimate of 0 too low; new runs dilute
both. The estimate is the average of the tasks' estimates, so the quantity a
batch should lower is the expected squared error of the average,

    E[(Σ_i e_i)²] = Σ_i Var(e_i) + (Σ_i bias_i)²      (:func:`objective`),

which is not a sum over tasks: running only the flaky tasks corrects their
(negative) errors and leaves the all-pass tasks' (positive) ones in the
average — the selection bias of adaptive designs. Ignoring the second term
made the "adaptive" batch worse than uniform runs in simulation (near-all-
pass truths: 0.6× the uniform batch's accuracy); with it the batch beats
uniform runs (studies/next_runs).

:func:`greedy` minimises it step by step: each step moves tasks of one group
(tasks with the same runs and successes share their tables) up by h ≤ 4 runs,
the move with the largest reduction per run. The objective is neither
separable nor convex in each task's runs (one failure of an all-pass task
first raises its squared error), so greedy is not guaranteed optimal; the
tests compare it with brute force over every allocation on small cases (the
gap is reported there).

References
----------
.. [1] Ibaraki, T. and Katoh, N. (1988). *Resource Allocation Problems:
   Algorithmic Approaches*. MIT Press (greedy allocation; optimal for
   separable convex objectives, a heuristic otherwise).

Examples
--------
>>> import numpy as np
>>> from passhat.planner.allocate import expected_variance
>>> v = expected_variance(np.array([5.0, 10.0]), np.array([3.0]), np.array([2.0]), k=1,
...                       metric="mean")
>>> bool(v[0] > v[1] > 0)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.estimators import subset_overlap_weights
from passhat.planner.assumptions import Assumptions

__all__ = [
    "HYPER_POINTS",
    "between_variance",
    "expected_error",
    "expected_variance",
    "flat_prior",
    "greedy",
    "hyper_points",
    "objective",
    "per_task",
    "prior_agreement",
]

#: Cells (groups × levels × new successes) evaluated at once by :func:`expected_mse`.
_CHUNK_CELLS = 2_000_000


def _raw_moment(a: Any, b: Any, r: Any) -> NDArray[np.float64]:
    """E[p^r] for p ~ Beta(a, b)."""
    return np.asarray(np.exp(special.betaln(a + r, b) - special.betaln(a, b)))


def _order(metric: str, k: int) -> int:
    return 1 if metric == "mean" else int(k)


def expected_variance(
    n: NDArray[Any], a: NDArray[Any], b: NDArray[Any], *, k: int, metric: str
) -> NDArray[np.float64]:
    """E over p ~ Beta(a, b) of the unbiased estimator's variance with n runs (n ≥ k).

    ``n``, ``a`` and ``b`` broadcast together (e.g. n of shape (G, M) with a,
    b of shape (G, 1)).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.allocate import expected_variance
    >>> # k = 1: E[p(1−p)]/n = ab/((a+b)(a+b+1))/n
    >>> float(expected_variance(np.array(4.0), np.array(1.0), np.array(1.0), k=1,
    ...                         metric="pass_hat_k"))
    0.041666666666666664
    """
    kk = _order(metric, k)
    if metric == "pass_at_k":
        a, b = b, a
    a_arr = np.asarray(a, dtype=float)[..., None]
    b_arr = np.asarray(b, dtype=float)[..., None]
    h = subset_overlap_weights(np.asarray(n, dtype=float), kk)
    j = np.arange(1, kk + 1, dtype=float)
    terms = _raw_moment(a_arr, b_arr, 2 * kk - j) - _raw_moment(a_arr, b_arr, 2.0 * kk)
    return np.maximum((h * terms).sum(axis=-1), 0.0)


def _log_comb(a: Any, b: Any) -> NDArray[np.float64]:
    return np.asarray(
        special.gammaln(a + 1.0) - special.gammaln(b + 1.0) - special.gammaln(a - b + 1.0)
    )


def expected_error(
    n: NDArray[Any],
    c: NDArray[Any],
    a: NDArray[Any],
    b: NDArray[Any],
    more: NDArray[Any],
    *,
    k: int,
    metric: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Expected squared error and bias of a task's estimate after ``more`` runs, given its runs.

    For a task with c successes in n runs and rate posterior p ~ Beta(a, b)
    (a, b already include the n runs), x more runs give C' ~ BetaBinomial(x,
    a, b) new successes and the unbiased estimate ĥ = C(c + C', k) / C(n + x,
    k) of f(p) = p^k. Its expected squared error given the runs so far is

        E[(ĥ − p^k)²] = Σ_{c'} ĥ(c')² P(c') − 2 Σ_{c'} ĥ(c') E[p^k 1{C'=c'}] + E[p^{2k}],

    with P(c') = C(x, c') B(a + c', b + x − c') / B(a, b) and
    E[p^k 1{C'=c'}] = C(x, c') B(a + c' + k, b + x − c') / B(a, b): a finite
    sum, exact; the bias E[ĥ] − E[p^k] likewise. Unlike the estimator's
    unconditional variance they count the error the runs already made carry
    (an all-pass task's estimate of 1 is too high if its rate is below 1),
    which new runs dilute. pass@k is pass^k of the failures (same squared
    error, opposite bias); the mean is k = 1.

    Parameters
    ----------
    n, c, a, b : ndarray
        (G,) per task (or group of identical tasks).
    more : ndarray
        (L,) numbers of more runs; n + more ≥ k.

    Returns
    -------
    mse, bias : ndarray
        (G, L): E[(ĥ − f(p))²] and E[ĥ − f(p)] given the runs so far.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.allocate import expected_error
    >>> # no runs yet, uniform prior, one run: E[(X − p)²] = E[p(1 − p)] = 1/6, no bias
    >>> mse, bias = expected_error(np.array([0]), np.array([0]), np.array([1.0]),
    ...                            np.array([1.0]), np.array([1]), k=1, metric="mean")
    >>> round(float(mse[0, 0]), 6), round(float(bias[0, 0]), 12)
    (0.166667, 0.0)
    """
    kk = 1 if metric == "mean" else int(k)
    n = np.asarray(n, dtype=float)
    c = np.asarray(c, dtype=float)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if metric == "pass_at_k":
        c, a, b = n - c, b, a
    x = np.asarray(more, dtype=float)
    G, L = len(n), len(x)
    out = np.empty((G, L))
    bias = np.empty((G, L))
    width = int(x.max()) + 1 if L else 1
    cp = np.arange(width, dtype=float)
    ok = cp[None, :] <= x[:, None]  # (L, W): c' ≤ x new successes
    # Every log-Gamma is a function of one of (group, c'), (group, x − c') or (group, x):
    # tabulate those (G × W and G × L values) and gather, instead of evaluating log-Gamma on
    # each of the G × L × W cells (the cost of a batch at hundreds of runs per task).
    logc = np.where(ok, _log_comb(x[:, None], np.where(ok, cp[None, :], 0.0)), -np.inf)
    miss = np.clip(x[:, None] - cp[None, :], 0, width - 1).astype(np.int64)  # x − c' (L, W)
    step = max(1, _CHUNK_CELLS // max(1, L * width))
    for lo in range(0, G, step):  # chunks of groups, to bound memory
        sl = slice(lo, lo + step)
        aa, bb, nn, cc = a[sl, None], b[sl, None], n[sl, None], c[sl, None]
        base = special.betaln(aa, bb)  # (g, 1)
        ga = special.gammaln(aa + cp)  # (g, W): log Γ(a + c')
        gak = special.gammaln(aa + cp + kk)  # log Γ(a + c' + k)
        gb = special.gammaln(bb + cp)  # log Γ(b + d), d = x − c'
        gab = special.gammaln(aa + bb + x)  # (g, L): log Γ(a + b + x)
        gabk = special.gammaln(aa + bb + x + kk)
        # P(C' = c') and E[p^k 1{C' = c'}], (g, L, W)
        logp = logc + ga[:, None, :] + gb[:, miss] - (gab + base)[:, :, None]
        pmf = np.exp(logp)
        pk = pmf * np.exp((gak - ga)[:, None, :] - (gabk - gab)[:, :, None])
        # the estimate after x more runs: C(c + c', k) / C(n + x, k) (0 when c + c' < k)
        succ = cc + cp  # (g, W)
        has = succ >= kk
        top = np.where(has, _log_comb(succ, np.full_like(succ, kk)), -np.inf)
        runs = nn + x  # (g, L); with fewer than k runs there is no estimate (h = 0)
        bottom = np.where(
            runs >= kk, _log_comb(np.maximum(runs, kk), np.full_like(runs, kk)), np.inf
        )
        h = np.exp(np.where(ok, top[:, None, :] - bottom[:, :, None], -np.inf))
        e_h2 = (pmf * h * h).sum(axis=-1)
        e_h = (pmf * h).sum(axis=-1)
        e_hp = (pk * h).sum(axis=-1)
        e_pk = np.exp(special.betaln(aa[:, 0] + kk, bb[:, 0]) - base[:, 0])[:, None]
        e_p2k = np.exp(special.betaln(aa[:, 0] + 2 * kk, bb[:, 0]) - base[:, 0])[:, None]
        out[sl] = e_h2 - 2 * e_hp + e_p2k
        bias[sl] = e_h - e_pk
    # pass@k = 1 − (pass^k of the failures): the same squared error, the opposite bias
    return np.maximum(out, 0.0), (-bias if metric == "pass_at_k" else bias)


def between_variance(a: float, b: float, *, k: int, metric: str) -> float:
    """Var of the task's true value f(p) over p ~ Beta(a, b): the population floor per task.

    Examples
    --------
    >>> from passhat.planner.allocate import between_variance
    >>> round(between_variance(1.0, 1.0, k=1, metric="mean"), 4)   # uniform: 1/12
    0.0833
    """
    kk = _order(metric, k)
    if metric == "pass_at_k":
        a, b = b, a
    m1 = float(_raw_moment(a, b, float(kk)))
    m2 = float(_raw_moment(a, b, 2.0 * kk))
    return max(m2 - m1 * m1, 0.0)


def objective(
    mse: NDArray[np.float64], bias: NDArray[np.float64], group: NDArray[Any], more: NDArray[Any]
) -> float:
    """T² × the expected squared error of the average estimate: Σ Var_i + (Σ bias_i)².

    Given the runs so far, task i's error e_i = ĥ_i − f(p_i) after ``more[i]``
    runs has mean bias_i and variance mse_i − bias_i²; the tasks' errors are
    independent given the prior, so E[(Σ e_i)²] = Σ (mse_i − bias_i²) + (Σ bias_i)².

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.allocate import objective
    >>> objective(np.array([[0.5, 0.2]]), np.array([[0.5, 0.0]]), np.array([0, 0]),
    ...           np.array([0, 1]))   # (0.25 + 0.2) + 0.5²
    0.7
    """
    m = mse[group, more]
    b = bias[group, more]
    return float((m - b * b).sum() + b.sum() ** 2)


def greedy(
    mse: NDArray[np.float64],
    bias: NDArray[np.float64],
    mult: NDArray[Any],
    *,
    start: NDArray[Any],
    room: NDArray[Any],
    budget: int,
    weights: NDArray[Any] | None = None,
    lookahead: int = 4,
    max_steps: int = 2000,
) -> tuple[NDArray[np.int64], int]:
    """Greedy runs for groups of identical tasks, minimising :func:`objective`.

    Each step moves tasks of one group from a level l (more runs) to l + h,
    h ≤ ``lookahead``, choosing the move with the largest reduction of the
    objective per run (the look-ahead steps over points where one more run
    alone would not help, e.g. the first failure of an all-pass task). The
    bias term couples the tasks: running only the flaky tasks corrects their
    errors and leaves the all-pass tasks' errors, all of one sign, in the
    average; the objective weighs that. Steps stop when the budget is spent
    or no move lowers the objective. Loops over steps (at most about
    ``max_steps``: large budgets move several tasks per step), never over
    tasks.

    Parameters
    ----------
    mse, bias : ndarray
        (G, L) from :func:`expected_error` at more = 0..L−1, or (P, G, L):
        one table per value of the prior's (μ, κ), averaged with ``weights``
        (the objective is then the posterior expectation over (μ, κ)).
    mult : ndarray
        (G,) tasks per group.
    start : ndarray
        (G,) runs every task of the group has already been given.
    room : ndarray
        (G,) most further runs one task may get.
    budget : int

    Returns
    -------
    counts : ndarray
        (G, L) tasks of each group at each level.
    spent : int

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.allocate import greedy
    >>> mse = np.array([[0.4, 0.2, 0.1], [0.1, 0.09, 0.08]])
    >>> counts, spent = greedy(mse, np.zeros_like(mse), np.array([1, 1]),
    ...                        start=np.array([0, 0]), room=np.array([2, 2]), budget=2)
    >>> counts.tolist(), spent
    ([[0, 0, 1], [1, 0, 0]], 2)
    """
    mse3 = mse if mse.ndim == 3 else mse[None]
    bias3 = bias if bias.ndim == 3 else bias[None]
    P, G, L = mse3.shape
    wts = np.full(P, 1.0 / P) if weights is None else np.asarray(weights, dtype=float)
    H = max(1, min(int(lookahead), L - 1))
    start = np.asarray(start, dtype=np.int64)
    top = np.minimum(start + np.asarray(room, dtype=np.int64), L - 1)
    counts = np.zeros((G, L), dtype=np.int64)
    counts[np.arange(G), start] = np.asarray(mult, dtype=np.int64)
    S = (np.asarray(mult)[None, :] * bias3[:, np.arange(G), start]).sum(axis=1)  # (P,)
    W = mse3 - bias3 * bias3
    lev = np.arange(L)
    hs = np.arange(1, H + 1)
    to = np.minimum(lev[None, :] + hs[:, None], L - 1)  # (H, L)
    dW = W[:, :, to] - W[:, :, None, :]  # (P, G, H, L)
    dB = bias3[:, :, to] - bias3[:, :, None, :]
    # the objective's change per move, split so that only the S-dependent part is recomputed
    fixed = np.einsum("p,pghl->ghl", wts, dW + dB * dB)
    valid = (lev[None, None, :] + hs[None, :, None]) <= top[:, None, None]  # (G, H, L)
    left = int(budget)
    chunk = max(1, left // max_steps)
    # Only (group, level) cells that hold tasks can move: each step scores those (at most one
    # per task, usually a few per group), not all G × L cells of the tables.
    fixed_gl, valid_gl = fixed.transpose(0, 2, 1), valid.transpose(0, 2, 1)  # (G, L, H)
    dB_gl = dB.transpose(0, 1, 3, 2)  # (P, G, L, H)
    while left > 0:
        gi, li = np.nonzero(counts)
        ok = valid_gl[gi, li] & (hs[None, :] <= left)  # (A, H)
        if not ok.any():
            break
        delta = fixed_gl[gi, li] + 2 * np.einsum("p,pah->ah", wts * S, dB_gl[:, gi, li])
        per_run = np.where(ok, -delta / hs[None, :], -np.inf)
        top_val = per_run.max()
        if not top_val > 0:
            break
        # ties go to the first move in (group, step, level) order, as a scan of the full table
        at, hh = np.nonzero(per_run == top_val)
        first = int(np.argmin((gi[at] * H + hh) * L + li[at]))
        g, h0, lv = int(gi[at[first]]), int(hh[first]), int(li[at[first]])
        h = h0 + 1
        r = int(min(counts[g, lv], max(1, chunk // h), left // h))
        counts[g, lv] -= r
        counts[g, lv + h] += r
        S = S + r * dB[:, g, h0, lv]
        left -= r * h
    return counts, int(budget) - left


def per_task(
    counts: NDArray[np.int64], group: NDArray[Any], rank: NDArray[Any]
) -> NDArray[np.int64]:
    """Runs per task from :func:`greedy`'s counts: within a group, the first tasks get the most.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.allocate import per_task
    >>> per_task(np.array([[1, 0, 2]]), np.array([0, 0, 0]), np.array([0, 1, 2])).tolist()
    [2, 2, 0]
    """
    G, L = counts.shape
    levels = np.repeat(np.tile(np.arange(L)[::-1], G), counts[:, ::-1].ravel())
    first = np.cumsum(counts.sum(axis=1)) - counts.sum(axis=1)
    return levels[first[group] + rank].astype(np.int64)


#: Points of the (μ, κ) posterior the allocation averages over.
HYPER_POINTS = 16


def hyper_points(
    n: NDArray[np.int64], c: NDArray[np.int64], system: str
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]], Assumptions]:
    """Points of the posterior of the Beta prior's (μ, κ), and its mean as one Assumptions.

    The Beta-Binomial likelihood (compressed over distinct (n, c)) on a grid
    of logit μ × log κ with a flat prior there; :data:`HYPER_POINTS` points
    at evenly spaced quantiles of the sorted grid mass represent it. Averaging
    the allocation's objective over them keeps it from trusting one fitted μ:
    near pass rates of 1 a small error in μ changes which errors the runs so
    far carry.
    """
    pairs, mult = np.unique(  # row-wise: n × (c + 1) as one integer overflows for n near 2^32
        np.stack([np.asarray(n, np.int64), np.asarray(c, np.int64)], axis=1),
        axis=0,
        return_counts=True,
    )
    nn, cc = pairs[:, 0].astype(float), pairs[:, 1].astype(float)
    pbar = (c.sum() + 0.5) / (n.sum() + 1.0)
    centre = float(special.logit(pbar))
    lm = centre + np.linspace(-3.0, 3.0, 61)
    lk = np.linspace(-3.0, 9.0, 49)
    mu = special.expit(lm)[:, None, None]
    kap = np.exp(lk)[None, :, None]
    a, b = mu * kap, (1 - mu) * kap
    ll = (mult * (special.betaln(cc + a, nn - cc + b) - special.betaln(a, b))).sum(axis=-1)
    w = np.exp(ll - ll.max()).ravel()
    w /= w.sum()
    order = np.argsort(-w, kind="stable")
    cum = np.cumsum(w[order])
    at = np.searchsorted(cum, (np.arange(HYPER_POINTS) + 0.5) / HYPER_POINTS)
    pick = order[np.minimum(at, len(order) - 1)]
    ga = np.broadcast_to(a[..., 0], (len(lm), len(lk))).ravel()[pick]
    gb = np.broadcast_to(b[..., 0], (len(lm), len(lk))).ravel()[pick]
    mean_mu = float((w * np.broadcast_to(mu[..., 0], (len(lm), len(lk))).ravel()).sum())
    mean_lk = float((w * np.broadcast_to(lk[None, :], (len(lm), len(lk))).ravel()).sum())
    point = Assumptions(
        mean=mean_mu,
        kappa=float(np.exp(mean_lk)),
        source=(
            f"the Beta-Binomial posterior of (μ, κ) on a grid ({HYPER_POINTS} points), "
            f"{len(n)} tasks of {system!r}"
        ),
    )
    return (ga, gb, np.full(HYPER_POINTS, 1.0 / HYPER_POINTS)), point


def flat_prior(n: np.ndarray, c: np.ndarray) -> Assumptions:
    """A prior for data without a flaky task, where the Beta-Binomial fit may not exist."""
    mean = float(np.clip((c.sum() + 0.5) / (n.sum() + 1.0), 1e-3, 1 - 1e-3))
    return Assumptions(mean=mean, kappa=2.0, source="a weak Beta prior (no flaky task to fit)")


def prior_agreement(n: np.ndarray, c: np.ndarray, prior: Assumptions) -> dict[str, float]:
    """How far these runs' successes lie from what a stated prior expects: a z score.

    Under p_i ~ Beta(μκ, (1−μ)κ) and c_i | p_i ~ Binomial(n_i, p_i), c_i is
    Beta-Binomial with mean n_i μ and variance n_i μ(1−μ)(1 + (n_i − 1)/(κ + 1)),
    independent over tasks, so z = (Σ c_i − μ Σ n_i) / √(Σ var_i) is about
    standard normal when the prior is right (the mean only: a wrong κ at the
    right μ goes unseen).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner import Assumptions
    >>> from passhat.planner.allocate import prior_agreement
    >>> n, c = np.full(50, 3), np.full(50, 3)
    >>> round(prior_agreement(n, c, Assumptions(mean=0.8, kappa=5.0))["z"], 1)
    5.3
    """
    mu, kappa = prior.mean, float(prior.kappa)  # type: ignore[arg-type]
    nn = np.asarray(n, dtype=float)
    var = nn * mu * (1 - mu) * (1 + (nn - 1) / (kappa + 1))
    total = float(nn.sum())
    z = (float(np.sum(c)) - mu * total) / float(np.sqrt(var.sum())) if total > 0 else 0.0
    return {"z": z, "mean_here": float(np.sum(c)) / total if total else float("nan"), "mu": mu}
