"""Simulation-based calibration of the joint crossed model (``ph.fit(..., model="joint")``).

Oracle: SBC (Talts et al. 2018). Each replicate draws (θ_s, σ_β, κ) from the fit's own
prior, simulates S systems × T tasks × n runs from the model (one system skips a fifth of
the tasks, another has more runs: unequal n and missing cells), fits with a cheap sampler
setting and records, for θ_1, θ_S − θ_1, σ_β, κ and the between-system correlation of
per-task rates ρ_12 (a function of the parameters), the rank of the truth among the
posterior draws and whether the central 50% and 90% intervals cover it. When the
inference is right the ranks are uniform and coverage is nominal *averaged over the
prior*: a χ² test on 10 rank bins and the binomial tolerance of each coverage.

The priors are narrower than the defaults (the same for simulating and fitting, as SBC
requires) so that replicates are not dominated by extreme σ_β or κ that cost long
sampling runs; the default priors are exercised by the tests and the benchmark.

Writes ``reports/joint_calibration/``: ``ranks.csv``, ``summary.csv``, ``README.md``.

Run::

    PYTENSOR_FLAGS=compiledir=.pytensor .venv/bin/python \
        studies/joint_calibration/joint_calibration.py [--reps 120]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "joint_calibration"
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")

S, T, RUNS = 4, 40, 4
PRIORS = {"theta_sd": 1.0, "task_sd_scale": 1.5, "log_kappa_mean": 2.0, "log_kappa_sd": 0.75}
SAMPLING = {"chains": 2, "draws": 250, "tune": 300}
QUANTITIES = ("theta_1", "theta_S - theta_1", "task_sd", "kappa", "rho_12")


def simulate(rng: np.random.Generator):
    """Parameters from the prior and counts from the model (unequal n, missing cells)."""
    from passhat.model.joint_build import joint_counts

    theta = rng.normal(0.0, PRIORS["theta_sd"], S)
    task_sd = abs(rng.normal(0.0, PRIORS["task_sd_scale"]))
    kappa = math.exp(rng.normal(PRIORS["log_kappa_mean"], PRIORS["log_kappa_sd"]))
    beta = rng.normal(0.0, task_sd, T)
    mu = special.expit(theta[:, None] + beta[None, :])
    p = rng.beta(mu * kappa, (1.0 - mu) * kappa)
    n = np.full((S, T), RUNS)
    n[1] = RUNS + 2
    n[S - 1, : T // 5] = 0
    ds = joint_counts(n, rng.binomial(n, p), systems=[f"s{i}" for i in range(S)])
    return ds, theta, task_sd, kappa


def quantities(theta, task_sd, kappa):
    """The checked quantities per draw: theta (draws, S), task_sd, kappa (draws,)."""
    from passhat.model.joint_metrics import correlation_draws

    rho = correlation_draws(theta, task_sd, kappa)[:, 0, 1]
    return {
        "theta_1": theta[:, 0],
        "theta_S - theta_1": theta[:, S - 1] - theta[:, 0],
        "task_sd": task_sd,
        "kappa": kappa,
        "rho_12": rho,
    }


def run(reps: int, seed: int = 2026, progress: bool = True) -> pd.DataFrame:
    import passhat as ph
    from passhat.model.joint_build import JointPriors

    warnings.filterwarnings("ignore")
    pri = JointPriors(**PRIORS)
    rows = []
    t0 = time.perf_counter()
    for r in range(reps):
        rng = np.random.default_rng([seed, r])
        ds, theta, task_sd, kappa = simulate(rng)
        f = ph.fit(ds, model="joint", priors=pri, seed=r, progress=False, k=1, **SAMPLING)
        th, sd, ka = f._hyper()
        post = quantities(th, sd, ka)
        truth = quantities(theta[None, :], np.array([task_sd]), np.array([kappa]))
        div = f.diagnostics.divergences["(all)"]
        for q in QUANTITIES:
            d, t = post[q], float(truth[q][0])
            lo50, hi50, lo90, hi90 = np.quantile(d, [0.25, 0.75, 0.05, 0.95])
            rows.append(
                {
                    "rep": r,
                    "quantity": q,
                    "truth": t,
                    "rank": int((d < t).sum()),
                    "draws": len(d),
                    "cover50": bool(lo50 <= t <= hi50),
                    "cover90": bool(lo90 <= t <= hi90),
                    "divergences": div,
                }
            )
        if progress and sys.stderr.isatty():
            print(
                f"\r{r + 1}/{reps} fits, {time.perf_counter() - t0:.0f} s", end="", file=sys.stderr
            )
    if progress and sys.stderr.isatty():
        print(file=sys.stderr)
    return pd.DataFrame(rows)


def summarise(ranks: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    out = []
    for q, g in ranks.groupby("quantity", sort=False):
        reps = len(g)
        frac = (g["rank"] + 0.5) / (g["draws"] + 1)
        counts = np.bincount(np.minimum((frac * bins).astype(int), bins - 1), minlength=bins)
        chi2 = stats.chisquare(counts)
        out.append(
            {
                "quantity": q,
                "reps": reps,
                "coverage50": g["cover50"].mean(),
                "se50": math.sqrt(0.25 / reps),
                "coverage90": g["cover90"].mean(),
                "se90": math.sqrt(0.09 / reps),
                "chi2_p_value": float(chi2.pvalue),
                "fits_with_divergences": int((g["divergences"] > 0).sum()),
            }
        )
    return pd.DataFrame(out)


def write(ranks: pd.DataFrame, summary: pd.DataFrame, out: Path, seconds: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    ranks.to_csv(out / "ranks.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    reps = int(summary["reps"].iloc[0])
    lines = [
        "# Joint crossed model: simulation-based calibration",
        "",
        f"Generated by `studies/joint_calibration/joint_calibration.py` ({reps} replicates, "
        f"{seconds / 60:.1f} min). Each replicate draws (θ_s, σ_β, κ) from the prior "
        f"{PRIORS}, simulates {S} systems × {T} tasks × {RUNS} runs (system s1 with "
        f"{RUNS + 2} runs per task, s{S - 1} missing the first {T // 5} tasks) and fits with "
        f"{SAMPLING['chains']} chains × {SAMPLING['draws']} draws (+{SAMPLING['tune']} "
        "tuning). For a calibrated posterior the rank of the truth among the draws is uniform "
        "(χ² on 10 bins) and the central 50% / 90% intervals cover the truth at their level "
        "(averaged over the prior; ± one binomial standard error).",
        "",
        "| quantity | 50% coverage | 90% coverage | χ² p (ranks) | fits with divergences |",
        "|---|---|---|---|---|",
    ]
    for r in summary.itertuples():
        lines.append(
            f"| {r.quantity} | {r.coverage50:.3f} ± {r.se50:.3f} | "
            f"{r.coverage90:.3f} ± {r.se90:.3f} | {r.chi2_p_value:.3f} | "
            f"{r.fits_with_divergences} |"
        )
    lines += [
        "",
        "ρ_12 is the between-system correlation of per-task success rates of s0 and "
        "s1 (probability scale), the quantity `plan power` takes from a joint fit.",
        "",
    ]
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=120)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    ranks = run(args.reps)
    summary = summarise(ranks)
    write(ranks, summary, args.out, time.perf_counter() - t0)
    print(summary.to_string(index=False))
    ok = (summary["chi2_p_value"] > 0.001).all() and (
        abs(summary["coverage90"] - 0.9) < 4 * summary["se90"]
    ).all()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
