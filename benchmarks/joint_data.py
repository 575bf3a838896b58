"""The tidy file of the joint-fit benchmarks (issue 32, goal 8): 20 systems × T tasks × 5 runs
simulated from the joint model (numpy default_rng(1); θ_s ~ N(0, 1), β_i ~ N(0, 2),
p ~ Beta(8μ, 8(1 − μ)), μ = logistic(θ_s + β_i)).

    .venv/bin/python benchmarks/joint_data.py 500 /tmp/d500.csv
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd


def main() -> None:
    systems, tasks, runs = 20, int(sys.argv[1]), 5
    rng = np.random.default_rng(1)
    theta = rng.normal(0, 1, systems)
    beta = rng.normal(0, 2, tasks)
    mu = 1 / (1 + np.exp(-(theta[:, None] + beta[None, :])))
    p = rng.beta(8 * mu, 8 * (1 - mu))
    y = rng.random((systems, tasks, runs)) < p[:, :, None]
    s, t, r = np.meshgrid(np.arange(systems), np.arange(tasks), np.arange(runs), indexing="ij")
    pd.DataFrame(
        {
            "system": [f"sys{i:02d}" for i in s.ravel()],
            "task_id": [f"t{i:04d}" for i in t.ravel()],
            "trial": r.ravel(),
            "success": y.ravel().astype(int),
        }
    ).to_csv(sys.argv[2], index=False)


if __name__ == "__main__":
    main()
