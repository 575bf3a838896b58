"""studies/extremes: one small cell at a few replicates (the grid runs in `make study`), and the
exact enumeration's Clopper–Pearson rows keep their level (a property of the exact binomial)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "extremes" / "extremes.py"


def _study():  # type: ignore[no-untyped-def]
    return load_study(STUDY, "extremes_study")


def test_one_cell_compares_old_and_new_on_the_same_data_sets() -> None:
    st = _study()
    truth = st.AI._coverage_module().TRUTHS["Beta(0.2, 5) near 0"]
    rows = st.run_cell(truth, 30, 10, reps=6, n_boot=200, seed=1)
    hat = next(r for r in rows if r["metric"] == "pass_hat_k")
    # every task's pass^10 is 0 in these replicates: the old lower end (> 0) misses
    # E p^10 = 2.7e-5 and the new one (0) holds it
    assert hat["cov old"] == 0.0 and hat["cov rule"] == 1.0
    assert hat["width rule"] > hat["width old"]


def test_exact_clopper_pearson_rows_keep_the_level() -> None:
    ex = _study().exact_binary((10, 30))
    now = ex[ex["interval"].str.startswith("now")]
    assert (now["min coverage"] >= 0.9 - 1e-9).all()
    old = ex[ex["interval"].str.startswith("old")]
    assert np.all(old["min coverage"].to_numpy() < 0.85)  # what the change fixed
