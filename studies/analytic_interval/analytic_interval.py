"""Coverage of the analytic population interval against today's rule and the task bootstrap.

For every cell (truth, T tasks, n runs per task) the study simulates ``reps`` data sets and
asks for 90% population-scope intervals of the mean, pass@n and pass^n (the truth is
E g(p) under the distribution of task rates) from

* **rule** — today's rule (:func:`passhat.scopes.scope_intervals`, ``ci_method="bca"``):
  the task bootstrap BCa with ≥ 30 tasks and ≥ 10 on each side of the estimate, the
  Bayesian bootstrap with ≥ 30 tasks but fewer on a side, the hierarchical posterior below
  30 tasks;
* **bca** — the task bootstrap BCa at every T (what the rule takes where it bootstraps);
* **logit-t** and **wilson** — the analytic intervals of :mod:`passhat.analytic` at every T
  (NaN, counted as a miss, where every task's estimate is the same);
* **analytic rule** — what ``ci_method="analytic"`` gives: the rule with the analytic
  logit-t interval where the rule would take the task bootstrap (checked against
  :func:`~passhat.scopes.scope_intervals` itself on the first data sets of each cell).

Truths (from studies/coverage): Beta(0.2, 5) near 0 and Beta(5, 0.2) near 1 (skewed),
Beta(1, 1) and Beta(0.3, 0.3) (symmetric), and point masses at 0 and 1 with a flaky Beta(2, 2)
part (not a Beta). T = 10, 20, 30, 50, 100, 200; n = 1, 2, 5, 10. Each coverage has its
Monte-Carlo s.e. sqrt(c (1 − c) / R); each difference of two methods on the same data sets
the s.e. of the paired difference. The verdict, per (T, n, truth, metric) cell where the
analytic rule takes the analytic interval: as good as the rule when its coverage is ≥ the
rule's − 2 s.e. of the difference and ≥ 0.85.

Run::

    nice .venv/bin/python studies/analytic_interval/analytic_interval.py            # full grid
    nice .venv/bin/python studies/analytic_interval/analytic_interval.py --reps 100 # quicker
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from passhat.analytic import analytic_interval
from passhat.bootstrap import compress, draw_stats, interval_from_draws
from passhat.scopes import column_values, columns, scope_intervals

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "analytic_interval"
LEVEL = 0.90
FLOOR = 0.85
TS = (10, 20, 30, 50, 100, 200)
NS = (1, 2, 5, 10)
TRUTH_NAMES = (
    "Beta(0.2, 5) near 0",
    "Beta(5, 0.2) near 1",
    "Beta(1, 1) uniform",
    "Beta(0.3, 0.3) U-shaped",
    "point masses: 15% at 0, 55% at 1, 30% Beta(2, 2)",
)
METHODS = ("rule", "bca", "logit-t", "wilson", "analytic rule")


def _coverage_module() -> ModuleType:
    """studies/coverage/coverage.py (its truths), loaded by path: studies are scripts."""
    path = ROOT / "studies" / "coverage" / "coverage.py"
    spec = importlib.util.spec_from_file_location("coverage_study_truths", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _cols(n: int) -> list[tuple[str, int]]:
    return [col for col in columns(sorted({1, n})) if col[0] == "mean" or col[1] > 1]


def _intervals(
    n: np.ndarray,
    c: np.ndarray,
    cols: list[tuple[str, int]],
    *,
    n_boot: int,
    rng: np.random.Generator,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each method's (2, columns) interval for one data set, and whether the rule bootstrapped."""
    t = n.size
    ks = sorted({k for _, k in cols})
    iv = scope_intervals(n, c, np.ones(t), ks, ci=LEVEL, n_boot=n_boot, rng=rng)
    pop = iv[iv["scope"] == "population"].set_index(["metric", "k"])
    rule = np.array([[pop.loc[col, "lower"], pop.loc[col, "upper"]] for col in cols]).T
    boot = np.array([str(pop.loc[col, "method"]).startswith("task bootstrap") for col in cols])
    vals = column_values(n.astype(float), c.astype(float), cols)
    cats = compress(np.column_stack([n, c]), vals, np.ones(t))
    theta = vals.mean(axis=0)
    draws = draw_stats(cats, n_boot=n_boot, rng=rng)
    lo, hi, _ = interval_from_draws(theta, draws, cats, ci=LEVEL, method="bca")
    out = {"rule": rule, "bca": np.array([lo, hi])}
    for kind in ("logit-t", "wilson"):
        alo, ahi, _ = analytic_interval(cats.values, cats.freq, cats.weights, ci=LEVEL, kind=kind)
        out[kind] = np.array([alo, ahi])
    out["analytic rule"] = np.where(boot[None, :], out["logit-t"], rule)
    return out, boot


