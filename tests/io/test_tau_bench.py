"""τ-bench reader.

Oracle: τ-bench's published leaderboard for gpt-4o on airline (Yao et al.,
τ-bench, 2024; sierra-research/tau-bench README): pass^1..4 = 0.420, 0.273,
0.220, 0.200 from the real result file ``shared/data/tau-bench/gpt-4o-airline.json``
(50 tasks × 4 trials).

Traces (:func:`passhat.io.tau_bench.read_tau_bench_traces`): the same file's
own messages, counted independently with the json module here; outcomes must
equal the trial reader's (the ones ``passhat estimate`` uses).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
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


def test_status_says_how_the_run_ended(tau_airline_path: Path) -> None:
    # τ-bench ends a conversation on the user's ###STOP### or a transfer_to_human_agents call
    # (info.source); anything else stopped at the step limit. Counted here from the raw file.
    raw = json.loads(tau_airline_path.read_text())
    transfer = [r["info"].get("source") == "transfer_to_human_agents" for r in raw]
    stop = [
        r["traj"][-1]["role"] == "user" and "###STOP###" in str(r["traj"][-1]["content"])
        for r in raw
    ]
    expected = {
        "ok": sum(s and not t for s, t in zip(stop, transfer, strict=True)),
        "transfer_to_human": sum(transfer),
        "max_steps": sum(not s and not t for s, t in zip(stop, transfer, strict=True)),
    }
    assert expected == {"ok": 147, "transfer_to_human": 48, "max_steps": 5}
    t = ph.read_trials(tau_airline_path)
    assert t.frame["status"].value_counts().to_dict() == expected
    # a status is not an outcome: every run stays decided, pass^1 stays τ-bench's 0.42
    assert t.frame["success"].notna().all() and t.frame["success"].mean() == pytest.approx(0.42)
    ended = t.frame.groupby("status")["success"].agg(["size", "sum"]).to_dict("index")
    assert ended["transfer_to_human"] == {"size": 48, "sum": 35}  # a transfer can be right
    assert ended["max_steps"]["sum"] == 0
    # the same reading as the trace reader's termination
    tr = ph.read_traces(tau_airline_path, format="tau-bench").trials
    keys = ["system", "task_id", "trial"]
    m = tr[[*keys, "termination"]].merge(t.frame[[*keys, "status"]], on=keys)
    assert len(m) == 200
    assert (m["status"] == m["termination"].replace({"user_stop": "ok"})).all()
    sl = ph.slices(t, by=["status"]).tables["status"].set_index("status")
    assert sl.loc["max_steps", "failures"] == 5 and sl.loc["ok", "runs"] == 147


def test_status_without_trajectory(tmp_path: Path) -> None:
    traj_stop = [{"role": "user", "content": "thanks ###STOP###"}]
    traj_limit = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "..."}]
    recs = [
        {"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": traj_stop},
        {"task_id": 0, "trial": 1, "reward": 0.0, "info": {}, "traj": traj_limit},
        {"task_id": 0, "trial": 2, "reward": 0.0, "info": {}},  # no traj: cannot tell
        {"task_id": 0, "trial": 3, "reward": 0.0, "info": {"source": "transfer_to_human_agents"}},
        {"task_id": 0, "trial": 4, "reward": 0.0, "info": {"error": "boom"}, "traj": traj_limit},
    ]
    f = tmp_path / "run.json"
    f.write_text(json.dumps(recs))
    got = ph.read_trials(f, format="tau-bench").frame["status"].tolist()
    assert got == ["ok", "max_steps", "ok", "transfer_to_human", "infrastructure_error"]


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
    # reward "1.0" (text) and true (a boolean) were read as 1.0: successes nobody wrote as a number
    for reward, shown in (('"1.0"', "'1.0'"), ("true", "True")):
        bad.write_text(f'[{{"task_id": 1, "reward": {reward}, "info": {{}}}}]')
        with pytest.raises(FormatError, match=rf"record 0: reward {shown} is not a number"):
            ph.read_trials(bad, format="tau-bench")


# --------------------------------------------------------------- traces
def test_tau_bench_real_file(tau_airline_path: Path) -> None:
    tr = ph.read_traces(tau_airline_path)  # sniffed
    assert tr.source["format"] == "tau-bench"
    raw = json.loads(tau_airline_path.read_text())
    n_calls = sum(len(m.get("tool_calls") or []) for r in raw for m in r["traj"])
    assert len(tr.steps) == n_calls == 1164
    assert len(tr.trials) == 200 and len(tr.excluded) == 0
    no_calls = sum(not any(m.get("tool_calls") for m in r["traj"]) for r in raw)
    assert tr.source["trials_without_tool_calls"] == no_calls == 18
    # outcomes are the trial reader's: pass^1 = 0.42 (τ-bench's leaderboard)
    t = ph.read_trials(tau_airline_path, format="tau-bench")
    merged = tr.trials.merge(t.frame, on=["system", "task_id", "trial"], suffixes=("", "_t"))
    assert (merged["success"] == merged["success_t"]).all()
    assert tr.trials["success"].mean() == pytest.approx(0.42)
    assert (merged["scenario_hash"] == merged["scenario_hash_t"]).all()
    # task 0 trial 0: first call is get_user_details(mia_li_3668), its observation the profile
    first = tr.steps[(tr.steps["task_id"] == "0") & (tr.steps["trial"] == 0)].iloc[0]
    assert first["action"] == "get_user_details"
    assert first["args"] == '{"user_id":"mia_li_3668"}'
    assert '"first_name": "Mia"' in first["observation"]
    # tool errors are steps with status "error"
    errors = tr.steps[tr.steps["status"] == "error"]
    assert len(errors) > 0 and errors["observation"].str.startswith("Error").all()
    # terminations: 48 transfers (info.source), the rest user stops or the step limit
    term = tr.trials["termination"].value_counts().to_dict()
    assert term["transfer_to_human"] == 48
    assert term["user_stop"] + term["max_steps"] == 152


def _tau_file(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    f = tmp_path / "tau.json"
    f.write_text(json.dumps(records))
    return f


def _call(cid: str, name: str, args: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


def test_tau_bench_empty_and_toolless_trajectories(tmp_path: Path) -> None:
    task = {"user_id": "u", "actions": [], "instruction": "x"}
    recs = [
        {
            "task_id": 1,
            "trial": 0,
            "reward": 1.0,
            "info": {"task": task, "source": "user"},
            "traj": [
                {"role": "user", "content": "hi"},
                _call("c1", "get_user_details", '{"user_id": "u"}'),
                {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": "{}"},
                {"role": "user", "content": "bye ###STOP###"},
            ],
        },
        {
            "task_id": 1,
            "trial": 1,
            "reward": 0.0,
            "info": {"task": task, "source": "user"},
            "traj": [{"role": "user", "content": "hi"}, {"role": "user", "content": "###STOP###"}],
        },
        {"task_id": 1, "trial": 2, "reward": 0.0, "info": {"task": task}, "traj": []},
    ]
    tr = ph.read_traces(_tau_file(tmp_path, recs), format="tau-bench")
    assert tr.excluded[["trial", "reason"]].values.tolist() == [
        [2, "empty trajectory (no messages)"]
    ]
    assert tr.source["excluded_trials"] == 1 and tr.source["trials_without_tool_calls"] == 1
    assert tr.trials["n_steps"].tolist() == [1, 0]
    assert tr.trials["termination"].tolist() == ["user_stop", "user_stop"]
    d = ph.divergence(tr)
    assert d.counts["excluded_trials"] == 1
    assert d.table[["trial", "step", "kind"]].values.tolist() == [[1, 1, "stops"]]


def test_tau_bench_traces_every_trajectory_empty_says_so(tmp_path: Path) -> None:
    """One record with an empty traj was refused as "no trials" although the file has one
    trial (oracle: the file by hand; its outcomes still read)."""
    recs = [{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": []}]
    path = _tau_file(tmp_path, recs)
    with pytest.raises(FormatError, match=r"every one of the 1 record\(s\) has an empty traj"):
        ph.read_traces(path, format="tau-bench")
    assert ph.read(path, format="tau-bench").counts()["n"].values.tolist() == [[1]]


def test_tau_bench_bad_tool_call(tmp_path: Path) -> None:
    recs = [
        {
            "task_id": 1,
            "trial": 0,
            "reward": 1.0,
            "info": {},
            "traj": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {}}]}],
        }
    ]
    with pytest.raises(
        FormatError, match=r"record 0: traj\[0\]: a tool call without function.name"
    ):
        ph.read_traces(_tau_file(tmp_path, recs), format="tau-bench")
    with pytest.raises(FormatError, match="not a τ-bench result file"):
        ph.read_traces(_tau_file(tmp_path, {"a": 1}), format="tau-bench")  # type: ignore[arg-type]


def test_tau_bench_steps_frame_columns(tau_airline_path: Path) -> None:
    tr = ph.read_traces(tau_airline_path, format="tau-bench")
    assert list(tr.steps.columns[:8]) == [
        "system",
        "task_id",
        "trial",
        "step",
        "action",
        "args",
        "observation",
        "status",
    ]
    assert isinstance(tr.trials, pd.DataFrame) and "scenario_hash" in tr.trials.columns


def test_a_reward_outside_zero_one_is_refused(tmp_path: Path) -> None:
    """τ-bench rewards lie in [0, 1] and success is a reward of 1 (within 1e-6). A reward of
    1.5 or −0.5 was silently a failure; it is a FormatError naming the record. The 1e-6
    tolerance holds at both ends, and an error record (unscored) is not judged by its reward."""
    f = tmp_path / "r.json"
    for bad in (1.5, -0.5):
        recs = _records()
        recs[1]["reward"] = bad
        f.write_text(json.dumps(recs))
        with pytest.raises(FormatError, match=rf"record 1: reward {bad:g} is outside \[0, 1\]"):
            ph.read_trials(f)
    recs = _records()
    recs[0]["reward"], recs[1]["reward"], recs[3]["reward"] = 1.0000005, -1e-7, -1.0
    f.write_text(json.dumps(recs))
    assert ph.read_trials(f).counts()["c"].values.tolist() == [[1, 1]]
