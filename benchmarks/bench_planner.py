"""Planner speed: every closed-form query, and a design table for a 10,000-run budget.

Targets (issue 5): each closed-form query < 50 ms in-process; the design table over all
(tasks, runs per task) of a 10,000-run budget < 1 s (``all_pairs=True``; the default table
keeps the efficient rows). Baseline for the design table: a per-(T, n) Python loop that
evaluates the same exact BetaBinomial average with scipy.stats.betabinom and math.comb, on
the efficient rows. Then ``plan.power``'s default (compare's sign-flip test, its power computed)
beside the paired t-test, in the same process, for each form of the question (CPU seconds,
best of 3; every answer includes its sensitivity table over 7–8 correlations); target: a few
seconds at most for one design. Run: ``.venv/bin/python benchmarks/bench_planner.py``.
"""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
from scipy import stats

from passhat import planner as plan

PRIOR = plan.Assumptions(mean=0.77, icc=0.4)


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def baseline_design(rows: list[tuple[int, int]], k: int) -> list[dict[str, float]]:
    """Naive: for each (T, n) row, Var U of mean, pass@k, pass^k by a Python loop over c."""
    a, b = PRIOR.a, PRIOR.b
    out = []
    for t, n in rows:
        pmf = stats.betabinom.pmf(np.arange(n + 1), n, a, b)
        m = dict.fromkeys(("mean", "pass_at_k", "pass_hat_k"), 0.0)
        m2 = dict(m)
        cnk = math.comb(n, k)
        for c in range(n + 1):
            us = {
                "mean": c / n,
                "pass_at_k": 1 - math.comb(n - c, k) / cnk,
                "pass_hat_k": math.comb(c, k) / cnk,
            }
            for key, u in us.items():
                m[key] += pmf[c] * u
                m2[key] += pmf[c] * u * u
        out.append({key: math.sqrt((m2[key] - m[key] ** 2) / t) for key in m})
    return out


def cpu_best_of(fn, repeat=3):
    """Least CPU seconds (user + sys of this process) of ``repeat`` calls, and the last result."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return min(times), out


def power_methods() -> None:
    """plan.power's default (sign-flip, computed) beside the t-test, every form of the question."""
    prior = plan.Assumptions(mean=0.6, icc=0.3)
    forms = {
        "power at 100 tasks × 5 runs": {"delta": 0.1, "tasks": 100, "runs_per_task": 5},
        "tasks for power 0.8 at 5 runs": {"delta": 0.1, "runs_per_task": 5, "power": 0.8},
        "runs per task at 100 tasks": {"delta": 0.1, "tasks": 100, "power": 0.8},
        "delta at 100 tasks × 5 runs": {"tasks": 100, "runs_per_task": 5, "power": 0.8},
        "designs table (1 … 16 runs)": {"delta": 0.1, "power": 0.8},
        "pass^5, tasks at 5 runs": {"delta": 0.05, "runs_per_task": 5, "power": 0.8, "k": 5,
                                    "metric": "pass_hat_k"},
    }  # fmt: skip
    print("\nplan.power (μ = 0.6, ICC = 0.3; CPU s, best of 3; target: a few seconds at most)")
    print(f"  {'question':<32} {'sign-flip (default)':>20} {'t-test':>10}  answers")
    plan.power(prior=prior, **forms["power at 100 tasks × 5 runs"])  # warm imports
    for name, ask in forms.items():
        p_ask = {"prior": plan.Assumptions(mean=0.77, icc=0.4)} if "k" in ask else {"prior": prior}
        t_sf, sf = cpu_best_of(lambda a=ask, p=p_ask: plan.power(**p, **a))
        t_tt, tt = cpu_best_of(lambda a=ask, p=p_ask: plan.power(**p, **a, method="t-test"))
        print(f"  {name:<32} {t_sf:>18.3f} s {t_tt:>8.3f} s  {sf.answer()} | {tt.answer()}")


