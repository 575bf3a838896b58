"""passhat.report.sections.data: what was run, decided, unscored and left out, and why.

Oracles: counts taken by hand from the trial table (pandas group-bys), and passhat.slices.
"""

from __future__ import annotations

from report_testdata import results_of

import passhat as ph
from passhat.report.sections.data import data_section


def _section(data, k=(1, 2), **options):  # type: ignore[no-untyped-def]
    return data_section(results_of(data, k=list(k), ci=None, **options))


def test_systems_table_counts_the_trials() -> None:
    trials = ph.load_example("agents")
    fr = trials.frame
    sec = _section(trials)
    rows = {r["system"]: r for r in sec.tables[0].rows}
    for system, part in fr.groupby("system"):
        decided = part[part["success"].notna()]
        assert rows[system]["runs"] == len(decided)
        assert rows[system]["unscored"] == len(part) - len(decided)
        assert rows[system]["tasks"] == part["task_id"].nunique()
        per_task = decided.groupby("task_id").size()
        assert rows[system]["runs_min"] == per_task.min()
        assert rows[system]["runs_max"] == per_task.max()
    unscored = int(fr["success"].isna().sum())
    assert any(s.startswith(f"{unscored} run(s) were not decided") for s in sec.sentences)
    # trials with a complete category column get both slices, from passhat.slices
    ids = [t.id for t in sec.tables]
    assert ids[:4] == ["data_systems", "data_runs_per_task", "data_status", "data_category"]
    want = ph.slices(trials, by=["status", "category"]).tables["status"]
    assert len(sec.tables[2].rows) == len(want)


def test_runs_per_task_and_excluded_tasks() -> None:
    fr = ph.load_example("abcd").frame
    fr = fr[~((fr["task_id"] == "D") & (fr["trial"] >= 1))]  # task D: one run left
    trials = ph.Trials.from_frame(fr)
    sec = _section(trials, on_short="exclude")
    dist = {(r["runs"], r["tasks"]) for r in sec.tables[1].rows}
    assert dist == {(1, 1), (5, 3)}
    excluded = next(t for t in sec.tables if t.id == "data_excluded_tasks")
    assert [(r["task"], r["n"]) for r in excluded.rows] == [("D", 1)]
    assert "1 task(s) were left out of the averages (listed below)." in sec.sentences
    assert sec.sentences[0] == (
        "1 system on 4 tasks; decided runs per task range from 1 to 5 (median 5)."
    )


def test_count_tables_have_no_slices() -> None:
    counts = ph.counts_from_arrays([4, 4], [1, 3], tasks=["a", "b"])
    sec = _section(counts, k=[1])
    assert [t.id for t in sec.tables] == ["data_systems", "data_runs_per_task"]
    assert sec.sentences == [
        "1 system on 2 tasks; every task has 4 decided runs.",
        "Every run was decided (no unscored runs).",
    ]
    assert sec.tables[0].rows[0]["runs"] == 8 and sec.tables[0].rows[0]["unscored"] == 0


def test_first_sentence_counts_in_words_and_says_which_system_missed_tasks() -> None:
    """Before: "1 system on 1 tasks; every task has 1 decided runs", and "3 systems on 12 tasks;
    every task has 4 decided runs" when one system ran 9 of the 12 tasks."""
    import pandas as pd

    one = ph.Trials.from_frame(
        pd.DataFrame({"system": "A", "task_id": "t1", "trial": [0], "success": [True]})
    )
    sec = _section(one, k=[1])
    assert sec.sentences[0] == "1 system on 1 task; every task has 1 decided run."
    rows = [
        {"system": s, "task_id": f"t{t}", "trial": r, "success": (t + r) % 2 == 0}
        for s in ("A", "B", "C")
        for t in range(12)
        for r in range(4)
        if not (s == "C" and t < 3) and not (s == "B" and t == 5)
    ]
    three = ph.Trials.from_frame(pd.DataFrame(rows))
    first = _section(three, k=[1]).sentences[0]
    assert first == (
        "3 systems on 12 tasks; not every system ran every task (B 11 of 12, C 9 of 12); "
        "every task a system ran has 4 decided runs."
    )
