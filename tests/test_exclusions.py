"""Which tasks enter an average: the exclusion rules shared by estimate, compare, fit, report.

Oracles: brute force (the plain average of per-task unbiased estimates over the tasks that
must remain, computed by hand from the counts); the data model (n = 0 has no estimate; a
task with n < k is an error unless excluded); issue 12 item 7 (exclusions apply to matched
tasks in paired output and are listed; uneven task sets get a note) and issue 16 item 3
(one rule for tasks with no decided run).
"""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.exclusions import default_ks, exclusions, unscored_task_rule


def two_systems() -> ph.Trials:
    """Two systems on tasks t0..t5; t1 has 2 decided runs for A, t4 has 2 for B, else 4."""
    rows = []
    outcomes = {
        "A": [[1, 1, 1, 1], [1, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0], [1, 0, 1, 1]],
        "B": [[1, 1, 1, 1], [1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1], [0, 1], [1, 1, 1, 1]],
    }
    for system, tasks in outcomes.items():
        for t, runs in enumerate(tasks):
            for trial, ok in enumerate(runs):
                rows.append({"system": system, "task_id": f"t{t}", "trial": trial, "success": ok})
    return ph.Trials.from_frame(pd.DataFrame(rows))


def brute(trials: ph.Trials, system: str, tasks: list[str], k: int) -> float:
    f = trials.frame
    vals = []
    for t in tasks:
        runs = f[(f["system"] == system) & (f["task_id"] == t)]["success"].astype(int)
        vals.append(comb(int(runs.sum()), k) / comb(len(runs), k))
    return float(np.mean(vals))


def test_min_runs_unmatched_gets_a_note() -> None:
    """Item 7: 5 vs 5 tasks, but not the same five: said in the notes."""
    trials = two_systems()
    est = ph.estimate(trials, k=3, min_runs=3, on_short="exclude")
    assert est.summary["tasks"].tolist() == [5, 5]
    note = next(n for n in est.notes if "different tasks" in n)
    assert "A: 5, B: 5 tasks; 2 task(s) are left out for some systems only" in note
    assert "--matched" in note
    kept_a = ["t0", "t2", "t3", "t4", "t5"]
    assert est.value("pass_hat_k", 3, "A") == pytest.approx(brute(trials, "A", kept_a, 3))


def test_matched_leaves_a_task_out_of_every_system() -> None:
    trials = two_systems()
    est = ph.estimate(trials, k=3, min_runs=3, on_short="exclude", matched=True)
    assert est.summary["tasks"].tolist() == [4, 4]
    common = ["t0", "t2", "t3", "t5"]
    for s in ("A", "B"):
        assert est.value("pass_hat_k", 3, s) == pytest.approx(brute(trials, s, common, 3))
        assert est.value("mean", 3, s) == pytest.approx(brute(trials, s, common, 1))
    ex = est.excluded.sort_values(["system", "task"])
    assert ex[["system", "task"]].values.tolist() == [
        ["A", "t1"],
        ["A", "t4"],
        ["B", "t1"],
        ["B", "t4"],
    ]
    reasons = dict(zip(zip(ex["system"], ex["task"], strict=True), ex["reason"], strict=True))
    assert reasons[("A", "t1")] == "n = 2 decided runs < min_runs = 3"
    assert reasons[("B", "t1")] == (
        "matched tasks: left out for another system (A: n = 2 decided runs < min_runs = 3)"
    )
    assert not any("different tasks" in n for n in est.notes)
    assert "excluded 2 task(s): matched tasks: left out for another system" in est.notes


def test_unscored_task_rule() -> None:
    ds = ph.counts_from_arrays([3, 0, 2], [1, 0, 2], tasks=["a", "b", "c"], unscored=[1, 4, 0])
    empty, excl = unscored_task_rule(ds, "exclude")
    assert empty.tolist() == [[False, True, False]]
    assert excl[["task", "n", "unscored", "reason"]].values.tolist() == [
        ["b", 0, 4, "no decided run (4 runs unscored)"]
    ]
    with pytest.raises(ph.ValidationError, match=r"1 task\(s\) have no decided run .*: b "):
        unscored_task_rule(ds, "error")
    with pytest.raises(ph.OptionError, match="unscored_tasks must be one of exclude, error"):
        unscored_task_rule(ds, "drop")
    include, excluded = exclusions(
        ds, 2, on_short="exclude", min_runs=None, unscored_tasks="exclude", matched=False
    )
    assert include.tolist() == [[True, False, True]]
    assert excluded["reason"].tolist() == ["no decided run (4 runs unscored)"]


def test_default_ks() -> None:
    """Item 5's shared default: 1, 2, 5 capped at the fewest decided runs (n = 0 ignored)."""
    assert default_ks(ph.counts_from_arrays([5, 7], [1, 2])) == [1, 2, 5]
    assert default_ks(ph.counts_from_arrays([4, 5, 0], [1, 2, 0], unscored=[1, 0, 5])) == [1, 2, 4]
    assert default_ks(ph.counts_from_arrays([1, 3], [1, 2])) == [1]
    assert default_ks(ph.load_example("tau-airline")) == [1, 2, 4]
