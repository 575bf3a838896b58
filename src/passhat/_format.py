"""Formatting helpers shared by the report and the CLI: JSON-safe values, percentages, short text.

Examples
--------
>>> from passhat._format import jsonable, pct, short
>>> jsonable({"a": 0.1 + 0.2, "b": float("nan")}), pct(0.4213), short("abcdefgh", 5)
({'a': 0.3, 'b': None}, '42.1%', 'abcd…')
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["fmt_ratio", "jsonable", "pct", "short"]


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python values, non-finite floats and NA as None, and floats
    rounded to 12 significant digits (stable across platforms' last-bit noise: 0.42, not
    0.42000000000000004); dict keys become strings."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        if not math.isfinite(obj):
            return None
        return float(f"{obj:.12g}")
    if obj is pd.NA or obj is pd.NaT:
        return None
    return obj


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage with ``digits`` decimals; "—" when missing or not finite."""
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:.{digits}%}"


def short(value: Any, limit: int = 90) -> Any:
    """Text cut to ``limit`` characters with an ellipsis; a list is joined with "; " first; any
    other value (a number, None) is returned as it is, so a table's cells can be mapped."""
    if isinstance(value, list | tuple):
        value = "; ".join(map(str, value))
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def fmt_ratio(x: float) -> str:
    """A ratio for sentences: 1.9, 23, ∞, and — when undefined (0/0)."""
    if math.isnan(x):
        return "—"
    if not math.isfinite(x):
        return "∞"
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"
