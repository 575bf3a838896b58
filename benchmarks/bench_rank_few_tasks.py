"""Benchmark: ``passhat.rank`` on few tasks (35 systems × 20 tasks × 5 runs), now vs before.

Below :data:`passhat.scopes.MIN_TASKS` common tasks every pair's benchmark-scope interval
is the pooled rule of :mod:`passhat.compare.engine`: the error of the unbiased difference
simulated from one Beta population fitted to both systems, with as many draws as the
pairwise tests' sign flips (2 · pairs / α: 23,800 for the 595 pairs of 35 systems at 95%).
That rule is where the time goes. Before, it fitted the pooled posterior and drew every
task's rate and new runs (a Beta and a Binomial per task and draw) once per column (mean,
pass@k, pass^k: 3 calls per pair at k = 1, 4). Now one fit and one set of draws serve every
column of a pair, and the new runs are drawn first from their Beta-Binomial law by
inverting its CDF (one uniform instead of a Binomial), then the rate given them.

The "before" path is kept below (:func:`legacy_pooled_intervals`, the per-column code of
main at e579678, verbatim in what it draws and in which order) so that both run in one
process on the same data: ``ph.rank`` is timed with the current code, then with the legacy
rule patched into :mod:`passhat.compare.engine`; the ratio cancels the machine's load
(the machine is shared: wall and CPU time are printed with the load average; CPU time is
the steadier figure). The tables of both runs are compared: the largest difference of the
benchmark-scope bounds and p-values (Monte Carlo error, both 23,800 draws), and the
population-scope rows before the first pooled interval are the same random numbers.

Data: 35 systems with rates drawn from Beta(2, 2), each task's rate the system's plus
N(0, 0.15) (clipped to [0, 1]), 20 tasks, 5 runs (seed 0); ``rank(k=(1, 4), n_boot=1000,
seed=1)``.

Run::

    .venv/bin/python benchmarks/bench_rank_few_tasks.py [--systems 35] [--tasks 20]

The printed lines are also written to ``benchmarks/bench_rank_few_tasks.txt`` at the
default sizes.

Last results (``benchmarks/bench_rank_few_tasks.txt``, 2 shared cores at load 9-11): now /
before = 0.36 in CPU time (2.8×), 0.45 in wall time; the target (≤ 0.1) is not met. What is
left is one Beta draw per task, system and draw — 2 × 20 × 23,800 per pair, about 70 ns
each, ~70% of the time — which this rule needs as long as every pair gets 2 · pairs / α
fresh draws of its own pooled posterior (the nodes differ between pairs, so the draws
cannot be shared).
"""

from __future__ import annotations

import argparse
import builtins
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import passhat as ph
from passhat.betabinom import GridNodes, HyperPrior, posterior_grid
from passhat.compare import engine
from passhat.hierarchical import (
    EXACT_GROUP_MAX,
    _estimate_table,
    _g,
    expected_task_variance,
)
from passhat.scopes import EXPECT_GRID
from passhat.trials import counts_from_arrays

OUT = Path(__file__).with_name("bench_rank_few_tasks.txt")
_LINES: list[str] = []


def print(*args: object) -> None:
    line = " ".join(str(a) for a in args)
    _LINES.append(line)
    builtins.print(line, flush=True)


