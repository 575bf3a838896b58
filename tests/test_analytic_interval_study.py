"""studies/analytic_interval: one cell at a few replicates (the full grid runs in `make study`),
and the verdict's two tests on a hand-made table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "analytic_interval" / "analytic_interval.py"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "analytic_interval_study")


def test_one_cell_runs_every_method_and_checks_itself_against_scope_intervals() -> None:
    """The cell's first data sets are recomputed by scope_intervals (bca and analytic) inside
    run_cell, which raises on any difference; coverages are shares of 12 replicates; the
    mean of 40 uniform tasks has ≥ 10 on each side every time (the analytic rule acts)."""
    st = _study()
    truth = st._coverage_module().TRUTHS["Beta(1, 1) uniform"]
    rows = st.run_cell(truth, 40, 4, reps=12, n_boot=200, seed=3)
    assert [(r["metric"], r["k"]) for r in rows] == [
        ("mean", 1),
        ("pass_at_k", 4),
        ("pass_hat_k", 4),
    ]
    for r in rows:
        for m in st.METHODS:
            assert (0.0 <= r[f"cov {m}"] <= 1.0 and (r[f"cov {m}"] * 12) % 1 < 1e-9) or (
                r[f"cov {m}"] * 12
            ) % 1 > 1 - 1e-9
        assert 0.0 <= r["analytic_share"] <= 1.0
        assert np.isclose(r["diff analytic rule"], r["cov analytic rule"] - r["cov rule"])
    assert rows[0]["analytic_share"] == 1.0


def test_verdict_strict_and_at_the_nominal_level() -> None:
    """Strict: ≥ the rule's coverage − 2 s.e. of the difference, and ≥ 0.85. Nominal: also
    when it reaches 0.90 − 2 sqrt(0.09 / R) while the rule over-covers."""
    st = _study()
    t = pd.DataFrame(
        {
            "reps": [500] * 4,
            "cov analytic rule": [0.90, 0.894, 0.84, 0.86],
            "diff analytic rule": [-0.01, -0.04, 0.0, -0.06],
            "diff se analytic rule": [0.006, 0.009, 0.01, 0.01],
        }
    )
    assert st.verdict(t).tolist() == [True, False, False, False]
    assert st.verdict(t, nominal=True).tolist() == [True, True, False, False]
    assert np.isclose(0.90 - 2 * np.sqrt(0.09 / 500), 0.8732, atol=1e-4)
