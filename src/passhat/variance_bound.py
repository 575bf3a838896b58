"""A per-task variance estimate for the benchmark scope that needs no model, at any n.

For a task with n runs and s successes (failures, for pass@k) the unbiased estimator
U = C(s, k)/C(n, k) of θ(q) = q^k has Var(U | q) = E[U² | q] − q^{2k}. U² is itself an
unbiased estimate of E[U² | q] (a polynomial of degree ≤ n in q), but q^{2k} has an unbiased
estimate only when n ≥ 2k: C(s, 2k)/C(n, 2k), which gives the classical unbiased variance
estimate U² − C(s, 2k)/C(n, 2k).

Below 2k runs the estimate here replaces q^{2k} by a polynomial r of degree n with
r(q) ≤ q^{2k} on [0, 1], as large as possible (the largest ∫ r dq, by a small linear program
over r's n + 1 Bernstein coefficients b_0..b_n). The unbiased estimate of r(q) is b_s, so
V̂ = U² − b_s is an **unbiased estimate of an upper bound of the variance**:
E[V̂ | q] = Var(U | q) + (q^{2k} − r(q)) ≥ Var(U | q), for every q, whatever the distribution
of task rates — conservative and model-free. With at least two runs r(0) = 0 and r(1) = 1, so
a task with every run alike adds nothing, as where n ≥ 2k; with one run (k = 1) no line
through both ends lies below q², and the best line is the tangent at ½: V̂ = ¼ for every task
(the largest variance a single run can have). Where n ≥ 2k the coefficients are
C(s, 2k)/C(n, 2k) and V̂ is the classical unbiased estimate. The program runs on a grid, so
r is within about 10⁻³ of the optimum (its area), and it is then lowered until r ≤ q^{2k} holds
on a far finer grid (checked by the tests with a margin of 10⁻¹²): the bound is kept, at a
negligible cost in width. A task's V̂ can be negative (as the classical unbiased estimate's
can); sums over tasks stay unbiased for the sum of the bounds. (Asking b_s ≤ U_s² too makes every
V̂ ≥ 0 but the bound looser: measured and not taken, ``reports/bench_variance``.)

Examples
--------
>>> from passhat.variance_bound import square_minorant, bounded_variance_estimate
>>> (square_minorant(3, 2).round(3) + 0.0).tolist()  # r = −q² + 2q³ ≤ q⁴, Bernstein form
[0.0, 0.0, -0.333, 1.0]
>>> bounded_variance_estimate([3, 3, 4], [2, 3, 2], k=2).round(3).tolist()  # (1/3)² + 1/3, 0, …
[0.444, 0.0, 0.028]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.estimators import pass_hat_k, subset_ratio

__all__ = ["bounded_variance_estimate", "square_minorant"]

#: Points of [0, 1] where the linear program first asks r ≤ q^{2k} (denser near the ends,
#: where q^{2k} is flat or steep), and the finer grid on which the result is checked: its
#: local excesses are added to the program (twice) and then refined and removed by lowering r.
_GRID = 201
_CHECK = 4001
_LP = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _bernstein(n: int, q: NDArray[np.float64]) -> NDArray[np.float64]:
    """(len(q), n + 1): the Bernstein basis polynomials of degree n at q."""
    from scipy import special

    c = np.arange(n + 1, dtype=float)
    logc = special.gammaln(n + 1) - special.gammaln(c + 1) - special.gammaln(n - c + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.exp(logc + special.xlogy(c, q[:, None]) + special.xlog1py(n - c, -q[:, None]))
    return np.asarray(out, dtype=float)


def _excess(n: int, k: int, b: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """r(q) − q^{2k}, scaled by the lowering shape (1 − q^n − (1 − q)^n; 1 for n = 1)."""
    inner = 1.0 - q**n - (1.0 - q) ** n if n >= 2 else np.ones_like(q)
    return np.asarray((_bernstein(n, q) @ b - q ** (2 * k)) / inner, dtype=float)


def _peaks(n: int, k: int, b: NDArray[np.float64]) -> NDArray[np.float64]:
    """The local maxima of :func:`_excess` on the check grid, each refined on a grid 50
    times finer around it."""
    q = np.linspace(0.0, 1.0, _CHECK)[1:-1]
    e = _excess(n, k, b, q)
    i = np.flatnonzero((e >= np.roll(e, 1)) & (e >= np.roll(e, -1)))
    h = 1.0 / (_CHECK - 1)
    fine = (q[i][:, None] + np.linspace(-h, h, 101)[None, :]).ravel()
    return np.asarray(fine[(fine > 0.0) & (fine < 1.0)], dtype=float)


def _solve(n: int, k: int, nonneg: bool = False) -> NDArray[np.float64]:
    """The linear program: the largest Σ b_c with Σ b_c B_c(q) ≤ q^{2k} at the grid points
    (b_0 = 0 and b_n = 1 when n ≥ 2; with ``nonneg`` b_c ≤ U_c², so that no task's estimate
    is negative), the check grid's worst points added twice."""
    from scipy.optimize import linprog

    u = np.linspace(0.0, 1.0, _GRID)
    q = np.unique(np.concatenate([u, u**3, 1 - u**3]))[1:-1]
    bounds: list[tuple[float | None, float | None]] = [(None, None)] * (n + 1)
    if nonneg:
        u2 = pass_hat_k(np.full(n + 1, n), np.arange(n + 1), k) ** 2
        bounds = [(None, float(x)) for x in u2]
    if n >= 2:
        bounds[0], bounds[n] = (0.0, 0.0), (1.0, 1.0)
    for _ in range(2):
        res = linprog(-np.ones(n + 1), A_ub=_bernstein(n, q), b_ub=q ** (2 * k), bounds=bounds,
                      method="highs", options=_LP)  # fmt: skip
        if res.status != 0:  # pragma: no cover - feasible for every n ≥ 1
            raise RuntimeError(f"variance bound: no minorant for n = {n}, k = {k}: {res.message}")
        b = np.asarray(res.x, dtype=float)
        fine = _peaks(n, k, b)
        e = _excess(n, k, b, fine)
        q = np.unique(np.concatenate([q, fine[e > 0][np.argsort(-e[e > 0])[:50]]]))
    return b


