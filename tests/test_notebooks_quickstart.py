"""Execute notebooks/01-quickstart.ipynb end to end (nbclient, the venv's python3 kernel) and
check that its committed outputs, which the documentation renders, are what it prints today."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # a Jupyter kernel runs the notebook (make integration)

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "01-quickstart.ipynb"


def test_quickstart_notebook_runs() -> None:
    pytest.importorskip("nbclient", reason="the notebooks need the docs extra: '.[docs]'")
    import nbformat

    from notebook_outputs import REGENERATE, all_outputs, executed_copy, stale_cells

    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert all_outputs(committed), f"the notebook is committed without outputs: {REGENERATE}"
    nb = executed_copy(committed, NOTEBOOK.parent)
    outputs = all_outputs(nb)
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "what a uniform spread would give" in text
    assert "27.8%" in text  # the GPT-4.1 uniform reference from the published pair
    assert "Diagnostics (grid): passed" in text
    assert "index.html" in text
    assert "pass^4 = 0.200, population 95% interval 0.100–0.320" in text  # bundled τ-bench
    assert "10000 resamples or posterior draws, seed 0" in text
    stale = stale_cells(committed, nb)
    assert not stale, f"committed outputs of code cells {stale} are out of date: {REGENERATE}"
