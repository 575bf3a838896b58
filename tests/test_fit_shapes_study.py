"""The fit-shapes study (studies/fit_shapes, issue 28): the committed results, checked fast.

Oracles: the committed per-replicate rows (reports/fit_shapes/replicates.csv) summarised again
must give the committed table cell for cell; each cell's Monte-Carlo s.e. is the binomial
sqrt(c (1 − c) / R); "done" is the rule of issue 28 (coverage ≥ 0.85 or a warning in ≥ 95% of
replicates); the truths' exact moments against 400,000 draws of their own samplers.
The full run is `make study` (or the script; minutes to hours).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "fit_shapes" / "fit_shapes.py"
REPORT = ROOT / "reports" / "fit_shapes"


@pytest.fixture(scope="module")
def study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "fit_shapes_study")


def test_truths_moments_match_their_samplers(study) -> None:
    rng = np.random.default_rng(0)
    for truth in study.TRUTHS:
        p = truth.sample(rng, 400_000)
        for k in (1, 3, 5):
            for metric, g in (("pass_hat_k", p**k), ("pass_at_k", 1 - (1 - p) ** k)):
                se = g.std() / np.sqrt(len(g))
                assert truth.expected(metric, k) == pytest.approx(g.mean(), abs=5 * se + 1e-12)


def test_committed_table_is_its_replicates_summarised(study) -> None:
    table = REPORT / "coverage.csv"
    raw_path = REPORT / "replicates.csv"
    if not table.exists() or not raw_path.exists():
        pytest.skip("reports/fit_shapes has no committed results (run the study)")
    df = pd.read_csv(table)
    again = study.summarise(pd.read_csv(raw_path))
    pd.testing.assert_frame_equal(
        df.reset_index(drop=True), again.reset_index(drop=True), check_dtype=False
    )
    se = np.sqrt(df["coverage"] * (1 - df["coverage"]) / df["reps"])
    np.testing.assert_allclose(df["mc_se"], se)
    done = (df["coverage"] >= study.GOAL) | (df["warned"] >= study.WARNED)
    assert (df["done"] == done).all()
    # every design run has every cell: the mean and pass@k, pass^k for k = 2..n, both scopes
    for (_, _, n), part in df.groupby(["truth", "T", "n"]):
        assert len(part) == 2 * len(study.cells(int(n)))
    readme = (REPORT / "README.md").read_text()
    assert f"**Verdict: {int(df['done'].sum())}/{len(df)} cells done**" in readme


def test_committed_rerun_is_its_replicates_summarised(study) -> None:
    """The re-run of some settings after the fix (reports/fit_shapes/rerun): its table is its
    replicates summarised, and its report states the verdict of that table."""
    rerun = REPORT / "rerun"
    if not (rerun / "coverage.csv").exists() or not (rerun / "replicates.csv").exists():
        pytest.skip("reports/fit_shapes/rerun has no committed results (run the re-run)")
    df = pd.read_csv(rerun / "coverage.csv")
    again = study.summarise(pd.read_csv(rerun / "replicates.csv"))
    pd.testing.assert_frame_equal(
        df.reset_index(drop=True), again.reset_index(drop=True), check_dtype=False
    )
    readme = (rerun / "README.md").read_text()
    assert f"**Verdict (these settings): {int(df['done'].sum())}/{len(df)} cells done**" in readme


def test_committed_histogram_rule_table(study) -> None:
    """The histogram's rule alone (reports/fit_shapes/histogram_rule.*): every cell of the grid,
    binomial Monte-Carlo s.e., and the report's count of cells at or above the goal; one
    replicate recomputed gives the same truth-below flags as the rule's own intervals."""
    table = REPORT / "histogram_rule.csv"
    if not table.exists():
        pytest.skip("reports/fit_shapes has no committed histogram-rule table (run the study)")
    df = pd.read_csv(table)
    assert len(df) == sum(2 * len(study.cells(n)) for _, n in study.DESIGNS) * len(study.TRUTHS)
    np.testing.assert_allclose(
        df["mc_se"], np.sqrt(df["coverage"] * (1 - df["coverage"]) / df["reps"])
    )
    ok = int((df["coverage"] >= study.GOAL).sum())
    assert (
        f"**{ok}/{len(df)} cells cover ≥ {study.GOAL}**"
        in (REPORT / "histogram_rule.md").read_text()
    )
    rows = study.histogram_replicate(0, 50, 3, 0)
    assert len(rows) == 2 * len(study.cells(3))
    assert all(not (r["covered"] and r["below"]) for r in rows)
