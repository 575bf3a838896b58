"""Leaderboard calibration: rank intervals, group letters and the share ranked first against a
known truth.

Eight systems run the same T tasks, n runs each. Task rates follow a crossed
logit model, logit p_si = θ_s + β_i + ε_si with β_i ~ N(0, 1.2²) shared by all
systems and ε_si ~ N(0, 0.5²), so the systems are correlated the way real
agents on one benchmark are. The population value of system s is
E g(expit(θ_s + z)), z ~ N(0, 1.2² + 0.5²), computed by Gauss–Hermite
quadrature (exact to 1e-12), so equal θ gives exactly equal truth:

    θ = 1.2, 1.0, 1.0, 0.7, 0.7, 0.7, 0.2, −0.6   (two ties: a pair and a triple)

For each replicate, :func:`passhat.rank` (paired bootstrap) ranks the systems
by the mean and by pass^n, and the study records

* **rank-interval coverage**: the interval contains every rank the system's
  true value can take (for tied truths, the whole tied range), per system and
  for all systems at once;
* **letter splits**: how often two systems of equal truth share no group
  letter (goal: ≤ α = 1 − level), and how often systems of different truth
  are separated;
* **calibration of the share ranked first**: shares binned; in each bin the mean
  prediction against the observed share of replicates where the system is
  truly first (a tie at the top shares 1/m).

Run::

    .venv/bin/python studies/rank_calibration/rank_calibration.py [--reps 100] [--quick]

Writes ``reports/rank_calibration/`` (README.md, coverage.csv, tiers.csv (the letters),
calibration.csv, calibration.png).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "rank_calibration"

THETA = np.array([1.2, 1.0, 1.0, 0.7, 0.7, 0.7, 0.2, -0.6])
SIGMA_TASK, SIGMA_DEV = 1.2, 0.5
SYSTEMS = [f"s{i + 1}" for i in range(THETA.size)]
LEVEL = 0.9
CELLS = [(50, 3), (100, 5), (200, 4)]


def truth(metric: str, k: int) -> np.ndarray:
    """Population E g(p) per system by Gauss–Hermite quadrature over z ~ N(0, σ²)."""
    x, wq = np.polynomial.hermite_e.hermegauss(80)
    sd = np.hypot(SIGMA_TASK, SIGMA_DEV)
    p = 1.0 / (1.0 + np.exp(-(THETA[:, None] + sd * x[None, :])))
    g = p if metric == "mean" else p**k
    return (g * wq).sum(axis=1) / wq.sum()


def true_rank_range(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = np.round(v, 12)
    lo = 1 + (r[None, :] > r[:, None]).sum(axis=1)
    hi = r.size - (r[None, :] < r[:, None]).sum(axis=1)
    return lo, hi


def simulate(t_n: int, n: int, rng: np.random.Generator) -> Any:
    import xarray as xr

    from passhat.trials import counts_from_arrays

    beta = rng.normal(0, SIGMA_TASK, t_n)
    tables = []
    for s, th in enumerate(THETA):
        p = 1.0 / (1.0 + np.exp(-(th + beta + rng.normal(0, SIGMA_DEV, t_n))))
        c = rng.binomial(n, p)
        tables.append(counts_from_arrays(np.full(t_n, n), c, system=SYSTEMS[s]))
    return xr.concat(tables, dim="system")


def run_cell(t_n: int, n: int, *, reps: int, n_boot: int, seed: int) -> dict[str, pd.DataFrame]:
    import passhat as ph

    rng = np.random.default_rng(seed)
    cols = [("mean", n), ("pass_hat_k", n)]
    truths = {c: truth(*c) for c in cols}
    cov_rows, tier_rows, cal_rows = [], [], []
    for rep in range(reps):
        ds = simulate(t_n, n, rng)
        r = ph.rank(
            ds,
            k=[n],
            metrics=["mean", "pass_hat_k"],
            ci=LEVEL,
            n_boot=n_boot,
            seed=int(rng.integers(2**31)),
        )
        for metric, k in cols:
            tv = truths[(metric, k)]
            lo, hi = true_rank_range(tv)
            t = r.table[(r.table["metric"] == metric)].set_index("system").loc[SYSTEMS]
            covered = (t["rank_lower"].to_numpy() <= lo) & (t["rank_upper"].to_numpy() >= hi)
            cov_rows.append(
                {
                    "T": t_n,
                    "n": n,
                    "metric": metric,
                    "k": k,
                    "rep": rep,
                    "covered_share": covered.mean(),
                    "all_covered": covered.all(),
                    "mean_width": (t["rank_upper"] - t["rank_lower"] + 1).mean(),
                }
            )
            r_t = np.round(tv, 12)
            letters = [set(str(g)) for g in t["group"]]
            for i in range(len(SYSTEMS)):
                for j in range(i + 1, len(SYSTEMS)):
                    equal = bool(r_t[i] == r_t[j])
                    tier_rows.append(
                        {
                            "T": t_n,
                            "n": n,
                            "metric": metric,
                            "k": k,
                            "rep": rep,
                            "rule": "letters" if equal else "letters, different truth",
                            "pair": f"{SYSTEMS[i]}-{SYSTEMS[j]}",
                            # equal truth: split when they share no letter; different truth:
                            # "split" when they share none (separated), merged otherwise
                            "split": not (letters[i] & letters[j]),
                        }
                    )
            top = r_t == r_t.max()
            outcome = np.where(top, 1.0 / top.sum(), 0.0)
            for s in range(len(SYSTEMS)):
                cal_rows.append(
                    {
                        "T": t_n,
                        "n": n,
                        "metric": metric,
                        "k": k,
                        "rep": rep,
                        "system": SYSTEMS[s],
                        "share_first": t["share_first"].iloc[s],
                        "truly_first": outcome[s],
                    }
                )
    return {
        "coverage": pd.DataFrame(cov_rows),
        "tiers": pd.DataFrame(tier_rows),
        "calibration": pd.DataFrame(cal_rows),
    }


def summarise(raw: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    cov = (
        raw["coverage"]
        .groupby(["T", "n", "metric", "k"])
        .agg(
            reps=("rep", "size"),
            per_system=("covered_share", "mean"),
            all_systems=("all_covered", "mean"),
            mean_width=("mean_width", "mean"),
        )
        .reset_index()
    )
    cov["mc_se"] = np.sqrt(LEVEL * (1 - LEVEL) / cov["reps"])
    keys = ["T", "n", "metric", "k", "rule"]
    tiers = (
        raw["tiers"]
        .groupby(keys)
        .agg(pairs=("split", "size"), split_rate=("split", "mean"), any_split=("split", "max"))
        .reset_index()
    )
    per_rep = raw["tiers"].groupby([*keys, "rep"])["split"].any()
    tiers["replicates_with_a_split"] = per_rep.groupby(keys).mean().values
    cal = raw["calibration"].copy()
    bins = np.array([0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0 + 1e-9])
    cal["bin"] = pd.cut(cal["share_first"], bins, right=False, include_lowest=True)
    calib = (
        cal.groupby(["metric", "bin"], observed=True)
        .agg(
            count=("share_first", "size"),
            predicted=("share_first", "mean"),
            observed=("truly_first", "mean"),
        )
        .reset_index()
    )
    # the binomial error of the observed share if the predictions were right
    calib["mc_se"] = np.sqrt(
        np.clip(calib["predicted"] * (1 - calib["predicted"]), 1e-4, None) / calib["count"]
    )
    calib["bin"] = calib["bin"].astype(str)
    return {"coverage": cov, "tiers": tiers, "calibration": calib}


def run_all(
    *, reps: int, n_boot: int, cells: list[tuple[int, int]], seed: int = 1
) -> dict[str, pd.DataFrame]:
    raws: dict[str, list[pd.DataFrame]] = {"coverage": [], "tiers": [], "calibration": []}
    for i, (t_n, n) in enumerate(cells):
        part = run_cell(t_n, n, reps=reps, n_boot=n_boot, seed=seed + i)
        for key in raws:
            raws[key].append(part[key])
    return summarise({k: pd.concat(v, ignore_index=True) for k, v in raws.items()})


def write(res: dict[str, pd.DataFrame], out: Path, *, reps: int, n_boot: int, secs: float) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    for key, df in res.items():
        df.to_csv(out / f"{key}.csv", index=False)
    fig, ax = plt.subplots(figsize=(4.5, 4.2))
    for metric, part in res["calibration"].groupby("metric"):
        ax.errorbar(
            part["predicted"],
            part["observed"],
            yerr=2 * part["mc_se"],
            marker="o",
            capsize=2,
            label=metric,
        )
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("share of resamples ranked first, binned")
    ax.set_ylabel("observed share truly first")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(out / "calibration.png", dpi=120)
    plt.close(fig)
    md = [
        "# Leaderboard calibration (studies/rank_calibration)",
        "",
        f"Eight systems, θ = {THETA.tolist()} (a tied pair and a tied triple), crossed task "
        f"effects (σ_task = {SIGMA_TASK}, σ_dev = {SIGMA_DEV}); level {LEVEL:.0%}; {reps} "
        f"replicates per cell, {n_boot} bootstrap resamples; engine: paired task bootstrap; "
        f"rank intervals: pairwise (Mogstad et al.); {secs:.0f} s.",
        "",
        "## Rank-interval coverage (goal ≥ 0.90 per system)",
        "",
        res["coverage"].round(3).to_markdown(index=False),
        "",
        "## Group letters: equal-truth systems split (goal ≤ 0.10 per pair)",
        "",
        "`letters`: pairs of equal truth; `split` is a pair that shares no letter (a false "
        "separation; Holm keeps it ≤ 0.10 for all pairs at once). `letters, different truth`: "
        "pairs of different truth; `split_rate` is the share separated (the power of the "
        "Holm-adjusted paired test), 1 − split_rate the share that share a letter.",
        "",
        res["tiers"].round(3).to_markdown(index=False),
        "",
        "## Share ranked first against the share truly first (observed within 2 MC SE)",
        "",
        res["calibration"].round(3).to_markdown(index=False),
        "",
        "![calibration](calibration.png)",
        "",
    ]
    text = "\n".join(md)
    (out / "README.md").write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="20 replicates per cell")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    reps = 20 if args.quick else args.reps
    t0 = time.time()
    res = run_all(reps=reps, n_boot=args.n_boot, cells=CELLS)
    text = write(res, args.out, reps=reps, n_boot=args.n_boot, secs=time.time() - t0)
    print(text)
    print(f"wrote {args.out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
