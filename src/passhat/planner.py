"""Planning an eval budget: runs, tasks and cost before anyone spends them.

Closed forms (each returns a :class:`PlanResult` that compares equal to its
answer and carries the reasoning and the assumptions behind it):

* :func:`runs_to_detect` — runs to see at least one failure with probability q
  at flip rate f: ⌈ln(1−q)/ln(1−f)⌉ (10% → 29, 5% → 59 at q = 95%);
* :func:`failure_upper_bound` — exact one-sided Clopper–Pearson upper bound on
  the per-run failure rate after x failures in n runs (x = 0: 1 − α^(1/n));
* :func:`runs_to_certify` — runs needed so that x allowed failures still
  certify a failure rate below f₀;
* :func:`runs_for_width` — runs for a per-task interval half-width (Wilson or
  Clopper–Pearson, exact search);
* :func:`gate` — retry-until-green 1−(1−p)^k vs all-k-must-pass p^k;
* :func:`rate_for_pass_hat_k` — per-task rate r^(1/k) needed for pass^k ≥ r;
* :func:`choose_k` — the k of a pass^k gate for a failure rate you cannot ship.

Where several quantities can be solved for, leave exactly one of them as
``None`` and it is solved for (the pattern of pingouin's power functions).

Design and power use the two-level Beta-Binomial model of DESIGN.md:
p_i ~ Beta(μκ, (1−μ)κ), c_i | p_i ~ Binomial(n, p_i). :func:`design` tabulates
the standard errors of the benchmark- and population-scope mean, pass@k and
pass^k over every efficient (tasks, runs per task) pair of a budget, exactly:
the unbiased per-task estimator is averaged over the BetaBinomial(n, a, b)
pmf of c (n + 1 values). :func:`power` gives the tasks × runs needed to detect
a difference between two systems on matched tasks (paired analysis).

Simulation checks (:func:`simulate_design`, :func:`simulate_power`) are pure
numpy; :func:`sweep` maps them over a grid in parallel through dask.

Examples
--------
>>> import passhat as ph
>>> ph.plan.runs_to_detect(flip_rate=0.1, confidence=0.95) == 29
True
>>> round(float(ph.plan.failure_upper_bound(runs=30, failures=0, confidence=0.95)), 3)
0.095
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray
from scipy import optimize, special, stats

from passhat._format import pct
from passhat._validate import make_rng
from passhat.errors import DependencyError, InputError, OptionError
from passhat.estimators import METRIC_LABELS, as_counts, subset_overlap_weights, subset_ratio
from passhat.trials import Trials

__all__ = [
    "ASSUMPTIONS",
    "Assumptions",
    "PlanResult",
    "choose_k",
    "design",
    "design_check",
    "failure_upper_bound",
    "from_counts",
    "gate",
    "power",
    "power_grid",
    "power_table",
    "rate_for_pass_hat_k",
    "runs_for_width",
    "runs_to_certify",
    "runs_to_detect",
    "seed_tables",
    "simulate_design",
    "simulate_power",
    "sweep",
]

#: What every closed form assumes about the runs.
ASSUMPTIONS: tuple[str, ...] = (
    "runs are independent",
    "runs are identically distributed (one fixed per-run rate)",
    "every run starts from a clean state",
)

_MODEL_ASSUMPTIONS: tuple[str, ...] = (
    "tasks are a random sample from the population the benchmark represents",
    "per-task success rates follow a Beta(μκ, (1−μ)κ) distribution",
    "runs of a task are independent given its rate, each from a clean state",
)

MetricName = Literal["mean", "pass_at_k", "pass_hat_k"]
_METRICS: tuple[str, ...] = ("mean", "pass_at_k", "pass_hat_k")
_LABEL = METRIC_LABELS


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class PlanResult:
    """The answer of a planning query, with the numbers, reasoning and assumptions.

    Compares equal to its answer (``runs_to_detect(...) == 29``) and converts
    with ``int()``/``float()``.

    Attributes
    ----------
    query : str
        The planner function that answered.
    solved_for : str
        The quantity that was ``None`` and got solved for.
    value : float or int
        The answer.
    quantities : dict
        Every input and derived quantity by name.
    reasoning : str
        One or two sentences built from the numbers.
    assumptions : tuple of str
        What the answer assumes.
    method : str
        How it was computed.
    """

    query: str
    solved_for: str
    value: float | int
    quantities: dict[str, Any]
    reasoning: str
    assumptions: tuple[str, ...] = ASSUMPTIONS
    method: str = "closed form"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PlanResult):
            return (self.query, self.solved_for, self.value, self.quantities) == (
                other.query,
                other.solved_for,
                other.value,
                other.quantities,
            )
        if isinstance(other, numbers.Number):
            return bool(self.value == other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.query, self.solved_for, self.value))

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __lt__(self, other: float) -> bool:
        return bool(self.value < float(other))

    def __le__(self, other: float) -> bool:
        return bool(self.value <= float(other))

    def __gt__(self, other: float) -> bool:
        return bool(self.value > float(other))

    def __ge__(self, other: float) -> bool:
        return bool(self.value >= float(other))

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "query": self.query,
            "solved_for": self.solved_for,
            "value": self.value,
            "quantities": dict(self.quantities),
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "method": self.method,
        }


# --------------------------------------------------------------- validation
def _prob(name: str, x: Any, *, closed_low: bool = False) -> float:
    """A number strictly inside (0, 1) (or [0, 1) when closed_low)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{name} must be a number in (0, 1) (got {x!r})")
    v = float(x)
    lo_ok = v >= 0 if closed_low else v > 0
    if not (math.isfinite(v) and lo_ok and v < 1):
        bounds = "[0, 1)" if closed_low else "(0, 1)"
        raise OptionError(f"{name} must lie in {bounds} (got {v:g})")
    return v


def _whole(name: str, x: Any, *, minimum: int = 0) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{name} must be a whole number ≥ {minimum} (got {x!r})")
    v = float(x)
    if not math.isfinite(v) or v != math.floor(v) or v < minimum:
        raise OptionError(f"{name} must be a whole number ≥ {minimum} (got {x!r})")
    return int(v)


def _one_none(query: str, **values: Any) -> str:
    missing = [k for k, v in values.items() if v is None]
    if len(missing) != 1:
        names = ", ".join(f"{k}=" for k in values)
        got = "none" if not missing else ", ".join(missing)
        raise OptionError(
            f"{query}: leave exactly one of {names} as None to solve for it (None: {got})"
        )
    return missing[0]


def _failures_text(x: int) -> str:
    return "no failures" if x == 0 else f"at most {x} failure{'s' if x != 1 else ''}"


def _ceil(x: float) -> int:
    """Ceiling that ignores floating-point noise just above an integer."""
    return math.ceil(x - 1e-9 * max(1.0, abs(x)))


# ------------------------------------------------------------- closed forms
def runs_to_detect(
    *,
    flip_rate: float | None = None,
    confidence: float | None = 0.95,
    runs: int | None = None,
) -> PlanResult:
    """Runs needed to see at least one failure with probability ``confidence``.

    A task that fails a share ``flip_rate`` of its runs shows at least one
    failure in n runs with probability 1 − (1 − f)^n, so
    n = ⌈ln(1 − q) / ln(1 − f)⌉. Leave exactly one of ``flip_rate``,
    ``confidence``, ``runs`` as None to solve for it.

    Parameters
    ----------
    flip_rate : float in (0, 1), optional
        Per-run failure probability f of the task.
    confidence : float in (0, 1), optional
        Required probability q of seeing at least one failure (default 0.95).
    runs : int ≥ 1, optional
        Number of runs.

    Returns
    -------
    PlanResult

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_to_detect(flip_rate=0.10, confidence=0.95)), int(
    ...     plan.runs_to_detect(flip_rate=0.05))
    (29, 59)
    """
    target = _one_none("runs_to_detect", flip_rate=flip_rate, confidence=confidence, runs=runs)
    if target == "runs":
        f = _prob("flip_rate", flip_rate)
        q = _prob("confidence", confidence)
        n = _ceil(math.log1p(-q) / math.log1p(-f))
        n = max(n, 1)
        miss = math.exp(n * math.log1p(-f))  # (1 − f)^n without rounding 1 − f to 1
        got = -math.expm1(n * math.log1p(-f))
        value: float | int = n
        reasoning = (
            f"A task that fails {pct(f)} of its runs shows no failure in n runs with "
            f"probability {1 - f:g}^n; {n} runs make that at most {pct(1 - q)} "
            f"({1 - f:g}^{n} = {pct(miss, 2)}), so at least one failure shows "
            f"with probability {pct(got, 2)} ≥ {pct(q)}."
        )
        quantities = {"flip_rate": f, "confidence": q, "runs": n, "achieved_confidence": got}
    elif target == "confidence":
        f = _prob("flip_rate", flip_rate)
        n = _whole("runs", runs, minimum=1)
        value = -math.expm1(n * math.log1p(-f))
        reasoning = (
            f"With {n} runs a task that fails {pct(f)} of its runs shows at least one failure "
            f"with probability 1 − {1 - f:g}^{n} = {pct(value, 2)}."
        )
        quantities = {"flip_rate": f, "confidence": value, "runs": n}
    else:
        q = _prob("confidence", confidence)
        n = _whole("runs", runs, minimum=1)
        value = -math.expm1(math.log1p(-q) / n)
        reasoning = (
            f"{n} runs show at least one failure with probability ≥ {pct(q)} only for tasks "
            f"that fail at least {pct(value, 2)} of their runs (1 − (1 − q)^(1/n)); rarer "
            "flips can pass unseen."
        )
        quantities = {"flip_rate": value, "confidence": q, "runs": n}
    return PlanResult("runs_to_detect", target, value, quantities, reasoning)


