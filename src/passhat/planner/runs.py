"""Run counts in closed form: detect a flip, bound or certify a failure rate, a width, retries.

Each function answers one question about the runs of a single task (or a
gate over them) and returns a :class:`~passhat.planner.PlanResult` that
compares equal to its answer:

* :func:`runs_to_detect` — runs to see at least one failure with probability q
  at flip rate f: ⌈ln(1−q)/ln(1−f)⌉ (10% → 29, 5% → 59 at q = 95%);
* :func:`failure_upper_bound` — exact one-sided Clopper–Pearson upper bound on
  the per-run failure rate after x failures in n runs (x = 0: 1 − α^(1/n));
* :func:`runs_to_certify` — runs needed so that x allowed failures still
  certify a failure rate below f₀;
* :func:`runs_for_width` — runs for a per-task interval half-width (Wilson or
  Clopper–Pearson, exact search);
* :func:`retry` — retry-until-green 1−(1−p)^k vs all-k-must-pass p^k (a CI job's odds; not
  the anytime-valid gate of :func:`~passhat.plan.sequential`);
* :func:`rate_for_pass_hat_k` — per-task rate r^(1/k) needed for pass^k ≥ r;
* :func:`choose_k` — the k of a pass^k gate for a failure rate you cannot ship.

Where several quantities can be solved for, leave exactly one of them as
``None`` and it is solved for (the pattern of pingouin's power functions); the
level ``ci`` defaults to 0.95 when another quantity is the one left out. The
functions' docstrings cite the sources of their formulas.

Examples
--------
Ten clean runs, and what it takes to rule out more than 5% failures:

>>> from passhat import plan
>>> f"{plan.failure_upper_bound(runs=10):.1%}", int(plan.runs_to_certify(max_failure_rate=0.05))
('25.9%', 59)
>>> plan.runs_to_detect(ci=0.95, runs=10).solved_for
'flip_rate'
>>> r = plan.runs_to_detect(flip_rate=0.1, runs=10)   # ci left out: solved for
>>> r.solved_for, f"{r:.2%}"
('ci', '65.13%')
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from passhat._format import pct
from passhat._validate import check_k
from passhat.errors import OptionError
from passhat.planner._checks import ASSUMPTIONS, one_left_out, renamed_keyword
from passhat.planner._checks import ceil as _ceil
from passhat.planner._checks import prob as _prob
from passhat.planner._checks import whole as _whole
from passhat.planner.result import PlanResult
from passhat.planner.runs_text import (
    bound_reasoning,
    certify_reasoning,
    choose_k_reasoning,
    detect_reasoning,
    rate_reasoning,
    retry_reasoning,
    width_reasoning,
)

if TYPE_CHECKING:  # numpy loads with SciPy, in the functions that need a quantile
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_CI",
    "choose_k",
    "failure_upper_bound",
    "rate_for_pass_hat_k",
    "retry",
    "runs_for_width",
    "runs_to_certify",
    "runs_to_detect",
]

#: The level every closed form assumes when another quantity is left out to solve for.
DEFAULT_CI = 0.95


def runs_to_detect(
    *,
    flip_rate: float | None = None,
    ci: float | None = None,
    runs: int | None = None,
    confidence: float | None = None,
) -> PlanResult:
    """Runs needed to see at least one failure with probability ``ci``.

    A task that fails a share ``flip_rate`` of its runs shows at least one
    failure in n runs with probability 1 − (1 − f)^n, so
    n = ⌈ln(1 − q) / ln(1 − f)⌉. Give all but one of ``flip_rate``, ``ci``,
    ``runs`` and the one left out is solved for (``ci`` is 0.95 when another is left
    out). It is the zero-failure ("rule of three") relation of [1]_ solved for n: q is
    the level of the upper bound :func:`failure_upper_bound` puts on the failure rate
    after n clean runs.

    Parameters
    ----------
    flip_rate : float in (0, 1), optional
        Per-run failure probability f of the task.
    ci : float in (0, 1), optional
        Required probability q of seeing at least one failure (the confidence level;
        0.95 unless it is the one solved for).
    runs : int ≥ 1, optional
        Number of runs.
    confidence : float, optional
        The old name of ``ci`` (deprecated: goes in the next release).

    Returns
    -------
    PlanResult

    References
    ----------
    .. [1] J. A. Hanley and A. Lippman-Hand, "If nothing goes wrong, is everything all
       right? Interpreting zero numerators", *JAMA* 249(13), 1743–1745 (1983).

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_to_detect(flip_rate=0.10, ci=0.95)), int(
    ...     plan.runs_to_detect(flip_rate=0.05))
    (29, 59)
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci)
    target, given = one_left_out(
        {"flip_rate": flip_rate, "ci": ci, "runs": runs},
        call="runs_to_detect",
        example="flip_rate=0.1",
        default=("ci", DEFAULT_CI),
    )
    flip_rate, ci = given["flip_rate"], given["ci"]
    miss = 0.0
    if target == "runs":
        f = _prob("flip_rate", flip_rate)
        q = _prob("ci", ci)
        n = _ceil(math.log1p(-q) / math.log1p(-f))
        n = max(n, 1)
        miss = math.exp(n * math.log1p(-f))  # (1 − f)^n without rounding 1 − f to 1
        got = -math.expm1(n * math.log1p(-f))
        value: float | int = n
        quantities = {"flip_rate": f, "ci": q, "runs": n, "achieved_ci": got}
    elif target == "ci":
        f = _prob("flip_rate", flip_rate)
        n = _whole("runs", runs, minimum=1)
        value = -math.expm1(n * math.log1p(-f))
        quantities = {"flip_rate": f, "ci": value, "runs": n}
    else:
        q = _prob("ci", ci)
        n = _whole("runs", runs, minimum=1)
        value = -math.expm1(math.log1p(-q) / n)
        quantities = {"flip_rate": value, "ci": q, "runs": n}
    reasoning = detect_reasoning(target, quantities, missed=miss)
    return PlanResult("runs_to_detect", target, value, quantities, reasoning)


