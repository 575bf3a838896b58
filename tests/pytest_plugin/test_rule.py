"""The reliability marker's stopping rule is ``passhat gate``'s decision after every run.

Oracles: the gate itself — :func:`passhat.plan.sequential` on the same runs (one task, k = 1,
``max_failure_rate`` = 1 − min_pass_hat^(1/k)) at the counts on either side of both
boundaries — and the gate's bisection for the same boundaries
(:func:`passhat.planner.betting.failure_boundary`); the vectorised :meth:`StoppingRule.stop`
against the rule applied run by run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError
from passhat.planner.betting import failure_boundary
from passhat.pytest_plugin.rule import (
    check_can_pass,
    clean_runs_to_pass,
    stopping_rule,
)
from passhat.pytest_plugin.spec import reliability_spec

SPECS = [
    {"k": 2, "min_pass_hat": 0.7},
    {"k": 1, "min_pass_hat": 0.8, "max_runs": 150},
    {"k": 5, "min_pass_hat": 0.9, "ci": 0.9, "max_runs": 180},
    {"k": 3, "min_pass_hat": 0.2, "ci": 0.99, "max_runs": 120},
]


@pytest.mark.parametrize("kw", SPECS)
def test_boundaries_equal_the_gates_bisection(kw) -> None:
    spec = reliability_spec(**kw)
    rule = stopping_rule(spec)
    f0, a, n = spec.max_failure_rate, spec.alpha, spec.max_runs
    assert rule.pass_most.tolist() == failure_boundary(n, null=f0, side="below", alpha=a).tolist()
    assert rule.fail_least.tolist() == failure_boundary(n, null=f0, side="above", alpha=a).tolist()


def _gate(n: int, s: int, spec) -> str:
    runs = pd.DataFrame(
        {"task_id": "t", "trial": range(n), "success": [False] * s + [True] * (n - s)}
    )
    return ph.plan.sequential(
        ph.Trials.from_frame(runs), k=1, max_failure_rate=spec.max_failure_rate, alpha=spec.alpha
    ).decision


@pytest.mark.parametrize("kw", SPECS[:2])
def test_decisions_equal_passhat_gate_on_both_sides_of_each_boundary(kw) -> None:
    spec = reliability_spec(**kw)
    rule = stopping_rule(spec)
    checked = 0
    for n in (1, 3, 8, 19, 24, 40, 75, 120, 150):
        near = {
            rule.pass_most[n],
            rule.pass_most[n] + 1,
            rule.fail_least[n] - 1,
            rule.fail_least[n],
        }
        for s in sorted(int(x) for x in near if 0 <= x <= n):
            assert rule.decide(n, s) == _gate(n, s, spec), (n, s)
            checked += 1
    assert checked >= 20


def test_stop_is_the_rule_applied_run_by_run() -> None:
    spec = reliability_spec(k=2, min_pass_hat=0.7, max_runs=150)
    rule = stopping_rule(spec)
    rng = np.random.default_rng(7)
    streams = rng.random((60, 150)) < rng.uniform(0.6, 1.0, size=(60, 1))
    runs, what = rule.stop(streams)
    for row, n_stop, verdict in zip(streams, runs, what, strict=True):
        fails, expected = 0, ("undecided", 150)
        for i, ok in enumerate(row, start=1):
            fails += not ok
            d = rule.decide(i, fails)
            if d != "continue":
                expected = (d, i)
                break
        assert (verdict, n_stop) == expected
    assert {"pass", "fail"} <= set(what.tolist())


def test_a_pass_needs_the_clean_runs_the_goal_asks_and_a_decision_never_flips_by_one_run() -> None:
    spec = reliability_spec(k=5, min_pass_hat=0.9, max_runs=200)
    rule = stopping_rule(spec)
    assert rule.fewest_runs_to_pass == clean_runs_to_pass(spec) == 200
    # each boundary moves by 0 or 1 per run (the walk that computes them relies on it)
    assert set(np.diff(rule.pass_most).tolist()) <= {0, 1}
    assert set(np.diff(rule.fail_least).tolist()) <= {0, 1}
    with pytest.raises(OptionError, match=r"max_runs = 199 is too few: .* at least 200 runs"):
        check_can_pass(reliability_spec(k=5, min_pass_hat=0.9, max_runs=199))


def test_decide_refuses_impossible_counts() -> None:
    rule = stopping_rule(reliability_spec(min_pass_hat=0.8, max_runs=10))
    for n, s in ((3, 4), (11, 0), (2, -1)):
        with pytest.raises(ValueError, match="need 0 ≤ failures ≤ runs ≤ max_runs"):
            rule.decide(n, s)
    with pytest.raises(ValueError, match=r"shape \(streams, 10\)"):
        rule.stop(np.ones((2, 9), dtype=bool))