def failure_upper_bound(*, runs: int, failures: int = 0, confidence: float = 0.95) -> PlanResult:
    """Exact one-sided (Clopper–Pearson) upper bound on the per-run failure rate.

    After x failures in n runs the bound is the (confidence) quantile of
    Beta(x + 1, n − x); with x = 0 it is 1 − α^(1/n), α = 1 − confidence.

    Examples
    --------
    >>> from passhat import plan
    >>> [round(float(plan.failure_upper_bound(runs=n)), 3) for n in (3, 5, 10, 20, 30, 60)]
    [0.632, 0.451, 0.259, 0.139, 0.095, 0.049]
    """
    n = _whole("runs", runs, minimum=1)
    x = _whole("failures", failures, minimum=0)
    if x > n:
        raise OptionError(f"failures = {x} exceeds runs = {n}")
    q = _prob("confidence", confidence)
    alpha = 1 - q
    if x == n:
        bound = 1.0
    elif x == 0:
        bound = -math.expm1(math.log(alpha) / n)
    else:
        bound = float(stats.beta.ppf(q, x + 1, n - x))
    what = "clean runs" if x == 0 else f"runs with {x} failure{'s' if x != 1 else ''}"
    reasoning = (
        f"{n} {what} rule out per-run failure rates above {pct(bound)} at {pct(q, 0)} "
        f"confidence: a higher rate would give "
        f"{'no failures' if x == 0 else f'{x} or fewer failures'} in {n} runs with "
        f"probability below {pct(alpha, 0)}."
    )
    return PlanResult(
        "failure_upper_bound",
        "failure_rate",
        bound,
        {"runs": n, "failures": x, "confidence": q, "failure_rate_upper": bound},
        reasoning,
        method="exact one-sided Clopper–Pearson",
    )


def _smallest_ok(
    ok: Callable[[int], bool], *, start: int, limit: int, too_far: str, floor: int | None = None
) -> int:
    """Smallest whole n with ``ok(n)``, for ``ok`` false below some n and true from there on.

    Brackets by doubling from ``start`` (OptionError ``too_far`` beyond ``limit``), then
    bisects between the last failing point (or ``floor``, known to fail) and the bracket.
    """
    hi = start
    while not ok(hi):
        hi *= 2
        if hi > limit:
            raise OptionError(too_far)
    lo = hi // 2 if floor is None else floor
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _cert_ok(n: NDArray[np.float64], x: int, f0: float, alpha: float) -> NDArray[np.bool_]:
    # x or fewer failures at the true rate f0 must be rare: P(X ≤ x | n, f0) ≤ α
    return np.asarray(stats.binom.cdf(x, n, f0) <= alpha)


def runs_to_certify(
    *,
    max_failure_rate: float | None = None,
    confidence: float | None = 0.95,
    allowed_failures: int = 0,
    runs: int | None = None,
) -> PlanResult:
    """Runs needed so that ``allowed_failures`` failures still certify a low failure rate.

    The smallest n whose exact one-sided Clopper–Pearson upper bound after x
    failures is at most f₀, i.e. P(X ≤ x | n, f₀) ≤ α. Leave exactly one of
    ``max_failure_rate``, ``confidence``, ``runs`` as None to solve for it.

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_to_certify(max_failure_rate=0.05, confidence=0.95))
    59
    """
    target = _one_none(
        "runs_to_certify", max_failure_rate=max_failure_rate, confidence=confidence, runs=runs
    )
    x = _whole("allowed_failures", allowed_failures, minimum=0)
    if target == "runs":
        f0 = _prob("max_failure_rate", max_failure_rate)
        q = _prob("confidence", confidence)
        alpha = 1 - q
        n = _smallest_ok(
            lambda m: bool(_cert_ok(np.array([float(m)]), x, f0, alpha)[0]),
            start=max(x + 1, 2),
            limit=10**12,
            too_far="runs_to_certify: no run count up to 10^12 certifies that",
            floor=x,  # P(X ≤ x | n ≤ x) = 1 > α: never enough
        )
        bound = float(failure_upper_bound(runs=n, failures=x, confidence=q))
        reasoning = (
            f"With {n} runs and {_failures_text(x)}, the exact "
            f"one-sided {pct(q, 0)} upper bound on the failure rate is {pct(bound, 2)} ≤ "
            f"{pct(f0)}; with {n - 1} runs it would exceed {pct(f0)}."
        )
        return PlanResult(
            "runs_to_certify",
            "runs",
            n,
            {
                "max_failure_rate": f0,
                "confidence": q,
                "allowed_failures": x,
                "runs": n,
                "upper_bound_at_runs": bound,
            },
            reasoning,
            method="exact binomial search (Clopper–Pearson)",
        )
    n = _whole("runs", runs, minimum=1)
    if x >= n:
        raise OptionError(f"allowed_failures = {x} must be below runs = {n}")
    if target == "max_failure_rate":
        q = _prob("confidence", confidence)
        res = failure_upper_bound(runs=n, failures=x, confidence=q)
        return PlanResult(
            "runs_to_certify",
            "max_failure_rate",
            res.value,
            {"max_failure_rate": res.value, "confidence": q, "allowed_failures": x, "runs": n},
            res.reasoning,
            method=res.method,
        )
    f0 = _prob("max_failure_rate", max_failure_rate)
    conf = float(1 - stats.binom.cdf(x, n, f0))
    reasoning = (
        f"{n} runs with {_failures_text(x)} certify a failure rate "
        f"below {pct(f0)} at {pct(conf, 2)} confidence (a rate of {pct(f0)} would give "
        f"so few failures with probability {pct(1 - conf, 2)})."
    )
    return PlanResult(
        "runs_to_certify",
        "confidence",
        conf,
        {"max_failure_rate": f0, "confidence": conf, "allowed_failures": x, "runs": n},
        reasoning,
        method="exact binomial (Clopper–Pearson)",
    )


def _half_width(
    n: NDArray[np.float64], rate: float, method: str, confidence: float
) -> NDArray[np.float64]:
    """Two-sided interval half-width at the expected count c = rate·n (not an approximation)."""
    alpha = 1 - confidence
    c = rate * n
    if method == "wilson":
        z = stats.norm.ppf(1 - alpha / 2)
        phat = c / n
        denom = 1 + z * z / n
        return np.asarray(z * np.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom)
    lo = np.where(c > 0, stats.beta.ppf(alpha / 2, np.maximum(c, 1e-300), n - c + 1), 0.0)
    hi = np.where(c < n, stats.beta.ppf(1 - alpha / 2, c + 1, np.maximum(n - c, 1e-300)), 1.0)
    return np.asarray((hi - lo) / 2)


def runs_for_width(
    *,
    half_width: float | None = None,
    rate: float,
    method: Literal["wilson", "clopper-pearson"] = "wilson",
    confidence: float = 0.95,
    runs: int | None = None,
) -> PlanResult:
    """Runs for a per-task interval of a given half-width around a success rate.

    Exact search: the smallest n whose two-sided interval (Wilson, or exact
    Clopper–Pearson) at the expected count c = rate·n has half-width at most
    ``half_width`` (the normal approximation z²p(1−p)/h² is not used). Leave
    ``half_width`` or ``runs`` as None to solve for it.

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_for_width(half_width=0.05, rate=0.8, method="wilson"))
    245
    """
    target = _one_none("runs_for_width", half_width=half_width, runs=runs)
    p = _prob("rate", rate, closed_low=True)
    q = _prob("confidence", confidence)
    meth = str(method).lower().replace("_", "-")
    if meth in ("cp", "beta", "exact"):
        meth = "clopper-pearson"
    if meth not in ("wilson", "clopper-pearson"):
        raise OptionError(f"method must be 'wilson' or 'clopper-pearson' (got {method!r})")
    if target == "half_width":
        n = _whole("runs", runs, minimum=1)
        hw = float(_half_width(np.array([float(n)]), p, meth, q)[0])
        reasoning = (
            f"With {n} runs at a {pct(p)} success rate the {pct(q, 0)} {meth} interval "
            f"spans ±{pct(hw, 2)} (half-width, at the expected count {p * n:g})."
        )
        return PlanResult(
            "runs_for_width",
            "half_width",
            hw,
            {"half_width": hw, "rate": p, "method": meth, "confidence": q, "runs": n},
            reasoning,
            method=f"{meth} interval at c = rate·n",
        )
    h = _prob("half_width", half_width)
    if h >= 0.5:
        raise OptionError(f"half_width must be below 0.5 (got {h:g})")

    # the half-width at c = rate·n falls smoothly with n: bracket by doubling, then bisect
    def ok(m: int) -> bool:
        return bool(_half_width(np.array([float(m)]), p, meth, q)[0] <= h)

    hi = _smallest_ok(
        ok,
        start=1,
        limit=2**40,
        too_far="runs_for_width: no run count up to 2^40 reaches that width",
    )
    # guard against a non-monotone dip just below: scan the preceding runs exactly
    ns = np.arange(max(1, hi - 64), hi + 1, dtype=float)
    n_found = int(ns[int(np.argmax(_half_width(ns, p, meth, q) <= h))])
    hw = float(_half_width(np.array([float(n_found)]), p, meth, q)[0])
    prev = float(_half_width(np.array([float(max(n_found - 1, 1))]), p, meth, q)[0])
    approx = _ceil(stats.norm.ppf(1 - (1 - q) / 2) ** 2 * p * (1 - p) / h**2)
    reasoning = (
        f"{n_found} runs give a {pct(q, 0)} {meth} interval of ±{pct(hw, 2)} around a "
        f"{pct(p)} success rate ({n_found - 1} runs: ±{pct(prev, 2)}); the normal "
        f"approximation would say {approx}."
    )
    return PlanResult(
        "runs_for_width",
        "runs",
        n_found,
        {
            "half_width": h,
            "rate": p,
            "method": meth,
            "confidence": q,
            "runs": n_found,
            "achieved_half_width": hw,
            "normal_approximation_runs": approx,
        },
        reasoning,
        method=f"exact search over n, {meth} interval at c = rate·n",
    )


