"""Per-gradient cost of the joint model's likelihood kernel, old against new (issue 32, goal 8).

Builds the quadrature of a tidy file (``passhat fit --model joint``'s design) and times, in
one process with a CPU clock, N evaluations of logp + gradient inside a numba loop, for the
kernel before the speed work (``tests/model/joint_ops_oracle.py``, a copy of main at 2e120e6)
and for ``passhat.model.joint_ops``, alternating (A/B/A/B) so that load changes hit both;
then the largest difference of logp and gradient over a few random parameter values.

Run (from the worktree root)::

    nice .venv/bin/python benchmarks/bench_joint_kernel.py DATA.csv [N]
"""

from __future__ import annotations

import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "model"))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from joint_ops_oracle import _quad_loglik as old_kernel  # noqa: E402

import passhat as ph  # noqa: E402
from passhat.estimators import as_counts  # noqa: E402
from passhat.model.joint_build import quad_model_data  # noqa: E402
from passhat.model.joint_fit import _cells  # noqa: E402
from passhat.model.joint_ops import _quad_loglik as new_kernel  # noqa: E402
from passhat.model.joint_quad import design, quadrature_info  # noqa: E402


def _loop(kernel):  # type: ignore[no-untyped-def]
    @numba.njit
    def run(n, th, sd, kap, grid, pn, pc, base, stride, ls, mult, k):  # type: ignore[no-untyped-def]
        acc = 0.0
        for _ in range(n):
            acc += kernel(th, sd, kap, grid, pn, pc, base, stride, ls, mult, k)[0]
        return acc

    return run


def main() -> None:
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    jd, _ = _cells(as_counts(ph.read(sys.argv[1])), "exclude", "joint")
    q = design(jd)
    v = quad_model_data(q)
    data = tuple(v[k] for k in ("grid", "pair_n", "pair_c", "base", "stride", "log_step", "mult"))
    k = len(v["width"])
    print(f"{len(jd.systems)} systems, {jd.tasks_fitted} tasks: {quadrature_info(q)}")
    rng = np.random.default_rng(0)
    th = rng.normal(0, 1, len(jd.systems))
    loops = {"old": _loop(old_kernel), "new": _loop(new_kernel)}
    for f in loops.values():
        f(1, th, 2.0, 8.0, *data, k)
    times: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(3):
        for name, f in loops.items():
            t = time.process_time()
            f(n, th, 2.0, 8.0, *data, k)
            times[name].append((time.process_time() - t) / n * 1e3)
    old, new = min(times["old"]), min(times["new"])
    print(
        f"per logp + gradient (best of 3 × {n}): old {old:.3f} ms, new {new:.3f} ms, "
        f"new/old {new / old:.2f}"
    )
    worst = [0.0, 0.0]
    for _ in range(5):
        th = rng.normal(0, 1.5, len(jd.systems))
        sd, kap = float(rng.uniform(0.3, 4)), float(np.exp(rng.uniform(-1, 7)))
        a = old_kernel(th, sd, kap, *data, k)
        b = new_kernel(th, sd, kap, *data, k)
        worst[0] = max(worst[0], abs(a[0] - b[0]) / abs(a[0]))
        g_old = np.concatenate([a[1], [a[2], a[3]]])
        g_new = np.concatenate([b[1], [b[2], b[3]]])
        worst[1] = max(
            worst[1], float(np.max(np.abs(g_old - g_new) / np.maximum(1, np.abs(g_old))))
        )
    print(
        f"largest relative difference over 5 parameter values: logp {worst[0]:.1e}, "
        f"gradient {worst[1]:.1e}"
    )


if __name__ == "__main__":
    main()
