"""Coverage of passhat's benchmark- and population-scope intervals, by simulation.

Truth is known: task success rates p_i ~ Beta(a, b), T tasks, n runs each,
c_i ~ Binomial(n, p_i). For every k ∈ {1, 2, 5} (k ≤ n):

* the **population** interval (task bootstrap, percentile and BCa) should
  cover E[p^k] = Π_{j<k} (a + j)/(a + b + j), the pass^k of a new task;
* the **benchmark** interval (normal, unbiased per-task variances; plug-in
  at the shrunk rate where n < 2k) should cover mean_i p_i^k over the
  simulated tasks themselves.

One bootstrap draw matrix per replicate serves every k (as in passhat).
Coverage is the share of replicates whose interval holds the truth; its
Monte-Carlo s.e. is sqrt(0.95 · 0.05 / R). A cell is flagged when its
coverage is more than 3 s.e. from nominal.

Run::

    .venv/bin/python studies/coverage/coverage.py            # full grid → reports/coverage/
    .venv/bin/python studies/coverage/coverage.py --reps 200 # quicker, noisier
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from passhat.bootstrap import compress, draw_stats, interval_from_draws
from passhat.estimators import subset_ratio
from passhat.intervals import benchmark_se

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "coverage"

#: The two task-rate distributions: clustered (many always-pass / always-fail
#: tasks, ICC = 1/(a+b+1) ≈ 0.59) and uniform-ish (Beta(1, 1), ICC = 1/3).
CASES = {"clustered Beta(0.4, 0.3)": (0.4, 0.3), "uniform Beta(1, 1)": (1.0, 1.0)}
TS = (30, 100, 300)
NS = (3, 5, 10)
KS = (1, 2, 5)
LEVEL = 0.95


def population_truth(a: float, b: float, k: int) -> float:
    """E[p^k] under Beta(a, b)."""
    return float(np.prod([(a + j) / (a + b + j) for j in range(k)]))


def run_cell(
    a: float, b: float, t: int, n: int, *, reps: int, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """Coverage for one (distribution, T, n) and every k ≤ n, sharing replicates across k."""
    rng = np.random.default_rng(seed)
    ks = [k for k in KS if k <= n]
    z = float(stats.norm.isf((1 - LEVEL) / 2))
    hits = {(k, m): 0 for k in ks for m in ("percentile", "bca", "benchmark")}
    width = {(k, m): 0.0 for k in ks for m in ("percentile", "bca", "benchmark")}
    bca_fallback = dict.fromkeys(ks, 0)
    nn = np.full(t, n, dtype=float)
    for _ in range(reps):
        p = rng.beta(a, b, size=t)
        c = rng.binomial(n, p).astype(float)
        vals = np.column_stack([subset_ratio(c, nn, k) for k in ks])
        cats = compress(c[:, None], vals, np.ones(t))
        theta = vals.mean(axis=0)
        draws = draw_stats(cats, n_boot=n_boot, rng=rng)
        lo_p, hi_p, _ = interval_from_draws(theta, draws, cats, ci=LEVEL, method="percentile")
        lo_b, hi_b, lab = interval_from_draws(theta, draws, cats, ci=LEVEL, method="bca")
        for j, k in enumerate(ks):
            truth_pop = population_truth(a, b, k)
            truth_bench = float(np.mean(p**k))
            se, _ = benchmark_se(nn, c, k=k)
            lo_n, hi_n = max(0.0, theta[j] - z * se), min(1.0, theta[j] + z * se)
            for m, lo, hi, truth in (
                ("percentile", lo_p[j], hi_p[j], truth_pop),
                ("bca", lo_b[j], hi_b[j], truth_pop),
                ("benchmark", lo_n, hi_n, truth_bench),
            ):
                hits[(k, m)] += int(lo <= truth <= hi)
                width[(k, m)] += hi - lo
            bca_fallback[k] += int(lab[j] != "BCa")
    rows = []
    for k in ks:
        for m in ("benchmark", "percentile", "bca"):
            rows.append(
                {
                    "T": t,
                    "n": n,
                    "k": k,
                    "interval": m,
                    "scope": "benchmark" if m == "benchmark" else "population",
                    "coverage": hits[(k, m)] / reps,
                    "mean_width": width[(k, m)] / reps,
                    "reps": reps,
                    "bca_fallbacks": bca_fallback[k] if m == "bca" else 0,
                    "plugin_variance": m == "benchmark" and n < 2 * k,
                }
            )
    return rows


def run_grid(
    *,
    reps: int = 1000,
    n_boot: int = 2000,
    seed: int = 2026,
    cases: Iterable[str] | None = None,
    ts: Iterable[int] = TS,
    ns: Iterable[int] = NS,
    progress: bool = False,
) -> pd.DataFrame:
    """The full grid as a tidy table (one row per case, T, n, k, interval)."""
    rows: list[dict[str, object]] = []
    names = list(cases) if cases is not None else list(CASES)
    cells = [(name, t, n) for name in names for t in ts for n in ns]
    for i, (name, t, n) in enumerate(cells):
        a, b = CASES[name]
        start = time.perf_counter()
        for row in run_cell(a, b, t, n, reps=reps, n_boot=n_boot, seed=seed + 97 * i):
            rows.append({"case": name, **row})
        if progress:
            print(
                f"[{i + 1}/{len(cells)}] {name} T={t} n={n}: {time.perf_counter() - start:.1f}s",
                file=sys.stderr,
            )
    df = pd.DataFrame(rows)
    mc_se = np.sqrt(LEVEL * (1 - LEVEL) / df["reps"])
    df["mc_se"] = mc_se
    df["off"] = (df["coverage"] - LEVEL).abs() > 3 * mc_se
    return df


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None) -> str:
    """The report: a coverage table per case and a list of the cells that are off."""
    reps = int(df["reps"].iloc[0])
    se = float(np.sqrt(LEVEL * (1 - LEVEL) / reps))
    lines = [
        "# Coverage of passhat's intervals (simulation)",
        "",
        f"Nominal level {LEVEL:.0%}; {reps} replicates per cell (Monte-Carlo s.e. of a coverage "
        f"≈ {se:.3f}); a cell is marked `*` when it is more than 3 s.e. ({3 * se:.3f}) from "
        "nominal. Tasks: p_i ~ Beta(a, b), c_i ~ Binomial(n, p_i). Population intervals "
        "(task bootstrap, percentile / BCa) are scored against E[p^k]; benchmark intervals "
        "(normal, unbiased per-task variances; plug-in at (c+½)/(n+1) where n < 2k, marked †) "
        "against the simulated tasks' own mean p_i^k. Made by `studies/coverage/coverage.py`.",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds:.0f} s.", ""]
    for case, part in df.groupby("case", sort=False):
        lines += [f"## {case}", ""]
        lines += [
            "| T | n | k | benchmark | population percentile | population BCa | "
            "width bench / pop (pct) |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for (t, n, k), cell in part.groupby(["T", "n", "k"], sort=True):
            r = cell.set_index("interval")

            def fmt(m: str, r: pd.DataFrame = r) -> str:
                mark = " *" if bool(r.loc[m, "off"]) else ""
                dag = " †" if bool(r.loc[m, "plugin_variance"]) else ""
                return f"{r.loc[m, 'coverage']:.3f}{mark}{dag}"

            w_b, w_p = r.loc["benchmark", "mean_width"], r.loc["percentile", "mean_width"]
            lines.append(
                f"| {t} | {n} | {k} | {fmt('benchmark')} | {fmt('percentile')} | {fmt('bca')} | "
                f"{w_b:.3f} / {w_p:.3f} |"
            )
        lines.append("")
    lines += ["## Where coverage is off", ""]
    off = df[df["off"]]
    if off.empty:
        lines.append("No cell is more than 3 Monte-Carlo s.e. from nominal.")
    else:
        for (case, m), part in off.groupby(["case", "interval"], sort=False):
            cells = ", ".join(
                f"T={r.T} n={r.n} k={r.k}: {r.coverage:.3f}" for r in part.itertuples()
            )
            lines.append(f"- **{case}, {m}** ({len(part)} cells): {cells}")
    lines += ["", "## Reading", "", summary_text(df), ""]
    return "\n".join(lines)


def summary_text(df: pd.DataFrame) -> str:
    """Plain-words summary computed from the table (no hand-written numbers)."""
    out = []
    for m, label in (
        ("percentile", "Population, percentile"),
        ("bca", "Population, BCa"),
        ("benchmark", "Benchmark"),
    ):
        part = df[df["interval"] == m]
        worst = part.loc[part["coverage"].idxmin()]
        by_t = part.groupby("T")["coverage"].agg(["min", "mean"])
        out.append(
            f"- {label}: mean coverage {part['coverage'].mean():.3f}; "
            + "; ".join(
                f"T={t}: min {r['min']:.3f}, mean {r['mean']:.3f}" for t, r in by_t.iterrows()
            )
            + f". Worst cell: {worst['case']}, T={worst['T']}, n={worst['n']}, k={worst['k']} "
            f"({worst['coverage']:.3f})."
        )
    plug = df[(df["interval"] == "benchmark") & df["plugin_variance"]]
    unb = df[(df["interval"] == "benchmark") & ~df["plugin_variance"]]
    if len(plug) and len(unb):
        out.append(
            f"- Benchmark cells with n < 2k (plug-in variance, †): mean coverage "
            f"{plug['coverage'].mean():.3f}, vs {unb['coverage'].mean():.3f} where the unbiased "
            "variance estimate applies."
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    start = time.perf_counter()
    df = run_grid(reps=args.reps, n_boot=args.n_boot, seed=args.seed, progress=True)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "coverage.csv", index=False)
    (args.out / "coverage.md").write_text(to_markdown(df, seconds=seconds))
    print(f"wrote {args.out / 'coverage.md'} and coverage.csv in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
