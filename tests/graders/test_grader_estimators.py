"""Per-task corrected estimators (passhat.graders.estimators).

Oracles: exact expectation over the binomial law of the grader's passes (the corrected
estimate's mean equals the truth p^k for known se, sp); enumeration of the k-subsets of a
label vector (C(c, j)/C(n, j) is the share of j-subsets that all pass); today's unbiased
estimators when se = sp = 1.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import passhat as ph
from passhat.graders.estimators import (
    corrected_mean,
    corrected_pass_at_k,
    corrected_pass_hat_k,
    observed_powers,
)


@pytest.mark.parametrize(
    ("p", "se", "sp", "n", "k"),
    [(0.7, 0.95, 0.9, 5, 2), (0.3, 0.85, 0.8, 6, 3), (0.9, 0.8, 0.95, 4, 4), (0.5, 0.7, 0.7, 3, 1)],
)
def test_exact_expectation_is_the_truth(p: float, se: float, sp: float, n: int, k: int) -> None:
    """E over c ~ Binomial(n, q = (se+sp-1) p + 1 - sp) of the estimate = p^k (and pass@k)."""
    q = (se + sp - 1) * p + 1 - sp
    c = np.arange(n + 1)
    w = binom.pmf(c, n, q)
    hat = corrected_pass_hat_k(n, c, k, sensitivity=se, specificity=sp)
    at = corrected_pass_at_k(n, c, k, sensitivity=se, specificity=sp)
    mean = corrected_mean(n, c, sensitivity=se, specificity=sp)
    assert w @ hat == pytest.approx(p**k, abs=1e-12)
    assert w @ at == pytest.approx(1 - (1 - p) ** k, abs=1e-12)
    assert w @ mean == pytest.approx(p, abs=1e-12)


def test_subset_ratios_by_enumeration() -> None:
    """C(c, j)/C(n, j) = the share of j-subsets of the runs whose grader labels all pass."""
    labels = [1, 0, 1, 1, 0, 1]
    got = observed_powers(len(labels), sum(labels), 4)
    for j in range(5):
        subsets = list(itertools.combinations(labels, j))
        assert got[j] == pytest.approx(np.mean([all(s) for s in subsets]), abs=1e-12)


def test_brute_force_over_subsets_and_outcomes() -> None:
    """Enumerate every label vector of n runs (its probability under se, sp, p) and every
    k-subset: the corrected estimate's expectation is p^k."""
    p, se, sp, n, k = 0.6, 0.9, 0.8, 4, 2
    q = (se + sp - 1) * p + 1 - sp
    total = 0.0
    for labels in itertools.product([0, 1], repeat=n):
        prob = np.prod([q if x else 1 - q for x in labels])
        total += prob * float(
            corrected_pass_hat_k(n, sum(labels), k, sensitivity=se, specificity=sp)
        )
    assert total == pytest.approx(p**k, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_perfect_grader_is_todays_estimator(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    hat = corrected_pass_hat_k(n, c, k, sensitivity=1.0, specificity=1.0)
    at = corrected_pass_at_k(n, c, k, sensitivity=1.0, specificity=1.0)
    assert float(hat) == pytest.approx(float(ph.pass_hat_k(n, c, k)), abs=1e-9)
    assert float(at) == pytest.approx(float(ph.pass_at_k(n, c, k)), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    p=st.floats(0, 1), se=st.floats(0.6, 1), sp=st.floats(0.6, 1), n=st.integers(1, 8),
    data=st.data(),
)  # fmt: skip
def test_unbiased_for_any_grader(
    p: float, se: float, sp: float, n: int, data: st.DataObject
) -> None:
    k = data.draw(st.integers(1, n))
    q = (se + sp - 1) * p + 1 - sp
    c = np.arange(n + 1)
    w = binom.pmf(c, n, q)
    hat = corrected_pass_hat_k(n, c, k, sensitivity=se, specificity=sp)
    assert float(w @ hat) == pytest.approx(p**k, abs=1e-8)
