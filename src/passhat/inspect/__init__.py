"""passhat inside Inspect AI: epoch reducers, an interval metric, a hook writing the estimate.

Install with ``pip install 'passhat[inspect]'``. Importing this package imports ``inspect_ai``
(``import passhat`` and the ``passhat`` command never do). Inspect finds the reducers, the metric
and the hook through the ``inspect_ai`` entry point of passhat's package metadata
(:mod:`passhat.inspect._registry`), so ``--epochs-reducer passhat/pass_hat_2`` works on the
command line too.

The pieces
----------
:func:`passhat_reducers`
    Epoch reducers for ``Epochs(n, passhat_reducers(k=...))``: per sample, the unbiased pass^k
    (``passhat/pass_hat_k``), pass@k (``passhat/pass_at_k``) and success rate
    (``passhat/mean``) of its epochs, each with the sample's counts in the reduced score's
    metadata. Inspect's ``accuracy()`` over them is the benchmark value, equal to Inspect's
    own ``pass_k`` / ``pass_at`` reducers.
:func:`passhat_interval`
    A metric for ``Task(metrics=[accuracy(), passhat_interval()])``: in each view of passhat's
    reducers, the value (named ``pass^2``, ``pass@2``, ``mean``) and its two intervals,
    ``benchmark_lower`` / ``benchmark_upper`` (these samples; only their finitely many
    epochs) and ``population_lower`` / ``population_upper`` (samples like these), computed by
    :func:`passhat.estimate` with the method its rule picks.
:class:`PasshatHook`
    Inspect hook ``passhat/estimate``: at the end of a run, when the ``PASSHAT_INSPECT``
    environment variable or the task's metadata (``{"passhat": ...}``) asks, writes
    ``passhat-<log name>.json`` (``Estimate.to_dict()``, every interval's scope and method)
    and optionally the report beside each log (:mod:`passhat.inspect.settings`).

Examples
--------
>>> from inspect_ai import Epochs, Task
>>> from inspect_ai.dataset import Sample
>>> from inspect_ai.scorer import accuracy, match
>>> from passhat.inspect import passhat_interval, passhat_reducers
>>> task = Task(dataset=[Sample(input="2 + 2?", target="4")], scorer=match(),
...             epochs=Epochs(4, passhat_reducers(k=2)),
...             metrics=[accuracy(), passhat_interval(ci=0.9)])
>>> [r.__name__ for r in task.epochs_reducer]
['pass_hat', 'pass_at', 'mean']
"""

from __future__ import annotations

from passhat.errors import DependencyError

try:
    import inspect_ai  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised in a subprocess by the tests
    raise DependencyError(
        "passhat.inspect needs the inspect_ai package: pip install 'passhat[inspect]'"
    ) from err

from passhat.inspect.hook import PasshatHook, write_outputs
from passhat.inspect.metrics import passhat_interval
from passhat.inspect.reducers import (
    mean_reducer,
    pass_at_reducer,
    pass_hat_reducer,
    passhat_reducers,
)
from passhat.inspect.settings import ENV_VAR, HookSettings

__all__ = [
    "ENV_VAR",
    "HookSettings",
    "PasshatHook",
    "mean_reducer",
    "pass_at_reducer",
    "pass_hat_reducer",
    "passhat_interval",
    "passhat_reducers",
    "write_outputs",
]
