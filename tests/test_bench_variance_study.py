"""The paired study of the benchmark variance below 2k runs (studies/bench_variance, issue 28).

Oracles: the committed per-replicate rows summarised again give the committed tables cell for
cell (binomial s.e. sqrt(c (1 − c) / R), the paired difference's s.e. from its replicates);
its `old` column for estimate equals the committed coverage study's benchmark cells (the same
replicates and seeds); its `max` column for fit equals fit_shapes' benchmark_rule.csv (made by
fit's own code with the rule it now uses); the README states the counts of those tables.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "reports" / "bench_variance"
KEYS = ["truth", "T", "n", "metric", "k"]


@pytest.fixture(scope="module")
def study():  # type: ignore[no-untyped-def]
    return load_study(ROOT / "studies" / "bench_variance" / "bench_variance.py", "bench_variance")


@pytest.mark.parametrize("part", ["fit_shapes", "coverage", "population"])
def test_tables_are_their_replicates_summarised(study, part: str) -> None:
    raw_path, table = REPORT / f"{part}_replicates.csv.gz", REPORT / f"{part}_paired.csv"
    if not raw_path.exists() or not table.exists():
        pytest.skip(f"reports/bench_variance has no committed {part} run")
    again = study.summarise(pd.read_csv(raw_path), KEYS)
    df = pd.read_csv(table)
    pd.testing.assert_frame_equal(
        df.reset_index(drop=True), again.reset_index(drop=True), check_dtype=False, atol=1e-12
    )
    for rule in [c[4:] for c in df.columns if c.startswith("cov_")]:
        m = df["reps"] * (1 - df[f"fallback_{rule}"])
        np.testing.assert_allclose(
            df[f"se_{rule}"], np.sqrt(df[f"cov_{rule}"] * (1 - df[f"cov_{rule}"]) / m)
        )


def test_old_rules_are_the_committed_studies() -> None:
    cov = REPORT / "coverage_paired.csv"
    fit = REPORT / "fit_shapes_paired.csv"
    if not cov.exists() or not fit.exists():
        pytest.skip("reports/bench_variance has no committed run")
    c = pd.read_csv(cov).astype({"n": str})
    ref = pd.read_csv(ROOT / "reports" / "coverage" / "coverage.csv").astype({"n": str})
    ref = ref[ref["scope"] == "benchmark"]
    both = c.merge(ref, on=KEYS)
    assert len(both) == len(c)
    np.testing.assert_allclose(both["cov_old"], both["coverage"], atol=1e-12)
    f = pd.read_csv(fit)
    bench = pd.read_csv(ROOT / "reports" / "fit_shapes" / "benchmark_rule.csv")
    both = f.merge(bench, on=KEYS)
    assert len(both) == len(f)
    np.testing.assert_allclose(both["cov_max"], both["coverage"], atol=1e-12)


def test_readme_states_the_tables(study) -> None:
    if not (REPORT / "README.md").exists():
        pytest.skip("reports/bench_variance has no README")
    assert (REPORT / "README.md").read_text() == study.render(REPORT)
