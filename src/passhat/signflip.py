"""The sign-flip permutation test of a paired mean difference, and its inversion into an interval.

Under "the two systems are exchangeable within each task" every task's
difference d_i is as likely to be negated, so the weighted mean difference
T = Σ ω_i d_i is compared with its sign-flipped copies T* = Σ ω_i s_i d_i
(s_i = ±1). Shifting the hypothesis to "the mean difference is δ" flips
d_i − δ instead, and the **interval** is every δ that this test does not
reject: {δ : p(δ) > α}. The interval therefore excludes 0 exactly when the
test of δ = 0 rejects at the same level α — the two cannot disagree.

The inversion is exact arithmetic, not a search: for one sign vector s with
A = Σ ω_i s_i d_i and m = Σ ω_i s_i (weights ω summing to one), the shifted
copy is at least as extreme as the shifted statistic, |A − δm| ≥ |D − δ|,
exactly on the closed interval between (A + D)/(1 + m) and (D − A)/(1 − m)
(all of ℝ when every sign is equal). Every such interval contains the
observed mean D, so p(δ) rises up to D and falls after it, and the accepted
set is one interval whose ends are read off the sorted interval ends.

Tasks with equal (n_A, c_A, n_B, c_B, w) are one category: only the sum of
their signs matters, 2·Binomial(f, ½) − f, so a flip costs the number of
categories. When the categories allow at most ``exact_max`` distinct sign
sums the test **enumerates them** with their binomial probabilities (an
exact p-value); otherwise it draws ``n_flips`` random sign vectors and
counts the observed one among them, p = (1 + #{|T*| ≥ |T|}) / (1 + n_flips),
which is a valid p-value too.

References
----------
.. [1] Fisher, R. A. (1935). *The Design of Experiments*. Oliver & Boyd, §21
   (the randomisation test of paired differences).
.. [2] Lehmann, E. L. and Romano, J. P. (2005). *Testing Statistical
   Hypotheses*, 3rd ed. Springer, §3.5 and §15.2 (confidence sets by
   inverting tests; permutation tests).

Examples
--------
>>> import numpy as np
>>> from passhat.signflip import flip_sums, invert_flips
>>> d = np.array([[0.4], [0.2], [0.1], [0.6], [0.2]])   # five tasks, one column
>>> flips = flip_sums(np.ones(5, dtype=int), n_flips=1000, rng=np.random.default_rng(0))
>>> flips.exact, flips.prob.size       # 2^5 sign vectors, enumerated
(True, 32)
>>> lo, hi, p = invert_flips(d, np.ones(5), flips, ci=0.9)
>>> round(float(p[0]), 4), bool(lo[0] > 0)   # 2/32: rejects at 10%, so the interval excludes 0
(0.0625, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "EXACT_MAX",
    "FlipSums",
    "enumerable",
    "flip_sums",
    "invert_flips",
]

#: Enumerate the sign sums exactly when there are at most this many combinations.
EXACT_MAX = 20_000

#: Largest number of sign sums held at once (rows × categories).
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class FlipSums:
    """Sign sums per category for each flip (rows) and each row's probability.

    Attributes
    ----------
    sums : ndarray, shape (R, m)
        Σ of the random signs of each category's tasks (floats when enumerated; whole numbers
        in the smallest integer type that holds them for random flips).
    prob : ndarray, shape (R,)
        Probability of each row: exact (enumeration) or 1/(n_flips + 1)
        (random flips plus the observed, all-plus row).
    exact : bool
        Whether the rows enumerate every sign sum.
    """

    sums: NDArray[np.float64]
    prob: NDArray[np.float64]
    exact: bool


def flip_sums(
    freq: ArrayLike, *, n_flips: int, rng: np.random.Generator, exact_max: int = EXACT_MAX
) -> FlipSums:
    """The sign sums to test with: enumerated when few, else ``n_flips`` random ones.

    Parameters
    ----------
    freq : array_like of int
        Tasks per category.
    n_flips : int
        Random flips when enumeration is too large.
    rng : numpy.random.Generator
    exact_max : int
        Enumerate when Π (f_j + 1) ≤ this.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.signflip import flip_sums
    >>> fs = flip_sums([2, 1], n_flips=100, rng=np.random.default_rng(0))
    >>> fs.sums.tolist(), fs.prob.tolist()
    ([[-2.0, -1.0], [-2.0, 1.0], [0.0, -1.0], [0.0, 1.0], [2.0, -1.0], [2.0, 1.0]], \
[0.125, 0.125, 0.25, 0.25, 0.125, 0.125])
    """
    f = np.asarray(freq, dtype=np.int64).ravel()
    if enumerable(f, exact_max=exact_max):
        grids = [np.arange(-fj, fj + 1, 2, dtype=float) for fj in f]
        # exact binomial probabilities C(f, j) / 2^f (Python integers, correctly rounded)
        probs = [np.array([comb(int(fj), j) / 2 ** int(fj) for j in range(fj + 1)]) for fj in f]
        mesh = np.meshgrid(*grids, indexing="ij")
        pmesh = np.meshgrid(*probs, indexing="ij")
        sums = np.column_stack([g.ravel() for g in mesh]) if f.size else np.zeros((1, 0))
        prob = np.prod(np.column_stack([p.ravel() for p in pmesh]), axis=1) if f.size else None
        prob = np.ones(1) if prob is None else prob
        return FlipSums(sums=sums, prob=prob, exact=True)
    top = int(f.max()) if f.size else 0
    kind = np.int16 if top < 2**15 else np.int32 if top < 2**31 else np.int64
    sums = np.empty((n_flips + 1, f.size), dtype=kind)  # whole numbers in [-f, f]
    sums[0] = f  # the observed signs (all +) first
    # drawn in blocks of rows (the same draws, in the same order, as one call): the sign sums
    # 2 B − f, B ~ Binomial(f, 1/2), without (flips × categories) temporaries
    for start, stop in _blocks(n_flips, f.size):
        sums[1 + start : 1 + stop] = 2 * rng.binomial(f, 0.5, size=(stop - start, f.size)) - f
    return FlipSums(sums=sums, prob=np.full(n_flips + 1, 1.0 / (n_flips + 1)), exact=False)


def enumerable(freq: ArrayLike, *, exact_max: int = EXACT_MAX) -> bool:
    """Whether :func:`flip_sums` enumerates these categories: Π (f_j + 1) ≤ ``exact_max``.

    Examples
    --------
    >>> from passhat.signflip import enumerable
    >>> enumerable([3, 4]), enumerable([1] * 40)
    (True, False)
    """
    combos = 1.0
    for fj in np.asarray(freq, dtype=np.int64).ravel():
        combos *= float(fj + 1)
        if combos > exact_max:
            return False
    return True


def invert_flips(
    values: ArrayLike,
    weights: ArrayLike,
    flips: FlipSums,
    *,
    ci: float,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Test-inverted interval and p-value (at δ = 0) of the weighted mean difference, per column.

    Parameters
    ----------
    values : array_like, shape (m, C)
        Each category's per-task differences d (one column per metric / k).
    weights : array_like, shape (m,)
        The weight of one task of each category (> 0).
    flips : FlipSums
        From :func:`flip_sums` over the same categories.
    ci : float
        Level: δ is in the interval when p(δ) > 1 − ci.
    bounds : (float, float)
        The range of the mean difference; ends at ±∞ (a flip that equals the
        observation whatever δ) are clipped to it.

    Returns
    -------
    lower, upper, p_value : ndarray, shape (C,)
        The interval excludes 0 exactly when p_value ≤ 1 − ci.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.signflip import flip_sums, invert_flips
    >>> fs = flip_sums([3, 3], n_flips=100, rng=np.random.default_rng(0))
    >>> d = np.array([[0.5], [-0.25]])
    >>> lo, hi, p = invert_flips(d, np.ones(2), fs, ci=0.8)
    >>> bool(lo[0] <= 0.125 <= hi[0]), bool((lo[0] > 0 or hi[0] < 0) == (p[0] <= 0.2))
    (True, True)
    """
    vals = np.asarray(values, dtype=float)
    if vals.ndim == 1:
        vals = vals[:, None]
    w = np.asarray(weights, dtype=float).ravel()
    f_total = flips.sums  # R × m
    freq = np.abs(f_total[0]).astype(float) if not flips.exact else None
    # normalised weights: the statistic is a weighted mean over tasks
    counts = freq if freq is not None else _freq_from_exact(flips)
    omega = w / float(np.sum(counts * w))
    d_obs = (counts * omega) @ vals  # C
    alpha = round(1.0 - float(ci), 12)  # 1 − 0.9 is 0.09999…98 in floating point; use 0.1
    lo = np.empty(vals.shape[1])
    hi = np.empty(vals.shape[1])
    p0 = np.empty(vals.shape[1])
    m, a = _projections(f_total, omega, omega[:, None] * vals)  # R, R × C
    same = np.abs(np.abs(m) - 1.0) <= 1e-12  # every sign equal: T* = ±T whatever δ
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = (a + d_obs[None, :]) / (1.0 + m[:, None])
        r2 = (d_obs[None, :] - a) / (1.0 - m[:, None])
    ends_lo = np.where(same[:, None], -np.inf, np.minimum(r1, r2))
    ends_hi = np.where(same[:, None], np.inf, np.maximum(r1, r2))
    tol = 1e-12 * (1.0 + np.abs(d_obs))
    ends_lo = ends_lo - tol[None, :]
    ends_hi = ends_hi + tol[None, :]
    for j in range(vals.shape[1]):
        # Every flip's interval holds D, so for δ ≤ D, p(δ) = Σ_{b: L_b ≤ δ} prob_b (and the
        # mirror above D). The lower end is the smallest L at which that sum first exceeds α;
        # p(0) is read off the same cumulative sums, so "0 outside" ⟺ "p(0) ≤ α" exactly.
        for side, ends in (("lo", ends_lo[:, j]), ("hi", -ends_hi[:, j])):
            order = np.argsort(ends, kind="stable")
            srt = ends[order]
            cum = np.cumsum(flips.prob[order])
            i = min(int(np.searchsorted(cum, alpha, side="right")), len(order) - 1)
            if side == "lo":
                lo[j] = srt[i]
            else:
                hi[j] = -srt[i]
            if (side == "lo") == (d_obs[j] >= 0.0):
                k0 = int(np.searchsorted(srt, 0.0, side="right"))
                p0[j] = float(cum[k0 - 1]) if k0 > 0 else 0.0
    lo = np.clip(lo, bounds[0], bounds[1])
    hi = np.clip(hi, bounds[0], bounds[1])
    return lo, hi, np.minimum(p0, 1.0)


def _blocks(rows: int, cols: int) -> list[tuple[int, int]]:
    """Row ranges of about 4 million cells each."""
    step = max(1, (1 << 22) // max(cols, 1))
    return [(i, min(i + step, rows)) for i in range(0, rows, step)]


def _projections(
    sums: NDArray[Any], omega: NDArray[np.float64], weighted: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each flip's Σ s·ω and Σ s·ω·d, a block of flips at a time (the sign sums may be kept
    as small integers: only a block is ever in floating point)."""
    m = np.empty(len(sums))
    a = np.empty((len(sums), weighted.shape[1]))
    both = np.column_stack([omega, weighted])
    for start, stop in _blocks(len(sums), sums.shape[1]):
        out = sums[start:stop].astype(float) @ both
        m[start:stop], a[start:stop] = out[:, 0], out[:, 1:]
    return m, a


def _freq_from_exact(flips: FlipSums) -> NDArray[np.float64]:
    """Tasks per category of an enumeration: the largest sign sum of each column."""
    return np.asarray(flips.sums.max(axis=0), dtype=float)
