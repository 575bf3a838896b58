"""Shared report fixtures: each report is built once per session (the model uses the grid)."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_testdata import EXTRAS_CSV, EXTRAS_K, extras_estimate_json, malicious_trials, results_of

import passhat as ph


@pytest.fixture(scope="session")
def example_report(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The bundled example without the model (fast)."""
    out = tmp_path_factory.mktemp("example_report")
    return ph.report(ph.load_example("agents"), out, k=[1, 2, 5], seed=0, model=False)


@pytest.fixture(scope="session")
def malicious_report(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A small report with the grid model, on data whose strings are hostile (without the
    model comparison, whose inflated model needs NUTS)."""
    out = tmp_path_factory.mktemp("malicious_report")
    return ph.report(
        malicious_trials(), out, k=[1, 2, 5], seed=0, model=True, n_boot=500, compare_models=False
    )


@pytest.fixture(scope="session")
def malicious_dir(malicious_report) -> Path:  # type: ignore[no-untyped-def]
    return Path(malicious_report.paths.out_dir)


@pytest.fixture(scope="session")
def malicious_compared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile-name report with every section, the model comparison too (NUTS: for the
    integration tier)."""
    out = tmp_path_factory.mktemp("malicious_compared")
    ph.report(malicious_trials(), out, k=[1, 2, 5], seed=0, model=True, n_boot=500)
    return out


@pytest.fixture(scope="session")
def extras_results():  # type: ignore[no-untyped-def]
    """The report's results on the fixture with scores, categories, clusters and costs (fast
    settings: no model, no plan, 200 resamples)."""
    return results_of(ph.read(EXTRAS_CSV), k=EXTRAS_K)


@pytest.fixture(scope="session")
def extras_data(extras_results):  # type: ignore[no-untyped-def]
    """The document assembled from :func:`extras_results`."""
    from passhat.report.assemble import assemble_report

    return assemble_report(extras_results)


@pytest.fixture(scope="session")
def extras_oracle() -> dict:  # type: ignore[type-arg]
    """``passhat estimate --scores --by category --cost --json`` on the same file."""
    return extras_estimate_json("--scores", "--by", "category", "--cost")