def _check_analytic_rule(
    n: np.ndarray, c: np.ndarray, cols: list[tuple[str, int]], expect: np.ndarray
) -> None:
    """The analytic rule of this study is what ``ci_method="analytic"`` returns."""
    ks = sorted({k for _, k in cols})
    iv = scope_intervals(
        n, c, np.ones(n.size), ks, ci=LEVEL, n_boot=200, rng=np.random.default_rng(0),
        ci_method="analytic",
    )  # fmt: skip
    pop = iv[iv["scope"] == "population"].set_index(["metric", "k"])
    for j, col in enumerate(cols):
        if str(pop.loc[col, "method"]).startswith("analytic"):
            got = (float(pop.loc[col, "lower"]), float(pop.loc[col, "upper"]))
            if not np.allclose(got, expect[:, j], rtol=0, atol=1e-12):
                raise AssertionError(f"ci_method='analytic' gave {got}, study {expect[:, j]}")


def run_cell(
    truth: object, t: int, n_runs: int, *, reps: int, n_boot: int, seed: int
) -> list[dict]:
    """Coverage, width and the paired differences of every method in one cell."""
    rng = np.random.default_rng(seed)
    n = np.full(t, n_runs, dtype=np.int64)
    cols = _cols(n_runs)
    target = np.array([truth.expected(m, k) for m, k in cols])  # type: ignore[attr-defined]
    hit = {m: np.zeros((reps, len(cols)), bool) for m in METHODS}
    width = {m: np.zeros((reps, len(cols))) for m in METHODS}
    used = np.zeros((reps, len(cols)), bool)
    cache: dict[bytes, tuple[dict[str, np.ndarray], np.ndarray]] = {}
    for r in range(reps):
        c = rng.binomial(n, truth.sample(rng, t))  # type: ignore[attr-defined]
        key = np.sort(c).tobytes()
        if key not in cache:
            cache[key] = _intervals(n, c, cols, n_boot=n_boot, rng=rng)
            if len(cache) <= 3 and cache[key][1].any():
                _check_analytic_rule(n, c, cols, cache[key][0]["analytic rule"])
        got, boot = cache[key]
        used[r] = boot
        for m in METHODS:
            lo, hi = got[m]
            hit[m][r] = (lo - 1e-12 <= target) & (target <= hi + 1e-12)  # NaN: a miss
            width[m][r] = hi - lo
    rows = []
    for j, (metric, k) in enumerate(cols):
        row: dict[str, object] = {
            "truth": truth.name,  # type: ignore[attr-defined]
            "T": t, "n": n_runs, "metric": metric, "k": k, "reps": reps,
            "distinct_datasets": len(cache), "analytic_share": float(used[:, j].mean()),
        }  # fmt: skip
        for m in METHODS:
            cov = float(hit[m][:, j].mean())
            row[f"cov {m}"] = cov
            row[f"se {m}"] = float(np.sqrt(max(cov * (1 - cov), 1e-12) / reps))
            row[f"width {m}"] = (
                float(np.nanmean(width[m][:, j])) if np.isfinite(width[m][:, j]).any() else np.nan
            )
        for m in ("logit-t", "wilson", "analytic rule"):
            d = hit[m][:, j].astype(float) - hit["rule"][:, j]
            row[f"diff {m}"] = float(d.mean())
            row[f"diff se {m}"] = float(d.std(ddof=1) / np.sqrt(reps)) if reps > 1 else np.nan
            e = hit[m][:, j].astype(float) - hit["bca"][:, j]
            row[f"diff vs bca {m}"] = float(e.mean())
            row[f"diff vs bca se {m}"] = (
                float(e.std(ddof=1) / np.sqrt(reps)) if reps > 1 else np.nan
            )
        rows.append(row)
    return rows


def verdict(table: pd.DataFrame, method: str = "analytic rule", against: str = "rule") -> pd.Series:
    """Per row: is ``method`` as good as ``against`` (≥ its coverage − 2 s.e. of the paired
    difference, with a floor of one replicate's worth, and ≥ the floor 0.85)?"""
    key = "diff" if against == "rule" else "diff vs bca"
    slack = 2 * np.maximum(table[f"{key} se {method}"], 1.0 / table["reps"])
    return (table[f"{key} {method}"] >= -slack) & (table[f"cov {method}"] >= FLOOR)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    truths = _coverage_module().TRUTHS
    args.out.mkdir(parents=True, exist_ok=True)
    grid = [(name, t, n) for t in TS for n in NS for name in TRUTH_NAMES]
    rows: list[dict] = []
    start = time.process_time()
    for i, (name, t, n) in enumerate(grid):
        cell_start = time.process_time()
        rows += run_cell(truths[name], t, n, reps=args.reps, n_boot=args.n_boot, seed=args.seed + i)
        took = time.process_time() - cell_start
        print(f"[{i + 1}/{len(grid)}] T={t} n={n} {name}: {took:.1f} s CPU", flush=True)
        pd.DataFrame(rows).to_csv(args.out / "analytic_interval.csv", index=False)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "analytic_interval.csv", index=False)
    print(f"done: {len(grid)} cells × {args.reps} reps, {time.process_time() - start:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