def failure_upper_bound(
    *, runs: int, failures: int = 0, ci: float = DEFAULT_CI, confidence: float | None = None
) -> PlanResult:
    """Exact one-sided (Clopper–Pearson) upper bound on the per-run failure rate.

    After x failures in n runs the bound is the ``ci`` quantile of
    Beta(x + 1, n − x) [1]_; with x = 0 it is 1 − α^(1/n), α = 1 − ci,
    about 3/n at 95% (the "rule of three" [2]_). ``confidence`` is the old name of
    ``ci`` (deprecated: goes in the next release).

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", *Biometrika* 26(4), 404–413 (1934).
    .. [2] J. A. Hanley and A. Lippman-Hand, "If nothing goes wrong, is everything all
       right? Interpreting zero numerators", *JAMA* 249(13), 1743–1745 (1983).

    Examples
    --------
    >>> from passhat import plan
    >>> [round(float(plan.failure_upper_bound(runs=n)), 3) for n in (3, 5, 10, 20, 30, 60)]
    [0.632, 0.451, 0.259, 0.139, 0.095, 0.049]
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci, default=DEFAULT_CI)
    n = _whole("runs", runs, minimum=1)
    x = _whole("failures", failures, minimum=0)
    if x > n:
        raise OptionError(f"{{param}} {x} exceeds {{runs}} {n}", param="failures", also=("runs",))
    q = _prob("ci", ci)
    alpha = 1 - q
    if x == n:
        bound = 1.0
    elif x == 0:
        bound = -math.expm1(math.log(alpha) / n)
    else:
        from scipy import stats  # SciPy only where a quantile is needed (start-up time)

        bound = float(stats.beta.ppf(q, x + 1, n - x))
    quantities = {"runs": n, "failures": x, "ci": q, "failure_rate_upper": bound}
    return PlanResult(
        "failure_upper_bound",
        "failure_rate",
        bound,
        quantities,
        bound_reasoning(quantities),
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
    import numpy as np
    from scipy import stats

    return np.asarray(stats.binom.cdf(x, n, f0) <= alpha)


def runs_to_certify(
    *,
    max_failure_rate: float | None = None,
    ci: float | None = None,
    allowed_failures: int = 0,
    runs: int | None = None,
    confidence: float | None = None,
) -> PlanResult:
    """Runs needed so that ``allowed_failures`` failures still certify a low failure rate.

    The smallest n whose exact one-sided Clopper–Pearson upper bound after x
    failures [1]_ is at most f₀, i.e. P(X ≤ x | n, f₀) ≤ α = 1 − ci. Give all but one
    of ``max_failure_rate``, ``ci``, ``runs`` and the one left out is solved for
    (``ci`` is 0.95 when another is left out). ``confidence`` is the old name of ``ci``
    (deprecated: goes in the next release).

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", *Biometrika* 26(4), 404–413 (1934).

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_to_certify(max_failure_rate=0.05, ci=0.95))
    59
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci)
    target, given = one_left_out(
        {"max_failure_rate": max_failure_rate, "ci": ci, "runs": runs},
        call="runs_to_certify",
        example="max_failure_rate=0.05",
        default=("ci", DEFAULT_CI),
    )
    ci = given["ci"]
    x = _whole("allowed_failures", allowed_failures, minimum=0)
    if target == "runs":
        f0 = _prob("max_failure_rate", max_failure_rate)
        q = _prob("ci", ci)
        alpha = 1 - q
        import numpy as np

        n = _smallest_ok(
            lambda m: bool(_cert_ok(np.array([float(m)]), x, f0, alpha)[0]),
            start=max(x + 1, 2),
            limit=10**12,
            too_far="runs_to_certify: no run count up to 10^12 certifies that",
            floor=x,  # P(X ≤ x | n ≤ x) = 1 > α: never enough
        )
        bound = float(failure_upper_bound(runs=n, failures=x, ci=q))
        quantities = {
            "max_failure_rate": f0,
            "ci": q,
            "allowed_failures": x,
            "runs": n,
            "upper_bound_at_runs": bound,
        }
        return PlanResult(
            "runs_to_certify",
            "runs",
            n,
            quantities,
            certify_reasoning("runs", quantities),
            method="exact binomial search (Clopper–Pearson)",
        )
    n = _whole("runs", runs, minimum=1)
    if x >= n:
        raise OptionError(
            f"{{param}} {x} must be below {{runs}} {n}", param="allowed_failures", also=("runs",)
        )
    if target == "max_failure_rate":
        q = _prob("ci", ci)
        res = failure_upper_bound(runs=n, failures=x, ci=q)
        return PlanResult(
            "runs_to_certify",
            "max_failure_rate",
            res.value,
            {"max_failure_rate": res.value, "ci": q, "allowed_failures": x, "runs": n},
            res.reasoning,
            method=res.method,
        )
    f0 = _prob("max_failure_rate", max_failure_rate)
    from scipy import stats

    conf = float(1 - stats.binom.cdf(x, n, f0))
    quantities = {"max_failure_rate": f0, "ci": conf, "allowed_failures": x, "runs": n}
    return PlanResult(
        "runs_to_certify",
        "ci",
        conf,
        quantities,
        certify_reasoning("ci", quantities),
        method="exact binomial (Clopper–Pearson)",
    )


