"""Several inputs as one (passhat.inputs): naming after files, and repeated inputs said."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.commands.cli_helpers import run

import passhat as ph
from passhat.inputs import file_labels, name_systems, repeat_notes

RUNS = "task,trial,success\nt1,1,1\nt1,2,0\nt2,1,1\nt2,2,1\n"


def _counts(path: str, digest: str) -> object:
    d = ph.counts_from_arrays([4, 4], [3, 1], system="gpt")
    d.attrs["source_path"], d.attrs["source_sha256"] = path, digest
    return d


def test_file_labels_number_the_same_path() -> None:
    assert file_labels(["x.csv", "x.csv", "y.csv"]) == ["x (1)", "x (2)", "y"]


def test_repeat_notes_same_path_and_same_content() -> None:
    a, b, c = _counts("a.json", "h1"), _counts("b.json", "h1"), _counts("c.json", "h2")
    assert repeat_notes([a, a, c]) == [
        "the same file is given 2 times: 'a.json'; each mention counts as a separate input"
    ]
    assert repeat_notes([a, b, c]) == [
        "files of identical content (same SHA-256): 'a.json', 'b.json'; "
        "each counts as a separate input"
    ]
    assert repeat_notes([a, c]) == []


def test_name_systems_keeps_both_and_says_so() -> None:
    a = _counts("a.json", "h1")
    named, notes = name_systems([a, a])
    assert len(named) == 2
    assert notes[0].startswith("the same file is given 2 times")
    assert any("named after the files" in n for n in notes)


def test_rank_the_same_file_twice_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = tmp_path / "a.csv"
    a.write_text(RUNS)
    shutil.copy(a, tmp_path / "b.csv")
    rc, out, err = run(capsys, ["rank", str(a), str(a)])
    assert rc == 0, err
    assert f"the same file is given 2 times: {str(a)!r}" in out + err
    rc, out, err = run(capsys, ["rank", str(a), str(tmp_path / "b.csv")])
    assert rc == 0, err
    assert "files of identical content (same SHA-256)" in out + err


def _category_runs(systems: list[str], cats: dict[str, str]) -> ph.Trials:
    import pandas as pd

    rows = [
        {"system": s, "task_id": t, "trial": r, "success": (r + i) % 2, "category": c}
        for i, s in enumerate(systems) for t, c in cats.items() for r in range(2)
    ]  # fmt: skip
    return ph.Trials.from_frame(pd.DataFrame(rows))


def test_concat_systems_keeps_the_tasks_categories() -> None:
    """Several inputs combined (rank A.csv B.csv --by category) keep each task's category; the
    merge dropped it and --by said 'no category column'. A task in two categories is an error
    naming it. Oracle: the categories as written."""
    from passhat.errors import ValidationError
    from passhat.inputs import concat_systems

    cats = {"t1": "x", "t2": "y", "t3": "x"}
    a, b = _category_runs(["A"], cats).counts(), _category_runs(["B", "C"], cats).counts()
    merged = concat_systems([a, b])
    assert dict(zip(merged["task"].values, merged["category"].values, strict=True)) == cats
    clash = _category_runs(["D"], {**cats, "t2": "z"})
    assert "category" not in concat_systems([a, clash.counts()]).coords  # used only with by
    with pytest.raises(ValidationError, match=r"task 't2' is in category 'y' in one input and 'z'"):
        ph.rank([_category_runs(["A"], cats), clash], k=1, n_boot=200, by="category")
    r = ph.rank([_category_runs(["A"], cats), _category_runs(["B", "C"], cats)], k=1,
                metrics=["mean"], n_boot=200, by="category")  # fmt: skip
    assert r.by_category is not None and set(r.by_category.table["category"]) == {"x", "y"}
