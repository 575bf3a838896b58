"""The seeded simulation behind the bundled ``agents`` example.

Two systems run the same 168 tasks (as many as AppWorld's test-normal split),
5 decided runs each. Each task has a latent success rate from a three-part
mixture, the shape real agent evaluations show:

* a share of tasks the system always solves (p = 1),
* a share it never solves (p = 0),
* the rest flip, with p ~ Beta(a, b).

``baseline`` has 48% always-pass, 12% always-fail and 40% flipping tasks with
p ~ Beta(2.6, 1.2); ``guided`` moves half of the baseline's flipping tasks to
always-pass. About 1.5% of runs hit an infrastructure error; the harness
re-ran those, so they appear as extra *unscored* rows (``status =
infrastructure_error``) and every task keeps 5 decided runs. Failed runs carry
a status (``timeout``, ``tool_error``, ``max_steps`` or ``ok`` for a wrong
answer).

The bundled ``agents.csv`` is exactly ``simulate_agents().to_csv(path,
index=False)``; ``tests/test_examples.py`` checks that it still is.

Examples
--------
>>> from passhat.examples.simulate import simulate_agents
>>> df = simulate_agents()
>>> sorted(df["system"].unique().tolist()), df["task_id"].nunique()
(['baseline', 'guided'], 168)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CATEGORIES", "DEFAULT_SEED", "simulate_agents"]

DEFAULT_SEED = 20260928
CATEGORIES = (
    "amazon",
    "file_system",
    "gmail",
    "phone",
    "simple_note",
    "spotify",
    "todoist",
    "venmo",
)
FAIL_STATUSES = ("ok", "timeout", "tool_error", "max_steps")
FAIL_STATUS_P = (0.55, 0.15, 0.2, 0.1)


def _task_rates(rng: np.random.Generator, n_tasks: int) -> tuple[np.ndarray, np.ndarray]:
    kind = rng.choice(3, size=n_tasks, p=(0.48, 0.12, 0.40))
    p = np.where(kind == 0, 1.0, 0.0)
    flip = kind == 2
    p[flip] = rng.beta(2.6, 1.2, size=int(flip.sum()))
    return p, kind


def simulate_agents(
    *, n_tasks: int = 168, runs: int = 5, seed: int = DEFAULT_SEED, unscored_rate: float = 0.015
) -> pd.DataFrame:
    """Simulate the ``agents`` example trial table (deterministic for a seed).

    Parameters
    ----------
    n_tasks, runs : int
        Tasks and decided runs per task.
    seed : int
        Seed of :func:`numpy.random.default_rng`.
    unscored_rate : float
        Chance that an attempt hits an infrastructure error and is re-run.
    """
    rng = np.random.default_rng(seed)
    p_base, kind = _task_rates(rng, n_tasks)
    p_guided = p_base.copy()
    flipping = np.flatnonzero(kind == 2)
    fixed = rng.choice(flipping, size=len(flipping) // 2, replace=False)
    p_guided[fixed] = 1.0
    category = rng.choice(CATEGORIES, size=n_tasks)
    task_ids = [f"{category[i]}_{i + 1:03d}" for i in range(n_tasks)]
    scenario = [f"{rng.integers(0, 2**48):012x}" for _ in range(n_tasks)]
    rows: list[tuple[object, ...]] = []
    for system, rates in (("baseline", p_base), ("guided", p_guided)):
        for i in range(n_tasks):
            trial = 0
            decided = 0
            while decided < runs:
                duration = float(np.round(rng.gamma(4.0, 12.0), 1))
                cost = float(np.round(duration * 0.0021, 4))
                if rng.random() < unscored_rate:
                    rows.append(
                        (
                            system,
                            task_ids[i],
                            trial,
                            None,
                            "infrastructure_error",
                            category[i],
                            scenario[i],
                            duration,
                            cost,
                        )
                    )
                else:
                    ok = bool(rng.random() < rates[i])
                    status = "ok" if ok else str(rng.choice(FAIL_STATUSES, p=FAIL_STATUS_P))
                    rows.append(
                        (
                            system,
                            task_ids[i],
                            trial,
                            ok,
                            status,
                            category[i],
                            scenario[i],
                            duration,
                            cost,
                        )
                    )
                    decided += 1
                trial += 1
    df = pd.DataFrame(
        rows,
        columns=[
            "system",
            "task_id",
            "trial",
            "success",
            "status",
            "category",
            "scenario_hash",
            "duration_s",
            "cost",
        ],
    )
    df["success"] = df["success"].astype("boolean")
    return df
