"""Parallel simulation sweeps through dask (passhat.planner.sweep).

Oracle: the same simulations called directly with the same seeds give the same numbers on every
scheduler (synchronous, threads, an existing cluster, a local cluster).
"""

from __future__ import annotations

import pytest

from passhat import planner as plan
from passhat.planner.design_check import simulate_design
from passhat.planner.flip_power import simulate_compare_power

A = plan.Assumptions


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_sweep_matches_direct_calls(scheduler):
    prior = A(mean=0.6, icc=0.3)
    pts = [{"tasks": 20, "runs_per_task": 3}, {"tasks": 10, "runs_per_task": 6}]
    df = plan.sweep(
        simulate_design, pts, scheduler=scheduler, k=2, prior=prior, replicates=200, seed=1
    )
    direct = [simulate_design(k=2, prior=prior, replicates=200, seed=1, **p) for p in pts]
    assert df["sd_population_pass_hat_k"].tolist() == [
        d["sd_population_pass_hat_k"] for d in direct
    ]


def test_sweep_on_an_existing_cluster_address():
    # the scheduler=ADDRESS path, on an in-process cluster (quick to start)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        prior = A(mean=0.6, icc=0.3)
        with plan.sweep_options(scheduler=cluster.scheduler_address):
            df = plan.power(
                delta=0.1,
                tasks=[30],
                runs_per_task=[3, 5],
                prior=prior,
                method="simulation",
                replicates=300,
                seed=4,
            ).table
    direct = simulate_compare_power(  # compare's test at that design, its seed
        tasks=30, runs_per_task=5, delta=0.1, prior=prior, replicates=300, seed=5
    )
    assert df["power"].tolist()[1] == direct["power"]


@pytest.mark.slow
def test_sweep_default_local_cluster():
    # scheduler=None starts a 2-worker local dask cluster (slow to start: excluded by default)
    prior = A(mean=0.6, icc=0.3)
    pts = [{"tasks": 20, "runs_per_task": 3, "seed": 1}]
    df = plan.sweep(simulate_design, pts, k=2, prior=prior, replicates=200)
    direct = simulate_design(tasks=20, runs_per_task=3, k=2, prior=prior, replicates=200, seed=1)
    assert df["sd_population_pass_hat_k"].iloc[0] == direct["sd_population_pass_hat_k"]
