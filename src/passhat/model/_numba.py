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

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba

__all__ = ["njit_cached", "register_numba_op", "source_version"]


def njit_cached(func: Callable[..., Any]) -> Any:
    """``numba.njit(cache=True)(func)``, or ``cache=False`` where numba has nowhere to cache."""
    try:
        return numba.njit(cache=True)(func)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(cache=False)(func)


def source_version(module_file: str) -> int:
    """A whole number that changes when the file changes (the SHA-256 of its bytes, 60 bits).

    PyTensor keys its on-disk numba cache of a compiled model by each Op's type, props
    and this number: an edited kernel is compiled afresh, not loaded stale.

    >>> source_version(__file__) == source_version(__file__)
    True
    """
    return int(hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:15], 16)


def register_numba_op(op_type: type, funcify: Callable[..., Any], module_file: str) -> None:
    """Give PyTensor's numba backend ``funcify`` for ``op_type``, with a cache key.

    With a key (PyTensor ≥ 2.36: ``register_funcify_default_op_cache_key``), the
    whole compiled graph of a model that holds the Op (nutpie's logp and gradient)
    is cached on disk by PyTensor and loaded by later processes instead of being
    compiled again; the key is the Op's type and :func:`source_version` of the module
    that holds the kernel. Older PyTensor: registered without a key (compiled in
    every process, as before).
    """
    from pytensor.link.numba.dispatch import basic

    keyed = getattr(basic, "register_funcify_default_op_cache_key", None)
    if keyed is None:
        basic.numba_funcify.register(op_type)(funcify)
        return
    version = source_version(module_file)

    def with_key(op: Any, node: Any = None, **kwargs: Any) -> tuple[Any, int]:
        return funcify(op, node=node, **kwargs), version

    keyed(op_type)(with_key)
