"""Benchmark: leaderboard bootstrap ranks, 50 systems × 10,000 tasks × 10 runs × k = 1..10.

Issue 14's target: the paired task bootstrap ranks of 50 systems on 10,000 tasks
with 10 runs each, every metric (mean, pass@k, pass^k) at k = 1..10 (21 columns),
10,000 resamples, in < 10 s on 2 cores. Timed: :func:`passhat.rank.paired_draws`
(one multinomial draw of tasks per resample, shared by every system, metric and
k) plus :func:`passhat.rank.rank_from_draws` for all 21 columns (rank, pairwise
rank interval, P(rank = 1)). The ratio is against :func:`passhat.compare` of
*one* pair on the same tasks, k = 1..10, 10,000 resamples, in the same process
(so machine load cancels out). The full :func:`passhat.rank` adds the pairwise
matrix (the compare rule for every pair, S(S − 1)/2 = 1225 pairs here, with at
least 2 · pairs / α = 49,000 random sign flips so that a p-value can pass Holm's
first step). Its random flips are shared by every pair
(:mod:`passhat.signflip_shared`); the per-pair path (each pair its own flips,
what :func:`passhat.compare` does for one pair) is timed on a few pairs with the
same 49,000 flips and extrapolated to all pairs, for comparison. The full
:func:`passhat.rank` is timed on 10 systems (45 pairs) and on all 50.

The machine is shared: the load average is printed with the times.

Run::

    .venv/bin/python benchmarks/bench_rank.py [--systems 50] [--tasks 10000] [--boot 10000] \
        [--few-pairs 4]

The printed lines are also written to ``benchmarks/bench_rank.txt`` (the figures of the
last run on the default sizes).
"""

from __future__ import annotations

import argparse
import builtins
import math
import os
import time
from pathlib import Path

import numpy as np

import passhat as ph
from passhat.compare import paired_table
from passhat.rank import paired_draws, rank_from_draws
from passhat.scopes import columns
from passhat.trials import counts_from_arrays

KS = list(range(1, 11))
OUT = Path(__file__).with_name("bench_rank.txt")
_LINES: list[str] = []


def print(*args: object) -> None:
    line = " ".join(str(a) for a in args)
    _LINES.append(line)
    builtins.print(line, flush=True)


def data(systems: int, tasks: int, runs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    beta = rng.normal(0, 1.5, tasks)
    theta = np.linspace(1.0, -0.5, systems)
    p = 1 / (1 + np.exp(-(theta[:, None] + beta[None, :] + rng.normal(0, 0.5, (systems, tasks)))))
    n = np.full((systems, tasks), float(runs))
    return n, rng.binomial(runs, p).astype(float)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--boot", type=int, default=10_000)
    ap.add_argument("--few-pairs", type=int, default=4)
    args = ap.parse_args()
    n, c = data(args.systems, args.tasks, args.runs)
    cols = columns(KS)
    names = [f"s{i:02d}" for i in range(args.systems)]
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    c0 = time.process_time()
    t0 = time.perf_counter()
    draws = paired_draws(
        n, c, np.ones(args.tasks), cols, n_boot=args.boot, rng=np.random.default_rng(1)
    )
    t_draws = time.perf_counter() - t0
    point = draws.mean(axis=0)
    t1 = time.perf_counter()
    for j in range(len(cols)):
        rank_from_draws(draws[:, :, j], names, point[:, j], ci=0.95)
    t_ranks = time.perf_counter() - t1
    cpu = time.process_time() - c0
    total = t_draws + t_ranks
    print(
        f"bootstrap ranks, {args.systems} systems × {args.tasks} tasks × {args.runs} runs × "
        f"{len(cols)} columns (k = 1..10), {args.boot} resamples: {total:.2f} s "
        f"(draws {t_draws:.2f} s, rank statistics {t_ranks:.2f} s; CPU time {cpu:.2f} s on up "
        f"to {os.cpu_count()} cores); target < 10 s"
    )

    pair = [counts_from_arrays(n[i], c[i], system=names[i]) for i in (0, 1)]
    t2 = time.perf_counter()
    ph.compare(pair[0], pair[1], k=KS, n_boot=args.boot, seed=1)
    t_cmp = time.perf_counter() - t2
    print(
        f"baseline: compare of one pair on the same tasks, k = 1..10, {args.boot} resamples: "
        f"{t_cmp:.2f} s; ratio ranks / one compare = {total / t_cmp:.2f} "
        f"(for {args.systems} systems, {args.systems * (args.systems - 1) // 2} pairs)"
    )

    all_pairs = [(a, b) for a in range(args.systems) for b in range(a + 1, args.systems)]
    flips = max(args.boot, math.ceil(2 * len(all_pairs) / 0.05))
    few = all_pairs[: args.few_pairs]
    c4 = time.process_time()
    t4 = time.perf_counter()
    paired_table(
        n, c, np.ones(args.tasks), few, KS, ci=0.95, n_boot=flips, rng=np.random.default_rng(2)
    )
    t_few = (time.perf_counter() - t4) / len(few)
    cpu_few = (time.process_time() - c4) / len(few)
    print(
        f"pairwise matrix, per-pair path (each pair its own {flips} random sign flips, as "
        f"compare): {t_few:.2f} s per pair (CPU time {cpu_few:.2f} s; timed on {len(few)} "
        f"pairs), so {t_few * len(all_pairs):.0f} s (CPU time {cpu_few * len(all_pairs):.0f} s) "
        f"for the {len(all_pairs)} pairs of {args.systems} systems"
    )
    for small in sorted({min(10, args.systems), args.systems}):
        tables = [counts_from_arrays(n[i], c[i], system=names[i]) for i in range(small)]
        c3 = time.process_time()
        t3 = time.perf_counter()
        r = ph.rank(tables, k=KS, n_boot=args.boot, seed=1)
        t_full = time.perf_counter() - t3
        cpu3 = time.process_time() - c3
        pairs = small * (small - 1) // 2
        print(
            f"full ph.rank (ranks, bands, pairwise matrix with the compare rule on "
            f"{r.settings['pair_flips']} shared random sign flips) on {small} systems "
            f"({pairs} pairs): {t_full:.2f} s (CPU time {cpu3:.2f} s), "
            f"{t_full / pairs:.3f} s per pair; load average now {os.getloadavg()[0]:.1f}"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if (args.systems, args.tasks, args.runs, args.boot) == (50, 10_000, 10, 10_000):
        OUT.write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
