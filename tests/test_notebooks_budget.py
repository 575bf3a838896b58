"""Execute notebooks/03-budget-in-rounds.ipynb end to end and check that its committed outputs,
which the documentation renders, are what it prints today.

The notebook spends one budget in rounds on simulated data with a known truth (pilot → next
batch by plan.next_runs → decision) and measures the saving against uniform runs; its final
decision cell checks the sequential gate (plan.sequential) after every round until it decides.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # a Jupyter kernel runs the notebook (make integration)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "03-budget-in-rounds.ipynb"


def test_budget_in_rounds_notebook_runs():
    pytest.importorskip("nbclient", reason="the notebooks need the docs extra: '.[docs]'")
    import nbformat

    from notebook_outputs import REGENERATE, all_outputs, executed_copy, stale_cells

    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert all_outputs(committed), f"the notebook is committed without outputs: {REGENERATE}"
    nb = executed_copy(committed, NOTEBOOK.parent)
    outputs = all_outputs(nb)
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "after batch 2: 600 runs" in text
    assert "MSE of pass^3: in rounds" in text
    # the truth (1 − pass^3 = 0.645) is below the 70% bound: the gate must end in "pass"
    assert "after the 600 runs: continue" in text and "passhat gate: pass:" in text
    gate_cell = [c.source for c in committed.cells if "FINAL GATE CELL" in c.source]
    assert len(gate_cell) == 1 and "ph.plan.sequential(" in gate_cell[0]
    assert not [o for o in outputs if o.output_type == "error"]
    stale = stale_cells(committed, nb)
    assert not stale, f"committed outputs of code cells {stale} are out of date: {REGENERATE}"
