"""Clustered vs uniform spread of failures: is pass^k what an even spread predicts?

If every task shared one success rate μ, pass^k would be μ^k (the *uniform
reference*). Real agents' failures cluster: some tasks always pass, some
always fail, a minority flip. Then the measured pass^k lies above μ^k. This
module puts the two side by side, per system and k:

* ``uniform`` = Mean^k and ``ratio`` = pass^k / Mean^k (> 1 for tasks like
  these whenever their success rates differ at all, by Jensen's inequality);
* a heterogeneity test (Tarone's score test, exact permutation p-value) of
  "one common rate, independent runs": "clustered" is its decision;
* population-scope intervals, and a model-based share of tasks carrying 80%
  of the gap (the sample share overstates the concentration at few runs),
  from the Beta-Binomial posterior;
* ``consistency`` = pass^k / Mean (1 = every run of a task agrees);
* shares of always-pass, always-fail and flaky (mixed) tasks;
* the gap Mean − pass^k split by task: each task contributes
  w_i (c_i/n_i − Ĉ(c_i, k)/C(n_i, k)) ≥ 0, zero for tasks whose runs all
  agree, so the whole gap sits on the flaky tasks ("x% of tasks carry y% of
  the gap").

:func:`spread_from_summary` rebuilds the same view from a published pair
(Mean@k, pass^k) alone, and solves for the Beta heterogeneity the pair
implies: with p ~ Beta(μκ, (1 − μ)κ), E[p^k] = Π_{j<k} (μκ + j)/(κ + j),
which falls strictly from μ (κ → 0: every task all-pass or all-fail) to μ^k
(κ → ∞: every task at μ). A pair outside (μ^k, μ) cannot come from any Beta.

Examples
--------
>>> import passhat as ph
>>> s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5)
>>> f"{s.uniform:.1%} vs {s.pass_hat_k:.1%}, ratio {s.ratio:.2f}"
'27.8% vs 53.0%, ratio 1.91'
"""

from __future__ import annotations

from passhat.spread.beta import (
    beta_gap_concentration,
    beta_mixed_share,
    beta_moment,
    solve_beta_kappa,
)
from passhat.spread.from_runs import DEFAULT_ALPHA, GAP_LEVELS, spread
from passhat.spread.from_summary import spread_from_summary
from passhat.spread.heterogeneity import HeterogeneityTest, heterogeneity_test
from passhat.spread.parts import BetaFit, MixedShareCheck, SpreadRow
from passhat.spread.result import Spread, SummarySpread
from passhat.spread.sentences import (
    CLUSTERED,
    compare_consistency,
    describe_parts,
    describe_row,
    kappa_text,
)

__all__ = [
    "CLUSTERED",
    "DEFAULT_ALPHA",
    "GAP_LEVELS",
    "BetaFit",
    "HeterogeneityTest",
    "MixedShareCheck",
    "Spread",
    "SpreadRow",
    "SummarySpread",
    "beta_gap_concentration",
    "beta_mixed_share",
    "beta_moment",
    "compare_consistency",
    "describe_parts",
    "describe_row",
    "heterogeneity_test",
    "kappa_text",
    "solve_beta_kappa",
    "spread",
    "spread_from_summary",
]
