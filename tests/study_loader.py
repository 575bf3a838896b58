"""Load a study script from ``studies/`` as a module (the studies are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_study(path: Path, name: str) -> ModuleType:
    """The module at ``path`` (absolute, or relative to the project root), imported as ``name``
    and registered in ``sys.modules`` under it."""
    full = path if path.is_absolute() else ROOT / path
    spec = importlib.util.spec_from_file_location(name, full)
    assert spec is not None and spec.loader is not None, full
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses and worker processes look the module up by name
    spec.loader.exec_module(mod)
    return mod
