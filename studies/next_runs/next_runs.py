"""Study: the adaptive next batch against the same runs spread evenly (issue 15, allocation).

For each regime of true task rates (Beta near 1, U-shaped, uniform), T tasks
and a pilot of 3 runs per task, one next batch of ``budget`` runs is spent two
ways: by :func:`passhat.plan.next_runs` (benchmark scope, pass^k) and evenly
over the tasks. Both read their runs from the same random stream per task
(common random numbers), so the comparison is paired. The estimate is
passhat's unbiased pass^k averaged over the tasks; its error is measured
against the known truth (1/T) Σ p_i^k of those tasks. Reported per regime:
the MSE of both, their ratio (uniform / adaptive: the factor the adaptive
batch buys) with its Monte Carlo standard error (delta method on the paired
squared errors).

Checks (issue 15): factor ≥ 1.3 in the near-all-pass regime; in no regime is
the adaptive batch worse than uniform beyond 2 Monte Carlo standard errors.
Failed checks are listed in the results, not hidden. Since the batch is hedged
against uniform runs under the uncertainty of the fitted prior, near-all-pass
truths pass the second check (the batch falls back to even runs there) but
not the first, see the README in reports/next_runs.

Run: ``.venv/bin/python studies/next_runs/next_runs.py`` (writes
``reports/next_runs/``), or ``make study``.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # many small fits: threads only contend
from pathlib import Path
from typing import Any

import numpy as np

import passhat as ph

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "next_runs"

#: Regimes of true per-task rates: name → Beta(a, b).
REGIMES: dict[str, tuple[float, float]] = {
    "near all-pass": (12.0, 0.6),
    "U-shaped": (0.3, 0.3),
    "uniform": (1.0, 1.0),
}
PILOT = 3

#: What the numbers mean (written into the README under the table).
WHY = [
    "Why near-all-pass truths are hard for an adaptive batch: the estimate pools each task's "
    "pilot and new runs, and which tasks get new runs depends on the pilot. Flaky pilots "
    "(pass^3 estimate 0 from 2 of 3) get diluted; all-pass pilots (estimate 1, too high "
    "whenever the rate is below 1) mostly keep theirs, and these errors all have one sign. "
    "Uniform runs dilute every pilot alike and stay unbiased. next_runs therefore minimises the "
    "expected squared error of the average given the pilot, bias terms included, averaged over "
    "the posterior of the Beta prior's (μ, κ). With the true (μ, κ) known that batch beats "
    "uniform runs 2.4× in this regime (T = 100, 150 benchmarks), but (μ, κ) estimated from 3 "
    "runs per task are too uncertain near rates of 1: the unhedged batch was 0.97/0.90/0.87 "
    "(± 0.05) × as accurate as uniform runs at T = 50/100/200 (300 benchmarks per row).",
    "The hedge: next_runs now also evaluates an even share of the batch with the rest spent "
    "greedily, and the even spread itself, under each of the 16 (μ, κ) points, and keeps the "
    "candidate whose worst ratio to the even spread's expected squared error is smallest. Near "
    "rates of 1 some plausible (μ, κ) make the greedy batch much worse than even runs (up to "
    "1.2–1.7× in the example benchmarks), so it falls back to even runs there: in all 900 "
    "near-all-pass benchmarks, factor 1, never worse, and the issue's 1.3× target is not met. "
    "Where tasks are clearly split (U-shaped) the greedy batch is kept in 93–99% of the "
    "benchmarks and the factor stays 1.29–1.39 (unhedged: 1.30–1.45); for uniform truths in "
    "54–76% and the factor is 1.11–1.16 (unhedged: 1.08–1.18), all within Monte Carlo error "
    "of the unhedged batch. Reaching 1.3× near rates of 1 needs a better-known prior (a larger "
    "pilot, or a stated prior=Assumptions(...) from earlier evaluations: with the true one the "
    "greedy batch gains 2.4×).",
]


def replicate(
    a: float, b: float, *, tasks: int, budget: int, k: int, rng: np.random.Generator
) -> tuple[float, float, str]:
    """Squared errors (adaptive, uniform) of the pass^k estimate in one simulated benchmark,
    and which batch next_runs chose (greedy, mixed or uniform: its hedge)."""
    p = rng.beta(a, b, tasks)
    stream = rng.random((tasks, PILOT + budget)) < p[:, None]
    truth = float(np.mean(p**k))
    c0 = stream[:, :PILOT].sum(axis=1)
    data = ph.counts_from_arrays(np.full(tasks, PILOT), c0)
    plan = ph.plan.next_runs(data, budget=budget, k=k)
    extra = np.zeros(tasks, dtype=np.int64)
    idx = {str(t): i for i, t in enumerate(ph.estimators.as_counts(data)["task"].values)}
    extra[[idx[str(t)] for t in plan["task"]]] = plan["extra_runs"].to_numpy()
    uniform = np.full(tasks, budget // tasks) + (np.arange(tasks) < budget % tasks)
    errors = []
    for more in (extra, uniform):
        n = PILOT + more
        cum = np.cumsum(stream, axis=1)
        c = cum[np.arange(tasks), n - 1]
        errors.append((float(np.mean(ph.pass_hat_k(n, c, k))) - truth) ** 2)
    hedge = plan.attrs["hedge"]
    return errors[0], errors[1], "greedy" if hedge is None else str(hedge["choice"])


def compare(
    regime: str, *, tasks: int, budget: int, k: int, reps: int, seed: int
) -> dict[str, Any]:
    """MSE of both batches over ``reps`` simulated benchmarks, and their ratio with its MC error."""
    a, b = REGIMES[regime]
    rng = np.random.default_rng([seed, tasks, budget, k, list(REGIMES).index(regime)])
    out = [replicate(a, b, tasks=tasks, budget=budget, k=k, rng=rng) for _ in range(reps)]
    ea = np.array([o[0] for o in out])
    eu = np.array([o[1] for o in out])
    choices = [o[2] for o in out]
    ratio = float(eu.mean() / ea.mean())
    se = float(np.std(eu - ratio * ea, ddof=1) / np.sqrt(reps) / ea.mean())
    return {
        "regime": regime,
        "beta": [a, b],
        "tasks": tasks,
        "pilot_runs": PILOT,
        "budget": budget,
        "k": k,
        "reps": reps,
        "mse_adaptive": float(ea.mean()),
        "mse_uniform": float(eu.mean()),
        "factor": ratio,
        "factor_se": se,
        "choices": {ch: choices.count(ch) for ch in ("greedy", "mixed", "uniform")},
    }


def run(out: Path = OUT, *, seed: int = 0, reps: int = 300) -> dict[str, Any]:
    """The whole grid: every regime × T ∈ {50, 100, 200}, budget 2T, k = 3; writes ``out``."""
    rows = []
    for regime in REGIMES:
        for tasks in (50, 100, 200):
            rows.append(compare(regime, tasks=tasks, budget=2 * tasks, k=3, reps=reps, seed=seed))
            r = rows[-1]
            print(f"{regime:14s} T={tasks:4d}  factor {r['factor']:.2f} ± {r['factor_se']:.2f}")
    failures = []
    for r in rows:
        if r["regime"] == "near all-pass" and r["factor"] < 1.3:
            failures.append(f"{r['regime']} T={r['tasks']}: factor {r['factor']:.2f} < 1.3")
        if r["factor"] < 1 - 2 * r["factor_se"]:
            failures.append(
                f"{r['regime']} T={r['tasks']}: worse than uniform ({r['factor']:.2f} ± "
                f"{r['factor_se']:.2f})"
            )
    result = {"seed": seed, "reps": reps, "rows": rows, "failures": failures}
    write(result, out)
    return result


def write(result: dict[str, Any], out: Path = OUT) -> None:
    """``results.json`` and the README with the table (also from a saved ``results.json``)."""
    seed, reps, rows, failures = (result[key] for key in ("seed", "reps", "rows", "failures"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Adaptive next batch vs the same runs spread evenly",
        "",
        "Generated by `studies/next_runs/next_runs.py` (`make study`). Pilot: 3 runs per task; "
        "one next batch of 2T runs; estimate: the unbiased pass^3 averaged over the tasks; "
        f"error against the known truth (1/T) Σ p_i^3; {reps} simulated benchmarks per row "
        f"(seed {seed}), both batches drawn from the same runs per task. Factor = MSE uniform / "
        "MSE adaptive, ± its Monte Carlo standard error (0 where next_runs chose the even spread "
        "in every benchmark: the two batches are then the same runs). The last column: how "
        "often next_runs kept its greedy batch, mixed it with an even share, or spread the runs "
        "evenly (its hedge against the uncertainty of the fitted prior).",
        "",
        "| regime | Beta(a, b) | T | budget | MSE adaptive | MSE uniform | factor | "
        "batch chosen (greedy/mixed/even) |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['regime']} | Beta({r['beta'][0]:g}, {r['beta'][1]:g}) | {r['tasks']} | "
            f"{r['budget']} | {r['mse_adaptive']:.3e} | {r['mse_uniform']:.3e} | "
            f"{r['factor']:.2f} ± {r['factor_se']:.2f} | "
            f"{r['choices']['greedy']}/{r['choices']['mixed']}/{r['choices']['uniform']} |"
        )
    lines += ["", "Checks: " + ("all pass." if not failures else "FAILED: " + "; ".join(failures))]
    for paragraph in WHY:
        lines += ["", paragraph]
    lines.append("")
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 300
    return 1 if run(reps=reps)["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
