"""Planning an eval budget: runs, tasks and cost before anyone spends them (``ph.plan``).

One module per question, each re-exported here:

* :mod:`~passhat.planner.runs` — closed forms for one task's runs:
  :func:`runs_to_detect` (⌈ln(1−q)/ln(1−f)⌉: 10% → 29, 5% → 59 at q = 95%),
  :func:`failure_upper_bound` and :func:`runs_to_certify` (exact
  Clopper–Pearson), :func:`runs_for_width`, :func:`gate`,
  :func:`rate_for_pass_hat_k`, :func:`choose_k`; :mod:`~passhat.planner.tables`
  — :func:`seed_tables`, the seeds' reference tables from them;
* :mod:`~passhat.planner.assumptions` — the two-level model's μ and κ:
  :class:`Assumptions` (stated) or :func:`from_counts` (fitted), or a fit's
  posterior;
* :mod:`~passhat.planner.moments` — exact moments of the unbiased estimators
  under p_i ~ Beta(μκ, (1−μ)κ), c_i | p_i ~ Binomial(n, p_i);
* :mod:`~passhat.planner.design` — :func:`design`: the standard errors of
  benchmark- and population-scope mean, pass@k and pass^k over the (tasks,
  runs per task) designs of a budget, exactly, with the optimum marked;
  :func:`design_selection` (its short view), :func:`simulate_design` and
  :func:`design_check`;
* :mod:`~passhat.planner.power` — :func:`power`: tasks × runs to detect a
  difference between two systems on matched tasks (paired), with
  :func:`power_table` and :func:`power_grid`; the spread of a paired
  difference is measured from pilot runs (:mod:`~passhat.planner.pilot`:
  :func:`paired_pilot`) or modelled (:mod:`~passhat.planner.copula`: a
  Gaussian copula with a stated or assumed correlation; :func:`simulate_power`);
* :mod:`~passhat.planner.more_runs` — :func:`more_runs`: after a first round,
  the expected interval width from m more runs on the same tasks, and the
  floor that only more tasks lower;
* :mod:`~passhat.planner.sequential` — :func:`sequential`: an anytime-valid
  gate (pass / fail / continue) on a failure bound or against a baseline, valid
  however often it is checked; the runs are cut into rounds
  (:mod:`~passhat.planner.rounds`) and tested by a mixture of constant bets
  (:mod:`~passhat.planner.betting`);
* :mod:`~passhat.planner.sweep` — :func:`sweep`: simulation grids in parallel
  through dask;
* :mod:`~passhat.planner.result` — :class:`PlanResult`, which compares equal
  to its answer and carries the reasoning and the assumptions behind it.

Where several quantities can be solved for, leave exactly one of them as
``None`` and it is solved for (the pattern of pingouin's power functions).

Examples
--------
>>> import passhat as ph
>>> ph.plan.runs_to_detect(flip_rate=0.1, confidence=0.95) == 29
True
>>> round(float(ph.plan.failure_upper_bound(runs=30, failures=0, confidence=0.95)), 3)
0.095
"""

from __future__ import annotations

from passhat.planner.assumptions import Assumptions, from_counts
from passhat.planner.design import design, design_check, design_selection, simulate_design
from passhat.planner.moments import estimator_moments as estimator_moments
from passhat.planner.moments import population_value as population_value
from passhat.planner.more_runs import more_runs
from passhat.planner.pilot import PairedPilot, paired_pilot
from passhat.planner.power import power, power_grid, power_table, simulate_power
from passhat.planner.result import ASSUMPTIONS, PlanResult
from passhat.planner.result import MetricName as MetricName
from passhat.planner.runs import (
    choose_k,
    failure_upper_bound,
    gate,
    rate_for_pass_hat_k,
    runs_for_width,
    runs_to_certify,
    runs_to_detect,
)
from passhat.planner.sequential import SequentialResult, sequential
from passhat.planner.sweep import sweep
from passhat.planner.tables import seed_tables

__all__ = [
    "ASSUMPTIONS",
    "Assumptions",
    "PairedPilot",
    "PlanResult",
    "SequentialResult",
    "choose_k",
    "design",
    "design_check",
    "design_selection",
    "failure_upper_bound",
    "from_counts",
    "gate",
    "more_runs",
    "paired_pilot",
    "power",
    "power_grid",
    "power_table",
    "rate_for_pass_hat_k",
    "runs_for_width",
    "runs_to_certify",
    "runs_to_detect",
    "seed_tables",
    "sequential",
    "simulate_design",
    "simulate_power",
    "sweep",
]
