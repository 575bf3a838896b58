"""Size and coverage of compare's population scope when tasks come in clusters (issue 31).

Two systems on tasks in clusters; the candidate's gain over the baseline varies by cluster.
Truth on the logit scale: task i of cluster g has x = mu + u_g + e_i (Var u + Var e = 2,
between share 0.5) and the candidate's gain is d + v_g + w_i, Var v + Var w = S2 = 1 with
the between-cluster share of the gain ``share`` (0.5 or 0.9); 10, 20 or 50 clusters of
PER_CLUSTER tasks, RUNS runs per task per system.

* **H0 (size)**: each cluster's coin gives the gain to the candidate or to the baseline
  (d = 0): the systems are exchangeable cluster by cluster, so the population difference of
  every metric is exactly 0, while tasks of a cluster move together. The rate at which the
  population test rejects at 10% (= 1 − coverage of 0).
* **shift (coverage)**: d = 0.5, the gain always the candidate's; the population difference
  is E g(expit(N(mu + d, 2 + S2))) − E g(expit(N(mu, 2))), by 200-node Gauss–Hermite
  quadrature; coverage of the 90% population interval.

Each replicate calls :func:`passhat.compare.paired_difference` (the engine of ``passhat
compare``) twice on the same runs: with the clusters (cluster sign flips; the cluster
Bayesian bootstrap where fewer than 10 clusters differ) and without (tasks as independent).
Monte-Carlo s.e. of a rate c over R replicates: sqrt(c(1 − c) / R).

Run::

    nice .venv/bin/python studies/compare_cluster_coverage/compare_cluster_coverage.py
    .venv/bin/python studies/compare_cluster_coverage/compare_cluster_coverage.py --reps 20
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from passhat.compare import paired_difference

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "compare_cluster_coverage"
LEVEL = 0.90
REPS = 150
TASK_VAR = 2.0
GAIN_VAR = 1.0
PER_CLUSTER = 4
RUNS = 4
K = 2
MU = 0.0
SHIFT = 0.5
SHARES = (0.5, 0.9)
CLUSTERS = (10, 20, 50)
DESIGNS = ("H0", "shift")
COLUMNS = (("mean", 1), ("pass_at_k", K), ("pass_hat_k", K))


def _g(metric: str, k: int, p: np.ndarray) -> np.ndarray:
    if metric == "pass_at_k":
        return 1.0 - (1.0 - p) ** k
    return p ** (1 if metric == "mean" else k)


def _expect(mean: float, var: float, metric: str, k: int) -> float:
    """E g(expit(z)), z ~ N(mean, var), by 200-node Gauss–Hermite quadrature."""
    x, w = np.polynomial.hermite_e.hermegauss(200)  # weight exp(-x^2 / 2)
    return float(w @ _g(metric, k, special.expit(mean + np.sqrt(var) * x)) / w.sum())


def truth(design: str, metric: str, k: int) -> float:
    """The population difference candidate − baseline of one metric."""
    if design == "H0":
        return 0.0
    return _expect(MU + SHIFT, TASK_VAR + GAIN_VAR, metric, k) - _expect(MU, TASK_VAR, metric, k)


def simulate(
    rng: np.random.Generator, design: str, share: float, n_clusters: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One replicate: the baseline's and the candidate's successes per task, and the clusters."""
    g = np.repeat(np.arange(n_clusters), PER_CLUSTER)
    x = MU + rng.normal(0, np.sqrt(TASK_VAR / 2), n_clusters)[g]
    x += rng.normal(0, np.sqrt(TASK_VAR / 2), g.size)
    gain = rng.normal(0, np.sqrt(share * GAIN_VAR), n_clusters)[g]
    gain += rng.normal(0, np.sqrt((1 - share) * GAIN_VAR), g.size)
    if design == "H0":  # the cluster's coin: who gets the gain
        to_cand = rng.random(n_clusters)[g] < 0.5
        base, cand = np.where(to_cand, x, x + gain), np.where(to_cand, x + gain, x)
    else:
        base, cand = x, x + SHIFT + gain
    return rng.binomial(RUNS, special.expit(base)), rng.binomial(RUNS, special.expit(cand)), g


