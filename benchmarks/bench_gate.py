"""Gate speed: an anytime-valid decision (``ph.plan.sequential``) on 10^5 runs.

Target (issue 15): a gate decision on 10^5 runs < 0.5 s, in-process, on loaded runs (the
file is read once by the harness; reading is ``passhat estimate``'s benchmark). Three
cases, each the slowest path of its kind — a "continue" also computes the confidence
sequence and the projection of further runs:

* a failure bound, 1,000 tasks × 100 runs, k = 5 (continue: the rate sits near the bound);
* a failure bound, 100 tasks × 1,000 runs, k = 1 (pass);
* a comparison with a baseline, 500 tasks × 100 runs per build (10^5 runs in all), k = 5.

Beside each, the ratio to a fixed-n planner call in the same process
(``plan.runs_to_certify(max_failure_rate=0.01, allowed_failures=10)``, the one-shot
question the gate replaces). Run: ``.venv/bin/python benchmarks/bench_gate.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import passhat as ph
from passhat import planner as plan


def best_of(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def trials(rates: np.ndarray, runs: int, system: str, rng: np.random.Generator) -> ph.Trials:
    T = rates.size
    ok = rng.random((T, runs)) < rates[:, None]
    df = pd.DataFrame(
        {
            "system": system,
            "task_id": np.repeat([f"t{i:05d}" for i in range(T)], runs),
            "trial": np.tile(np.arange(runs), T),
            "success": ok.ravel(),
        }
    )
    return ph.Trials.from_frame(df)


def main() -> None:
    rng = np.random.default_rng(0)
    fixed = lambda: plan.runs_to_certify(max_failure_rate=0.01, allowed_failures=10)  # noqa: E731
    fixed()
    t_fixed, n_fixed = best_of(fixed, repeat=20)
    print(
        f"fixed-n planner: runs_to_certify(0.01, allowed=10) = {n_fixed}: "
        f"{1e3 * t_fixed:.2f} ms (best of 20)"
    )
    near = np.where(rng.random(1000) < 0.9, 1.0, 0.95)  # pass^5 failure ≈ 2.3%
    bound_k5 = trials(near, 100, "cand", rng)
    bound_k1 = trials(np.full(100, 0.999), 1000, "cand", rng)
    base_rates = rng.beta(4, 1, 500)
    base = trials(base_rates, 100, "old", rng)
    cand = trials(np.clip(base_rates + 0.01, 0, 1), 100, "new", rng)
    cases: dict[str, Callable[[], ph.plan.SequentialResult]] = {
        "bound 0.025, 1,000 tasks × 100 runs, k = 5": lambda: ph.plan.sequential(
            bound_k5, k=5, max_failure_rate=0.025
        ),
        "bound 0.01, 100 tasks × 1,000 runs, k = 1": lambda: ph.plan.sequential(
            bound_k1, k=1, max_failure_rate=0.01
        ),
        "margin 0.02, 500 tasks × 100 runs × 2 builds, k = 5": lambda: ph.plan.sequential(
            cand, base, k=5, margin=0.02
        ),
    }
    print("\ngate decisions on 10^5 runs (best of 5, in-process; target < 0.5 s each)")
    worst = 0.0
    for name, fn in cases.items():
        fn()
        t, g = best_of(fn)
        worst = max(worst, t)
        extra = "" if g.further_runs is None else f", {g.further_runs} more runs projected"
        print(
            f"  {name:<52} {1e3 * t:7.1f} ms  ({t / t_fixed:,.0f}× the fixed-n call)  "
            f"→ {g.decision} after {g.rounds} rounds{extra}"
        )
    print(f"  slowest: {1e3 * worst:.1f} ms ({'OK' if worst < 0.5 else 'OVER'} target 500 ms)")


if __name__ == "__main__":
    main()
