"""A column that splits every task's runs into groups is read as the system, or refused.

Issue 12 item 1: a CSV ``model,question_id,attempt,passed`` with two models, read with
``task="question_id", success="passed"``, was reported as one system. Oracles: the
per-model numbers computed by hand from the generated table (brute force: mean of per-task
C(c,k)/C(n,k) over each model's rows); the rows of each duplicate group, found by hand.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.io._system_column import find_system_column, splits_every_task


def two_models(n_tasks: int = 20, runs: int = 10, *, seed: int = 1) -> pd.DataFrame:
    """Two models on the same questions: model-a's rows first, then model-b's (as an export)."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, p in (("model-a", 0.3), ("model-b", 0.85)):
        for q in range(n_tasks):
            pq = float(np.clip(p + rng.normal(0, 0.25), 0, 1))
            for attempt in range(runs):
                rows.append((model, f"q{q}", attempt, bool(rng.random() < pq)))
    return pd.DataFrame(rows, columns=["model", "question_id", "attempt", "passed"])


def brute_pass_hat(df: pd.DataFrame, model: str, k: int) -> float:
    part = df[df["model"] == model]
    vals = [
        comb(int(g.sum()), k) / comb(len(g), k) for _, g in part.groupby("question_id")["passed"]
    ]
    return float(np.mean(vals))


@pytest.fixture
def two_csv(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    df = two_models()
    path = tmp_path / "export.csv"
    df.to_csv(path, index=False)
    return path, df


def test_model_column_is_read_as_the_system(two_csv: tuple[Path, pd.DataFrame]) -> None:
    path, df = two_csv
    trials = ph.read_trials(path, task="question_id", success="passed")
    assert trials.systems == ["model-a", "model-b"]  # was one system "system", 20 tasks x 20 runs
    assert "from column 'model'" in repr(trials)
    assert trials.source["system_column"] == "model"
    assert any(
        "read column 'model' as the system" in n and "--map system=model" in n for n in trials.notes
    )
    est = ph.estimate(trials, k=5)
    for model in ("model-a", "model-b"):
        assert est.value("pass_hat_k", 5, system=model) == pytest.approx(
            brute_pass_hat(df, model, 5)
        )
    assert est.summary["runs"].tolist() == [200, 200]


def test_model_column_with_trial_mapped(two_csv: tuple[Path, pd.DataFrame]) -> None:
    """Mapping the attempt as the trial made duplicate (system, task, trial) rows before."""
    path, _ = two_csv
    trials = ph.read_trials(path, task="question_id", success="passed", trial="attempt")
    assert trials.systems == ["model-a", "model-b"]
    assert sorted(set(trials.frame["trial"])) == list(range(10))


@pytest.mark.parametrize("name", ["agent", "policy", "run_name", "Model Name", "checkpoint"])
def test_common_system_names(tmp_path: Path, name: str) -> None:
    df = two_models(4, 3).rename(columns={"model": name})
    path = tmp_path / "runs.jsonl"
    df.to_json(path, orient="records", lines=True)
    trials = ph.read_trials(path, task="question_id", success="passed")
    assert trials.systems == ["model-a", "model-b"]
    assert trials.source["system_column"] == name


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        (["fast", "careful"], "fast, careful"),
        ([0.0, 0.7], "0.0, 0.7"),  # a temperature: a setting that splits runs like a system
        ([7, 9], "7, 9"),  # whole numbers that do not number the runs
    ],
)
def test_other_splitting_column_is_refused(
    tmp_path: Path, values: list[object], shown: str
) -> None:
    """Any column with the splitting structure, not only a list of names."""
    df = two_models(6, 4)
    df["cfg"] = df["model"].map(dict(zip(["model-a", "model-b"], values, strict=True)))
    df = df.drop(columns="model")
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ph.ValidationError) as err:
        ph.read_trials(path, task="question_id", success="passed")
    msg = str(err.value)
    assert f"column 'cfg' splits every task's runs into 2 groups ({shown})" in msg
    assert "--map system=cfg" in msg and "--system-name NAME" in msg
    # the fixes the message names both work
    assert ph.read_trials(path, task="question_id", success="passed", system="cfg").systems == [
        str(v) for v in values
    ]
    merged = ph.read_trials(path, task="question_id", success="passed", system_name="all")
    assert merged.systems == ["all"] and len(merged) == len(df)


