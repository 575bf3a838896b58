"""Scores to verdicts (io/_scores.py), and the hint for a table with a score but no success
column: it names the file's own columns and the exact options to type (issue 29: a numeric
``reward`` column got "required column 'success' is missing (columns: system, ...)", listing a
``system`` column the file does not have, with no --map / --threshold suggestion)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import passhat as ph
from passhat.errors import FormatError, OptionError, ValidationError
from passhat.io._scores import check_threshold, json_score, missing_success, verdicts


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    from passhat.cli import main

    code = main(args)
    return code, capsys.readouterr().err.strip().splitlines()


def test_verdicts_read_0_1_and_refuse_other_scores_without_a_threshold() -> None:
    x = np.array([1.0, 0.0, np.nan, 1.0])
    assert verdicts(x, threshold=None, where="f", what="m") == [True, False, None, True]
    with pytest.raises(
        FormatError, match=r"f: m takes values other than 0 and 1 \(0\.25, 0\.5 in 2"
    ):
        verdicts(np.array([0.25, 0.5, 1.0]), threshold=None, where="f", what="m")
    got = verdicts(np.array([0.25, 0.5, 1.0, np.nan]), threshold=0.5, where="f", what="m")
    assert got == [False, True, True, None]


def test_json_score_refuses_text_and_booleans_where_asked() -> None:
    assert json_score(True, "f", "x") == 1.0 and json_score(float("nan"), "f", "x") is None
    with pytest.raises(FormatError, match=r"f: cost is True \(a boolean\), not a number"):
        json_score(True, "f", "cost", bools=False)
    with pytest.raises(FormatError, match="not a finite number"):
        json_score(float("inf"), "f", "x")
    with pytest.raises(OptionError, match="threshold must be a number"):
        check_threshold("0.5", "f")


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("task_id,trial,reward\na,0,0.8\na,1,0.2\nb,0,1\n", "--map success=reward --threshold 1"),
        ("task_id,trial,passed\na,0,1\na,1,0\n", "--map success=passed --threshold 1"),
        ("task_id,points\na,7\nb,10\n", "--map success=points --threshold T"),
    ],
)
def test_a_numeric_column_gets_the_options_to_type(
    tmp_path: Path, text: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "runs.csv"
    f.write_text(text)
    with pytest.raises(ValidationError, match="required column 'success' is missing") as err:
        ph.read_trials(f)
    assert hint in str(err.value)
    code, lines = _cli(["estimate", str(f)], capsys)
    assert code == 2 and len(lines) == 1 and hint in lines[0]


def test_the_columns_listed_are_the_files_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``model`` column that would be read as the system is listed as ``model``, and no
    ``system`` column is named; the suggested options then read the file."""
    f = tmp_path / "runs.csv"
    f.write_text("model,task_id,trial,reward\nm1,a,0,0.8\nm1,a,1,0.2\nm2,a,0,1.0\nm2,a,1,0.9\n")
    code, lines = _cli(["estimate", str(f)], capsys)
    assert code == 2
    assert "(columns: model, task_id, trial, reward)" in lines[0] and "system" not in lines[0]
    code, _ = _cli(["estimate", str(f), "--map", "success=reward", "--threshold", "1"], capsys)
    assert code == 0
    t = ph.read_trials(f, success="reward", threshold=0.5)
    assert t.frame["success"].tolist() == [True, False, True, True]


def test_a_text_column_gets_no_threshold_hint(tmp_path: Path) -> None:
    f = tmp_path / "runs.csv"
    f.write_text("task_id,verdict\na,pass\n")
    with pytest.raises(ValidationError) as err:
        ph.read_trials(f)
    assert str(err.value).endswith("(columns: task_id, verdict)")


def test_streamed_files_suggest_by_name(tmp_path: Path) -> None:
    d = tmp_path / "parts"
    d.mkdir()
    (d / "a.csv").write_text("task_id,trial,reward\na,0,1\n")
    with pytest.raises(ValidationError, match=r"--map success=reward --threshold 1"):
        ph.read_counts(d)


def test_missing_success_text() -> None:
    msg = missing_success("r.csv", ["system", "task_id", "score_x"], {"score_x": (0.0, 1.0)})
    assert "--map success=score_x --threshold 1" in msg  # not the data-model 'system'
    assert missing_success("r.csv", ["task_id"], {}) == (
        "r.csv: required column 'success' is missing (columns: task_id)"
    )
