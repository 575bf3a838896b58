"""Trial table and count table: validation and aggregation.

Oracles: a plain element-by-element reference for the success coercion
(written here, independent of the vectorised code) checked with hypothesis;
counts worked out by hand; every invalid input raises naming the row/task.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import passhat as ph
from passhat._status import failure_status_note, passed_status_note
from passhat.errors import CountError, ValidationError
from passhat.trials import Trials, coerce_success

TRUE_WORDS = ["true", "T", " yes ", "Y", "1", "pass", "PASSED", "success", "C", "correct", "1.0"]
FALSE_WORDS = ["false", "F", "no", "n", "0", "fail", "failed", "failure", "I", "incorrect", "0.0"]
MISSING_WORDS = ["", "NA", "nan", "None", "null"]
BAD_WORDS = ["maybe", "P", "2", "0.5", "-1", "yes!"]


def _reference(value: object) -> object:
    """The rule, one value at a time: True / False / None (missing) / 'bad'."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | float):
        return True if value == 1 else False if value == 0 else "bad"
    key = str(value).strip().lower()
    if key in {w.strip().lower() for w in TRUE_WORDS}:
        return True
    if key in {w.strip().lower() for w in FALSE_WORDS}:
        return False
    if key in {w.lower() for w in MISSING_WORDS}:
        return None
    return "bad"


values = st.one_of(
    st.sampled_from(TRUE_WORDS + FALSE_WORDS + MISSING_WORDS + BAD_WORDS),
    st.sampled_from([True, False, None, 0, 1, 0.0, 1.0, float("nan"), 2, 0.5]),
)


@given(st.lists(values, min_size=1, max_size=25))
def test_coerce_success_matches_reference(vals: list[object]) -> None:
    ref = [_reference(v) for v in vals]
    s = pd.Series(vals, dtype=object)
    if "bad" in ref:
        first = ref.index("bad") + 1
        with pytest.raises(ValidationError, match=rf"^t: row {first}: success values must be"):
            coerce_success(s, where="t")
        return
    got = coerce_success(s, where="t")
    assert got.dtype == "boolean"
    assert [None if v is pd.NA else bool(v) for v in got] == ref


def test_coerce_success_lists_values_seen() -> None:
    s = pd.Series(["pass", "maybe", "fail", "perhaps", "maybe"])
    with pytest.raises(
        ValidationError, match=r"row 2: .*saw 'maybe', 'perhaps' in 3 row\(s\).*threshold"
    ):
        coerce_success(s, where="f.csv")


def test_coerce_success_numeric_and_bool_dtypes() -> None:
    assert coerce_success(pd.Series([1, 0, 1]), where="t").tolist() == [True, False, True]
    got = coerce_success(pd.Series([1.0, np.nan, 0.0]), where="t")
    assert got.isna().tolist() == [False, True, False]
    with pytest.raises(ValidationError, match=r"row 2: .*saw 0\.7"):
        coerce_success(pd.Series([1.0, 0.7]), where="t")
    b = pd.Series([True, False], index=[5, 9])
    assert coerce_success(b, where="t").index.tolist() == [5, 9]


def _df(**cols: list[object]) -> pd.DataFrame:
    return pd.DataFrame(cols)


def test_defaults_and_counts() -> None:
    t = ph.Trials.from_frame(
        _df(task_id=["a", "a", "b", "b", "b"], success=[1, 0, None, "yes", "no"])
    )
    f = t.frame
    assert f["system"].unique().tolist() == ["system"]
    assert f["trial"].tolist() == [0, 1, 0, 1, 2]
    assert f["status"].tolist() == ["ok", "ok", "unscored", "ok", "ok"]
    ds = t.counts()
    assert ds["n"].values.tolist() == [[2, 2]]
    assert ds["c"].values.tolist() == [[1, 1]]
    assert ds["unscored"].values.tolist() == [[0, 1]]
    assert repr(t) == "Trials(5 runs, 1 system(s), 2 tasks, 1 unscored)"


