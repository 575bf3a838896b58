"""Clustered vs uniform spread: size and power of the clustering test, coverage of the intervals.

passhat says "failures are clustered beyond what independent runs at a common rate would
give" only when Tarone's heterogeneity test rejects (:func:`passhat.spread.heterogeneity_test`).
This study measures, by simulation with known truth:

1. **Size**: every task at one rate (no clustering). How often does the test claim
   clustering at α = 5%? And how often did the old rule "pass^k / mean^k > 1.05" claim it?
2. **Power**: task rates from Beta(μκ, (1 − μ)κ) (ICC = 1/(κ + 1)). How often does the
   test detect the spread?
3. **Coverage** (90% nominal) of the population-scope intervals of :func:`passhat.spread`:
   pass^k / mean^k, pass^k / mean and the model-based share of tasks carrying 80% of the gap,
   against their closed forms under the truth; and the bias of the sample share of tasks
   carrying 80% of the gap against the model-based share.

Run::

    .venv/bin/python studies/spread_test/spread_test.py   # → reports/spread_test/
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passhat._format import jsonable
from passhat.estimators import pass_hat_k
from passhat.spread import beta_gap_concentration, beta_moment, heterogeneity_test
from passhat.spread.posterior import posterior_spread

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "spread_test"
ALPHA = 0.05
CI = 0.9

#: Homogeneous regimes (tasks, runs per task, common rate); k = runs for the old rule.
SIZE_GRID = [
    (30, 5, 0.7),
    (10, 2, 0.9),
    (10, 3, 0.5),
    (20, 3, 0.5),
    (50, 2, 0.95),
    (20, 5, 0.2),
    (100, 4, 0.6),
    (3000, 3, 0.8),
]
#: Clustered regimes (tasks, runs, μ, κ).
POWER_GRID = [
    (30, 5, 0.7, 2.0),
    (30, 5, 0.7, 5.0),
    (30, 5, 0.7, 10.0),
    (30, 5, 0.7, 20.0),
    (10, 3, 0.5, 2.0),
    (20, 2, 0.8, 2.0),
    (50, 4, 0.42, 1.0),
    (100, 5, 0.7, 10.0),
]
#: Coverage cells (tasks, runs, k, μ, κ); κ = inf is the homogeneous truth.
COVER_GRID = [
    (30, 5, 5, 0.7, 2.0),
    (30, 5, 5, 0.7, math.inf),
    (10, 3, 3, 0.5, 2.0),
    (20, 3, 3, 0.9, 1.5),
    (50, 2, 2, 0.3, 1.0),
    (15, 3, 3, 0.1, 3.0),
    (20, 5, 2, 0.8, 5.0),
    (10, 2, 2, 0.95, math.inf),
    (30, 5, 5, 0.7, 30.0),
]


def _rates(rng: np.random.Generator, tasks: int, mu: float, kappa: float) -> np.ndarray:
    if math.isinf(kappa):
        return np.full(tasks, mu)
    return rng.beta(mu * kappa, (1 - mu) * kappa, size=tasks)


def size_table(rng: np.random.Generator, reps: int, draws: int) -> pd.DataFrame:
    rows = []
    for tasks, runs, rate in SIZE_GRID:
        claims = old = 0
        ratios = []
        for _ in range(reps):
            n = np.full(tasks, runs)
            c = rng.binomial(n, rate)
            claims += heterogeneity_test(n, c, n_draws=draws, seed=rng).rejects(ALPHA)
            mean = float(np.mean(c / n))
            hat = float(np.mean(pass_hat_k(n, c, runs)))
            ratio = hat / mean**runs if mean > 0 else math.nan
            ratios.append(ratio)
            old += ratio > 1.05
        lo, hi = np.nanquantile(np.asarray(ratios), [0.05, 0.95])
        rows.append(
            {
                "tasks": tasks,
                "runs": runs,
                "rate": rate,
                "claims (test)": claims / reps,
                "MC SE": math.sqrt(ALPHA * (1 - ALPHA) / reps),
                "claims (old: ratio > 1.05)": old / reps,
                "sample ratio 5%–95%": f"{lo:.2f}–{hi:.2f}",
            }
        )
    return pd.DataFrame(rows)


def power_table(rng: np.random.Generator, reps: int, draws: int) -> pd.DataFrame:
    rows = []
    for tasks, runs, mu, kappa in POWER_GRID:
        hits = 0
        for _ in range(reps):
            n = np.full(tasks, runs)
            c = rng.binomial(n, _rates(rng, tasks, mu, kappa))
            hits += heterogeneity_test(n, c, n_draws=draws, seed=rng).rejects(ALPHA)
        power = hits / reps
        rows.append(
            {
                "tasks": tasks,
                "runs": runs,
                "mu": mu,
                "kappa": kappa,
                "ICC": 1 / (kappa + 1),
                "ratio pass^n/mean^n": float(beta_moment(mu, kappa, runs)) / mu**runs,
                "power": power,
                "MC SE": math.sqrt(power * (1 - power) / reps),
            }
        )
    return pd.DataFrame(rows)


def coverage_table(rng: np.random.Generator, reps: int, draws: int) -> pd.DataFrame:
    rows = []
    for tasks, runs, k, mu, kappa in COVER_GRID:
        mk = float(beta_moment(mu, kappa, k))
        truth = {
            "ratio": mk / mu**k,
            "consistency": mk / mu,
            "tasks_for_80_model": float(beta_gap_concentration(mu, kappa, k, 0.8)),
        }
        cover = dict.fromkeys(truth, 0)
        model_est, sample_est, rejects = [], [], 0
        for _ in range(reps):
            n = np.full(tasks, runs)
            c = rng.binomial(n, _rates(rng, tasks, mu, kappa))
            test = heterogeneity_test(n, c, n_draws=draws, seed=rng)
            rejects += test.rejects(1 - CI)
            row = posterior_spread(
                n, c, ks=[k], ci=CI, homogeneous=not test.rejects(1 - CI), rng=rng, n_draws=2000
            ).per_k[k]
            for key, value in truth.items():
                cover[key] += row[f"{key}_lower"] - 1e-9 <= value <= row[f"{key}_upper"] + 1e-9
            model_est.append(row["tasks_for_80_model"])
            g = np.sort(c / n - pass_hat_k(n, c, k))[::-1]
            sample_est.append(
                (int(np.argmax(np.cumsum(g) / g.sum() >= 0.8 - 1e-12)) + 1) / tasks
                if g.sum() > 0
                else math.nan
            )
        rows.append(
            {
                "tasks": tasks,
                "runs": runs,
                "k": k,
                "mu": mu,
                "kappa": kappa,
                "rejects at 10%": rejects / reps,
                "cover ratio": cover["ratio"] / reps,
                "cover consistency": cover["consistency"] / reps,
                "cover share for 80%": cover["tasks_for_80_model"] / reps,
                "true share for 80%": truth["tasks_for_80_model"],
                "sample share (mean)": float(np.nanmean(sample_est)),
                "model share (mean)": float(np.nanmean(model_est)),
            }
        )
    return pd.DataFrame(rows)


def _md(df: pd.DataFrame) -> str:
    """Markdown table with numbers rounded for reading."""
    shown = df.copy()
    for col in shown.columns:
        if pd.api.types.is_float_dtype(shown[col]):
            shown[col] = shown[col].map(lambda v: "inf" if math.isinf(v) else f"{v:.3g}")
    head = "| " + " | ".join(map(str, shown.columns)) + " |"
    sep = "|" + "|".join(" --- " for _ in shown.columns) + "|"
    body = ["| " + " | ".join(map(str, r)) + " |" for r in shown.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def run(out: Path, *, seed: int = 0, reps: int = 1000, draws: int = 499) -> dict[str, Any]:
    t0 = time.time()
    rng = np.random.default_rng(seed)
    size = size_table(rng, reps, draws)
    power = power_table(rng, max(reps // 2, 50), draws)
    cover = coverage_table(rng, max(reps // 3, 30), 199)
    failures = []
    for r in size.to_dict(orient="records"):
        if r["claims (test)"] > ALPHA + 2.33 * r["MC SE"]:
            failures.append(f"size {r['claims (test)']:.3f} > α + MC error at {r}")
    for r in cover.to_dict(orient="records"):
        low = min(r["cover ratio"], r["cover consistency"], r["cover share for 80%"])
        if low < 0.85:
            failures.append(f"coverage {low:.2f} < 0.85 at {r}")
    seconds = time.time() - t0
    out.mkdir(parents=True, exist_ok=True)
    text = f"""# Clustered vs uniform spread: the test and the intervals

