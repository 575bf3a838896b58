"""Execute notebooks/02-planning.ipynb end to end (nbclient, the venv's python3 kernel) and
check that its committed outputs, which the documentation renders, are what it prints today.

The notebook plans with τ-bench's airline results as the prior, read from the copy bundled
with passhat (``ph.load_example("tau-airline")``), so it prints the same in a fresh clone as
here; before, it read ../shared and fell back to stated assumptions without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # a Jupyter kernel runs the notebook (make integration)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "02-planning.ipynb"


def test_planning_notebook_runs():
    pytest.importorskip("nbclient", reason="the notebooks need the docs extra: '.[docs]'")
    import nbformat

    from notebook_outputs import REGENERATE, all_outputs, executed_copy, stale_cells

    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert all_outputs(committed), f"the notebook is committed without outputs: {REGENERATE}"
    assert "shared" not in "".join(c.source for c in committed.cells if c.cell_type == "code")
    nb = executed_copy(committed, NOTEBOOK.parent)
    outputs = all_outputs(nb)
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "29 runs" in text
    assert "tasks ×" in text and "power" in text
    assert "0.273" in text and "fit to 50 tasks of 'gpt-4o-airline'" in text  # the real prior
    assert not [o for o in outputs if o.output_type == "error"]
    stale = stale_cells(committed, nb)
    assert not stale, f"committed outputs of code cells {stale} are out of date: {REGENERATE}"
