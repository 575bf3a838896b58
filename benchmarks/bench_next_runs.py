"""Speed of ``plan.next_runs`` (issue 15): the next batch for 10^5 tasks in < 1 s.

The ratio is against today's fixed-n planner call in the same process: ``plan.design`` for
the same budget (the closed-form design table). Inputs: 10^5 tasks with 5 runs each, rates
from Beta(2, 0.5) (seed 0), budgets 200 and 10,000 runs; k = 5; benchmark and population
scope. Run: ``.venv/bin/python benchmarks/bench_next_runs.py``.
"""

from __future__ import annotations

import numpy as np
from bench_planner import best_of  # the same best-of-n timer (a sibling script)

import passhat as ph
from passhat import planner as plan


def main() -> None:
    rng = np.random.default_rng(0)
    tasks = 100_000
    p = rng.beta(2.0, 0.5, tasks)
    data = ph.counts_from_arrays(np.full(tasks, 5), rng.binomial(5, p))
    prior = plan.Assumptions(mean=0.8, kappa=2.5)
    print(f"plan.next_runs on {tasks:,} tasks × 5 runs, k = 5 (best of 3; target < 1 s)")
    worst = 0.0
    for budget in (200, 10_000):
        t_design, _ = best_of(lambda b=budget: plan.design(budget_runs=b, k=5, prior=prior))
        for scope in ("benchmark", "population"):
            t, out = best_of(lambda b=budget, s=scope: plan.next_runs(data, budget=b, k=5, scope=s))
            worst = max(worst, t)
            print(
                f"  budget {budget:>6,} {scope:<10}: {1e3 * t:7.1f} ms "
                f"({len(out):,} tasks get runs; width {out.attrs['width_now']:.4f} → "
                f"{out.attrs['width_after']:.4f}); plan.design for the same budget "
                f"{1e3 * t_design:.1f} ms → ratio {t / t_design:.1f}×"
            )
    print(f"  slowest: {1e3 * worst:.1f} ms ({'OK' if worst < 1 else 'OVER'} target 1 s)")
    # many runs per task: hundreds of distinct (runs, successes) groups, long tables (14 s before
    # the tables were gathered from log-Gamma per (group, c') and greedy scored occupied cells)
    p = rng.beta(2.0, 0.5, 100)
    deep = ph.counts_from_arrays(np.full(100, 500), rng.binomial(500, p))
    t, out = best_of(lambda: plan.next_runs(deep, budget=2000, k=5))
    print(f"  100 tasks × 500 runs, budget 2,000: {t:.2f} s ({len(out)} tasks get runs)")


if __name__ == "__main__":
    main()
