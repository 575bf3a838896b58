"""Exact oracles shared by the estimator and estimate tests (not a test module).

- brute force: enumerate every k-subset of a task's run outcomes
  (itertools.combinations) and count all-pass / any-pass subsets, exactly (Fraction);
- exact integer arithmetic with math.comb / fractions.Fraction.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

TOL = 1e-12


def brute_force(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """Exact share of k-subsets of the n runs that are all-pass and any-pass."""
    outcomes = [1] * c + [0] * (n - c)
    total = all_pass = any_pass = 0
    for subset in itertools.combinations(range(n), k):
        picked = [outcomes[i] for i in subset]
        total += 1
        all_pass += all(picked)
        any_pass += any(picked)
    return Fraction(all_pass, total), Fraction(any_pass, total)


def random_tasks(rng: np.random.Generator, tasks: int, n_max: int = 10, n_min: int = 1):
    n = rng.integers(n_min, n_max + 1, size=tasks)
    c = np.array([rng.integers(0, m + 1) for m in n])
    return n, c


def close(x: float, y: Fraction | float, tol: float = TOL) -> bool:
    return abs(float(x) - float(y)) <= tol


def weighted(exact: list[Fraction], weights: list[Fraction]) -> Fraction:
    return sum((w * e for w, e in zip(weights, exact, strict=True)), Fraction(0)) / sum(weights)


def exact_hat(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def exact_at(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def rel(x: float, exact: Fraction) -> float:
    if exact == 0:
        return abs(x)
    return float(abs(Fraction(x) - exact) / exact)
