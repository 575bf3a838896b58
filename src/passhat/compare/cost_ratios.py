"""The cost figures of ``compare --cost`` from sums over tasks, and the two systems'
difference and ratio: shared by the percentile bootstrap and the small-sample rule.

Examples
--------
>>> import numpy as np
>>> v = metric_values(np.array([2.0, 0.1, 1.0, 0.5]), [1])   # 2 tasks: Σ1, Σcost, Σmean, Σpass^1
>>> v.round(4).tolist()   # cost / run, cost / success, cost / all-1-pass, pass^1 / cost
[0.05, 0.1, 0.2, 5.0]
>>> compare_values(v, 2 * v)[1].tolist()
[0.1, 2.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["compare_values", "metric_values"]


def metric_values(sums: NDArray[np.float64], ks: Sequence[int]) -> NDArray[np.float64]:
    """The metrics of :data:`passhat.compare.cost.COST_METRICS` (k-free first, then per k)
    from the sums over tasks of (1, cost per run, mean success, pass^k for each k) along the
    last axis (∞ where a cost is divided by 0 success, NaN for 0 / 0).

    Examples
    --------
    >>> import numpy as np
    >>> metric_values(np.array([1.0, 1.0, 0.0, 0.0]), [2]).tolist()
    [1.0, inf, inf, 0.0]
    """
    kk = np.asarray(ks, dtype=float)
    tasks, cost, mean, hat = sums[..., :1], sums[..., 1:2], sums[..., 2:3], sums[..., 3:]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.concatenate(
            [cost / tasks, cost / mean, kk * cost / hat, hat / (kk * cost)], axis=-1
        )


def compare_values(base: NDArray[np.float64], cand: NDArray[np.float64]) -> NDArray[np.float64]:
    """Difference and ratio candidate − / ÷ baseline (NaN where undefined: ∞ − ∞, 0 / 0,
    ∞ / ∞), stacked on a new last axis.

    Examples
    --------
    >>> import numpy as np
    >>> compare_values(np.array([2.0, np.inf]), np.array([3.0, np.inf])).tolist()
    [[1.0, 1.5], [nan, nan]]
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.stack([cand - base, cand / base], axis=-1)
