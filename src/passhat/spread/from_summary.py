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
from dataclasses import dataclass
from typing import Any

import numpy as np

from passhat._format import fmt_ratio
from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.spread.beta import (
    beta_mixed_share,
    beta_moment,
    impossible,
    solve_beta_kappa,
    unexplained_reason,
)

__all__ = ["BetaFit", "SummarySpread", "kappa_text", "spread_from_summary"]


def kappa_text(kappa: float) -> str:
    """κ for a sentence; an unbounded κ (every task at one rate) in words, never ``inf``.

    Examples
    --------
    >>> kappa_text(1.43), kappa_text(float("inf"))
    ('κ = 1.43', 'κ unbounded: every task at the same rate')
    """
    if math.isinf(kappa):
        return "κ unbounded: every task at the same rate"
    return f"κ = {kappa:.3g}"


@dataclass(frozen=True)
class BetaFit:
    """Beta heterogeneity implied by a (mean, pass^k) pair.

    Attributes
    ----------
    kappa : float
        Concentration κ = a + b (small: tasks polarised into all-pass and
        all-fail; large: every task near the mean). 0 and inf are the limits.
    a, b : float
        Beta shape parameters μκ and (1 − μ)κ.
    icc : float
        Intra-class correlation 1/(κ + 1): the share of run-level variance
        that lies between tasks.
    mixed_share : dict[int, float]
        Predicted share of tasks with both outcomes in n runs, by n.
    pass_hat_k : dict[int, float]
        Predicted pass^k, by k.
    pass_at_k : dict[int, float]
        Predicted pass@k, by k.
    """

    kappa: float
    a: float
    b: float
    icc: float
    mixed_share: dict[int, float]
    pass_hat_k: dict[int, float]
    pass_at_k: dict[int, float]


