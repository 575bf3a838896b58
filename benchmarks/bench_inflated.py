"""Benchmark: mixing of the zero/one-inflated model before and after its reparameterisation.

Issue 16, item 2: the inflated model mixed slowly (tail ESS ≈ 330 from 4 × 1000 draws on the
bundled example, failing its own diagnostics). Two changes (``passhat.model.build_model``):

* the Beta part has a, b ≥ 1, sampled as κ = max(1/μ, 1/(1 − μ)) + κ_e with log κ_e ~
  Normal(0, 2): a U-shaped Beta can no longer stand in for the always-pass / always-fail
  shares, which traded off against κ along a curved ridge;
* the shares' prior is Dirichlet(2, 2, 2) instead of Dirichlet(1, 1, 1) (stated in
  :class:`passhat.model.Priors`).

Both models are compiled once with nutpie and sampled with passhat's defaults (4 chains ×
1000 draws after 1000 tuning steps, target acceptance 0.9) on the bundled ``agents`` example
(2 systems × 168 tasks × 5 runs) and τ-bench's gpt-4o airline results (the bundled
``tau-airline`` example, 50 tasks × 4 runs), for
``--seeds`` seeds each. Reported per fit: the smallest bulk and tail ESS over μ, κ, π₁, π₀
(ArviZ), divergences, sampling wall time, and min ESS per second of sampling. "before" is the
old model, rebuilt here as it was.

Run::

    PYTENSOR_FLAGS=compiledir=.pytensor .venv/bin/python benchmarks/bench_inflated.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from typing import Any

import numpy as np

import passhat as ph
from passhat.model.build import build_model, compress
from passhat.model.diagnostics import import_arviz

VARS = ["mu", "kappa", "pi_pass", "pi_fail"]


def before_model(n: Any, c: Any, w: Any) -> Any:
    """The inflated model as it was: κ ~ LogNormal(0, 2) free, shares ~ Dirichlet(1, 1, 1)."""
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model() as m:
        nd = pm.Data("n", np.asarray(n, float))
        cd = pm.Data("c", np.asarray(c, float))
        wd = pm.Data("w", np.asarray(w, float))
        mu = pm.Beta("mu", alpha=1.0, beta=1.0)
        kappa = pm.LogNormal("kappa", mu=0.0, sigma=2.0)
        a, b = mu * kappa, (1.0 - mu) * kappa
        fd = nd - cd
        bb = (
            pt.gammaln(cd + a)
            + pt.gammaln(fd + b)
            - pt.gammaln(nd + kappa)
            + pt.gammaln(kappa)
            - pt.gammaln(a)
            - pt.gammaln(b)
        )
        mix = pm.Dirichlet("mix", a=np.ones(3))
        pi_pass = pm.Deterministic("pi_pass", mix[0])
        pi_fail = pm.Deterministic("pi_fail", mix[1])
        lp_pass = pt.switch(pt.eq(cd, nd), pt.log(pi_pass), -np.inf)
        lp_fail = pt.switch(pt.eq(cd, 0), pt.log(pi_fail), -np.inf)
        terms = pt.stack([lp_pass, lp_fail, pt.log(mix[2]) + bb], axis=0)
        pm.Potential("loglik", pt.sum(wd * pm.math.logsumexp(terms, axis=0)))
    return m


def datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name → (n, c) per task, one entry per system."""
    out = {}
    agents = ph.load_example("agents").counts()
    for si, s in enumerate(agents["system"].values):
        out[f"agents/{s}"] = (agents["n"].values[si], agents["c"].values[si])
    tau = ph.load_example("tau-airline").counts()  # bundled: the same counts as ../shared's file
    out["tau-bench airline"] = (tau["n"].values[0], tau["c"].values[0])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import nutpie

    az = import_arviz()
    data = datasets()
    first = next(iter(data.values()))
    comp0 = compress(*first)
    compiled = {}
    for label, make in (
        ("before", lambda: before_model(comp0.n, comp0.c, comp0.mult)),
        ("after", lambda: build_model(comp0.n, comp0.c, comp0.mult, model="inflated")),
    ):
        t0 = time.perf_counter()
        compiled[label] = nutpie.compile_pymc_model(make())
        print(f"{label}: compiled in {time.perf_counter() - t0:.1f} s (nutpie, numba)")

    rows = []
    for name, (n, c) in data.items():
        comp = compress(n, c)
        values = {
            "n": comp.n.astype(float),
            "c": comp.c.astype(float),
            "w": comp.mult.astype(float),
        }
        for label, cm in compiled.items():
            model = cm.with_data(**values)
            for seed in range(args.seeds):
                t0 = time.perf_counter()
                tr = nutpie.sample(
                    model,
                    chains=4,
                    draws=1000,
                    tune=1000,
                    seed=seed,
                    progress_bar=False,
                    target_accept=0.9,
                    cores=min(4, os.cpu_count() or 1),
                )
                wall = time.perf_counter() - t0
                bulk = az.ess(tr, var_names=VARS, method="bulk")
                tail = az.ess(tr, var_names=VARS, method="tail")
                b = min(float(bulk[v]) for v in VARS)
                t = min(float(tail[v]) for v in VARS)
                div = int(np.asarray(tr.sample_stats["diverging"]).sum())
                rows.append((name, label, seed, b, t, div, wall))

    print(f"\n{'data':22s} {'model':6s} seed {'bulk':>6s} {'tail':>6s} div {'wall s':>7s} ESS/s")
    for name, label, seed, b, t, div, wall in rows:
        print(
            f"{name:22s} {label:6s} {seed:4d} {b:6.0f} {t:6.0f} {div:3d} {wall:7.2f} "
            f"{min(b, t) / wall:5.0f}"
        )
    print("\nmedian over seeds (min of bulk and tail ESS; ESS per second of sampling):")
    for name in data:
        for label in compiled:
            sel = [r for r in rows if r[0] == name and r[1] == label]
            ess = statistics.median(min(r[3], r[4]) for r in sel)
            worst = min(min(r[3], r[4]) for r in sel)
            rate = statistics.median(min(r[3], r[4]) / r[6] for r in sel)
            divs = sum(r[5] for r in sel)
            print(
                f"  {name:22s} {label:6s} min ESS median {ess:6.0f} (worst {worst:5.0f}), "
                f"{divs} divergences, {rate:5.0f} ESS/s"
            )
    print("\nafter / before (median min ESS per second of sampling; median min ESS):")
    for name in data:
        med = {
            label: (
                statistics.median(min(r[3], r[4]) / r[6] for r in rows if r[:2] == (name, label)),
                statistics.median(min(r[3], r[4]) for r in rows if r[:2] == (name, label)),
            )
            for label in compiled
        }
        print(
            f"  {name:22s} ESS/s {med['after'][0] / med['before'][0]:5.2f}×, "
            f"ESS {med['after'][1] / med['before'][1]:5.2f}×"
        )
    after = [r for r in rows if r[1] == "after"]
    ok = all(min(r[3], r[4]) >= 1000 and r[5] == 0 for r in after)
    print(f"\nafter: bulk and tail ESS ≥ 1000 with 0 divergences in every fit: {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
