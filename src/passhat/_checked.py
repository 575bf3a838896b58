"""Count tables already validated: each immutable state of a table's parts is checked once.

:func:`passhat.trials.validate_counts` checks a count table (whole counts, ``c ≤ n``,
weights, one id per task and system) and every consumer calls it (through
:func:`passhat.estimators.as_counts`): a report hands the same table, or tables derived from
it (``ds.assign(present=...)``), to a dozen of them. The validator records here what it
checked, part by part: each checked variable's array (by identity, weakly referenced, with its
dims, dtype, shape and a CRC-32 of its bytes), the ``(n, c)`` pair (``c ≤ n``) and each id
coordinate's pandas index. A part is trusted only while it is the same object with the same
bytes, so replacing a variable (``ds["n"] = ...``), swapping the coordinates or writing into
an array in place (``ds["n"].values[0, 0] = 9``) makes it checked again; a table derived from a
checked one has only its new parts checked. The CRCs read each array once (about 1 ms per 10^6
counts), far less than the checks.

Examples
--------
>>> import numpy as np, xarray as xr
>>> ds = xr.Dataset({v: (("system", "task"), np.ones((1, 2), dtype=np.int64))
...                  for v in ("n", "c", "unscored")},
...                 coords={"system": ["s"], "task": ["a", "b"]})
>>> parts = Parts(ds)
>>> sorted(parts.known)
[]
>>> parts.remember(); sorted(Parts(ds).known)
['c', 'n', 'nc', 'system', 'task', 'unscored']
>>> ds["c"].values[0, 0] = 0  # written in place: c, and the pair, are checked again
>>> sorted(Parts(ds).known)
['n', 'system', 'task', 'unscored']
"""

from __future__ import annotations

import weakref
import zlib
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["CHECKED_VARIABLES", "Parts"]

#: The variables :func:`passhat.trials.validate_counts` checks.
CHECKED_VARIABLES = ("n", "c", "unscored", "present", "weight")
_ID_DIMS = ("system", "task")

#: (variable, id(array)) → (weak reference to the array, dims, dtype, shape, CRC-32)
_ARRAYS: dict[tuple[str, int], tuple[Any, ...]] = {}
#: (id(n), id(c)) → (weak references to both, their CRC-32s then): c ≤ n was checked
_PAIRS: dict[tuple[int, int], tuple[Any, ...]] = {}
#: id(index) → weak reference: an id coordinate with no id twice
_INDEXES: dict[int, Any] = {}


def _crc(arr: np.ndarray) -> int:
    data = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
    return zlib.crc32(data.data.cast("B")) if data.size else 0


def _keep(table: dict[Any, Any], key: Any, objs: tuple[Any, ...], *rest: Any) -> None:
    """Record ``key`` while every object in ``objs`` lives (weakly referenced)."""

    def drop(_: Any) -> None:
        table.pop(key, None)

    table[key] = (tuple(weakref.ref(o, drop) for o in objs), *rest)


def _alive(entry: Any, objs: tuple[Any, ...], *rest: Any) -> bool:
    """An entry for these very objects (alive), recorded with these values (``rest``)."""
    if entry is None or tuple(entry[1:]) != rest:
        return False
    return all(r() is o for r, o in zip(entry[0], objs, strict=True))


class Parts:
    """A count table's checked parts: which are known to be valid (``known``), and a way to
    record them all once the table has passed the checks (:meth:`remember`)."""

    def __init__(self, ds: xr.Dataset, *, like: Parts | None = None) -> None:
        """``like``: the parts of a table sharing arrays with this one (their CRCs are reused)."""
        self.arrays: dict[str, tuple[np.ndarray, tuple[Any, ...]]] = {}
        self.indexes: dict[str, Any] = {}
        self.known: set[str] = set()
        for name in CHECKED_VARIABLES:
            var = ds.variables.get(name)
            if var is None or not isinstance(var.data, np.ndarray):
                continue
            arr = var.data
            prev = like.arrays.get(name) if like is not None else None
            if prev is not None and prev[0] is arr and prev[1][0] == var.dims:
                sig = prev[1]
            else:
                sig = (var.dims, arr.dtype.str, arr.shape, _crc(arr))
            self.arrays[name] = (arr, sig)
            entry = _ARRAYS.get((name, id(arr)))
            if _alive(entry, (arr,), *sig):
                self.known.add(name)
        if {"n", "c"} <= self.known:
            (n, sn), (c, sc) = self.arrays["n"], self.arrays["c"]
            entry = _PAIRS.get((id(n), id(c)))
            if _alive(entry, (n, c), sn[-1], sc[-1]):
                self.known.add("nc")
        for dim in _ID_DIMS:
            xidx = ds.xindexes.get(dim)
            index = getattr(xidx, "index", None)
            if index is None:
                continue
            self.indexes[dim] = index
            if _alive(_INDEXES.get(id(index)), (index,)):
                self.known.add(dim)

    def remember(self) -> None:
        """Record every part as checked (call once the table has passed the checks)."""
        for name, (arr, sig) in self.arrays.items():
            _keep(_ARRAYS, (name, id(arr)), (arr,), *sig)
        if "n" in self.arrays and "c" in self.arrays:
            (n, sn), (c, sc) = self.arrays["n"], self.arrays["c"]
            _keep(_PAIRS, (id(n), id(c)), (n, c), sn[-1], sc[-1])
        for index in self.indexes.values():
            _keep(_INDEXES, id(index), (index,))
