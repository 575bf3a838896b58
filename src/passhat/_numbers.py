"""Numbers read from files, in plain Python (no pandas, so light readers stay light).

``safe_float`` turns a whole number past the float range into ±inf for the caller's finiteness
check to refuse by name; ``show_value`` shows a value in a message, cutting long integers short.
:mod:`passhat._frames` re-exports both beside its pandas helpers.
"""

from __future__ import annotations

import math
from typing import Any

from passhat._lazy import is_numpy

__all__ = ["safe_float", "show_value"]


def safe_float(value: Any) -> float:
    """``float(value)``, with whole numbers beyond the float range as ±inf (not OverflowError).

    JSON allows integer literals of any length (``1`` followed by 400 zeros); every caller
    already refuses a non-finite number by name, so ±inf carries the refusal to it.

    Examples
    --------
    >>> safe_float(3), safe_float(10**400), safe_float(-(10**400))
    (3.0, inf, -inf)
    """
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def show_value(value: Any) -> str:
    """repr of a value for a message: numpy scalars as Python values, long integers cut short.

    Examples
    --------
    >>> import numpy as np
    >>> show_value(np.int64(3)), show_value("a")
    ('3', "'a'")
    >>> show_value(10**400)
    '1000000000... (401 digits)'
    """
    if is_numpy(value, "generic"):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(abs(value))
        if len(text) > 40:
            return f"{'-' if value < 0 else ''}{text[:10]}... ({len(text)} digits)"
    return repr(value)
