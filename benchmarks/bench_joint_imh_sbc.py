"""Simulation-based calibration of the joint fit's default sampler (issue 32, goal 8): the
study ``studies/joint_calibration`` with 300 tasks instead of 40 (4 systems × 300 tasks × 4
runs, 1,140 cells: enough for the independence sampler to be tried) and 2 chains × 500 draws,
counting which sampler ran (independence MH, or NUTS after a refused check).

    nice .venv/bin/python benchmarks/bench_joint_imh_sbc.py REPS OUTDIR
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "studies" / "joint_calibration"))

import joint_calibration as jc

import passhat as ph

jc.T = 300
jc.SAMPLING = {"chains": 2, "draws": 500, "tune": 300}
USED: Counter[str] = Counter()
_fit = ph.fit


def _counting_fit(*args, **kwargs):  # type: ignore[no-untyped-def]
    f = _fit(*args, **kwargs)
    USED[f.sampler] += 1
    return f


def main() -> None:
    reps, out = int(sys.argv[1]), Path(sys.argv[2])
    ph.fit = _counting_fit
    t0, c0 = time.perf_counter(), time.process_time()
    ranks = jc.run(reps, progress=False)
    summary = jc.summarise(ranks)
    jc.write(ranks, summary, out, time.perf_counter() - t0)
    print(summary.to_string(index=False))
    print(f"samplers used: {dict(USED)}; CPU {time.process_time() - c0:.0f} s")


if __name__ == "__main__":
    main()
