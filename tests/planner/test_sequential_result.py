"""passhat.planner.sequential_result: the gate's result is frozen, says itself from its fields,
and shows one display.

Oracles: results built by hand (every sentence is checked against the numbers it was given),
``passhat gate``'s output before the result owned its display (commands/gate.py at f7fd4e7:
the reasoning line, then the table, the notes and the assumptions; ``-q`` the line alone),
and the shape every result shares (header, repr ≤ 2,000 characters, names escaped in HTML,
assignment refused).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat._result import MAX_REPR
from passhat.planner.sequential_result import GateBuild, SequentialResult

HOSTILE = "<b onmouseover=x>v2</b>"


def _result(**over: object) -> SequentialResult:
    fields: dict[str, object] = {
        "decision": "continue",
        "mode": "bound",
        "metric": "pass_hat_k",
        "k": 3,
        "alpha": 0.05,
        "null": 0.1,
        "estimate": 0.02,
        "lower": 0.0,
        "upper": 0.2,
        "e_pass": 3.5,
        "e_fail": 0.4,
        "rounds": 2,
        "tasks": 5,
        "runs_used": 30,
        "runs_set_aside": 4,
        "further_rounds": 3,
        "further_runs": 45,
        "projected": "pass",
        "candidate": GateBuild(
            system="v2", k=3, rounds=2, set_aside=4, decided_min=6, decided_max=10
        ),
    }
    fields.update(over)
    return SequentialResult(**fields)  # type: ignore[arg-type]


def test_words_come_from_the_fields() -> None:
    g = _result()
    assert (
        g.estimand
        == "chance a task fails at least one of 3 runs (1 − pass^3), mean over these 5 tasks"
    )
    assert g.reasoning == (
        f"continue: the {g.estimand} is not yet shown below 10.0% nor above 10.0% after 2 "
        "complete round(s) (30 runs): 2.00% (anytime 95% bounds 0.00%–20.00%); e-values 3.5 "
        "for pass and 0.4 for fail, either decides at 20. If the estimate holds, about 45 more "
        "run(s) (3 more round(s)) decide: pass."
    )
    assert g.warnings == (
        "decided runs per task differ (6 to 10): the gate uses 2 round(s) of 3 run(s) "
        "per task and sets 4 run(s) aside until a task completes another round",
    )
    opened = _result(
        candidate=GateBuild(
            "v2", 3, 2, decided_min=6, decided_max=9, top=3, reruns=(("a", 3), ("b", 1))
        )
    )
    assert opened.top == 3 and "every decided run up to round 3" in opened.reasoning
    assert opened.warnings == (
        "decided runs per task differ (6 to 9): the gate uses every decided run up to round 3 "
        "(2 complete round(s) of 3 run(s) per task; a block still missing runs counts as the "
        "outcome least favourable to each decision); to complete round 3, 2 tasks need 4 more "
        "decided runs: a +3, b +1",
    )
    assert opened.reruns.to_dict(orient="records") == [
        {"build": "candidate", "system": "v2", "task": "a", "runs": 3},
        {"build": "candidate", "system": "v2", "task": "b", "runs": 1},
    ]
    assert opened.to_dict()["gate"]["reruns"][1] == {
        "build": "candidate",
        "system": "v2",
        "task": "b",
        "runs": 1,
    }
    none = _result(rounds=0, candidate=GateBuild("v2", 3, 0, decided_min=1, shortest_task="b"))
    assert none.reasoning.startswith(
        "continue: no complete round yet (task 'b' has 1 decided run(s) and a round needs 3)"
    )
    assert "no number of further runs" in _result(further_rounds=None, further_runs=None).reasoning


def test_baseline_words() -> None:
    g = _result(
        mode="baseline",
        null=-0.02,
        decision="pass",
        e_pass=25.0,
        candidate=GateBuild("v2", 3, 4),
        baseline=GateBuild("v1", 3, 2),
        rounds=2,
    )
    assert g.estimand == "pass^3 of v2 − pass^3 of v1, mean over these 5 tasks"
    assert g.reasoning.startswith(
        "pass: pass^3 of v2 against v1 (5 tasks) is shown at most 0.02 below the baseline: "
        "e-value 25 ≥ 1/α = 20 after 2 complete round(s) (30 runs); difference +0.0200"
    )
    assert "passes a candidate more than 0.02 below the baseline is at most 5%" in g.reasoning
    assert g.warnings == (
        "the candidate has 4 complete rounds and the other build 2: the gate pairs the first 2",
    )
    assert g.systems == {"candidate": "v2", "baseline": "v1"}
    assert len(g.assumptions) == len(_result().assumptions) + 1


def test_document_view_repr_and_frozen(tmp_path) -> None:
    rows = {
        "system": np.repeat([HOSTILE, "v1"], 12),
        "task_id": np.tile(np.repeat(["a", "b"], 6), 2),
    }
    df = pd.DataFrame({**rows, "trial": np.tile(range(6), 4)}).assign(success=True)
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    g = ph.plan.sequential(ph.read(path), baseline_system="v1", margin=0.5)
    doc = g.to_dict()
    assert list(doc) == ["schema", "schema_version", "passhat_version", "input", "gate"]
    assert doc["input"]["runs"]["path"] == str(path) and "sha256" in doc["input"]["runs"]
    assert doc["gate"]["candidate_system"] == HOSTILE and doc["gate"]["exit_code"] == g.exit_code
    line, numbers = g.view().parts
    assert line.lines == (g.reasoning,) and numbers.title == f"passhat gate: {g.decision} (exit 0)"
    assert numbers.notes[-1].startswith("Assumes: runs of a task are independent")
    assert len(repr(g)) <= MAX_REPR and HOSTILE in repr(g)
    assert (
        HOSTILE not in g._repr_html_() and "&lt;b onmouseover=x&gt;v2&lt;/b&gt;" in g._repr_html_()
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.decision = "fail"  # type: ignore[misc]
    assert math.isclose(g.to_frame()["threshold"].iloc[0], 20.0)
