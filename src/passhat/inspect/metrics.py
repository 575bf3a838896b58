"""The interval metric: in each view of passhat's reducers, the value and its two intervals.

Inspect computes a task's metrics once per epoch reducer, over the samples' reduced scores.
In the view of one of passhat's reducers (:mod:`passhat.inspect.reducers`) each reduced
score carries its sample's counts (n scored epochs, c successes), so the metric has the count
table :func:`passhat.estimate` needs, and returns (for ``passhat/pass_hat_2``)::

    {"pass^2": 0.533,                      # the benchmark value (= accuracy())
     "benchmark_lower": 0.30, "benchmark_upper": 0.70,     # these samples
     "population_lower": 0.20, "population_upper": 0.81}   # samples like these

which Inspect shows as five metrics of the group ``interval`` beside ``accuracy``. **Scope**:
``benchmark`` is the value over these samples, uncertain only through their finitely many
epochs; ``population`` is the expected value for samples drawn like these (adds which samples
were drawn). **Method**: the one passhat's rule picks (:mod:`passhat.scopes`: the task
bootstrap or a normal interval with 30 samples or more, the hierarchical Beta-Binomial
posterior with fewer); the metric's parameters (``ci``, ``n_boot``, ``seed``) are in the log
beside each value, and the method of each interval is in the JSON the hook writes
(:mod:`passhat.inspect.hook`). The values equal ``passhat.estimate(passhat.read(log), k=k,
ci=ci)``: same counts, same seed, same system name (the model evaluated: each system's random
stream derives from the seed and its name).

In the view of any other reducer (Inspect's ``pass_k``, ``mean``, …) the reduced scores hold no
counts: the metric adds nothing there, and says so once in Inspect's log.

Examples
--------
>>> from inspect_ai.scorer import SampleScore, Score
>>> from passhat.inspect.reducers import pass_hat_reducer
>>> reduce = pass_hat_reducer(2)
>>> runs = {"a": "CCCC", "b": "CCIC", "c": "IIII", "d": "CICC", "e": "CCCC", "f": "ICII"}
>>> views = [SampleScore(score=reduce([Score(value=v) for v in r]), sample_id=s)
...          for s, r in runs.items()]
>>> out = passhat_interval(ci=0.9)(views)
>>> sorted(out)
['benchmark_lower', 'benchmark_upper', 'pass^2', 'population_lower', 'population_upper']
>>> round(out["pass^2"], 4)
0.5
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from inspect_ai.scorer import Metric, SampleScore, metric

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, check_n_boot
from passhat.errors import FormatError, OptionError
from passhat.inspect.reducers import METADATA_KEY
from passhat.inspect.settings import mark_used

__all__ = [
    "ViewCounts",
    "evaluated_model",
    "interval",
    "interval_values",
    "passhat_interval",
    "view_counts",
]

logger = logging.getLogger(__name__)
_warned = {"other_view": False}


@dataclass(frozen=True)
class ViewCounts:
    """The count table of one reducer's view: which estimate, and each sample's counts."""

    metric: str
    k: int
    samples: tuple[str, ...]
    n: tuple[int, ...]
    c: tuple[int, ...]
    system: str | None = None  # the model evaluated (None: passhat's default system name)

    @property
    def label(self) -> str:
        """The value's name in Inspect's results (``pass^2``, ``pass@2``, ``mean``)."""
        return {"pass_hat_k": f"pass^{self.k}", "pass_at_k": f"pass@{self.k}"}.get(
            self.metric, "mean"
        )


def evaluated_model() -> str | None:
    """The name of the model Inspect is evaluating (``mockllm/model``), None outside an eval.

    passhat's reader names the log's system after ``log.eval.model``, and each system's random
    stream derives from the seed and its name: with the same name the metric's intervals are
    those of ``passhat.estimate`` on the log. Inspect keeps the model in a context variable;
    its accessor is not exported, so a future Inspect without it gives None (intervals then
    as valid, on another stream).
    """
    try:
        from inspect_ai.model._model import active_model
    except ImportError:  # pragma: no cover - a future Inspect
        return None
    model = active_model()
    return None if model is None else str(model)


def view_counts(scores: list[SampleScore], *, system: str | None = None) -> ViewCounts | None:
    """The counts passhat's reducers left in a view's reduced scores; None when the view is
    another reducer's (no counts in the scores' metadata).

    Examples
    --------
    >>> from inspect_ai.scorer import SampleScore, Score
    >>> view_counts([SampleScore(score=Score(value=0.5), sample_id=1)]) is None
    True
    """
    found = [(s.score.metadata or {}).get(METADATA_KEY) for s in scores]
    if not scores or any(not isinstance(f, Mapping) for f in found):
        return None
    kinds = {(f["metric"], int(f["k"])) for f in found if f is not None}
    if len(kinds) != 1:
        raise FormatError(
            f"passhat interval: one view holds scores of several reducers ({sorted(kinds)}); "
            "each of passhat's reducers is a view of its own"
        )
    ids = [str(s.sample_id) for s in scores]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise FormatError(
            f"passhat interval: sample id(s) {', '.join(repeated[:5])} appear more than once in "
            "one reduced view; each sample is one task"
        )
    ((metric_name, k),) = kinds
    return ViewCounts(
        metric=metric_name,
        k=k,
        samples=tuple(ids),
        n=tuple(int(f["n"]) for f in found if f is not None),
        c=tuple(int(f["c"]) for f in found if f is not None),
        system=system,
    )


def interval_values(view: ViewCounts, *, ci: float, n_boot: int, seed: int) -> dict[str, float]:
    """The value and its benchmark and population intervals, by :func:`passhat.estimate`.

    Examples
    --------
    >>> v = ViewCounts("pass_at_k", 2, ("a", "b", "c"), (4, 4, 4), (4, 1, 0))
    >>> out = interval_values(v, ci=0.9, n_boot=1000, seed=0)
    >>> round(out["pass@2"], 4), out["population_lower"] < out["pass@2"] < out["population_upper"]
    (0.5, True)
    """
    import passhat as ph
    from passhat.trials import DEFAULT_SYSTEM

    counts = ph.counts_from_arrays(
        list(view.n), list(view.c), tasks=list(view.samples), system=view.system or DEFAULT_SYSTEM
    )
    est = ph.estimate(counts, k=[view.k], ci=ci, n_boot=n_boot, seed=seed)
    rows = est.table[(est.table["metric"] == view.metric) & (est.table["k"] == view.k)]
    out = {view.label: float(rows["value"].iloc[0])}
    for scope in ("benchmark", "population"):
        row = rows[rows["scope"] == scope].iloc[0]
        out[f"{scope}_lower"] = float(row["lower"])
        out[f"{scope}_upper"] = float(row["upper"])
    return out


@metric(name="interval")
def interval(ci: float = 0.95, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED) -> Metric:
    """The registered metric ``passhat/interval`` (:func:`passhat_interval` is how to create it:
    it names every parameter, so the log records all three)."""
    level, draws = check_ci(ci), check_n_boot(n_boot)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise OptionError(f"{{param}} must be a whole number ≥ 0 (got {seed!r})", param="seed")
    mark_used()

    def interval(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:  # Inspect asks for the shape of an empty view: none
            return {}
        view = view_counts(scores, system=evaluated_model())
        if view is None:
            if not _warned["other_view"]:
                _warned["other_view"] = True
                logger.warning(
                    "passhat interval: the views of reducers that are not passhat's (e.g. "
                    "Inspect's pass_k or mean) hold no counts and get no interval; "
                    "passhat_reducers(k=...) gives the views that do"
                )
            return {}
        return interval_values(view, ci=level, n_boot=draws, seed=int(seed))

    return interval


def passhat_interval(
    ci: float = 0.95, *, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED
) -> Metric:
    """passhat's value with its benchmark- and population-scope intervals, per reducer view.

    Parameters
    ----------
    ci : float
        Interval level in (0, 1).
    n_boot : int
        Bootstrap resamples or posterior draws (≥ 100).
    seed : int
        Seed of the resampling.

    Returns
    -------
    Metric
        ``passhat/interval`` with ``ci``, ``n_boot`` and ``seed`` recorded as its parameters in
        the log. Over a view of passhat's reducers it gives ``{label, "benchmark_lower",
        "benchmark_upper", "population_lower", "population_upper"}``; over any other view,
        nothing.

    Examples
    --------
    >>> from inspect_ai._util.registry import registry_info, registry_params
    >>> m = passhat_interval(ci=0.9)
    >>> registry_info(m).name, registry_params(m)
    ('passhat/interval', {'ci': 0.9, 'n_boot': 10000, 'seed': 0})
    >>> passhat_interval(ci=1.5)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: ci must lie strictly between 0 and 1, e.g. 0.95 (got 1.5)
    """
    return interval(ci=ci, n_boot=n_boot, seed=seed)