def _half_width(n: NDArray[np.float64], rate: float, method: str, ci: float) -> NDArray[np.float64]:
    """Two-sided interval half-width at the expected count c = rate·n (not an approximation)."""
    import numpy as np
    from scipy import stats

    alpha = 1 - ci
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
    ci: float = DEFAULT_CI,
    runs: int | None = None,
    confidence: float | None = None,
) -> PlanResult:
    """Runs for a per-task interval of a given half-width around a success rate.

    Exact search: the smallest n whose two-sided ``ci`` interval (Wilson [1]_, or exact
    Clopper–Pearson [2]_) at the expected count c = rate·n has half-width at most
    ``half_width`` (the normal approximation z²p(1−p)/h² is not used). Give one of
    ``half_width`` or ``runs`` and the other is solved for. ``confidence`` is the old
    name of ``ci`` (deprecated: goes in the next release).

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", *Journal of the American Statistical Association* 22(158), 209–212 (1927).
    .. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", *Biometrika* 26(4), 404–413 (1934).

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.runs_for_width(half_width=0.05, rate=0.8, method="wilson"))
    245
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci, default=DEFAULT_CI)
    target, _ = one_left_out(
        {"half_width": half_width, "runs": runs},
        call="runs_for_width",
        example="rate=0.8, half_width=0.1",
    )
    p = _prob("rate", rate, closed_low=True)
    import numpy as np

    q = _prob("ci", ci)
    meth = str(method).lower().replace("_", "-")
    if meth in ("cp", "beta", "exact"):
        meth = "clopper-pearson"
    if meth not in ("wilson", "clopper-pearson"):
        raise OptionError(
            f"{{param}} must be 'wilson' or 'clopper-pearson' (got {method!r})", param="method"
        )
    if target == "half_width":
        n = _whole("runs", runs, minimum=1)
        hw = float(_half_width(np.array([float(n)]), p, meth, q)[0])
        quantities = {"half_width": hw, "rate": p, "method": meth, "ci": q, "runs": n}
        return PlanResult(
            "runs_for_width",
            "half_width",
            hw,
            quantities,
            width_reasoning("half_width", quantities),
            method=f"{meth} interval at c = rate·n",
        )
    h = _prob("half_width", half_width)
    if h >= 0.5:
        raise OptionError(f"{{param}} must be below 0.5 (got {h:g})", param="half_width")

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
    from scipy import stats

    approx = _ceil(stats.norm.ppf(1 - (1 - q) / 2) ** 2 * p * (1 - p) / h**2)
    quantities = {
        "half_width": h,
        "rate": p,
        "method": meth,
        "ci": q,
        "runs": n_found,
        "achieved_half_width": hw,
        "normal_approximation_runs": approx,
    }
    return PlanResult(
        "runs_for_width",
        "runs",
        n_found,
        quantities,
        width_reasoning("runs", quantities, previous=prev),
        method=f"exact search over n, {meth} interval at c = rate·n",
    )


def retry(*, rate: float, attempts: int) -> PlanResult:
    """Pass probability of a CI job that retries: retry-until-green vs all attempts must pass.

    Retrying a failed run up to k attempts passes with 1 − (1 − p)^k (a pass@k
    gate); requiring all k to pass gives p^k (a pass^k gate). The value is the
    all-must-pass probability; ``quantities["retry_until_green"]`` has the other.
    (Formerly ``plan.gate``; the anytime-valid gate on runs is :func:`passhat.plan.sequential`,
    ``passhat gate``.)

    Examples
    --------
    >>> from passhat import plan
    >>> g = plan.retry(rate=0.9, attempts=3)
    >>> f"{g.quantities['retry_until_green']:.1%} vs {g.quantities['all_must_pass']:.1%}"
    '99.9% vs 72.9%'
    """
    p = _prob("rate", rate)
    k = _whole("attempts", attempts, minimum=1)
    retry = 1 - (1 - p) ** k
    all_k = p**k
    quantities = {"rate": p, "attempts": k, "retry_until_green": retry, "all_must_pass": all_k}
    return PlanResult("retry", "all_must_pass", all_k, quantities, retry_reasoning(quantities))


def rate_for_pass_hat_k(
    *, target: float | None = None, k: int | None = None, rate: float | None = None
) -> PlanResult:
    """Per-task success rate needed for pass^k ≥ target: r^(1/k).

    pass^k, the chance that all k runs of a task pass, is the reliability measure
    of τ-bench [1]_. Give all but one of ``target``, ``k``, ``rate``: ``rate`` is
    solved as target^(1/k); ``target`` as rate^k; ``k`` as the largest k with
    rate^k ≥ target.

    References
    ----------
    .. [1] S. Yao, N. Shinn, P. Razavi and K. Narasimhan, "τ-bench: A benchmark for
       tool-agent-user interaction in real-world domains", arXiv:2406.12045 (2024).

    Examples
    --------
    >>> from passhat import plan
    >>> round(float(plan.rate_for_pass_hat_k(target=0.9, k=5)), 4)
    0.9791
    """
    solve, _ = one_left_out(
        {"target": target, "k": k, "rate": rate},
        call="rate_for_pass_hat_k",
        example="target=0.9, k=5",
    )
    if solve == "rate":
        r = _prob("target", target)
        kk = check_k(k)
        value: float | int = r ** (1 / kk)
        q = {"target": r, "k": kk, "rate": value}
    elif solve == "target":
        p = _prob("rate", rate)
        kk = check_k(k)
        value = p**kk
        q = {"target": value, "k": kk, "rate": p}
    else:
        r = _prob("target", target)
        p = _prob("rate", rate)
        if p < r:
            raise OptionError(
                f"{{param}} {p:g} is below {{target}} {r:g}: even k = 1 misses the target",
                param="rate",
                also=("target",),
            )
        value = max(1, math.floor(math.log(r) / math.log(p) + 1e-9))
        q = {"target": r, "k": value, "rate": p}
    reasoning = rate_reasoning(solve, q)
    return PlanResult(
        "rate_for_pass_hat_k", solve, value, q, reasoning, assumptions=ASSUMPTIONS[:2]
    )


def choose_k(
    *,
    unacceptable_failure_rate: float,
    ci: float | None = None,
    k: int | None = None,
    acceptable_failure_rate: float | None = None,
    max_false_alarm: float = 0.05,
    confidence: float | None = None,
) -> PlanResult:
    """Choose k for a pass^k gate from the per-run failure rate you cannot ship.

    A task that fails a share f of its runs fails an all-k-must-pass gate with
    probability 1 − (1 − f)^k. The smallest k that catches
    ``unacceptable_failure_rate`` with probability ≥ ``ci`` is
    ⌈ln(1−q)/ln(1−f)⌉. With ``acceptable_failure_rate`` f_ok, k is also
    capped so that a task failing f_ok of its runs passes the gate with
    probability ≥ 1 − ``max_false_alarm``: (1 − f_ok)^k ≥ 1 − β. Give one of ``k``
    or ``ci`` and the other is solved for (``ci`` is 0.95 when neither is given).
    ``confidence`` is the old name of ``ci`` (deprecated: goes in the next release).

    Examples
    --------
    >>> from passhat import plan
    >>> int(plan.choose_k(unacceptable_failure_rate=0.2, ci=0.9))
    11
    """
    ci = renamed_keyword("confidence", confidence, "ci", ci)
    solve, given = one_left_out(
        {"ci": ci, "k": k},
        call="choose_k",
        example="unacceptable_failure_rate=0.2, k=5",
        default=("ci", DEFAULT_CI),
    )
    ci = given["ci"]
    f = _prob("unacceptable_failure_rate", unacceptable_failure_rate)
    if solve == "ci":
        kk = check_k(k)
        det = 1 - (1 - f) ** kk
        found = {"unacceptable_failure_rate": f, "k": kk, "ci": det}
        return PlanResult("choose_k", "ci", det, found, choose_k_reasoning("ci", found))
    q = _prob("ci", ci)
    k_min = int(runs_to_detect(flip_rate=f, ci=q))
    quantities: dict[str, Any] = {
        "unacceptable_failure_rate": f,
        "ci": q,
        "k": k_min,
        "k_min": k_min,
    }
    if acceptable_failure_rate is not None:
        f_ok = _prob("acceptable_failure_rate", acceptable_failure_rate, closed_low=True)
        beta = _prob("max_false_alarm", max_false_alarm)
        if f_ok >= f:
            raise OptionError(
                f"{{param}} {f_ok:g} must be below {{unacceptable_failure_rate}} {f:g}",
                param="acceptable_failure_rate",
                also=("unacceptable_failure_rate",),
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
    return PlanResult("choose_k", "k", k_min, quantities, choose_k_reasoning("k", quantities))
