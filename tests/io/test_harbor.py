"""Harbor (Terminal-Bench 2) job-directory reader.

Fixture (tests/io/data/harbor/2025-11-20__14-03-12, written by hand in the shape of Harbor's
``JobResult`` / ``TrialResult`` of ``src/harbor/models/job/result.py`` and
``models/trial/result.py``, trial directories ``<task[:32]>__<id>`` with ``result.json``,
``config.json``, ``verifier/reward.txt`` as ``models/trial/paths.py`` lays them out): terminus-2
with claude-sonnet-4-5 on hello-world (rewards 1 1 1), fix-git (1, 0, and an
AgentTimeoutError whose verifier still wrote 0) and sqlite-with-gcov (0, a
RewardFileNotFoundError with no reward, 1); one trial directory never finished; the job planned
10 trials. Oracles: counts by hand, and Harbor's own ``stats.evals`` mean and ``pass_at_k``
(which count a trial without reward as 0) against passhat with ``errors="failure"``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from framework_data import cells, write_harbor

import passhat as ph
from passhat.errors import FormatError, OptionError

JOB = Path(__file__).parent / "data" / "harbor" / "2025-11-20__14-03-12"
SYSTEM = "terminus-2__claude-sonnet-4-5"


def _values(trials: ph.Trials, k: list[int]) -> dict[tuple[str, int], float]:
    frame = ph.estimate(trials, k=k).to_frame()
    return {(m, int(kk)): float(v) for m, kk, v in frame[["metric", "k", "value"]].values}


def test_a_job_counted_by_hand() -> None:
    t = ph.read_trials(JOB)
    assert t.systems == [SYSTEM]
    assert cells(t) == {
        (SYSTEM, "hello-world"): [3, 3, 0],
        (SYSTEM, "fix-git"): [3, 1, 0],
        (SYSTEM, "sqlite-with-gcov"): [2, 1, 1],
    }
    f = t.frame.set_index("trial_name")
    assert f.loc["fix-git__Kp1sD3f", "status"] == "timeout"  # AgentTimeoutError, reward 0 kept
    assert f.loc["fix-git__Kp1sD3f", "success"] == False  # noqa: E712
    assert f.loc["sqlite-with-gcov__T6yGh8j", "status"] == "RewardFileNotFoundError"
    assert "No reward file found" in f.loc["sqlite-with-gcov__T6yGh8j", "error"]
    assert f["scenario_hash"].notna().all() and (f["cost"] > 0).all()
    assert any("1 trial directory without result.json" in n for n in t.notes)


def test_trials_are_numbered_by_start_time() -> None:
    t = ph.read_trials(JOB)
    fix = t.frame[t.frame["task_id"] == "fix-git"].sort_values("trial")
    names = ["fix-git__Hn4tR9w", "fix-git__b2VcX6e", "fix-git__Kp1sD3f"]
    assert fix["trial_name"].tolist() == names


def test_harbors_own_mean_and_pass_at_k() -> None:
    """Oracle: stats.evals of the job's result.json (5/9 and pass@2 = 7/9), which count the
    reward-less trial as 0: passhat's mean and pass@2 with errors='failure'."""
    evals = json.loads((JOB / "result.json").read_text())["stats"]["evals"]
    harbor = evals[f"{SYSTEM}__terminal-bench"]
    got = _values(ph.read_trials(JOB, errors="failure"), [1, 2])
    assert got[("mean", 1)] == pytest.approx(harbor["metrics"][0]["mean"])
    assert got[("pass_at_k", 2)] == pytest.approx(harbor["pass_at_k"]["2"])
    unscored = _values(ph.read_trials(JOB), [1])  # default: the reward-less trial left out
    assert unscored[("mean", 1)] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)


