"""passhat.model._numba.njit_cached: numba's on-disk cache where it can write one, none
where numba has no cache locator (a read-only install without a writable user cache)."""

from __future__ import annotations

import numba
import pytest

from passhat.model import _numba


def test_cached_kernel_runs_and_caches() -> None:
    f = _numba.njit_cached(lambda x: x + 1.0)
    assert f(1.0) == 2.0
    assert f._cache is not None and type(f._cache).__name__ == "FunctionCache"


def test_no_cache_locator_falls_back_to_an_uncached_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    real = numba.njit

    def refusing(*args, **kw):  # type: ignore[no-untyped-def]
        if kw.get("cache"):
            raise RuntimeError("cannot cache function 'f': no locator available for file 'f.py'")
        return real(*args, **kw)

    monkeypatch.setattr(_numba.numba, "njit", refusing)

    def f(x: float) -> float:
        return 3.0 * x

    g = _numba.njit_cached(f)
    assert g(2.0) == 6.0
    assert type(g._cache).__name__ == "NullCache"
