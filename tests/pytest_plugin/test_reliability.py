"""The marker's verdict as a Python function, and its result's shape.

Oracles: the unbiased pass^k C(c, k)/C(n, k) (:func:`passhat.pass_hat_k`), the gate's own
confidence sequence on the per-run failure rate raised to the k-th power (pass^k = p^k is
monotone in p), and the stopping rule replayed by hand.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

import passhat as ph
from passhat._result import MAX_REPR
from passhat.pytest_plugin.reliability import reliability
from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import reliability_spec


def test_stops_at_the_first_decision_and_leaves_the_rest_unused() -> None:
    outcomes = [True] * 10 + [False] * 20
    res = reliability(outcomes, k=2, min_pass_hat=0.7)
    rule = stopping_rule(reliability_spec(k=2, min_pass_hat=0.7))
    first = next(n for n in range(1, 31) if rule.decide(n, max(0, n - 10)) != "continue")
    assert (res.decision, res.runs, res.left_over) == ("fail", first, 30 - first)
    assert res.failures == first - 10 and res.decided == first and res.unscored == 0
    assert res.outcome == "failed"
    assert "The 11 runs after the decision are not used." in res.reasoning


def test_bounds_are_the_gates_raised_to_k_and_the_estimate_is_unbiased() -> None:
    outcomes = [True, True, False, True] * 30
    res = reliability(outcomes, k=3, min_pass_hat=0.2, max_runs=120)
    gate = res.gate
    assert gate is not None and gate.mode == "bound" and gate.k == 1
    assert gate.null == pytest.approx(1 - 0.2 ** (1 / 3))
    assert res.lower == pytest.approx((1 - gate.upper) ** 3)
    assert res.upper == pytest.approx((1 - gate.lower) ** 3)
    n, c = res.decided, res.decided - res.failures
    assert res.estimate == pytest.approx(float(ph.pass_hat_k(n, c, 3)))
    assert res.lower < res.estimate < res.upper
    assert res.decision == "pass" and res.lower > 0.2


def test_unscored_runs_count_toward_max_runs_but_not_the_decision() -> None:
    outcomes = [None, True] * 40
    res = reliability(outcomes, min_pass_hat=0.8, max_runs=60)
    assert (res.runs, res.decided, res.unscored) == (38, 19, 19)  # 19 passes decide at p0 0.8
    assert res.decision == "pass"
    short = reliability([None] * 10, min_pass_hat=0.8, max_runs=10)
    assert (short.decision, short.gate, short.lower, short.upper) == ("undecided", None, 0.0, 1.0)
    assert math.isnan(short.estimate)


def test_continue_before_max_runs_and_undecided_at_it() -> None:
    cycle = [True, True, True, True, False] * 12
    assert reliability(cycle[:30], min_pass_hat=0.8, max_runs=60).decision == "continue"
    res = reliability(cycle, min_pass_hat=0.8, max_runs=60, undecided="fail")
    assert (res.decision, res.outcome, res.runs) == ("undecided", "failed", 60)
    assert res.lower < 0.8 < res.upper
    assert reliability(cycle, min_pass_hat=0.8, max_runs=60, undecided="skip").outcome == "skipped"


def test_line_rounds_bounds_outwards_with_the_digits_that_separate_them_from_the_goal() -> None:
    res = reliability([True] * 30, k=2, min_pass_hat=0.7)
    assert res.line() == (
        "pass: pass^2 ≥ 0.706 (95% anytime lower bound; goal 0.7) after 24 runs, 0 failed"
    )
    assert math.floor(res.lower * 1000) / 1000 == 0.706


def test_result_shape() -> None:
    res = reliability([True, False, True, True] * 20, k=2, min_pass_hat=0.5, test="t.py::<b>x</b>")
    doc = res.to_dict()
    assert (doc["schema"], doc["schema_version"]) == ("passhat.reliability", 1)
    assert set(doc) == {"schema", "schema_version", "passhat_version", "reliability", "gate"}
    assert doc["reliability"]["test"] == "t.py::<b>x</b>"
    assert doc["gate"]["decision"] == res.gate.decision  # the gate's own document
    json.dumps(doc)
    frame = res.to_frame()
    assert len(frame) == 1 and frame.loc[0, "decision"] == res.decision
    assert len(repr(res)) <= MAX_REPR and "passhat reliability:" in repr(res)
    html = res._repr_html_()
    assert "t.py::&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.decision = "fail"  # type: ignore[misc]
