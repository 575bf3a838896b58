"""Paired pilot runs of two systems: the spread of per-task differences, measured by moments.

With n_i runs per system on task i, the per-task difference d_i = U_B,i − U_A,i
of the unbiased estimators has Var d_i = Var(g_B − g_A) + E Var(U_A | p)(n_i) +
E Var(U_B | p)(n_i). With V̂ the unbiased per-task estimates of Var(U | p) at the
pilot's n_i (U² − C(c, 2k)/C(n, 2k)), the moment estimator

    σ̂_d²(n′) = [s_d² − mean(V̂_A + V̂_B)] + Ê Var(U_A | p)(n′) + Ê Var(U_B | p)(n′)

has Ê Var(U | p)(n′) = mean_i Σ_j h_j(n′) (Û_{i,2k−j} − Û_{i,2k}), where
Û_{i,m} = C(c_i, m)/C(n_i, m) is the unbiased estimate of p_i^m and h_j the
overlap weights of pass^k's variance. Every term is unbiased (s_d² too: the
d_i share their mean even when the n_i differ), so σ̂_d²(n′) is unbiased for
the σ_d²(n′) of a study with n′ runs per task and system — no Beta, no copula.
The same moments give each system's task spread Var g(p) = s_U² − mean V̂ and
the correlation of per-task values between the systems,
ρ̂ = Cov(g_A, g_B) / √(Var g_A · Var g_B). For pass@k the failures play the
successes' part; the mean is k = 1.

Tasks need n ≥ 2k decided runs under both systems (for Û_{2k}); the others
are left out and counted in :attr:`PairedPilot.left_out`.

Examples
--------
>>> import passhat as ph
>>> pilot = ph.plan.paired_pilot(ph.load_example("agents"), metric="mean")
>>> pilot.systems, pilot.tasks, bool(0 < pilot.rho < 1)
(('baseline', 'guided'), 168, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from passhat._format import fixed
from passhat._validate import check_k
from passhat.compare.selection import select_systems
from passhat.errors import InputError, OptionError
from passhat.estimators import pass_hat_k_variance_estimate, subset_overlap_weights, subset_ratio
from passhat.planner._checks import check_metric
from passhat.planner._checks import label as _label
from passhat.trials import Trials, provenance

__all__ = ["PairedPilot", "paired_pilot", "pilot_from_counts", "rho_text"]


def _moments_table(n: NDArray[np.float64], c: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """(T, k + 1): Û_m = C(c, m)/C(n, m) for m = k..2k, unbiased for p^m (n ≥ 2k)."""
    m = np.arange(k, 2 * k + 1, dtype=float)
    return np.asarray(subset_ratio(c[:, None], n[:, None], m[None, :]))


def rho_text(rho: float) -> str:
    """ρ for a sentence: two decimals, or why there is none (a task spread estimated ≤ 0).

    Examples
    --------
    >>> rho_text(0.456), rho_text(float("nan"))
    ('0.46', 'n/a (a task-spread estimate is ≤ 0)')
    """
    return fixed(rho, 2) if math.isfinite(rho) else "n/a (a task-spread estimate is ≤ 0)"


@dataclass(frozen=True, eq=False)
class PairedPilot:
    """Moment estimates of the paired difference's spread from pilot runs (see the module).

    Attributes
    ----------
    systems : (str, str)
        Baseline A and candidate B.
    metric, k : str, int
    tasks : int
        Matched tasks used.
    left_out : dict
        Tasks not used, by reason (``unmatched``: run by one system only;
        ``fewer than 2k runs``).
    pilot_runs : (int, int)
        The fewest and most decided runs per task and system used.
    mean_a, mean_b : float
        Mean over tasks of each system's unbiased estimator (the pilot's
        benchmark values).
    var_g_a, var_g_b, var_g_diff : float
        Moment estimates of Var g(p_A), Var g(p_B) and Var(g(p_B) − g(p_A))
        across tasks (unbiased; can come out negative by chance).
    """

    systems: tuple[str, str]
    metric: str
    k: int
    tasks: int
    left_out: dict[str, int]
    pilot_runs: tuple[int, int]
    mean_a: float
    mean_b: float
    var_g_a: float
    var_g_b: float
    var_g_diff: float
    u_a: NDArray[np.float64] = field(repr=False)
    u_b: NDArray[np.float64] = field(repr=False)
    #: Where the pilot runs came from (the reader's path, format, sha256; ``pilot`` and
    #: ``candidate`` for two inputs); empty for runs built in Python.
    source: dict[str, Any] = field(default_factory=dict, repr=False)

    #: What the sensitivity table's correlation is.
    correlation_kind = "correlation of per-task values g(p) between the systems"

    @property
    def baseline(self) -> float:
        """System A's pilot value of the metric (mean of its unbiased estimator)."""
        return self.mean_a

    @property
    def rho(self) -> float:
        """ρ̂ = Cov(g_A, g_B)/√(Var g_A Var g_B), clipped to [−1, 1]; NaN when a spread is ≤ 0."""
        va, vb = self.var_g_a, self.var_g_b
        if va <= 0 or vb <= 0:
            return math.nan
        cov = (va + vb - self.var_g_diff) / 2
        return float(min(max(cov / math.sqrt(va * vb), -1.0), 1.0))

    def within(self, n: int) -> tuple[float, float]:
        """Ê Var(U_A | p) and Ê Var(U_B | p) for a study with n runs per task (n ≥ k)."""
        h = subset_overlap_weights(np.array(float(n)), self.k)  # j = 1..k
        out = []
        for u in (self.u_a, self.u_b):
            # Û_{2k−j} for j = 1..k is column k − j of u (m = k..2k); Û_{2k} its last column
            terms = u[:, self.k - 1 :: -1][:, : self.k] - u[:, -1:]
            out.append(float((terms @ h).mean()))
        return out[0], out[1]

    def sd(self, delta: float, n: int, rho: float | None = None) -> float:
        """σ̂_d(n): SD of a per-task difference with n runs per task and system.

        ``rho=None``: the pilot's own spread of differences (its Var(g_B − g_A));
        a value: Var g_A + Var g_B − 2ρ√(Var g_A Var g_B) instead (what-if).
        The pilot's spread is taken to hold for the difference to detect;
        ``delta`` only has to keep the candidate's value ``baseline + delta``
        inside [0, 1].

        Raises
        ------
        OptionError
            ``baseline + delta`` lies outside [0, 1].
        InputError
            The pilot measures no spread at all (every task all-pass or
            all-fail under both systems, with the same difference on every
            task): a zero SD would make two tasks look like enough.
        """
        if not 0.0 <= self.mean_a + delta <= 1.0:
            raise OptionError(
                f"{{param}} {delta:+g} moves {_label(self.metric, self.k)} outside [0, 1] from "
                f"the pilot's {fixed(self.mean_a)} under {self.systems[0]!r}; choose a smaller "
                "delta",
                param="delta",
            )
        va, vb = max(self.var_g_a, 0.0), max(self.var_g_b, 0.0)
        between = (
            max(self.var_g_diff, 0.0) if rho is None else va + vb - 2 * rho * math.sqrt(va * vb)
        )
        wa, wb = self.within(n)
        var = max(between, 0.0) + max(wa, 0.0) + max(wb, 0.0)
        if not var > 0.0:
            raise InputError(
                f"pilot: no spread of per-task differences in {_label(self.metric, self.k)} "
                f"between {self.systems[0]!r} and {self.systems[1]!r} (on all {self.tasks} "
                "tasks each system always passes or always fails, and the difference is the "
                "same on every task): the SD cannot be measured from these runs; give a pilot "
                "with mixed outcomes, or assumptions (prior= / --mean with --icc)"
            )
        return math.sqrt(var)

    def assumptions(self) -> tuple[str, ...]:
        """The assumptions of a power answer from this pilot."""
        lo, hi = self.pilot_runs
        runs = f"{lo}" if lo == hi else f"{lo}–{hi}"
        dropped = ", ".join(f"{v} {k}" for k, v in self.left_out.items() if v)
        return (
            f"spread of per-task differences measured on {self.tasks} matched pilot tasks × "
            f"{runs} runs of {self.systems[0]!r} and {self.systems[1]!r}"
            + (f" (left out: {dropped})" if dropped else ""),
            f"{self.correlation_kind} ρ̂ = {rho_text(self.rho)}; the pilot's spread holds for the "
            "difference to detect; tasks of the study are like the pilot's",
            "runs of a task are independent given its rate, each from a clean state",
        )


