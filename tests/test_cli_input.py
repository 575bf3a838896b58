"""The CLI on bad input: exit status 2 and exactly one line on stderr, naming the
file / row / task and the rule broken — never a traceback. Plus the good paths
of each reader through ``passhat estimate``.

Oracle for the τ-bench run: τ-bench's published gpt-4o airline pass^1..4
(0.420, 0.273, 0.220, 0.200).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passhat.cli import main


def _bad(capsys: pytest.CaptureFixture[str], args: list[str], pattern: str) -> str:
    rc = main(args)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("passhat: error: ")
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def _file(tmp_path: Path, name: str, text: str) -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


# (file name, content, extra args, expected message pattern)
CASES = [
    ("empty.csv", "", [], r"empty\.csv: the file is empty"),
    ("blank.csv", "\n  \n", [], r"blank\.csv: the file is empty"),
    ("runs.csv", "task_id,success\na,1\n", ["--format", "xlsx"], r"unknown format 'xlsx'"),
    ("notes.txt", "just some text\nmore\n", [], r"notes\.txt: cannot tell the format"),
    ("r.csv", "task_id,result\na,1\n", [], r"r\.csv: required column 'success' is missing"),
    (
        "r.csv",
        "task_id,success\na,yes\nb,maybe\nc,sometimes\n",
        [],
        r"r\.csv: row 2: success values must be boolean-like .*saw 'maybe', 'sometimes'",
    ),
    ("c.csv", "task_id,n,c\na,3,4\n", [], r"c\.csv: task 'a' .*c = 4 successes exceeds n = 3"),
    ("c.csv", "task_id,n,c\na,3,1\nb,-2,0\n", [], r"c\.csv: task 'b' .*n = -2 is negative"),
    ("c.csv", "task_id,n,c\na,3.5,1\n", [], r"c\.csv: row 1 \(task 'a'\): n = '3.5' is not a"),
    ("c.csv", "task_id,n,c\na,3,1\na,3,2\n", [], r"c\.csv: rows 1, 2: task 'a' .*more than once"),
    (
        "d.csv",
        "task_id,trial,success\na,0,1\na,0,0\n",
        [],
        r"d\.csv: duplicate \(system, task_id, trial\) = \(system, a, 0\) at rows 1, 2",
    ),
    ("j.json", '[\n {"task_id": 1,\n  "reward": ]', [], r"j\.json: line 3, column 13"),
    (
        "j.jsonl",
        '{"task_id": "a", "success": 1}\n{"task_id": \n',
        [],
        r"j\.jsonl: line 2: not valid",
    ),
    (
        "r.csv",
        "task_id,success\na,1\n",
        ["--format", "tau-bench"],
        r"r\.csv: not a τ-bench result file: line 1, column 1",
    ),
    (
        "o.json",
        '{"simulations": [{"task_id": 1}]}',
        ["--format", "tau-bench"],
        r"o\.json: not a τ-bench result file \(expected a JSON list",
    ),
    (
        "r.csv",
        "task_id,success\na,1\n",
        ["--format", "tau2-bench"],
        r"r\.csv: not a τ²-bench results file",
    ),
    (
        "l.json",
        '[{"task_id": 0, "reward": 1.0}]',
        ["--format", "tau2-bench"],
        r"l\.json: not a τ²-bench results file \(expected a JSON object",
    ),
    ("r.csv", "task_id,success\na,1\n", ["--format", "inspect"], r"r\.csv: not an Inspect AI log"),
    (
        "s.csv",
        "task_id,score\na,0.9\nb,n/a!\n",
        ["--threshold", "0.5"],
        r"s\.csv: row 2: score 'n/a!' is not a number \(threshold=0\.5",
    ),
    ("s.csv", "task_id,score\na,0.9\n", [], r"s\.csv: no success column.*--threshold"),
    ("m.csv", "q,ok\na,1\n", ["--map", "task=question"], r"column 'question' \(given for task\)"),
    ("m.csv", "q,ok\na,1\n", ["--map", "task"], r"--map 'task': write FIELD=COLUMN"),
]


@pytest.mark.parametrize(("name", "text", "extra", "pattern"), CASES)
def test_bad_input_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    extra: list[str],
    pattern: str,
) -> None:
    _bad(capsys, ["estimate", _file(tmp_path, name, text), *extra], pattern)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _bad(capsys, ["estimate", str(tmp_path / "nope.csv")], r"nope\.csv: no such file")


def _short(tmp_path: Path) -> str:
    rows = ["task_id,trial,success"]
    for task, n in (("a", 5), ("b", 5), ("c", 4), ("d", 4)):
        rows += [f"{task},{i},{int(i % 2 == 0)}" for i in range(n)]
    return _file(tmp_path, "short.csv", "\n".join(rows) + "\n")


def test_k_larger_than_n_names_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _bad(
        capsys,
        ["estimate", _short(tmp_path), "--k", "5"],
        r"k = 5 exceeds the decided runs of 2 task\(s\): c \(n=4\), d \(n=4\)",
    )


def test_min_runs_reports_excluded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _short(tmp_path)
    assert main(["estimate", path, "--k", "5", "--min-runs", "5"]) == 0
    out, _ = capsys.readouterr()
    assert "excluded 2 task(s): n = 4 decided runs < min_runs = 5" in out
    assert main(["estimate", path, "--k", "5", "--min-runs", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(e["task"] for e in doc["excluded"]) == ["c", "d"]
    assert doc["summary"][0]["excluded_tasks"] == 2


def test_k_below_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _bad(capsys, ["estimate", _short(tmp_path), "--k", "0"], r"--k: k must be ≥ 1 \(got 0\)")


def test_tau_bench_json_output(tau_airline_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", str(tau_airline_path), "--format", "tau-bench", "--k", "1,2,3,4", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["input"]["format"] == "tau-bench"
    hat = {e["k"]: round(e["value"], 3) for e in doc["estimates"] if e["metric"] == "pass_hat_k"}
    assert hat == {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


def test_tau2_dir_through_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    (run / "simulations").mkdir(parents=True)
    info = {"agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"}}
    (run / "results.json").write_text(json.dumps({"info": info, "tasks": [{"id": "0"}]}))
    for i, (reason, reward) in enumerate(
        [("user_stop", 1.0), ("user_stop", 0.0), ("infrastructure_error", None)]
    ):
        sim = {
            "id": f"s{i}",
            "task_id": "0",
            "trial": i,
            "termination_reason": reason,
            "reward_info": None if reward is None else {"reward": reward},
        }
        (run / "simulations" / f"s{i}.json").write_text(json.dumps(sim))
    assert main(["estimate", str(run), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"][0]["system"] == "gpt-4.1"
    assert (doc["summary"][0]["runs"], doc["summary"][0]["unscored"]) == (2, 1)