def test_unscored_status_overrides_success() -> None:
    # a grader error is not decided, whatever success says
    t = ph.Trials.from_frame(
        _df(task_id=["a", "a"], success=[True, False], status=["ok", "grader_error"])
    )
    ds = t.counts()
    assert (int(ds["n"].item()), int(ds["unscored"].item())) == (1, 1)
    # a timeout is a failure of the system: decided
    t = ph.Trials.from_frame(_df(task_id=["a"], success=[False], status=["timeout"]))
    assert int(t.counts()["n"].item()) == 1


@pytest.mark.parametrize("status", ["timeout", "tool_error", "max_steps"])
def test_failure_status_without_verdict_is_a_failure(status: str) -> None:
    # DESIGN: timeouts and tool errors are failures of the system, so a run with such a status
    # and no verdict counts in n as a failure (said in a note), never as unscored
    t = ph.Trials.from_frame(
        _df(task_id=["a", "a", "a"], success=[True, None, None], status=["ok", status, "ok"])
    )
    ds = t.counts()
    assert (int(ds["n"].item()), int(ds["c"].item()), int(ds["unscored"].item())) == (2, 1, 1)
    assert t.notes == [failure_status_note(1, [status])]
    assert f"status {status!r} are counted as failures" in t.notes[0]
    # the grader's verdict stands where there is one (τ²-bench scores max_steps runs): a note
    t = ph.Trials.from_frame(_df(task_id=["a"], success=[True], status=[status]))
    assert (int(t.counts()["c"].item()), t.notes) == (1, [passed_status_note(1, [status])])
    assert "graded as passes; the grader's verdict is kept" in t.notes[0]
    t = ph.Trials.from_frame(_df(task_id=["a"], success=[False], status=[status]))
    assert t.notes == []


def test_duplicate_trials() -> None:
    df = _df(system=["s", "s", "s"], task_id=["a", "a", "a"], trial=[0, 1, 1], success=[1, 1, 0])
    with pytest.raises(ValidationError, match=r"duplicate .* = \(s, a, 1\) at rows 2, 3"):
        ph.Trials.from_frame(df, where="runs.csv")


@pytest.mark.parametrize(
    ("df", "pattern"),
    [
        (_df(task=["a"], success=[1]), r"required column 'task_id' is missing"),
        (_df(task_id=["a"], ok=[1]), r"required column 'success' is missing"),
        (_df(task_id=[], success=[]), r"no trials"),
        (_df(task_id=["a", None], success=[1, 0]), r"row 2: task_id is missing"),
        (_df(task_id=["a"], success=[1], system=[None]), r"row 1: system is missing"),
        (_df(task_id=["a", "a"], success=[1, 0], trial=[0, -1]), r"row 2: trial -1 is not"),
        (_df(task_id=["a"], success=[1], trial=["x"]), r"row 1: trial 'x' is not"),
        (_df(task_id=["a"], success=[1], weight=["heavy"]), r"row 1: weight 'heavy'"),
        (_df(task_id=["a"], success=[1], score=["high"]), r"row 1: score 'high' is not a number"),
        (_df(task_id=["a"], success=[1], cost=["$3"]), r"row 1: cost '\$3' is not a number"),
    ],
)
def test_invalid_trial_tables(df: pd.DataFrame, pattern: str) -> None:
    with pytest.raises(ValidationError, match=r"^runs\.csv: " + pattern):
        ph.Trials.from_frame(df, where="runs.csv")


def test_numeric_text_columns_parsed() -> None:
    t = ph.Trials.from_frame(_df(task_id=["a"], success=["1"], score=["0.5"], duration_s=["12"]))
    assert t.frame["score"].tolist() == [0.5] and t.frame["duration_s"].tolist() == [12.0]


