"""Tidy trial tables: CSV, JSONL, Parquet, column maps and thresholds.

Oracles: round trips (a table written with pandas and read back must equal
the original trial table exactly) and counts worked out by hand in each test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import FormatError, ValidationError


@pytest.fixture
def frame() -> pd.DataFrame:
    # two systems, unequal n per task, one unscored run
    rows = [
        ("a", "t1", 0, True, "ok", 1.0),
        ("a", "t1", 1, False, "timeout", 0.0),
        ("a", "t1", 2, True, "ok", 1.0),
        ("a", "t2", 0, False, "max_steps", 0.2),
        ("a", "t2", 1, None, "infrastructure_error", None),
        ("b", "t1", 0, True, "ok", 0.9),
        ("b", "t2", 0, True, "ok", 1.0),
        ("b", "t2", 1, True, "ok", 1.0),
    ]
    df = pd.DataFrame(rows, columns=["system", "task_id", "trial", "success", "status", "score"])
    df["success"] = df["success"].astype("boolean")
    return df


def _same(trials: ph.Trials, df: pd.DataFrame) -> None:
    got = trials.frame[list(df.columns)].reset_index(drop=True)
    want = ph.Trials.from_frame(df).frame[list(df.columns)]
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_csv_round_trip(tmp_path: Path, frame: pd.DataFrame) -> None:
    f = tmp_path / "runs.csv"
    frame.to_csv(f, index=False)
    t = ph.read_trials(f)
    assert t.source["format"] == "csv"
    _same(t, frame)


def test_semicolon_csv_round_trip(tmp_path: Path, frame: pd.DataFrame) -> None:
    """A spreadsheet saved with ';' (locales with a decimal comma) reads like the comma file:
    sniffed by name, read in full, streamed to counts, and as a count table. It was refused
    ("cannot tell the format") and, with format='csv', read as one column."""
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False, sep=";")
    _same(ph.read_trials(path), frame)
    _same(ph.read_trials(path, format="csv"), frame)
    gz = tmp_path / "runs.csv.gz"
    frame.to_csv(gz, index=False, sep=";", compression="gzip")
    _same(ph.read_trials(gz), frame)
    # the out-of-core path counts the same table (oracle: the in-memory counts)
    from passhat.io.aggregate import aggregate_counts

    streamed, whole = aggregate_counts(path), ph.read_trials(path).counts()
    for var in ("n", "c", "unscored"):
        assert streamed[var].values.tolist() == whole[var].values.tolist()
    counts = tmp_path / "counts.csv"
    counts.write_text("task_id;n;c\nt1;4;3\nt2;2;0\n")
    ds = ph.read_counts(counts)
    assert ds["n"].values.tolist() == [[4, 2]] and ds["c"].values.tolist() == [[3, 0]]


def test_jsonl_round_trip(tmp_path: Path, frame: pd.DataFrame) -> None:
    f = tmp_path / "runs.jsonl"
    frame.astype(object).where(frame.notna(), None).to_json(f, orient="records", lines=True)
    t = ph.read_trials(f)
    assert t.source["format"] == "jsonl"
    _same(t, frame)


def test_parquet_round_trip(tmp_path: Path, frame: pd.DataFrame) -> None:
    f = tmp_path / "runs.parquet"
    frame.to_parquet(f, index=False)
    t = ph.read_trials(f)
    assert t.source["format"] == "parquet"
    _same(t, frame)
    assert t.frame["success"].dtype == "boolean"


def test_unequal_n_and_unscored(tmp_path: Path, frame: pd.DataFrame) -> None:
    f = tmp_path / "runs.csv"
    frame.to_csv(f, index=False)
    ds = ph.read_trials(f).counts()
    # by hand from the fixture rows
    assert ds["n"].sel(system="a").values.tolist() == [3, 1]
    assert ds["c"].sel(system="a").values.tolist() == [2, 0]
    assert ds["unscored"].sel(system="a").values.tolist() == [0, 1]
    assert ds["n"].sel(system="b").values.tolist() == [1, 2]


def test_column_map(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("question_id,passed,model\nq1,yes,m\nq1,no,m\nq2,TRUE,m\nq2,1,m\n")
    t = ph.read_trials(f, task="question_id", success="passed", system="model")
    assert t.systems == ["m"] and t.tasks == ["q1", "q2"]
    assert t.counts()["c"].values.tolist() == [[1, 2]]
    assert t.frame["trial"].tolist() == [0, 1, 0, 1]  # order of appearance within task
    with pytest.raises(ValidationError, match=r"column 'nope' \(given for task\) is missing"):
        ph.read_trials(f, task="nope", success="passed")
    with pytest.raises(ValidationError, match=r"unknown column option 'colour'"):
        ph.read_trials(f, task="question_id", success="passed", colour="model")


def test_threshold_numeric_reward(tmp_path: Path) -> None:
    f = tmp_path / "rewards.jsonl"
    recs = [
        {"task_id": "t1", "reward": 1.0},
        {"task_id": "t1", "reward": 0.7},
        {"task_id": "t1", "reward": None},  # no reward: unscored
        {"task_id": "t2", "reward": 0.5},
    ]
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    t = ph.read_trials(f, score="reward", threshold=0.7)
    ds = t.counts()
    assert ds["n"].values.tolist() == [[2, 1]]
    assert ds["c"].values.tolist() == [[2, 0]]
    assert ds["unscored"].values.tolist() == [[1, 0]]
    with pytest.raises(ValidationError, match="give threshold"):
        ph.read_trials(f, score="reward")


def test_threshold_on_non_numeric_score(tmp_path: Path) -> None:
    f = tmp_path / "s.csv"
    f.write_text("task_id,score\na,0.5\nb,high\n")
    with pytest.raises(
        ValidationError, match=r"s\.csv: row 2: score 'high' is not a number \(threshold=0\.5"
    ):
        ph.read_trials(f, threshold=0.5)


def test_system_name_option(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("task_id,success\na,1\n")
    assert ph.read_trials(f, system_name="gpt").systems == ["gpt"]


def test_system_name_with_a_system_column_is_refused(tmp_path: Path, frame: pd.DataFrame) -> None:
    """system_name names the system of a file without one; given for a file with a system
    column (native or mapped) it was ignored silently. Now every path refuses it: the
    in-memory reader, the out-of-core counter and the count-table reader."""
    from passhat.io.aggregate import aggregate_counts

    f = tmp_path / "runs.csv"
    frame.to_csv(f, index=False)
    for read in (ph.read_trials, aggregate_counts):
        with pytest.raises(ValidationError, match="this file has a system column"):
            read(f, system_name="v2")
    g = tmp_path / "mapped.csv"
    frame.rename(columns={"system": "agent"}).to_csv(g, index=False)
    with pytest.raises(ValidationError, match="this file has a system column"):
        ph.read_trials(g, system="agent", system_name="v2")
    counts = tmp_path / "counts.csv"
    counts.write_text("system,task_id,n,c\nA,t1,4,3\n")
    with pytest.raises(ValidationError, match="this file has a system column"):
        ph.read_counts(counts, system_name="v2")
    assert ph.read_counts(counts).system.values.tolist() == ["A"]


def test_malformed_jsonl_names_line(tmp_path: Path) -> None:
    f = tmp_path / "runs.jsonl"
    f.write_text('{"task_id": "a", "success": true}\n\n{"task_id": "b", \n')
    with pytest.raises(FormatError, match=r"runs\.jsonl: line 3: not valid JSON"):
        ph.read_trials(f)
    f.write_text('{"task_id": "a", "success": true}\n[1, 2]\n')
    with pytest.raises(FormatError, match=r"line 2: expected a JSON object, got list"):
        ph.read_trials(f)


def test_missing_required_column(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("task_id,result\na,1\n")
    with pytest.raises(ValidationError, match=r"r\.csv: required column 'success' is missing"):
        ph.read_trials(f)


def test_parquet_not_parquet(tmp_path: Path) -> None:
    f = tmp_path / "r.parquet"
    f.write_text("task_id,success\na,1\n")
    with pytest.raises(FormatError, match=r"r\.parquet: named \.parquet but not a Parquet file"):
        ph.read_trials(f)


def test_large_table_reads_fast(tmp_path: Path) -> None:
    """A 200,000-row CSV goes through validation (vectorised) in well under a few seconds."""
    rng = np.random.default_rng(0)
    n = 200_000
    df = pd.DataFrame(
        {
            "task_id": np.repeat(np.arange(n // 10), 10).astype(str),
            "trial": np.tile(np.arange(10), n // 10),
            "success": rng.choice(["pass", "fail", ""], size=n, p=[0.6, 0.39, 0.01]),
        }
    )
    f = tmp_path / "big.csv"
    df.to_csv(f, index=False)
    t = ph.read_trials(f)
    ds = t.counts()
    assert int(ds["n"].sum() + ds["unscored"].sum()) == n
    assert int(ds["c"].sum()) == int((df["success"] == "pass").sum())


@pytest.mark.parametrize(
    ("text", "msg"),
    [
        # short: success was read as missing
        ("task_id,trial,success\na,0\na,1,0\n", "row 1 has 2 fields, the header 3"),
        # a later row long: pandas refused it already
        ("task_id,trial,success\na,0,1\na,1,0,9\n", "not valid CSV .*line 3, saw 4"),
        # the first row long: became the index
        ("task_id,trial,success\na,0,1,\na,1,0,\n", "row 1 has 4 fields, the header 3"),
    ],
)
def test_rows_with_another_number_of_fields_are_refused(
    tmp_path: Path, text: str, msg: str
) -> None:
    """A CSV row with more or fewer fields than the header is a FormatError naming the row,
    in memory as out of core. pandas filled a short row with a missing success (an unscored
    run counted and stated, but nobody wrote it) and read an extra first-row field as the
    index. Quoted commas and line breaks, a trailing comma on every line including the
    header, and blank lines are not ragged (oracle: the counts by hand)."""
    from passhat.io.aggregate import aggregate_counts

    f = tmp_path / "runs.csv"
    f.write_text(text)
    with pytest.raises(FormatError, match=r"runs\.csv: " + msg):
        ph.read_trials(f)
    with pytest.raises(FormatError, match="Expected 3 columns"):
        aggregate_counts(f)
    ok = tmp_path / "ok.csv"
    ok.write_text('task_id,trial,success,note,\n"a,b",0,1,"x\ny",\n"a,b",1,0,z,\n\nc,0,1,,\n')
    ds = ph.read_trials(ok).counts()
    assert ds["n"].values.tolist() == [[2, 1]] and ds["c"].values.tolist() == [[1, 1]]


def test_jsonl_key_given_twice_is_refused(tmp_path: Path) -> None:
    """{"success": true, "success": false}: Python's json keeps the last value silently, so
    the run was read as a failure; now a FormatError naming the line and the key, in memory
    and out of core. Nested objects (a trace's arguments) are held to the same rule."""
    from passhat.io.aggregate import aggregate_counts

    f = tmp_path / "runs.jsonl"
    f.write_text(
        '{"task_id": "a", "success": true}\n{"task_id": "a", "success": true, "success": false}\n'
    )
    for read in (ph.read_trials, aggregate_counts):
        with pytest.raises(FormatError, match=r"line 2: key 'success' appears twice"):
            read(f)
    f.write_text('{"task_id": "a", "success": true, "meta": {"k": 1, "k": 2}}\n')
    with pytest.raises(FormatError, match=r"line 1: key 'k' appears twice"):
        ph.read_trials(f)
    f.write_text('{"task_id": "a", "success": true, "meta": {"k": 1}, "k": 2}\n')
    assert ph.read_trials(f).counts()["c"].values.tolist() == [[1]]


NA_NAMES = ["NA", "None", "null", "nan", "N/A", "#N/A", "NULL"]


def test_ids_that_pandas_would_read_as_missing_keep_their_names(tmp_path: Path) -> None:
    # a task or system called "NA", "None", "null" … is a name, printed literally; in the other
    # columns the same words still mean missing (an undecided run), in memory and streamed
    lines = ["system,task_id,trial,success,status"]
    for i, name in enumerate(NA_NAMES):
        lines += [f"{name},{name},0,1,ok", f"{name},{name},1,{name},ok", f"ok,{name},{i},0,NA"]
    f = tmp_path / "runs.csv"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = ph.read_trials(f)
    assert sorted(t.systems) == sorted([*NA_NAMES, "ok"])
    assert t.tasks == NA_NAMES
    ds = t.counts()
    assert ds.sel(system="NA", task="NA")[["n", "c", "unscored"]].to_array().values.tolist() == [
        1,
        1,
        1,
    ]
    from passhat.io.aggregate import aggregate_counts

    for batch_rows in (2, 1000):
        got = aggregate_counts(f, batch_rows=batch_rows)
        assert got["system"].values.tolist() == ds["system"].values.tolist()
        assert got["task"].values.tolist() == ds["task"].values.tolist()
        for var in ("n", "c", "unscored"):
            assert got[var].values.tolist() == ds[var].values.tolist(), var
    # an empty id is still missing
    f.write_text("task_id,success\n,1\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="task_id is missing"):
        ph.read_trials(f)
