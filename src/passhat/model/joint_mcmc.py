"""Rank-normalised split R-hat and bulk/tail ESS for many variables at once (numpy, no loops).

The joint fit reports the diagnostics of θ_s, σ_β, κ and of the worst of its task effects
(one per task: hundreds of variables). ArviZ computes them one variable at a time in Python;
these functions compute the same quantities for a whole (chain, draw, variable) array with
array operations: the same formulas as ArviZ 0.23's ``rhat(method="rank")``,
``ess(method="bulk")`` and ``ess(method="tail")`` (Vehtari et al. 2021 [1]_), tested against
them to 1e-10 in ``tests/model/test_model_joint_mcmc.py``.

* split chains: the first and last ``draws // 2`` draws of each chain as two chains;
* z-scale: ranks over all split draws (ties averaged), Blom's offset 3/8, the normal quantile;
* R-hat: the larger of the split R-hats of the z-scaled draws and of the z-scaled
  distances from the median;
* ESS: Geyer's initial positive then monotone sequence over the autocorrelations of the
  split chains (FFT); bulk: of the z-scaled draws; tail: the smaller of the ESS of the
  indicators draws ≤ their 5% and 95% quantiles.

References
----------
.. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C. (2021).
   Rank-normalization, folding, and localization: an improved R-hat for assessing
   convergence of MCMC. *Bayesian Analysis* 16(2), 667–718.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_mcmc import ess_bulk, ess_tail, rhat_rank
>>> x = np.random.default_rng(0).normal(size=(4, 500, 3))   # independent draws
>>> bool((np.abs(rhat_rank(x) - 1) < 0.01).all()), bool((ess_bulk(x) > 1500).all())
(True, True)
>>> ess_tail(x).shape
(3,)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import fft, special, stats

__all__ = ["diagnose", "ess_bulk", "ess_tail", "rhat_rank"]

_BLOM = 3.0 / 8.0
_TAIL_PROBS = (0.05, 0.95)


def _split(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """(chain, draw, V) → (2 chain, draw // 2, V): each chain's two halves as chains."""
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def _z_scale(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Normal scores of the ranks over all draws of each variable (ties averaged)."""
    c, d, v = x.shape
    rank = stats.rankdata(x.reshape(c * d, v), method="average", axis=0)
    z = special.ndtri((rank - _BLOM) / (c * d - 2 * _BLOM + 1))
    return np.asarray(z.reshape(c, d, v))


def _rhat(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Gelman–Rubin R-hat of (chain, draw, V) with the chains as given."""
    n = x.shape[1]
    between = n * np.var(x.mean(axis=1), axis=0, ddof=1)
    within = np.var(x, axis=1, ddof=1).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.sqrt((between / within + n - 1) / n))


def rhat_rank(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rank-normalised split R-hat of each variable of (chain, draw, V) draws: (V,).

    NaN with fewer than 2 chains or 4 draws, or where a variable has a NaN draw.
    """
    x = np.asarray(x, dtype=float)
    bad = np.isnan(x).any(axis=(0, 1))
    if x.shape[0] < 2 or x.shape[1] < 4:
        return np.full(x.shape[2], np.nan)
    s = _split(np.where(bad, 0.0, x))
    folded = np.abs(s - np.median(s.reshape(-1, s.shape[2]), axis=0))
    out = np.maximum(_rhat(_z_scale(s)), _rhat(_z_scale(folded)))
    return np.where(bad, np.nan, out)


def _autocov(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Autocovariance at every lag along the draw axis of (chain, draw, V) (divisor n)."""
    n = x.shape[1]
    m = fft.next_fast_len(2 * n)
    centred = x - x.mean(axis=1, keepdims=True)
    f = np.fft.rfft(centred, n=m, axis=1)
    return np.asarray(np.fft.irfft(f * np.conjugate(f), n=m, axis=1)[:, :n] / n)


def _ess(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """ESS of each variable of (chain, draw, V), chains as given (Geyer's sequences)."""
    c, n, v = x.shape
    size = c * n
    acov = _autocov(x)
    mean_var = acov[:, 0].mean(axis=0) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if c > 1:
        var_plus = var_plus + np.var(x.mean(axis=1), axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (mean_var - acov.mean(axis=0)) / var_plus  # (n, V)
    rho[0] = 1.0
    last = max(0, (n - 3) // 2)  # pair k = (ρ_2k, ρ_2k+1) is reached while 2k − 1 < n − 3
    tau = _geyer_tau(rho[: 2 * (last + 1)].reshape(last + 1, 2, v), last)
    tau = np.maximum(tau, 1.0 / np.log10(size))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = size / tau
    flat = x.reshape(size, v)
    constant = (flat.max(axis=0) - flat.min(axis=0)) < np.finfo(float).resolution
    return np.where(constant, float(size), np.where(np.isnan(rho).any(axis=0), np.nan, out))


def _geyer_tau(pair: NDArray[np.float64], last: int) -> NDArray[np.float64]:
    """τ = −1 + 2 Σ (monotone pair sums up to the first non-positive one) + that pair's even
    term when kept, for pairs (k, 2, V) of autocorrelations; ``last`` is the last pair the
    sequence may reach."""
    v = pair.shape[2]
    sums = pair.sum(axis=1)  # (k, V)
    if last < 1:
        return np.zeros(v)  # only ρ_0 = 1 is kept: τ = −1 + 1
    reach = sums[1 : last + 1]  # pairs 1..last
    stop = np.where((reach <= 0).any(axis=0), np.argmax(reach <= 0, axis=0) + 1, last)  # (V,)
    # pairs 0..stop − 1 are summed (monotone: the running minimum); pair stop's even term
    mono = np.minimum.accumulate(sums[: last + 1], axis=0)
    k = np.arange(last + 1)[:, None]
    body = np.where(k < stop[None, :], mono, 0.0).sum(axis=0)
    cols = np.arange(v)
    even = pair[stop, 0, cols]
    kept = (sums[stop, cols] >= 0) | (even > 0)
    tau = -1.0 + 2.0 * body + np.where(kept, even, 0.0)
    # no pair after the first: the sequence stops at once with ρ_0 kept
    return np.asarray(np.where(sums[0] > 0, tau, 0.0))


def ess_bulk(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bulk ESS (of the rank-normalised split chains) of each variable of (chain, draw, V)."""
    x = np.asarray(x, dtype=float)
    if x.shape[1] < 4:
        return np.full(x.shape[2], np.nan)
    bad = np.isnan(x).any(axis=(0, 1))
    return np.where(bad, np.nan, _ess(_z_scale(_split(np.where(bad, 0.0, x)))))


def ess_tail(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Tail ESS: the smaller ESS of the indicators of draws ≤ their 5% and 95% quantiles."""
    x = np.asarray(x, dtype=float)
    if x.shape[1] < 4:
        return np.full(x.shape[2], np.nan)
    bad = np.isnan(x).any(axis=(0, 1))
    x = np.where(bad, 0.0, x)
    q = np.quantile(x.reshape(-1, x.shape[2]), _TAIL_PROBS, axis=0)  # type 7, as ArviZ
    low = _ess(_split((x <= q[0]).astype(float)))
    high = _ess(_split((x <= q[1]).astype(float)))
    return np.where(bad, np.nan, np.minimum(low, high))


def diagnose(
    x: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`rhat_rank`, :func:`ess_bulk` and :func:`ess_tail` of (chain, draw, V) draws, the
    z-scaled split chains computed once (R-hat and bulk ESS share them).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_mcmc import diagnose, ess_bulk
    >>> x = np.random.default_rng(1).normal(size=(2, 100, 2))
    >>> r, b, t = diagnose(x)
    >>> bool(np.array_equal(b, ess_bulk(x)))
    True
    """
    x = np.asarray(x, dtype=float)
    if x.shape[1] < 4:
        nan = np.full(x.shape[2], np.nan)
        return nan, nan, nan
    bad = np.isnan(x).any(axis=(0, 1))
    clean = np.where(bad, 0.0, x)
    s = _split(clean)
    z = _z_scale(s)
    bulk = np.where(bad, np.nan, _ess(z))
    if x.shape[0] >= 2:
        folded = np.abs(s - np.median(s.reshape(-1, s.shape[2]), axis=0))
        rhat = np.where(bad, np.nan, np.maximum(_rhat(z), _rhat(_z_scale(folded))))
    else:
        rhat = np.full(x.shape[2], np.nan)
    return rhat, bulk, ess_tail(x)