def legacy_error_draws(
    nodes: GridNodes,
    n: Any,
    c: Any,
    w: Any,
    freq: Any,
    col: tuple[str, int],
    *,
    pick: Any,
    rng: np.random.Generator,
) -> Any:
    """One column's error draws as on main at e579678: p ~ posterior, c* ~ Binomial(n, p)."""
    idx = np.asarray(pick, dtype=np.intp)
    a, b = nodes.a[idx], nodes.b[idx]
    out = np.zeros(idx.size)
    small = freq <= EXACT_GROUP_MAX
    rep = np.repeat(np.flatnonzero(small), freq[small])
    if rep.size:
        table, offset = _estimate_table(n[rep], col)
        runs = n[rep].astype(np.int64)
        xs, ys, wt = c[rep], n[rep] - c[rep], w[rep]
        step = max(1, 2_000_000 // rep.size)
        for start in range(0, idx.size, step):
            sl = slice(start, min(idx.size, start + step))
            p = rng.beta(a[sl, None] + xs[None, :], b[sl, None] + ys[None, :])
            u = table[offset[None, :] + rng.binomial(runs[None, :], p)]
            out[sl] += ((u - _g(p, col)) * wt[None, :]).sum(axis=1)
    big = np.flatnonzero(~small)
    if big.size:
        var = expected_task_variance(nodes, n[big], c[big], [col])[:, 0]
        out += float(np.sqrt(np.sum(freq[big] * w[big] ** 2 * var))) * rng.standard_normal(idx.size)
    return out / float(np.sum(w * freq))


def legacy_pooled_intervals(
    a: Any,
    b: Any,
    cols: Sequence[tuple[str, int]],
    weights: Any,
    estimates: Any,
    *,
    ci: float,
    n_draws: int,
    rng: np.random.Generator,
    prior: HyperPrior,
) -> list[tuple[float, float, float]]:
    """The pooled rule before: a posterior fit and a set of draws per column, in column order."""
    out = []
    for j, col in enumerate(cols):
        keys, freq = np.unique(
            np.column_stack([np.r_[a.n, b.n], np.r_[a.c, b.c]]), axis=0, return_counts=True
        )
        nodes = posterior_grid(keys[:, 0], keys[:, 1], freq, prior=prior, size=EXPECT_GRID).nodes()
        pick = nodes.sample(n_draws, rng)
        err = np.zeros(n_draws)
        for s, sign in ((a, -1.0), (b, 1.0)):
            cat, fs = np.unique(np.column_stack([s.n, s.c, weights]), axis=0, return_counts=True)
            err += sign * legacy_error_draws(
                nodes, cat[:, 0], cat[:, 1], cat[:, 2], fs, col, pick=pick, rng=rng
            )
        step = max(engine._one_success_step(s.n, s.c, weights, col) for s in (a, b))
        out.append(engine.error_interval(float(estimates[j]), err, ci=ci, step=step))
    return out


def data(systems: int, tasks: int, runs: int, seed: int = 0) -> list[Any]:
    rng = np.random.default_rng(seed)
    rate = rng.beta(2, 2, systems)
    out = []
    for i in range(systems):
        p = np.clip(rate[i] + rng.normal(0, 0.15, tasks), 0, 1)
        out.append(
            counts_from_arrays(np.full(tasks, runs), rng.binomial(runs, p), system=f"s{i:02d}")
        )
    return out


def timed(tables: list[Any]) -> tuple[Any, float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    r = ph.rank(tables, k=(1, 4), n_boot=1000, seed=1)
    return r, time.perf_counter() - t0, time.process_time() - c0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=35)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tables = data(args.systems, args.tasks, args.runs)
    ph.rank(tables[:3], k=(1, 4), n_boot=200, seed=1)  # imports and first calls out of the timing
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    now, wall_now, cpu_now = timed(tables)
    pairs = now.settings["pairs_tested"]
    head = (
        f"ph.rank, {args.systems} systems × {args.tasks} tasks × {args.runs} runs, k = 1, 4, "
        f"n_boot = 1000 ({pairs} pairs, {now.settings['pair_flips']} draws per pooled interval)"
    )
    print(head)
    print(
        f"  now:    wall {wall_now:7.1f} s, CPU {cpu_now:7.1f} s "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    current = engine._pooled_benchmark_intervals
    engine._pooled_benchmark_intervals = legacy_pooled_intervals  # type: ignore[assignment]
    try:
        before, wall_old, cpu_old = timed(tables)
    finally:
        engine._pooled_benchmark_intervals = current
    print(
        f"  before: wall {wall_old:7.1f} s, CPU {cpu_old:7.1f} s "
        f"(load average {os.getloadavg()[0]:.1f}; the per-column pooled rule of main at e579678)"
    )
    print(
        f"  ratio now / before: wall {wall_now / wall_old:.3f}, CPU {cpu_now / cpu_old:.3f} "
        f"(speed-up {cpu_old / cpu_now:.1f}× in CPU time); target ≤ 0.1"
    )
    keys = ["system_a", "system_b", "metric", "k", "scope"]
    a = now.pairs.set_index(keys).sort_index()
    b = before.pairs.set_index(keys).sort_index()
    bench = a.index.get_level_values("scope") == "benchmark"
    same = (a.index.get_level_values("system_a") == "s00") & (
        a.index.get_level_values("system_b") == "s01"
    )
    pop0 = same & ~bench
    dl = np.abs(a["lower"] - b["lower"])[bench]
    du = np.abs(a["upper"] - b["upper"])[bench]
    dp = np.abs(a["p_value"] - b["p_value"])[bench]
    print(
        f"  benchmark scope, now vs before (two Monte Carlo estimates): largest |Δ lower| "
        f"{dl.max():.4f}, |Δ upper| {du.max():.4f}, |Δ p| {dp.max():.4f}; median |Δ bound| "
        f"{np.median(np.r_[dl, du]):.4f}"
    )
    exact = bool(
        np.array_equal(
            a.loc[pop0, ["lower", "upper", "p_value"]].to_numpy(),
            b.loc[pop0, ["lower", "upper", "p_value"]].to_numpy(),
        )
    )
    print(
        f"  first pair's population scope (drawn before any pooled interval) identical: {exact}; "
        f"values and ranks identical: "
        f"{bool(np.array_equal(now.table['value'], before.table['value']))}"
    )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if (args.systems, args.tasks, args.runs) == (35, 20, 5):
        OUT.write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