def gate(*, rate: float, attempts: int) -> PlanResult:
    """Pass probability of a CI gate: retry-until-green vs all attempts must pass.

    Retrying a failed run up to k attempts passes with 1 − (1 − p)^k (a pass@k
    gate); requiring all k to pass gives p^k (a pass^k gate). The value is the
    all-must-pass probability; ``quantities["retry_until_green"]`` has the other.

    Examples
    --------
    >>> from passhat import plan
    >>> g = plan.gate(rate=0.9, attempts=3)
    >>> f"{g.quantities['retry_until_green']:.1%} vs {g.quantities['all_must_pass']:.1%}"
    '99.9% vs 72.9%'
    """
    p = _prob("rate", rate)
    k = _whole("attempts", attempts, minimum=1)
    retry = 1 - (1 - p) ** k
    all_k = p**k
    reasoning = (
        f"At a per-run pass rate of {pct(p)}, a gate that retries until green over {k} "
        f"attempts passes with 1 − {1 - p:g}^{k} = {pct(retry)} (a pass@{k} gate), while "
        f"requiring all {k} to pass gives {p:g}^{k} = {pct(all_k)} (a pass^{k} gate)."
    )
    return PlanResult(
        "gate",
        "all_must_pass",
        all_k,
        {"rate": p, "attempts": k, "retry_until_green": retry, "all_must_pass": all_k},
        reasoning,
    )


def rate_for_pass_hat_k(
    *, target: float | None = None, k: int | None = None, rate: float | None = None
) -> PlanResult:
    """Per-task success rate needed for pass^k ≥ target: r^(1/k).

    Leave exactly one of ``target``, ``k``, ``rate`` as None: ``rate`` is
    solved as target^(1/k); ``target`` as rate^k; ``k`` as the largest k with
    rate^k ≥ target.

    Examples
    --------
    >>> from passhat import plan
    >>> round(float(plan.rate_for_pass_hat_k(target=0.9, k=5)), 4)
    0.9791
    """
    solve = _one_none("rate_for_pass_hat_k", target=target, k=k, rate=rate)
    if solve == "rate":
        r = _prob("target", target)
        kk = _whole("k", k, minimum=1)
        value: float | int = r ** (1 / kk)
        reasoning = (
            f"pass^{kk} ≥ {pct(r)} needs a per-run success rate of at least "
            f"{pct(r, 1)}^(1/{kk}) = {pct(value, 2)}, i.e. a failure rate of at most "
            f"{pct(1 - value, 2)}."
        )
        q = {"target": r, "k": kk, "rate": value}
    elif solve == "target":
        p = _prob("rate", rate)
        kk = _whole("k", k, minimum=1)
        value = p**kk
        reasoning = f"A task passing {pct(p)} of its runs has pass^{kk} = {pct(value, 2)}."
        q = {"target": value, "k": kk, "rate": p}
    else:
        r = _prob("target", target)
        p = _prob("rate", rate)
        if p < r:
            raise OptionError(f"rate {p:g} is below target {r:g}: even k = 1 misses the target")
        value = max(1, math.floor(math.log(r) / math.log(p) + 1e-9))
        reasoning = (
            f"A task passing {pct(p)} of its runs keeps pass^k ≥ {pct(r)} up to k = {value} "
            f"({pct(p**value, 2)}); at k = {value + 1} it drops to {pct(p ** (value + 1), 2)}."
        )
        q = {"target": r, "k": value, "rate": p}
    return PlanResult(
        "rate_for_pass_hat_k", solve, value, q, reasoning, assumptions=ASSUMPTIONS[:2]
    )


def choose_k(
    *,
    unacceptable_failure_rate: float,
    confidence: float | None = 0.95,
    k: int | None = None,
    acceptable_failure_rate: float | None = None,
    max_false_alarm: float = 0.05,
) -> PlanResult:
    """Choose k for a pass^k gate from the per-run failure rate you cannot ship.

    A task that fails a share f of its runs fails an all-k-must-pass gate with
    probability 1 − (1 − f)^k. The smallest k that catches
    ``unacceptable_failure_rate`` with probability ≥ ``confidence`` is
    ⌈ln(1−q)/ln(1−f)⌉. With ``acceptable_failure_rate`` f_ok, k is also
    capped so that a task failing f_ok of its runs passes the gate with
    probability ≥ 1 − ``max_false_alarm``: (1 − f_ok)^k ≥ 1 − β. Leave ``k``
    or ``confidence`` as None to solve for it.

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.choose_k(unacceptable_failure_rate=0.2, confidence=0.9))
    11
    """
    solve = _one_none("choose_k", confidence=confidence, k=k)
    f = _prob("unacceptable_failure_rate", unacceptable_failure_rate)
    if solve == "confidence":
        kk = _whole("k", k, minimum=1)
        det = 1 - (1 - f) ** kk
        reasoning = (
            f"A pass^{kk} gate (all {kk} runs must pass) catches a task that fails {pct(f)} of "
            f"its runs with probability 1 − {1 - f:g}^{kk} = {pct(det, 2)}."
        )
        return PlanResult(
            "choose_k",
            "confidence",
            det,
            {"unacceptable_failure_rate": f, "k": kk, "confidence": det},
            reasoning,
        )
    q = _prob("confidence", confidence)
    k_min = int(runs_to_detect(flip_rate=f, confidence=q))
    quantities: dict[str, Any] = {
        "unacceptable_failure_rate": f,
        "confidence": q,
        "k": k_min,
        "k_min": k_min,
    }
    reasoning = (
        f"k = {k_min} is the smallest pass^k gate that fails a task with a {pct(f)} flip rate "
        f"with probability ≥ {pct(q)} (1 − {1 - f:g}^{k_min} = {pct(1 - (1 - f) ** k_min, 2)})."
    )
    if acceptable_failure_rate is not None:
        f_ok = _prob("acceptable_failure_rate", acceptable_failure_rate, closed_low=True)
        beta = _prob("max_false_alarm", max_false_alarm)
        if f_ok >= f:
            raise OptionError(
                f"acceptable_failure_rate {f_ok:g} must be below unacceptable_failure_rate {f:g}"
            )
        k_max = sys.maxsize if f_ok == 0 else math.floor(math.log1p(-beta) / math.log1p(-f_ok))
        quantities.update({"acceptable_failure_rate": f_ok, "max_false_alarm": beta})
        quantities["k_max"] = k_max
        if k_max < k_min:
            raise OptionError(
                f"no k works: catching a {pct(f)} flip rate with {pct(q)} needs k ≥ {k_min}, "
                f"but keeping false alarms for a {pct(f_ok)} rate below {pct(beta)} needs "
                f"k ≤ {k_max}; lower the confidence or move the two rates apart"
            )
        reasoning += (
            f" Any k up to {k_max} keeps a task failing {pct(f_ok)} of its runs passing the gate "
            f"with probability ≥ {pct(1 - beta)}."
        )
    return PlanResult("choose_k", "k", k_min, quantities, reasoning)


def seed_tables(*, confidence: float = 0.95) -> dict[str, pd.DataFrame]:
    """The reference tables: clean runs vs ruled-out failure rate, runs to see a flip, gate odds.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.seed_tables()
    >>> t["clean_runs"]["failure_rate_upper"].round(3).tolist()
    [0.632, 0.451, 0.259, 0.139, 0.095, 0.049]
    """
    q = _prob("confidence", confidence)
    clean = pd.DataFrame(
        {
            "runs": [3, 5, 10, 20, 30, 60],
            "failure_rate_upper": [
                float(failure_upper_bound(runs=n, failures=0, confidence=q))
                for n in (3, 5, 10, 20, 30, 60)
            ],
        }
    )
    flips = pd.DataFrame(
        {
            "flip_rate": [0.10, 0.05],
            "runs": [int(runs_to_detect(flip_rate=f, confidence=q)) for f in (0.10, 0.05)],
        }
    )
    g = gate(rate=0.9, attempts=3)
    gates = pd.DataFrame(
        [
            {
                "rate": 0.9,
                "attempts": 3,
                "retry_until_green": g.quantities["retry_until_green"],
                "all_must_pass": g.quantities["all_must_pass"],
            }
        ]
    )
    return {"clean_runs": clean, "flip_rate": flips, "gate": gates}


