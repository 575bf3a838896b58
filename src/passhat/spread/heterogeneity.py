"""Is there any spread of task success rates? Tarone's score test for Beta-Binomial overdispersion.

If every task shared one success rate and runs were independent, each task's
successes would be Binomial(n_i, p) with a common p, and pass^k would be
p^k = mean^k (up to noise). Any spread of the task rates, however small,
makes E[p^k] > (E p)^k (Jensen), so "pass^k lies above mean^k" is the same
claim as "the task rates differ". This module tests it.

Tarone's statistic [1]_ is the score test of the Binomial against the
Beta-Binomial (H0: no overdispersion, ICC = 0):

    Z = [Σ (c_i − n_i p̂)² / (p̂ (1 − p̂)) − Σ n_i] / √(2 Σ n_i (n_i − 1)),

with p̂ = Σ c_i / Σ n_i, large when tasks' success counts vary more than a
common rate allows. Its asymptotic N(0, 1) reference is liberal on small
or lopsided data (with T = 2,000 tasks × 2 runs at p = 0.99, 11% of
homogeneous replicates rejected at 5%), so the p-value is computed by
Monte Carlo instead:

* **permutation** (exact, the default while T × draws ≤ 4·10⁶): given the
  total number of successes S, under H0 every assignment of the S
  successes to the Σ n_i runs is equally likely, so the task counts are
  multivariate hypergeometric. p = (1 + #{Z* ≥ Z}) / (1 + B) is then a
  valid p-value for any number of draws B (size ≤ α exactly).
* **parametric** (larger T): c_i* ~ Binomial(n_i, p̂), drawn per distinct
  n as a multinomial over c = 0..n, so a draw costs the distinct n values,
  not the tasks. Its only approximation is the plug-in p̂, negligible at
  thousands of tasks.

Examples
--------
>>> from passhat.spread import heterogeneity_test
>>> t = heterogeneity_test([5] * 20, [5] * 10 + [0] * 10, n_draws=500, seed=0)
>>> t.kind, t.p_value < 0.01   # half always pass, half always fail
('permutation', True)

References
----------
.. [1] Tarone, R. E. (1979). Testing the goodness of fit of the binomial
   distribution. *Biometrika*, 66(3), 585–590.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._frames import number_array
from passhat._validate import MAX_N_BOOT, check_method, make_rng
from passhat.errors import CountError, OptionError, ValidationError

__all__ = ["TEST_METHODS", "HeterogeneityTest", "heterogeneity_test"]

#: Ways to compute the p-value ("auto" picks permutation or parametric by size).
TEST_METHODS = ("auto", "permutation", "parametric", "normal")

#: Largest tasks × draws for which "auto" runs the exact permutation test.
_PERMUTATION_CELLS = 4_000_000
#: Largest number of cells drawn at once (memory bound).
_CHUNK_CELLS = 4_000_000
#: numpy's multivariate hypergeometric ("marginals") draws from fewer than 10^9 items.
_MAX_PERMUTED_RUNS = 10**9
#: Above this n the parametric null draws per task instead of a table over c = 0..n.
_WIDE_N = 10_000


@dataclass(frozen=True)
class HeterogeneityTest:
    """Result of :func:`heterogeneity_test`.

    Attributes
    ----------
    statistic : float
        Tarone's Z (NaN when the test is not defined).
    p_value : float
        One-sided p-value (large Z: more spread than a common rate gives);
        1.0 when the data cannot show any spread.
    method : str
        How the p-value was computed, in words.
    kind : str
        "permutation", "parametric", "normal", or "none" (not tested).
    tasks, runs : int
        Tasks and decided runs tested (tasks with n = 0 are left out).
    rate : float
        Pooled success rate Σ c / Σ n.
    draws : int
        Monte Carlo draws (0 for the normal approximation or no test).
    testable : bool
        False when no spread can show: every run passed, every run failed,
        or no task has two runs. ``reason`` says which.
    reason : str
    """

    statistic: float
    p_value: float
    method: str
    tasks: int
    runs: int
    rate: float
    draws: int
    testable: bool
    reason: str = ""
    kind: str = "none"

    def rejects(self, alpha: float) -> bool:
        """Whether the test rejects "one common rate, independent runs" at level ``alpha``."""
        return bool(self.testable and self.p_value <= alpha)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return asdict(self)


def _sum_sq(x: NDArray[np.float64], n: NDArray[np.float64], p: NDArray[np.float64]) -> Any:
    """Σ_i (x_i − n_i p)² along the last axis, for p per row."""
    return ((x - n * p[..., None]) ** 2).sum(axis=-1)


def _z(ss: Any, p: Any, total: float, pairs: float) -> Any:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ss / (p * (1.0 - p)) - total) / math.sqrt(2.0 * pairs)


def _permutation(
    n: NDArray[np.int64], s: int, b: int, rng: np.random.Generator, total: float, pairs: float
) -> NDArray[np.float64]:
    """Z under H0 given S: the S successes spread over the runs at random."""
    p = np.full(1, s / total)
    out = np.empty(b)
    chunk = max(1, min(b, _CHUNK_CELLS // max(n.size, 1)))
    nf = n.astype(float)
    for start in range(0, b, chunk):
        m = min(chunk, b - start)
        x = rng.multivariate_hypergeometric(n, s, size=m, method="marginals").astype(float)
        out[start : start + m] = _z(_sum_sq(x, nf, np.repeat(p, m)), p[0], total, pairs)
    return out


def _parametric(
    n: NDArray[np.int64], rate: float, b: int, rng: np.random.Generator, total: float, pairs: float
) -> NDArray[np.float64]:
    """Z under c_i ~ Binomial(n_i, p̂), drawn per distinct n as multinomial counts over c = 0..n."""
    vals, mult = np.unique(n, return_counts=True)
    sum_n2 = float(np.sum(n.astype(float) ** 2))
    out = np.empty(b)
    width = int(vals.max()) + 1
    if width > _WIDE_N:  # huge n: draw each task's successes, not a table over c = 0..n
        return _parametric_per_task(n, rate, b, rng, total, pairs)
    chunk = max(1, min(b, _CHUNK_CELLS // width))
    for start in range(0, b, chunk):
        m = min(chunk, b - start)
        s1 = np.zeros(m)  # Σ c
        s2 = np.zeros(m)  # Σ c²
        sn = np.zeros(m)  # Σ n c
        for nv, mv in zip(vals, mult, strict=True):  # over distinct n, not over tasks
            cs = np.arange(int(nv) + 1, dtype=float)
            counts = rng.multinomial(int(mv), stats.binom.pmf(cs, int(nv), rate), size=m)
            sc = counts @ cs
            s1 += sc
            s2 += counts @ cs**2
            sn += float(nv) * sc
        ps = s1 / total
        ss = s2 - 2.0 * ps * sn + ps**2 * sum_n2
        z = _z(ss, ps, total, pairs)
        out[start : start + m] = np.where((ps > 0) & (ps < 1), z, -np.inf)
    return out


def _parametric_per_task(
    n: NDArray[np.int64], rate: float, b: int, rng: np.random.Generator, total: float, pairs: float
) -> NDArray[np.float64]:
    """:func:`_parametric` for tasks with huge n (up to 2^53 runs): c_i ~ Binomial(n_i, p̂) drawn
    per task, in chunks of draws (memory by tasks, whatever n is)."""
    nf = n.astype(float)
    out = np.empty(b)
    chunk = max(1, min(b, _CHUNK_CELLS // max(n.size, 1)))
    for start in range(0, b, chunk):
        m = min(chunk, b - start)
        x = rng.binomial(n[None, :], rate, size=(m, n.size)).astype(float)
        ps = x.sum(axis=1) / total
        z = _z(_sum_sq(x, nf, ps), ps, total, pairs)
        out[start : start + m] = np.where((ps > 0) & (ps < 1), z, -np.inf)
    return out


def heterogeneity_test(
    n: ArrayLike,
    c: ArrayLike,
    *,
    n_draws: int = 2000,
    seed: int | np.random.Generator | None = None,
    method: Literal["auto", "permutation", "parametric", "normal"] = "auto",
) -> HeterogeneityTest:
    """Test "every task has the same success rate and runs are independent" (Tarone's Z).

    Rejecting says the tasks' success counts vary more than one common rate
    would make them, i.e. failures cluster in some tasks; then pass^k is
    above mean^k for the population of tasks. Not rejecting does not show
    the rates are equal: a small spread needs many tasks and runs to see
    (see the power figures in the user guide).

    Parameters
    ----------
    n, c : array_like of int
        Decided runs and successes per task (one system). Tasks with n = 0
        are left out.
    n_draws : int
        Monte Carlo draws for the p-value (≥ 100).
    seed : int or numpy.random.Generator, optional
        Seed of the draws.
    method : {"auto", "permutation", "parametric", "normal"}
        "auto": the exact permutation test while tasks × draws ≤ 4·10⁶,
        else the parametric bootstrap; "normal" uses Tarone's N(0, 1)
        approximation (liberal on small or lopsided data; for comparison).

    Returns
    -------
    HeterogeneityTest

    Raises
    ------
    ValidationError
        Negative counts, c > n, or arrays of different lengths.
    OptionError
        Unknown method, fewer than 100 draws.

    References
    ----------
    .. [1] Tarone, R. E. (1979). Testing the goodness of fit of the binomial
       distribution. *Biometrika*, 66(3), 585–590. The statistic is checked
       against a direct evaluation of this formula; the size of the test on
       homogeneous data and its power under Beta spreads by simulation
       (``tests/spread/test_spread_heterogeneity.py``).

    Examples
    --------
    >>> from passhat.spread import heterogeneity_test
    >>> t = heterogeneity_test([5] * 30, [3] * 30, n_draws=500, seed=0)   # all alike
    >>> t.rejects(0.05), round(t.statistic, 2)   # less spread than chance: Z < 0
    (False, -4.33)
    """
    meth = check_method(method, TEST_METHODS, "method")
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 100:
        raise OptionError(f"n_draws must be a whole number ≥ 100 (got {n_draws!r})")
    if n_draws > MAX_N_BOOT:  # the same bound as the bootstrap's resamples
        raise OptionError(f"n_draws must be at most {MAX_N_BOOT:,} (got {n_draws!r})")
    nf, cf = number_array(n, "n").ravel(), number_array(c, "c").ravel()
    for name, v in (("n", nf), ("c", cf)):
        if not np.all(np.isfinite(v) & (v == np.floor(v))):
            bad = v[~(np.isfinite(v) & (v == np.floor(v)))][0]
            raise CountError(f"{name} must hold whole numbers (got {bad:g})")
    nn, cc = nf.astype(np.int64), cf.astype(np.int64)
    if nn.shape != cc.shape:
        raise ValidationError(f"n and c differ in length ({nn.size} vs {cc.size})")
    if np.any(nn < 0) or np.any(cc < 0) or np.any(cc > nn):
        raise ValidationError("counts must satisfy 0 ≤ c ≤ n for every task")
    keep = nn > 0
    nn, cc = nn[keep], cc[keep]
    total = float(nn.sum())
    succ = int(cc.sum())
    pairs = float(np.sum(nn.astype(float) * (nn - 1)))
    rate = succ / total if total > 0 else math.nan
    base: dict[str, Any] = {"tasks": int(nn.size), "runs": int(total), "rate": rate}
    reason = ""
    if nn.size < 2:
        reason = "fewer than two tasks with decided runs"
    elif pairs == 0:
        reason = "no task has two decided runs, so runs of one task cannot be compared"
    elif succ == 0:
        reason = "every decided run failed"
    elif succ == total:
        reason = "every decided run passed"
    if reason:
        return HeterogeneityTest(
            statistic=math.nan,
            p_value=1.0,
            method="not tested",
            draws=0,
            testable=False,
            reason=reason,
            **base,
        )
    nf = nn.astype(float)
    ss_obs = _sum_sq(cc.astype(float)[None, :], nf, np.array([rate]))
    z_obs = float(_z(ss_obs, rate, total, pairs)[0])
    if meth == "normal":
        return HeterogeneityTest(
            statistic=z_obs,
            p_value=float(stats.norm.sf(z_obs)),
            method="Tarone's score test, normal approximation",
            draws=0,
            testable=True,
            kind="normal",
            **base,
        )
    if meth == "auto":
        small = nn.size * n_draws <= _PERMUTATION_CELLS and total < _MAX_PERMUTED_RUNS
        meth = "permutation" if small else "parametric"
    elif meth == "permutation" and total >= _MAX_PERMUTED_RUNS:
        raise OptionError(
            f"the permutation test reassigns at most {_MAX_PERMUTED_RUNS:,} runs (these tasks "
            f"have {int(total):,}); use method='parametric' (Binomial draws)"
        )
    rng = make_rng(seed)
    if meth == "permutation":
        null = _permutation(nn, succ, int(n_draws), rng, total, pairs)
        label = (
            f"Tarone's score test, exact permutation p-value ({n_draws} draws, successes "
            "reassigned to runs at random)"
        )
    else:
        null = _parametric(nn, rate, int(n_draws), rng, total, pairs)
        label = (
            f"Tarone's score test, parametric-bootstrap p-value ({n_draws} draws from "
            "Binomial(n, pooled rate))"
        )
    tol = 1e-9 * max(1.0, abs(z_obs))
    p_value = (1.0 + float(np.sum(null >= z_obs - tol))) / (1.0 + n_draws)
    return HeterogeneityTest(
        statistic=z_obs,
        p_value=p_value,
        method=label,
        draws=int(n_draws),
        testable=True,
        kind=meth,
        **base,
    )
