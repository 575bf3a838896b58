"""Execute notebooks/01-quickstart.ipynb end to end (nbclient, the venv's python3 kernel)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "01-quickstart.ipynb"


def test_quickstart_notebook_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # the python3 kernelspec runs `python`: make that the interpreter running the tests
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "commit the notebook without outputs"
    )
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "what a uniform spread would give" in text
    assert "27.8%" in text  # the GPT-4.1 uniform reference from the published pair
    assert "Diagnostics(passed" in text
    assert "index.html" in text
