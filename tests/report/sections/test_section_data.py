"""passhat.report.sections.data: what was run, decided, unscored and left out, and why.

Oracles: counts taken by hand from the trial table (pandas group-bys), and passhat.slices.
"""

from __future__ import annotations

import passhat as ph
from passhat.estimators import as_counts
from passhat.report.sections.data import data_section


def _section(trials, **est):  # type: ignore[no-untyped-def]
    return data_section(trials, as_counts(trials), ph.estimate(trials, k=[1, 2], **est))


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
    sec = data_section(counts, counts, ph.estimate(counts, k=1))
    assert [t.id for t in sec.tables] == ["data_systems", "data_runs_per_task"]
    assert sec.sentences == [
        "1 system on 2 tasks; every task has 4 decided runs.",
        "Every run was decided (no unscored runs).",
    ]
    assert sec.tables[0].rows[0]["runs"] == 8 and sec.tables[0].rows[0]["unscored"] == 0
