"""Comparing systems: the paired difference of their metrics, and per-task verdicts.

* :func:`compare` — paired comparison of systems on matched tasks: the
  difference of mean, pass@k and pass^k with an interval and a p-value in
  both scopes (:mod:`passhat.compare.paired`);
* :func:`classify` — baseline vs candidate, per task: stable_pass,
  stable_fail, regression, fixed, flaky, redefined, undecided, with Holm or
  Benjamini–Hochberg across tasks (:mod:`passhat.compare.classification`,
  :mod:`passhat.compare.multiplicity`, which also holds the one Holm of passhat);
* :func:`compare_scores` — the same paired comparison of partial-credit scores: the
  mean score and the expected best / worst of k runs (:mod:`passhat.compare.scores`);
* :func:`compare_by_category` — the paired difference per category, Holm across the
  categories, and whether the difference differs between them
  (:mod:`passhat.compare.categories`);
* :func:`compare_cost` — what each system pays per success and per all-k-pass on the matched
  tasks, and the paired difference and ratio (:mod:`passhat.compare.cost`);
* :func:`select_systems` — the one rule both use to pick the baseline and the
  candidates from one input or two (:mod:`passhat.compare.selection`);
* :func:`paired_table` — the engine under :func:`compare`: every pair of a list
  of systems on one set of tasks, both scopes, reusing each system's posterior
  across pairs (:mod:`passhat.compare.engine`; for leaderboards).

The results, :class:`Comparison` and :class:`Classification`, live with their displays in
:mod:`passhat.compare.result` and :mod:`passhat.compare.classification_result`.

Examples
--------
>>> import passhat as ph
>>> trials = ph.load_example("agents")
>>> ph.compare(trials, k=1, seed=0, n_boot=200).table["candidate"].iloc[0]
'guided'
>>> ph.classify(trials).settings["base"]
'baseline'
"""

from __future__ import annotations

from passhat.compare.categories import compare_by_category
from passhat.compare.categories_result import CategoryComparison
from passhat.compare.classification import MULTIPLICITY, classify, runs_to_significance
from passhat.compare.classification_result import VERDICTS, Classification
from passhat.compare.cost import compare_cost
from passhat.compare.cost_result import CostComparison
from passhat.compare.engine import paired_table
from passhat.compare.paired import compare, paired_difference
from passhat.compare.result import Comparison
from passhat.compare.scores import compare_scores
from passhat.compare.selection import Selection, select_systems

__all__ = [
    "MULTIPLICITY",
    "VERDICTS",
    "CategoryComparison",
    "Classification",
    "Comparison",
    "CostComparison",
    "Selection",
    "classify",
    "compare",
    "compare_by_category",
    "compare_cost",
    "compare_scores",
    "paired_difference",
    "paired_table",
    "runs_to_significance",
    "select_systems",
]
