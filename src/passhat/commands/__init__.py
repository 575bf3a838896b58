"""CLI subcommands, one module per topic.

Each module defines ``register(cli: click.Group) -> None``; every module in
this package is discovered and registered by :mod:`passhat.cli`, so adding a
command never means editing another topic's file.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

__all__ = ["register_all"]


def register_all(cli: click.Group) -> None:
    """Import every command module here and let it attach its commands."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(cli)
