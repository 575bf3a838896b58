"""Inspect's entry point into passhat (``[project.entry-points.inspect_ai]`` in pyproject.toml).

Inspect imports this module when it looks for extensions (at the start of an eval, or to find
``passhat/...`` by name): importing it registers the reducers ``passhat/pass_hat``,
``passhat/pass_at`` and ``passhat/mean``, the metric ``passhat/interval`` and the hook
``passhat/estimate``. It imports nothing heavy: passhat's estimators load when a reducer or
the metric first computes.
"""

from __future__ import annotations

from passhat.inspect.hook import PasshatHook
from passhat.inspect.metrics import interval
from passhat.inspect.reducers import registered_mean, registered_pass_at, registered_pass_hat

__all__ = [
    "PasshatHook",
    "interval",
    "registered_mean",
    "registered_pass_at",
    "registered_pass_hat",
]
