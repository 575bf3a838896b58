"""Benchmark: task bootstrap, 10,000 resamples × 10,000 tasks × k = 1..10 × 3 metrics.

passhat resamples the distinct (n, c) categories with one multinomial draw
matrix for every metric and k (cost ∝ categories, not tasks). The baseline
is the loop other tools use: for each resample, draw task indices and call
the per-task estimator for every k and metric. The loop is timed for a few
hundred resamples and scaled to 10,000 (printed as such). Peak memory is
measured with tracemalloc (numpy allocations included) and ru_maxrss.

Run::

    .venv/bin/python benchmarks/bench_bootstrap.py
"""

from __future__ import annotations

import resource
import time
import tracemalloc

import numpy as np

import passhat as ph
from passhat.bootstrap import task_bootstrap

T = 10_000
B = 10_000
KS = list(range(1, 11))
LOOP_ITERS = 300


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = rng.integers(10, 21, size=T)  # unequal n, 10..20 runs per task
    p = rng.beta(0.4, 0.3, size=T)
    return n, rng.binomial(n, p)


def per_task_values(n: np.ndarray, c: np.ndarray) -> np.ndarray:
    cols = [ph.mean_success(n, c)]
    cols += [ph.pass_at_k(n, c, k) for k in KS]
    cols += [ph.pass_hat_k(n, c, k) for k in KS]
    return np.column_stack(cols)


def passhat_bootstrap(n: np.ndarray, c: np.ndarray, method: str) -> float:
    start = time.perf_counter()
    vals = per_task_values(n, c)
    task_bootstrap(vals, keys=np.column_stack([n, c]), n_boot=B, seed=1, method=method)  # type: ignore[arg-type]
    return time.perf_counter() - start


def loop_bootstrap(n: np.ndarray, c: np.ndarray, iters: int) -> float:
    """The per-resample Python loop (timed for ``iters`` resamples)."""
    rng = np.random.default_rng(2)
    out = np.empty((iters, 1 + 2 * len(KS)))
    start = time.perf_counter()
    for b in range(iters):
        idx = rng.integers(0, T, size=T)
        nb, cb = n[idx], c[idx]
        row = [ph.mean_success(nb, cb).mean()]
        row += [ph.pass_at_k(nb, cb, k).mean() for k in KS]
        row += [ph.pass_hat_k(nb, cb, k).mean() for k in KS]
        out[b] = row
    return time.perf_counter() - start


def main() -> None:
    n, c = data()
    cats = len(np.unique(np.column_stack([n, c]), axis=0))
    print(f"{T} tasks (n = 10..20), {cats} distinct (n, c) categories, {B} resamples, k = 1..10")
    passhat_bootstrap(n, c, "percentile")  # warm-up
    tracemalloc.start()
    t_pct = min(passhat_bootstrap(n, c, "percentile") for _ in range(3))
    t_bca = min(passhat_bootstrap(n, c, "bca") for _ in range(3))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    counts = ph.counts_from_arrays(n, c)
    start = time.perf_counter()
    ph.estimate(counts, k=KS, ci=0.95, n_boot=B, seed=0)
    t_est = time.perf_counter() - start
    t_loop = loop_bootstrap(n, c, LOOP_ITERS)
    t_loop_full = t_loop / LOOP_ITERS * B
    print(f"passhat task bootstrap, percentile, 21 columns:   {t_pct:7.3f} s")
    print(f"passhat task bootstrap, BCa, 21 columns:          {t_bca:7.3f} s")
    print(f"ph.estimate(k=1..10, ci=0.95, both scopes, BCa):  {t_est:7.3f} s")
    print(
        f"Python loop over resamples (per-task estimator): {t_loop:7.3f} s for {LOOP_ITERS} "
        f"resamples → {t_loop_full:7.1f} s scaled to {B}"
    )
    print(f"speed-up (loop / passhat BCa): {t_loop_full / t_bca:,.0f}×")
    print(f"peak traced memory (passhat bootstrap): {peak / 2**20:.1f} MiB")
    print(
        "max RSS of this process: "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    target = "met" if t_bca < 2.0 else "MISSED"
    print(f"target < 2 s: {target}; memory < 2 GiB: {'met' if peak < 2**31 else 'MISSED'}")


if __name__ == "__main__":
    main()