# ---------------------------------------------------------- model: priors
@dataclass(frozen=True)
class Assumptions:
    """Stated two-level assumptions: mean success μ and task heterogeneity.

    Per-task success rates p_i ~ Beta(μκ, (1−μ)κ); give either ``icc`` (the
    run-to-run correlation within a task, 1/(κ+1)) or ``kappa``.

    Examples
    --------
    >>> from passhat.planner import Assumptions
    >>> a = Assumptions(mean=0.77, icc=0.4)
    >>> round(a.kappa, 3), round(a.a, 3)
    (1.5, 1.155)
    """

    mean: float
    icc: float | None = None
    kappa: float | None = None
    source: str = "stated assumptions"

    def __post_init__(self) -> None:
        _prob("mean", self.mean)
        if (self.icc is None) == (self.kappa is None):
            raise OptionError("Assumptions: give exactly one of icc= or kappa=")
        if self.icc is not None:
            icc = _prob("icc", self.icc)
            object.__setattr__(self, "kappa", 1 / icc - 1)
        else:
            kap = float(self.kappa)  # type: ignore[arg-type]
            if not (math.isfinite(kap) and kap > 0):
                raise OptionError(f"kappa must be a positive number (got {self.kappa!r})")
            object.__setattr__(self, "icc", 1 / (kap + 1))

    @property
    def a(self) -> float:
        """Beta shape a = μκ."""
        return float(self.mean * self.kappa)  # type: ignore[operator]

    @property
    def b(self) -> float:
        """Beta shape b = (1 − μ)κ."""
        return float((1 - self.mean) * self.kappa)  # type: ignore[operator]

    def describe(self) -> str:
        """One line: μ, κ and ICC with their source."""
        return (
            f"mean μ = {self.mean:.3f}, κ = {self.kappa:.3g} (ICC = {self.icc:.3f}), "
            f"from {self.source}"
        )


def _pick_system(systems: list[str], system: str | None, source: Literal["data", "fit"]) -> str:
    """The system named, or the only one of ``systems``; OptionError naming the ``source``."""
    if system is None:
        if len(systems) != 1:
            holds = "the data hold" if source == "data" else "the fit holds"
            raise OptionError(
                f"{holds} {len(systems)} systems ({', '.join(systems[:5])}); name one with system="
            )
        return systems[0]
    if system not in systems:
        raise OptionError(f"system {system!r} is not in the {source} (have {', '.join(systems)})")
    return system


def from_counts(data: Trials | xr.Dataset, *, system: str | None = None) -> Assumptions:
    """Maximum-likelihood Beta-Binomial (μ, κ) of one system's count table.

    The likelihood is compressed over the distinct (n, c) pairs. κ is kept
    within [e^-6, e^12]; a fit at a limit is reported in ``source``.

    Examples
    --------
    >>> import passhat as ph
    >>> a = ph.plan.from_counts(ph.counts_from_arrays([4] * 6, [0, 0, 4, 4, 2, 1]))
    >>> 0 < a.mean < 1 and a.kappa > 0
    True
    """
    ds = as_counts(data)
    system = _pick_system([str(s) for s in ds["system"].values], system, "data")
    sub = ds.sel(system=system)
    keep = sub["n"].values > 0
    n = sub["n"].values[keep].astype(float)
    c = sub["c"].values[keep].astype(float)
    if len(n) < 2:
        raise InputError(f"system {system!r}: need at least two tasks with decided runs to fit")
    if c.sum() == 0 or (c == n).all():
        word = "fails" if c.sum() == 0 else "passes"
        raise InputError(
            f"system {system!r}: every decided run {word} ({int(n.sum())} runs, {len(n)} tasks), "
            "so the Beta-Binomial likelihood has its maximum at μ = "
            f"{0 if c.sum() == 0 else 1} for any κ: there is no spread to fit; "
            "give --mean with --icc/--kappa (prior=Assumptions(...)) instead"
        )
    pairs, mult = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    nn, cc, w = pairs[:, 0], pairs[:, 1], mult.astype(float)

    def nll(theta: NDArray[np.float64]) -> float:
        mu = special.expit(theta[0])
        kap = math.exp(theta[1])
        a, b = mu * kap, (1 - mu) * kap
        return float(-(w * (special.betaln(cc + a, nn - cc + b) - special.betaln(a, b))).sum())

    pbar = (c.sum() + 0.5) / (n.sum() + 1)
    best = None
    for lk in (-2.0, 0.0, 2.0, 5.0):
        res = optimize.minimize(
            nll,
            np.array([special.logit(pbar), lk]),
            method="L-BFGS-B",
            bounds=[(-15, 15), (-6, 12)],
        )
        if best is None or res.fun < best.fun:
            best = res
    if best is None:  # pragma: no cover - the loop always runs
        raise InputError("Beta-Binomial fit failed")
    mu = float(special.expit(best.x[0]))
    lk = float(best.x[1])
    note = ""
    if lk <= -6 + 1e-6 or lk >= 12 - 1e-6:
        note = f", κ at the search limit e^{lk:.0f}"
    mu = min(max(mu, 1e-6), 1 - 1e-6)
    return Assumptions(
        mean=mu,
        kappa=math.exp(lk),
        source=f"Beta-Binomial ML fit to {len(n)} tasks of {system!r}{note}",
    )


def _posterior_ab(prior: Any, system: str | None) -> tuple[NDArray[np.float64], str]:
    """(draws, 2) array of (a, b) from a fit object with posterior mu, kappa."""
    idata = getattr(prior, "idata", prior)
    post = getattr(idata, "posterior", None)
    if post is None or "mu" not in post or "kappa" not in post:
        raise OptionError(
            "prior must be Assumptions, a count table/Trials, or a fit whose "
            "idata.posterior has variables 'mu' and 'kappa'"
        )
    mu, kap = post["mu"], post["kappa"]
    if "system" in mu.dims:
        system = _pick_system([str(s) for s in mu["system"].values], system, "fit")
        mu = mu.sel(system=system)
        kap = kap.sel(system=system)
    m = np.asarray(mu.values, dtype=float).ravel()
    k = np.asarray(kap.values, dtype=float).ravel()
    return np.stack([m * k, (1 - m) * k], axis=1), f"posterior of a fit ({system or 'one system'})"


def _resolve_prior(
    prior: Any, *, system: str | None = None, posterior: str = "mean", draws: int = 100
) -> tuple[Assumptions, NDArray[np.float64]]:
    """Assumptions (for the text) and the (a, b) rows to average the design over."""
    if isinstance(prior, Assumptions):
        return prior, np.array([[prior.a, prior.b]])
    if isinstance(prior, Trials | xr.Dataset):
        a = from_counts(prior, system=system)
        return a, np.array([[a.a, a.b]])
    if prior is None:
        raise OptionError("give prior= (Assumptions(mean=, icc=|kappa=), a fit, or count data)")
    ab, where = _posterior_ab(prior, system)
    mu_d = ab[:, 0] / ab.sum(axis=1)
    kap_d = ab.sum(axis=1)
    summary = Assumptions(
        mean=float(mu_d.mean()), kappa=float(kap_d.mean()), source=f"{where}, posterior mean"
    )
    if posterior == "mean":
        return summary, np.array([[summary.a, summary.b]])
    if posterior != "integrate":
        raise OptionError(f"posterior must be 'mean' or 'integrate' (got {posterior!r})")
    idx = np.linspace(0, len(ab) - 1, min(draws, len(ab))).round().astype(int)
    summary = Assumptions(
        mean=summary.mean,
        kappa=float(summary.kappa),  # type: ignore[arg-type]
        source=f"{where}, averaged over {len(idx)} posterior draws",
    )
    return summary, ab[idx]


