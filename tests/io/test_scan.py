"""passhat.io._scan.estimated_rows: the row count that decides streaming (io._registry)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.io import _registry
from passhat.io._scan import estimated_rows


def _runs(rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "task_id": [f"task-{i % 97}" for i in range(rows)],
            "trial": np.arange(rows) // 97,
            "success": rng.integers(0, 2, rows),
        }
    )


def test_rows_of_parquet_come_from_its_metadata(tmp_path: Path) -> None:
    f = tmp_path / "runs.parquet"
    _runs(12_345).to_parquet(f, row_group_size=1000)
    assert estimated_rows(f) == 12_345  # exact: the footer's count


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".csv.gz"])
def test_rows_of_text_are_counted_or_estimated(tmp_path: Path, suffix: str) -> None:
    """Oracle: the rows written. Under 1 MiB of text the lines are counted (exact); beyond,
    the size over the first MiB's mean line length (within 5% for rows of similar length)."""
    for rows in (1_000, 200_000):
        f = tmp_path / f"runs{suffix}"
        df = _runs(rows)
        text = (
            df.to_json(orient="records", lines=True)
            if suffix == ".jsonl"
            else df.to_csv(index=False)
        )
        if suffix.endswith(".gz"):
            f.write_bytes(gzip.compress(text.encode()))
        else:
            f.write_text(text)
        got = estimated_rows(f)
        if len(text) < 1 << 20:
            assert got == rows - (1 if suffix == ".jsonl" else 0)  # JSON lines: no header
        else:
            assert abs(got - rows) < 0.05 * rows


def test_an_unreadable_file_has_no_rows(tmp_path: Path) -> None:
    f = tmp_path / "runs.parquet"
    f.write_bytes(b"not parquet")
    assert estimated_rows(f) == 0


def test_streaming_is_decided_by_rows_not_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Parquet file of many rows is small on disk: it is counted out of core by its row
    count (its metadata), with the same counts as the whole table read in memory."""
    f = tmp_path / "runs.parquet"
    _runs(5_000).to_parquet(f)
    assert isinstance(ph.read(f), ph.Trials)  # under STREAM_ROWS: a trial table
    monkeypatch.setattr(_registry, "STREAM_ROWS", 4_999)
    ds = ph.read(f)
    assert not isinstance(ds, ph.Trials) and ds.attrs["source_rows"] == 5_000
    ref = ph.read_trials(f).counts()  # read_trials: always in memory
    for var in ("n", "c", "unscored"):
        assert ds[var].values.tolist() == ref[var].values.tolist()
    assert ds["task"].values.tolist() == ref["task"].values.tolist()


def test_outputs_passhat_wrote_inside_a_dataset_are_not_runs(tmp_path: Path) -> None:
    """``passhat report runs/ -o runs/report`` then ``passhat estimate runs/``: the report's
    tasks.parquet was read as a part file of the runs ("the files mix formats", or "required
    column 'success' is missing"). A directory with passhat's manifest is passhat's output."""
    runs = tmp_path / "runs"
    runs.mkdir()
    pd.DataFrame({"task_id": ["a", "a", "b"], "trial": [0, 1, 0], "success": [1, 0, 1]}).to_csv(
        runs / "part-0.csv", index=False
    )
    report = runs / "report"
    report.mkdir()
    (report / ".passhat-manifest.json").write_text("{}")
    pd.DataFrame({"task": ["a"], "n": [2], "c": [1]}).to_parquet(report / "tasks.parquet")
    ds = ph.read_counts(runs)
    assert sorted(ds["task"].values.tolist()) == ["a", "b"]
    assert int(ds["n"].sum()) == 3 and int(ds["c"].sum()) == 2


DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("fixture", "what"),
    [
        ("lm_eval/EleutherAI__pythia-160m", "lm-eval samples files"),
        ("harbor/2025-11-20__14-03-12", "Harbor trials"),
        ("helm/v1", "HELM runs"),
        ("swebench/reports", "SWE-bench results"),
    ],
)
def test_a_table_beside_a_frameworks_files_is_named(
    tmp_path: Path, fixture: str, what: str
) -> None:
    """A runs.csv dropped into a Harbor job, HELM suite, lm-eval or SWE-bench directory was
    left out without a word (Inspect's directory reader refuses the mix)."""
    import shutil

    d = tmp_path / "d"
    shutil.copytree(DATA / fixture, d)
    (d / "runs.csv").write_text("task_id,trial,success\nzz,0,1\n")
    t = ph.read_trials(d)
    assert "zz" not in t.counts()["task"].values
    assert f"{d}: not read (not {what}): runs.csv" in t.notes, t.notes


def test_json_results_beside_part_files_are_named(tmp_path: Path) -> None:
    """A τ-bench results .json in a directory of CSV parts was left out without a word."""
    d = tmp_path / "d"
    d.mkdir()
    (d / "part-0.csv").write_text("task_id,trial,success\na,0,1\n")
    (d / "gpt-4o-airline.json").write_text("[]")
    (d / "_SUCCESS").write_text("")
    ds = ph.read_counts(d)
    assert (
        f"{d}: not read (not csv, tsv, jsonl or parquet parts): gpt-4o-airline.json"
        in (ds.attrs["notes"])
    )