def test_weights_belong_to_tasks() -> None:
    df = _df(task_id=["a", "a", "b"], success=[1, 0, 1], weight=[2, 2, 1])
    ds = ph.Trials.from_frame(df).counts()
    assert ds["weight"].values.tolist() == [[2.0, 1.0]] and ds.attrs["declared_weights"] == 1
    df = _df(task_id=["a", "a"], success=[1, 0], weight=[2, 3])
    with pytest.raises(ValidationError, match=r"task 'a' .*different weights"):
        ph.Trials.from_frame(df).counts()


def test_task_coordinates_and_systems() -> None:
    df = _df(
        system=["x", "x", "y"],
        task_id=["a", "b", "a"],
        success=[1, 0, 1],
        category=["air", "retail", "air"],
    )
    t = ph.Trials.from_frame(df)
    ds = t.counts()
    assert ds["category"].values.tolist() == ["air", "retail"]
    assert ds["present"].values.tolist() == [[True, True], [True, False]]
    assert t.select(systems=["y"]).systems == ["y"]
    with pytest.raises(ValidationError, match="system\\(s\\) z not found"):
        t.select(systems=["z"])


def test_counts_from_arrays_and_validation() -> None:
    ds = ph.counts_from_arrays([5, 4], [5, 0], tasks=["a", "b"], system="m")
    assert ds["n"].dtype == np.int64 and ds["system"].values.tolist() == ["m"]
    with pytest.raises(CountError, match=r"task 'b' .*c = 5 successes exceeds n = 4"):
        ph.counts_from_arrays([5, 4], [5, 5], tasks=["a", "b"])
    with pytest.raises(CountError, match=r"task '0' .*n = -1 is negative"):
        ph.counts_from_arrays([-1], [0])
    with pytest.raises(CountError, match=r"task '0' .*n = 2.5 is not a whole number"):
        ph.counts_from_arrays([2.5], [1])
    with pytest.raises(CountError, match="same length"):
        ph.counts_from_arrays([2, 3], [1])
    with pytest.raises(CountError, match=r"weight -1.0 is not a non-negative"):
        ph.counts_from_arrays([2], [1], weight=[-1])


def test_a_task_with_two_categories_is_refused() -> None:
    """A category belongs to a task, as a weight does: runs of one task naming two categories
    kept the first silently (so category weights and the report's slices disagreed). Now an
    error naming the task and the categories, in memory and out of core (any batch size);
    a run with no category next to one with it is fine."""
    from passhat.io.aggregate import aggregate_counts

    df = pd.DataFrame({"task_id": list("aab"), "category": ["x", "y", "x"], "success": [1, 0, 1]})
    with pytest.raises(ValidationError, match=r"task 'a': runs declare different categories"):
        ph.Trials.from_frame(df).counts()
    ok = df.assign(category=["x", None, "x"])
    assert ph.Trials.from_frame(ok).counts()["category"].values.tolist() == ["x", "x"]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "runs.csv"
        df.to_csv(path, index=False)
        for batch_rows in (1, 2, 100):  # the clash within one batch and across batches
            with pytest.raises(ValidationError, match=r"categories \('x', 'y'\)"):
                aggregate_counts(path, batch_rows=batch_rows)
        ok.to_csv(path, index=False)
        assert aggregate_counts(path, batch_rows=1)["category"].values.tolist() == ["x", "x"]


