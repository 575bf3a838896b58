"""Planning an eval budget: runs, tasks and cost before anyone spends them (``ph.plan``).

One function per question, pingouin style (``power_ttest(d=None, n=…)``): give all but one of
its quantities and the one left out is solved for; the result says what was solved for, with
its reasoning and assumptions, and shows itself as ``passhat plan …`` prints it:

* :mod:`~passhat.planner.runs` — closed forms for one task's runs:
  :func:`runs_to_detect` (⌈ln(1−q)/ln(1−f)⌉: 10% → 29, 5% → 59 at q = 95%),
  :func:`failure_upper_bound` and :func:`runs_to_certify` (exact
  Clopper–Pearson), :func:`runs_for_width`, :func:`retry` (a CI job's odds when it
  retries), :func:`rate_for_pass_hat_k`, :func:`choose_k`; :mod:`~passhat.planner.tables`
  — :func:`seed_tables`, the seeds' reference tables from them;
* :mod:`~passhat.planner.assumptions` — the two-level model's μ and κ:
  :class:`Assumptions` (stated) or :func:`from_counts` (fitted), or a fit's
  posterior;
* :mod:`~passhat.planner.moments` — exact moments of the unbiased estimators
  under p_i ~ Beta(μκ, (1−μ)κ), c_i | p_i ~ Binomial(n, p_i);
* :mod:`~passhat.planner.design` — :func:`design`: the standard errors of
  benchmark- and population-scope mean, pass@k and pass^k over the (tasks,
  runs per task) designs of a budget, exactly, with the optimum marked; its result's
  ``selection()`` is the short view and ``check()`` the check by simulation;
* :mod:`~passhat.planner.power` — :func:`power`: tasks × runs to detect a difference
  between two systems on matched tasks (paired): one answer, the tasks each runs-per-task
  choice needs, or a grid (sequences of tasks and runs per task, simulated with
  ``method="simulation"`` through dask); the spread of a paired difference is measured
  from pilot runs (:mod:`~passhat.planner.pilot`: :func:`paired_pilot`) or modelled
  (:mod:`~passhat.planner.copula`: a Gaussian copula with a stated or assumed correlation);
* :mod:`~passhat.planner.more_runs` — :func:`more_runs`: after a first round,
  the expected interval width from m more runs on the same tasks, and the
  floor that only more tasks lower;
* :mod:`~passhat.planner.next_runs` — :func:`next_runs`: after a round, the
  next batch of runs task by task, where it most lowers the estimate's
  variance (greedy on closed forms, :mod:`~passhat.planner.allocate`);
* :mod:`~passhat.planner.sequential` — :func:`sequential`: an anytime-valid
  gate (pass / fail / continue) on a failure bound or against a baseline, valid
  however often it is checked (``passhat gate``); the runs are cut into rounds
  (:mod:`~passhat.planner.rounds`) and tested by a mixture of constant bets
  (:mod:`~passhat.planner.betting`);
* :mod:`~passhat.planner.sweep` — :func:`sweep`: simulation grids in parallel
  through dask (:func:`sweep_options`: where a planner call's sweeps run);
* :mod:`~passhat.planner.result` — :class:`PlanResult`, which compares equal
  to its answer and carries the reasoning and the assumptions behind it.

The level ``ci`` (of a bound, an interval, a detection) is 0.95 unless it is the quantity
left out. Where a question reads runs and k is not given, k is the one rule for runs: 1, 2, 5
capped at the fewest decided runs (:func:`passhat.exclusions.default_ks`; the largest of them
for a question of one k). Without runs, :func:`design` plans for k = 5 and :func:`power` for
k = 1 (its default metric, the mean).

Renamed in this release (the old names warn and go in the next): ``plan.gate`` →
:func:`retry`; ``power_table``, ``power_grid``, ``simulate_power`` → :func:`power`;
``design_selection``, ``design_check``, ``simulate_design`` → :func:`design`'s result;
``confidence=`` → ``ci=``.

Examples
--------
>>> import passhat as ph
>>> ph.plan.runs_to_detect(flip_rate=0.1, ci=0.95) == 29
True
>>> round(float(ph.plan.failure_upper_bound(runs=30, failures=0, ci=0.95)), 3)
0.095
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from passhat._lazy import lazy_exports

if TYPE_CHECKING:
    from passhat.planner._deprecated import (  # noqa: F401  (deprecated: not in __all__)
        design_check,
        design_selection,
        gate,
        power_grid,
        power_table,
        simulate_design,
        simulate_power,
    )
    from passhat.planner.assumptions import Assumptions, from_counts
    from passhat.planner.design import design
    from passhat.planner.design_result import DesignResult
    from passhat.planner.moments import estimator_moments as estimator_moments
    from passhat.planner.moments import population_value as population_value
    from passhat.planner.more_runs import more_runs
    from passhat.planner.more_runs_result import MoreRuns
    from passhat.planner.next_runs import NO_FLAKY, next_runs
    from passhat.planner.next_runs_result import NextRuns
    from passhat.planner.pilot import PairedPilot, paired_pilot
    from passhat.planner.power import power
    from passhat.planner.power_result import PowerResult
    from passhat.planner.result import ASSUMPTIONS, PlanResult
    from passhat.planner.result import MetricName as MetricName
    from passhat.planner.runs import (
        choose_k,
        failure_upper_bound,
        rate_for_pass_hat_k,
        retry,
        runs_for_width,
        runs_to_certify,
        runs_to_detect,
    )
    from passhat.planner.sequential import SequentialResult, sequential
    from passhat.planner.sweep import sweep, sweep_options
    from passhat.planner.tables import SeedTables, seed_tables

#: Deprecated names (one release; each warns when called): see planner._deprecated.
_DEPRECATED_NAMES = (
    "design_check",
    "design_selection",
    "gate",
    "power_grid",
    "power_table",
    "simulate_design",
    "simulate_power",
)

#: Where each name lives (the same imports as above), imported on first use: a closed form
#: (``plan.runs_to_detect``) loads neither pandas, xarray nor SciPy's statistics.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "passhat.planner._deprecated": _DEPRECATED_NAMES,
    "passhat.planner.assumptions": ("Assumptions", "from_counts"),
    "passhat.planner.design": ("design",),
    "passhat.planner.design_result": ("DesignResult",),
    "passhat.planner.moments": ("estimator_moments", "population_value"),
    "passhat.planner.more_runs": ("more_runs",),
    "passhat.planner.more_runs_result": ("MoreRuns",),
    "passhat.planner.next_runs": ("NO_FLAKY", "next_runs"),
    "passhat.planner.next_runs_result": ("NextRuns",),
    "passhat.planner.pilot": ("PairedPilot", "paired_pilot"),
    "passhat.planner.power": ("power",),
    "passhat.planner.power_result": ("PowerResult",),
    "passhat.planner.result": ("ASSUMPTIONS", "MetricName", "PlanResult"),
    "passhat.planner.runs": (
        "choose_k",
        "failure_upper_bound",
        "rate_for_pass_hat_k",
        "retry",
        "runs_for_width",
        "runs_to_certify",
        "runs_to_detect",
    ),
    "passhat.planner.sequential": ("SequentialResult", "sequential"),
    "passhat.planner.sweep": ("sweep", "sweep_options"),
    "passhat.planner.tables": ("SeedTables", "seed_tables"),
}

lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ASSUMPTIONS",
    "NO_FLAKY",
    "Assumptions",
    "DesignResult",
    "MoreRuns",
    "NextRuns",
    "PairedPilot",
    "PlanResult",
    "PowerResult",
    "SeedTables",
    "SequentialResult",
    "choose_k",
    "design",
    "failure_upper_bound",
    "from_counts",
    "more_runs",
    "next_runs",
    "paired_pilot",
    "power",
    "rate_for_pass_hat_k",
    "retry",
    "runs_for_width",
    "runs_to_certify",
    "runs_to_detect",
    "seed_tables",
    "sequential",
    "sweep",
    "sweep_options",
]
