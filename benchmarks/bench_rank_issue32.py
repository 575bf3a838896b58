"""Benchmark: ``rank`` on 50 systems × 10,000 tasks × 5 runs, 10,000 resamples (issue 32, goal 8).

Target: the full :func:`passhat.rank` (default k = 1, 2, 5; ranks, bands, group letters and
the 1,225-pair matrix) in ≤ 10 s on 2 cores. Timed in one process, so machine load hits
both sides of each ratio alike:

* the pairwise table (:func:`passhat.compare.paired_table` with shared sign flips, as rank
  calls it) computed over the pair axis (today's code) and pair by pair (the code it
  replaced, kept as the test oracle ``tests/compare/pair_table_oracle.py``): wall and CPU
  of each, their ratio, and whether the two tables are identical to the last bit;
* the full :func:`passhat.rank`, with the JSON document's hash (``to_dict``), so a run of
  the old code can be compared number for number, and the CPU time of the calling thread
  alone (the part that two idle cores cannot share: a floor of the wall time there);
* the shared sign flips of all pairs (:func:`passhat.signflip_shared.invert_shared_flips`)
  with the compiled kernels (:mod:`passhat._kernels`) and with the code before them (kept
  as the test oracle ``tests/signflip_shared_oracle.py``), and whether they are identical.

The machine is shared: wall time on a busy machine overstates the cost, CPU time (all
threads of the process) is the steadier figure; the load average is printed per line.

Run (from the worktree root)::

    nice .venv/bin/python benchmarks/bench_rank_issue32.py [--systems 50] [--tasks 10000]
        [--runs 5] [--boot 10000] [--no-oracle]

The printed lines are appended to ``benchmarks/bench_rank_issue32.txt`` at the default sizes.
"""

from __future__ import annotations

import argparse
import builtins
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import passhat as ph
from passhat.compare import paired_table
from passhat.scopes import DEFAULT_PRIOR
from passhat.trials import counts_from_arrays

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_rank import data  # noqa: E402

OUT = Path(__file__).with_name("bench_rank_issue32.txt")
_LINES: list[str] = []


def print(*args: object) -> None:
    line = " ".join(str(a) for a in args)
    _LINES.append(line)
    builtins.print(line, flush=True)


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def timed(fn, *a, **kw):  # type: ignore[no-untyped-def]
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0, time.process_time() - c0


def timed3(fn, *a, **kw):  # type: ignore[no-untyped-def]
    """``timed`` plus the CPU time of the calling thread alone (the part two cores cannot share)."""
    m0 = time.thread_time()
    out, wall, cpu = timed(fn, *a, **kw)
    return out, wall, cpu, time.thread_time() - m0


def shared_flips(n: np.ndarray, c: np.ndarray, systems: int, boot: int) -> None:
    """The shared sign flips of every pair: compiled kernels against the code before them."""
    from tests.signflip_shared_oracle import invert_shared_flips as old_flips

    from passhat.scopes import column_values, columns
    from passhat.signflip_shared import invert_shared_flips

    cols = columns([1, 2, 5])
    u = np.stack([column_values(n[s], c[s], cols) for s in range(systems)])
    pairs = [(a, b) for a in range(systems) for b in range(a + 1, systems)]
    flips = max(boot, math.ceil(2 * len(pairs) / 0.05))
    w = np.ones(n.shape[1])
    kw = {"n_flips": flips, "ci": 0.95}
    new, wall, cpu, main = timed3(
        invert_shared_flips, u, w, pairs, rng=np.random.default_rng(3), **kw
    )
    old, wall0, cpu0, main0 = timed3(old_flips, u, w, pairs, rng=np.random.default_rng(3), **kw)
    same = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(new, old, strict=True))
    print(
        f"shared sign flips ({len(pairs)} pairs × {len(cols)} columns, {flips} flips): compiled "
        f"kernels wall {wall:.2f} s, CPU {cpu:.2f} s (calling thread {main:.2f} s); the code "
        f"before them (tests/signflip_shared_oracle.py, same process) wall {wall0:.2f} s, CPU "
        f"{cpu0:.2f} s (calling thread {main0:.2f} s); ratio new / old: CPU {cpu / cpu0:.2f}, "
        f"wall {wall / wall0:.2f}; lower, upper, p identical: {same} ({load()})"
    )


def pair_tables(n: np.ndarray, c: np.ndarray, systems: int, boot: int, oracle: bool) -> None:
    pairs = [(a, b) for a in range(systems) for b in range(a + 1, systems)]
    flips = max(boot, math.ceil(2 * len(pairs) / 0.05))
    ks = [1, 2, 5]
    kw = {"ci": 0.95, "n_boot": flips, "prior": DEFAULT_PRIOR, "shared_flips": True}
    w = np.ones(n.shape[1])
    new, wall, cpu = timed(paired_table, n, c, w, pairs, ks, rng=np.random.default_rng(2), **kw)
    print(
        f"pairwise table over the pair axis ({len(pairs)} pairs, {flips} shared flips): "
        f"wall {wall:.2f} s, CPU {cpu:.2f} s ({load()})"
    )
    if not oracle:
        return
    from tests.compare.pair_table_oracle import old_paired_table

    old, wall0, cpu0 = timed(
        old_paired_table, n, c, w, pairs, ks, rng=np.random.default_rng(2), **kw
    )
    pd.testing.assert_frame_equal(new, old, check_exact=True)
    print(
        f"pairwise table pair by pair (the replaced code, same process): wall {wall0:.2f} s, "
        f"CPU {cpu0:.2f} s ({load()}); ratio new / old: wall {wall / wall0:.2f}, CPU "
        f"{cpu / cpu0:.2f}; tables identical ({len(new)} rows, every column exact)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--boot", type=int, default=10_000)
    ap.add_argument("--no-oracle", action="store_true")
    args = ap.parse_args()
    n, c = data(args.systems, args.tasks, args.runs)
    print(f"$ nice .venv/bin/python benchmarks/bench_rank_issue32.py {' '.join(sys.argv[1:])}")
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
        f"{args.systems} systems × {args.tasks} tasks × {args.runs} runs, {load()}"
    )
    tables = [counts_from_arrays(n[i], c[i], system=f"s{i:02d}") for i in range(args.systems)]
    r, wall, cpu, main = timed3(ph.rank, tables, n_boot=args.boot, seed=1)
    doc = json.dumps(r.to_dict(), sort_keys=True, default=str)
    digest = hashlib.sha256(doc.encode()).hexdigest()[:16]
    print(
        f"full ph.rank (k = {sorted(set(r.table['k'].tolist()))}, {args.boot} resamples, "
        f"{r.settings['pair_flips']} shared flips for the pairs): wall {wall:.2f} s, "
        f"CPU {cpu:.2f} s, calling thread {main:.2f} s ({load()}); target ≤ 10 s; JSON sha256 "
        f"{digest}"
    )
    shared_flips(n, c, args.systems, args.boot)
    pair_tables(n, c, args.systems, args.boot, not args.no_oracle)
    if (args.systems, args.tasks, args.runs, args.boot) == (50, 10_000, 5, 10_000):
        with OUT.open("a", encoding="utf-8") as f:
            f.write("\n".join(_LINES) + "\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
