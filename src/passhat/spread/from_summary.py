"""Clustered vs uniform spread from a published (Mean@k, pass^k) pair, and the Beta it implies.

Examples
--------
>>> from passhat.spread import spread_from_summary
>>> round(spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5).uniform, 3)
0.278
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.spread.beta import (
    beta_mixed_share,
    beta_moment,
    impossible,
    solve_beta_kappa,
    unexplained_reason,
)
from passhat.spread.parts import BetaFit, MixedShareCheck
from passhat.spread.result import SummarySpread

__all__ = ["BetaFit", "SummarySpread", "spread_from_summary"]


def spread_from_summary(
    *,
    mean: float,
    pass_hat_k: float,
    k: int,
    label: str | None = None,
    predict_k: Sequence[int] = (1, 2, 3, 5, 10),
    runs: int | None = None,
    mixed_share: float | None = None,
    tolerance: float = 0.03,
    strict: bool = False,
) -> SummarySpread:
    """Clustered vs uniform spread from a published (Mean@k, pass^k) pair alone.

    Parameters
    ----------
    mean : float
        Mean success per run (Mean@k), in [0, 1].
    pass_hat_k : float
        Measured pass^k, in [0, 1].
    k : int
        The k of ``pass_hat_k`` (≥ 1).
    label : str, optional
        Name of the row (shown in sentences).
    predict_k : sequence of int
        k values at which to predict pass^k and pass@k from the implied Beta.
    runs : int, optional
        Runs per task n for the predicted share of mixed tasks (default k).
    mixed_share : float, optional
        A published share of tasks with mixed outcomes in ``runs`` runs; the
        result says whether the Beta reproduces it within ``tolerance``.
    tolerance : float
        Absolute tolerance for that check.
    strict : bool
        Refuse a pair that no tasks can have (pass^k > mean, or pass^1 ≠ mean) with an
        error, as ``passhat spread`` does; by default such a pair is returned with
        ``impossible`` set and ``reason`` saying why.

    Returns
    -------
    SummarySpread

    Raises
    ------
    OptionError
        Values outside [0, 1], k < 1; with ``strict``, an impossible pair.

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=5)
    >>> s.explained, s.beta.kappa, f"{s.uniform:.1%}"   # half always pass, half always fail
    (True, 0.0, '3.1%')
    """
    _check_pair(mean, pass_hat_k, k, runs=runs, mixed_share=mixed_share)
    mean, pass_hat_k, k = float(mean), float(pass_hat_k), int(k)
    n_runs = int(runs) if runs is not None else k
    uniform = mean**k
    ratio = pass_hat_k / uniform if uniform > 0 else (math.inf if pass_hat_k > 0 else math.nan)
    consistency = pass_hat_k / mean if mean > 0 else math.nan
    reason = unexplained_reason(mean, pass_hat_k, k)
    if strict and impossible(mean, pass_hat_k, k):
        raise OptionError(
            "{mean}/{pass_hat_k}/{k}: " + reason, param="mean", also=("pass_hat_k", "k")
        )
    beta = None if reason else _beta_fit(mean, pass_hat_k, k, predict_k=predict_k, runs=n_runs)
    check = None
    if beta is not None and mixed_share is not None:
        check = MixedShareCheck(
            published=mixed_share,
            predicted=beta.mixed_share[n_runs],
            runs=n_runs,
            tolerance=tolerance,
        )
    return SummarySpread(
        label=label,
        mean=mean,
        pass_hat_k=pass_hat_k,
        k=k,
        uniform=uniform,
        ratio=ratio,
        consistency=consistency,
        gap=mean - pass_hat_k,
        reason=reason,
        beta=beta,
        mixed_share_published=mixed_share,
        mixed_share_runs=n_runs,
        check=check,
        impossible=impossible(mean, pass_hat_k, k),
    )


def _check_pair(
    mean: float, pass_hat_k: float, k: int, *, runs: int | None, mixed_share: float | None
) -> None:
    """A published pair's values: shares in [0, 1], whole numbers of runs and k."""
    for name, v in (("mean", mean), ("pass_hat_k", pass_hat_k)):
        if not (isinstance(v, int | float) and 0.0 <= float(v) <= 1.0):
            raise OptionError(f"{{param}} must be a number in [0, 1] (got {v!r})", param=name)
    check_k(k)
    if runs is not None and (
        isinstance(runs, bool)
        or not isinstance(runs, int | float | np.number)
        or not math.isfinite(runs)
        or int(runs) != runs
        or runs < 1
    ):
        raise OptionError(f"{{param}} must be a whole number ≥ 1 (got {runs!r})", param="runs")
    if mixed_share is not None and not 0.0 <= mixed_share <= 1.0:
        raise OptionError(
            f"{{param}} must lie in [0, 1] (got {mixed_share!r})", param="mixed_share"
        )


def _beta_fit(
    mean: float, pass_hat_k: float, k: int, *, predict_k: Sequence[int], runs: int
) -> BetaFit:
    """The Beta(μκ, (1 − μ)κ) that reproduces the pair, and its predictions."""
    kappa = solve_beta_kappa(mean, pass_hat_k, k)
    ks = sorted({*(int(v) for v in predict_k), k})
    ns = sorted({runs, k, *ks})
    return BetaFit(
        kappa=kappa,
        a=mean * kappa,
        b=(1 - mean) * kappa,
        icc=1.0 / (kappa + 1.0) if math.isfinite(kappa) else 0.0,
        mixed_share={n: float(beta_mixed_share(mean, kappa, n)) for n in ns},
        pass_hat_k={j: float(beta_moment(mean, kappa, j)) for j in ks},
        pass_at_k={j: float(1.0 - beta_moment(1.0 - mean, kappa, j)) for j in ks},
    )
