"""The joint fit's independence sampler against NUTS (issue 32, goal 8): same numbers within
Monte-Carlo error, CPU per fit.

Fits DATA.csv with ``model="joint"`` (4 chains × 1000 draws) by NUTS (``method="nuts"``:
nutpie, tune 1000) at the seeds NUTS_SEEDS and by the default (``method="auto"``: the
independence sampler when its k̂ ≤ 0.7) at the seeds IMH_SEEDS, then compares every pair of
fits on the quantities the output reports: θ_s, σ_β, κ and the summary's metrics (population
and benchmark scope, k = 1, 2, 5). Per quantity, z of the means = difference / √(se₁² + se₂²)
with se = sd / √ESS (ESS: bulk ESS of that quantity's draws in that fit), and z of the sds
with se(sd) = √(Var((x − x̄)²) / ESS((x − x̄)²)) / (2 sd) (delta method; κ's tails are
heavy). Under "same posterior" the z are ~N(0, 1) but correlated across quantities (they
share θ's common mode), so the count of |z| > 2 is compared with that of NUTS vs NUTS.

    nice .venv/bin/python benchmarks/bench_joint_imh.py DATA.csv NUTS_SEEDS IMH_SEEDS
    e.g. benchmarks/bench_joint_imh.py /tmp/d500.csv 0,1 0,1,2   (JOINT_IMH_DF=10: another df)
"""

from __future__ import annotations

import itertools
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

import passhat as ph  # noqa: E402
import passhat.model.joint_imh as ji  # noqa: E402
from passhat.model.joint_mcmc import ess_bulk  # noqa: E402

METRICS = [("mean", 1), ("pass_at_k", 2), ("pass_hat_k", 2), ("pass_at_k", 5), ("pass_hat_k", 5)]


def quantities(f: ph.JointFit) -> dict[str, np.ndarray]:
    """name → (chains, draws) draws of every reported quantity."""
    post = f.idata.posterior
    c, d = post.sizes["chain"], post.sizes["draw"]
    out = {f"theta[{s}]": post["theta"].values[:, :, i] for i, s in enumerate(f.systems)}
    out["task_sd"] = post["task_sd"].values
    out["kappa"] = post["kappa"].values
    for (metric, k), scope in itertools.product(METRICS, ("population", "benchmark")):
        x = f.metric_draws(metric, k, scope=scope).reshape(c, d, -1)
        for i, s in enumerate(f.systems):
            out[f"{metric}@{k}/{scope}[{s}]"] = x[:, :, i]
    return out


def stats(q: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """Means, sds, their MC standard errors (bulk ESS; the sd's from the ESS of the squared
    deviations, delta method), and the bulk ESS."""
    x = np.stack(list(q.values()), axis=-1)
    m, sd = x.mean(axis=(0, 1)), x.std(axis=(0, 1))
    dev2 = (x - m) ** 2
    ess, ess2 = ess_bulk(x), ess_bulk(dev2)
    se_sd = np.sqrt(dev2.var(axis=(0, 1)) / ess2) / (2 * sd)
    return m, sd, sd / np.sqrt(ess), se_sd, ess


def main() -> None:
    data = ph.read(sys.argv[1])
    ji.DF = float(os.environ.get("JOINT_IMH_DF", ji.DF))  # the proposal's df (default: passhat's)
    print(f"proposal: multivariate t, {ji.DF:g} df", flush=True)
    fits = {}
    for method, seeds in (("nuts", sys.argv[2]), ("auto", sys.argv[3])):
        for seed in map(int, seeds.split(",")):
            t = time.process_time()
            f = ph.fit(data, model="joint", method=method, seed=seed, progress=False)
            cpu = time.process_time() - t
            q = quantities(f)
            m, s, se_m, se_s, e = stats(q)
            name = f"{method}->{f.sampler}:{seed}"
            fits[name] = (m, s, se_m, se_s, e)
            names = list(q)
            print(
                f"{name}: CPU {cpu:.1f} s (first NUTS fit includes compiling), min ESS "
                f"{e.min():.0f}, median ESS {np.median(e):.0f}; {f.method_label}",
                flush=True,
            )
    for a, b in itertools.combinations(fits, 2):
        (m1, s1, sm1, ss1, _), (m2, s2, sm2, ss2, _) = fits[a], fits[b]
        zm = (m1 - m2) / np.hypot(sm1, sm2)
        zs = (s1 - s2) / np.hypot(ss1, ss2)
        print(
            f"{a} vs {b}: {len(zm)} quantities; means max |z| {np.abs(zm).max():.2f} "
            f"({names[np.abs(zm).argmax()]}; |z| > 2: {(np.abs(zm) > 2).sum()}), sds max |z| "
            f"{np.abs(zs).max():.2f} ({names[np.abs(zs).argmax()]}; |z| > 2: "
            f"{(np.abs(zs) > 2).sum()}); mean z of the sds {zs.mean():+.2f}, sd ratio (second /"
            f" first) median {np.median(s2 / s1):.4f}, range {np.min(s2 / s1):.3f}-"
            f"{np.max(s2 / s1):.3f}"
        )


if __name__ == "__main__":
    main()
