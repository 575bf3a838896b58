"""``passhat report`` with the data-driven sections' options: --scores/--no-scores,
--thresholds, --by/--no-by, --cost/--no-cost, --cluster/--ignore-clusters (detected by
default; tests/report has their numbers against ``passhat estimate``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import bad

#: The data-driven sections' fixture (scores, category, cluster, cost; tests/report/data).
EXTRAS = Path(__file__).parents[1] / "report" / "data" / "extras.csv"
FAST_CLI = ["--k", "1,2", "--no-model", "--no-plan", "--n-boot", "200", "-q"]


def _ids(out: Path) -> list[str]:
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return [s["id"] for s in doc["sections"]]


def test_report_cli_detects_the_data_driven_sections(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    plain = tmp_path / "plain.csv"  # one system: no paired comparison (the test stays fast)
    runs = pd.read_csv(EXTRAS)
    runs[runs["system"] == "plain"].to_csv(plain, index=False)
    out = tmp_path / "on"
    assert main(["report", str(plain), "-o", str(out), *FAST_CLI]) == 0
    assert _ids(out)[3:6] == ["scores", "by_category", "cost"]
    assert (out / "figures" / "threshold_curve.png").is_file()
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Warning: only 6 clusters" in md


def test_report_cli_turns_each_off(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The --no-... flags reach passhat.report as False, --ignore-clusters drops the column."""
    import sys

    report_pkg = sys.modules["passhat.report"]  # the package (``passhat.report`` is the function)
    seen = {}

    def fake(data, out_dir, **kw):  # type: ignore[no-untyped-def]
        seen.update(kw, columns=list(data.frame.columns))
        raise SystemExit(0)

    monkeypatch.setattr(report_pkg, "report", fake)
    argv = ["report", str(EXTRAS), "-o", str(tmp_path / "off"), *FAST_CLI, "--no-scores",
            "--no-by", "--no-cost", "--ignore-clusters"]  # fmt: skip
    with pytest.raises(SystemExit):
        main(argv)
    assert (seen["scores"], seen["by"], seen["cost"]) == (False, False, False)
    assert "cluster" not in seen["columns"] and "score" in seen["columns"]
    seen.clear()
    with pytest.raises(SystemExit):
        main(["report", str(EXTRAS), "-o", str(tmp_path / "t"), "--thresholds", "0.5,1"])
    assert (seen["scores"], seen["by"], seen["cost"]) == ([0.5, 1.0], None, None)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--by", "category", "--no-by"], "--by and --no-by contradict"),
        (["--no-scores", "--thresholds", "0.5"], "--thresholds and --no-scores contradict"),
        (["--cluster", "cluster", "--ignore-clusters"], "--cluster and --ignore-clusters"),
        (["--thresholds", "50"], r"thresholds must lie in \[0, 1\]"),
    ],
)
def test_report_cli_contradictions_are_one_line(tmp_path, capsys, extra, words) -> None:  # type: ignore[no-untyped-def]
    bad(capsys, ["report", str(EXTRAS), "-o", str(tmp_path / "x"), *FAST_CLI, *extra], words)


def test_report_cli_cost_asked_without_a_cost_column(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad(
        capsys,
        ["report", "--example", "abcd", "-o", str(tmp_path / "x"), "--no-model", "--cost"],
        "--cost needs runs with a cost column",
    )


def test_report_cli_weights_reach_the_report_and_are_said(tmp_path: Path) -> None:
    """--weights category: the estimate is weighted (results.json records it) and the Data
    section lists, per section, whether it is weighted (without weights: no table, tested in
    tests/report/sections/test_section_weights.py)."""
    out = tmp_path / "w"
    argv = ["report", str(EXTRAS), "-o", str(out), *FAST_CLI, "--no-scores", "--no-cost",
            "--weights", "category"]  # fmt: skip
    assert main(argv) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["stamp"]["settings"]["weights"] == "category"
    data = next(s for s in doc["sections"] if s["id"] == "data")
    table = next(t for t in data["tables"] if t["id"] == "data_weights")
    rows = {r["section"]: r["weighted"] for r in table["rows"]}
    assert rows["2. Headline"] == "yes" and rows["By category"] == "yes"
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Which sections use the task weights" in md


def test_report_cli_weights_declared_without_a_column_is_one_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["report", str(EXTRAS), "-o", str(tmp_path / "d"), *FAST_CLI, "--weights", "declared"]
    bad(capsys, argv, "declare no weight column")