def test_weight_column_needs_a_weight_for_every_task() -> None:
    """A weight column that leaves a task without any weight: in memory the error said
    'different weights (nan and nan)', out of core the task got 1.0 silently. Both now name
    the task; an entirely empty weight column declares no weights (equal weights, no
    'declared'), as before, in both paths. Also: a uint64 trial beyond 2^53 wrapped to a
    negative int64 silently; it is refused like any trial number beyond 2^53."""
    from passhat.io.aggregate import aggregate_counts

    df = pd.DataFrame(
        {"task_id": list("aabb"), "trial": [0, 1, 0, 1], "success": [1, 0, 1, 1]}
    ).assign(weight=[2.0, 2.0, None, None])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "runs.csv"
        df.to_csv(path, index=False)
        for read in (lambda: ph.read_trials(path).counts(), lambda: aggregate_counts(path)):
            with pytest.raises(ValidationError, match=r"task 'b' \(system 'system'\): no weight"):
                read()
        df.assign(weight=None).to_csv(path, index=False)
        for ds in (ph.read_trials(path).counts(), aggregate_counts(path)):
            assert ds["weight"].values.tolist() == [[1.0, 1.0]]
            assert not ds.attrs.get("declared_weights")
        # one run of a task may leave it out when another declares it (oracle: 2 and 3)
        df.assign(weight=[2.0, None, None, 3.0]).to_csv(path, index=False)
        for ds in (ph.read_trials(path).counts(), aggregate_counts(path)):
            assert ds["weight"].values.tolist() == [[2.0, 3.0]]
    big = pd.DataFrame(
        {
            "task_id": ["a", "a"],
            "trial": np.array([0, 2**63 + 1], dtype=np.uint64),
            "success": [1, 0],
        }
    )
    with pytest.raises(ValidationError, match=r"row 2: trial 9223372036854775809 .* up to 2\^53"):
        ph.Trials.from_frame(big)


# ---------------------------------------------------------------- the two paths of from_frame
def _hostile_frames() -> dict[str, pd.DataFrame]:
    """Frames that stress each rule (ids, words, statuses, trials, weights, dtypes)."""
    base = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b", "a"],
            "task_id": ["t1", "t2", "t1", "t2", "t1"],
            "trial": [0, 0, 0, 0, 1],
            "success": [True, False, None, True, True],
        }
    )
    rng = np.random.default_rng(7)
    n = 3000
    rand = pd.DataFrame(
        {
            "system": rng.choice(["A", "B", "c", "ç"], n),
            "task_id": rng.integers(0, 200, n).astype(str),
            "success": rng.choice(np.array([True, False, None], dtype=object), n),
            "status": rng.choice(np.array(["ok", "timeout", "grader_error", " Ok", None]), n),
        }
    )
    rand["trial"] = rand.groupby(["system", "task_id"]).cumcount()
    obj = {"dtype": object}
    return {
        "base": base,
        "no system": base.drop(columns="system").assign(trial=[0, 0, 1, 1, 2]),
        "no trial": base.drop(columns="trial"),
        "statuses": base.assign(status=[" ok", "Timeout", "GRADER_ERROR", None, "timeout"]),
        "failures": base.assign(
            status=["", "infrastructure_error", "ok ", "max_steps", None],
            success=[None, None, True, None, False],
        ),
        "words": base.assign(success=["yes", "FAIL", None, "NA", "1.0"]),
        "a bad word": base.assign(success=["yes", "maybe", None, "NA", "1"]),
        "numeric success": base.assign(success=[1.0, 0.0, np.nan, 1.0, 0.0]),
        "json success": base.assign(success=pd.Series([True, False, None, 1, 1.0], **obj)),
        "duplicate": base.assign(trial=[0, 0, 0, 0, 0]),
        "spaced": base.assign(task_id=["t1", "t1 ", "t1", "t2", "t1"]),
        "two NFC forms": base.assign(task_id=["caf\u00e9", "cafe\u0301", "t1", "t2", "caf\u00e9"]),
        "decomposed": base.assign(task_id=["cafe\u0301", "t2", "cafe\u0301", "t2", "cafe\u0301"]),
        "invisible": base.assign(task_id=["a\u200bb", "t2", "t1", "t2", "t1"]),
        "blank": base.assign(task_id=["  ", "t2", "t1", "t2", "t1"]),
        "numbers": base.assign(task_id=[1, 2, 1, 2, 1]),
        "floats": base.assign(task_id=[1.0, 2.5, 1.0, 2.5, 1.0]),
        "7 and '7'": base.assign(task_id=pd.Series([7, "7", 1, 2, 7], **obj)),
        "1, 1.0, True": pd.DataFrame(
            {"task_id": pd.Series([7, 7, "07", 1, 1.0, True], **obj), "success": 1}
        ),
        "a list": base.assign(task_id=pd.Series([[1], "x", "y", "z", "w"], **obj)),
        "a tuple": base.assign(task_id=pd.Series([(1,), "x", "y", "z", "w"], **obj)),
        "no task": base.assign(task_id=["t1", None, "t1", "t2", "t1"]),
        "no system name": base.assign(system=["a", None, "b", "b", "a"]),
        "NA words as ids": base.assign(system=["NA", "None", "null", "nan", "NA"]),
        "text trials": base.assign(trial=["0", "0", "0", "0", "1"]),
        "float trials": base.assign(trial=[0.0, 0.0, 0.0, 0.0, 1.0]),
        "half a trial": base.assign(trial=[0.5, 0, 0, 0, 1]),
        "negative trial": base.assign(trial=[-1, 0, 0, 0, 1]),
        "missing trial": base.assign(trial=pd.Series([None, 0, 0, 0, 1], **obj)),
        "True as a trial": base.assign(trial=pd.Series([True, 1, 0, 0, 2], **obj)),
        "trial past 2^53": base.assign(trial=[2**53 + 2, 0, 0, 0, 1]),
        "weights": base.assign(weight=[1, 2, 1, 2, 1]),
        "negative weight": base.assign(weight=[1, -2, 1, 2, 1]),
        "categories, scores": base.assign(
            category=["x", "y", "x", "y", "x"], score=[1.0, 0.0, np.nan, 1, 1]
        ),
        "infinite score": base.assign(score=[1.0, np.inf, np.nan, 1, 1]),
        "categorical ids": base.assign(
            task_id=pd.Categorical(["t1", "t2", "t1", "t2", "t1"]),
            system=pd.Categorical(["a", "a", "b", "b", "a"]),
        ),
        "string dtype": base.assign(task_id=pd.array(["t1", "t2", "t1", "t2", "t1"], "string")),
        "letter case": base.assign(system=["GPT", "GPT", "gpt", "gpt", "GPT"]),
        "an index": base.set_axis([10, 11, 12, 13, 14]),
        "other columns": base.assign(model="m", scenario_hash="h", duration_s=[1, 2, 3, 4, 5]),
        "numeric status": base.assign(status=[1, 2, None, 3, 1]),
        "1 and 1.0 statuses": base.assign(status=pd.Series([1, 1.0, "ok", "ok", "ok"], **obj)),
        "random": rand,
        "random, no trial": rand.drop(columns="trial"),
    }


