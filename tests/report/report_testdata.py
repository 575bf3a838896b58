"""Hostile test data for the report tests (imported by tests/report/conftest.py and tests)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import passhat as ph

MALICIOUS_TASK = "<script>alert(1)</script>"
MALICIOUS_SYSTEM = "sys<img src=x onerror=alert(2)>|`*"


def malicious_trials() -> ph.Trials:
    """Two systems, 12 tasks × 6 runs; one flaky task id and a system name are HTML/Markdown."""
    rows = []
    pattern = [6, 6, 6, 0, 0, 3, 4, 5, 6, 2, 6, 1]
    for system, shift in (("plain", 0), (MALICIOUS_SYSTEM, 1)):
        for t, c in enumerate(pattern):
            task = MALICIOUS_TASK if t == 5 else f"task_{t:02d}"
            c = min(6, c + shift) if t > 8 else c
            for trial in range(6):
                rows.append(
                    {"system": system, "task_id": task, "trial": trial, "success": trial < c}
                )
    return ph.Trials.from_frame(pd.DataFrame(rows), source={"example": "malicious"})


#: Options that keep a report's results quick to compute (no model, no plan, few resamples).
FAST_RESULTS = {"model": False, "plan": False, "compare_models": False, "n_boot": 200, "seed": 0}


def results_of(data, **options):  # type: ignore[no-untyped-def]
    """The report's results (:func:`passhat.report.build.compute_results`) with the fast options
    unless ``options`` say otherwise."""
    from passhat.report.build import compute_results

    return compute_results(data, **{**FAST_RESULTS, **options})


#: Two systems × 24 tasks × 6 runs with a score in quarters (partial credit; success = score
#: ≥ 0.5), a category (one of them an HTML name), a cluster (6 clusters of 4 tasks) and a cost
#: per run: the data-driven sections' fixture (made once with numpy's default_rng(31)).
EXTRAS_CSV = Path(__file__).parent / "data" / "extras.csv"

#: The options of the fixture's report and of its oracle, ``passhat estimate`` on the same file.
EXTRAS_K = [1, 2, 5]


def extras_estimate_json(*extra: str) -> dict:  # type: ignore[type-arg]
    """``passhat estimate EXTRAS_CSV --scores --by category --cost --json`` with the report's
    fast settings (the oracle of the report's sections)."""
    import contextlib
    import io
    import json

    from passhat.cli import main

    out = io.StringIO()
    argv = [
        "estimate",
        str(EXTRAS_CSV),
        "--k",
        ",".join(map(str, EXTRAS_K)),
        "--ci",
        "0.95",
        "--n-boot",
        str(FAST_RESULTS["n_boot"]),
        "--seed",
        "0",
        "--json",
        *extra,
    ]
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return json.loads(out.getvalue())