@dataclass(frozen=True)
class SummarySpread:
    """Result of :func:`spread_from_summary`.

    ``beta`` is ``None`` and ``explained`` False when no Beta spread of task
    rates reproduces the pair; ``reason`` then says why. ``impossible`` is
    True when no tasks at all can have the pair (pass^k > mean, or
    pass^1 ≠ mean); the CLI refuses such a pair.
    """

    label: str | None
    mean: float
    pass_hat_k: float
    k: int
    uniform: float
    ratio: float
    consistency: float
    gap: float
    explained: bool
    reason: str
    beta: BetaFit | None
    mixed_share_published: float | None = None
    mixed_share_runs: int | None = None
    mixed_share_check: str = ""
    impossible: bool = False
    method: str = (
        "uniform reference = mean^k; Beta(μκ, (1−μ)κ) with μ = mean and κ solved from "
        "E[p^k] = pass^k (Brent on log κ)"
    )

    def sentence(self) -> str:
        """Plain-language reading of the numbers."""
        who = f"{self.label}: " if self.label else ""
        s = (
            f"{who}mean {self.mean:.1%} would give pass^{self.k} = {self.uniform:.1%} if every "
            f"task shared it; measured {self.pass_hat_k:.1%}"
        )
        if self.uniform > 0:
            s += f" ({fmt_ratio(self.ratio)}× the uniform reference)"
        s += (
            f". Consistency pass^{self.k}/mean = {self.consistency:.2f}."
            if math.isfinite(self.consistency)
            else f". Consistency pass^{self.k}/mean is undefined (mean 0)."
        )
        if self.beta is not None:
            n = self.mixed_share_runs or self.k
            s += (
                " A Beta spread of task rates explains the pair with "
                f"{kappa_text(self.beta.kappa)} "
                f"(ICC {self.beta.icc:.2f}) and predicts {self.beta.mixed_share[n]:.0%} of tasks "
                f"with mixed outcomes in {n} runs."
            )
        else:
            s += f" No Beta spread explains it: {self.reason}."
        if self.mixed_share_check:
            s += " " + self.mixed_share_check
        return s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (keys of the ``beta`` maps become strings)."""
        beta = None
        if self.beta is not None:
            beta = {
                "kappa": self.beta.kappa,
                "a": self.beta.a,
                "b": self.beta.b,
                "icc": self.beta.icc,
                "mixed_share": {str(k): v for k, v in self.beta.mixed_share.items()},
                "pass_hat_k": {str(k): v for k, v in self.beta.pass_hat_k.items()},
                "pass_at_k": {str(k): v for k, v in self.beta.pass_at_k.items()},
            }
        return {
            "label": self.label,
            "mean": self.mean,
            "pass_hat_k": self.pass_hat_k,
            "k": self.k,
            "uniform": self.uniform,
            "ratio": self.ratio,
            "consistency": self.consistency,
            "gap": self.gap,
            "explained": self.explained,
            "reason": self.reason,
            "beta": beta,
            "mixed_share_published": self.mixed_share_published,
            "mixed_share_runs": self.mixed_share_runs,
            "mixed_share_check": self.mixed_share_check,
            "impossible": self.impossible,
            "method": self.method,
            "sentence": self.sentence(),
        }


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

    Returns
    -------
    SummarySpread

    Raises
    ------
    OptionError
        Values outside [0, 1], k < 1.

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=5)
    >>> s.explained, s.beta.kappa, f"{s.uniform:.1%}"   # half always pass, half always fail
    (True, 0.0, '3.1%')
    """
    for name, v in (("mean", mean), ("pass_hat_k", pass_hat_k)):
        if not (isinstance(v, int | float) and 0.0 <= float(v) <= 1.0):
            raise OptionError(f"{name} must be a number in [0, 1] (got {v!r})")
    check_k(k)
    if runs is not None and (
        isinstance(runs, bool)
        or not isinstance(runs, int | float | np.number)
        or not math.isfinite(runs)
        or int(runs) != runs
        or runs < 1
    ):
        raise OptionError(f"runs must be a whole number ≥ 1 (got {runs!r})")
    if mixed_share is not None and not 0.0 <= mixed_share <= 1.0:
        raise OptionError(f"mixed_share must lie in [0, 1] (got {mixed_share!r})")
    mean, pass_hat_k, k = float(mean), float(pass_hat_k), int(k)
    n_runs = int(runs) if runs is not None else k
    uniform = mean**k
    ratio = pass_hat_k / uniform if uniform > 0 else (math.inf if pass_hat_k > 0 else math.nan)
    consistency = pass_hat_k / mean if mean > 0 else math.nan
    reason = unexplained_reason(mean, pass_hat_k, k)
    beta: BetaFit | None = None
    check = ""
    if not reason:
        kappa = solve_beta_kappa(mean, pass_hat_k, k)
        ks = sorted({*(int(v) for v in predict_k), k})
        ns = sorted({n_runs, k, *ks})
        beta = BetaFit(
            kappa=kappa,
            a=mean * kappa,
            b=(1 - mean) * kappa,
            icc=1.0 / (kappa + 1.0) if math.isfinite(kappa) else 0.0,
            mixed_share={n: float(beta_mixed_share(mean, kappa, n)) for n in ns},
            pass_hat_k={j: float(beta_moment(mean, kappa, j)) for j in ks},
            pass_at_k={j: float(1.0 - beta_moment(1.0 - mean, kappa, j)) for j in ks},
        )
        if mixed_share is not None:
            pred = beta.mixed_share[n_runs]
            diff = pred - mixed_share
            if abs(diff) <= tolerance:
                check = (
                    f"The published {mixed_share:.0%} of mixed tasks agrees with the Beta's "
                    f"{pred:.0%} (within {tolerance:.0%})."
                )
            else:
                more = "fewer" if diff > 0 else "more"
                check = (
                    f"A Beta cannot explain the published share of mixed tasks: it predicts "
                    f"{pred:.0%} against {mixed_share:.0%} published; the data have {more} "
                    "flaky tasks than a single Beta spread allows (a zero/one-inflated mixture "
                    "may fit)."
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
        explained=beta is not None,
        reason=reason,
        beta=beta,
        mixed_share_published=mixed_share,
        mixed_share_runs=n_runs,
        mixed_share_check=check,
        impossible=impossible(mean, pass_hat_k, k),
    )
