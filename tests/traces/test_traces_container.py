"""The trace container: canonical arguments, normalisation (tokens, stages, lookups), validation.

Oracles: canonical JSON written out by hand for each rule (key order,
whitespace, integral floats, ignored keys at any depth); the lookup flag and
stage of each tool from the stated mapping and naming rule; the data-model
rules (orphan steps, duplicate steps and trials, missing columns, unknown
tasks) each raising its error.
"""

from __future__ import annotations

import pandas as pd
import pytest
from traces_testdata import planted, traces_of

import passhat as ph
from passhat.errors import OptionError, ValidationError
from passhat.traces import canonical_args, normalise


# --------------------------------------------------------------- normalisation
def test_canonical_args_key_order_whitespace_numbers() -> None:
    a = canonical_args('{"b": 2.0, "a": {"y": [1, 2.50], "x": " v "}}')
    b = canonical_args({"a": {"x": "v", "y": [1.0, 2.5]}, "b": 2})
    assert a == b == '{"a":{"x":"v","y":[1,2.5]},"b":2}'
    assert canonical_args(None) == canonical_args("") == "{}"
    assert canonical_args("not json") == '"not json"'
    assert canonical_args({"flag": True, "n": 1}) == '{"flag":true,"n":1}'  # bool stays bool


def test_ignore_keys_at_any_depth_and_ignore_args() -> None:
    tr = traces_of([("t", 0, True, ["pay:1"]), ("t", 1, False, ["pay:2"])])
    # the only argument is an id: ignoring it makes the two runs identical
    d = ph.divergence(tr, ignore_keys=["id"])
    assert d.table["kind"].tolist() == ["none"]
    assert ph.divergence(tr, ignore_args=True).table["kind"].tolist() == ["none"]
    d = ph.divergence(tr)
    assert d.table[["step", "kind", "marker"]].values.tolist() == [[1, "differs", "pay"]]
    nested = canonical_args({"a": {"id": 3, "k": 1}, "id": 9}, ignore_keys=["id"])
    assert nested == '{"a":{"k":1}}'


def test_stage_mapping_and_lookup_rule() -> None:
    tr = traces_of(
        [("t", 0, True, ["fetch_x", "audit", "pay"]), ("t", 1, False, ["fetch_x", "pay"])]
    )
    n = normalise(tr, stages={"audit": "permission", "pay": "payment"})
    lk = dict(zip(n.steps["action"], n.steps["lookup"], strict=True))
    assert lk == {"fetch_x": True, "audit": False, "pay": False}
    d = ph.divergence(tr, stages={"audit": "permission", "pay": "payment"})
    assert d.by_stage["stage"].tolist() == ["permission"]
    assert d.by_action["action"].tolist() == ["audit"]
    # a tool mapped to the stage "lookup" becomes order-free
    n2 = normalise(tr, stages={"audit": "lookup"})
    assert bool(n2.steps.loc[n2.steps["action"] == "audit", "lookup"].iloc[0])


# --------------------------------------------------------------- validation
def test_from_frames_rejects_orphans_and_duplicates() -> None:
    trials = pd.DataFrame({"task_id": ["t"], "trial": [0], "success": [True]})
    with pytest.raises(ValidationError, match="have no outcome"):
        ph.Traces.from_frames(
            pd.DataFrame({"task_id": ["t"], "trial": [5], "action": ["a"]}), trials
        )
    with pytest.raises(ValidationError, match="duplicate step"):
        ph.Traces.from_frames(
            pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 0], "step": [1, 1], "action": "a"}),
            trials,
        )
    with pytest.raises(ValidationError, match="duplicate trial"):
        ph.Traces.from_frames(
            pd.DataFrame(columns=["task_id", "trial", "action"]), pd.concat([trials, trials])
        )
    with pytest.raises(ValidationError, match="lacks column"):
        ph.Traces.from_frames(pd.DataFrame({"task_id": ["t"]}), trials)


def test_unknown_task_is_an_error() -> None:
    with pytest.raises(OptionError, match="not in the traces"):
        ph.divergence(planted(), tasks=["nope"])
