"""Estimate's table for papers (Estimate._paper → to_latex / to_markdown): the numbers are the
estimate's own table, rounded; the caption names the level, the scope and the method."""

from __future__ import annotations

import pandas as pd
import pytest
from tests.paper_cells import close, markdown_rows, numbers

import passhat as ph


@pytest.fixture(scope="module")
def est() -> ph.Estimate:
    return ph.estimate(ph.load_example("agents"), k=[1, 2, 5], ci=0.9, n_boot=200, predictive=40)


@pytest.mark.parametrize("scope", ["population", "benchmark", "predictive"])
def test_cells_are_the_estimates_in_the_scope(est: ph.Estimate, scope: str) -> None:
    rows = markdown_rows(est.to_markdown(scope=scope))
    t = est.table[est.table["scope"] == scope]
    assert [r["system"] for r in rows] == ["baseline", "guided"]
    assert list(rows[0]) == ["system", "tasks", "mean", "pass@2", "pass@5", "pass^2", "pass^5"]
    checked = 0
    for r in rows:
        part = t[t["system"] == r["system"]]
        assert int(r["tasks"]) == int(part["tasks"].iloc[0])
        for head, cell in list(r.items())[2:]:
            metric, k = (
                ("mean", 1)
                if head == "mean"
                else ("pass_at_k" if "@" in head else "pass_hat_k", int(head[-1]))
            )
            row = part[(part["metric"] == metric) & (part["k"] == k)].iloc[0]
            v, lo, hi = numbers(cell)
            assert close(v, row["value"]) and close(lo, row["lower"]) and close(hi, row["upper"])
            checked += 1
    assert checked == 10


def test_caption_names_level_scope_method_and_seed(est: ph.Estimate) -> None:
    caption = est.to_markdown().splitlines()[-1]
    assert caption.startswith("Table: Mean success, pass@k and pass^k per system")
    assert "90% intervals, population scope (the expected value over tasks like these)" in caption
    assert "seed 0" in caption and "task bootstrap" in caption
    latex = est.to_latex(scope="benchmark", label="tab:est")
    assert "benchmark scope (these tasks" in latex and "\\label{tab:est}" in latex
    assert "a new benchmark of 40 tasks" in est.to_markdown(scope="predictive")


def test_without_intervals_the_cells_are_the_values() -> None:
    est = ph.estimate(ph.load_example("abcd"), k=[2])
    rows = markdown_rows(est.to_markdown())
    assert rows == [
        {
            "system": "seed-example",
            "tasks": "4",
            "mean": "0.550",
            "pass@2": "0.675",
            "pass^2": "0.425",
        }
    ]
    assert "No intervals" in est.to_markdown()
    with pytest.raises(ph.OptionError, match=r"scope picks the intervals' scope.*give ci"):
        est.to_latex(scope="benchmark")


def test_scope_not_computed_is_refused(est: ph.Estimate) -> None:
    plain = ph.estimate(ph.load_example("abcd"), k=2, ci=0.9, n_boot=100)
    with pytest.raises(ph.OptionError, match="scope must be one of benchmark, population"):
        plain.to_markdown(scope="predictive")


def test_names_from_the_data_stay_names() -> None:
    rows = [
        {"system": s, "task_id": f"t{t}", "trial": r, "success": (r + t + i) % 3 > 0}
        for i, s in enumerate(["a_b & 50%", "[x](y) *z*"])
        for t in range(6)
        for r in range(3)
    ]
    est = ph.estimate(ph.Trials.from_frame(pd.DataFrame(rows)), k=2)
    assert [r["system"] for r in markdown_rows(est.to_markdown())] == ["a_b & 50%", "[x](y) *z*"]
    assert "a\\_b \\& 50\\%" in est.to_latex()