def main() -> None:
    queries = {
        "runs_to_detect(flip_rate=0.1)": lambda: plan.runs_to_detect(flip_rate=0.1),
        "failure_upper_bound(runs=30)": lambda: plan.failure_upper_bound(runs=30),
        "failure_upper_bound(runs=1000, failures=7)": lambda: plan.failure_upper_bound(
            runs=1000, failures=7
        ),
        "runs_to_certify(0.05, allowed=2)": lambda: plan.runs_to_certify(
            max_failure_rate=0.05, allowed_failures=2
        ),
        "runs_to_certify(0.001, allowed=10)": lambda: plan.runs_to_certify(
            max_failure_rate=0.001, allowed_failures=10
        ),
        "runs_for_width(0.05, 0.8, wilson)": lambda: plan.runs_for_width(half_width=0.05, rate=0.8),
        "runs_for_width(0.01, 0.8, clopper-pearson)": lambda: plan.runs_for_width(
            half_width=0.01, rate=0.8, method="clopper-pearson"
        ),
        "retry(0.9, 3)": lambda: plan.retry(rate=0.9, attempts=3),
        "rate_for_pass_hat_k(0.9, 5)": lambda: plan.rate_for_pass_hat_k(target=0.9, k=5),
        "choose_k(0.1, acceptable 0.001)": lambda: plan.choose_k(
            unacceptable_failure_rate=0.1, acceptable_failure_rate=0.001
        ),
        "power(delta=.05, n=5, power=.8, pass^5, t-test)": lambda: plan.power(
            delta=0.05,
            runs_per_task=5,
            power=0.8,
            prior=PRIOR,
            k=5,
            metric="pass_hat_k",
            method="t-test",
        ),
    }
    print("closed-form queries (best of 5, in-process; target < 50 ms each)")
    worst = 0.0
    for name, fn in queries.items():
        fn()  # warm imports
        t, out = best_of(fn)
        worst = max(worst, t)
        print(f"  {name:<45} {1e3 * t:8.2f} ms   → {float(out):.6g}")
    print(f"  slowest: {1e3 * worst:.2f} ms ({'OK' if worst < 0.05 else 'OVER'} target 50 ms)")

    budget, k = 10_000, 5
    plan.design(budget_runs=budget, k=k, prior=PRIOR)
    tracemalloc.start()
    t_design, designed = best_of(lambda: plan.design(budget_runs=budget, k=k, prior=PRIOR))
    table = designed.table
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n_rows = int((table["metric"] == "pass_hat_k").sum())
    print(
        f"\ndesign table, budget {budget} runs, k = {k}: {1e3 * t_design:.1f} ms "
        f"({n_rows} efficient (T, n) rows × 3 metrics; every n from {k} to {budget}; "
        f"peak memory {peak / 2**20:.1f} MiB) "
        f"({'OK' if t_design < 1 else 'OVER'} target 1 s)"
    )
    # baseline: a per-(T, n) Python loop over the same rows
    sub = table[table["metric"] == "pass_hat_k"]
    pairs = [(int(r.tasks), int(r.runs_per_task)) for r in sub.itertuples()]
    t0 = time.perf_counter()
    se_naive = baseline_design(pairs, k)
    t_base = time.perf_counter() - t0
    err = max(
        float(
            np.max(
                np.abs(
                    np.array([r[m] for r in se_naive])
                    - table.loc[table["metric"] == m, "se_population"].to_numpy()
                )
            )
        )
        for m in ("mean", "pass_at_k", "pass_hat_k")
    )
    print(
        f"baseline per-(T, n) Python loop over the same {len(pairs)} rows × 3 metrics: "
        f"{t_base:.2f} s "
        f"vs passhat {1e3 * t_design:.1f} ms → {t_base / t_design:.0f}× faster; "
        f"max |ΔSE| = {err:.1e}."
    )
    plan.design(budget_runs=budget, k=k, prior=PRIOR, all_pairs=True)
    t_all, full = best_of(lambda: plan.design(budget_runs=budget, k=k, prior=PRIOR, all_pairs=True))
    n_all = int((full.table["metric"] == "pass_hat_k").sum())
    same = full.optimum == designed.optimum
    print(
        f"design table over ALL {n_all} affordable (T, n) pairs × 3 metrics: "
        f"{1e3 * t_all:.1f} ms ({'OK' if t_all < 1 else 'OVER'} target 1 s); same optimum as "
        f"the efficient table: {same}"
    )
    power_methods()


if __name__ == "__main__":
    main()
