"""Fixtures of the Action's tests: runs files cut from the bundled ``agents`` example (two
simulated systems on the same 168 tasks)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from action_testdata import HOSTILE

from passhat.examples import example_path


@pytest.fixture(scope="session")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``base.csv`` and ``cand.csv`` (168 tasks x 5 runs each), ``small.csv`` (3 tasks of the
    candidate that flip: too few runs for the gate to decide) and ``hostile.csv`` (the
    candidate renamed :data:`~action_testdata.HOSTILE`)."""
    d = tmp_path_factory.mktemp("action_runs")
    df = pd.read_csv(example_path("agents"))
    df[df["system"] == "baseline"].to_csv(d / "base.csv", index=False)
    cand = df[df["system"] == "guided"]
    cand.to_csv(d / "cand.csv", index=False)
    rate = cand.groupby("task_id")["success"].mean()
    small_tasks = sorted(rate[(rate > 0) & (rate < 1)].index)[:3]  # tasks that flip
    cand[cand["task_id"].isin(small_tasks)].to_csv(d / "small.csv", index=False)
    cand.assign(system=HOSTILE).to_csv(d / "hostile.csv", index=False)
    return d
