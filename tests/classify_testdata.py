"""Run sets for the classification tests: per task (true rate, runs, scenario hash), a baseline
and a candidate that differ in known ways (one regression, one fix, one flaky, one redefined)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import passhat as ph


def build_runs(spec: dict[str, tuple[float, int, str]], seed: int, system: str) -> ph.Trials:
    """Trials of ``system`` from spec: task -> (p, n, scenario_hash), seeded."""
    rng = np.random.default_rng(seed)
    rows = []
    for task, (p, n, h) in spec.items():
        for trial, ok in enumerate(rng.random(n) < p):
            rows.append(
                {
                    "system": system,
                    "task_id": task,
                    "trial": trial,
                    "success": bool(ok),
                    "scenario_hash": h,
                }
            )
    return ph.Trials.from_frame(pd.DataFrame(rows))


BASE = {
    "regressed": (1.0, 20, "h1"),
    "fixed": (0.0, 20, "h2"),
    "flaky": (0.5, 20, "h3"),
    "redefined": (1.0, 20, "h4"),
    "always": (1.0, 20, "h5"),
    "never": (0.0, 20, "h6"),
    "few": (1.0, 2, "h7"),
    "base_only": (1.0, 5, "h8"),
}


CAND = {
    "regressed": (0.1, 20, "h1"),
    "fixed": (0.9, 20, "h2"),
    "flaky": (0.5, 20, "h3"),
    "redefined": (1.0, 20, "h4-changed"),
    "always": (1.0, 20, "h5"),
    "never": (0.0, 20, "h6"),
    "few": (0.0, 2, "h7"),
    "cand_only": (1.0, 5, "h9"),
}
