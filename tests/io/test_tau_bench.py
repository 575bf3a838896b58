"""τ-bench reader.

Oracle: τ-bench's published leaderboard for gpt-4o on airline (Yao et al.,
τ-bench, 2024; sierra-research/tau-bench README): pass^1..4 = 0.420, 0.273,
0.220, 0.200 from the real result file ``shared/data/tau-bench/gpt-4o-airline.json``
(50 tasks × 4 trials).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import passhat as ph
from passhat.errors import FormatError

PUBLISHED = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


@pytest.mark.parametrize("fmt", ["tau-bench", None])
def test_published_airline_pass_hat_k(tau_airline_path: Path, fmt: str | None) -> None:
    trials = ph.read_trials(tau_airline_path, format=fmt)
    assert trials.source["format"] == "tau-bench"
    ds = trials.counts()
    assert ds.sizes["task"] == 50
    assert (ds["n"].values == 4).all() and int(ds["unscored"].sum()) == 0
    est = ph.estimate(trials, k=[1, 2, 3, 4]).table
    got = est[est["metric"] == "pass_hat_k"].set_index("k")["value"].round(3).to_dict()
    assert got == PUBLISHED


def test_task_fingerprints_stable_across_trials(tau_airline_path: Path) -> None:
    f = ph.read_trials(tau_airline_path).frame
    per_task = f.groupby("task_id")["scenario_hash"].nunique()
    assert (per_task == 1).all()
    assert f["scenario_hash"].nunique() == 50


def _records() -> list[dict]:
    # τ-bench EnvRunResult: {task_id, reward, info, traj, trial}
    task = {"user_id": "u1", "actions": [{"name": "get_user", "kwargs": {"id": "u1"}}]}
    return [
        {"task_id": 0, "trial": 0, "reward": 1.0, "info": {"task": task}, "traj": []},
        {"task_id": 0, "trial": 1, "reward": 0.0, "info": {"task": task}, "traj": []},
        {"task_id": 1, "trial": 0, "reward": 0.9999999, "info": {}, "traj": []},
        {"task_id": 1, "trial": 1, "reward": 0.0, "info": {"error": "APIError 500"}, "traj": []},
    ]


def test_error_records_unscored_or_failure(tmp_path: Path) -> None:
    f = tmp_path / "sonnet-retail.json"
    f.write_text(json.dumps(_records()))
    t = ph.read_trials(f)
    ds = t.counts()
    assert ds["n"].values.tolist() == [[2, 1]]
    assert ds["c"].values.tolist() == [[1, 1]]  # reward within 1e-6 of 1 is a success
    assert ds["unscored"].values.tolist() == [[0, 1]]
    assert t.systems == ["sonnet-retail"]  # τ-bench files carry no model name: file stem
    t2 = ph.read_trials(f, errors="failure", system_name="sonnet")
    assert t2.counts()["n"].values.tolist() == [[2, 2]] and t2.systems == ["sonnet"]


def test_missing_trial_numbered_in_order(tmp_path: Path) -> None:
    recs = _records()
    for r in recs:
        del r["trial"]
    f = tmp_path / "old.json"
    f.write_text(json.dumps(recs))
    assert ph.read_trials(f).frame["trial"].tolist() == [0, 1, 0, 1]


def test_not_a_tau_bench_file(tmp_path: Path) -> None:
    csv = tmp_path / "runs.csv"
    csv.write_text("task_id,success\na,1\n")
    with pytest.raises(FormatError, match=r"runs\.csv: not a τ-bench result file: line 1, col"):
        ph.read_trials(csv, format="tau-bench")
    obj = tmp_path / "obj.json"
    obj.write_text('{"simulations": []}')
    with pytest.raises(FormatError, match=r"obj\.json: not a τ-bench result file .*got dict"):
        ph.read_trials(obj, format="tau-bench")
    lst = tmp_path / "lst.json"
    lst.write_text('[{"task_id": 1, "score": 3}]')
    with pytest.raises(FormatError, match=r"record 0: not a τ-bench result \(missing reward"):
        ph.read_trials(lst, format="tau-bench")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"task_id": 1, "reward": "high", "info": {}}]')
    with pytest.raises(FormatError, match=r"record 0: reward 'high' is not a number"):
        ph.read_trials(bad, format="tau-bench")
