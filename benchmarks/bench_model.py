"""Benchmark of the hierarchical model fit (not a timed test).

Measures, in one process:

* 168 tasks × 5 runs, 4 chains × 1000 draws (+1000 tuning) NUTS via ``passhat.fit``:
  the first fit in the process (includes building the model and nutpie's numba
  compilation; PyTensor's C cache in .pytensor is warm after a first run), a second
  fit (compiled model reused), and PyMC's own sampler (C backend, warm cache);
* the same with 1,000,000 tasks (n uniform on 1..20): the likelihood is compressed to
  distinct (n, c) pairs (its log-gamma terms to distinct successes, failures and runs)
  and the benchmark-scope draws to distinct (n, c, weight) groups, so only reading the
  counts grows with the number of tasks;
* the grid method on both;
* the baseline: an uncompressed model with one latent p_i per task
  (p_i ~ Beta(μκ, (1−μ)κ), c_i ~ Binomial(n_i, p_i)) on the 168-task data, sampled
  with nutpie in the same process, compared by wall time and ESS per second of μ, κ.

Targets (issue 4): 168-task NUTS < 10 s wall including compilation from a warm cache;
10^6-task fit within 2× of the 168-task one; grid < 0.5 s for both.

The two "compiled model reused" fits that the 2× ratio compares take well under a
second, so each is timed as the best of 5 repetitions (other processes on a shared
machine only ever add time); process CPU time (all threads) is printed next to wall time.

Run::

    PYTENSOR_FLAGS=compiledir=.pytensor .venv/bin/python benchmarks/bench_model.py
"""

from __future__ import annotations

import os
import resource
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

import passhat as ph  # noqa: E402
from passhat.model.diagnostics import import_arviz  # noqa: E402
from passhat.model.sampler import _NUTPIE_CACHE  # noqa: E402

az = import_arviz()
SAMPLING = {"method": "nuts", "chains": 4, "draws": 1000, "tune": 1000}


def data_168() -> ph.Trials:
    return ph.load_example("agents").select(systems=["baseline"])


def data_million(seed: int = 0):
    rng = np.random.default_rng(seed)
    T = 1_000_000
    n = rng.integers(1, 21, T)
    c = rng.binomial(n, rng.beta(0.5, 0.4, T))
    return ph.counts_from_arrays(n, c)


def min_ess(idata, variables=("mu", "kappa")) -> float:
    ess = az.ess(idata.posterior[list(variables)], method="bulk")
    return float(min(float(ess[v].min()) for v in variables))


REPS = 5


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(label: str, fn):
    t0, c0 = time.perf_counter(), cpu_s()
    out = fn()
    dt = time.perf_counter() - t0
    CPU[label] = CPU["_last"] = cpu_s() - c0
    return out, dt


def best_of(label: str, fn, reps: int = REPS):
    """Best wall time of ``reps`` runs (the CPU time recorded is that run's)."""
    best = None
    for _ in range(reps):
        out, dt = timed(label, fn)
        if best is None or dt < best[1]:
            best = (out, dt, CPU[label])
    CPU[label] = CPU["_last"] = best[2]
    return best[0], best[1]


CPU: dict[str, float] = {}


def uncompressed_baseline(trials: ph.Trials) -> tuple[float, float]:
    """One latent p_i per task; nutpie (compile + sample). Returns (wall s, min ESS)."""
    import nutpie
    import pymc as pm

    ds = trials.counts()
    n = ds["n"].values[0]
    c = ds["c"].values[0]
    t0, c0 = time.perf_counter(), cpu_s()
    with pm.Model() as m:
        mu = pm.Beta("mu", 1.0, 1.0)
        kappa = pm.LogNormal("kappa", 0.0, 2.0)
        p = pm.Beta("p", mu * kappa, (1 - mu) * kappa, shape=len(n))
        pm.Binomial("c", n=n, p=p, observed=c)
    compiled = nutpie.compile_pymc_model(m)
    tr = nutpie.sample(compiled, seed=1, progress_bar=False, save_warmup=False, **SAMPLING)
    wall = time.perf_counter() - t0
    CPU["_last"] = cpu_s() - c0
    divs = int(tr.sample_stats["diverging"].sum())
    print(f"  (uncompressed: {divs} divergences)")
    return wall, min_ess(tr)


