"""Execute the notebooks in place so that their committed outputs are current.

The documentation renders ``notebooks/*.ipynb`` from their committed outputs (myst-nb,
``nb_execution_mode = "off"``), and the test suite re-executes them and compares. Run this
(``make notebooks``) after a change that alters what a notebook prints, then commit the
notebooks.

Usage: ``python docs/execute_notebooks.py [NOTEBOOK ...]`` (default: ``notebooks/*.ipynb``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def clear_outputs(nb: nbformat.NotebookNode) -> None:
    """Remove outputs and execution counts, as a fresh notebook has none."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)


def execute(path: Path) -> nbformat.NotebookNode:
    """Execute the notebook at ``path`` from a clean state (cwd: its folder) and return it."""
    nb = nbformat.read(path, as_version=4)
    clear_outputs(nb)
    # the python3 kernelspec runs `python`: make that the interpreter running this script
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=TIMEOUT_S,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for cell in nb.cells:  # timings differ on every run: keep the committed file stable
        cell.metadata.pop("execution", None)
    return nb


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        nb = execute(path)
        errors = [
            o
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if o.output_type == "error"
        ]
        if errors:
            print(f"{path}: {errors[0].ename}: {errors[0].evalue}", file=sys.stderr)
            return 1
        nbformat.write(nb, path)
        print(f"executed {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
