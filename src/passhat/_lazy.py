"""Lazy public names for a package (PEP 562): ``import passhat`` stays cheap.

A package declares where each public name lives; the name's module is imported
the first time the name is used (``ph.estimate``, ``from passhat import fit``),
and the value is then kept in the package's namespace, so later uses cost
nothing. ``dir()`` lists the public names (``__all__``) and nothing else, before
any is loaded.

The package's module becomes a :class:`LazyPackage`. Besides ``__getattr__``
and ``__dir__``, it keeps a public name bound to its declared value when the
import system later binds a submodule of the same name: ``passhat.estimate`` is
both a module and the function it defines, and with eager imports the
``from passhat.estimate import estimate`` line of ``__init__`` decided which one
``ph.estimate`` is. Lazily, a submodule imported first (say by
``passhat.report``) would otherwise replace the function with the module.

Examples
--------
>>> import passhat as ph
>>> "estimate" in dir(ph) and callable(ph.estimate)
True
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeGuard

__all__ = ["LazyPackage", "defer_dask", "is_numpy", "lazy_exports", "load_modules"]


def is_numpy(obj: object, kind: str = "generic") -> TypeGuard[Any]:
    """Whether ``obj`` is an instance of ``numpy.<kind>`` (``"generic"``, ``"integer"``,
    ``"floating"``, ``"bool_"``, ``"ndarray"``), without importing numpy: while numpy is not
    imported, no object can be one, so a closed-form command never loads it to ask.

    Examples
    --------
    >>> import numpy as np
    >>> is_numpy(np.int64(3), "integer"), is_numpy(3, "integer"), is_numpy(np.float64(1))
    (True, False, True)
    """
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, getattr(np, kind))


class LazyPackage(types.ModuleType):
    """A package module whose public names are imported on first use (see the module doc)."""

    _lazy_where: dict[str, tuple[str, str | None]]

    def __getattr__(self, name: str) -> Any:
        where = type(self)._lazy_where.get(name)
        if where is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        module_name, attr = where
        module = importlib.import_module(module_name)
        value = module if attr is None else getattr(module, attr)
        types.ModuleType.__setattr__(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        public = getattr(self, "__all__", None)
        if public is None:
            return sorted(set(super().__dir__()) | set(type(self)._lazy_where))
        return sorted(public)

    def __setattr__(self, name: str, value: Any) -> None:
        where = type(self)._lazy_where.get(name)
        if (
            where is not None
            and where[1] is not None
            and isinstance(value, types.ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            # the import system binding submodule passhat.<name>: the public name is the
            # object of that name declared in the package's exports, not the module
            return
        super().__setattr__(name, value)


def lazy_exports(
    package: str,
    exports: Mapping[str, tuple[str, ...]],
    modules: Mapping[str, str] | None = None,
) -> None:
    """Make ``package``'s public names lazy.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : mapping of module name to names
        ``{"passhat.estimate": ("Estimate", "estimate")}``: each name is the
        attribute of that module.
    modules : mapping of name to module name, optional
        Names that are modules themselves: ``{"plan": "passhat.planner"}``.

    Examples
    --------
    >>> import passhat, types
    >>> isinstance(passhat, types.ModuleType) and type(passhat).__name__
    'LazyPackage'
    """
    where: dict[str, tuple[str, str | None]] = {
        name: (module, name) for module, names in exports.items() for name in names
    }
    where.update({name: (module, None) for name, module in (modules or {}).items()})
    cls = type("LazyPackage", (LazyPackage,), {"_lazy_where": where})
    sys.modules[package].__class__ = cls


def load_modules(names: Iterable[str]) -> None:
    """Import these modules by name (each once; a module that registers something on import,
    such as a reader of :mod:`passhat.io`, is loaded when first needed).

    Examples
    --------
    >>> load_modules(["passhat.errors"])
    """
    for name in names:
        if name not in sys.modules:
            importlib.import_module(name)


# ------------------------------------------------------------ xarray without dask until used
class _DaskArrayType:
    """Stands in for xarray's record of the dask module (``pycompat.DuckArrayModule("dask")``)
    until dask is imported by someone.

    xarray asks, for every array it wraps, whether it is a ``dask.array.Array``, and answers by
    importing dask (~0.3 s) when dask is installed. No object can be an instance of a class that
    was never imported, so while ``dask.array`` is not in ``sys.modules`` the answer is "no"
    without importing it; once it is, xarray's own record is made and used (and replaces this
    one in xarray's cache).
    """

    def __init__(self, real: Callable[[str], Any], cache: dict[str, Any]) -> None:
        self._real = real
        self._cache = cache

    def _load(self) -> Any:
        real = self._real("dask")
        self._cache["dask"] = real
        return real

    @property
    def type(self) -> tuple[type[Any], ...]:
        if "dask.array" not in sys.modules:
            return ()
        return tuple(self._load().type)

    def __getattr__(self, name: str) -> Any:  # module, version, available: xarray's own
        return getattr(self._load(), name)


def _dask_collection_check(real: Callable[[object], bool]) -> Callable[[object], bool]:
    """xarray's ``is_dask_collection``, answering False without importing dask while dask is not
    imported (a dask collection cannot exist before dask is)."""

    def is_dask_collection(x: object) -> bool:
        return "dask" in sys.modules and real(x)

    return is_dask_collection


def _patch_xarray(pycompat: types.ModuleType) -> None:
    """Install :class:`_DaskArrayType` and :func:`_dask_collection_check` in xarray (see
    :func:`defer_dask`); nothing when dask is imported already or xarray's internals differ."""
    utils = sys.modules.get("xarray.namedarray.utils")
    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    real = getattr(pycompat, "DuckArrayModule", None)
    check = getattr(utils, "is_dask_collection", None)
    if "dask" in sys.modules or not isinstance(cache, dict) or real is None or check is None:
        return
    if "dask" not in cache:
        cache["dask"] = _DaskArrayType(real, cache)
    if not getattr(check, "__qualname__", "").startswith("_dask_collection_check"):
        utils.is_dask_collection = _dask_collection_check(check)  # type: ignore[union-attr]


class _AfterImport:
    """A finder on ``sys.meta_path`` (an ``importlib.abc.MetaPathFinder``; not subclassed, which
    would import ``importlib.abc`` at ``import passhat``) that runs ``then(module)`` right after
    the module ``name`` is first executed."""

    def __init__(self, name: str, then: Callable[[types.ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        import importlib.util

        sys.meta_path.remove(self)  # once; the next finders find the module itself
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        run, then = loader.exec_module, self.then

        def exec_module(module: types.ModuleType) -> None:
            run(module)
            then(module)

        loader.exec_module = exec_module
        return spec


def defer_dask() -> None:
    """Keep xarray from importing dask until dask is used (``--scheduler``, a planner sweep).

    With dask installed (the ``[dask]`` extra), xarray imports it the first time it wraps an
    array, to ask whether the array is a dask array (~0.3 s of a command's start). After this
    call it asks only once dask has been imported; the answers are the same (see
    :class:`_DaskArrayType`). The CLI calls it at start; a library user's process is left as is.

    Examples
    --------
    >>> defer_dask()  # idempotent; once xarray is imported it acts at once, or not at all
    """
    name = "xarray.namedarray.pycompat"
    if name in sys.modules:
        _patch_xarray(sys.modules[name])
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, _patch_xarray))