def test_the_larger_job_against_harbors_numbers(tmp_path: Path) -> None:
    truth = write_harbor(tmp_path)
    t = ph.read_trials(tmp_path)  # a directory of jobs
    assert cells(t) == truth.cells
    got = _values(ph.read_trials(tmp_path, errors="failure"), [1, 2, 4, 5])
    assert got[("mean", 1)] == pytest.approx(truth.summary["mean"])
    for k, v in truth.summary["pass_at_k"].items():
        assert got[("pass_at_k", int(k))] == pytest.approx(v)
    statuses = set(t.frame["status"])
    assert statuses == {"ok", "timeout", "RewardFileNotFoundError", "CancelledError"}


def test_fractional_rewards_need_a_threshold(tmp_path: Path) -> None:
    job = tmp_path / JOB.name
    shutil.copytree(JOB, job)
    f = next(job.glob("hello-world__*/result.json"))
    doc = json.loads(f.read_text())
    doc["verifier_result"]["rewards"]["reward"] = 0.75
    f.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match=r"reward takes values other than 0 and 1 \(0\.75 in 1"):
        ph.read_trials(job)
    assert cells(ph.read_trials(job, threshold=0.5))[(SYSTEM, "hello-world")] == [3, 3, 0]
    assert cells(ph.read_trials(job, threshold=1))[(SYSTEM, "hello-world")] == [3, 2, 0]


def test_reward_json_keys_and_the_reward_file_fallback(tmp_path: Path) -> None:
    job = tmp_path / JOB.name
    shutil.copytree(JOB, job)
    trial = next(job.glob("hello-world__*"))
    doc = json.loads((trial / "result.json").read_text())
    doc["verifier_result"] = None  # result.json without the verifier's result
    (trial / "result.json").write_text(json.dumps(doc))
    (trial / "verifier" / "reward.txt").unlink()
    (trial / "verifier" / "reward.json").write_text('{"tests_passed": 0.0, "lint": 1.0}')
    with pytest.raises(OptionError, match=r"several rewards \(tests_passed, lint\).*--map reward="):
        ph.read_trials(job)
    t = ph.read_trials(job, reward="tests_passed")  # the other trials wrote only 'reward'
    assert cells(t)[(SYSTEM, "hello-world")] == [1, 0, 2]
    assert (t.frame["status"] == "reward_missing").sum() == 6  # and the timeout: a failure


def test_not_a_job(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_text('{"id": 1}')
    with pytest.raises(FormatError):
        ph.read_trials(tmp_path, format="harbor")


def test_estimate_with_no_options(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    for path in (JOB, JOB / "result.json", JOB.parent):
        assert main(["estimate", str(path), "--k", "1"]) == 0
        assert SYSTEM in capsys.readouterr().out


def test_one_trials_result_names_its_job(capsys: pytest.CaptureFixture[str]) -> None:
    from passhat.cli import main

    f = JOB / "fix-git__Kp1sD3f" / "result.json"
    with pytest.raises(FormatError, match=r"one Harbor trial's result; .*give the job directory"):
        ph.read_trials(f)
    assert main(["estimate", str(f)]) == 2
    assert str(JOB) in capsys.readouterr().err


def test_a_trial_directory_names_its_job(capsys: pytest.CaptureFixture[str]) -> None:
    """A trial directory (``<task>__<id>/``) was "a directory with no data files (.csv, ...);
    its .json files are read one at a time (τ-bench, τ²-bench results)"."""
    from passhat.cli import main

    trial = JOB / "hello-world__3f2a9c1"
    code = main(["estimate", str(trial), "--k", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert (
        f"one Harbor trial's result; passhat reads a job's trials together: give the job "
        f"directory ({JOB})" in err[0]
    )


def test_a_bad_reward_file_is_the_file_named(tmp_path: Path) -> None:
    """An infinite reward in verifier/reward.txt was reported against the trial's result.json."""
    job = tmp_path / JOB.name
    shutil.copytree(JOB, job)
    trial = job / "hello-world__3f2a9c1"
    doc = json.loads((trial / "result.json").read_text())
    doc["verifier_result"] = None
    (trial / "result.json").write_text(json.dumps(doc))
    (trial / "verifier" / "reward.txt").write_text("inf")
    with pytest.raises(FormatError, match=r"verifier/reward\.txt: reward 'reward' is inf"):
        ph.read_trials(job)
