"""Trace readers: τ-bench (real file), τ²-bench, Inspect AI (a real log), JSONL step logs.

Oracles: the real τ-bench airline file's own messages (counted independently
with the json module here); outcomes must equal the trial readers' (the ones
``passhat estimate`` uses); an Inspect ``.eval`` log written in this test by
``inspect_ai.eval`` with a solver that appends tool calls itself (no model
call, no network).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import passhat as ph
from passhat.errors import FormatError, OptionError, ValidationError
from passhat.io.traces import load_stages


# --------------------------------------------------------------- τ-bench
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


# --------------------------------------------------------------- τ²-bench
def test_tau2_messages(tmp_path: Path) -> None:
    def sim(i: int, trial: int, reward: float, calls: list[tuple[str, dict[str, Any]]]) -> dict:
        msgs: list[dict[str, Any]] = [{"role": "user", "content": "hello"}]
        for j, (name, args) in enumerate(calls):
            cid = f"{i}-{j}"
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": cid, "name": name, "arguments": args, "requestor": "assistant"}
                    ],
                }
            )
            msgs.append(
                {
                    "role": "tool",
                    "id": cid,
                    "content": "out",
                    "requestor": "assistant",
                    "error": name == "bad",
                }
            )
        # a tool call made by the simulated user is not an agent step
        msgs.append(
            {
                "role": "user",
                "tool_calls": [{"id": "u", "name": "toggle", "arguments": {}, "requestor": "user"}],
            }
        )
        return {
            "id": f"s{i}",
            "task_id": "7",
            "trial": trial,
            "termination_reason": "user_stop",
            "reward_info": {"reward": reward},
            "messages": msgs,
        }

    doc = {
        "info": {"agent_info": {"llm": "gpt-x"}},
        "tasks": [{"id": "7"}],
        "simulations": [
            sim(0, 0, 1.0, [("get_order", {"b": 1, "a": 2}), ("refund", {"id": 3})]),
            sim(1, 1, 0.0, [("get_order", {"a": 2, "b": 1.0}), ("bad", {})]),
        ],
    }
    f = tmp_path / "results.json"
    f.write_text(json.dumps(doc))
    tr = ph.read_traces(f)  # sniffed
    assert tr.source["format"] == "tau2-bench"
    assert tr.steps["action"].tolist() == ["get_order", "refund", "get_order", "bad"]
    assert tr.steps["status"].tolist() == ["ok", "ok", "ok", "error"]
    assert tr.trials["termination"].tolist() == ["user_stop", "user_stop"]
    assert set(tr.trials["system"]) == {"gpt-x"}
    d = ph.divergence(tr)
    # args {"b": 1, "a": 2} and {"a": 2, "b": 1.0} are the same call: diverges at step 2
    assert d.table[["step", "kind", "failing_action"]].values.tolist() == [
        [2, "substitutes", "bad"]
    ]


# --------------------------------------------------------------- JSONL step log
def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_steps_jsonl_with_success_field(tmp_path: Path) -> None:
    rows = [
        {"task_id": "a", "trial": 0, "step": 1, "action": "get_x", "args": {"q": 1}, "success": 1},
        {"task_id": "a", "trial": 0, "step": 2, "action": "check", "success": 1},
        {"task_id": "a", "trial": 0, "step": 3, "action": "pay", "status": "ok", "success": 1},
        {
            "task_id": "a",
            "trial": 1,
            "step": 1,
            "action": "get_x",
            "args": '{"q": 1.0}',
            "success": 0,
        },
        {
            "task_id": "a",
            "trial": 1,
            "step": 2,
            "action": "pay",
            "observation": "paid",
            "success": 0,
        },
        {"task_id": "a", "trial": 2, "action": None, "success": 0},  # no tool call
    ]
    tr = ph.read_traces(_jsonl(tmp_path / "s.jsonl", rows))
    assert tr.source["format"] == "steps-jsonl" and tr.source["trials_without_tool_calls"] == 1
    assert tr.trials["n_steps"].tolist() == [3, 2, 0]
    d = ph.divergence(tr)
    assert d.table[["trial", "step", "kind", "marker"]].values.tolist() == [
        [1, 2, "skips", "check"],
        [2, 1, "stops", "get_x"],
    ]


def test_steps_jsonl_with_outcomes_file(tmp_path: Path) -> None:
    rows = [
        {"task_id": "a", "trial": 0, "step": 0, "action": "x"},
        {"task_id": "a", "trial": 1, "step": 0, "action": "y"},
    ]
    steps = _jsonl(tmp_path / "steps.jsonl", rows)
    outcomes = tmp_path / "runs.csv"
    outcomes.write_text("task_id,trial,success\na,0,1\na,1,0\n")
    tr = ph.read_traces(steps, format="steps-jsonl", outcomes=outcomes)
    assert tr.trials["success"].tolist() == [True, False]
    assert ph.divergence(tr).table["step"].tolist() == [1]
    with pytest.raises(FormatError, match="no outcomes"):
        ph.read_traces(steps, format="steps-jsonl")
    with pytest.raises(OptionError, match="only for steps-jsonl"):
        ph.read_traces(steps, format="tau-bench", outcomes=outcomes)
    # a step whose trial has no outcome is an error, not dropped
    _jsonl(steps, [*rows, {"task_id": "b", "trial": 0, "step": 0, "action": "z"}])
    with pytest.raises(ValidationError, match=r"trial \(system, b, 0\) have no outcome"):
        ph.read_traces(steps, format="steps-jsonl", outcomes=outcomes)


def test_steps_jsonl_bad_input(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text('{"task_id": "a", "trial": 0, "action": "x", "success": 1}\n{oops\n')
    with pytest.raises(FormatError, match="line 2: not valid JSON"):
        ph.read_traces(f, format="steps-jsonl")
    _jsonl(
        f,
        [
            {"task_id": "a", "trial": 0, "action": "x", "success": 1},
            {"task_id": "a", "trial": 0, "action": "y", "success": 0},
        ],
    )
    with pytest.raises(FormatError, match="rows disagree on success"):
        ph.read_traces(f, format="steps-jsonl")
    _jsonl(f, [{"task_id": "a", "action": "x", "success": 1}])
    with pytest.raises(FormatError, match="line 1: a step row needs trial"):
        ph.read_traces(f, format="steps-jsonl")
    e = tmp_path / "empty.jsonl"
    e.write_text("")
    with pytest.raises(FormatError, match="empty"):
        ph.read_traces(e)
    with pytest.raises(OptionError, match="unknown trace format"):
        ph.read_traces(f, format="nope")


def test_load_stages(tmp_path: Path) -> None:
    f = tmp_path / "stages.toml"
    f.write_text('[stages]\nget_user_details = "lookup"\ncancel_reservation = "write"\n')
    assert load_stages(f) == {"get_user_details": "lookup", "cancel_reservation": "write"}
    f.write_text("[other]\nx = 1\n")
    with pytest.raises(FormatError, match=r"needs a \[stages\] table"):
        load_stages(f)
    f.write_text("[stages\n")
    with pytest.raises(FormatError, match="not valid TOML"):
        load_stages(f)


# --------------------------------------------------------------- Inspect AI
inspect_ai = pytest.importorskip("inspect_ai")

# per sample: the tool calls of epochs 1..3 and whether the epoch is correct
PLAN = {
    "s1": [
        (["lookup", "check", "pay"], "C"),
        (["lookup", "pay"], "I"),
        (["lookup", "check", "pay"], "C"),
    ],
}


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver
    from inspect_ai.tool import ToolCall, ToolCallError

    tmp = tmp_path_factory.mktemp("inspect_traces")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INSPECT_LOG_DIR", str(tmp / "logs"))
        mp.setenv("INSPECT_DISPLAY", "none")

        @solver
        def scripted():  # type: ignore[no-untyped-def]
            async def solve(state, generate):  # type: ignore[no-untyped-def]
                calls, letter = PLAN[str(state.sample_id)][state.epoch - 1]
                for j, name in enumerate(calls):
                    cid = f"c{j}"
                    state.messages.append(
                        ChatMessageAssistant(
                            content="",
                            tool_calls=[ToolCall(id=cid, function=name, arguments={"n": j})],
                        )
                    )
                    err = ToolCallError("permission", "denied") if name == "pay" else None
                    state.messages.append(
                        ChatMessageTool(content="done", tool_call_id=cid, function=name, error=err)
                    )
                state.output.completion = letter
                return state

            return solve

        @scorer(metrics=[accuracy()])
        def letter():  # type: ignore[no-untyped-def]
            async def score(state, target):  # type: ignore[no-untyped-def]
                return Score(value=state.output.completion)

            return score

        task = Task(
            dataset=[Sample(id=sid, input="go", target="C") for sid in PLAN],
            solver=scripted(),
            scorer=letter(),
            epochs=3,
        )
        [log] = inspect_eval(task, model="mockllm/model", display="none", log_format="eval")
    return Path(log.location)


def test_inspect_log_traces(inspect_log: Path) -> None:
    tr = ph.read_traces(inspect_log)  # sniffed from .eval
    assert tr.source["format"] == "inspect"
    s = tr.steps
    assert s.groupby("trial")["action"].apply(list).to_dict() == {
        1: ["lookup", "check", "pay"],
        2: ["lookup", "pay"],
        3: ["lookup", "check", "pay"],
    }
    assert set(s.loc[s["action"] == "pay", "status"]) == {"error"}
    assert tr.trials["success"].tolist() == [True, False, True]
    d = ph.divergence(tr, ignore_args=True)
    assert d.table[["trial", "step", "kind", "marker"]].values.tolist() == [
        [2, 2, "skips", "check"]
    ]


def test_inspect_missing_dependency(monkeypatch: pytest.MonkeyPatch, inspect_log: Path) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ph.DependencyError, match=r"passhat\[inspect\]"):
        ph.read_traces(inspect_log, format="inspect")


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
