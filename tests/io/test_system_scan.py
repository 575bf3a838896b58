"""The system-column rule out of core (:mod:`passhat.io._system_scan`).

Oracle: the in-memory reader (:func:`passhat.io._system_column.find_system_column` on the
whole table). For each file, reading it in memory (``read_trials``) and counting it out of
core (``aggregate_counts`` in tiny batches, and ``read_counts``, and a local dask cluster)
must agree: the same systems and counts when an unmapped column is read as the system, the
same note, and the same refusal when it is not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import ValidationError
from passhat.io import _system_scan
from passhat.io.aggregate import aggregate_counts

FORMATS = ["runs.csv", "runs.tsv", "runs.jsonl", "runs.parquet"]


def _runs(seed: int = 0, *, system_col: str = "model", tasks: int = 12) -> pd.DataFrame:
    """Two systems in one unmapped column, a per-run answer, a run index and a task attribute."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(tasks):
        for m, p in (("gpt-x", 0.7), ("claude-y", 0.4)):
            for r in range(int(rng.integers(2, 6))):
                rows.append(
                    {
                        system_col: m,
                        "question_id": f"q{t:02d}",
                        "attempt": r,  # a run index: the same numbers under both systems
                        "passed": int(rng.random() < p),
                        "answer": str(rng.choice(list("ABCD"))),
                        "topic": ["geo", "math", "code"][t % 3],  # constant within a task
                        "n_run": r + 1,  # numbers each system's runs 1, 2, ...: a run index
                    }
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _write(df: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        df.to_parquet(path)
    elif path.suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True)
    elif path.suffix == ".tsv":
        df.to_csv(path, sep="\t", index=False)
    else:
        df.to_csv(path, index=False)
    return path


def _both(path: Path, **options: object) -> tuple[object, object]:
    """What the in-memory and the out-of-core readers make of a file (a result or an error)."""
    out: list[object] = []
    for read in (
        lambda: ph.read_trials(path, **options),
        lambda: aggregate_counts(path, batch_rows=7, **options),
    ):
        try:
            out.append(read())
        except ValidationError as err:
            out.append(err)
    return out[0], out[1]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("trial", [None, "attempt"])
def test_a_model_column_is_read_as_the_system_in_memory_and_out_of_core(
    tmp_path: Path, name: str, trial: str | None
) -> None:
    # with trial=attempt, both systems have runs (q, 0), (q, 1), ...: read as one system they
    # would be duplicates, so the out-of-core reader must hold that error until it decides
    f = _write(_runs(1), tmp_path / name)
    opts = {"task": "question_id", "success": "passed", "trial": trial}
    mem, ooc = _both(f, **opts)
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    want = mem.counts()
    assert list(ooc["system"].values) == ["gpt-x", "claude-y"] == list(want["system"].values)
    assert list(ooc["task"].values) == list(want["task"].values)
    for var in ("n", "c", "unscored"):
        np.testing.assert_array_equal(ooc[var].values, want[var].values)
    assert ooc.attrs["notes"] == mem.notes
    assert "column(s) 'answer' also split the runs" in mem.notes[0]
    assert ooc.attrs["source_system_column"] == "model" == mem.source["system_column"]
    assert ph.read_counts(f, **opts).attrs["notes"] == mem.notes  # read_counts streams too


@pytest.mark.parametrize("name", FORMATS)
def test_an_unnamed_splitting_column_is_refused_by_both(tmp_path: Path, name: str) -> None:
    f = _write(_runs(2, system_col="variant_label"), tmp_path / name)
    mem, ooc = _both(f, task="question_id", success="passed")
    assert isinstance(mem, ValidationError) and isinstance(ooc, ValidationError)
    assert str(mem) == str(ooc)
    assert "column 'variant_label' splits every task's runs into 2 groups" in str(ooc)
    # the fixes the message names work on both paths
    for fix in ({"system": "variant_label"}, {"system_name": "one"}):
        mem, ooc = _both(f, task="question_id", success="passed", **fix)
        assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
        np.testing.assert_array_equal(ooc["n"].values, mem.counts()["n"].values)


@pytest.mark.parametrize("name", ["runs.csv", "runs.parquet"])
def test_a_trial_that_tells_runs_apart_means_one_system_on_both(tmp_path: Path, name: str) -> None:
    df = _runs(3, system_col="variant_label")
    df["run_uid"] = np.arange(len(df))  # unique per run: the runs of a task are told apart
    f = _write(df, tmp_path / name)
    mem, ooc = _both(f, task="question_id", success="passed", trial="run_uid")
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    assert mem.systems == ["system"] == list(ooc["system"].values)
    np.testing.assert_array_equal(ooc["n"].values, mem.counts()["n"].values)


def test_a_real_duplicate_is_still_refused_after_the_check(tmp_path: Path) -> None:
    df = _runs(4)[["question_id", "attempt", "passed", "topic"]]
    df = df.drop_duplicates(["question_id", "attempt"]).reset_index(drop=True)
    df = pd.concat([df, df.iloc[[3]]], ignore_index=True)  # one real duplicate, at the end
    f = _write(df, tmp_path / "runs.csv")
    mem, ooc = _both(f, task="question_id", success="passed", trial="attempt")
    assert isinstance(mem, ValidationError) and isinstance(ooc, ValidationError)
    assert "duplicate (system, task_id, trial)" in str(mem)
    assert "duplicate (system, task_id, trial)" in str(ooc)


def test_two_system_names_that_do_not_nest_are_refused_by_both(tmp_path: Path) -> None:
    df = _runs(5)
    df["agent"] = df.groupby(["question_id", "model"]).cumcount().map(lambda i: f"a{i % 2}")
    f = _write(df, tmp_path / "runs.csv")
    mem, ooc = _both(f, task="question_id", success="passed")
    assert isinstance(mem, ValidationError) and isinstance(ooc, ValidationError)
    assert str(mem) == str(ooc)
    assert "do not nest" in str(ooc)


def test_boolean_and_list_columns_are_not_systems_on_both(tmp_path: Path) -> None:
    df = _runs(6)[["question_id", "passed"]].copy()
    df["flag"] = np.arange(len(df)) % 2 == 0  # a boolean column splitting every task
    df["tools"] = [["search"] if i % 2 else ["calc", "search"] for i in range(len(df))]
    f = _write(df, tmp_path / "runs.jsonl")
    mem, ooc = _both(f, task="question_id", success="passed")
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    assert mem.systems == ["system"] == list(ooc["system"].values)


def test_a_column_beyond_the_pair_budget_is_refused_not_guessed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _write(_runs(7), tmp_path / "runs.csv")
    monkeypatch.setattr(_system_scan, "PAIR_BUDGET", 10)
    with pytest.raises(ValidationError, match="too many distinct values per task to check"):
        aggregate_counts(f, batch_rows=7, task="question_id", success="passed")
    # mapping the system column (or naming one system) needs no check
    ds = aggregate_counts(f, task="question_id", success="passed", system="model")
    assert sorted(ds["system"].values) == ["claude-y", "gpt-x"]


def test_the_same_rule_on_a_local_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    df = _runs(8)
    d = tmp_path / "ds"
    d.mkdir()
    for i, idx in enumerate(np.array_split(np.arange(len(df)), 4)):
        df.iloc[idx].to_parquet(d / f"part-{i}.parquet")
    whole = _write(df, tmp_path / "whole.parquet")
    want = ph.read_trials(whole, task="question_id", success="passed", trial="attempt")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        got = aggregate_counts(
            d,
            scheduler=cluster.scheduler_address,
            task="question_id",
            success="passed",
            trial="attempt",
        )
    assert list(got["system"].values) == want.systems
    np.testing.assert_array_equal(got["n"].values, want.counts()["n"].values)
    assert got.attrs["notes"] == want.notes


def test_unused_dictionary_values_are_not_values(tmp_path: Path) -> None:
    # a Parquet dictionary column written from a pandas categorical keeps unused categories;
    # a value no row holds must not count as a group (it recurs in no task)
    df = _runs(9)
    df["model"] = pd.Categorical(df["model"], categories=["gpt-x", "claude-y", "unused"])
    f = tmp_path / "runs.parquet"
    df.to_parquet(f)
    mem, ooc = _both(f, task="question_id", success="passed")
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    assert sorted(mem.systems) == ["claude-y", "gpt-x"] == sorted(ooc["system"].values)
    assert ooc.attrs["notes"] == mem.notes


def test_a_column_with_more_values_than_max_groups_is_no_system_on_both(tmp_path: Path) -> None:
    from passhat.io._system_column import MAX_GROUPS

    tasks = MAX_GROUPS + 2  # tasks 2i and 2i + 1 share values: each recurs in two tasks
    t = np.repeat(np.arange(tasks), 4)
    pair = t // 2
    v = np.where(np.arange(len(t)) % 2 == 0, 2 * pair, 2 * pair + 1)  # two values per task
    df = pd.DataFrame({"task_id": t, "variant": v, "success": np.arange(len(t)) % 3 == 0})
    assert df["variant"].nunique() > MAX_GROUPS
    f = _write(df, tmp_path / "runs.csv")
    mem, ooc = _both(f)
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    assert mem.systems == ["system"] == list(ooc["system"].values) and mem.notes == []
    # the same column with few values is a system on both
    df["variant"] = np.where(v % 2 == 0, "a", "b")
    f = _write(df, tmp_path / "few.csv")
    mem, ooc = _both(f)
    assert isinstance(mem, ph.Trials) and not isinstance(ooc, Exception)
    assert len(mem.systems) == 2 == ooc.sizes["system"]