# ---------------------------------------------------- model: exact moments
def _beta_moment(a: float, b: float, m: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """E[p^m] for p ~ Beta(a, b)."""
    return np.exp(special.betaln(a + np.asarray(m, float), b) - special.betaln(a, b))


def population_value(a: float, b: float, k: int, metric: str) -> float:
    """E[g(p)] for p ~ Beta(a, b): the population mean, pass@k or pass^k."""
    if metric == "mean":
        return a / (a + b)
    if metric == "pass_hat_k":
        return float(_beta_moment(a, b, k))
    return float(1 - _beta_moment(b, a, k))


def _task_spread_var(a: float, b: float, k: int, metric: str) -> float:
    """Var[g(p)] for p ~ Beta(a, b) (the between-task variance)."""
    if metric == "mean":
        s = a + b
        return a * b / (s * s * (s + 1))
    x, y = (a, b) if metric == "pass_hat_k" else (b, a)
    return float(_beta_moment(x, y, 2 * k) - _beta_moment(x, y, k) ** 2)


def estimator_moments(
    ns: Sequence[int] | NDArray[np.int64], a: float, b: float, k: int
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Mean and variance of the unbiased per-task estimators over c ~ BetaBinomial(n, a, b).

    Exact, in closed form: the estimator U is unbiased given p, so
    Var U = E Var(U | p) + Var g(p), with
    Var(U | p) = Σ_{j=1..k} h_j(n) (p^{2k−j} − p^{2k}) (h_j: the chance that two
    random k-subsets of n runs share j, :func:`passhat.pass_hat_k_variance`) and
    the Beta moments E p^m = B(a + m, b) / B(a, b). pass@k is pass^k of the
    failures (a and b swapped); the mean is k = 1. The cost is O(k) per n,
    so designs with thousands of runs per task stay cheap. (The tests check it
    against enumerating the BetaBinomial pmf with scipy.)

    Returns
    -------
    dict metric -> (mean, variance), arrays over ``ns``.

    Examples
    --------
    >>> from passhat.planner import estimator_moments
    >>> m, v = estimator_moments([4], 2.0, 2.0, 1)["mean"]
    >>> round(float(m[0]), 6)
    0.5
    """
    n_arr = np.asarray(ns, dtype=float)
    out: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
    for name, kk, (x, y) in (
        ("mean", 1, (a, b)),
        ("pass_hat_k", k, (a, b)),
        ("pass_at_k", k, (b, a)),
    ):
        h = subset_overlap_weights(n_arr, kk)  # (len(ns), kk)
        j = np.arange(1, kk + 1, dtype=float)
        m2k = _beta_moment(x, y, 2 * kk)
        within = h @ (_beta_moment(x, y, 2 * kk - j) - m2k)
        spread = float(m2k - _beta_moment(x, y, kk) ** 2)
        mean = float(_beta_moment(x, y, kk))
        if name == "pass_at_k":
            mean = 1.0 - mean
        out[name] = (np.full(n_arr.shape, mean), np.maximum(within, 0.0) + spread)
    return out


#: Most run counts per task a design enumerates (each is one row of several int64 arrays).
_MAX_DESIGN_N = 10_000_000


def _design_grid(
    *,
    k: int,
    budget_runs: float | None,
    budget_cost: float | None,
    cost_per_run: float,
    cost_per_task: float,
    tasks: int | None,
    max_runs_per_task: int | None,
    all_pairs: bool = False,
) -> pd.DataFrame:
    """Every efficient (tasks, runs_per_task) pair the budget affords (or every pair)."""
    if budget_runs is None and budget_cost is None:
        raise OptionError("design: give budget_runs= or budget_cost= (or both)")
    for name, val in (("budget_runs", budget_runs), ("budget_cost", budget_cost)):
        if val is not None and not math.isfinite(val):
            raise OptionError(f"{name} must be a finite number (got {val:g})")
    if not (math.isfinite(cost_per_run) and cost_per_run > 0):
        raise OptionError(f"cost_per_run must be positive (got {cost_per_run:g})")
    if not (math.isfinite(cost_per_task) and cost_per_task >= 0):
        raise OptionError(f"cost_per_task must be ≥ 0 (got {cost_per_task:g})")
    min_cost = cost_per_task + k * cost_per_run
    if budget_runs is not None and budget_runs < k:
        raise OptionError(f"budget_runs = {budget_runs:g} is smaller than one task × k = {k} runs")
    if budget_cost is not None and budget_cost < min_cost:
        raise OptionError(
            f"budget_cost = {budget_cost:g} is smaller than one task × k = {k} runs "
            f"(cost {min_cost:g})"
        )
    # the largest n any single task can get
    n_hi = np.inf
    if budget_runs is not None:
        n_hi = min(n_hi, math.floor(budget_runs))
    if budget_cost is not None:
        n_hi = min(n_hi, math.floor((budget_cost - cost_per_task) / cost_per_run + 1e-9))
    if max_runs_per_task is not None:
        n_hi = min(n_hi, int(max_runs_per_task))
    if n_hi - k + 1 > _MAX_DESIGN_N:
        what = f"budget_runs = {budget_runs:g}" if budget_runs is not None else ""
        what += " and " if budget_runs is not None and budget_cost is not None else ""
        what += f"budget_cost = {budget_cost:g}" if budget_cost is not None else ""
        raise OptionError(
            f"{what} allows up to {int(n_hi):,} runs per task: too many designs to enumerate "
            f"(at most {_MAX_DESIGN_N:,} run counts); give max_runs_per_task= or a smaller budget"
        )
    n = np.arange(k, int(n_hi) + 1, dtype=np.int64)
    t_max = np.full(n.shape, np.inf)
    if budget_runs is not None:
        t_max = np.minimum(t_max, np.floor(budget_runs / n + 1e-9))
    if budget_cost is not None:
        t_max = np.minimum(t_max, np.floor(budget_cost / (cost_per_task + n * cost_per_run) + 1e-9))
    if tasks is not None:
        t_fixed = _whole("tasks", tasks, minimum=1)
        ok = t_max >= t_fixed
        if not ok.any():
            raise OptionError(f"the budget does not afford {t_fixed} tasks × k = {k} runs")
        n = n[ok]
        t = np.full(n.shape, t_fixed, dtype=np.int64)
    elif all_pairs:
        t_hi = t_max.astype(np.int64)
        keep = t_hi >= 1
        n, t_hi = n[keep], t_hi[keep]
        # every T = 1..t_hi(n) for each n, built without a Python loop
        starts = np.cumsum(t_hi) - t_hi
        t = np.arange(int(t_hi.sum()), dtype=np.int64) - np.repeat(starts, t_hi) + 1
        n = np.repeat(n, t_hi)
    else:
        t = t_max.astype(np.int64)
        keep = t >= 1
        n, t = n[keep], t[keep]
        # t is non-increasing in n: for a given number of tasks keep the most runs per task
        # (the others leave budget unused and have a larger SE)
        last = np.ones(t.shape, dtype=bool)
        last[:-1] = t[:-1] != t[1:]
        n, t = n[last], t[last]
    return pd.DataFrame(
        {
            "tasks": t,
            "runs_per_task": n,
            "runs": t * n,
            "cost": t * (cost_per_task + n * cost_per_run),
        }
    )


def design(
    *,
    budget_runs: float | None = None,
    budget_cost: float | None = None,
    k: int = 5,
    prior: Any = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    metric: MetricName = "pass_hat_k",
    scope: Literal["population", "benchmark"] = "population",
    tasks: int | None = None,
    max_runs_per_task: int | None = None,
    system: str | None = None,
    posterior: Literal["mean", "integrate"] = "mean",
    draws: int = 100,
    all_pairs: bool = False,
) -> pd.DataFrame:
    """Standard errors of every efficient (tasks T, runs per task n ≥ k) design of a budget.

    Under p_i ~ Beta(a, b), c_i ~ Binomial(n, p_i), the unbiased per-task
    estimator U of each metric has the exact variance Var U = E Var(U | p)
    (within-task) + Var g(p) (task spread), computed by averaging over the
    BetaBinomial(n, a, b) pmf of c. With T tasks:

    * se_benchmark = √(E Var(U | p) / T) — scope "benchmark": these T tasks;
    * se_population = √(Var U / T) — scope "population": a new task;
    * se_task_spread = √(Var g(p) / T), so se_population² = se_benchmark² + se_task_spread².

    Parameters
    ----------
    budget_runs, budget_cost : float, optional
        Total runs, and/or total money with ``cost_per_run`` and ``cost_per_task``.
    k : int
        The k of pass^k and pass@k (n ≥ k).
    prior : Assumptions, fit, Trials or count table
        Where μ and κ come from (a fit: ``fit.idata.posterior`` with ``mu``,
        ``kappa``; data: :func:`from_counts`).
    metric, scope : str
        The standard error the optimum minimises.
    tasks : int, optional
        Fix the number of tasks (then only n varies).
    posterior : "mean" or "integrate"
        For a fit: plug in the posterior means, or average the variances over
        ``draws`` posterior draws.
    all_pairs : bool
        List every affordable (T, n), not only the efficient ones (for each n the
        most tasks the budget affords; designs with fewer tasks at the same n
        leave budget unused and have a larger standard error).

    Returns
    -------
    pandas.DataFrame
        Long table over (tasks, runs_per_task, metric): runs, cost, k, value
        (population value of the metric), se_benchmark, se_population,
        se_within, se_task_spread, optimal. ``attrs`` holds ``optimum``,
        ``assumptions``, ``reasoning`` and the two-level check ``n_opt_k1``.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.design(budget_runs=2000, k=5, prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> int(t.attrs["optimum"]["runs_per_task"])
    5
    """
    kk = _whole("k", k, minimum=1)
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    if scope not in ("population", "benchmark"):
        raise OptionError(f"scope must be 'population' or 'benchmark' (got {scope!r})")
    assumed, ab = _resolve_prior(prior, system=system, posterior=posterior, draws=draws)
    grid = _design_grid(
        k=kk,
        budget_runs=budget_runs,
        budget_cost=budget_cost,
        cost_per_run=float(cost_per_run),
        cost_per_task=float(cost_per_task),
        tasks=tasks,
        max_runs_per_task=max_runs_per_task,
        all_pairs=all_pairs,
    )
    ns = np.unique(grid["runs_per_task"].to_numpy())
    within = {m: np.zeros(len(ns)) for m in _METRICS}
    spread = dict.fromkeys(_METRICS, 0.0)
    value = dict.fromkeys(_METRICS, 0.0)
    for a, b in ab:
        mom = estimator_moments(ns, float(a), float(b), kk)
        for m in _METRICS:
            sv = _task_spread_var(float(a), float(b), kk, m)
            within[m] += np.maximum(mom[m][1] - sv, 0.0) / len(ab)
            spread[m] += sv / len(ab)
            value[m] += population_value(float(a), float(b), kk, m) / len(ab)
    pos = np.searchsorted(ns, grid["runs_per_task"].to_numpy())
    t = grid["tasks"].to_numpy(dtype=float)
    cost = grid["cost"].to_numpy(dtype=float)
    g = len(grid)
    cols: dict[str, Any] = {
        "tasks": np.tile(grid["tasks"].to_numpy(), 3),
        "runs_per_task": np.tile(grid["runs_per_task"].to_numpy(), 3),
        "runs": np.tile(grid["runs"].to_numpy(), 3),
        "cost": np.tile(cost, 3),
        "metric": np.repeat(np.array(_METRICS, dtype=object), g),
        "k": np.repeat([1 if m == "mean" else kk for m in _METRICS], g),
        "value": np.repeat([value[m] for m in _METRICS], g),
    }
    se_w = np.concatenate([np.sqrt(within[m][pos] / t) for m in _METRICS])
    se_s = np.concatenate([np.sqrt(spread[m] / t) for m in _METRICS])
    se_p = np.concatenate([np.sqrt((within[m][pos] + spread[m]) / t) for m in _METRICS])
    optimal = np.zeros(3 * g, dtype=bool)
    key = se_p if scope == "population" else se_w
    for i in range(3):
        # minimum SE; ties go to the cheaper design
        order = np.lexsort((cost, key[i * g : (i + 1) * g]))
        optimal[i * g + order[0]] = True
    cols.update(
        {
            "se_benchmark": se_w,
            "se_population": se_p,
            "se_within": se_w,
            "se_task_spread": se_s,
            "optimal": optimal,
        }
    )
    table = pd.DataFrame(cols)
    col = f"se_{scope}"
    mi = _METRICS.index(metric)
    best = table.iloc[mi * g + int(np.flatnonzero(optimal[mi * g : (mi + 1) * g])[0])]
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    n_opt = math.sqrt(kap * cost_per_task / cost_per_run) if cost_per_task > 0 else float(kk)
    label = _LABEL[metric].replace("k", str(kk))
    budget_txt = " and ".join(
        s
        for s in (
            f"{budget_runs:g} runs" if budget_runs is not None else "",
            f"a cost of {budget_cost:g}" if budget_cost is not None else "",
        )
        if s
    )
    reasoning = (
        f"With {budget_txt}, {int(best['tasks'])} tasks × {int(best['runs_per_task'])} runs "
        f"minimises the {scope}-scope standard error of {label}: ±{best[col]:.4f} "
        f"(benchmark ±{best['se_benchmark']:.4f}, population ±{best['se_population']:.4f}, of "
        f"which task spread ±{best['se_task_spread']:.4f}). "
        "Task spread shrinks only with more tasks; more runs per task only shrink the "
        + (
            f"within-task part (two-level optimum at k = 1: n = √(κ·c_task/c_run) = {n_opt:.1f})."
            if cost_per_task > 0
            else "within-task part (two-level optimum at k = 1 with no per-task cost: the "
            "fewest runs allowed)."
        )
    )
    table.attrs.update(
        {
            "optimum": {key: _py(v) for key, v in best.items()},
            "metric": metric,
            "scope": scope,
            "k": kk,
            "assumptions": [assumed.describe(), *_MODEL_ASSUMPTIONS],
            "prior": {"mean": assumed.mean, "kappa": assumed.kappa, "icc": assumed.icc},
            "n_opt_k1": n_opt,
            "reasoning": reasoning,
            "method": (
                "exact: Var U = E Var(U | p) + Var g(p) under p ~ Beta(a, b) (the same as "
                "averaging the unbiased estimator over the BetaBinomial(n, a, b) pmf)"
            ),
        }
    )
    return table


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------- power
def _gh_nodes(m: int = 64) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    x, w = special.roots_hermitenorm(m)
    return x, w / w.sum()


def _g(p: NDArray[np.float64], k: int, metric: str) -> NDArray[np.float64]:
    if metric == "mean":
        return p
    if metric == "pass_hat_k":
        return np.power(p, k)
    return 1 - np.power(1 - p, k)


def _latent_to_rate(z: NDArray[np.float64], a: float, b: float) -> NDArray[np.float64]:
    u = np.clip(special.ndtr(z), 1e-300, 1 - 1e-16)
    return np.asarray(special.betaincinv(a, b, u))


def _task_cov(
    ab_a: tuple[float, float], ab_b: tuple[float, float], rho: float, k: int, metric: str
) -> float:
    """Cov(g(p_A), g(p_B)) under a Gaussian copula with latent correlation rho."""
    if rho == 0:
        return 0.0
    x, w = _gh_nodes()
    z1 = x[:, None]
    z2 = rho * x[:, None] + math.sqrt(max(1 - rho * rho, 0.0)) * x[None, :]
    g1 = _g(_latent_to_rate(np.broadcast_to(z1, z2.shape), *ab_a), k, metric)
    g2 = _g(_latent_to_rate(z2, *ab_b), k, metric)
    ww = w[:, None] * w[None, :]
    e1, e2 = (ww * g1).sum(), (ww * g2).sum()
    return float((ww * g1 * g2).sum() - e1 * e2)


def _shift_mean(assumed: Assumptions, delta: float, k: int, metric: str) -> float:
    """The mean μ_B of system B (same κ) whose population metric is A's + delta."""
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    target = population_value(assumed.a, assumed.b, k, metric) + delta

    def f(mu: float) -> float:
        return population_value(mu * kap, (1 - mu) * kap, k, metric) - target

    lo, hi = 1e-9, 1 - 1e-9
    if f(lo) > 0 or f(hi) < 0:
        raise OptionError(
            f"delta = {delta:g} moves {_LABEL[metric]} outside (0, 1) from "
            f"{target - delta:.3f}; choose a smaller delta"
        )
    return float(optimize.brentq(f, lo, hi, xtol=1e-12))


@dataclass(frozen=True)
class _PowerModel:
    ab_a: tuple[float, float]
    ab_b: tuple[float, float]
    k: int
    metric: str
    rho: float
    delta: float


def _sd_diff(model: _PowerModel, n: int) -> float:
    """Exact SD of the per-task paired difference U_B − U_A with n runs each."""
    va = estimator_moments([n], *model.ab_a, model.k)[model.metric][1][0]
    vb = estimator_moments([n], *model.ab_b, model.k)[model.metric][1][0]
    cov = _task_cov(model.ab_a, model.ab_b, model.rho, model.k, model.metric)
    return math.sqrt(max(va + vb - 2 * cov, 1e-300))


def _analytic_power(delta: float, sd: float, tasks: int, alpha: float) -> float:
    """Power of the two-sided paired t-test: noncentral t with T − 1 degrees of freedom."""
    df = tasks - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) * math.sqrt(tasks) / sd
    pw = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not math.isfinite(pw):  # scipy's nct breaks down for very large noncentrality
        pw = float(stats.norm.cdf(nc - crit) + stats.norm.cdf(-nc - crit))
    return min(max(pw, 0.0), 1.0)


def _power_model(
    prior: Any, delta: float, k: int, metric: str, rho: float, system: str | None
) -> tuple[Assumptions, _PowerModel]:
    assumed, _ = _resolve_prior(prior, system=system)
    mu_b = _shift_mean(assumed, delta, k, metric)
    kap = float(assumed.kappa)  # type: ignore[arg-type]
    model = _PowerModel(
        (assumed.a, assumed.b), (mu_b * kap, (1 - mu_b) * kap), k, metric, rho, delta
    )
    return assumed, model


def simulate_power(
    *,
    tasks: int,
    runs_per_task: int,
    delta: float,
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    correlation: float = 0.5,
    alpha: float = 0.05,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Simulated power of the paired test: share of benchmarks where it rejects.

    Each replicate draws ``tasks`` matched tasks (rates of A and B through a
    Gaussian copula with latent correlation ``correlation``), runs each
    ``runs_per_task`` times per system, and applies the paired two-sided
    t-test on per-task differences of the unbiased estimator (SE from their
    sample standard deviation, t critical value with T − 1 degrees of freedom).

    Returns
    -------
    dict with power, mc_error (binomial standard error), replicates.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.simulate_power(tasks=50, runs_per_task=5, delta=0.1,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), replicates=200, seed=1)
    >>> 0 <= r["power"] <= 1
    True
    """
    _, model = _power_model(prior, delta, k, metric, correlation, None)
    t = _whole("tasks", tasks, minimum=2)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    rng = make_rng(seed)
    z1 = rng.standard_normal((replicates, t))
    z2 = correlation * z1 + math.sqrt(1 - correlation**2) * rng.standard_normal((replicates, t))
    pa = _latent_to_rate(z1, *model.ab_a)
    pb = _latent_to_rate(z2, *model.ab_b)
    ca = rng.binomial(n, pa).astype(float)
    cb = rng.binomial(n, pb).astype(float)
    ua = _estimator(ca, n, k, metric)
    ub = _estimator(cb, n, k, metric)
    d = ub - ua
    sd = d.std(axis=1, ddof=1)
    se = sd / math.sqrt(t)
    zstat = np.divide(d.mean(axis=1), se, out=np.zeros(replicates), where=se > 0)
    zcrit = stats.t.ppf(1 - alpha / 2, t - 1)
    # a replicate where every difference is identical and non-zero rejects
    reject = np.where(se > 0, np.abs(zstat) > zcrit, d.mean(axis=1) != 0)
    pw = float(reject.mean())
    return {
        "tasks": t,
        "runs_per_task": n,
        "power": pw,
        "mc_error": math.sqrt(max(pw * (1 - pw), 1e-12) / replicates),
        "replicates": replicates,
    }


def _estimator(c: NDArray[np.float64], n: int, k: int, metric: str) -> NDArray[np.float64]:
    if metric == "mean":
        return c / n
    if metric == "pass_hat_k":
        return subset_ratio(c, float(n), k)
    return 1.0 - subset_ratio(n - c, float(n), k)


def power(
    *,
    delta: float | None = None,
    tasks: int | None = None,
    runs_per_task: int | None = None,
    power: float | None = None,
    prior: Any = None,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float = 0.5,
    method: Literal["analytic", "simulation"] = "analytic",
    replicates: int = 2000,
    seed: int | None = 0,
    system: str | None = None,
    max_runs_per_task: int = 1000,
) -> PlanResult:
    """Tasks × runs to detect a difference between two systems on matched tasks (paired).

    System A has the prior's (μ, κ); system B the same κ and the μ whose
    population ``metric`` is A's + ``delta``. Task rates of A and B are linked
    by a Gaussian copula with latent ``correlation``. The paired analysis
    tests the mean of per-task differences of the unbiased estimator; its SD
    is exact under the model (BetaBinomial moments plus the copula covariance
    by Gauss–Hermite quadrature), and the power is that of the two-sided
    paired t-test, noncentral t with T − 1 df and noncentrality |δ|√T/σ_d
    (exact for normal differences; the differences of bounded estimators are
    not normal, which :func:`simulate_power` checks). ``method="simulation"`` simulates
    ``replicates`` benchmarks instead (the power's Monte-Carlo error is
    reported). Leave exactly one of ``delta``, ``tasks``, ``runs_per_task``,
    ``power`` as None to solve for it.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.power(delta=0.05, runs_per_task=5, power=0.8,
    ...     prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> r.solved_for, int(r) > 10
    ('tasks', True)
    """
    solve = _one_none("power", delta=delta, tasks=tasks, runs_per_task=runs_per_task, power=power)
    kk = _whole("k", k, minimum=1)
    if metric not in _METRICS:
        raise OptionError(f"metric must be one of {', '.join(_METRICS)} (got {metric!r})")
    a_ = _prob("alpha", alpha)
    rho = float(correlation)
    if not (-1 < rho < 1):
        raise OptionError(f"correlation must lie in (−1, 1) (got {rho:g})")
    if method not in ("analytic", "simulation"):
        raise OptionError(f"method must be 'analytic' or 'simulation' (got {method!r})")
    if power is not None:
        target_power = _prob("power", power)
        if target_power <= a_:
            raise OptionError(f"power {target_power:g} must exceed alpha {a_:g}")
    if delta is not None:
        dlt = float(delta)
        if not math.isfinite(dlt) or dlt == 0 or abs(dlt) >= 1:
            raise OptionError(f"delta must be non-zero and in (−1, 1) (got {delta!r})")
    if tasks is not None:
        _whole("tasks", tasks, minimum=2)
    if runs_per_task is not None:
        _whole("runs_per_task", runs_per_task, minimum=kk)
    z = stats.norm.ppf(1 - a_ / 2)

    def power_at(dl: float, t: int, n: int) -> tuple[float, float]:
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        if method == "simulation":
            res = simulate_power(
                tasks=t,
                runs_per_task=n,
                delta=dl,
                prior=prior,
                k=kk,
                metric=metric,
                correlation=rho,
                alpha=a_,
                replicates=replicates,
                seed=seed,
            )
            return res["power"], res["mc_error"]
        return _analytic_power(dl, _sd_diff(model, n), t, a_), 0.0

    assumed, _ = _resolve_prior(prior, system=system)
    q: dict[str, Any] = {
        "metric": metric,
        "k": kk,
        "alpha": a_,
        "correlation": rho,
        "method": method,
    }
    label = _LABEL[metric].replace("k", str(kk))
    if solve == "power":
        t, n, dl = int(tasks), int(runs_per_task), float(delta)  # type: ignore[arg-type]
        pw, mce = power_at(dl, t, n)
        value: float | int = pw
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, a paired test at α = {a_:g} detects "
            f"a difference of {dl:+.3f} in {label} with probability {pct(pw)}"
            + (f" (±{pct(mce, 1)} Monte-Carlo error)." if method == "simulation" else ".")
        )
    elif solve == "tasks":
        n, dl = int(runs_per_task), float(delta)  # type: ignore[arg-type]
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        sd = _sd_diff(model, n)
        zb = stats.norm.ppf(target_power)
        t = max(2, _ceil(((z + zb) * sd / abs(dl)) ** 2))
        while _analytic_power(dl, sd, t, a_) < target_power:
            t += 1
        pw, mce = power_at(dl, t, n)
        value = t
        reasoning = (
            f"{t} matched tasks × {n} runs per system give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {dl:+.3f} in {label} (per-task difference SD "
            f"{sd:.3f}; {t - 1} tasks would fall short)."
        )
        q["sd_difference"] = sd
    elif solve == "runs_per_task":
        t, dl = int(tasks), float(delta)  # type: ignore[arg-type]
        _, model = _power_model(prior, dl, kk, metric, rho, system)
        n = kk
        while _analytic_power(dl, _sd_diff(model, n), t, a_) < target_power:
            n = n * 2 if n < 64 else n + 64
            if n > max_runs_per_task:
                limit = _analytic_power(dl, _sd_diff(model, max_runs_per_task), t, a_)
                raise OptionError(
                    f"{t} tasks cannot reach power {target_power:g} for {dl:+.3f} in {label}: "
                    f"even {max_runs_per_task} runs per task give {pct(limit)} (task spread "
                    "dominates); add tasks"
                )
        lo = max(kk, n // 2 if n <= 64 else n - 64)
        for cand in range(lo, n + 1):
            if _analytic_power(dl, _sd_diff(model, cand), t, a_) >= target_power:
                n = cand
                break
        pw, mce = power_at(dl, t, n)
        value = n
        reasoning = (
            f"{n} runs per task on {t} matched tasks give a paired test at α = {a_:g} "
            f"{pct(pw)} power to detect {dl:+.3f} in {label}; more runs shrink only the "
            "within-task part of the difference's spread."
        )
    else:
        t, n = int(tasks), int(runs_per_task)  # type: ignore[arg-type]
        base = population_value(assumed.a, assumed.b, kk, metric)

        def gap(dl: float) -> float:
            _, model = _power_model(prior, dl, kk, metric, rho, system)
            return _analytic_power(dl, _sd_diff(model, n), t, a_) - target_power

        hi = min(0.999 - base, 0.999)
        if hi <= 1e-6 or gap(hi) < 0:
            raise OptionError(
                f"no improvement in {label} above {base:.3f} reaches power {target_power:g} "
                f"with {t} tasks × {n} runs"
            )
        dl = float(optimize.brentq(gap, 1e-6, hi, xtol=1e-6))
        pw, mce = power_at(dl, t, n)
        value = dl
        reasoning = (
            f"With {t} matched tasks × {n} runs per system, the smallest improvement in "
            f"{label} a paired test at α = {a_:g} detects with {pct(target_power)} power is "
            f"{dl:+.4f} (from {base:.3f})."
        )
    q.update({"delta": dl, "tasks": t, "runs_per_task": n, "power": pw})
    if method == "simulation":
        q.update({"replicates": replicates, "mc_error": mce, "seed": seed})
    q["baseline_value"] = population_value(assumed.a, assumed.b, kk, metric)
    meth = (
        "paired t-test power (noncentral t) with the exact per-task difference SD"
        if method == "analytic"
        else f"simulation of {replicates} benchmarks (seed {seed}), paired t-test"
    )
    return PlanResult(
        "power",
        solve,
        value,
        q,
        reasoning,
        assumptions=(
            assumed.describe() + "; system B has the same κ",
            f"matched tasks; latent task correlation between systems {rho:g} (Gaussian copula)",
            *_MODEL_ASSUMPTIONS,
        ),
        method=meth,
    )


_power_query = power  # power_table/power_grid take a `power=` argument


def power_table(
    *,
    delta: float,
    power: float,
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float = 0.5,
    runs_per_task: Sequence[int] | None = None,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    system: str | None = None,
) -> pd.DataFrame:
    """Tasks needed for each runs-per-task choice to detect ``delta`` (paired), cheapest marked.

    For every n in ``runs_per_task`` (default k … k + 15) the number of
    matched tasks T is solved as in :func:`power`; cost per system is
    T·(cost_per_task + n·cost_per_run). ``attrs`` holds the optimum,
    reasoning and assumptions.

    Examples
    --------
    >>> from passhat import plan
    >>> t = plan.power_table(delta=0.1, power=0.8, prior=plan.Assumptions(mean=0.6, icc=0.3))
    >>> bool(t["optimal"].sum() == 1)
    True
    """
    kk = _whole("k", k, minimum=1)
    ns = list(range(kk, kk + 16)) if runs_per_task is None else list(runs_per_task)
    rows = []
    res = None
    for n in ns:
        res = _power_query(
            delta=delta,
            runs_per_task=n,
            power=power,
            prior=prior,
            k=kk,
            metric=metric,
            alpha=alpha,
            correlation=correlation,
            system=system,
        )
        t = int(res.value)
        rows.append(
            {
                "runs_per_task": n,
                "tasks": t,
                "runs": t * n,
                "cost": t * (cost_per_task + n * cost_per_run),
                "sd_difference": res.quantities["sd_difference"],
                "power": res.quantities["power"],
            }
        )
    df = pd.DataFrame(rows)
    df["optimal"] = False
    best_i = int(np.lexsort((df["runs"].to_numpy(), df["cost"].to_numpy()))[0])
    df.loc[best_i, "optimal"] = True
    best = df.loc[best_i]
    label = _LABEL[metric].replace("k", str(kk))
    df.attrs.update(
        {
            "optimum": {key: _py(v) for key, v in best.items()},
            "reasoning": (
                f"To detect {float(delta):+.3f} in {label} with {pct(float(power), 0)} power "
                f"at α = {alpha:g}, the cheapest design is {int(best['tasks'])} matched tasks × "
                f"{int(best['runs_per_task'])} runs per system (cost {best['cost']:g} per "
                "system); more runs per task shrink only the within-task part of each "
                "paired difference."
            ),
            "assumptions": list(res.assumptions) if res is not None else [],
            "method": res.method if res is not None else "",
        }
    )
    return df


def power_grid(
    *,
    delta: float,
    tasks: Sequence[int],
    runs_per_task: Sequence[int],
    prior: Any,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float = 0.5,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Power over a (tasks × runs per task) grid: analytic and simulated (through :func:`sweep`).

    Each grid point gets its own seed (``seed`` + its index), so results do
    not depend on the scheduler.

    Examples
    --------
    >>> from passhat import plan
    >>> df = plan.power_grid(delta=0.1, tasks=[20], runs_per_task=[3], replicates=100,
    ...     prior=plan.Assumptions(mean=0.6, icc=0.3), scheduler="synchronous")
    >>> list(df.columns)[:3]
    ['tasks', 'runs_per_task', 'power']
    """
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate((t, n) for t in tasks for n in runs_per_task)
    ]
    common = {
        "delta": delta,
        "prior": prior,
        "k": k,
        "metric": metric,
        "alpha": alpha,
        "correlation": correlation,
        "replicates": replicates,
    }
    df = sweep(simulate_power, points, scheduler=scheduler, progress=progress, **common)
    df["power_analytic"] = [
        float(
            _power_query(
                delta=delta,
                tasks=p["tasks"],
                runs_per_task=p["runs_per_task"],
                prior=prior,
                k=k,
                metric=metric,
                alpha=alpha,
                correlation=correlation,
            )
        )
        for p in points
    ]
    df["seed"] = [p["seed"] for p in points]
    assumed, _ = _resolve_prior(prior)
    label = _LABEL[metric].replace("k", str(k))
    df.attrs.update(
        {
            "reasoning": (
                f"Power of a paired test at α = {alpha:g} to detect {delta:+.3f} in {label}: the "
                f"noncentral-t power with the exact per-task difference SD, and {replicates} "
                "simulated benchmarks per design (binomial Monte-Carlo error shown)."
            ),
            "assumptions": [
                assumed.describe() + "; system B has the same κ",
                f"matched tasks; latent task correlation {correlation:g} (Gaussian copula)",
                *_MODEL_ASSUMPTIONS,
            ],
            "replicates": replicates,
        }
    )
    return df


# ----------------------------------------------------------- simulation
def simulate_design(
    *,
    tasks: int,
    runs_per_task: int,
    k: int,
    prior: Any,
    replicates: int = 2000,
    seed: int | None = 0,
) -> dict[str, float]:
    """Spread of benchmark estimates over simulated benchmarks (checks :func:`design`).

    Each replicate draws ``tasks`` rates from the prior's Beta, runs each
    task ``runs_per_task`` times and averages the unbiased per-task
    estimators. ``sd_population_*`` is the SD over replicates of the
    estimate; ``sd_benchmark_*`` the root-mean of its within-replicate
    variance around the replicate's own true benchmark value.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.simulate_design(tasks=20, runs_per_task=5, k=2,
    ...     prior=plan.Assumptions(mean=0.7, icc=0.3), replicates=100)
    >>> r["sd_population_pass_hat_k"] > 0
    True
    """
    assumed, _ = _resolve_prior(prior)
    t = _whole("tasks", tasks, minimum=1)
    n = _whole("runs_per_task", runs_per_task, minimum=k)
    replicates = _whole("replicates", replicates, minimum=1)
    rng = make_rng(seed)
    p = rng.beta(assumed.a, assumed.b, size=(replicates, t))
    c = rng.binomial(n, p).astype(float)
    out: dict[str, float] = {"tasks": t, "runs_per_task": n, "k": k, "replicates": replicates}
    for m in _METRICS:
        u = _estimator(c, n, k, m)
        est = u.mean(axis=1)
        truth = _g(p, k, m).mean(axis=1)
        out[f"sd_population_{m}"] = float(est.std(ddof=1))
        out[f"sd_benchmark_{m}"] = float(np.sqrt(np.mean((est - truth) ** 2)))
    return out


def design_check(
    table: pd.DataFrame,
    *,
    prior: Any,
    rows: int = 6,
    replicates: int = 2000,
    seed: int = 0,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Check a :func:`design` table by simulation: predicted SEs vs simulated spreads.

    Simulates the optimum and up to ``rows`` − 1 other designs of ``table``
    (spread over its runs per task) with :func:`simulate_design`, in parallel
    through :func:`sweep`. The relative Monte-Carlo error of a simulated SD is
    about 1/√(2·replicates).

    Examples
    --------
    >>> from passhat import plan
    >>> prior = plan.Assumptions(mean=0.7, icc=0.3)
    >>> t = plan.design(budget_runs=200, k=2, prior=prior)
    >>> chk = plan.design_check(t, prior=prior, rows=2, replicates=200, scheduler="synchronous")
    >>> len(chk) == 2 * 3
    True
    """
    metric = table.attrs.get("metric", "pass_hat_k")
    k = int(table.attrs.get("k", 1))
    sub = table[table["metric"] == metric].reset_index(drop=True)
    opt = int(np.flatnonzero(sub["optimal"].to_numpy())[0])
    others = [i for i in np.linspace(0, len(sub) - 1, rows).round().astype(int) if i != opt]
    picks = [opt, *others[: max(rows - 1, 0)]]
    designs = sub.loc[picks, ["tasks", "runs_per_task"]].drop_duplicates()
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate(designs.itertuples(index=False))
    ]
    sims = sweep(
        simulate_design,
        points,
        scheduler=scheduler,
        progress=progress,
        k=k,
        prior=prior,
        replicates=replicates,
    )
    out = []
    for (_, sim), p in zip(sims.iterrows(), points, strict=True):
        for m in _METRICS:
            row = table[
                (table["metric"] == m)
                & (table["tasks"] == p["tasks"])
                & (table["runs_per_task"] == p["runs_per_task"])
            ].iloc[0]
            out.append(
                {
                    "tasks": p["tasks"],
                    "runs_per_task": p["runs_per_task"],
                    "metric": m,
                    "se_population": row["se_population"],
                    "sd_population_simulated": sim[f"sd_population_{m}"],
                    "se_benchmark": row["se_benchmark"],
                    "sd_benchmark_simulated": sim[f"sd_benchmark_{m}"],
                    "relative_mc_error": 1 / math.sqrt(2 * replicates),
                }
            )
    return pd.DataFrame(out)


def sweep(
    func: Callable[..., dict[str, Any]],
    points: Iterable[dict[str, Any]],
    *,
    scheduler: str | None = None,
    progress: bool = False,
    **common: Any,
) -> pd.DataFrame:
    """Map a simulation over a grid of keyword sets in parallel through dask.

    Parameters
    ----------
    func : callable
        A pure function returning a dict (e.g. :func:`simulate_power`).
    points : iterable of dict
        The grid: one keyword set per call; ``common`` keywords are added.
    scheduler : str, optional
        ``None``: a local distributed cluster (2 workers); ``"synchronous"`` or
        ``"threads"`` (or ``"processes"``): dask's local schedulers; anything
        else: the address of an existing distributed scheduler.
    progress : bool
        A progress bar on stderr (only when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        One row per point, in the grid's order.

    Examples
    --------
    >>> from passhat import plan
    >>> pts = [{"tasks": 10, "runs_per_task": 3}]
    >>> df = plan.sweep(plan.simulate_design, pts, scheduler="synchronous", k=1,
    ...     prior=plan.Assumptions(mean=0.5, icc=0.5), replicates=50)
    >>> len(df)
    1
    """
    try:
        import dask
    except ImportError as err:  # pragma: no cover - dask is in the dev/dask extras
        raise DependencyError("parallel sweeps need dask: pip install 'passhat[dask]'") from err
    pts = [dict(p, **common) for p in points]
    show = progress and sys.stderr.isatty()
    if scheduler in ("synchronous", "threads", "processes", "single-threaded", "sync"):
        tasks = [dask.delayed(func)(**p) for p in pts]
        if show:
            from dask.diagnostics import ProgressBar

            with ProgressBar(out=sys.stderr):
                results = dask.compute(*tasks, scheduler=scheduler)
        else:
            results = dask.compute(*tasks, scheduler=scheduler)
        return pd.DataFrame(list(results))
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as err:  # pragma: no cover
        raise DependencyError(
            "a dask cluster needs distributed: pip install 'passhat[dask]'"
        ) from err
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler)
        except (ValueError, TypeError, OSError) as err:
            raise OptionError(
                f"scheduler {scheduler!r}: cannot connect ({err}); give a dask scheduler "
                "address like tcp://host:8786, or synchronous / threads / processes"
            ) from err
    try:
        futures = [client.submit(func, pure=False, **p) for p in pts]
        if show:
            from rich.progress import Progress

            with Progress(transient=True, console=None) as bar:
                job = bar.add_task("simulating", total=len(futures))
                for _ in as_completed(futures):
                    bar.advance(job)
        results = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return pd.DataFrame(list(results))
