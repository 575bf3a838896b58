"""Helpers for the notebook tests: the notebooks are committed with their outputs (the docs
render them without executing), so each test re-executes a cleared copy and checks that the
committed outputs are the ones the code prints today."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # nbformat and nbclient come with the docs extra (make integration)
    import nbformat

REGENERATE = "run `make notebooks` and commit the notebooks"


def executed_copy(nb: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """A copy of ``nb`` with its outputs cleared, executed from a clean kernel in ``folder``."""
    import nbclient

    fresh = copy.deepcopy(nb)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    # the python3 kernelspec runs `python`: make that the interpreter running the tests
    env_path = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    old = os.environ["PATH"]
    os.environ["PATH"] = env_path
    try:
        nbclient.NotebookClient(
            fresh, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(folder)}}
        ).execute()
    finally:
        os.environ["PATH"] = old
    return fresh


def cell_text(cell: nbformat.NotebookNode) -> str:
    """What a code cell shows as text: its streams (joined; the kernel may split a print into
    several stream messages) and the plain-text form of its results."""
    streams: dict[str, str] = {}
    results: list[str] = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            streams[out.name] = streams.get(out.name, "") + out.text
        elif out.output_type in ("execute_result", "display_data"):
            results.append(str(out.get("data", {}).get("text/plain", "")))
        elif out.output_type == "error":
            results.append(f"{out.ename}: {out.evalue}")
    # stderr carries warnings from libraries (progress, deprecations): not part of the page
    return "\n".join([streams.get("stdout", ""), *results]).rstrip()


def stale_cells(committed: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> list[int]:
    """Indices of code cells whose committed text output differs from a fresh execution."""
    return [
        i
        for i, (old, new) in enumerate(zip(committed.cells, fresh.cells, strict=True))
        if old.cell_type == "code" and cell_text(old) != cell_text(new)
    ]


def all_outputs(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """Every output of every code cell."""
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
