"""Benchmark: the default report with its model section, new default vs main's (issue 32, goal 2).

Targets: the default ``report`` on 5 systems × 80 tasks × 8 runs in ≤ 15 s of CPU, on 2 × 168 × 5
(the bundled ``agents`` example) in ≤ 10 s.

Measured in one process, CPU (``time.process_time``, all threads) and wall, best of ``--repeat``:

* **new**: ``ph.report(data, path)`` with its defaults — the stacked fit (Beta, inflated and
  discrete models on their grids, exact leave-one-task-out), its own model comparison, the
  checks; no sampler;
* **main's recipe** (the baseline, same process, same code otherwise): the report of a Beta
  grid fit with the comparison off, plus what main's default report added for its model
  comparison: the inflated model by NUTS (nutpie/PyMC, warm compile cache: one warm-up fit is
  not counted) and ``passhat.compare_models`` (PSIS-LOO).

``--cli`` adds each checkout's ``passhat report`` as a fresh process (this worktree's and
/work/main's, CPU of the child from ``resource.getrusage``).

Run::

    nice .venv/bin/python benchmarks/bench_report_model.py [--repeat 2] [--cli]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")

import passhat as ph  # noqa: E402

MAIN = Path("/work/main")


def simulated(systems: int, tasks: int, runs: int, seed: int = 0) -> ph.Trials:
    """Trials of ``systems`` systems on the same tasks; task rates Beta(2, 1) shifted per system."""
    rng = np.random.default_rng(seed)
    base = rng.beta(2.0, 1.0, tasks)
    rows = []
    for s in range(systems):
        p = np.clip(base + 0.05 * (s - systems // 2), 0.0, 1.0)
        ok = rng.random((tasks, runs)) < p[:, None]
        for t in range(tasks):
            for r in range(runs):
                rows.append((f"sys{s}", f"t{t:03d}", r, bool(ok[t, r])))
    columns = ["system", "task_id", "trial", "success"]
    return ph.Trials.from_frame(pd.DataFrame(rows, columns=columns))


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best (CPU, wall) seconds over ``repeat`` calls."""
    best = (np.inf, np.inf)
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        got = (time.process_time() - c0, time.perf_counter() - w0)
        best = min(best, got)
    return best


def main_recipe(data: ph.Trials, out: Path) -> None:
    """What main's default report computed for its model section, in this process."""
    beta = ph.fit(data, model="beta", method="grid", seed=0, progress=False)
    ph.report(data, out, model=beta, compare_models=False)
    inflated = ph.fit(data, model="inflated", method="nuts", seed=0, progress=False)
    ph.compare_models({"beta": beta, "inflated": inflated})


def cli(python_bin: Path, path: Path, out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    subprocess.run([str(python_bin), "report", str(path), "-o", str(out)], check=True,
                   capture_output=True)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, time.perf_counter() - w0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args(argv)
    designs = {
        "2 × 168 × 5 (agents)": (ph.load_example("agents"), 10.0),
        "5 × 80 × 8 (simulated)": (simulated(5, 80, 8), 15.0),
    }
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        small = ph.load_example("abcd")
        ph.report(small, tmp / "warm")  # imports, numba caches
        ph.fit(small, model="inflated", method="nuts", seed=0, progress=False)  # NUTS compile
        print(f"passhat {ph.__version__}; CPU and wall seconds, best of {args.repeat}")
        for name, (data, target) in designs.items():
            new = timed(lambda d=data: ph.report(d, tmp / "new"), args.repeat)
            old = timed(lambda d=data: main_recipe(d, tmp / "old"), args.repeat)
            print(f"{name}: new default {new[0]:6.2f} s CPU ({new[1]:5.2f} s wall), target "
                  f"≤ {target:.0f} s CPU: {'met' if new[0] <= target else 'NOT met'}")  # fmt: skip
            ratio = f"{new[0] / old[0]:.2f} (CPU), {new[1] / old[1]:.2f} (wall)"
            print(f"{name}: main's recipe {old[0]:6.2f} s CPU ({old[1]:5.2f} s wall); "
                  f"ratio new/main {ratio}")  # fmt: skip
            if args.cli:
                csv = tmp / "data.csv"
                data.frame.to_csv(csv, index=False)
                for label, root in (("this branch", ROOT), ("main", MAIN)):
                    exe = root / ".venv" / "bin" / "passhat"
                    if exe.exists():
                        c, w = cli(exe, csv, tmp / f"cli-{label}")
                        print(f"{name}: passhat report ({label}, fresh process) {c:6.2f} s CPU "
                              f"({w:5.2f} s wall)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
