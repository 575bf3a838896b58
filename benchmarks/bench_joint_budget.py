"""The joint fit's sampling budget (issue 32, goal 8): CPU, leapfrog steps, ESS and R-hat at
several (tune, draws), and the posterior means against a reference fit.

Fits DATA.csv (``benchmarks/joint_data.py``) with ``model="joint"`` and 4 chains at each
``TUNE/DRAWS`` given (after one small fit that compiles the model), and compares each
summary's posterior means with those of REF.nc (a fit saved with the default budget, another
seed): z = difference / √(sd²/ESS + sd²/3000) per row (ESS: the fit's smallest bulk ESS).

    SEED=1 nice .venv/bin/python benchmarks/bench_joint_budget.py DATA.csv REF.nc 1000/1000 400/1000
"""

from __future__ import annotations

import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

import passhat as ph  # noqa: E402
import passhat.model.joint_fit as jf  # noqa: E402
from passhat.model.sampler import nutpie_sample  # noqa: E402

STEPS: dict[str, float] = {}


def _spy(*args, **kwargs):  # type: ignore[no-untyped-def]
    tr = nutpie_sample(*args, **kwargs)
    STEPS["n"] = float(np.asarray(tr.sample_stats["n_steps"].values).mean())
    return tr


def main() -> None:
    data, ref = ph.read(sys.argv[1]), ph.load_fit(sys.argv[2])
    seed = int(os.environ.get("SEED", "0"))
    jf.nutpie_sample = _spy  # count leapfrog steps per draw
    ph.fit(data, model="joint", seed=5, chains=1, draws=20, tune=20, progress=False)
    s_ref = ref.summary()
    for spec in sys.argv[3:]:
        tune, draws = map(int, spec.split("/"))
        t, w = time.process_time(), time.perf_counter()
        f = ph.fit(data, model="joint", seed=seed, tune=tune, draws=draws, progress=False)
        cpu, wall = time.process_time() - t, time.perf_counter() - w
        d = f.diagnostics.table
        s_new = f.summary()
        se = np.sqrt(s_new["sd"] ** 2 / d["ess_bulk"].min() + s_ref["sd"] ** 2 / 3000)
        z = np.abs((s_new["mean"] - s_ref["mean"]) / se)
        print(
            f"seed {seed}, tune {tune} draws {draws}: CPU {cpu:.1f} s wall {wall:.1f} s, "
            f"steps/draw {STEPS['n']:.1f}, max R-hat {d['r_hat'].max():.4f}, min bulk ESS "
            f"{d['ess_bulk'].min():.0f}, min tail ESS {d['ess_tail'].min():.0f}, divergences "
            f"{f.diagnostics.divergences['(all)']}, passed {f.diagnostics.passed}; means vs the "
            f"reference: max |z| {z.max():.2f} over {len(z)} rows (|z| > 2: {(z > 2).sum()})",
            flush=True,
        )


if __name__ == "__main__":
    main()
