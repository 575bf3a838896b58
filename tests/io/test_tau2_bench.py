"""τ²-bench reader.

The files are built here from τ²-bench's own data model
(sierra-research/tau2-bench, ``src/tau2/data_model/simulation.py``: ``Results``
with ``info`` / ``tasks`` / ``simulations``; ``SimulationRun`` with ``task_id``,
``trial``, ``termination_reason``, ``reward_info.reward``; the dir layout with
``results.json`` + ``simulations/<id>.json``; ``NON_EVALUABLE_TERMINATION_REASONS``
= infrastructure_error, context_window_exceeded). Expected counts are worked
out by hand from the table below.

Traces: two simulations whose messages are written here, the divergence point
worked out by hand (arguments equal up to key order and ``1`` vs ``1.0``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import passhat as ph
from passhat.errors import FormatError

# (task_id, trial, termination_reason, reward or None for no reward_info)
SIMS = [
    ("0", 0, "user_stop", 1.0),
    ("0", 1, "user_stop", 1.0),
    ("0", 2, "agent_stop", 0.0),
    ("1", 0, "max_steps", 0.0),
    ("1", 1, "user_stop", 1.0),
    ("1", 2, "infrastructure_error", None),  # unscored, not in n
    ("2", 0, "too_many_errors", 0.0),
    ("2", 1, "context_window_exceeded", 0.0),  # τ² leaves it out of metrics: unscored
    ("2", 2, "user_stop", 0.9999995),  # within 1e-6 of 1: success (τ²'s is_successful)
]
# by hand: task 0 n=3 c=2; task 1 n=2 c=1 unscored 1; task 2 n=2 c=1 unscored 1
EXPECTED = {"0": (3, 2, 0), "1": (2, 1, 1), "2": (2, 1, 1)}

TASKS = [
    {
        "id": tid,
        "description": {"purpose": f"task {tid}"},
        "user_scenario": {"instructions": {"task_instructions": f"do thing {tid}"}},
        "evaluation_criteria": {"actions": [], "reward_basis": ["DB"]},
    }
    for tid in ("0", "1", "2")
]

INFO = {
    "git_commit": "abc1234",
    "num_trials": 3,
    "max_steps": 100,
    "max_errors": 10,
    "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1-mini", "llm_args": {}},
    "agent_info": {"implementation": "llm_agent", "llm": "claude-3-7-sonnet", "llm_args": {}},
    "environment_info": {"domain_name": "airline", "policy": "..."},
    "seed": 300,
}


def _sim(i: int, task_id: str, trial: int, reason: str, reward: float | None) -> dict:
    sim = {
        "id": f"sim-{i:03d}",
        "task_id": task_id,
        "timestamp": "2025-06-01T10:00:00",
        "start_time": "2025-06-01T10:00:00",
        "end_time": "2025-06-01T10:01:00",
        "duration": 60.0 + i,
        "termination_reason": reason,
        "agent_cost": 0.01 * (i + 1),
        "user_cost": 0.002,
        "reward_info": None
        if reward is None
        else {"reward": reward, "reward_basis": ["DB"], "info": None},
        "messages": [{"role": "assistant", "content": "hello", "turn_idx": 0}],
        "trial": trial,
        "seed": 1000 + i,
    }
    return sim


def _sims() -> list[dict]:
    return [_sim(i, *row) for i, row in enumerate(SIMS)]


@pytest.fixture
def monolithic(tmp_path: Path) -> Path:
    doc = {"timestamp": "2025-06-01T10:00:00", "info": INFO, "tasks": TASKS, "simulations": _sims()}
    path = tmp_path / "airline_claude.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    d = tmp_path / "run-2025-06-01"
    (d / "simulations").mkdir(parents=True)
    sims = _sims()
    index = [
        {
            "id": s["id"],
            "task_id": s["task_id"],
            "trial": s["trial"],
            "reward": None if s["reward_info"] is None else s["reward_info"]["reward"],
            "termination_reason": s["termination_reason"],
            "agent_cost": s["agent_cost"],
            "duration": s["duration"],
        }
        for s in sims
    ]
    meta = {"timestamp": "2025-06-01", "info": INFO, "tasks": TASKS, "simulation_index": index}
    (d / "results.json").write_text(json.dumps(meta, indent=2))
    for s in sims:
        (d / "simulations" / f"{s['id']}.json").write_text(json.dumps(s))
    return d


def _check(trials: ph.Trials) -> None:
    ds = trials.counts()
    assert trials.systems == ["claude-3-7-sonnet"]
    for task, (n, c, unscored) in EXPECTED.items():
        cell = ds.sel(system="claude-3-7-sonnet", task=task)
        assert (int(cell["n"]), int(cell["c"]), int(cell["unscored"])) == (n, c, unscored), task
    status = trials.frame.set_index(["task_id", "trial"])["status"]
    assert status[("1", 0)] == "max_steps"
    assert status[("2", 0)] == "too_many_errors"
    assert status[("0", 2)] == "ok"  # agent_stop with reward 0: decided failure
    assert status[("1", 2)] == "infrastructure_error"
    assert trials.source["user_llm"] == "gpt-4.1-mini"
    assert trials.source["domain"] == "airline"
    # task fingerprints: one per task definition, distinct
    hashes = ds["scenario_hash"].values.tolist()
    assert len(set(hashes)) == 3 and all(isinstance(h, str) for h in hashes)


def test_monolithic_sniffed_and_explicit(monolithic: Path) -> None:
    t = ph.read_trials(monolithic)
    assert t.source["format"] == "tau2-bench"
    _check(t)
    _check(ph.read_trials(monolithic, format="tau2-bench"))


def test_dir_form(run_dir: Path) -> None:
    t = ph.read_trials(run_dir)  # the directory itself, sniffed
    assert t.source["format"] == "tau2-bench"
    _check(t)
    # the dir form's results.json path works too (sibling simulations/)
    _check(ph.read_trials(run_dir / "results.json", format="tau2-bench"))


def test_dir_form_index_only(run_dir: Path) -> None:
    """Without the simulations/ folder the index (reward, termination) is enough."""
    for f in (run_dir / "simulations").iterdir():
        f.unlink()
    (run_dir / "simulations").rmdir()
    _check(ph.read_trials(run_dir / "results.json"))


def test_estimate_matches_hand_count(monolithic: Path) -> None:
    # per task pass^2 = C(c,2)/C(n,2): 1/3, 0, 0 → mean 1/9; mean = (2/3 + 1/2 + 1/2)/3
    est = ph.estimate(ph.read_trials(monolithic), k=2).wide()
    assert est["pass_hat_k"].iloc[0] == pytest.approx(1 / 9)
    assert est["mean"].iloc[0] == pytest.approx((2 / 3 + 0.5 + 0.5) / 3)


def test_system_name_fallbacks(tmp_path: Path) -> None:
    sims = _sims()
    doc = {
        "info": {"agent_info": {"implementation": "llm_agent"}},
        "tasks": [],
        "simulations": sims,
    }
    f = tmp_path / "r.json"
    f.write_text(json.dumps(doc))
    assert ph.read_trials(f).systems == ["llm_agent"]
    assert ph.read_trials(f, system_name="mine").systems == ["mine"]
    doc = {"tasks": [], "simulations": sims}
    f.write_text(json.dumps(doc))
    t = ph.read_trials(f, format="tau2-bench")
    assert t.systems == ["r"] and t.source["system_from"] == "file name"


def test_missing_trial_numbers_in_order(tmp_path: Path) -> None:
    sims = _sims()
    for s in sims:
        s["trial"] = None
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    t = ph.read_trials(f)
    assert t.frame.groupby("task_id")["trial"].apply(list).to_dict() == {
        "0": [0, 1, 2],
        "1": [0, 1, 2],
        "2": [0, 1, 2],
    }


def test_not_tau2(tmp_path: Path) -> None:
    f = tmp_path / "x.json"
    f.write_text(json.dumps({"foo": 1, "bar": [1]}))
    with pytest.raises(FormatError, match=r"x\.json: not a τ²-bench results file.*foo, bar"):
        ph.read_trials(f, format="tau2-bench")
    f.write_text(json.dumps([{"task_id": 0, "reward": 1.0}]))
    with pytest.raises(FormatError, match="expected a JSON object with 'simulations'"):
        ph.read_trials(f, format="tau2-bench")
    csv = tmp_path / "runs.csv"
    csv.write_text("task_id,success\na,1\n")
    with pytest.raises(FormatError, match=r"not a τ²-bench results file: line 1, column 1"):
        ph.read_trials(csv, format="tau2-bench")
    bad = _sims()
    del bad[4]["termination_reason"]
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": bad}))
    with pytest.raises(FormatError, match=r"simulations\[4\]: not a τ²-bench simulation"):
        ph.read_trials(f)
    empty = tmp_path / "emptydir"
    empty.mkdir()
    with pytest.raises(FormatError, match=r"no results\.json"):
        ph.read_trials(empty, format="tau2-bench")


def test_duplicate_trial_is_an_error(tmp_path: Path) -> None:
    sims = _sims()
    sims[1]["trial"] = 0
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    with pytest.raises(ph.errors.ValidationError, match=r"duplicate .*claude-3-7-sonnet, 0, 0"):
        ph.read_trials(f)


def test_task_written_as_number_and_as_text_is_refused(tmp_path: Path) -> None:
    # task 0 and task "0" were one task (str() of each id) while the τ-bench reader refuses them
    sims = _sims()
    sims[0]["task_id"] = int(sims[0]["task_id"])
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    with pytest.raises(ph.errors.ValidationError, match=r"task_id 0 \(a number\) and '0' \(text\)"):
        ph.read_trials(f)
    for sim in sims:  # every id a number: read as text, as before
        sim["task_id"] = int(sim["task_id"])
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    assert ph.read_trials(f).tasks == sorted({str(s["task_id"]) for s in sims}, key=str)


@pytest.mark.parametrize(("reward", "shown"), [("1.0", "'1.0'"), (True, "True")])
def test_reward_as_text_or_boolean_is_refused(tmp_path: Path, reward: Any, shown: str) -> None:
    # read as 1.0 before: a success the file never wrote as a number
    sims = _sims()
    sims[0]["reward_info"]["reward"] = reward
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    with pytest.raises(FormatError, match=rf"reward {shown} is not a number"):
        ph.read_trials(f)


def test_non_evaluable_option_and_enum_spelling(monolithic: Path) -> None:
    # only infrastructure errors unscored: context_window_exceeded becomes a decided failure
    t = ph.read_trials(monolithic, non_evaluable=("infrastructure_error",))
    cell = t.counts().sel(system="claude-3-7-sonnet", task="2")
    assert (int(cell["n"]), int(cell["c"]), int(cell["unscored"])) == (3, 1, 0)
    # str(enum) spelling as some scripts write it
    doc = json.loads(monolithic.read_text())
    for s in doc["simulations"]:
        s["termination_reason"] = "TerminationReason." + s["termination_reason"].upper()
    monolithic.write_text(json.dumps(doc))
    _check(ph.read_trials(monolithic))


# --------------------------------------------------------------- traces
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


def test_null_task_id_and_out_of_range_reward_are_refused(tmp_path: Path) -> None:
    """A simulation whose task_id is null was read as a task named 'None'; a reward of 1.5 or
    −0.5 (τ²'s lies in [0, 1]) was silently a failure. Both are FormatErrors naming the
    simulation."""
    f = tmp_path / "r.json"
    sims = _sims()
    sims[0]["task_id"] = None
    f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
    with pytest.raises(FormatError, match=r"simulations\[0\]: task_id None is not a task id"):
        ph.read_trials(f)
    for bad in (1.5, -0.5):
        sims = _sims()
        sims[0]["reward_info"]["reward"] = bad
        f.write_text(json.dumps({"info": INFO, "tasks": TASKS, "simulations": sims}))
        with pytest.raises(FormatError, match=rf"simulations\[0\] \(task '0'\): reward {bad:g}"):
            ph.read_trials(f)


def test_a_directory_with_another_tools_results_json_is_not_tau2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``promptfoo eval -o out/results.json`` then ``passhat estimate out``: the directory was
    taken for a τ²-bench run by the file name alone ("not a τ²-bench results file")."""
    import shutil

    from passhat.cli import main

    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(Path(__file__).parent / "data" / "promptfoo" / "results.json", out)
    code = main(["estimate", str(out), "--k", "1"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "τ²-bench results file" not in err and "holds results.json (promptfoo)" in err, err
    assert ph.read_trials(out / "results.json").source["format"] == "promptfoo"
