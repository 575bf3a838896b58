"""The joint model's spread of paired per-task differences, for :func:`passhat.plan.power`.

Built by :meth:`passhat.model.joint_result.JointFit.pilot` from the moments of
:func:`passhat.model.joint_metrics.spread_moments`.

Examples
--------
>>> from passhat.model.joint_spread import JointSpread
>>> m = {"var_a": 0.04, "var_b": 0.04, "cov": 0.02, "mean_a": 0.5, "mean_b": 0.5,
...      "moments_a": [0.5, 0.3], "moments_b": [0.5, 0.3]}
>>> round(JointSpread(("A", "B"), "mean", 1, m, 10).rho, 2)
0.5
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passhat.model.joint_metrics import within_variance

__all__ = ["JointSpread"]


class JointSpread:
    """The joint model's spread of paired per-task differences, for :func:`passhat.plan.power`.

    Passed as ``pilot=``: the task spread Var g and the between-system
    covariance come from the fitted model (posterior means), the within-task
    variance of the unbiased estimator at any n from the model's moments of p.
    Built by :meth:`JointFit.pilot`.
    """

    correlation_kind = "correlation of per-task values g(p) between the systems (joint model)"

    def __init__(
        self, systems: tuple[str, str], metric: str, k: int, m: dict[str, Any], tasks: int
    ) -> None:
        self.systems = systems
        self.metric = metric
        self.k = k
        self.tasks = tasks
        self.var_g_a = m["var_a"]
        self.var_g_b = m["var_b"]
        self.cov = m["cov"]
        self.mean_a = m["mean_a"]
        self.mean_b = m["mean_b"]
        self._mom = (m["moments_a"], m["moments_b"])

    @property
    def baseline(self) -> float:
        """System A's population value of the metric (posterior mean)."""
        return self.mean_a

    @property
    def rho(self) -> float:
        """Correlation of per-task values between the two systems (posterior-mean moments)."""
        return float(self.cov / np.sqrt(max(self.var_g_a * self.var_g_b, 1e-300)))

    def sd(self, delta: float, n: int, rho: float | None = None) -> float:
        """SD of one task's difference with n runs per system (``rho``: what-if correlation).

        Examples
        --------
        >>> from passhat.model.joint_spread import JointSpread
        >>> m = {"var_a": 0.04, "var_b": 0.04, "cov": 0.02, "mean_a": 0.5, "mean_b": 0.5,
        ...      "moments_a": [0.5, 0.3], "moments_b": [0.5, 0.3]}
        >>> round(JointSpread(("A", "B"), "mean", 1, m, 10).sd(0.1, 4), 4)   # √(0.04 + 2·0.05)
        0.3742
        """
        va, vb = self.var_g_a, self.var_g_b
        r = self.rho if rho is None else rho
        between = va + vb - 2.0 * r * np.sqrt(va * vb)
        wa = within_variance(np.asarray(self._mom[0]), n, self.k)
        wb = within_variance(np.asarray(self._mom[1]), n, self.k)
        return float(np.sqrt(max(max(between, 0.0) + max(wa, 0.0) + max(wb, 0.0), 1e-300)))

    def assumptions(self) -> tuple[str, ...]:
        """The assumptions of a power answer from this spread."""
        return (
            f"spread of per-task differences from the joint model of {self.systems[0]!r} and "
            f"{self.systems[1]!r} fitted on {self.tasks} tasks (posterior-mean moments)",
            f"{self.correlation_kind} ρ = {self.rho:.2f}; the fitted spread holds for the "
            "difference to detect; tasks of the study are like the fitted ones",
            "runs of a task are independent given its rate, each from a clean state",
        )
