"""Labels of the metrics as every output writes them (``pass@k``, ``pass^k``).

A module of words only, so that what shows results (the report's sections, the CLI's views)
can name a metric without importing the estimators.

Examples
--------
>>> METRIC_LABELS["pass_hat_k"]
'pass^k'
"""

from __future__ import annotations

__all__ = ["DEFAULT_SYSTEM", "METRIC_LABELS"]

#: The name of the one system of data that name none (a file without a system column).
DEFAULT_SYSTEM = "system"

#: Column name → label of each metric.
METRIC_LABELS = {
    "mean": "mean",
    "pass_at_k": "pass@k",
    "pass_hat_k": "pass^k",
    # scores in [0, 1] (``scores=True``): the mean score and the expected best / worst of k
    "mean_score": "mean score",
    "best_of_k": "best of k",
    "worst_of_k": "worst of k",
}
