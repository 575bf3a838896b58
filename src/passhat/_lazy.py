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
from collections.abc import Mapping
from typing import Any

__all__ = ["LazyPackage", "lazy_exports"]


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