@lru_cache(maxsize=256)
def _coefficients(n: int, k: int, nonneg: bool = False) -> tuple[float, ...]:
    if n >= 2 * k:  # q^{2k} itself: its unbiased estimate C(s, 2k)/C(n, 2k)
        s = np.arange(n + 1, dtype=float)
        return tuple(subset_ratio(s, np.full(n + 1, float(n)), 2 * k).tolist())
    b = _solve(n, k, nonneg)
    # the program holds r ≤ q^{2k} at its points only, within the solver's tolerance: lower
    # the inner coefficients by ε (r − ε · (1 − q^n − (1 − q)^n) keeps both ends; all of them
    # for n = 1) by the largest excess found, with a margin
    ends = 10.0 ** -np.arange(1.0, 13.0, 0.25)  # near the ends the ratio tends to a limit
    q = np.concatenate([_peaks(n, k, b), ends, 1.0 - ends])
    eps = max(0.0, float(np.max(_excess(n, k, b, q)))) * 1.01 + 1e-13
    if n >= 2:
        b[1:-1] -= eps
    else:
        b -= eps
    return tuple(b.tolist())


def square_minorant(n: int, k: int) -> NDArray[np.float64]:
    """Bernstein coefficients (degree n) of the largest-area polynomial r ≤ q^{2k} on [0, 1].

    Where n ≥ 2k it is q^{2k} itself (coefficients C(c, 2k)/C(n, 2k)). Computed once per
    (n, k).

    Examples
    --------
    >>> from passhat.variance_bound import square_minorant
    >>> square_minorant(1, 1).round(2).tolist()   # about the tangent of q² at ½: q − ¼
    [-0.25, 0.75]
    >>> square_minorant(4, 2).round(6).tolist()   # q⁴ itself: C(c, 4)/C(4, 4)
    [0.0, 0.0, 0.0, 0.0, 1.0]
    """
    if int(n) < 1 or int(k) < 1 or int(k) > int(n):
        raise ValueError(f"square_minorant needs 1 ≤ k ≤ n (got n = {n}, k = {k})")
    return np.array(_coefficients(int(n), int(k)))


def bounded_variance_estimate(n: ArrayLike, s: ArrayLike, k: int) -> NDArray[np.float64]:
    """Per task, U² − b_s: unbiased for Var(U | q) where n ≥ 2k, for an upper bound below.

    ``s`` counts the successes of pass^k (and the mean, k = 1) or the failures of pass@k; each
    task uses its own n. A single value can be negative by chance (sums stay unbiased).

    Examples
    --------
    >>> from passhat.variance_bound import bounded_variance_estimate
    >>> bounded_variance_estimate([10, 1, 1], [5, 0, 1], k=1).round(2).tolist()
    [0.03, 0.25, 0.25]
    """
    n_a = np.asarray(n, dtype=np.int64).ravel()
    s_a = np.asarray(s, dtype=np.int64).ravel()
    kk = int(k)
    u = np.asarray(pass_hat_k(n_a, s_a, kk), dtype=float)
    b = np.empty(n_a.shape)
    for m in np.unique(n_a):  # one table per distinct n, looked up for all its tasks at once
        at = n_a == m
        b[at] = square_minorant(int(m), kk)[s_a[at]]
    return u * u - b
