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


# The joint model's tests share one pytest-xdist worker (`make test` runs `--dist loadgroup`):
# each worker compiles the model for NUTS once per (form, number of systems), ~20-40 s each,
# so splitting these tests over two workers compiled everything twice.
JOINT_GROUP = (
    "tests/commands/test_fit_joint.py::",
    "tests/model/test_model_joint.py::",
    "tests/model/test_model_joint_rasch.py::",
    "tests/model/test_model_joint_quad.py::",
    "tests/rank/test_rank_leaderboard.py::test_joint_engine_with_a_real_joint_fit",
    "tests/rank/test_rank_leaderboard.py::test_rasch_engine_fits_the_rasch_form",
    "src/passhat/model/joint_fit.py::",
    "src/passhat/model/joint_result.py::",
    "src/passhat/model/joint_rasch.py::",
    "src/passhat/model/joint_ops.py::",
    "src/passhat/model/joint_rasch_ops.py::",
)


# Likewise the tests that use a session fixture sampled by NUTS (the hierarchical and the
# zero/one-inflated models, and the report built with them): one worker builds each once.
NUTS_FIXTURES = frozenset(
    {"agents_nuts", "agents_inflated", "tau_nuts", "malicious_report", "malicious_dir"}
)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(JOINT_GROUP):
            item.add_marker(pytest.mark.xdist_group("joint-model"))
        elif NUTS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("nuts-fixtures"))