def paired_pilot(
    data: Trials | Any,
    candidate_data: Trials | Any = None,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    metric: str = "mean",
    k: int = 1,
) -> PairedPilot:
    """Measure the spread of paired per-task differences from pilot runs of two systems.

    Parameters
    ----------
    data : Trials or count table
        One input with both systems, or the baseline's (with ``candidate_data``).
    candidate_data : Trials or count table, optional
        The candidate's runs (a second input).
    baseline, candidate : str, optional
        Which systems (as :func:`passhat.compare`: the first of two by default).
    metric : {"mean", "pass_hat_k", "pass_at_k"}
    k : int

    Returns
    -------
    PairedPilot

    Raises
    ------
    InputError
        Fewer than two matched tasks with n ≥ 2k decided runs under both systems.

    References
    ----------
    .. [1] W. Hoeffding, "A class of statistics with asymptotically normal distribution",
       *Annals of Mathematical Statistics* 19(3), 293–325 (1948): unbiased estimators of
       p^m and the variance of a U-statistic.

    Examples
    --------
    >>> import passhat as ph
    >>> p = ph.plan.paired_pilot(ph.load_example("agents"), metric="pass_hat_k", k=2)
    >>> p.tasks, p.left_out
    (168, {'unmatched': 0, 'fewer than 2k runs': 0})
    """
    kk = check_k(k)
    metric = check_metric(metric)
    kk = 1 if metric == "mean" else kk
    sel = select_systems(
        data, candidate_data, baseline=baseline, candidate=candidate, one_candidate=True
    )
    a, b = sel.baseline, sel.candidates[0]
    ds = sel.counts
    n = np.asarray(ds["n"].sel(system=[a, b]).values, dtype=float)
    c = np.asarray(ds["c"].sel(system=[a, b]).values, dtype=float)
    present = np.asarray(ds["present"].sel(system=[a, b]).values, dtype=bool) & (n > 0)
    matched = present.all(axis=0)
    enough = matched & (n >= 2 * kk).all(axis=0)
    t = int(enough.sum())
    if t < 2:
        raise InputError(
            f"pilot: {t} matched task(s) with at least 2k = {2 * kk} decided runs under both "
            f"{a!r} and {b!r} ({int(matched.sum())} matched in all); the moment estimate of "
            f"the paired spread of {_label(metric, kk)} needs at least two"
        )
    left_out = {
        "unmatched": int((present.any(axis=0) & ~matched).sum()),
        "fewer than 2k runs": int((matched & ~enough).sum()),
    }
    pilot = pilot_from_counts(
        n[:, enough], c[:, enough], metric=metric, k=kk, systems=(a, b), left_out=left_out
    )
    return replace(pilot, source=_sources(data, candidate_data))


