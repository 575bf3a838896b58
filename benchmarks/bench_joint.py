"""Benchmark of the joint crossed model (``passhat.fit(..., model="joint")`` and its Rasch
form ``model="rasch"``; not a timed test).

Measures, in one process, 4 chains × 1000 draws (+1000 tuning) with the default sampler,
for each form (the Rasch form on data simulated without the deviation, κ = ∞):

* 20 systems × 500 tasks × 5 runs (simulated from the model: θ_s ~ N(0, 1), σ_β = 2,
  κ = 8): the first fit in the process, including building the PyMC model and
  nutpie's numba compilation (target < 60 s), then the same shape again with new
  data (the compiled model is reused);
* with ``--big``, 20 systems × 5000 tasks × 5 runs (10× the tasks) at the same sampler
  setting: its cost relative to the 500-task fit (target ≤ 2×). The compiled model
  depends on the number of systems only (the task effects are integrated out; the data,
  whatever their size, are swapped in), so this fit reuses it: the ratio against the
  second 500-task fit is the cost of the tasks.

The first fit compiles into a fresh PyTensor compile directory (a temporary one, unless
PYTENSOR_FLAGS is set), and nutpie's numba compilation and passhat's numba kernels are
compiled in the process: nothing is cached from an earlier run.

Each line gives wall time and process CPU time (all threads) and the load average:
the machine is shared, so wall time on a busy machine overstates the cost; CPU time
is the steadier figure. Also printed: leapfrog steps per draw, the worst R-hat and
bulk ESS of θ and σ_β.

Run::

    .venv/bin/python benchmarks/bench_joint.py [--quick] [--scaling] [--big] [--form F]

Last results (``benchmarks/bench_joint.txt``, 2 shared cores at load average 2–2.6): at 10×
the tasks the Rasch form costs 1.25× the CPU (101 distinct rows at 500 and at 5000 tasks),
the crossed model 7.15× (485 → 4782 distinct rows). The Rasch form's first fit at 20 × 500 ×
5, 4 × 1000 draws, compile included: 26 s wall, 28 s CPU (target < 60 s).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import warnings

os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={tempfile.mkdtemp(prefix='pytensor-')}")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

import passhat as ph  # noqa: E402
from passhat.model.joint_build import joint_counts  # noqa: E402

QUICK = "--quick" in sys.argv
SCALING = "--scaling" in sys.argv
SAMPLING = (
    {"chains": 2, "draws": 200, "tune": 200}
    if QUICK
    else {"chains": 4, "draws": 1000, "tune": 1000}
)
SYSTEMS, RUNS = 20, 5
TASKS = (100, 1000) if QUICK else (500, 5000)
FORMS = [sys.argv[sys.argv.index("--form") + 1]] if "--form" in sys.argv else ["joint", "rasch"]


def simulate(tasks: int, seed: int, form: str = "joint"):
    """Counts of SYSTEMS × tasks × RUNS from the joint model (κ = 8), or its Rasch form."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, SYSTEMS)
    beta = rng.normal(0.0, 2.0, tasks)
    mu = 1.0 / (1.0 + np.exp(-(theta[:, None] + beta[None, :])))
    p = mu if form == "rasch" else rng.beta(mu * 8.0, (1.0 - mu) * 8.0)
    n = np.full((SYSTEMS, tasks), RUNS)
    return joint_counts(n, rng.binomial(n, p), systems=[f"sys{s:02d}" for s in range(SYSTEMS)])


def timed(label: str, ds, sampling: dict | None = None, form: str = "joint") -> float:
    wall, cpu = time.perf_counter(), time.process_time()
    f = ph.fit(ds, model=form, k=[1, 5], seed=0, progress=False, **(sampling or SAMPLING))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    q = json.loads(f.idata.posterior.attrs["passhat_quadrature"])
    d = f.diagnostics.table
    th = d[d["variable"].isin(["theta", "task_sd"])]
    print(
        f"{form:5s} {label}: wall {wall:6.1f} s, CPU {cpu:6.1f} s "
        f"(load avg {os.getloadavg()[0]:.1f}); "
        f"{f.sampler}; max R-hat {th['r_hat'].max():.3f}, min bulk ESS {th['ess_bulk'].min():.0f}, "
        f"{f.diagnostics.divergences['(all)']} divergences; {q['rows']} distinct count rows, "
        f"window {q['window']} of {q['nodes']} nodes",
        flush=True,
    )
    return cpu


def scaling() -> None:
    cheap = {"chains": 1, "draws": 300, "tune": 300}
    print(
        f"cost at 10× tasks: {SYSTEMS} systems × T tasks × {RUNS} runs, 1 chain × 300 draws "
        "(+300 tuning), compiled model reused"
    )
    ratios = {}
    for form in FORMS:
        cpu = {}
        for t in (500, 5000):
            timed(f"T = {t:5d}, warm-up (compile)", simulate(t, 10, form), cheap, form)
            cpu[t] = timed(f"T = {t:5d}, timed fit", simulate(t, 11, form), cheap, form)
        ratios[form] = cpu[5000] / cpu[500]
    for form, r in ratios.items():
        print(f"{form:5s} 10× tasks: CPU ratio {r:.2f}")


def main() -> None:
    if SCALING:
        scaling()
        return
    s = SAMPLING
    print(
        f"joint model, {SYSTEMS} systems × T tasks × {RUNS} runs, {s['chains']} chains × "
        f"{s['draws']} draws (+{s['tune']} tuning), {os.cpu_count()} cores"
    )
    small, big = TASKS
    ratios = {}
    for form in FORMS:
        c1 = timed(
            f"T = {small:5d}, first fit (incl. model build + compile)",
            simulate(small, 1, form),
            form=form,
        )
        c2 = timed(
            f"T = {small:5d}, second fit (new data, compiled model reused)",
            simulate(small, 2, form),
            form=form,
        )
        if "--big" in sys.argv or QUICK:
            c3 = timed(f"T = {big:5d}, (compiled model reused)", simulate(big, 3, form), form=form)
            ratios[form] = (c3 / c2, c3 / c1)
    for form, (r2, r1) in ratios.items():
        print(
            f"{form:5s} 10× tasks: CPU ratio {r2:.2f} against the second {small}-task fit, "
            f"{r1:.2f} against the first (compile included)"
        )


if __name__ == "__main__":
    main()
