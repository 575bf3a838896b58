"""PlanResult (passhat.planner.result): a frozen result that compares as its answer, shows the
answer, reasoning, method and assumptions, and writes its JSON document.

Oracle: the definitions (a result compares and converts as its value) and the seeds' 29 runs
for a 10% flip rate at 95%; the CLI's former output (docs/guide/planning.md) for the view.
"""

from __future__ import annotations

import dataclasses

import pytest

from passhat import planner as plan
from passhat._result import MAX_REPR


def test_result_carries_reasoning_and_assumptions():
    r = plan.runs_to_detect(flip_rate=0.1, ci=0.95)
    assert r.solved_for == "runs" and "29" in r.reasoning and "10.0%" in r.reasoning
    assert any("independent" in a for a in r.assumptions)
    assert any("clean state" in a for a in r.assumptions)
    d = r.to_dict()
    assert d["value"] == 29 and d["quantities"]["flip_rate"] == 0.1


def test_result_compares_and_converts_as_its_value():
    r = plan.runs_to_detect(flip_rate=0.1, ci=0.95)
    assert r == 29 and int(r) == 29 and float(r) == 29.0 and f"{r:d}" == "29"
    assert 28 < r <= 29 and 30 > r >= 29
    assert r == plan.runs_to_detect(flip_rate=0.1, ci=0.95)
    assert r != plan.runs_to_detect(flip_rate=0.05, ci=0.95)


def test_to_dict_has_the_header_and_the_keys_of_the_former_json():
    doc = plan.runs_to_detect(flip_rate=0.1).to_dict()
    assert list(doc) == [
        "schema",
        "schema_version",
        "passhat_version",
        "query",
        "solved_for",
        "value",
        "quantities",
        "reasoning",
        "assumptions",
        "method",
    ]
    assert doc["schema"] == "passhat.plan" and doc["schema_version"] == 1


def test_view_is_the_commands_output():
    # docs/guide/planning.md: `passhat plan detect --flip-rate 0.10 --confidence 0.95`
    r = plan.runs_to_detect(flip_rate=0.1)
    text = repr(r).splitlines()
    assert text[0] == "29 runs"
    assert text[1].startswith("A task that fails 10.0% of its runs shows no failure")
    assert text[2] == "Method: closed form."
    assert text[3].startswith("Assumes: runs are independent;")
    assert len(repr(r)) <= MAX_REPR and "29 runs" in r._repr_html_()


@pytest.mark.parametrize(
    ("res", "first"),
    [
        (lambda: plan.runs_to_detect(flip_rate=0.1, runs=10), "confidence = 65.13%"),
        (lambda: plan.failure_upper_bound(runs=30), "failure rate ≤ 9.5%"),
        # Wilson at c = 80 of 100: 1.96·√(0.0016 + 1.96²/40000)/(1 + 1.96²/100) = 0.0777
        (lambda: plan.runs_for_width(runs=100, rate=0.8), "±7.77%"),
        (
            lambda: plan.retry(rate=0.9, attempts=3),
            "retry-until-green 99.9% vs all-must-pass 72.9%",
        ),
        (lambda: plan.choose_k(unacceptable_failure_rate=0.2), "k = 14"),
    ],
)
def test_the_answer_line_names_what_was_solved_for(res, first):
    assert res().answer() == first


def test_result_is_frozen():
    r = plan.runs_to_detect(flip_rate=0.1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 30  # type: ignore[misc]


def test_to_frame_lists_the_quantities():
    frame = plan.runs_to_certify(max_failure_rate=0.05).to_frame()
    assert list(frame.columns) == ["quantity", "value"]
    assert dict(zip(frame["quantity"], frame["value"], strict=True))["runs"] == 59
