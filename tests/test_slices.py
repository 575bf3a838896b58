"""Failure slices (passhat.slices).

Oracles: counts made by hand from the trial frame with pandas (value_counts)
on the bundled example, a small hand-made table, and statsmodels'
``proportion_confint`` (Wilson) for the severe-status rates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

import passhat as ph
from passhat.errors import OptionError, ValidationError


def _hand() -> ph.Trials:
    df = pd.DataFrame(
        {
            "system": ["a"] * 6 + ["b"] * 3,
            "task_id": ["t1", "t1", "t1", "t2", "t2", "t2", "t1", "t1", "t2"],
            "success": [True, False, None, False, True, None, True, True, False],
            "status": [
                "ok",
                "timeout",
                "grader_error",
                "tool_error",
                "ok",
                "infrastructure_error",
                "ok",
                "ok",
                "tool_error",
            ],
            "category": ["x", "x", "x", "y", "y", "y", "x", "x", "y"],
        }
    )
    return ph.Trials.from_frame(df)


def test_status_and_category_counts_by_hand() -> None:
    sl = ph.slices(_hand(), severe=["tool_error"])
    st = sl.tables["status"].set_index(["system", "status"])
    assert st.loc[("a", "ok"), ["runs", "decided", "successes", "failures"]].tolist() == [
        2,
        2,
        2,
        0,
    ]
    assert st.loc[("a", "grader_error"), ["decided", "unscored"]].tolist() == [0, 1]
    assert st.loc[("a", "timeout"), "share_of_failures"] == pytest.approx(0.5)
    assert np.isnan(st.loc[("a", "infrastructure_error"), "success_rate"])
    cat = sl.tables["category"].set_index(["system", "category"])
    # unscored runs are listed but never in n (decided)
    assert cat.loc[("a", "x"), ["runs", "decided", "unscored", "successes"]].tolist() == [
        3,
        2,
        1,
        1,
    ]
    assert cat.loc[("b", "y"), "success_rate"] == 0.0
    sev = sl.severe.set_index("system")
    assert sev.loc["a", ["runs", "count"]].tolist() == [6, 1]
    lo, hi = proportion_confint(1, 6, alpha=0.05, method="wilson")
    assert (sev.loc["a", "lower"], sev.loc["a", "upper"]) == pytest.approx((lo, hi))


def test_example_matches_value_counts() -> None:
    trials = ph.load_example("agents")
    sl = ph.slices(trials, by=["status"])
    df = trials.frame
    want = df.groupby(["system", "status"]).size()
    got = sl.tables["status"].set_index(["system", "status"])["runs"]
    pd.testing.assert_series_equal(got.sort_index(), want.sort_index(), check_names=False)
    # decided runs by status sum to the count table's n
    n = trials.counts()["n"].sum(dim="task").to_series()
    assert sl.tables["status"].groupby("system")["decided"].sum().to_dict() == n.to_dict()


def test_bad_input() -> None:
    with pytest.raises(ValidationError, match="the data: a count table has no per-run statuses"):
        ph.slices(ph.load_example("abcd").counts())
    with pytest.raises(ValidationError, match=r"status per run \(got DataFrame\)"):
        ph.slices(_hand().frame)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="no category column"):
        ph.slices(ph.load_example("abcd"), by=["category"])
    df = _hand().frame.copy()
    df.loc[3, "category"] = None
    with pytest.raises(ValidationError, match=r"category is missing in 1 row\(s\) \(first row 4"):
        ph.slices(ph.Trials.from_frame(df), by=["category"])
    # one task, two categories: `estimate --weights category` refused the file while `slices`
    # counted the task in both (oracle: the file by hand, task of row 4 split x / z)
    df = _hand().frame.copy()
    df.loc[3, "category"] = "z" if df.loc[3, "category"] != "z" else "w"
    task = df.loc[3, "task_id"]
    with pytest.raises(ValidationError, match=f"task {task!r}: runs declare different categ"):
        ph.slices(ph.Trials.from_frame(df), by=["category"])
    ph.slices(ph.Trials.from_frame(df), by=["status"])  # statuses are per run: no rule broken
    with pytest.raises(OptionError, match="cannot slice by"):
        ph.slices(_hand(), by=["model"])
    with pytest.raises(OptionError, match="ci must"):
        ph.slices(_hand(), severe=["timeout"], ci=2.0)


def test_default_slices_follow_the_data_as_the_cli() -> None:
    """ph.slices(trials) with no `by`: status, and category when there is one (the CLI's
    default). It raised "no category column" for any data without one; asking for category
    explicitly still does. Oracle: the status table of an explicit by=["status"]."""
    no_cat = ph.Trials.from_frame(_hand().frame.drop(columns="category"))
    sl = ph.slices(no_cat)
    assert list(sl.tables) == ["status"]
    pd.testing.assert_frame_equal(
        sl.tables["status"], ph.slices(no_cat, by=["status"]).tables["status"]
    )
    assert list(ph.slices(_hand()).tables) == ["status", "category"]
    with pytest.raises(ValidationError, match="no category column"):
        ph.slices(no_cat, by=["category"])
