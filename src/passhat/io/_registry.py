"""Reader registry and format sniffing."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xarray as xr

from passhat.errors import FormatError, InputError, OptionError
from passhat.trials import Trials

__all__ = [
    "Reader",
    "file_sha256",
    "formats",
    "input_stamp",
    "read",
    "read_counts",
    "read_trials",
    "register_reader",
]


@dataclass(frozen=True)
class Reader:
    """A registered reader.

    ``read(path, **options)`` returns :class:`~passhat.trials.Trials` or a
    count-table :class:`xarray.Dataset`; ``sniff(path, head)`` says whether
    the file looks like this format (``head`` is its first 64 KiB as text).
    """

    name: str
    read: Callable[..., Trials | xr.Dataset]
    sniff: Callable[[Path, str], bool]
    kind: str  # "trials" or "counts"
    priority: int = 50


_READERS: dict[str, Reader] = {}


def register_reader(
    name: str,
    read: Callable[..., Trials | xr.Dataset],
    *,
    sniff: Callable[[Path, str], bool],
    kind: str = "trials",
    priority: int = 50,
) -> None:
    """Register a reader under a format name (lower priority sniffs first)."""
    _READERS[name] = Reader(name=name, read=read, sniff=sniff, kind=kind, priority=priority)


def formats() -> list[str]:
    """Names of the registered formats."""
    return sorted(_READERS)


def input_stamp(data: Trials | xr.Dataset) -> dict[str, str]:
    """Provenance of an input for machine-readable output: its path, format and SHA-256 (computed
    here when the source recorded a path but no hash), as strings."""
    if isinstance(data, Trials):
        src = {str(k): str(v) for k, v in data.source.items()}
    else:
        src = {
            str(k).removeprefix("source_"): str(v)
            for k, v in data.attrs.items()
            if str(k).startswith("source_")
        }
    path = src.get("path")
    if path and "sha256" not in src and Path(path).is_file():
        src["sha256"] = file_sha256(path)
    return src


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file (of every file, in order, for a directory)."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    for f in files:
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _head(path: Path) -> str:
    if path.is_dir():
        return ""
    with open(path, "rb") as fh:
        raw = fh.read(65536)
    return raw.decode("utf-8", errors="replace")


def _resolve(path: Path, fmt: str | None) -> Reader:
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if fmt is not None:
        key = fmt.lower().replace("_", "-")
        if key not in _READERS:
            raise FormatError(
                f"{path}: unknown format {fmt!r}; known formats: {', '.join(formats())}"
            )
        return _READERS[key]
    if path.is_file() and path.stat().st_size == 0:
        raise FormatError(f"{path}: the file is empty")
    head = _head(path)
    if path.is_file() and not head.strip() and path.suffix.lower() not in {".parquet", ".eval"}:
        raise FormatError(f"{path}: the file is empty (only whitespace)")
    for reader in sorted(_READERS.values(), key=lambda r: (r.priority, r.name)):
        try:
            if reader.sniff(path, head):
                return reader
        except Exception:  # a sniffer that cannot tell simply says no
            continue
    if path.is_file() and (path.suffix.lower() == ".json" or head.lstrip().startswith(("{", "["))):
        from passhat.io._json import load_json

        load_json(path)  # a syntax error is the more useful message (line, column)
    raise FormatError(
        f"{path}: cannot tell the format from its name or content; pass format= "
        f"(--format) with one of: {', '.join(formats())}"
    )


def _check_options(path: Path, reader: Reader, options: dict[str, Any]) -> None:
    """Refuse options the reader has no parameter for (never a TypeError traceback)."""
    params = inspect.signature(reader.read).parameters
    if any(q.kind is inspect.Parameter.VAR_KEYWORD for q in params.values()):
        return  # the reader checks its own options
    unknown = [k for k in options if k not in params]
    if unknown:
        shown = ", ".join(
            k if k in ("threshold", "system_name") else f"{k}={options[k]} (a column map)"
            for k in unknown
        )
        raise OptionError(
            f"{path}: the {reader.name} format takes no option {shown}; "
            f"it takes: {', '.join(k for k in params if k != 'path') or 'none'}"
        )


def read(path: str | Path, *, format: str | None = None, **options: Any) -> Trials | xr.Dataset:
    """Read a file into trials or a count table, whichever it holds.

    Parameters
    ----------
    path : str or Path
        The file (or a τ²-bench run directory).
    format : str, optional
        A registered format name; sniffed from the content when omitted.
    **options
        Passed to the reader (column map, threshold, system name, ...).
    """
    p = Path(path)
    reader = _resolve(p, format)
    _check_options(p, reader, options)
    try:
        result = reader.read(p, **options)
    except IsADirectoryError as err:
        raise FormatError(f"{p}: a directory, not a {reader.name} file") from err
    meta = {"path": str(p), "format": reader.name, "sha256": file_sha256(p)}
    if isinstance(result, Trials):
        result.source = {**meta, **result.source}
    else:
        result.attrs.update({f"source_{k}": v for k, v in meta.items()})
    return result


def read_trials(path: str | Path, *, format: str | None = None, **options: Any) -> Trials:
    """Read repeated-trial results into a :class:`~passhat.trials.Trials` table.

    The format is sniffed from the content unless given: tidy ``csv``,
    ``jsonl``, ``parquet`` (with a column map, e.g. ``task="question_id",
    success="passed"``, and ``threshold=`` for numeric rewards),
    ``tau-bench``, ``tau2-bench`` and ``inspect`` logs.

    Examples
    --------
    >>> import passhat as ph, tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "runs.csv")
    >>> _ = open(f, "w").write("question_id,passed\\nq1,1\\nq1,0\\nq2,1\\nq2,1\\n")
    >>> ph.read_trials(f, task="question_id", success="passed")
    Trials(4 runs, 1 system(s), 2 tasks, 0 unscored)
    """
    result = read(path, format=format, **options)
    if not isinstance(result, Trials):
        raise FormatError(
            f"{path}: holds a count table (task_id, n, c), not trials; use passhat.read_counts"
        )
    return result


def read_counts(path: str | Path, *, format: str | None = None, **options: Any) -> xr.Dataset:
    """Read a file into a count table (trial files are aggregated)."""
    result = read(path, format=format, **options)
    return result.counts() if isinstance(result, Trials) else result
