"""passhat: pass@k, pass^k and mean success of repeated AI-agent trials.

Examples
--------
>>> import passhat as ph
>>> est = ph.estimate(ph.load_example("abcd"), k=2)
>>> round(est.value("pass_hat_k", 2), 3)
0.425
"""

from __future__ import annotations

from passhat import io
from passhat import planner as plan
from passhat._version import __version__
from passhat.compare import Classification, Comparison, classify, compare
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
from passhat.intervals import task_intervals
from passhat.io import read, read_counts, read_traces, read_trials
from passhat.model import Fit, JointFit, compare_models, fit, load_fit
from passhat.report import report
from passhat.report.plots import plot_gap, plot_ppc, plot_rates, plot_spread
from passhat.slices import Slices, slices
from passhat.spread import heterogeneity_test, spread, spread_from_summary
from passhat.traces import Divergence, Traces, divergence
from passhat.trials import Trials, counts_from_arrays

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
    "InputError",
    "JointFit",
    "ModelError",
    "OptionError",
    "OutputError",
    "PasshatError",
    "ShortTaskError",
    "Slices",
    "Traces",
    "Trials",
    "ValidationError",
    "__version__",
    "classify",
    "compare",
    "compare_models",
    "counts_from_arrays",
    "divergence",
    "estimate",
    "fit",
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