def main() -> int:
    print(f"passhat {ph.__version__}; {os.cpu_count()} CPU(s); sampling {SAMPLING}")
    small = data_168()
    big = data_million()
    print(f"data: 168 tasks × 5 runs; {big.sizes['task']:,} tasks with n in 1..20")
    rows: list[tuple[str, float, float, float]] = []

    def add(row: tuple[str, float, float]) -> None:
        rows.append((*row, CPU["_last"]))  # with the CPU time of the run just timed

    # warm the PyTensor C cache (first run on a machine compiles C; later runs load it)
    ph.fit(
        small, method="nuts", sampler="pymc", seed=0, progress=False, chains=1, draws=10, tune=10
    )

    _NUTPIE_CACHE.clear()
    f1, t_first = timed("first", lambda: ph.fit(small, seed=1, progress=False, **SAMPLING))
    add(("NUTS nutpie, 168 tasks, first fit (incl. compile)", t_first, min_ess(f1.idata)))
    f2, t_second = best_of("second", lambda: ph.fit(small, seed=2, progress=False, **SAMPLING))
    add(("NUTS nutpie, 168 tasks, compiled model reused (best of 5)", t_second, min_ess(f2.idata)))
    f3, t_pymc = timed(
        "pymc", lambda: ph.fit(small, sampler="pymc", seed=3, progress=False, **SAMPLING)
    )
    add(("NUTS PyMC sampler (C, warm cache), 168 tasks", t_pymc, min_ess(f3.idata)))
    fb, t_big = best_of("big", lambda: ph.fit(big, seed=4, progress=False, **SAMPLING))
    add(("NUTS nutpie, 1,000,000 tasks, compiled reused (best of 5)", t_big, min_ess(fb.idata)))
    _NUTPIE_CACHE.clear()
    fb2, t_big_first = timed("big first", lambda: ph.fit(big, seed=5, progress=False, **SAMPLING))
    add(
        ("NUTS nutpie, 1,000,000 tasks, first fit (incl. compile)", t_big_first, min_ess(fb2.idata))
    )

    from passhat.model import compress, grid_posterior

    for label, data in (("168 tasks", small), ("1,000,000 tasks", big)):
        ds = data.counts() if isinstance(data, ph.Trials) else data
        comp = compress(ds["n"].values[0], ds["c"].values[0])
        rng = np.random.default_rng(0)
        _g, t_core = timed(
            "grid",
            lambda comp=comp, rng=rng: grid_posterior(
                comp.n, comp.c, comp.mult, n_draws=4000, rng=rng
            ),
        )
        add((f"grid quadrature core, {label} ({len(comp)} distinct pairs)", t_core, float("nan")))
        fg, t_grid = timed("grid fit", lambda data=data: ph.fit(data, method="grid", seed=6))
        add((f"grid, full ph.fit incl. metrics, {label}", t_grid, min_ess(fg.idata)))

    t_unc, ess_unc = uncompressed_baseline(small)
    add(("baseline: uncompressed latent p_i model, 168 tasks (nutpie)", t_unc, ess_unc))
    # same conditions as the baseline: numba already warm in this process, model compiled anew
    _NUTPIE_CACHE.clear()
    f4, t_fair = timed("fair", lambda: ph.fit(small, seed=7, progress=False, **SAMPLING))
    add(
        (
            "NUTS nutpie, 168 tasks, compiled anew (numba warm, as baseline)",
            t_fair,
            min_ess(f4.idata),
        )
    )

    width = max(len(r[0]) for r in rows)
    print(f"\n{'fit'.ljust(width)}  {'wall s':>8}  {'CPU s':>8}  {'min ESS':>8}  {'ESS/s':>8}")
    for label, wall, ess, cpu in rows:
        ess_s = ess / wall if np.isfinite(ess) else float("nan")
        print(f"{label.ljust(width)}  {wall:8.3f}  {cpu:8.3f}  {ess:8.0f}  {ess_s:8.0f}")
    print()
    print(f"168-task first fit incl. compile: {t_first:.2f} s (target < 10 s)")
    print(
        f"10^6 / 168 tasks (compiled reused, best of {REPS}): {t_big / t_second:.2f}× wall, "
        f"{CPU['big'] / CPU['second']:.2f}× CPU (target ≤ 2×); "
        f"both compiled anew (numba warm): {t_big_first / t_fair:.2f}×"
    )
    print(
        f"uncompressed baseline / passhat, both compiled anew in a warm process, wall: "
        f"{t_unc / t_fair:.2f}×; ESS/s passhat/baseline: "
        f"{(min_ess(f4.idata) / t_fair) / (ess_unc / t_unc):.1f}× "
        f"(compiled model reused: {(min_ess(f2.idata) / t_second) / (ess_unc / t_unc):.0f}×)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