def _sources(data: Any, candidate_data: Any) -> dict[str, Any]:
    """Where the pilot runs came from: one input's provenance, or both by role."""
    one = provenance(data) if isinstance(data, Trials | xr.Dataset) else {}
    if candidate_data is None:
        return dict(one)
    two = provenance(candidate_data) if isinstance(candidate_data, Trials | xr.Dataset) else {}
    return {"pilot": one, "candidate": two}


def pilot_from_counts(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    *,
    metric: str,
    k: int,
    systems: tuple[str, str] = ("A", "B"),
    left_out: dict[str, int] | None = None,
) -> PairedPilot:
    """The moment estimates of :func:`paired_pilot` from (2, T) arrays of runs and successes.

    Row 0 is system A, row 1 system B; every task needs n ≥ 2k in both rows.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.planner.pilot import pilot_from_counts
    >>> p = pilot_from_counts(np.full((2, 4), 4.0), np.array([[0, 1, 3, 4], [1, 1, 4, 4]]),
    ...                       metric="mean", k=1)
    >>> round(p.mean_b - p.mean_a, 4)
    0.125
    """
    n = np.asarray(n, dtype=float)
    c = np.asarray(c, dtype=float)
    if n.shape != c.shape or n.ndim != 2 or n.shape[0] != 2:
        raise OptionError("pilot counts: give (2, tasks) arrays of runs and successes")
    if n.shape[1] < 2 or (n < 2 * k).any():
        raise InputError(f"pilot: needs at least two tasks with n ≥ 2k = {2 * k} runs in both")
    succ = n - c if metric == "pass_at_k" else c  # pass@k is pass^k of the failures
    u = [_moments_table(n[s], succ[s], k) for s in (0, 1)]
    est = [uu[:, 0] for uu in u]  # Û_k: the unbiased estimator of p^k (of (1 − p)^k)
    v_hat = [pass_hat_k_variance_estimate(n[s], succ[s], k) for s in (0, 1)]
    d = est[1] - est[0]  # for pass@k the sign flips; the spread does not
    var_a = float(np.var(est[0], ddof=1) - v_hat[0].mean())
    var_b = float(np.var(est[1], ddof=1) - v_hat[1].mean())
    var_d = float(np.var(d, ddof=1) - (v_hat[0] + v_hat[1]).mean())
    value = [1.0 - e if metric == "pass_at_k" else e for e in est]
    return PairedPilot(
        systems=systems,
        metric=metric,
        k=k,
        tasks=int(n.shape[1]),
        left_out=dict(left_out or {"unmatched": 0, "fewer than 2k runs": 0}),
        pilot_runs=(int(n.min()), int(n.max())),
        mean_a=float(value[0].mean()),
        mean_b=float(value[1].mean()),
        var_g_a=var_a,
        var_g_b=var_b,
        var_g_diff=var_d,
        u_a=u[0],
        u_b=u[1],
    )
