"""Hierarchical Beta-Binomial model: build, fit (NUTS or exact grid), posterior metrics.

The success rates p_i of a system's tasks are modelled as draws from
Beta(μκ, (1 − μ)κ); the c_i successes in n_i runs are Binomial(n_i, p_i).
Per posterior draw of (μ, κ) every metric has a closed form, in two scopes:

* **population**: a new task from the same distribution (uncertainty =
  which tasks were sampled + how few runs each had);
* **benchmark**: the weighted mean over these tasks (uncertainty = how few
  runs each task had, only).

Modules, in import order (each imports only those before it):

* :mod:`~passhat.model.build`: priors, likelihood compression, the PyMC model
  and its exact log density;
* :mod:`~passhat.model.grid`: the exact posterior by quadrature on
  (logit μ, log κ); :mod:`~passhat.model.metrics`: closed-form metrics per
  draw; :mod:`~passhat.model.diagnostics`: R-hat, ESS, divergences;
* :mod:`~passhat.model.sampler`: NUTS (nutpie or PyMC) or the grid, seeds,
  progress;
* :mod:`~passhat.model.split`: the variance split by the law of total
  variance given these tasks' rates; :mod:`~passhat.model.preposterior`:
  the expected interval width after m more runs per task;
* :mod:`~passhat.model.text`: the words of the package (notes, method lines);
* :mod:`~passhat.model.summaries`: posterior tables (summary, task
  posteriors, PPC);
* :mod:`~passhat.model.fit_summary`: :class:`~passhat.model.fit_summary.FitSummary`,
  what a fit shows and writes (``passhat fit`` and its ``--json``);
* :mod:`~passhat.model.result`: the :class:`Fit` class; :mod:`~passhat.model.load`:
  :func:`load_fit`;
* :mod:`~passhat.model.loo`: :func:`compare_models` by PSIS-LOO, its result
  :class:`~passhat.model.comparison.ModelComparison` in :mod:`~passhat.model.comparison`;
* :mod:`~passhat.model.single_fit`: each system sampled on its own and assembled;
* :mod:`~passhat.model.fit`: the :func:`~passhat.model.fit.fit` entry point.

The joint model of several systems with crossed task effects
(``fit(..., model="joint")``) lives beside them: :mod:`~passhat.model.joint_build`
(priors, cells, PyMC model), :mod:`~passhat.model.joint_metrics` (metrics,
correlations and ranks per draw), :mod:`~passhat.model.joint_result`
(:class:`JointFit`), :mod:`~passhat.model.joint_summary` (what it shows and writes) and
:mod:`~passhat.model.joint_fit` (sampling); its Rasch form
without the system × task deviation (``model="rasch"``) in
:mod:`~passhat.model.joint_rasch`.

PyMC (and PyTensor, nutpie, ArviZ) are imported only when a model is built,
sampled or diagnosed, never by ``import passhat``.

References
----------
.. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. and
   Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press, ch. 5.

Examples
--------
>>> import passhat as ph
>>> f = ph.fit(ph.load_example("abcd"), k=2, method="grid", seed=0, chains=2, draws=500)
>>> f.summary()[["metric", "scope"]].drop_duplicates().shape[0]
7
"""

from __future__ import annotations

from passhat.model.build import MODELS, Priors, build_model, compress
from passhat.model.comparison import ModelComparison
from passhat.model.diagnostics import THRESHOLDS, Diagnostics
from passhat.model.fit import fit
from passhat.model.grid import grid_log_posterior, grid_posterior
from passhat.model.joint_build import JointPriors, joint_counts
from passhat.model.joint_result import JointFit, JointSpread
from passhat.model.load import load_fit
from passhat.model.loo import compare_models
from passhat.model.metrics import population_metrics, rising_ratio
from passhat.model.result import Fit

__all__ = [
    "MODELS",
    "THRESHOLDS",
    "Diagnostics",
    "Fit",
    "JointFit",
    "JointPriors",
    "JointSpread",
    "ModelComparison",
    "Priors",
    "build_model",
    "compare_models",
    "compress",
    "fit",
    "grid_log_posterior",
    "grid_posterior",
    "joint_counts",
    "load_fit",
    "population_metrics",
    "rising_ratio",
]
