"""The gates study in full (slow; `pytest -m slow` or `make study`): studies/gates/gates.py.

Oracle: simulation with known truth — the anytime-valid gate's error rates under the null
checked after every run up to 1,000 runs (≤ α + 3 Monte-Carlo standard errors), the
fixed-n test peeked at the same way (visibly above α), and the per-task flags on unchanged
builds under Holm (FWER) and BH (FDR). It rewrites reports/gates/. The fast subsets run in
the default suite: tests/planner/test_betting.py, tests/planner/test_sequential.py and
tests/compare/test_multiplicity.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from study_loader import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "gates" / "gates.py"


@pytest.mark.slow
def test_gates_study() -> None:
    mod = load_study(STUDY, "gates_study")
    assert mod.main([]) == 0  # its check(): every claim above holds
    text = (ROOT / "reports" / "gates" / "README.md").read_text(encoding="utf-8")
    assert "## 4. Per-task regression flags on an unchanged build" in text
