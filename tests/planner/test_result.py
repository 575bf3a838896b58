"""PlanResult and the planner's shared argument checks (passhat.planner.result).

Oracle: the definitions (a result compares and converts as its value) and the seeds' 29 runs
for a 10% flip rate at 95%.
"""

from __future__ import annotations

import pytest

from passhat import planner as plan
from passhat.errors import OptionError
from passhat.planner.result import _one_none, _prob, _whole


def test_result_carries_reasoning_and_assumptions():
    r = plan.runs_to_detect(flip_rate=0.1, confidence=0.95)
    assert r.solved_for == "runs" and "29" in r.reasoning and "10.0%" in r.reasoning
    assert any("independent" in a for a in r.assumptions)
    assert any("clean state" in a for a in r.assumptions)
    d = r.to_dict()
    assert d["value"] == 29 and d["quantities"]["flip_rate"] == 0.1


def test_result_compares_and_converts_as_its_value():
    r = plan.runs_to_detect(flip_rate=0.1, confidence=0.95)
    assert r == 29 and int(r) == 29 and float(r) == 29.0 and f"{r:d}" == "29"
    assert 28 < r <= 29 and 30 > r >= 29
    assert r == plan.runs_to_detect(flip_rate=0.1, confidence=0.95)
    assert r != plan.runs_to_detect(flip_rate=0.05, confidence=0.95)


@pytest.mark.parametrize(
    "call,needle",
    [
        (lambda: _prob("rate", 1.0), "rate must lie in (0, 1)"),
        (lambda: _prob("rate", True), "rate must be a number"),
        (lambda: _prob("rate", -0.1, closed_low=True), "rate must lie in [0, 1)"),
        (lambda: _whole("runs", 2.5), "runs must be a whole number ≥ 0"),
        (lambda: _whole("runs", 0, minimum=1), "runs must be a whole number ≥ 1"),
        (lambda: _one_none("q", a=1, b=2), "leave exactly one of a=, b= as None"),
    ],
)
def test_shared_checks_state_the_rule(call, needle):
    with pytest.raises(OptionError) as err:
        call()
    assert needle in str(err.value)


def test_shared_checks_pass_good_values():
    assert _prob("rate", 0.0, closed_low=True) == 0.0
    assert _whole("runs", 3.0, minimum=1) == 3
    assert _one_none("q", a=None, b=2) == "a"
