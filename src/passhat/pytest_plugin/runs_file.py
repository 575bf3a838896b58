"""``--passhat-report PATH``: every run of the session's marked tests, as a tidy file.

One row per run in the data model's columns (``system, task_id, trial, success, status,
duration_s``): the task is the test's node id, ``trial`` counts its runs from 0 in the order
they ran, ``success`` is empty for an unscored run (status ``unscored``). A ``.csv`` or
``.jsonl`` file, written whole or not at all, never over a file unless asked (``force``);
``passhat estimate``, ``passhat gate`` and :func:`passhat.read` read it.

Examples
--------
>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
>>> found = [{"test": "t.py::test_a", "runs": [[True, "ok", 0.5], [None, "unscored", 0.1]]}]
>>> write_runs(path, found, system="pytest")
2
>>> print(path.read_text(), end="")
system,task_id,trial,success,status,duration_s
pytest,t.py::test_a,0,true,ok,0.5
pytest,t.py::test_a,1,,unscored,0.1
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from passhat._write import write_bytes

__all__ = ["COLUMNS", "write_runs"]

COLUMNS = ("system", "task_id", "trial", "success", "status", "duration_s")


def _rows(found: Sequence[dict[str, Any]], system: str) -> Iterator[dict[str, Any]]:
    for entry in found:
        for trial, (success, status, duration) in enumerate(entry["runs"]):
            yield {
                "system": system,
                "task_id": entry["test"],
                "trial": trial,
                "success": success,
                "status": status,
                "duration_s": round(float(duration), 6),
            }


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        ok = row["success"]
        writer.writerow({**row, "success": "" if ok is None else str(bool(ok)).lower()})
    return out.getvalue()


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def write_runs(
    path: str | os.PathLike[str],
    found: Sequence[dict[str, Any]],
    *,
    system: str = "pytest",
    force: bool = False,
) -> int:
    """Write the runs of ``found`` (the plugin's verdicts, each with ``test`` and ``runs``).

    Parameters
    ----------
    path : path ending in .csv or .jsonl
    found : sequence of dict
        Each ``{"test": node id, "runs": [[success or None, status, duration_s], ...]}``.
    system : str
        The ``system`` column.
    force : bool
        Replace an existing file.

    Returns
    -------
    int
        The rows written.

    Raises
    ------
    OptionError
        An existing file without ``force``, a directory, an unknown suffix.
    OutputError
        The file could not be written (nothing was replaced).
    """
    from passhat.errors import OptionError

    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise OptionError(f"{path}: give a .csv or .jsonl file (got {suffix or 'no suffix'!r})")
    rows = list(_rows(found, system))
    write_bytes(path, _csv(rows) if suffix == ".csv" else _jsonl(rows), force=force)
    return len(rows)
