"""Epoch reducers: each sample's epochs reduced to its unbiased pass^k, pass@k or success rate.

A sample run for n scored epochs, c of them successes, is one task of passhat's count table.
Each reducer returns the sample's unbiased estimate (:mod:`passhat.estimators`):
pass^k = C(c, k) / C(n, k) (``passhat/pass_hat``, logged ``passhat/pass_hat_2`` for k = 2),
pass@k = 1 − C(n − c, k) / C(n, k) (``passhat/pass_at``) and the success rate c / n
(``passhat/mean``), and records ``{"metric", "k", "n", "c", "unscored", "threshold"}`` under
``"passhat"`` in the reduced score's metadata, where :func:`~passhat.inspect.passhat_interval`
finds the counts its intervals need. The mean over samples (Inspect's ``accuracy()``) is
passhat's benchmark value with equal task weights, and equals Inspect's own ``pass_k(k)`` /
``pass_at(k)`` reducers'.

**Success and unscored epochs, as passhat's Inspect reader counts them.** A score value becomes
a number by Inspect's ``value_to_float`` (C = 1, I = 0, P = 0.5, N = 0, booleans, numbers);
the epoch succeeds when that number is ≥ ``threshold`` (default 1.0, the ``value`` default of
Inspect's ``pass_k``). A NaN score (Inspect's unscored sentinel) is left out of n, and so is an
epoch that errored (Inspect gives a reducer no score of it; passhat's reader counts it
unscored). A sample with fewer than k scored epochs has no estimate: its reduced value is NaN,
which Inspect leaves out of every metric and counts as unscored, as Inspect's ``pass_k`` does.
passhat's ``mean`` is the success rate at the threshold, so a partial ``P`` counts 0 (Inspect's
``mean`` reducer counts 0.5); with C/I scores the two agree.

Examples
--------
>>> from inspect_ai.scorer import Score
>>> reduce = pass_hat_reducer(2)
>>> out = reduce([Score(value=v) for v in "CCIC"])
>>> round(out.value, 4), out.metadata["passhat"]["n"], out.metadata["passhat"]["c"]
(0.5, 4, 3)
>>> out.explanation
'3 of 4 scored epochs succeeded: pass^2 = C(3, 2) / C(4, 2) = 0.500'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from inspect_ai.scorer import Score, ScoreReducer, ValueToFloat, score_reducer
from inspect_ai.scorer import value_to_float as inspect_value_to_float

from passhat.errors import FormatError, OptionError
from passhat.inspect.settings import mark_used

__all__ = [
    "METADATA_KEY",
    "TO_FLOAT",
    "mean_reducer",
    "pass_at_reducer",
    "pass_hat_reducer",
    "passhat_reducers",
    "sample_counts",
]

#: Key of the reduced score's metadata holding the sample's counts.
METADATA_KEY = "passhat"
#: Inspect's default score-value-to-number function (C 1, I 0, P 0.5, N 0, numbers, booleans).
TO_FLOAT = inspect_value_to_float()

_FORMULA = {
    "pass_hat_k": "pass^{k} = C({c}, {k}) / C({n}, {k}) = {v:.3f}",
    "pass_at_k": "pass@{k} = 1 − C({f}, {k}) / C({n}, {k}) = {v:.3f}",
    "mean": "mean = {c} / {n} = {v:.3f}",
}


def sample_counts(
    scores: Sequence[Score], *, threshold: float, to_float: ValueToFloat
) -> tuple[int, int, int]:
    """A sample's scored epochs n, successes c and unscored epochs (NaN scores).

    Examples
    --------
    >>> from inspect_ai.scorer import Score
    >>> sample_counts([Score(value=v) for v in ("C", "P", float("nan"), 1)], threshold=1.0,
    ...               to_float=TO_FLOAT)
    (3, 2, 1)
    """
    n = c = unscored = 0
    for score in scores:
        value = score.value
        if isinstance(value, dict | list):
            raise FormatError(
                "passhat's reducers count successes of a scalar score (C/I/P/N, bool or "
                f"number); this scorer gave {type(value).__name__} value {str(value)[:120]}: "
                "reduce it with Inspect's reducers, or score with a scalar scorer"
            )
        number = value_to_float_or_nan(value, to_float)
        if math.isnan(number):
            unscored += 1
            continue
        n += 1
        c += int(number >= threshold)
    return n, c, unscored


def value_to_float_or_nan(value: Any, to_float: ValueToFloat) -> float:
    """The number of a scalar score value; NaN for Inspect's unscored sentinel."""
    if isinstance(value, float) and math.isnan(value):
        return math.nan
    return float(to_float(value))


