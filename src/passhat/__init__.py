"""passhat: how reliably an AI agent repeats its successes.

passhat reads the outcomes of repeated agent trials (every task run n times) and gives
mean success, pass@k (at least one of k runs succeeds) and pass^k (all k succeed) with
honest uncertainty: each interval says whether it covers the benchmark's own tasks or a
new task population, and how it was computed.

The entry points
----------------
read(path)
    Runs from a tidy CSV / JSONL / Parquet file, a count table, τ-bench, τ²-bench or
    Inspect AI logs, and the other supported formats (the format is sniffed).
estimate(data, k=…, ci=…)
    Unbiased pass@k / pass^k / mean per system, with intervals in both scopes.
correct_grader(data, audit=…, ci=…)
    The same corrected for a noisy grader's sensitivity and specificity.
compare(data, …) and rank(data, …)
    Paired differences between systems on matched tasks; a leaderboard with rank
    intervals and tiers.
fit(data, …)
    The hierarchical Beta-Binomial model: posteriors in both scopes, diagnostics.
report(data, out_dir=…)
    The written reliability report (HTML, Markdown, figures, results.json).
plan
    The planner: runs, tasks and budgets (``ph.plan.…``), and ``passhat gate``, the
    anytime-valid release gate, on the command line.

Every result shows itself as a table in a notebook and in ``print``, and has
``to_frame()`` and ``to_dict()``. The same work is the ``passhat`` command line
(``passhat --help``). The manual is the Sphinx site built from ``docs/`` (``make docs``).

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("abcd"), k=2)
>>> round(est.value("pass_hat_k", 2), 3)
0.425
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from passhat._lazy import lazy_exports
from passhat.errors import (
    CountError,
    DependencyError,
    FormatError,
    InputError,
    ModelError,
    OptionError,
    OutputError,
    PasshatError,
    ShortTaskError,
    ValidationError,
)

if TYPE_CHECKING:
    from passhat import graders, io
    from passhat import planner as plan
    from passhat._version import __version__
    from passhat.compare import Classification, Comparison, classify, compare, compare_scores
    from passhat.compare.cost import compare_cost
    from passhat.estimate import Estimate, estimate
    from passhat.estimators import (
        METRICS,
        mean_success,
        pass_at_k,
        pass_at_k_variance,
        pass_hat_k,
        pass_hat_k_variance,
        pass_hat_k_variance_estimate,
        per_task_metrics,
        plugin_pass_at_k,
        plugin_pass_hat_k,
    )
    from passhat.examples import load_example, load_example_traces
    from passhat.graders.correct import correct_grader
    from passhat.graders.result import GraderCorrection
    from passhat.intervals import task_intervals
    from passhat.io import read, read_counts, read_traces, read_trials
    from passhat.model import Fit, JointFit, compare_models, fit, load_fit
    from passhat.rank import Ranking, rank
    from passhat.report import report
    from passhat.report.plots import plot_gap, plot_ppc, plot_rates, plot_spread
    from passhat.slices import Slices, slices
    from passhat.spread import heterogeneity_test, spread, spread_from_summary
    from passhat.traces import Divergence, Traces, divergence
    from passhat.trials import Trials, counts_from_arrays

#: Where each lazily imported public name lives (the same imports as above).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "passhat._version": ("__version__",),  # importlib.metadata costs ~0.1 s
    "passhat.compare": ("Classification", "Comparison", "classify", "compare", "compare_scores"),
    "passhat.compare.cost": ("compare_cost",),
    "passhat.estimate": ("Estimate", "estimate"),
    "passhat.estimators": (
        "METRICS",
        "mean_success",
        "pass_at_k",
        "pass_at_k_variance",
        "pass_hat_k",
        "pass_hat_k_variance",
        "pass_hat_k_variance_estimate",
        "per_task_metrics",
        "plugin_pass_at_k",
        "plugin_pass_hat_k",
    ),
    "passhat.examples": ("load_example", "load_example_traces"),
    "passhat.graders.correct": ("correct_grader",),
    "passhat.graders.result": ("GraderCorrection",),
    "passhat.intervals": ("task_intervals",),
    "passhat.io": ("read", "read_counts", "read_traces", "read_trials"),
    "passhat.model": ("Fit", "JointFit", "compare_models", "fit", "load_fit"),
    "passhat.rank": ("Ranking", "rank"),
    "passhat.report": ("report",),
    "passhat.report.plots": ("plot_gap", "plot_ppc", "plot_rates", "plot_spread"),
    "passhat.slices": ("Slices", "slices"),
    "passhat.spread": ("heterogeneity_test", "spread", "spread_from_summary"),
    "passhat.traces": ("Divergence", "Traces", "divergence"),
    "passhat.trials": ("Trials", "counts_from_arrays"),
}
#: Public names that are modules.
_MODULES: dict[str, str] = {
    "graders": "passhat.graders",
    "io": "passhat.io",
    "plan": "passhat.planner",
}

lazy_exports(__name__, _EXPORTS, _MODULES)

__all__ = [
    "METRICS",
    "Classification",
    "Comparison",
    "CountError",
    "DependencyError",
    "Divergence",
    "Estimate",
    "Fit",
    "FormatError",
    "GraderCorrection",
    "InputError",
    "JointFit",
    "ModelError",
    "OptionError",
    "OutputError",
    "PasshatError",
    "Ranking",
    "ShortTaskError",
    "Slices",
    "Traces",
    "Trials",
    "ValidationError",
    "__version__",
    "classify",
    "compare",
    "compare_cost",
    "compare_models",
    "compare_scores",
    "correct_grader",
    "counts_from_arrays",
    "divergence",
    "estimate",
    "fit",
    "graders",
    "heterogeneity_test",
    "io",
    "load_example",
    "load_example_traces",
    "load_fit",
    "mean_success",
    "pass_at_k",
    "pass_at_k_variance",
    "pass_hat_k",
    "pass_hat_k_variance",
    "pass_hat_k_variance_estimate",
    "per_task_metrics",
    "plan",
    "plot_gap",
    "plot_ppc",
    "plot_rates",
    "plot_spread",
    "plugin_pass_at_k",
    "plugin_pass_hat_k",
    "rank",
    "read",
    "read_counts",
    "read_traces",
    "read_trials",
    "report",
    "slices",
    "spread",
    "spread_from_summary",
    "task_intervals",
]
