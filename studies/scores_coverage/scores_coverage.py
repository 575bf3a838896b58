"""Coverage of the score intervals (expected best / worst of k, mean score) by simulation.

Each task has a known score law on [0, 1]: an atom at 0, an atom at 1 and a Beta part
(``mixed``), a three-point law {0, ½, 1} as Inspect's partial credit gives (``partial``), or a
Beta law (``beta``). Its expected worst of k is ∫₀¹ S(t)^k dt and its expected best
∫₀¹ 1 − (1 − S(t))^k dt, S(t) = P(score ≥ t), integrated numerically on a fine grid.

* **benchmark scope**: the tasks (their laws) are fixed per regime; each replicate draws new
  runs; the interval should cover the mean over these tasks of their expected best / worst.
* **population scope**: each replicate draws new tasks (laws) and runs; the interval should
  cover the expected value over the law distribution (the mean over 5,000 drawn laws).

Nominal level 90%. With R replicates a coverage's Monte-Carlo standard error is
√(0.9·0.1/R) (0.0095 at R = 1,000); a cell passes at ≥ 0.85 (the issue's bar).

Run::

    .venv/bin/python studies/scores_coverage/scores_coverage.py [--reps 1000]
    # → reports/scores_coverage/coverage.csv, README.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from passhat.scores.intervals import score_columns, score_scope_intervals, task_columns

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "scores_coverage"
CI = 0.9
FLOOR = 0.85
GRID = np.linspace(0.0, 1.0, 2001)

#: (law family, tasks, runs per task, ks)
REGIMES = [
    ("mixed", 50, 3, [1, 2, 3]),
    ("mixed", 50, 5, [1, 2, 5]),
    ("mixed", 100, 10, [1, 2, 5]),
    ("partial", 50, 4, [1, 2, 4]),
    ("partial", 100, 8, [1, 3, 5]),
    ("beta", 30, 5, [1, 2, 5]),
    ("beta", 200, 6, [1, 3, 6]),
    ("mixed", 15, 5, [1, 2, 5]),
]


def draw_laws(family: str, t: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """T task laws: atoms p0 at 0 and p1 at 1, the rest Beta(a, b)."""
    if family == "partial":  # {0, 1/2, 1}: a = b = 0 marks the middle part as an atom at 1/2
        probs = rng.dirichlet([0.6, 0.5, 0.9], size=t)
        return {"p0": probs[:, 0], "p1": probs[:, 2], "a": np.zeros(t), "b": np.zeros(t)}
    a, b = rng.gamma(2.0, 1.0, size=t) + 0.3, rng.gamma(2.0, 0.7, size=t) + 0.3
    if family == "beta":
        return {"p0": np.zeros(t), "p1": np.zeros(t), "a": a, "b": b}
    probs = rng.dirichlet([0.5, 1.0, 0.8], size=t)
    return {"p0": probs[:, 0], "p1": probs[:, 2], "a": a, "b": b}


def truths(laws: dict[str, np.ndarray], ks: list[int]) -> np.ndarray:
    """Per task (rows) and score column: expected mean, best of k and worst of k."""
    cont = 1.0 - laws["p0"] - laws["p1"]
    half = laws["a"] == 0
    mid = np.empty((len(cont), GRID.size))
    mid[half] = (GRID <= 0.5)[None, :]
    a, b = laws["a"][~half, None], laws["b"][~half, None]
    mid[~half] = 1.0 - special.betainc(a, b, GRID[None, :])
    surv = laws["p1"][:, None] + cont[:, None] * mid
    cols = []
    for m, k in score_columns(ks):
        kk = 1 if m == "mean_score" else k
        f = 1.0 - (1.0 - surv) ** kk if m == "best_of_k" else surv**kk
        cols.append(np.trapezoid(f, GRID, axis=1))
    return np.column_stack(cols)


def draw_runs(laws: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
    t = len(laws["p0"])
    u = rng.uniform(size=(t, n))
    half = laws["a"] == 0
    beta = np.full((t, n), 0.5)
    beta[~half] = rng.beta(
        laws["a"][~half, None], laws["b"][~half, None], size=(int((~half).sum()), n)
    )
    x = np.where(u < laws["p0"][:, None], 0.0, np.where(u < (laws["p0"] + laws["p1"])[:, None],
                 1.0, beta))  # fmt: skip
    return np.sort(x, axis=1)


def one(x: np.ndarray, ks: list[int], rng: np.random.Generator, n_boot: int) -> pd.DataFrame:
    cols = score_columns(ks)
    t, n = x.shape
    vals, var = task_columns([(n, np.arange(t), x)], t, cols)
    iv = score_scope_intervals(vals, var, np.full(t, float(n)), np.ones(t), cols, ci=CI,
                               n_boot=n_boot, rng=rng)  # fmt: skip
    iv["value"] = np.repeat(vals.mean(axis=0), 2)
    return iv


def run_regime(regime: tuple, reps: int, n_boot: int, seed: int) -> list[dict]:
    family, t, n, ks = regime
    rng = np.random.default_rng(seed)
    fixed = draw_laws(family, t, rng)
    bench_truth = truths(fixed, ks).mean(axis=0)
    pop_truth = truths(draw_laws(family, 5_000, rng), ks).mean(axis=0)
    cols = score_columns(ks)
    hits = {(c, s): [] for c in cols for s in ("benchmark", "population")}
    widths: dict = {key: [] for key in hits}
    for _ in range(reps):
        for scope, laws, truth in (
            ("benchmark", fixed, bench_truth),
            ("population", draw_laws(family, t, rng), pop_truth),
        ):
            iv = one(draw_runs(laws, n, rng), ks, rng, n_boot)
            iv = iv[iv["scope"] == scope].reset_index(drop=True)
            for j, c in enumerate(cols):
                lo, hi = iv.loc[j, "lower"], iv.loc[j, "upper"]
                hits[(c, scope)].append(lo - 1e-12 <= truth[j] <= hi + 1e-12)
                widths[(c, scope)].append(hi - lo)
    return [
        {"family": family, "tasks": t, "runs": n, "metric": c[0], "k": c[1], "scope": s,
         "coverage": float(np.mean(h)), "mc_se": float(np.sqrt(CI * (1 - CI) / reps)),
         "mean_width": float(np.mean(widths[(c, s)])), "replicates": reps,
         "variance": "unbiased" if n >= 2 * (1 if c[0] == "mean_score" else c[1])
         else ("jackknife" if n > (1 if c[0] == "mean_score" else c[1]) else "bound 1/4")}
        for (c, s), h in hits.items()
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args(argv)
    start = time.process_time()
    rows = []
    for i, regime in enumerate(REGIMES):
        rows += run_regime(regime, args.reps, args.n_boot, args.seed + i)
        print(f"{regime[:3]} done ({time.process_time() - start:.0f} s CPU)", file=sys.stderr)
    df = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "coverage.csv", index=False)
    bad = df[df["coverage"] < FLOOR]
    lines = [
        "# Coverage of the score intervals (nominal 90%)",
        "",
        f"Written by studies/scores_coverage/scores_coverage.py --reps {args.reps} "
        f"--n-boot {args.n_boot} --seed {args.seed} ({time.process_time() - start:.0f} s CPU).",
        f"Monte-Carlo SE of each coverage: {np.sqrt(CI * (1 - CI) / args.reps):.4f}. "
        f"Cells below {FLOOR}: {len(bad)}.",
        "",
        df.round(4).to_markdown(index=False),
    ]
    (OUT / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(df.groupby(["scope", "variance"])["coverage"].agg(["min", "mean", "count"]))
    return 1 if len(bad) else 0


if __name__ == "__main__":
    raise SystemExit(main())
