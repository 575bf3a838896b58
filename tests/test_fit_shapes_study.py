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


def test_committed_rows_are_this_codes(study) -> None:
    """The committed table is this code's: one replicate fitted again gives its committed rows
    (every cell, both scopes, warnings and weights: the runs' rows re-read where the histogram
    fixes the value, kept where the model makes it); the re-read benchmark cells equal the real
    run's (``final_t200``, made with this benchmark rule); and where two runs hold the same
    replicate their population rows, warnings and weights agree exactly."""
    raw_path = REPORT / "replicates.csv"
    if not raw_path.exists() or not (REPORT / "final_t200" / "replicates.csv").exists():
        pytest.skip("reports/fit_shapes has no committed final table (run the study, --final)")
    raw = pd.read_csv(raw_path)
    keys = ["truth", "T", "n", "rep", "metric", "k", "scope"]
    cols = ["covered", "below", "width", "warned", "w_discrete"]
    # (1) one replicate fitted again: its committed rows (a T = 50 setting from a re-read run)
    again = pd.DataFrame(study.one_replicate(0, 50, 3, 0))
    got = again.merge(raw, on=keys, suffixes=("", "_committed"))
    assert len(got) == 2 * len(study.cells(3))
    for c in cols:
        np.testing.assert_allclose(got[c].astype(float), got[f"{c}_committed"].astype(float),
                                   atol=1e-12)  # fmt: skip
    # (2) the fit's benchmark path without the fit equals the real run's benchmark rows (that
    # run's code had this benchmark rule already where n ≥ 2k; below 2k runs the rule has
    # since taken the larger of the plug-in and the bound: reports/bench_variance; its
    # population rows were the model's)
    real = pd.read_csv(REPORT / "final_t200" / "replicates.csv")
    kk = real["k"].where(real["metric"] != "mean", 1)
    real = real[(real["rep"] < 3) & (real["scope"] == "benchmark") & (real["n"] >= 2 * kk)]
    reread = study.rebench(real)
    pd.testing.assert_frame_equal(real.reset_index(drop=True), reread.reset_index(drop=True),
                                  check_dtype=False, atol=1e-12)  # fmt: skip
    # (3) replicates held by two runs: the same population rows, warnings and weights
    old = pd.read_csv(REPORT / "rerun" / "replicates.csv")
    both = pd.read_csv(REPORT / "final_t200" / "replicates.csv").merge(
        old, on=keys, suffixes=("", "_old")
    )
    assert len(both) > 0
    pop = both[both["scope"] == "population"]
    for c in cols:
        np.testing.assert_allclose(pop[c].astype(float), pop[f"{c}_old"].astype(float))
    np.testing.assert_array_equal(both["warned"], both["warned_old"])
