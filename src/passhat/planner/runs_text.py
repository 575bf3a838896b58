"""The reasoning of the closed forms (:mod:`passhat.planner.runs`), in words from their numbers.

Each function takes the quantities a closed form computed (as its :class:`PlanResult
<passhat.planner.result.PlanResult>` holds them) and the quantity solved for, and writes the one
or two sentences ``passhat plan …`` prints under the answer. Nothing here computes an answer.

Examples
--------
>>> retry_reasoning({"rate": 0.9, "attempts": 3, "retry_until_green": 0.999,
...                  "all_must_pass": 0.729})[:60]
'At a per-run pass rate of 90.0%, a gate that retries until g'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from passhat._format import pct

__all__ = [
    "bound_reasoning",
    "certify_reasoning",
    "choose_k_reasoning",
    "detect_reasoning",
    "rate_reasoning",
    "retry_reasoning",
    "width_reasoning",
]


def _failures_text(x: int) -> str:
    return "no failures" if x == 0 else f"at most {x} failure{'s' if x != 1 else ''}"


def detect_reasoning(solved: str, q: Mapping[str, Any], *, missed: float = 0.0) -> str:
    """:func:`runs_to_detect`: the runs, the level or the flip rate solved for (``missed``:
    (1 − f)^n, the chance the runs show no failure)."""
    f, n, level = q["flip_rate"], q["runs"], q["ci"]
    if solved == "runs":
        return (
            f"A task that fails {pct(f)} of its runs shows no failure in n runs with "
            f"probability {1 - f:.12g}^n; {n} runs make that at most {pct(1 - level)} "
            f"({1 - f:.12g}^{n} = {pct(missed, 2)}), so at least one failure shows "
            f"with probability {pct(q['achieved_ci'], 2)} ≥ {pct(level)}."
        )
    if solved == "ci":
        return (
            f"With {n} runs a task that fails {pct(f)} of its runs shows at least one failure "
            f"with probability 1 − {1 - f:g}^{n} = {pct(level, 2)}."
        )
    return (
        f"{n} runs show at least one failure with probability ≥ {pct(level)} only for tasks "
        f"that fail at least {pct(f, 2)} of their runs (1 − (1 − q)^(1/n)); rarer "
        "flips can pass unseen."
    )


def bound_reasoning(q: Mapping[str, Any]) -> str:
    """:func:`failure_upper_bound`: what n runs with x failures rule out."""
    n, x, bound, level = q["runs"], q["failures"], q["failure_rate_upper"], q["ci"]
    what = "clean runs" if x == 0 else f"runs with {x} failure{'s' if x != 1 else ''}"
    return (
        f"{n} {what} rule out per-run failure rates above {pct(bound)} at {pct(level, 0)} "
        f"confidence: a higher rate would give "
        f"{'no failures' if x == 0 else f'{x} or fewer failures'} in {n} runs with "
        f"probability below {pct(1 - level, 0)}."
    )


def certify_reasoning(solved: str, q: Mapping[str, Any]) -> str:
    """:func:`runs_to_certify`: the runs or the level solved for (the failure rate solved for
    is :func:`failure_upper_bound`'s answer, and its reasoning)."""
    n, x, f0, level = q["runs"], q["allowed_failures"], q["max_failure_rate"], q["ci"]
    if solved == "runs":
        return (
            f"With {n} runs and {_failures_text(x)}, the exact "
            f"one-sided {pct(level, 0)} upper bound on the failure rate is "
            f"{pct(q['upper_bound_at_runs'], 2)} ≤ {pct(f0)}; with {n - 1} runs it would exceed "
            f"{pct(f0)}."
        )
    return (
        f"{n} runs with {_failures_text(x)} certify a failure rate "
        f"below {pct(f0)} at {pct(level, 2)} confidence (a rate of {pct(f0)} would give "
        f"so few failures with probability {pct(1 - level, 2)})."
    )


def width_reasoning(solved: str, q: Mapping[str, Any], *, previous: float = 0.0) -> str:
    """:func:`runs_for_width`: the half-width at n runs, or the runs that reach it
    (``previous``: the half-width with one run fewer)."""
    p, meth, level, n = q["rate"], q["method"], q["ci"], q["runs"]
    if solved == "half_width":
        return (
            f"With {n} runs at a {pct(p)} success rate the {pct(level, 0)} {meth} interval "
            f"spans ±{pct(q['half_width'], 2)} (half-width, at the expected count {p * n:g})."
        )
    return (
        f"{n} runs give a {pct(level, 0)} {meth} interval of ±{pct(q['achieved_half_width'], 2)} "
        f"around a {pct(p)} success rate ({n - 1} runs: ±{pct(previous, 2)}); the normal "
        f"approximation would say {q['normal_approximation_runs']}."
    )


def retry_reasoning(q: Mapping[str, Any]) -> str:
    """:func:`retry`: retry-until-green against all attempts must pass."""
    p, k = q["rate"], q["attempts"]
    return (
        f"At a per-run pass rate of {pct(p)}, a gate that retries until green over {k} "
        f"attempts passes with 1 − {1 - p:g}^{k} = {pct(q['retry_until_green'])} (a pass@{k} "
        f"gate), while requiring all {k} to pass gives {p:g}^{k} = {pct(q['all_must_pass'])} (a "
        f"pass^{k} gate)."
    )


def rate_reasoning(solved: str, q: Mapping[str, Any]) -> str:
    """:func:`rate_for_pass_hat_k`: the rate, the target or the k solved for."""
    r, k, p = q["target"], q["k"], q["rate"]
    if solved == "rate":
        return (
            f"pass^{k} ≥ {pct(r)} needs a per-run success rate of at least "
            f"{pct(r, 1)}^(1/{k}) = {pct(p, 2)}, i.e. a failure rate of at most "
            f"{pct(1 - p, 2)}."
        )
    if solved == "target":
        return f"A task passing {pct(p)} of its runs has pass^{k} = {pct(r, 2)}."
    return (
        f"A task passing {pct(p)} of its runs keeps pass^k ≥ {pct(r)} up to k = {k} "
        f"({pct(p**k, 2)}); at k = {k + 1} it drops to {pct(p ** (k + 1), 2)}."
    )


def choose_k_reasoning(solved: str, q: Mapping[str, Any]) -> str:
    """:func:`choose_k`: the chance a pass^k gate catches the flip rate, or the k that does
    (and, with an acceptable rate, the largest k that keeps false alarms rare)."""
    f = q["unacceptable_failure_rate"]
    if solved == "ci":
        k = q["k"]
        return (
            f"A pass^{k} gate (all {k} runs must pass) catches a task that fails {pct(f)} of "
            f"its runs with probability 1 − {1 - f:g}^{k} = {pct(q['ci'], 2)}."
        )
    k_min = q["k_min"]
    text = (
        f"k = {k_min} is the smallest pass^k gate that fails a task with a {pct(f)} flip rate "
        f"with probability ≥ {pct(q['ci'])} (1 − {1 - f:g}^{k_min} = "
        f"{pct(1 - (1 - f) ** k_min, 2)})."
    )
    if "k_max" in q:
        text += (
            f" Any k up to {q['k_max']} keeps a task failing {pct(q['acceptable_failure_rate'])} "
            f"of its runs passing the gate with probability ≥ {pct(1 - q['max_false_alarm'])}."
        )
    return text
