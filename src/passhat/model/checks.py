"""The checks that keep a model's numbers honest: agreement with the unbiased estimates, and
extrapolation beyond the runs.

* **Agreement.** For k up to the fewest decided runs of a task, every task has an unbiased
  estimate of its pass^k and pass@k (:mod:`passhat.estimators`), so the benchmark value has a
  model-free estimate U with standard error se(U) (:func:`passhat.intervals.benchmark_se`). The
  model's benchmark value M (the posterior mean of these tasks' pass^k) estimates the same
  thing. They disagree when |M − U| > z · √(se(U)² + sd(M)²) with z the normal quantile of the
  interval level (two-sided): U lies outside the model's predictive interval for what
  ``estimate`` would report if these tasks were run again. Then the model is contradicted by
  the data at that k and the output says so, leading with the unbiased number.
* **Extrapolation.** Above the largest number of decided runs of a system's tasks no task
  shows its pass^k: the value is the model's (its shape beyond the data), and the output names
  the model that made it.

Examples
--------
>>> import numpy as np
>>> rows = agreement_rows(np.array([4, 4, 4, 4]), np.array([4, 4, 0, 2]), np.full(4, 0.25),
...                       {("pass_hat_k", 2): np.full(100, 0.55)}, ci=0.95)
>>> rows[0]["estimate"], rows[0]["disagrees"]     # U = (1 + 1 + 0 + 1/6) / 4
(0.5416666666666666, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from passhat.estimators import pass_at_k, pass_hat_k
from passhat.intervals import benchmark_se

__all__ = ["AGREEMENT_COLUMNS", "agreement_rows", "extrapolated"]

#: The columns of :meth:`passhat.Fit.agreement`.
AGREEMENT_COLUMNS = (
    "system",
    "metric",
    "k",
    "model_mean",
    "model_sd",
    "estimate",
    "estimate_se",
    "z",
    "disagrees",
    "ci",
)


def agreement_rows(
    n: NDArray[Any],
    c: NDArray[Any],
    weight: NDArray[np.float64],
    bench: Mapping[tuple[str, int], NDArray[np.float64]],
    *,
    ci: float,
) -> list[dict[str, Any]]:
    """One system's agreement rows: for each (metric, k) of ``bench`` (the model's
    benchmark-scope draws) with k at most the fewest runs of a task, the model's mean and sd,
    the unbiased estimate with its standard error, z = (M − U) / √(se² + sd²) and whether
    |z| exceeds the two-sided normal quantile of ``ci``."""
    nn = np.asarray(n, dtype=float)
    cc = np.asarray(c, dtype=float)
    w = np.asarray(weight, dtype=float)
    w = w / w.sum()
    crit = float(stats.norm.ppf(0.5 + ci / 2))
    rows = []
    for (metric, k), draws in bench.items():
        if nn.size == 0 or k > nn.min():
            continue
        est = pass_hat_k(nn, cc, k) if metric != "pass_at_k" else pass_at_k(nn, cc, k)
        u = float(w @ est)
        se, _ = benchmark_se(nn, cc, k=k, metric=metric, weights=w)
        m, sd = float(np.mean(draws)), float(np.std(draws))
        scale = float(np.hypot(se, sd))
        z = (m - u) / scale if scale > 0 else 0.0
        rows.append(
            {"metric": metric, "k": int(k), "model_mean": m, "model_sd": sd, "estimate": u,
             "estimate_se": se, "z": z, "disagrees": bool(abs(z) > crit), "ci": ci}
        )  # fmt: skip
    return rows


def extrapolated(k: int, n_max: int) -> bool:
    """Whether k lies above the largest number of decided runs of a system's tasks.

    Examples
    --------
    >>> extrapolated(10, 5), extrapolated(5, 5)
    (True, False)
    """
    return int(k) > int(n_max)