def _estimate(metric: str, n: int, c: int, k: int) -> float:
    """The sample's unbiased estimate (passhat's estimators: numpy, imported when first used)."""
    from passhat.estimators import mean_success, pass_at_k, pass_hat_k

    if metric == "mean":
        return float(mean_success(n, c))
    fn = pass_hat_k if metric == "pass_hat_k" else pass_at_k
    return float(fn(n, c, k))


def _reduce(
    scores: list[Score], metric: str, k: int, threshold: float, to_float: ValueToFloat
) -> Score:
    """One sample's reduced score: its estimate, the sentence saying how, its counts."""
    n, c, unscored = sample_counts(scores, threshold=threshold, to_float=to_float)
    counts = {"metric": metric, "k": k, "n": n, "c": c, "unscored": unscored,
              "threshold": threshold}  # fmt: skip
    if n < k or n == 0:
        value = math.nan
        why = f"{n} scored epoch(s), fewer than k = {k}: no estimate"
    else:
        value = _estimate(metric, n, c, k)
        formula = _FORMULA[metric].format(k=k, n=n, c=c, f=n - c, v=value)
        why = f"{c} of {n} scored epochs succeeded: {formula}"
    if unscored:
        why += f" ({unscored} unscored epoch(s) left out)"
    answers = {s.answer for s in scores}
    first = scores[0].metadata if scores else None
    return Score(
        value=value,
        answer=scores[0].answer if scores and len(answers) == 1 else None,
        explanation=why,
        metadata={**(first or {}), METADATA_KEY: counts},
    )


def _check(k: object, threshold: object) -> tuple[int, float]:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise OptionError(f"{{param}} must be a whole number ≥ 1 (got {k!r})", param="k")
    try:
        level = float(threshold)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        level = math.nan
    if isinstance(threshold, bool) or not math.isfinite(level):
        raise OptionError(
            f"{{param}} must be a finite number, e.g. 1.0 (got {threshold!r})", param="threshold"
        )
    return int(k), level


