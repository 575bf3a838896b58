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


# Tests that share a model compiled for NUTS run on one pytest-xdist worker each (`make test`
# runs `--dist loadgroup`): each worker compiles a model once per (form, number of systems),
# 20-40 s each, so splitting these tests over two workers compiled everything twice. pytest 9
# ignores the node-id suffix by which pytest-xdist 3.8 implements its xdist_group mark, so the
# groups are given to the scheduler here, by node-id prefix.
GROUPS: dict[str, tuple[str, ...]] = {
    "joint-model": (
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
    ),
    # the session fixtures sampled by NUTS (tests/model/conftest.py, tests/report/conftest.py)
    "nuts-fixtures": (
        "tests/model/test_model_loo.py::",
        "tests/model/test_model_result.py::",
        "tests/model/test_model_sampler.py::",
        "tests/model/test_model_summaries.py::",
        "tests/report/sections/test_section_model.py::",
        "tests/report/test_report_browser.py::",
        "tests/report/test_report_render.py::",
    ),
}


def group_of(nodeid: str) -> str:
    """The scheduling unit of a test: its group, else the test itself."""
    for name, prefixes in GROUPS.items():
        if nodeid.startswith(prefixes):
            return name
    return nodeid


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadgroup``: pytest-xdist's load-scope scheduler with the groups above (the
    largest units are handed out first, one per worker)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return Groups(config, log)
