"""Shared JSON helpers for readers."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from passhat.errors import FormatError

__all__ = ["load_json", "scenario_fingerprint"]


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


def scenario_fingerprint(obj: Any) -> str:
    """A short, stable hash of a task definition (canonical JSON)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
