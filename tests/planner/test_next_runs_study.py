"""The allocation study (studies/next_runs): the adaptive next batch against the same runs spread
evenly, against the known truth of simulated benchmarks. A fast subset here; the whole grid is
slow (``make study``).

Issue 15 asks for ≥ 1.3× the uniform batch's accuracy (MSE ratio) in the near-all-pass regime
and never worse than uniform beyond Monte Carlo error. Measured since next_runs hedges its batch
against the uncertainty of the fitted prior: never worse than uniform in any regime (near-all-pass
truths get the even spread: factor 1); the 1.3× target near all-pass is not met, a strict xfail:
it is run, and the suite fails the day it passes unnoticed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _study() -> ModuleType:
    path = ROOT / "studies" / "next_runs" / "next_runs.py"
    spec = importlib.util.spec_from_file_location("study_next_runs", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_u_shaped_truths_adaptive_batch_not_worse_than_uniform_runs() -> None:
    """The issue's check at a fixed seed: not worse than uniform beyond 2 MC standard errors,
    and better as a point estimate (40 benchmarks: 1.14 ± 0.17, the greedy batch kept in all 40;
    the slow grid has 1.29–1.39 ± 0.08–0.09 at 300)."""
    r = _study().compare("U-shaped", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.0 - 2 * r["factor_se"], r
    assert r["factor"] > 1.0, r


def test_near_all_pass_truths_adaptive_batch_not_worse_than_uniform_runs() -> None:
    """The issue's check near rates of 1 (unhedged it failed: 0.90 ± 0.04 at T = 100): not worse
    than uniform beyond 2 MC standard errors (40 benchmarks; the slow grid has 1.00 ± 0.00 at
    300, the even spread in every benchmark)."""
    r = _study().compare("near all-pass", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.0 - 2 * r["factor_se"], r
    assert r["choices"]["uniform"] >= 36, r


@pytest.mark.xfail(
    strict=True,
    reason="issue 15 target not met: near-all-pass truths, the hedged batch falls back to even "
    "runs (factor 1.00; see reports/next_runs/README.md)",
)
def test_near_all_pass_truths_adaptive_batch_at_least_1_3x() -> None:
    r = _study().compare("near all-pass", tasks=100, budget=200, k=3, reps=40, seed=1)
    assert r["factor"] >= 1.3, r


@pytest.mark.slow
def test_next_runs_study_grid(tmp_path: Path) -> None:
    """Every regime × T ∈ {50, 100, 200}: never worse than uniform runs beyond 2 MC standard
    errors; the only failures recorded are the near-all-pass 1.3× target."""
    res = _study().run(tmp_path, seed=0, reps=300)
    for r in res["rows"]:
        assert r["factor"] >= 1 - 2 * r["factor_se"], r
    assert all(f.startswith("near all-pass") and "< 1.3" in f for f in res["failures"])
    assert (tmp_path / "README.md").is_file()
