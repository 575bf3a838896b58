"""Count tables (task_id, n, c[, system, unscored, weight, category]).

Oracle: the seeds' four-task example (pass-at-k-vs-pass-hat-k seed: tasks
with 5, 4, 2, 0 successes of 5, k = 2 → macro mean / pass@2 / pass^2 =
0.550 / 0.675 / 0.425), read from a count file; invalid counts must fail
naming the row or task and the rule.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import passhat as ph
from passhat.errors import CountError, FormatError, ValidationError


def _write(tmp_path: Path, text: str, name: str = "counts.csv") -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def test_seed_example_from_counts(tmp_path: Path) -> None:
    f = _write(tmp_path, "task_id,n,c\nA,5,5\nB,5,4\nC,5,2\nD,5,0\n")
    ds = ph.read_counts(f)
    assert ds.attrs["source_format"] == "counts"
    row = ph.estimate(ds, k=2).wide().iloc[0]
    assert (round(row["mean"], 3), round(row["pass_at_k"], 3), round(row["pass_hat_k"], 3)) == (
        0.55,
        0.675,
        0.425,
    )


def test_formats_and_optional_columns(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {
            "system": ["x", "x", "y"],
            "task_id": ["t1", "t2", "t1"],
            "n": [4, 3, 2],
            "c": [1, 3, 0],
            "unscored": [0, 1, 2],
            "weight": [2.0, 1.0, 2.0],
            "category": ["air", "retail", "air"],
        }
    )
    for name, write in (
        ("c.csv", lambda p: df.to_csv(p, index=False)),
        ("c.jsonl", lambda p: df.to_json(p, orient="records", lines=True)),
        ("c.parquet", lambda p: df.to_parquet(p, index=False)),
    ):
        p = tmp_path / name
        write(p)
        ds = ph.read_counts(p, format="counts")
        assert ds["n"].sel(system="x").values.tolist() == [4, 3]
        assert ds["unscored"].sel(system="y", task="t1").item() == 2
        assert ds["weight"].sel(system="x").values.tolist() == [2.0, 1.0]
        assert ds["category"].values.tolist() == ["air", "retail"]
        assert not bool(ds["present"].sel(system="y", task="t2"))
    # CSV and JSONL count tables are sniffed; read_trials refuses them
    assert ph.read(tmp_path / "c.jsonl").attrs["source_format"] == "counts"
    with pytest.raises(FormatError, match="holds a count table"):
        ph.read_trials(tmp_path / "c.csv")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("task_id,n,c\na,3,4\n", r"task 'a' .*c = 4 successes exceeds n = 3"),
        ("task_id,n,c\na,-1,0\n", r"task 'a' .*n = -1 is negative"),
        ("task_id,n,c\na,3,-2\n", r"task 'a' .*c = -2 is negative"),
        ("task_id,n,c\na,2.5,1\n", r"row 1 \(task 'a'\): n = '2.5' is not a whole number"),
        ("task_id,n,c\na,3,1\nb,x,1\n", r"row 2 \(task 'b'\): n = 'x' is not a whole number"),
        ("task_id,n,c\na,3,\n", r"row 1 \(task 'a'\): c is missing"),
        ("task_id,n,c\na,3,1\na,4,2\n", r"rows 1, 2: task 'a' .*appears more than once"),
        ("task_id,n\na,3\n", r"required column 'c' is missing"),
    ],
)
def test_bad_counts(tmp_path: Path, text: str, pattern: str) -> None:
    f = _write(tmp_path, text)
    with pytest.raises((CountError, ValidationError), match=r"counts\.csv: " + pattern):
        ph.read_counts(f, format="counts")


def test_options_do_not_apply(tmp_path: Path) -> None:
    f = _write(tmp_path, "task_id,n,c\na,3,1\n")
    with pytest.raises(ValidationError, match="threshold do not apply to a count table"):
        ph.read_counts(f, threshold=0.5)


def test_a_fractional_count_from_jsonl_is_shown_as_written(tmp_path: Path) -> None:
    """JSON numbers arrive as numpy floats: the message showed 'c = np.float64(3.5)'."""
    f = tmp_path / "c.jsonl"
    f.write_text('{"task_id": "a", "n": 4, "c": 3}\n{"task_id": "b", "n": 4, "c": 3.5}\n')
    with pytest.raises(CountError, match=r"row 2 \(task 'b'\): c = 3\.5 is not a whole number$"):
        ph.read_counts(f)


def test_count_table_task_named_na_keeps_its_name(tmp_path: Path) -> None:
    f = tmp_path / "counts.csv"
    f.write_text("task_id,n,c\nNA,3,2\nNone,3,3\nnull,2,0\n", encoding="utf-8")
    ds = ph.read_counts(f)
    assert ds["task"].values.tolist() == ["NA", "None", "null"]
    assert ds["c"].values.tolist() == [[2, 3, 0]]


AMBIGUOUS = r"columns 'n', 'c' and 'success' mix two layouts: a count table .* and runs"


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet"])
@pytest.mark.parametrize("options", [{}, {"format": "counts"}, {"aggregate": True}])
def test_runs_and_count_columns_together_are_refused(
    tmp_path: Path, kind: str, options: dict[str, object]
) -> None:
    """task_id,n,c,success was read as one run per row, n and c silently ignored (the
    reading below would give 2 runs, not 6). Oracle: the rule in DESIGN.md, nothing dropped
    silently; the error names the file, the columns and both layouts."""
    frame = pd.DataFrame({"task_id": ["a", "b"], "n": [3, 3], "c": [1, 2], "success": [1, 0]})
    path = tmp_path / f"runs.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path)
    with pytest.raises(FormatError, match=rf"runs\.{kind}: {AMBIGUOUS}"):
        ph.read(path, **options)  # type: ignore[arg-type]


def test_runs_and_count_columns_cli_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from passhat.cli import main

    f = _write(tmp_path, "task_id,n,c,success\na,3,1,1\nb,3,2,0\n", "runs.csv")
    assert main(["estimate", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.match(rf"passhat: error: .*runs\.csv: {AMBIGUOUS}", err)
    assert "drop 'success' for a count table, or drop or rename 'n' and 'c' for runs" in err