# The registered reducers (what Inspect creates by name, e.g. ``--epochs-reducer
# passhat/pass_hat_2``). Inspect's decorator hides their docstrings and signatures, so the
# documented functions below create them, naming each parameter.
@score_reducer(name="passhat/pass_hat")
def registered_pass_hat(
    k: int, threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    k, level = _check(k, threshold)
    mark_used()

    def pass_hat(scores: list[Score]) -> Score:
        return _reduce(scores, "pass_hat_k", k, level, value_to_float)

    return pass_hat


@score_reducer(name="passhat/pass_at")
def registered_pass_at(
    k: int, threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    k, level = _check(k, threshold)
    mark_used()

    def pass_at(scores: list[Score]) -> Score:
        return _reduce(scores, "pass_at_k", k, level, value_to_float)

    return pass_at


@score_reducer(name="passhat/mean")
def registered_mean(
    threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    _, level = _check(1, threshold)
    mark_used()

    def mean(scores: list[Score]) -> Score:
        return _reduce(scores, "mean", 1, level, value_to_float)

    return mean


def _whole(k: Any) -> Any:
    """A numpy whole number as an int (Inspect writes the logged name from the value given)."""
    return int(k) if isinstance(k, numbers.Integral) and not isinstance(k, bool) else k


def _own(value_to_float: ValueToFloat) -> dict[str, ValueToFloat]:
    """``value_to_float`` as a creation argument when it is not Inspect's default."""
    return {} if value_to_float is TO_FLOAT else {"value_to_float": value_to_float}


def pass_hat_reducer(
    k: int, *, threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    """Each sample's unbiased pass^k: the chance that k of its epochs all succeed.

    Parameters
    ----------
    k : int
        Epochs that must all succeed (≤ the task's epochs).
    threshold : float
        An epoch succeeds when its score's number is ≥ this (default 1.0: only C / 1 / true).
    value_to_float : callable
        Inspect's score-value-to-number function (default: Inspect's ``value_to_float()``).

    Returns
    -------
    ScoreReducer
        The reducer ``passhat/pass_hat`` (logged as ``passhat/pass_hat_{k}``).

    Examples
    --------
    >>> from inspect_ai.scorer import Score
    >>> pass_hat_reducer(2)([Score(value=v) for v in "CCCI"]).value
    0.5
    """
    return registered_pass_hat(_whole(k), threshold=threshold, **_own(value_to_float))


def pass_at_reducer(
    k: int, *, threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    """Each sample's unbiased pass@k: the chance that at least one of k epochs succeeds.

    Parameters and return as :func:`pass_hat_reducer` (``passhat/pass_at``, logged as
    ``passhat/pass_at_{k}``).

    Examples
    --------
    >>> from inspect_ai.scorer import Score
    >>> pass_at_reducer(2)([Score(value=v) for v in "CIII"]).value
    0.5
    """
    return registered_pass_at(_whole(k), threshold=threshold, **_own(value_to_float))


def mean_reducer(
    *, threshold: float = 1.0, value_to_float: ValueToFloat = TO_FLOAT
) -> ScoreReducer:
    """Each sample's success rate c / n (pass^1 = pass@1) at the threshold.

    Parameters as :func:`pass_hat_reducer` without k; the reducer is ``passhat/mean``.

    Examples
    --------
    >>> from inspect_ai.scorer import Score
    >>> mean_reducer()([Score(value=v) for v in "CCPI"]).value  # P fails at threshold 1
    0.5
    """
    return registered_mean(threshold=threshold, **_own(value_to_float))


#: The metrics :func:`passhat_reducers` gives by default, in its order.
DEFAULT_METRICS = ("pass_hat_k", "pass_at_k", "mean")


def passhat_reducers(
    k: int | Sequence[int],
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    threshold: float = 1.0,
) -> list[ScoreReducer]:
    """passhat's reducers for ``Epochs(n, passhat_reducers(k=...))``.

    Parameters
    ----------
    k : int or sequence of int
        The k values (each ≤ the task's epochs).
    metrics : sequence of {"pass_hat_k", "pass_at_k", "mean"}
        Which reducers, one per k for pass^k and pass@k, one mean; in the order pass^k for
        every k, pass@k for every k, mean (the first is Inspect's headline).
    threshold : float
        Success is a score's number ≥ this (see :func:`pass_hat_reducer`).

    Returns
    -------
    list of ScoreReducer

    Examples
    --------
    >>> from inspect_ai._util.registry import registry_log_name
    >>> from inspect_ai.scorer._reducer import reducer_log_name
    >>> [reducer_log_name(r) for r in passhat_reducers(k=[2, 4])]
    ['passhat/pass_hat_2', 'passhat/pass_hat_4', 'passhat/pass_at_2', 'passhat/pass_at_4', \
'passhat/mean']
    """
    from passhat._validate import norm_k

    ks = norm_k(k)
    chosen = list(metrics) if not isinstance(metrics, str) else [metrics]
    unknown = [m for m in chosen if m not in DEFAULT_METRICS]
    if unknown or not chosen:
        raise OptionError(
            f"{{param}} must name some of {', '.join(DEFAULT_METRICS)} (got {metrics!r})",
            param="metrics",
        )
    out: list[ScoreReducer] = []
    if "pass_hat_k" in chosen:
        out += [pass_hat_reducer(kv, threshold=threshold) for kv in ks]
    if "pass_at_k" in chosen:
        out += [pass_at_reducer(kv, threshold=threshold) for kv in ks]
    if "mean" in chosen:
        out.append(mean_reducer(threshold=threshold))
    return out
