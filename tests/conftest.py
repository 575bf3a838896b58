"""Shared fixtures. Data from ../shared are used when present and skipped with a reason when not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PASSHAT_SHARED", ROOT.parent / "shared"))
TAU_AIRLINE = SHARED / "data" / "tau-bench" / "gpt-4o-airline.json"

# Keep PyMC quiet and its compile cache inside the project.
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")


@pytest.fixture(scope="session")
def tau_airline_path() -> Path:
    """τ-bench gpt-4o airline results (50 tasks × 4 trials, MIT), from ../shared."""
    if not TAU_AIRLINE.exists():
        pytest.skip(f"τ-bench data not found at {TAU_AIRLINE} (../shared is absent)")
    return TAU_AIRLINE


@pytest.fixture(scope="session")
def agents_trials():
    """The bundled two-system example."""
    import passhat as ph

    return ph.load_example("agents")
