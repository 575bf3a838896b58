"""Shared report fixtures: each report is built once per session (the model uses the grid)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import passhat as ph

MALICIOUS_TASK = "<script>alert(1)</script>"
MALICIOUS_SYSTEM = "sys<img src=x onerror=alert(2)>|`*"


def malicious_trials() -> ph.Trials:
    """Two systems, 12 tasks × 6 runs; one flaky task id and a system name are HTML/Markdown."""
    rows = []
    pattern = [6, 6, 6, 0, 0, 3, 4, 5, 6, 2, 6, 1]
    for system, shift in (("plain", 0), (MALICIOUS_SYSTEM, 1)):
        for t, c in enumerate(pattern):
            task = MALICIOUS_TASK if t == 5 else f"task_{t:02d}"
            c = min(6, c + shift) if t > 8 else c
            for trial in range(6):
                rows.append(
                    {"system": system, "task_id": task, "trial": trial, "success": trial < c}
                )
    return ph.Trials.from_frame(pd.DataFrame(rows), source={"example": "malicious"})


@pytest.fixture(scope="session")
def example_report(tmp_path_factory: pytest.TempPathFactory):
    """The bundled example without the model (fast)."""
    out = tmp_path_factory.mktemp("example_report")
    return ph.report(ph.load_example("agents"), out, k=[1, 2, 5], seed=0, model=False)


@pytest.fixture(scope="session")
def malicious_report(tmp_path_factory: pytest.TempPathFactory):
    """A small report with the grid model, on data whose strings are hostile."""
    out = tmp_path_factory.mktemp("malicious_report")
    return ph.report(malicious_trials(), out, k=[1, 2, 5], seed=0, model=True, n_boot=500)


@pytest.fixture(scope="session")
def malicious_dir(malicious_report) -> Path:
    return Path(malicious_report.paths.out_dir)
