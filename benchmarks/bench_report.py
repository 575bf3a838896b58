"""Benchmark: the report on the bundled example (2 systems × 168 tasks × 5 runs).

Targets (issue 6): with the model under 60 s from a warm compile cache; without the model
(``--no-model``) under 5 s. Printed:

* ``passhat report --no-model`` as a fresh process (what a user waits for, imports included);
* the same in-process (``ph.report(..., model=False)``);
* with the model, grid method (the default of ``passhat report``), in-process;
* with the model, NUTS (PyMC; warm compile cache), in-process — skip with ``--no-nuts``;
* baseline, in the same process: the numbers of the headline and spread sections computed the
  way hand-rolled scripts do (per-task ``math.comb`` loop, Python loop over 2000 bootstrap
  resamples), against passhat's :func:`build_report_data` without model and plan;
* peak resident memory of the process.

Run::

    .venv/bin/python benchmarks/bench_report.py [--no-nuts]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PYTENSOR_FLAGS", f"compiledir={ROOT / '.pytensor'}")

import passhat as ph  # noqa: E402
from passhat.report.build import build_report_data  # noqa: E402

N_BOOT = 2000


def timed(fn, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def naive_numbers(trials: ph.Trials, ks: list[int], seed: int = 0) -> dict[str, float]:
    """Per-task math.comb loop and a Python loop over bootstrap resamples (the baseline)."""
    rng = np.random.default_rng(seed)
    df = trials.frame[trials.frame["success"].notna()]
    out: dict[str, float] = {}
    for system, part in df.groupby("system", sort=False):
        per = part.groupby("task_id")["success"].agg(["size", "sum"])
        counts = [(int(n), int(c)) for n, c in zip(per["size"], per["sum"], strict=True)]

        def metrics(rows: list[tuple[int, int]]) -> list[float]:
            vals = [sum(c / n for n, c in rows) / len(rows)]
            for k in ks:
                vals.append(sum(math.comb(c, k) / math.comb(n, k) for n, c in rows) / len(rows))
                vals.append(
                    sum(1 - math.comb(n - c, k) / math.comb(n, k) for n, c in rows) / len(rows)
                )
            return vals

        point = metrics(counts)
        boots = []
        for _ in range(N_BOOT):  # resample tasks with replacement, each with all its runs
            idx = rng.integers(0, len(counts), len(counts))
            boots.append(metrics([counts[i] for i in idx]))
        lo, hi = np.percentile(np.asarray(boots), [2.5, 97.5], axis=0)
        mean = point[0]
        for j, k in enumerate(ks):
            out[f"{system}/pass^{k}"] = point[1 + 2 * j]
            out[f"{system}/uniform^{k}"] = mean**k
            out[f"{system}/pass^{k} lower"] = float(lo[1 + 2 * j])
            out[f"{system}/pass^{k} upper"] = float(hi[1 + 2 * j])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="report benchmark")
    ap.add_argument("--no-nuts", action="store_true", help="skip the NUTS timing")
    args = ap.parse_args(argv)
    trials = ph.load_example("agents")
    ks = [1, 2, 5]
    tmp = Path(tempfile.mkdtemp(prefix="bench_report_"))
    print("passhat report on the bundled example (2 systems × 168 tasks × 5 runs, k = 1,2,5)")

    for label, extra in (("--no-model", ["--no-model"]), ("with model", [])):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                str(Path(sys.executable).parent / "passhat"),
                *("report", "--example", "agents", "-o", str(tmp / "cli")),
                *("--k", "1,2,5", "-q", *extra),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        cli_s = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        target = "< 5 s" if extra else "< 60 s"
        print(
            f"  passhat report {label:10s}, fresh process: {cli_s:6.2f} s   (target {target};"
            f" CPU {cli_cpu:.2f} s, load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )

    ph.report(trials, tmp / "warm", k=ks, model=False)  # warm imports (matplotlib, jinja2)
    no_model = timed(lambda: ph.report(trials, tmp / "nm", k=ks, model=False), repeat=3)
    print(f"  ph.report(model=False), in-process      : {no_model:6.2f} s   (target < 5 s)")
    grid = timed(lambda: ph.report(trials, tmp / "grid", k=ks, model=True), repeat=2)
    print(f"  ph.report(model=True, grid), in-process : {grid:6.2f} s   (target < 60 s)")
    if not args.no_nuts:
        t0 = time.perf_counter()
        first = ph.fit(trials, k=ks, method="nuts", seed=0, progress=False)
        ph.report(trials, tmp / "nuts0", k=ks, model=first)
        first_s = time.perf_counter() - t0
        print(
            f"  NUTS fit + report, first in the process : {first_s:6.2f} s   (target < 60 s;"
            " sampler compiled from the warm disk cache)"
        )

        def nuts() -> None:
            f = ph.fit(trials, k=ks, method="nuts", seed=0, progress=False)
            ph.report(trials, tmp / "nuts", k=ks, model=f)

        nuts_s = timed(nuts)
        print(f"  NUTS fit + report, compiled in-process  : {nuts_s:6.2f} s")

    ours = timed(
        lambda: build_report_data(trials, k=ks, model=False, plan=False, n_boot=N_BOOT), repeat=3
    )
    base = timed(lambda: naive_numbers(trials, ks), repeat=1)
    print(
        f"  numbers of sections 1–3 + flaky (passhat, {N_BOOT} resamples): {ours:6.2f} s;"
        f" naive comb + Python bootstrap loop (headline + spread only): {base:6.2f} s;"
        f" ratio {base / ours:5.1f}×"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak resident memory of this process     : {peak:6.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
