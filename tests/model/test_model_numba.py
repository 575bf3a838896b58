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


def test_source_version_follows_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "k.py"
    p.write_text("a = 1\n")
    v1 = _numba.source_version(str(p))
    assert v1 == _numba.source_version(str(p)) and 0 <= v1 < 2**60
    p.write_text("a = 2\n")
    assert _numba.source_version(str(p)) != v1


@pytest.mark.parametrize(("form", "inputs"), [("joint", 11), ("rasch", 8)])
def test_joint_likelihood_ops_have_a_numba_cache_key(form: str, inputs: int) -> None:
    # with a key, PyTensor caches the compiled model (logp and gradient) on disk across
    # processes; without one (None) the whole graph is compiled again in every process
    pytest.importorskip("pytensor.link.numba.cache")
    import pytensor.tensor as pt
    from pytensor.link.numba.dispatch.basic import (
        default_hash_key_from_props,
        numba_funcify_and_cache_key,
    )

    from passhat.model import joint_ops, joint_rasch_ops

    mod, op = (
        (joint_ops, joint_ops.QuadLogLik())
        if form == "joint"
        else (joint_rasch_ops, joint_rasch_ops.RaschLogLik())
    )
    node = op.make_node(pt.dvector(), *[pt.dscalar() for _ in range(inputs - 1)])
    func, key = numba_funcify_and_cache_key(op, node=node)
    assert callable(func)
    version = str(_numba.source_version(mod.__file__))  # an edited kernel gets a new key
    assert key == default_hash_key_from_props(op, cache_version=version)
