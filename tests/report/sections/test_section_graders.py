"""passhat.report.sections.graders: the grader-correction section is the grader correction.

Oracle: ``passhat estimate … --grader-audit … --json`` (``passhat.correct_grader``) on the same
data with the same k, level, resamples and seed, and with the same weights and clusters;
absent without a grader's error.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from report_testdata import EXTRAS_CSV, MALICIOUS_TASK, malicious_trials, results_of

import passhat as ph
from passhat import schemas
from passhat.cli import main
from passhat.errors import OptionError
from passhat.report.assemble import assemble_report
from passhat.report.sections.graders import grader_section

AUDIT = (95, 5, 90, 10)


def _by_key(rows: list[dict]) -> dict:
    return {(r["system"], r["metric"], r["k"]): r for r in rows}


def test_rows_are_the_correction_on_the_same_tasks() -> None:
    data = malicious_trials()
    res = results_of(data, k=[1, 2, 5], grader={"audit": AUDIT})
    sec = grader_section(res)
    assert sec is not None and sec.tables[0].id == "grader_correction"
    want = ph.correct_grader(data, audit=AUDIT, k=[1, 2, 5], ci=0.95, n_boot=200, seed=0)
    rows = _by_key(sec.tables[0].rows)
    t = want.table
    for r in t.to_dict(orient="records"):
        label = {"mean": "mean", "pass_at_k": "pass@k", "pass_hat_k": "pass^k"}[r["metric"]]
        k = None if r["metric"] == "mean" else int(r["k"])
        if k == 1:
            continue  # at k = 1 pass@k and pass^k equal the mean: not shown
        got = rows[(r["system"], label, k)]
        assert got["value"] == r["value"] and got["observed"] == r["observed"]
        assert got[f"{r['scope']}_lower"] == r["lower"]
        assert got[f"{r['scope']}_upper"] == r["upper"]
    rates = sec.tables[1].rows
    assert rates[0]["counts"] == "TP 95, FN 5" and rates[1]["value"] == 0.9
    assert "sensitivity" in assemble_report(res).stamp["settings"]["grader"]


def test_weights_and_clusters_follow_the_headline() -> None:
    """The extras fixture has a cluster column: the population scope resamples its clusters."""
    data = ph.read(EXTRAS_CSV)
    res = results_of(data, k=[1, 2], weights="category", grader={"sensitivity": 0.9,
                     "specificity": 0.85}, scores=False, by=False, cost=False)  # fmt: skip
    want = ph.correct_grader(data, sensitivity=0.9, specificity=0.85, k=[1, 2], ci=0.95,
                             n_boot=200, seed=0, weights="category")  # fmt: skip
    assert want.clusters and res.grader is not None and res.grader.clusters == want.clusters
    np.testing.assert_array_equal(res.grader.table["upper"], want.table["upper"])
    sec = grader_section(res)
    assert "cluster bootstrap" in sec.tables[0].note
    text = " ".join(sec.sentences)
    assert "task weights category" in text and "stated values are taken as exact" in text
    assert sec.tables[1].rows[0]["interval_lower"] is None  # stated: no interval


def test_absent_without_a_grader_and_bad_options_refused() -> None:
    data = malicious_trials()
    assert grader_section(results_of(data, k=[1, 2])) is None
    with pytest.raises(OptionError, match="unknown key 'recall'"):
        results_of(data, k=[1, 2], grader={"recall": 0.9})
    with pytest.raises(OptionError, match="needs"):
        results_of(data, k=[1, 2], grader={"sensitivity": 0.9})


def test_cli_report_section_escaped_and_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.csv"
    malicious_trials().frame.to_csv(runs, index=False)
    out = tmp_path / "rep"
    rc = main(["report", str(runs), "-o", str(out), "--no-model", "--no-plan", "--k", "1,2",
               "--n-boot", "200", "--grader-audit", "95,5,90,10", "--json"])  # fmt: skip
    capsys.readouterr()
    assert rc == 0
    doc = json.loads((out / "results.json").read_text())
    schemas.validate(doc)
    sec = next(s for s in doc["sections"] if s["id"] == "grader")
    outside = next(t for t in sec["tables"] if t["id"] == "grader_outside")
    assert outside["rows"] and all(
        r["corrected_rate"] < 0 or r["corrected_rate"] > 1 for r in outside["rows"]
    )
    want = ph.correct_grader(malicious_trials(), audit=AUDIT, k=[1, 2])
    assert sum(r["tasks"] for r in outside["rows"]) == want.outside_tasks()
    assert doc["stamp"]["settings"]["grader"]["audit"] == {"tp": 95, "fn": 5, "tn": 90, "fp": 10}
    html = (out / "index.html").read_text()
    assert "Grader correction" in html and MALICIOUS_TASK not in html
    assert "## Grader correction" in (out / "report.md").read_text()
    rc = main(["report", "--example", "abcd", "-o", str(tmp_path / "bad"), "--no-model",
               "--grader-audit", "1,2"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--grader-audit" in err[0]
    assert not (tmp_path / "bad" / "index.html").exists()


def test_truth_column_audit_counts_the_reported_tasks_only() -> None:
    """--min-runs leaves task t0 out of the report's averages: its audited runs are left out
    of the audit too, and the section says how many and why. Oracle: the audit counts by hand
    from the audited runs of the other tasks."""
    import pandas as pd

    from passhat.graders.spec import audit_from_labels

    rng = np.random.default_rng(8)
    rows = []
    for t in range(30):
        for r in range(2 if t == 0 else 4):
            g = bool(rng.random() < 0.6)
            truth = (
                (not g if t == 0 else g if rng.random() < 0.9 else not g)
                if r == 0 or t == 0
                else None
            )
            rows.append({"task_id": f"t{t}", "trial": r, "success": g, "true_success": truth})
    frame = pd.DataFrame(rows)
    data = ph.Trials.from_frame(frame)
    res = results_of(data, k=[1, 2], min_runs=3, on_short="exclude",
                     grader={"truth": "true_success"})  # fmt: skip
    assert "t0" in set(res.estimate.excluded["task"])
    kept = frame[frame["true_success"].notna() & (frame["task_id"] != "t0")]
    want = audit_from_labels(kept["success"].to_numpy(bool), kept["true_success"].to_numpy(bool))
    assert res.grader.grader.audit == want
    sent = grader_section(res).sentences
    assert "Audit: 29 run(s) with a true label in column 'true_success'." in sent
    assert any(s.startswith("2 audited run(s) of tasks the estimate leaves out") for s in sent)
