"""Shared JSON helpers for readers: every parse error, and nesting too deep to parse (``[`` ×
100,000), is a :class:`~passhat.errors.FormatError` naming the file and line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from passhat.errors import FormatError

__all__ = ["jsonl_objects", "load_json", "not_utf8", "scenario_fingerprint", "too_deep"]


def load_json(path: Path, *, expected: str | None = None) -> Any:
    """Parse a JSON file; a syntax error names the line and column.

    Parameters
    ----------
    path : Path
        The file.
    expected : str, optional
        What the file should be (e.g. ``"τ-bench result file"``); named in the
        error when the file is not JSON at all.
    """
    what = f"not a {expected}: " if expected else ""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as err:
        raise FormatError(
            f"{path}: {what}line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})"
        ) from err
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: {what}not a UTF-8 text file") from err
    except IsADirectoryError as err:
        raise FormatError(f"{path}: {what}a directory, not a JSON file") from err
    except RecursionError as err:
        raise too_deep(path) from err


def too_deep(path: Path, line: int | None = None) -> FormatError:
    """The error for JSON nested more deeply than Python's parser can follow.

    Examples
    --------
    >>> print(too_deep(Path("x.json"), 3))
    x.json: line 3: JSON nested too deeply to read (over ~1,000 levels of [ or {)
    """
    where = f"{path}: line {line}: " if line is not None else f"{path}: "
    return FormatError(f"{where}JSON nested too deeply to read (over ~1,000 levels of [ or {{)")


def not_utf8(path: Path, what: str = "") -> FormatError:
    """The error for a text file that is not UTF-8, naming the line and byte of the first bad byte.

    Examples
    --------
    >>> import tempfile, os
    >>> f = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = f.write_bytes(b"a,b\\nt\\xff,1\\n")
    >>> str(not_utf8(f)).endswith("line 2: byte 0xff is not UTF-8; save the file as UTF-8")
    True
    """
    try:
        raw = Path(path).read_bytes()
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        where = f"line {line}: byte 0x{raw[err.start]:02x} is not UTF-8"
    except OSError:
        where = "not UTF-8 text"
    else:  # pragma: no cover - only called after a decode error
        where = "not UTF-8 text"
    return FormatError(f"{path}: {what}{where}; save the file as UTF-8")


def scenario_fingerprint(obj: Any) -> str:
    """A short, stable hash of a task definition (canonical JSON)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON-lines file with their line numbers (blank lines skipped).

    A line that is not valid JSON, or not an object, is a :class:`FormatError`
    naming the line.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()
    except UnicodeDecodeError as err:
        raise not_utf8(path) from err
    out: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise FormatError(f"{path}: line {lineno}: not valid JSON ({err.msg})") from err
        except RecursionError as err:
            raise too_deep(path, lineno) from err
        if not isinstance(obj, dict):
            raise FormatError(
                f"{path}: line {lineno}: expected a JSON object, got {type(obj).__name__}"
            )
        out.append((lineno, obj))
    return out
