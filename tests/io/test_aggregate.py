"""Out-of-core counting (:func:`passhat.io.aggregate.aggregate_counts`).

Oracle: the in-memory reader. For every table, ``read_trials(f).counts()`` and the
streamed count (tiny batches, so that every rule is checked across batch boundaries) must
be equal — same systems and tasks in the same order, same n, c, unscored, weights and task
coordinates — and every input the in-memory reader refuses, the streamed reader refuses
too, with the same error class and the file row.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import xarray as xr

import passhat as ph
from passhat._status import failure_status_note, passed_status_note
from passhat.errors import FormatError, InputError, ValidationError
from passhat.io import _countgrid, aggregate
from passhat.io.aggregate import aggregate_counts


def _table(seed: int, *, systems: int = 2, tasks: int = 40, runs: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(systems):
        for t in range(tasks):
            p = rng.beta(1, 1)
            for r in range(int(rng.integers(1, runs + 1))):
                status = rng.choice(["ok", "ok", "ok", "timeout", "grader_error", " ok "])
                success: object = bool(rng.random() < p)
                if rng.random() < 0.05:
                    success = None
                rows.append(
                    {
                        "system": f"agent-{s}",
                        "task_id": f"task {t:03d}",
                        "trial": r,
                        "success": success,
                        "status": status,
                        "weight": 1.0 + (t % 3),
                        "category": ["x", "y"][t % 2] if rng.random() < 0.8 else None,
                        "score": rng.random(),
                    }
                )
    df = pd.DataFrame(rows)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # any row order


def _write(df: pd.DataFrame, path: Path) -> Path:
    name = path.name
    if name.endswith(".parquet"):
        df.to_parquet(path)
    elif name.endswith(".jsonl"):
        df.to_json(path, orient="records", lines=True)
    elif name.endswith(".tsv"):
        df.to_csv(path, sep="\t", index=False)
    elif name.endswith(".csv.gz"):
        with gzip.open(path, "wt") as fh:
            df.to_csv(fh, index=False)
    else:
        df.to_csv(path, index=False)
    return path


def _same(got: xr.Dataset | ph.Trials, want: xr.Dataset) -> None:
    assert isinstance(got, xr.Dataset)
    assert got["system"].values.tolist() == want["system"].values.tolist()
    assert got["task"].values.tolist() == want["task"].values.tolist()
    for var in ("n", "c", "unscored", "present", "weight"):
        np.testing.assert_array_equal(got[var].values, want[var].values, err_msg=var)
    for coord in ("category", "scenario_hash"):
        assert (coord in got.coords) == (coord in want.coords)
        if coord in want.coords:
            assert got[coord].values.tolist() == want[coord].values.tolist()
    assert got.attrs.get("declared_weights") == want.attrs.get("declared_weights")


@pytest.mark.parametrize(
    "name", ["runs.csv", "runs.tsv", "runs.csv.gz", "runs.jsonl", "runs.parquet"]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_streamed_counts_equal_the_in_memory_reader(tmp_path: Path, name: str, seed: int) -> None:
    f = _write(_table(seed), tmp_path / name)
    want = ph.read_trials(f).counts()
    for batch_rows in (5, 1000):
        got = aggregate_counts(f, batch_rows=batch_rows)
        _same(got, want)
        assert got.attrs["source_rows"] == len(ph.read_trials(f))
        # runs with no verdict and status timeout are failures, said in the same note
        assert got.attrs.get("notes", []) == ph.read_trials(f).notes


def test_timeout_without_verdict_is_a_failure_when_streamed(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {
            "task_id": ["a", "a", "b", "b", "b", "c"],
            "success": [True, None, None, None, False, True],
            "status": ["ok", "timeout", "tool_error", "grader_error", "ok", "max_steps"],
        }
    )
    f = _write(df, tmp_path / "runs.csv")
    want = [failure_status_note(2, ["timeout", "tool_error"]), passed_status_note(1, ["max_steps"])]
    for batch_rows in (1, 2, 1000):
        got = aggregate_counts(f, batch_rows=batch_rows)
        assert (got["n"].values.tolist(), got["c"].values.tolist()) == ([[2, 2, 1]], [[1, 0, 1]])
        assert got["unscored"].values.tolist() == [[0, 1, 0]]
        assert got.attrs["notes"] == want == ph.read_trials(f).notes


def test_column_map_threshold_and_system_name(tmp_path: Path) -> None:
    df = (
        _table(3, systems=1)
        .drop(columns=["success", "system"])
        .rename(columns={"task_id": "question", "score": "reward"})
    )
    f = _write(df, tmp_path / "graded.csv")
    opts = {"task": "question", "score": "reward", "threshold": 0.5, "system_name": "m"}
    _same(aggregate_counts(f, batch_rows=5, **opts), ph.read_trials(f, **opts).counts())
    assert ph.read_counts(f, **opts)["system"].values.tolist() == ["m"]


def test_directory_and_glob_of_parts(tmp_path: Path) -> None:
    df = _table(4)
    d = tmp_path / "ds"
    d.mkdir()
    parts = np.array_split(np.arange(len(df)), 5)
    for i, idx in enumerate(parts):
        df.iloc[idx].to_parquet(d / f"part-{i}.parquet")
    (d / "_SUCCESS").write_text("")
    whole = _write(df, tmp_path / "whole.parquet")
    want = ph.read_trials(whole).counts()
    _same(aggregate_counts(d, batch_rows=11), want)
    _same(aggregate_counts(str(d / "part-*.parquet")), want)
    got = ph.read(d)  # a directory of parts is read as counts
    _same(got, want)
    assert got.attrs["source_files"] == 5 and got.attrs["source_format"] == "parquet"
    with pytest.raises(FormatError, match="read as counts"):
        ph.read_trials(d)


def _pair(tmp_path: Path, text: str, name: str = "runs.csv") -> tuple[type, str, type, str]:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as mem:
        ph.read_trials(f).counts()
    with pytest.raises(InputError) as stream:
        aggregate_counts(f, batch_rows=2)
    return type(mem.value), str(mem.value), type(stream.value), str(stream.value)


@pytest.mark.parametrize(
    ("text", "row"),
    [
        ("task_id,trial,success\na,0,1\nb,0,1\nc,0,1\na,0,0\n", "4"),  # duplicate across batches
        ("task_id,trial,success\na,0,1\na,0,0\n", "2"),  # within a batch
        ("task_id,trial,success\na,0,1\nb,0,maybe\n", "2"),  # not boolean-like
        ("task_id,trial,success\na,0,1\n,1,1\n", "2"),  # missing task
        ("task_id,trial,success\na,0,1\nb,-1,1\n", "2"),  # negative trial
        ("task_id,trial,success\na,0,1\nb,1.5,1\n", "2"),  # not whole
        ("task_id,trial,success\na,0,1\na ,1,1\n", "2"),  # surrounding spaces
        ("task_id,trial,success\na,0,1\nb\u200b,1,1\n", "2"),  # invisible
        ("task_id,trial,success,duration_s\na,0,1,3\nb,0,1,fast\n", "2"),  # not a number
        ("task_id,trial,success,weight\na,0,1,1\nb,0,1,-2\n", "2"),  # negative weight
    ],
)
def test_streamed_reader_refuses_what_the_in_memory_one_does(
    tmp_path: Path, text: str, row: str
) -> None:
    mem_t, _, st_t, st_msg = _pair(tmp_path, text)
    assert issubclass(st_t, ValidationError) and issubclass(mem_t, ValidationError)
    assert re.search(rf"rows? (\d+, )*{row}\b", st_msg), st_msg
    assert "runs.csv" in st_msg


def test_weights_must_agree_within_a_task(tmp_path: Path) -> None:
    _, mem_msg, _, st_msg = _pair(
        tmp_path, "task_id,trial,success,weight\na,0,1,1\nb,0,1,2\na,1,0,3\n"
    )
    assert "different weights (1 and 3)" in st_msg and "different weights" in mem_msg


def test_missing_required_columns(tmp_path: Path) -> None:
    _, mem_msg, _, st_msg = _pair(tmp_path, "task_id,passed\na,1\n")
    assert "required column 'success' is missing" in st_msg
    assert "required column 'success' is missing" in mem_msg


def test_spill_when_trial_numbers_are_too_sparse_for_bitmaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_countgrid, "BITMAP_BYTES", 64)  # every bitmap is "too big"
    df = _table(5)
    df["trial"] = df["trial"] * 1_000_003 + 17  # sparse, large trial numbers
    f = _write(df, tmp_path / "runs.parquet")
    _same(aggregate_counts(f, batch_rows=9), ph.read_trials(f).counts())
    dup = pd.concat([df, df.iloc[[10]]], ignore_index=True)
    g = _write(dup, tmp_path / "dup.parquet")
    r = df.iloc[10]
    with pytest.raises(ValidationError, match=rf"duplicate .*{r['task_id']}, {r['trial']}\)"):
        aggregate_counts(g, batch_rows=9)


def test_duplicate_across_files_names_both(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    d.mkdir()
    (d / "a.csv").write_text("task_id,trial,success\nt,0,1\nt,1,1\n")
    (d / "b.csv").write_text("task_id,trial,success\nu,0,1\nt,1,0\n")
    with pytest.raises(ValidationError, match=r"b\.csv: duplicate .*\(system, t, 1\) at row 2"):
        aggregate_counts(d)


def test_no_trial_column_counts_every_row(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("task_id,success\na,1\na,1\na,0\nb,\n")
    ds = aggregate_counts(f, batch_rows=1)
    assert ds["n"].values.tolist() == [[3, 0]] and ds["unscored"].values.tolist() == [[0, 1]]


def test_parquet_types_are_read_like_pandas(tmp_path: Path) -> None:
    f = tmp_path / "runs.parquet"
    tbl = pa.table(
        {
            "system": pa.array(["s", "s", "s"]).dictionary_encode(),
            "task_id": pa.array([1, 2, 1], pa.int32()),
            "trial": pa.array([0, 0, 1], pa.uint16()),
            "success": pa.array([1.0, 0.0, None]),
        }
    )
    pq.write_table(tbl, f)
    _same(aggregate_counts(f), ph.read_trials(f).counts())
    assert aggregate_counts(f)["task"].values.tolist() == ["1", "2"]


def test_options_are_checked(tmp_path: Path) -> None:
    f = _write(_table(0, tasks=3), tmp_path / "runs.csv")
    with pytest.raises(ph.errors.OptionError, match="batch_rows"):
        aggregate_counts(f, batch_rows=0)
    with pytest.raises(ph.errors.OptionError, match="reads csv, tsv, jsonl and parquet"):
        aggregate_counts(f, format="tau-bench")
    with pytest.raises(InputError, match="no file matches"):
        aggregate_counts(str(tmp_path / "nothing-*.csv"))
    with pytest.raises(ValidationError, match="unknown column option"):
        aggregate_counts(f, colour="x")


def test_counts_on_a_local_dask_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed")
    df = _table(6)
    d = tmp_path / "ds"
    d.mkdir()
    for i, idx in enumerate(np.array_split(np.arange(len(df)), 6)):
        df.iloc[idx].to_csv(d / f"part-{i}.csv", index=False)
    want = aggregate_counts(d)
    _same(want, ph.read_trials(_write(df, tmp_path / "whole.csv")).counts())
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        _same(aggregate_counts(d, scheduler=cluster.scheduler_address), want)
        row = df.iloc[0]
        (d / "part-9.csv").write_text(
            f"system,task_id,trial,success\n{row['system']},{row['task_id']},{row['trial']},1\n"
        )
        with pytest.raises(ValidationError, match=r"duplicate .* in two files"):
            aggregate_counts(d, scheduler=cluster.scheduler_address)
        mixed = tmp_path / "mixed"  # files with and without a trial column, on two workers
        mixed.mkdir()
        (mixed / "a.csv").write_text("task_id,trial,success\nt,0,1\n")
        for i in range(8):
            (mixed / f"b{i}.csv").write_text("task_id,success\nt,1\n")
        with pytest.raises(FormatError, match="trial column"):
            aggregate_counts(mixed, scheduler=cluster.scheduler_address)
    monkeypatch.setattr(aggregate, "CONNECT_TIMEOUT", 1)
    with pytest.raises(ph.errors.OptionError, match="cannot connect"):
        aggregate_counts(d, scheduler="tcp://127.0.0.1:1")


@pytest.mark.parametrize("batch_rows", [1, 1000])
def test_a_number_and_text_id_that_read_alike_are_refused_when_streamed(
    tmp_path: Path, batch_rows: int
) -> None:
    # the in-memory reader refuses task 7 and task "7" (passhat._ids); streamed, they were
    # merged into one task of n = 2, in one batch or across batches and across part files
    f = tmp_path / "runs.jsonl"
    f.write_text('{"task_id": 7, "success": 1}\n{"task_id": "7", "success": 0}\n')
    with pytest.raises(ValidationError, match=r"rows 1 and 2: task_id 7 \(a number\)"):
        ph.read_trials(f)
    with pytest.raises(ValidationError, match=r"rows 1 and 2: task_id '7' is written as a number"):
        aggregate_counts(f, batch_rows=batch_rows)
    d = tmp_path / "ds"
    d.mkdir()
    pd.DataFrame({"task_id": [7, 8], "success": [1, 0]}).to_parquet(d / "a.parquet")
    pd.DataFrame({"task_id": ["8", "9"], "success": [0, 1]}).to_parquet(d / "b.parquet")
    with pytest.raises(ValidationError, match=r"b\.parquet: row 1 \(and row 2 of .*a\.parquet\)"):
        aggregate_counts(d, batch_rows=batch_rows)
    # ids written one way throughout still count, 1 and 1.0 as two ids
    f.write_text('{"task_id": 1, "success": 1}\n{"task_id": 1.0, "success": 0}\n' * 2)
    got = aggregate_counts(f, batch_rows=batch_rows, system_name="s")
    assert got["task"].values.tolist() == ["1", "1.0"] and got["n"].values.tolist() == [[2, 2]]


def test_statuses_are_matched_in_any_case(tmp_path: Path) -> None:
    # "Timeout" with no verdict was an unscored run (only "timeout" was a failure) and a pass
    # graded during a "GRADER_ERROR" counted (only "grader_error" was undecided); by hand:
    # task a: a pass and a timeout (a failure) -> n 2, c 1; task b: the grader-error run is
    # unscored, the other a failure -> n 1, c 0, unscored 1
    f = tmp_path / "runs.csv"
    f.write_text("task_id,success,status\na,,Timeout\na,1,OK\nb,1,GRADER_ERROR\nb,0,ok\n")
    want = ([[2, 1]], [[1, 0]], [[0, 1]])
    note = failure_status_note(1, ["Timeout"])  # the status as the file writes it
    for ds, notes in [(ph.read_trials(f).counts(), ph.read_trials(f).notes)] + [
        (got, got.attrs["notes"]) for got in (aggregate_counts(f, batch_rows=b) for b in (1, 9))
    ]:
        assert (ds["n"].values.tolist(), ds["c"].values.tolist()) == want[:2]
        assert ds["unscored"].values.tolist() == want[2] and notes == [note]


# ------------------------------------------------------- hostile data, the engine's C lookups
_IDS = [
    "caf\u00e9",  # composed (NFC)
    "日本語のタスク",
    "emoji 🤖 task",
    "עברית RTL",
    "a b",  # inner space
    "NA",  # an NA word as an id (kept in id columns)
    "0",
    "Task",
    "task",  # letter case: two tasks
]


def _hostile(seed: int, *, systems: int = 3, runs: int = 5) -> pd.DataFrame:
    """Unicode ids, unscored and failed-without-verdict runs, weights, categories, systems
    whose names differ in case, unequal runs, any row order."""
    rng = np.random.default_rng(seed)
    rows = []
    names = ["GPT-4o", "gpt-4o", "claude ✓"][:systems]
    for s, system in enumerate(names):
        for t, task in enumerate(_IDS):
            for r in range(int(rng.integers(1, runs + 1))):
                verdict = rng.choice(["pass", "fail", "none"], p=[0.5, 0.4, 0.1])
                rows.append(
                    {
                        "system": system,
                        "task_id": task,
                        "trial": r * 3 + s,  # not from 0, gaps
                        "success": {"pass": True, "fail": False, "none": None}[verdict],
                        "status": rng.choice(["ok", "OK ", "Timeout", "grader_error", "ok"]),
                        "weight": float(1 + t % 4),
                        "category": ["α", "β", "γ"][t % 3],
                    }
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("name", ["runs.parquet", "runs.csv"])
@pytest.mark.parametrize("batch_rows", [1, 7, 100_000])
def test_hostile_data_counts_equal_the_in_memory_reader(
    tmp_path: Path, name: str, batch_rows: int
) -> None:
    """Oracle: read_trials(f).counts(), the notes included (the case-variant systems, the
    timeouts without a verdict counted as failures)."""
    f = _write(_hostile(11), tmp_path / name)
    want = ph.read_trials(f)
    got = aggregate_counts(f, batch_rows=batch_rows)
    _same(got, want.counts())
    assert got.attrs.get("notes", []) == want.notes
    assert sorted(got["task"].values.tolist()) == sorted(_IDS)
    assert got.attrs["source_rows"] == len(want)


def _parts_with_one_dictionary(d: Path, df: pd.DataFrame, parts: int) -> None:
    """Parquet parts whose id columns share one dictionary, holding every id (most parts use
    only some: a dictionary value no row uses is no id)."""
    d.mkdir()
    dictionary = pa.array([*sorted(set(df["task_id"])), "never used"])
    index = {v: i for i, v in enumerate(dictionary.to_pylist())}
    for i, idx in enumerate(np.array_split(np.arange(len(df)), parts)):
        part = df.iloc[idx]
        codes = pa.array([index[v] for v in part["task_id"]], pa.int32())
        tbl = pa.Table.from_pandas(part.drop(columns="task_id"), preserve_index=False)
        tbl = tbl.append_column("task_id", pa.DictionaryArray.from_arrays(codes, dictionary))
        pq.write_table(tbl, d / f"part-{i:02d}.parquet")


def test_parts_sharing_a_dictionary_count_every_id(tmp_path: Path) -> None:
    """The engine reuses a dictionary's map across parts: ids unused in the first parts and
    used later must still be added, in order of appearance."""
    df = _hostile(12)
    df = df.sort_values("task_id", kind="stable").reset_index(drop=True)  # ids arrive late
    _parts_with_one_dictionary(tmp_path / "ds", df, parts=6)
    whole = _write(df, tmp_path / "whole.parquet")
    want = ph.read_trials(whole)
    for batch_rows in (5, 100_000):
        got = aggregate_counts(tmp_path / "ds", batch_rows=batch_rows)
        _same(got, want.counts())
        assert "never used" not in got["task"].values.tolist()


def test_a_name_written_composed_in_one_part_and_decomposed_in_another_is_refused(
    tmp_path: Path,
) -> None:
    d = tmp_path / "ds"
    d.mkdir()
    pd.DataFrame({"task_id": ["caf\u00e9", "b"], "success": [1, 0]}).to_parquet(d / "a.parquet")
    pd.DataFrame({"task_id": ["cafe\u0301"], "success": [1]}).to_parquet(d / "b.parquet")
    with pytest.raises(ValidationError, match="differ only in Unicode normalisation"):
        aggregate_counts(d)
    whole = pd.DataFrame({"task_id": ["caf\u00e9", "b", "cafe\u0301"], "success": [1, 0, 1]})
    with pytest.raises(ValidationError, match="differ only in Unicode normalisation"):
        ph.Trials.from_frame(whole)


def test_integer_ids_in_parts_stay_numbers(tmp_path: Path) -> None:
    """Integer ids (Arrow int columns) are looked up by their text; 7 in one part and "7" in
    another are refused, as in memory; int8 and int64 parts of the same numbers are one id."""
    d = tmp_path / "ds"
    d.mkdir()
    pq.write_table(
        pa.table({"task_id": pa.array([7, 8, 7], pa.int8()), "success": [1, 0, 1]}),
        d / "a.parquet",
    )
    pq.write_table(
        pa.table({"task_id": pa.array([8, 9], pa.int64()), "success": [1, 1]}), d / "b.parquet"
    )
    got = aggregate_counts(d, batch_rows=2)
    assert got["task"].values.tolist() == ["7", "8", "9"]
    assert got["n"].values.tolist() == [[2, 2, 1]] and got["c"].values.tolist() == [[2, 1, 1]]


def test_the_engine_state_travels_to_a_worker_and_back(tmp_path: Path) -> None:
    """A worker's partial table is pickled: its lookup caches are dropped, its ids kept."""
    import pickle

    f = _write(_hostile(13), tmp_path / "runs.parquet")
    acc, _ = aggregate._scan([f], {"batch_rows": 10, "threshold": None}, {})
    back = pickle.loads(pickle.dumps(acc))
    assert back.tasks.names == acc.tasks.names and back.tasks._recent == []
    assert [back.tasks.first_seen(t) for t in back.tasks.names] == [
        acc.tasks.first_seen(t) for t in acc.tasks.names
    ]


def test_hostile_parts_on_a_cluster_of_worker_processes(tmp_path: Path) -> None:
    """Three worker processes (each part table pickled back to the client): the same table
    and notes as the in-memory reader, and a duplicate split across two workers' files is
    found."""
    distributed = pytest.importorskip("distributed")
    df = _hostile(14)
    d = tmp_path / "ds"
    d.mkdir()
    for i, idx in enumerate(np.array_split(np.arange(len(df)), 12)):
        df.iloc[idx].to_parquet(d / f"part-{i:02d}.parquet")
    want = ph.read_trials(_write(df, tmp_path / "whole.parquet"))
    with distributed.LocalCluster(
        n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        got = ph.read_counts(d, scheduler=cluster.scheduler_address)
        _same(got, want.counts())
        assert got.attrs.get("notes", []) == want.notes
        row = df.iloc[0]
        pd.DataFrame([row]).to_parquet(d / "part-99.parquet")  # the last file, another group
        with pytest.raises(ValidationError, match=r"duplicate .* in two files"):
            ph.read_counts(d, scheduler=cluster.scheduler_address)
