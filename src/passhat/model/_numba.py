"""numba's ``njit`` with its on-disk cache where one can be written.

The joint model's likelihood kernels take seconds to compile; with
``cache=True`` numba stores the machine code next to the module (or in a
user-wide cache directory when the package directory is read-only) and later
processes load it. Where no cache directory is writable numba refuses
``cache=True`` at decoration time; the kernel is then compiled in every process,
as without a cache.

Examples
--------
>>> from passhat.model._numba import njit_cached
>>> @njit_cached
... def twice(x):
...     return 2.0 * x
>>> twice(1.5)
3.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

__all__ = ["njit_cached"]


def njit_cached(func: Callable[..., Any]) -> Any:
    """``numba.njit(cache=True)(func)``, or ``cache=False`` where numba has nowhere to cache."""
    try:
        return numba.njit(cache=True)(func)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(cache=False)(func)
