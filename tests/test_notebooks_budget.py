"""Execute notebooks/03-budget-in-rounds.ipynb end to end and check that its committed outputs,
which the documentation renders, are what it prints today.

The notebook spends one budget in rounds on simulated data with a known truth (pilot → next
batch by plan.next_runs → decision) and measures the saving against uniform runs; its final
decision cell is a fixed-n placeholder until the sequential gate lands.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

from notebook_outputs import REGENERATE, all_outputs, executed_copy, stale_cells  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "03-budget-in-rounds.ipynb"


def test_budget_in_rounds_notebook_runs():
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert all_outputs(committed), f"the notebook is committed without outputs: {REGENERATE}"
    nb = executed_copy(committed, NOTEBOOK.parent)
    outputs = all_outputs(nb)
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "after batch 2: 600 runs" in text
    assert "MSE of pass^3: in rounds" in text and "→ pass" in text
    assert "FINAL GATE CELL" in "".join(c.source for c in committed.cells)
    assert not [o for o in outputs if o.output_type == "error"]
    stale = stale_cells(committed, nb)
    assert not stale, f"committed outputs of code cells {stale} are out of date: {REGENERATE}"