def test_columns_that_do_not_split_every_task_are_left_alone(tmp_path: Path) -> None:
    df = two_models(6, 4)
    one = df[df["model"] == "model-a"].drop(columns="model").reset_index(drop=True)
    one["difficulty"] = one["question_id"].map(lambda q: "hard" if q in ("q1", "q2") else "easy")
    one["run_uuid"] = [f"r{i}" for i in range(len(one))]  # a new value in every row
    one["grader"] = "gpt-judge"  # one value
    one["notes"] = np.where(np.arange(len(one)) % 5 == 0, "retry", "")  # not in every task
    path = tmp_path / "one.csv"
    one.to_csv(path, index=False)
    trials = ph.read_trials(path, task="question_id", success="passed")
    assert trials.systems == ["system"] and trials.notes == []
    # the attempt index splits every task too, but numbers its runs: a run index, not a system
    assert ph.read_trials(path, task="question_id", success="passed").counts()[
        "n"
    ].values.tolist() == [[4] * 6]


def test_a_per_run_attribute_beside_the_system_is_named_in_the_note(tmp_path: Path) -> None:
    """A multiple-choice answer varies run to run: not a second system, but said."""
    df = two_models(6, 8)
    df["answer"] = np.random.default_rng(0).choice(list("ABCD"), len(df))
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    trials = ph.read_trials(path, task="question_id", success="passed")
    assert trials.systems == ["model-a", "model-b"]
    assert "column(s) 'answer' also split the runs and are not part of it" in trials.notes[0]


def test_mapped_trial_that_tells_runs_apart_means_one_system(tmp_path: Path) -> None:
    df = two_models(6, 8)
    one = df[df["model"] == "model-a"].drop(columns="model")
    one["answer"] = np.random.default_rng(0).choice(list("ABCD"), len(one))
    path = tmp_path / "one.csv"
    one.to_csv(path, index=False)
    with pytest.raises(ph.ValidationError, match="column 'answer' splits every task's runs"):
        ph.read_trials(path, task="question_id", success="passed")
    trials = ph.read_trials(path, task="question_id", success="passed", trial="attempt")
    assert trials.systems == ["system"]


def test_two_system_names_that_do_not_nest_are_refused(tmp_path: Path) -> None:
    df = two_models(4, 4)
    df["agent"] = np.where(df["attempt"] % 2 == 0, "x", "y")
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ph.ValidationError, match=r"columns 'model', 'agent' each split every task"):
        ph.read_trials(path, task="question_id", success="passed")


def test_a_column_that_follows_the_system_is_not_a_second_system(tmp_path: Path) -> None:
    df = two_models(4, 4)
    df["provider"] = df["model"].map({"model-a": "acme", "model-b": "acme-2"})
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    assert ph.read_trials(path, task="question_id", success="passed").systems == [
        "model-a",
        "model-b",
    ]


def test_splits_every_task_rules() -> None:
    t = pd.Series(["a", "a", "a", "b", "b", "b"])
    assert splits_every_task(pd.Series(["x", "y", "x", "y", "x", "y"]), t)
    assert not splits_every_task(pd.Series(["x", "x", "x", "y", "y", "y"]), t)  # task attribute
    assert not splits_every_task(pd.Series(["x", "y", "x", "z", "w", "z"]), t)  # y, w in one task
    assert not splits_every_task(pd.Series(list("uvwxyz")), t)  # unique per row
    df = pd.DataFrame({"task_id": t, "attempt": [0, 1, 0, 1, 0, 1]})
    assert find_system_column(df, where="t") is None  # run-index name
    df["model"] = ["a", "b"] * 3
    assert find_system_column(df, where="t") == ("model", [])


def test_duplicate_message_names_the_duplicate_rows(tmp_path: Path) -> None:
    """The duplicates of (q0, attempt 0) are rows 1 and 201 (model-b's rows start at 201)."""
    path = tmp_path / "export.csv"
    two_models().to_csv(path, index=False)
    with pytest.raises(ph.ValidationError) as err:
        ph.read_trials(path, task="question_id", success="passed", trial="attempt", system_name="x")
    msg = str(err.value)
    assert "duplicate (system, task_id, trial) = (x, q0, 0) at rows 1, 201 " in msg
    assert "(400 rows in 200 duplicate group(s))" in msg
