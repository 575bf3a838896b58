"""A k larger than every task's runs, with ``on_short="exclude"`` (``--min-runs``).

``passhat estimate --k 1,100 --min-runs 1`` on tasks of 4 runs refused the whole command ("no
task is left to average") although k = 1 was well defined: the exclusion rule leaves out a task
short for the largest k, and k = 100 left no task. Now a k no task of some system can serve is
set aside and named (a note, ``settings["k_dropped"]``), the other k are reported; the same in
``compare`` per pair. With ``on_short="error"`` (the default) k > n stays an error naming the
tasks (DESIGN: never a silent 0 or NaN), and ``rank`` (no ``on_short``) refuses as before.

The exclusion itself stays per task, not per k (documented in :mod:`passhat.exclusions`): a
task short for the largest k kept is left out at every k, so every k averages the same tasks.

Oracles: counts written by hand; the value at k = 1 equals ``estimate(k=1)`` over the same
tasks; the τ-bench airline file's published pass^1 = 0.420.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import passhat as ph
from passhat.cli import main
from passhat.exclusions import feasible_ks


def test_estimate_reports_the_k_the_tasks_serve_and_names_the_others() -> None:
    t = ph.load_example("tau-airline")  # 50 tasks × 4 runs
    est = ph.estimate(t, k=[1, 4, 100], on_short="exclude")
    assert sorted(est.table["k"].unique()) == [1, 4]
    assert est.settings["k"] == [1, 4] and est.settings["k_dropped"] == [100]
    assert any(x.startswith("k = 100 left out") and "n = 4" in x for x in est.notes)
    assert est.value("pass_hat_k", 1) == pytest.approx(0.42)  # published pass^1
    assert est.value("pass_hat_k", 4) == pytest.approx(ph.estimate(t, k=4).value("pass_hat_k", 4))
    with pytest.raises(ph.ShortTaskError, match="k = 100 exceeds the decided runs of 50 task"):
        ph.estimate(t, k=[1, 100])  # on_short="error": still refused, naming the tasks


def test_cli_estimate_k_1_100_with_min_runs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "--example", "tau-airline", "--k", "1,100", "--min-runs", "1"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {r["k"] for r in doc["estimates"]} == {1}
    assert doc["settings"]["k_dropped"] == [100]
    assert main(args) == 0
    assert "k = 100 left out" in capsys.readouterr().out


def test_no_k_served_is_still_an_error_naming_why() -> None:
    t = ph.load_example("tau-airline")
    with pytest.raises(ph.ShortTaskError, match="min_runs = 10"):
        ph.estimate(t, k=[1, 100], on_short="exclude", min_runs=10)


def test_a_task_short_for_the_largest_k_is_left_out_at_every_k() -> None:
    """Per task, not per k: with k = 1, 5 the 4-run task is out at k = 1 too (listed)."""
    ds = ph.counts_from_arrays([4, 10], [1, 9], tasks=["short", "long"])
    est = ph.estimate(ds, k=[1, 5], on_short="exclude")
    assert est.value("mean", 1) == pytest.approx(9 / 10)  # the 10-run task alone
    assert est.excluded["task"].tolist() == ["short"]
    assert est.settings["k_dropped"] == []


def test_matched_tasks_serve_k_only_when_every_system_has_k_runs() -> None:
    """A: a 10 runs, b 3; B: a 2, b 6. Unmatched, each system has a task with ≥ 5 runs; matched,
    task a has min(10, 2) = 2 and b min(3, 6) = 3 runs, so k = 5 is served by no task."""
    cells = {("A", "a"): (10, 7), ("A", "b"): (3, 2), ("B", "a"): (2, 1), ("B", "b"): (6, 5)}
    rows = [
        {"system": s, "task_id": t, "trial": r, "success": r < c}
        for (s, t), (n, c) in cells.items()
        for r in range(n)
    ]
    ds = ph.Trials.from_frame(pd.DataFrame(rows)).counts()
    opts = {"min_runs": None, "unscored_tasks": "exclude"}
    assert feasible_ks(ds, [1, 5], matched=False, **opts) == ([1, 5], [])  # type: ignore[arg-type]
    assert feasible_ks(ds, [1, 5], matched=True, **opts) == ([1], [5])  # type: ignore[arg-type]
    est = ph.estimate(ds, k=[1, 5], on_short="exclude", matched=True)
    assert est.settings["k"] == [1] and est.settings["k_dropped"] == [5]
    assert est.value("mean", 1, system="A") == pytest.approx((7 / 10 + 2 / 3) / 2)


def test_compare_names_the_k_no_matched_task_serves() -> None:
    cmp = ph.compare(
        ph.load_example("agents"), k=[1, 30], on_short="exclude", intersect=True, n_boot=200
    )
    assert set(cmp.table["k"]) == {1}
    assert cmp.settings["k_dropped"] == {"guided": [30]}
    assert any("k = 30 left out" in x for x in cmp.notes)
    with pytest.raises(ph.ShortTaskError):
        ph.compare(ph.load_example("agents"), k=[1, 30], intersect=True, n_boot=200)


def test_spread_names_the_k_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    """spread --k 1,9 --min-runs 1 on 4-run tasks reported k = 1 without saying where 9 went."""
    sp = ph.spread(ph.load_example("tau-airline"), k=[1, 2, 9], on_short="exclude")
    assert sorted(sp.table["k"].unique()) == [1, 2]
    assert any(x.startswith("k = 9 left out") for x in sp.notes)
    assert main(["spread", "--example", "tau-airline", "--k", "1,9", "--min-runs", "1"]) == 0
    assert "k = 9 left out" in capsys.readouterr().out