def run_cell(
    design: str, share: float, n_clusters: int, *, reps: int, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """Coverage (and rejection of 0) of both population intervals for one cell."""
    rng = np.random.default_rng(seed)
    truths = {col: truth(design, *col) for col in COLUMNS}
    hits = {(col, how): 0 for col in COLUMNS for how in ("cluster", "independent")}
    reject = dict.fromkeys(hits, 0)
    width = dict.fromkeys(hits, 0.0)
    n = np.full(n_clusters * PER_CLUSTER, RUNS)
    for _ in range(reps):
        ca, cb, g = simulate(rng, design, share, n_clusters)
        for how, groups in (("cluster", g), ("independent", None)):
            r = paired_difference(
                n, ca, n, cb, k=K, ci=LEVEL, n_boot=n_boot, seed=rng, clusters=groups
            )
            pop = r[r["scope"] == "population"]
            for col in COLUMNS:
                row = pop[pop["metric"] == col[0]].iloc[0]
                hits[(col, how)] += int(row["lower"] <= truths[col] <= row["upper"])
                reject[(col, how)] += int(row["p_value"] <= 1 - LEVEL + 1e-12)
                width[(col, how)] += float(row["upper"] - row["lower"])
    rows: list[dict[str, object]] = []
    for (col, how), hit in hits.items():
        cov = hit / reps
        rows.append(
            {
                "design": design,
                "between_share": share,
                "clusters": n_clusters,
                "tasks": n_clusters * PER_CLUSTER,
                "metric": col[0],
                "k": col[1],
                "interval": how,
                "truth": truths[col],
                "coverage": cov,
                "reject_rate": reject[(col, how)] / reps,
                "mc_se": float(np.sqrt(max(cov * (1 - cov), 0.09 / 4) / reps)),
                "mean_width": width[(col, how)] / reps,
                "reps": reps,
                "n_boot": n_boot,
            }
        )
    return rows


def cells() -> list[tuple[str, float, int]]:
    """(design, between share of the gain, clusters) of every cell."""
    return [(d, s, g) for d in DESIGNS for s in SHARES for g in CLUSTERS]


def run(*, reps: int = REPS, n_boot: int = 1000, seed: int = 3131) -> pd.DataFrame:
    """Every cell, each with its own seed (seed + 97·index), serially."""
    parts = []
    for i, cell in enumerate(cells()):
        start = time.perf_counter()
        parts += run_cell(*cell, reps=reps, n_boot=n_boot, seed=seed + 97 * i)
        print(f"[{i + 1}/{len(cells())}] {cell} {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(parts)


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None) -> str:
    """The report: both intervals side by side, per cell."""
    reps = int(df["reps"].iloc[0])
    wide = df.pivot_table(
        index=["design", "between_share", "clusters", "metric", "k"],
        columns="interval",
        values=["coverage", "reject_rate", "mc_se", "mean_width"],
        sort=False,
    )
    lines = [
        "# compare's population scope with clustered tasks: size and coverage",
        "",
        f"Nominal level 90%; {reps} replicates per cell, {int(df['n_boot'].iloc[0])} sign "
        "flips / draws per interval (± is the Monte-Carlo s.e., sqrt(c(1 − c)/R), floored at "
        "sqrt(0.0225/R)). Design in the study's docstring: H0 gives the cluster's gain to a "
        "system chosen by a coin per cluster (true difference 0, rejection at 10% is the "
        "size); shift: gain 0.5 on the logit scale plus a cluster part and a task part. "
        f"{PER_CLUSTER} tasks per cluster, {RUNS} runs per task and system, k = {K}. "
        "`cluster`: cluster sign flips (what `compare` does with a cluster column); "
        "`independent`: the tasks as independent (`--ignore-clusters`). Made by "
        "`studies/compare_cluster_coverage/compare_cluster_coverage.py`.",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds / 60:.1f} min (one process, niced).", ""]
    for design in DESIGNS:
        sub = df[df["design"] == design]
        for how in ("cluster", "independent"):
            s = sub[sub["interval"] == how]
            what = "rejection of 0 at 10%" if design == "H0" else "coverage at 90%"
            vals = s["reject_rate"] if design == "H0" else s["coverage"]
            lines.append(f"- {design}, {how}: {what} {vals.min():.3f}–{vals.max():.3f}")
    lines += [
        "",
        "| design | gain's between share | clusters | metric | k | truth | cluster coverage | "
        "independent coverage | cluster rejects 0 | independent rejects 0 | cluster width | "
        "independent width |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    truth_of = df.groupby(["design", "between_share", "clusters", "metric", "k"], sort=False)
    for key, row in wide.iterrows():
        lines.append(
            f"| {key[0]} | {key[1]:g} | {key[2]} | {key[3]} | {key[4]} | "
            f"{truth_of.get_group(key)['truth'].iloc[0]:.3f} | "
            f"{row[('coverage', 'cluster')]:.3f}±{row[('mc_se', 'cluster')]:.3f} | "
            f"{row[('coverage', 'independent')]:.3f}±{row[('mc_se', 'independent')]:.3f} | "
            f"{row[('reject_rate', 'cluster')]:.3f} | {row[('reject_rate', 'independent')]:.3f} | "
            f"{row[('mean_width', 'cluster')]:.3f} | {row[('mean_width', 'independent')]:.3f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=3131)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true", help="only redraw the report from the CSV")
    ap.add_argument("--seconds", type=float, default=None, help="run time to state (--render)")
    args = ap.parse_args(argv)
    if args.render:
        df = pd.read_csv(args.out / "compare_cluster_coverage.csv")
        (args.out / "compare_cluster_coverage.md").write_text(to_markdown(df, seconds=args.seconds))
        return 0
    start = time.perf_counter()
    df = run(reps=args.reps, n_boot=args.n_boot, seed=args.seed)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "compare_cluster_coverage.csv", index=False)
    (args.out / "compare_cluster_coverage.md").write_text(to_markdown(df, seconds=seconds))
    print(f"wrote {args.out / 'compare_cluster_coverage.md'} in {seconds / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
