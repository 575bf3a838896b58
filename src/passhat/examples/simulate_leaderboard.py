"""The seeded simulation behind the bundled ``leaderboard`` example: six systems, shared tasks.

Six systems run the same 120 tasks, 5 runs each. The per-task success rate
follows a crossed logit model, logit p_si = θ_s + β_i + ε_si, with a task
effect β_i ~ Normal(0, 1.8) shared by every system (hard tasks are hard for
all), a system × task deviation ε_si ~ Normal(0, 0.6), and system effects

========== =====
system     θ_s
========== =====
frontier   1.6
mini       0.9
open-70b   0.9
guided     0.5
baseline   0.2
open-8b    −1.0
========== =====

so ``mini`` and ``open-70b`` are equal in truth (a tie a leaderboard must not
split) and the rest are set apart by known gaps. The bundled
``leaderboard.csv`` is exactly ``simulate_leaderboard().to_csv(path,
index=False)``; ``tests/test_examples.py`` checks that it still is.

Examples
--------
>>> from passhat.examples.simulate_leaderboard import simulate_leaderboard
>>> df = simulate_leaderboard()
>>> df["system"].nunique(), df["task_id"].nunique(), len(df)
(6, 120, 3600)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["LEADERBOARD_SEED", "SYSTEM_EFFECTS", "simulate_leaderboard"]

LEADERBOARD_SEED = 20261130

#: The systems' effects θ_s on the logit scale (the truth of the example).
SYSTEM_EFFECTS = {
    "frontier": 1.6,
    "mini": 0.9,
    "open-70b": 0.9,
    "guided": 0.5,
    "baseline": 0.2,
    "open-8b": -1.0,
}

_CATEGORIES = ("booking", "refund", "search", "support")


def simulate_leaderboard(
    *, n_tasks: int = 120, runs: int = 5, seed: int = LEADERBOARD_SEED
) -> pd.DataFrame:
    """Simulate the ``leaderboard`` example trial table (deterministic for a seed).

    Parameters
    ----------
    n_tasks, runs : int
        Tasks and runs per task of every system.
    seed : int
        Seed of :func:`numpy.random.default_rng`.
    """
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, 1.8, size=n_tasks)
    category = rng.choice(_CATEGORIES, size=n_tasks)
    task_ids = np.array([f"{category[i]}_{i + 1:03d}" for i in range(n_tasks)])
    frames = []
    for system, theta in SYSTEM_EFFECTS.items():
        eps = rng.normal(0.0, 0.6, size=n_tasks)
        p = 1.0 / (1.0 + np.exp(-(theta + beta + eps)))
        success = rng.random((n_tasks, runs)) < p[:, None]
        frames.append(
            pd.DataFrame(
                {
                    "system": system,
                    "task_id": np.repeat(task_ids, runs),
                    "trial": np.tile(np.arange(runs), n_tasks),
                    "success": success.ravel(),
                    "category": np.repeat(category, runs),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    df["success"] = df["success"].astype("boolean")
    return df