Generated by `studies/spread_test/spread_test.py` (seed {seed}, {reps} replicates per size
cell, {max(reps // 2, 50)} per power cell, {max(reps // 3, 30)} per coverage cell; {seconds:.0f} s).

"Clustered" is the decision of Tarone's (1979) score test of *one common success rate with
independent runs* (exact permutation p-value, {draws} draws here), at α = {ALPHA}. The old
rule — "pass^k / mean^k > 1.05" — is shown for comparison.

## 1. Size: every task at one rate

{_md(size)}

The test claims clustering in at most α of replicates, within Monte Carlo error (it is
exact, and conservative on small or lopsided data, where few configurations are possible).
The sample ratio alone is noise at these sizes.

## 2. Power: task rates from Beta(μκ, (1 − μ)κ)

{_md(power)}

## 3. Coverage of the population intervals ({CI:.0%} nominal) and the gap concentration

{_md(cover)}

Intervals: Beta-Binomial posterior (exact grid), joined with the homogeneous model's when
the test does not reject at 1 − ci. "sample share" is the share of these tasks whose sample
contributions carry 80% of the gap (biased low at few runs per task); "model share" is the
posterior median of the same share for tasks like these.

{"All cells within target." if not failures else "Failures:" + chr(10) + chr(10).join(failures)}
"""
    (out / "README.md").write_text(text, encoding="utf-8")
    res = {
        "seed": seed,
        "reps": reps,
        "size": size.to_dict(orient="records"),
        "power": power.to_dict(orient="records"),
        "coverage": cover.to_dict(orient="records"),
        "failures": failures,
        "seconds": seconds,
    }
    (out / "results.json").write_text(json.dumps(jsonable(res), indent=1), encoding="utf-8")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=1000)
    args = ap.parse_args(argv)
    res = run(args.out, seed=args.seed, reps=args.reps)
    print(f"spread test study written to {args.out}/README.md")
    for f in res["failures"]:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
