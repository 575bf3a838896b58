"""Execute notebooks/02-planning.ipynb end to end (nbclient, the venv's python3 kernel) and
check that its committed outputs, which the documentation renders, are what it prints today.

The notebook uses ../shared's τ-bench airline data when present and stated assumptions
(with a printed note) when not, so it runs either way; its committed outputs are those with
the data, so that comparison needs ../shared.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

from notebook_outputs import REGENERATE, all_outputs, executed_copy, stale_cells  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "02-planning.ipynb"
SHARED = Path(os.environ.get("PASSHAT_SHARED", ROOT.parent / "shared"))
TAU_AIRLINE = SHARED / "data" / "tau-bench" / "gpt-4o-airline.json"  # what the notebook reads


def test_planning_notebook_runs():
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert all_outputs(committed), f"the notebook is committed without outputs: {REGENERATE}"
    nb = executed_copy(committed, NOTEBOOK.parent)
    outputs = all_outputs(nb)
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "29 runs" in text
    assert "tasks ×" in text and "power" in text
    assert not [o for o in outputs if o.output_type == "error"]
    if not TAU_AIRLINE.exists():
        pytest.skip(f"committed outputs use {TAU_AIRLINE} (../shared is absent): not compared")
    stale = stale_cells(committed, nb)
    assert not stale, f"committed outputs of code cells {stale} are out of date: {REGENERATE}"
