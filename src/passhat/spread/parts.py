"""The typed parts of the spread results: one (system, k) row of :func:`passhat.spread`, the Beta
that a published pair implies, and the check of a published share of mixed tasks.

They hold numbers only; :mod:`passhat.spread.sentences` turns them into words and
:mod:`passhat.spread.result` into tables.

Examples
--------
>>> row = SpreadRow(system="a", k=2, mean=0.5, pass_hat_k=0.4, uniform=0.25, ratio=1.6)
>>> row.record()["ratio"], "ratio_lower" in row.record()
(1.6, False)
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["BetaFit", "MixedShareCheck", "SpreadRow"]

_NAN = float("nan")


@dataclass(frozen=True)
class SpreadRow:
    """One row of :attr:`passhat.spread.Spread.table`: one system at one k.

    Attributes
    ----------
    system : str
    k : int
    tasks : int
        Included tasks.
    mean, pass_at_k, pass_hat_k : float
        The benchmark values (weighted averages of the per-task estimates).
    uniform : float
        mean^k, pass^k if every task had the same success rate.
    ratio, consistency, gap : float
        pass^k / mean^k, pass^k / mean, mean − pass^k.
    flaky_share, always_pass_share, always_fail_share : float
        Shares of the included tasks whose decided runs are mixed, all pass, all fail.
    tasks_for_50, tasks_for_80, tasks_for_100 : float
        Smallest share of these tasks whose contributions carry 50%, 80%, 100% of the gap.
    failures_always_fail_share, failures_flaky_share : float
        Shares of the failing decided runs that lie in always-fail and in flaky tasks.
    tasks_for_80_model : float
        Model-based share of tasks like these that carry 80% of the gap.
    p_value, alpha : float
        The heterogeneity test's p-value and level.
    clustered, testable : bool or None
        The test's decision, and whether it could run; None for a row without a test.
    test_reason : str
        Why the test could not run.
    pass_hat_k_lower, pass_hat_k_upper, scope, method : optional
        The estimator's population-scope interval of pass^k (with ``ci``).
    ratio_lower, ratio_upper, consistency_lower, consistency_upper : float, optional
    tasks_for_80_model_lower, tasks_for_80_model_upper : float, optional
        Population-scope intervals (with ``ci``; NaN when not identified).
    """

    system: str = ""
    k: int = 1
    tasks: int = 0
    mean: float = _NAN
    pass_at_k: float = _NAN
    pass_hat_k: float = _NAN
    uniform: float = _NAN
    ratio: float = _NAN
    consistency: float = _NAN
    gap: float = _NAN
    flaky_share: float = _NAN
    always_pass_share: float = _NAN
    always_fail_share: float = _NAN
    tasks_for_50: float = _NAN
    tasks_for_80: float = _NAN
    tasks_for_100: float = _NAN
    failures_always_fail_share: float = _NAN
    failures_flaky_share: float = _NAN
    tasks_for_80_model: float = _NAN
    p_value: float = _NAN
    alpha: float = _NAN
    clustered: bool | None = None
    testable: bool | None = None
    test_reason: str = ""
    pass_hat_k_lower: float | None = None
    pass_hat_k_upper: float | None = None
    scope: str | None = None
    method: str | None = None
    ratio_lower: float | None = None
    ratio_upper: float | None = None
    consistency_lower: float | None = None
    consistency_upper: float | None = None
    tasks_for_80_model_lower: float | None = None
    tasks_for_80_model_upper: float | None = None

    def record(self) -> dict[str, Any]:
        """The row as a table row: every field that is set (intervals only when computed)."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


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
class MixedShareCheck:
    """A published share of tasks with mixed outcomes against the share the Beta predicts.

    Attributes
    ----------
    published, predicted : float
        The published share, and the implied Beta's share in ``runs`` runs.
    runs : int
    tolerance : float
        Absolute tolerance within which the two agree.
    """

    published: float
    predicted: float
    runs: int
    tolerance: float

    @property
    def agrees(self) -> bool:
        """Whether the Beta reproduces the published share within the tolerance."""
        return abs(self.predicted - self.published) <= self.tolerance
