"""Inspect AI log files and directories of them: which files are logs, what else a log
directory holds, and runs that two logs of one directory repeat (for :mod:`.inspect_log`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from passhat.errors import FormatError
from passhat.io._registry import file_head
from passhat.io._sniff import looks_like_log

if TYPE_CHECKING:  # numpy loads where two logs are compared: telling a log by its head needs none
    import pandas as pd

__all__ = [
    "log_files",
    "looks_like_log",
    "nested_logs",
    "other_files",
    "refuse_repeated_runs",
    "shown_dirs",
]


def log_files(path: Path) -> list[Path]:
    """The Inspect logs directly inside a directory, in name order: every ``.eval`` file, and
    every ``.json`` file that looks like a log (Inspect writes both formats)."""
    return sorted(
        q
        for q in path.iterdir()
        if q.is_file()
        and not q.name.startswith(".")
        and (q.suffix.lower() == ".eval" or (q.suffix.lower() == ".json" and _json_log(q)))
    )


def nested_logs(path: Path, *, limit: int = 200) -> list[tuple[str, int]]:
    """The subdirectories of a log directory, each with the number of Inspect logs directly in
    it (Inspect's own listing is recursive; passhat reads one directory's logs), in name
    order, at most ``limit`` looked at; hidden ones and passhat's own outputs (its manifest
    inside) are left out."""
    from passhat._write.journal import MANIFEST

    found = []
    try:
        subdirs = sorted(q for q in path.iterdir() if q.is_dir() and not q.name.startswith("."))
    except OSError:
        return []
    for sub in subdirs[:limit]:
        try:
            if not (sub / MANIFEST).is_file():
                found.append((sub.name, len(log_files(sub))))
        except OSError:
            found.append((sub.name, 0))
    return found


def shown_dirs(nested: list[tuple[str, int]]) -> str:
    """``a (2 logs), b`` for :func:`nested_logs` (five at most)."""
    items = [f"{n} ({k} log{'s' if k > 1 else ''})" if k else n for n, k in nested[:5]]
    return ", ".join(items) + (" ..." if len(nested) > 5 else "")


def _json_log(path: Path) -> bool:
    try:
        return looks_like_log(path, file_head(path))
    except (OSError, FormatError):
        return False


def other_files(path: Path, logs: list[Path]) -> tuple[list[str], list[str]]:
    """Files of a log directory that are not read: tidy data files (an error: the directory
    mixes formats) and other JSON files (e.g. Inspect's ``logs.json`` listing: named in a
    note)."""
    from passhat.io._scan import file_kind

    data, skipped = [], []
    for q in sorted(path.iterdir()):
        if not q.is_file() or q in logs or q.name.startswith((".", "_")):
            continue
        if file_kind(q) is not None:
            data.append(q.name)
        elif q.suffix.lower() == ".json":
            skipped.append(q.name)
    return data, skipped


def refuse_repeated_runs(
    path: Path, frame: pd.DataFrame, names: list[str], sizes: list[int]
) -> None:
    """Two logs of one directory holding the same (model, sample, epoch): a rerun or a copy.
    ``frame`` stacks the logs ``names`` of ``sizes`` rows each. Named by file (a row number of
    the stacked logs would say nothing)."""
    import numpy as np

    keys = frame[["system", "task_id", "trial"]]
    dup = keys.duplicated(keep=False).to_numpy()
    if not dup.any():
        return
    first = int(dup.argmax())
    same = (keys == keys.iloc[first]).all(axis=1).to_numpy()
    log_of_row = np.repeat(np.arange(len(names)), sizes)
    where = sorted({names[i] for i in log_of_row[same]})
    system, task, trial = keys.iloc[first]
    raise FormatError(
        f"{path}: {' and '.join(where)} both hold model {system!r}, sample {task!r}, epoch "
        f"{trial} ({int(dup.sum())} sample epochs in all): two runs of one evaluation, or a "
        "copy? Runs are never merged: keep one log per model, or read the logs one by one"
    )
