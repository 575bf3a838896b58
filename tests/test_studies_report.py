"""The report studies (slow; `make study`): consistency gap and the τ-bench airline report.

Oracles: the seeds' printed tables (checked inside the study, which reports mismatches) and
τ-bench's published leaderboard for the gpt-4o airline file.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str) -> ModuleType:
    path = ROOT / "studies" / name / f"{name}.py"
    return load_study(path, f"study_{name}")


@pytest.mark.slow
def test_consistency_gap_study() -> None:
    study = _load("consistency_gap")
    out = ROOT / "reports" / "consistency_gap"
    res = study.run(out, seed=0, reps=200_000)
    assert res["failures"] == []
    ibm = {r["row"]: r for r in res["ibm"]}
    assert f"{ibm['GPT-4.1 baseline']['Mean@5^5 (uniform)']:.1%}" == "27.8%"
    assert round(ibm["GPT-OSS-120B baseline"]["gap (pts)"], 1) == 23.8
    assert any("cannot explain" in n for n in res["ibm_notes"])
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "all match" in text and (out / "figures" / "ibm_implied_beta.png").is_file()
    assert json.loads((out / "results.json").read_text())["failures"] == []


@pytest.mark.slow
def test_tau_bench_airline_study(tau_airline_path: Path) -> None:
    study = _load("tau_bench_airline")
    out = ROOT / "reports" / "tau_bench_airline"
    res = study.run(out, seed=0, data=tau_airline_path)
    assert res["failures"] == []
    assert res["pass_hat_k"] == {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    ids = [s["id"] for s in doc["sections"]]
    assert ids == ["summary", "data", "headline", "spread", "model", "flaky", "plan", "divergence"]
    assert next(s for s in doc["sections"] if s["id"] == "model")["status"] == "ok"


@pytest.mark.slow
def test_run_all_lists_report_studies() -> None:
    mod = load_study(ROOT / "studies" / "run_all.py", "run_all")
    found = mod.discover()
    assert {"consistency_gap", "tau_bench_airline"} <= set(found)
    assert mod.main(["consistency_gap"]) == 0
