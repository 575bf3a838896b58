"""passhat.spread.from_summary: the spread from a published (Mean@k, pass^k) pair.

Oracles: the seeds' printed table (IBM AppWorld rows), scipy's Beta / BetaBinomial moments,
and arithmetic (0/0 is undefined, not infinite).
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

import passhat as ph
from passhat.errors import OptionError
from passhat.spread import solve_beta_kappa

# The seeds' table (pass-at-k-vs-pass-hat-k.txt, IBM AppWorld rows, k = 5): label, Mean@5,
# measured pass^5, printed Mean@5^5 (1 decimal, %).
IBM_ROWS = [
    ("GPT-4.1 baseline", 0.774, 0.530, "27.8%"),
    ("GPT-4.1 + guidelines, same task", 0.810, 0.690, "34.9%"),
    ("GPT-4.1 + guidelines, similar task", 0.795, 0.660, "31.8%"),
    ("GPT-OSS-120B baseline", 0.339, 0.101, "0.4%"),
]


@pytest.mark.parametrize(("label", "mean", "hat", "printed"), IBM_ROWS)
def test_seed_rows_uniform_reference(label: str, mean: float, hat: float, printed: str) -> None:
    s = ph.spread_from_summary(mean=mean, pass_hat_k=hat, k=5, label=label)
    assert f"{s.uniform:.1%}" == printed
    assert s.ratio == pytest.approx(hat / mean**5)
    assert s.explained
    assert s.beta is not None
    # the implied Beta reproduces the pair it was solved from (scipy's Beta moment as oracle)
    dist = stats.beta(s.beta.a, s.beta.b)
    assert dist.mean() == pytest.approx(mean, rel=1e-9)
    assert dist.moment(5) == pytest.approx(hat, rel=1e-8)
    assert s.beta.icc == pytest.approx(1 / (s.beta.kappa + 1))
    assert label in s.sentence()
    assert not s.impossible


def test_seed_gaps_and_consistency() -> None:
    # seeds: "a gap of 24.4 percentage points" (GPT-4.1) and 23.8 (GPT-OSS-120B);
    # "pass^5 divided by Mean@5 is 0.68 for GPT-4.1 against 0.30 for GPT-OSS-120B"
    gpt = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5)
    oss = ph.spread_from_summary(mean=0.339, pass_hat_k=0.101, k=5)
    assert round(gpt.gap * 100, 1) == 24.4
    assert round(oss.gap * 100, 1) == 23.8
    assert f"{gpt.consistency:.2f}" == "0.68"
    assert f"{oss.consistency:.2f}" == "0.30"
    # "measured pass^5 is nearly double what an even spread predicts"
    assert 1.8 < gpt.ratio < 2.0


def test_two_fifty_percent_agents_from_pairs() -> None:
    # seeds: every task passes half its runs → pass^5 = 3.1%; half always pass → 50.0%
    uniform = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5**5, k=5)
    split = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=5)
    assert f"{uniform.pass_hat_k:.1%}" == "3.1%" and f"{uniform.uniform:.1%}" == "3.1%"
    assert uniform.beta is not None and uniform.beta.kappa == math.inf and uniform.beta.icc == 0
    assert split.beta is not None and split.beta.kappa == 0.0 and split.beta.icc == 1.0
    assert split.ratio == pytest.approx(16.0)
    assert split.beta.mixed_share[5] == 0.0
    assert uniform.beta.mixed_share[5] == pytest.approx(1 - 2 * 0.5**5)


@pytest.mark.parametrize(
    ("mean", "hat", "k", "words", "is_impossible"),
    [
        (0.5, 0.6, 5, "impossible", True),
        (0.5, 0.01, 5, "below the uniform reference", False),
        (0.5, 0.4, 1, "k = 1", True),
        (1.0, 1.0, 5, "not strictly between", False),
    ],
)
def test_pairs_no_beta_explains(
    mean: float, hat: float, k: int, words: str, is_impossible: bool
) -> None:
    s = ph.spread_from_summary(mean=mean, pass_hat_k=hat, k=k)
    assert not s.explained and s.beta is None
    assert words in s.reason
    assert "No Beta" in s.sentence()
    assert s.impossible is is_impossible and s.to_dict()["spread"]["impossible"] is is_impossible
    with pytest.raises(OptionError):
        solve_beta_kappa(mean, hat, k)


def test_published_mixed_share_check() -> None:
    # IBM: the shortfall concentrates in ~32% of tasks; a single Beta matching (77.4%, 53.0%)
    # predicts more mixed tasks than that, and the result must say so.
    s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, mixed_share=0.32)
    assert s.beta is not None
    pred = s.beta.mixed_share[5]
    bb = stats.betabinom(5, s.beta.a, s.beta.b)
    assert pred == pytest.approx(1 - bb.pmf(0) - bb.pmf(5))
    assert abs(pred - 0.32) > 0.03
    assert "cannot explain" in s.mixed_share_check
    ok = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, mixed_share=round(pred, 2))
    assert "agrees" in ok.mixed_share_check


def test_spread_ratio_at_mean_zero_is_undefined_not_infinite() -> None:
    s = ph.spread_from_summary(mean=0.0, pass_hat_k=0.0, k=4)
    assert math.isnan(s.ratio) and math.isnan(s.consistency)  # 0 / 0
    assert "nan" not in s.sentence() and "∞" not in s.sentence()
    t = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=4)
    assert t.ratio == pytest.approx(8.0)  # 0.5 / 0.5**4, unchanged


def test_spread_from_summary_refuses_non_finite_runs() -> None:
    with pytest.raises(OptionError, match="runs"):
        ph.spread_from_summary(mean=0.5, pass_hat_k=0.3, k=2, runs=float("nan"))
