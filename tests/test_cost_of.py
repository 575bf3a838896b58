"""passhat.cost_of: duration per success (``cost_of="duration"``) in estimate and compare_cost.

Oracle: the cost path itself on a frame whose ``cost`` column is a copy of ``duration_s`` (and
whose own ``duration_s`` is replaced by other numbers, so a mix-up of the columns would show):
every number must be identical. Wording: no "cost" in the duration labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.cost_of import check_cost_of, label, missing_column
from passhat.errors import OptionError, ValidationError


def _frames() -> tuple[ph.Trials, ph.Trials]:
    """The agents example with durations, and the same runs with cost := duration_s and the
    duration_s column scrambled (so that reading the wrong column changes the numbers)."""
    df = ph.load_example("agents").frame.copy()
    swapped = df.copy()
    swapped["cost"] = swapped["duration_s"]
    swapped["duration_s"] = np.random.default_rng(0).uniform(1, 9, size=len(df))
    return ph.Trials.from_frame(df), ph.Trials.from_frame(swapped)


def test_estimate_duration_equals_cost_path_on_copied_column() -> None:
    dur, oracle = _frames()
    a = ph.estimate(dur, k=[1, 3], ci=0.9, n_boot=100).with_cost_of("duration").cost
    b = ph.estimate(oracle, k=[1, 3], ci=0.9, n_boot=100).cost
    assert a is not None and b is not None
    assert a.cost_of == "duration" and b.cost_of == "cost"
    pd.testing.assert_frame_equal(a.table, b.table)  # same columns, exactly the same numbers
    assert a.method == b.method
    # and not the cost column: the agents' cost per success is another number
    c = ph.estimate(dur, k=[1, 3]).cost
    assert c is not None
    assert not np.allclose(c.table["cost_per_success"], a.table["cost_per_success"])


def test_compare_cost_duration_equals_cost_path_on_copied_column() -> None:
    dur, oracle = _frames()
    a = ph.compare_cost(dur, k=[2], n_boot=200, cost_of="duration")
    b = ph.compare_cost(oracle, k=[2], n_boot=200)
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.missing, b.missing)
    assert a.settings.cost_of == "duration" and b.settings.cost_of == "cost"


def test_json_records_which_column() -> None:
    dur, _ = _frames()
    est = ph.estimate(dur, k=[1]).with_cost_of("duration")
    doc = est.to_dict(cost=True)
    assert doc["cost_of"] == "duration" and "cost" in doc  # the existing key kept
    assert ph.estimate(dur, k=[1]).to_dict(cost=True)["cost_of"] == "cost"
    assert est.cost is not None and est.cost.to_dict()["cost_of"] == "duration"
    cmp = ph.compare_cost(dur, k=[1], n_boot=100, cost_of="duration").to_dict()
    assert cmp["settings"]["cost_of"] == "duration" and "cost" in cmp
    from passhat.schemas import validate

    for document in (doc, est.cost.to_dict(), cmp):  # the schemas know the new field
        validate(document)


def _texts(view: object) -> str:
    """A view's title, column labels, cells and notes as one string."""
    parts = getattr(view, "parts", (view,))
    out = []
    for v in parts:
        out += [v.title, *map(str, v.frame.columns), *v.notes]
        out += [str(x) for x in v.frame.to_numpy().ravel()]
    return "\n".join(out)


def test_duration_wording_says_seconds_never_cost() -> None:
    dur, _ = _frames()
    est_view = ph.estimate(dur, k=[1, 2], ci=0.9, n_boot=100).with_cost_of("duration").cost.view()
    cmp_view = ph.compare_cost(dur, k=[2], n_boot=100, cost_of="duration").view()
    for text in (_texts(est_view), _texts(cmp_view)):
        assert "cost" not in text.lower().replace("compare_cost", "")
        assert "$" not in text
        assert "duration / success (s)" in text and "second" in text
    assert "duration / all-k-pass (s)" in _texts(est_view)
    assert "duration / all-2-pass (s)" in _texts(cmp_view)


def test_duration_notes_with_few_tasks_and_missing_durations() -> None:
    """The notes that appear with few matched tasks and runs without a duration say so
    without cost words."""
    df = ph.load_example("agents").frame
    df = df[df["task_id"].isin(df["task_id"].unique()[:12])].copy()
    df.loc[df.index[0], "duration_s"] = np.nan
    r = ph.compare_cost(ph.Trials.from_frame(df), k=[2], n_boot=100, cost_of="duration")
    notes = " ".join(r.all_notes())
    assert "runs without a duration_s" in notes and "few matched tasks" in notes
    assert "cost" not in notes.replace("compare_cost_coverage", "")


def test_missing_duration_column_is_a_named_error(tmp_path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text(
        "system,task_id,success,cost\nx,a,1,1\nx,a,0,1\ny,a,1,2\ny,a,1,2\n", encoding="utf-8"
    )
    runs = ph.read(str(path))
    est = ph.estimate(runs, k=[1]).with_cost_of("duration")
    assert est.cost is None
    with pytest.raises(OptionError, match=r"runs\.csv: duration per success needs a duration_s"):
        est.to_dict(cost=True)
    with pytest.raises(OptionError, match=r"runs\.csv: duration per success needs a duration_s"):
        ph.compare_cost(runs, k=[1], cost_of="duration")


def test_missing_or_negative_durations_are_named() -> None:
    df = pd.DataFrame({"system": list("xxyy"), "task_id": list("aaaa"), "success": [1, 0, 1, 1],
                       "duration_s": [1.0, None, 2.0, 2.0]})  # fmt: skip
    with pytest.raises(ValidationError, match=r"have no duration_s .*task 'a'"):
        _ = ph.estimate(ph.Trials.from_frame(df), k=[1]).with_cost_of("duration").cost
    df.loc[1, "duration_s"] = -3.0
    with pytest.raises(ValidationError, match="duration_s -3 is negative"):
        ph.compare_cost(ph.Trials.from_frame(df), k=[1], cost_of="duration")


def test_bad_cost_of() -> None:
    with pytest.raises(OptionError, match="cost_of must be 'cost' or 'duration'"):
        ph.estimate(ph.load_example("agents"), k=[1]).with_cost_of("time")
    with pytest.raises(OptionError, match="cost_of must be 'cost' or 'duration'"):
        check_cost_of(None)


def test_labels_and_messages() -> None:
    assert label("cost_per_success", "cost") == "cost / success"
    assert "cost" not in " ".join(
        label(m, "duration")
        for m in ("runs", "total_cost", "cost_per_run", "cost_per_success",
                  "cost_per_all_k_pass", "pass_hat_k_per_cost")
    )  # fmt: skip
    assert missing_column("duration").startswith("duration per success needs a duration_s")
