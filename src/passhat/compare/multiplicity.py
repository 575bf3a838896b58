"""Many per-task tests at once: Holm (family-wise error) or Benjamini–Hochberg (false discovery
rate), after Tarone's screening of tests that cannot reach significance.

A per-task test at level α, run over hundreds of tasks that did not change, flags some
task in most builds: at 168 tasks × 5 runs with Fisher's one-sided test at 5%, about a
third of unchanged builds show a false "regression"; at 500 × 20, all of them. The
corrections here bound that error across the tasks:

* ``"holm"`` — the family-wise error: P(at least one false flag) ≤ α [1]_;
* ``"bh"`` — the false discovery rate: E[false flags / flags] ≤ α [2]_ (tasks
  independent, as runs of different tasks are);
* ``"none"`` — each task at α on its own (no control across tasks).

Discrete tests cannot reach every p-value: Fisher's test of 5/5 against 0/5 is p = 1/252
at best, and a task whose runs all passed in both builds can never be significant. Counting
such tasks in the correction wastes its level, so each correction first drops tasks by
their margins (on which Fisher's test conditions, so the error bound still holds given
them; tasks are independent):

* Holm: Tarone's screen [3]_ — with p_min,i the smallest p-value task i's margins allow,
  take the smallest K with at most K tasks having p_min,i ≤ α/K, and run Holm over those
  tasks only (a step-down form of Tarone's procedure, [4]_);
* BH: the tasks whose p_min,i ≤ α (the others can never be flagged at any rank), a
  discrete-aware form of the screening in [5]_. Tarone's sharper screen is tuned to
  Bonferroni's single threshold; with many real regressions it would drop tasks BH flags
  (at 2,000 tasks that all fell from 0.9 to 0.2 in 10 runs: 21% found, against 93% here;
  at 500 × 20 with ten planted regressions, 59% against 78%). The price: with very few runs
  (168 × 5) BH keeps many tasks that reach α but not α/m, and finds fewer planted
  regressions than Holm (0.7% against 3.5%, reports/gates) — there neither finds much.

References
----------
.. [1] S. Holm, "A simple sequentially rejective multiple test procedure", *Scand. J.
   Statist.* 6(2), 65–70 (1979).
.. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", *J. R. Stat.
   Soc. B* 57(1), 289–300 (1995).
.. [3] R. E. Tarone, "A modified Bonferroni method for discrete data", *Biometrics* 46(2),
   515–522 (1990).
.. [4] G. Hommel and T. Krummenauer, "Improvements and modifications of Tarone's multiple
   test procedure for discrete data", *Biometrics* 54(2), 673–681 (1998).
.. [5] P. B. Gilbert, "A modified false discovery rate multiple-comparisons procedure for
   discrete data, applied to human immunodeficiency virus genetics", *J. R. Stat. Soc. C*
   54(1), 143–158 (2005).

Examples
--------
>>> import numpy as np
>>> p = np.array([0.001, 0.004, 0.03, 0.2])
>>> p_min = np.array([0.001, 0.004, 0.004, 1.0])   # the last task cannot be significant
>>> adj, testable = adjust(p, p_min, alpha=0.05, method="holm")
>>> adj.round(3).tolist(), testable.tolist()
([0.003, 0.008, 0.03, 1.0], [True, True, True, False])
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from passhat.errors import OptionError

__all__ = ["MULTIPLICITY", "Multiplicity", "adjust", "holm", "tarone_testable"]

Multiplicity = Literal["holm", "bh", "none"]
#: The corrections :func:`adjust` knows, the default first.
MULTIPLICITY: tuple[str, ...] = ("holm", "bh", "none")

#: p ≤ α is judged with this relative slack (exact p-values such as 1/20 at α = 0.05).
_REL_TOL = 1 + 1e-9


def holm(p_values: ArrayLike) -> NDArray[np.float64]:
    """Holm's step-down adjusted p-values (Holm 1979, the module's reference [1]; reject where
    adjusted p ≤ α; NaN stays NaN).

    The one Holm of passhat: :func:`adjust` runs it over the tasks it keeps, and a
    leaderboard over the pairs of each metric and k (:mod:`passhat.rank.pairs`).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float).ravel()
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adj, 1.0)
    return out


def tarone_testable(p_min: ArrayLike, alpha: float) -> NDArray[np.bool_]:
    """Tarone's screen: the tasks that can still reach significance after the correction.

    K is the smallest whole number with #{i : p_min,i ≤ α/K} ≤ K; the tasks kept are those
    with p_min,i ≤ α/K.

    Examples
    --------
    >>> tarone_testable([0.004, 0.004, 0.03, 1.0], alpha=0.05).tolist()
    [True, True, False, False]
    """
    pm = np.asarray(p_min, dtype=float)
    m = pm.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    ks = np.arange(1, m + 1)
    counts = np.searchsorted(np.sort(pm), alpha * _REL_TOL / ks, side="right")
    ok = np.flatnonzero(counts <= ks)
    K = int(ks[ok[0]]) if ok.size else m
    return pm <= alpha * _REL_TOL / K


def adjust(
    p: ArrayLike,
    p_min: ArrayLike | None = None,
    *,
    alpha: float,
    method: str = "holm",
    within: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Adjusted p-values across tasks: Holm after Tarone's screen, or BH after dropping
    tasks that cannot reach α (see the module docstring).

    Parameters
    ----------
    p : array of floats
        Per-task p-values.
    p_min : array of floats, optional
        The smallest p-value each task's margins allow; without it no task is screened
        out (the ordinary Holm / BH). Holm keeps Tarone's tasks (p_min ≤ α/K); BH those
        with p_min ≤ α.
    alpha : float
        The level the screen is set for (the error rate to control).
    method : "holm", "bh" or "none"
        The correction; "none" returns ``p`` unchanged.
    within : array of bool, optional
        The tasks in the family (the others get adjusted p = 1 and are not testable).

    Returns
    -------
    adjusted : ndarray
        Adjusted p-values (1 for tasks screened out); reject where ≤ α.
    testable : ndarray of bool
        The tasks the correction ran over.

    Examples
    --------
    >>> adj, _ = adjust([0.01, 0.02, 0.03, 0.04], alpha=0.05, method="bh")
    >>> adj.round(3).tolist()
    [0.04, 0.04, 0.04, 0.04]
    """
    if method not in MULTIPLICITY:
        raise OptionError(f"multiplicity must be one of {', '.join(MULTIPLICITY)} (got {method!r})")
    pv = np.asarray(p, dtype=float)
    fam = np.ones(pv.shape, dtype=bool) if within is None else np.asarray(within, dtype=bool)
    if method == "none":
        return np.where(fam, pv, 1.0), fam
    testable = fam.copy()
    if p_min is not None:
        pm = np.asarray(p_min, dtype=float)
        if method == "holm":
            testable[fam] = tarone_testable(pm[fam], alpha)
        else:
            testable &= pm <= alpha * _REL_TOL
    adj = np.ones(pv.shape)
    idx = np.flatnonzero(testable)
    s = idx.size
    if s == 0:
        return adj, testable
    if method == "holm":
        adj[idx] = holm(pv[idx])
        return adj, testable
    order = idx[np.argsort(pv[idx], kind="stable")]
    ranks = np.arange(1, s + 1)
    adj[order] = np.minimum.accumulate(np.minimum(1.0, s * pv[order] / ranks)[::-1])[::-1]
    return adj, testable