@pytest.mark.parametrize("name", list(_hostile_frames()))
def test_the_distinct_value_checks_agree_with_the_row_checks(name: str) -> None:
    """Oracle: the row-by-row checks (the rules as first written). The fast path, on each
    column's distinct values, must accept exactly what they accept, with the same frame and
    notes, and refuse what they refuse (from_frame then raises their error, naming rows)."""
    from passhat.trials import _Fault, _rows_checked, _values_checked

    df = _hostile_frames()[name]
    try:
        want = _rows_checked(df.copy(), "t")
    except ValidationError as err:
        with pytest.raises((ValidationError, _Fault, TypeError)):
            _values_checked(df.copy(), "t")
        with pytest.raises(ValidationError, match="^" + re.escape(str(err)) + "$"):
            Trials.from_frame(df, where="t")
        return
    try:
        got = _values_checked(df.copy(), "t")
    except _Fault:  # values of several types: checked row by row, as before
        assert name in ("1, 1.0, True", "1 and 1.0 statuses", "True as a trial")
        got = _rows_checked(df.copy(), "t")
    pd.testing.assert_frame_equal(got[0], want[0])
    assert got[1] == want[1]
    t = Trials.from_frame(df, where="t")
    pd.testing.assert_frame_equal(t.frame, want[0])
    assert t.notes == want[1]
