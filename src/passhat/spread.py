"""Clustered vs uniform spread of failures: is pass^k what an even spread predicts?

If every task shared one success rate μ, pass^k would be μ^k (the *uniform
reference*). Real agents' failures cluster: some tasks always pass, some
always fail, a minority flip. Then the measured pass^k lies above μ^k. This
module puts the two side by side, per system and k:

* ``uniform`` = Mean^k and ``ratio`` = pass^k / Mean^k (> 1: failures cluster);
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

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from passhat.errors import OptionError
from passhat.estimate import estimate as _estimate
from passhat.estimators import WeightSpec, as_counts
from passhat.trials import Trials

__all__ = [
    "BetaFit",
    "Spread",
    "SummarySpread",
    "beta_mixed_share",
    "beta_moment",
    "solve_beta_kappa",
    "spread",
    "spread_from_summary",
]

#: Shares of the gap for which :func:`spread` reports how many tasks carry them.
GAP_LEVELS = (0.5, 0.8, 1.0)


# ------------------------------------------------------------ Beta algebra
def beta_moment(mean: ArrayLike, kappa: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """E[p^k] for p ~ Beta(μκ, (1 − μ)κ): Π_{j<k} (μκ + j)/(κ + j).

    Computed as B(a + k, b)/B(a, b) in log space; κ = inf gives μ^k and
    κ = 0 gives μ (the limits).

    Examples
    --------
    >>> from passhat.spread import beta_moment
    >>> round(float(beta_moment(0.5, 2.0, 2)), 4)   # a = b = 1: E[p²] = 1/3
    0.3333
    """
    mu, kap, kk = np.broadcast_arrays(
        np.asarray(mean, float), np.asarray(kappa, float), np.asarray(k, float)
    )
    out = np.empty(mu.shape)
    inf = np.isinf(kap)
    zero = kap == 0
    mid = ~inf & ~zero
    out[inf] = np.power(mu[inf], kk[inf])
    out[zero] = np.where(kk[zero] == 0, 1.0, mu[zero])
    if np.any(mid):
        a = mu[mid] * kap[mid]
        b = (1.0 - mu[mid]) * kap[mid]
        with np.errstate(divide="ignore", invalid="ignore"):
            lm = (
                special.gammaln(a + kk[mid])
                - special.gammaln(a)
                + special.gammaln(kap[mid])
                - special.gammaln(kap[mid] + kk[mid])
            )
        val = np.exp(lm)
        val = np.where(a == 0, np.where(kk[mid] == 0, 1.0, 0.0), val)
        out[mid] = np.where(b == 0, 1.0, val)
    return out


def beta_mixed_share(mean: ArrayLike, kappa: ArrayLike, n: ArrayLike) -> NDArray[np.float64]:
    """Expected share of tasks with mixed outcomes in n runs: 1 − E[p^n] − E[(1 − p)^n].

    Examples
    --------
    >>> from passhat.spread import beta_mixed_share
    >>> round(float(beta_mixed_share(0.5, float("inf"), 5)), 4)   # every task at 0.5
    0.9375
    """
    mu = np.asarray(mean, float)
    share = 1.0 - beta_moment(mu, kappa, n) - beta_moment(1.0 - mu, kappa, n)
    return np.clip(share, 0.0, 1.0)  # n = 1 gives 0 up to rounding


def solve_beta_kappa(mean: float, pass_hat_k: float, k: int) -> float:
    """The κ with E[p^k] = pass^k for p ~ Beta(μκ, (1 − μ)κ), μ = mean.

    E[p^k] falls strictly in κ, so the root is unique when μ^k < pass^k < μ;
    it is found by Brent's method on log κ. The end points are the limits:
    pass^k = μ gives κ = 0 (every task all-pass or all-fail, ICC 1) and
    pass^k = μ^k gives κ = inf (every task at μ, ICC 0).

    Raises
    ------
    OptionError
        When the pair lies outside (μ^k, μ) or k < 2 (no Beta explains it).

    Examples
    --------
    >>> from passhat.spread import solve_beta_kappa
    >>> round(solve_beta_kappa(0.5, 1 / 3, 2), 6)   # Beta(1, 1)
    2.0
    """
    reason = _unexplained_reason(mean, pass_hat_k, k)
    if reason:
        raise OptionError(reason)
    if math.isclose(pass_hat_k, mean, rel_tol=1e-12, abs_tol=1e-15):
        return 0.0
    if math.isclose(pass_hat_k, mean**k, rel_tol=1e-12, abs_tol=1e-15):
        return math.inf

    def f(logk: float) -> float:
        return float(np.log(beta_moment(mean, math.exp(logk), k)) - math.log(pass_hat_k))

    lo, hi = -10.0, 10.0
    while f(lo) < 0:
        lo -= 10.0
        if lo < -700:
            raise OptionError("pass^k is too close to the mean to solve for κ")
    while f(hi) > 0:
        hi += 10.0
        if hi > 700:
            raise OptionError("pass^k is too close to mean^k to solve for κ")
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12))


def fmt_ratio(x: float) -> str:
    """A ratio for sentences: 1.9, 23, ∞, and — when undefined (0/0)."""
    if math.isnan(x):
        return "—"
    if not math.isfinite(x):
        return "∞"
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def _unexplained_reason(mean: float, pass_hat_k: float, k: int) -> str:
    if not 0.0 < mean < 1.0:
        return f"mean {mean:g} is not strictly between 0 and 1: no spread to explain"
    if k < 2:
        return "k = 1: pass^1 equals the mean, so the pair says nothing about the spread"
    if pass_hat_k > mean * (1 + 1e-12):
        return (
            f"pass^{k} = {pass_hat_k:.4g} > mean = {mean:.4g}: impossible for any tasks "
            "(pass^k ≤ mean always); check the pair"
        )
    if pass_hat_k < mean**k * (1 - 1e-12):
        return (
            f"pass^{k} = {pass_hat_k:.4g} ≤ mean^{k} = {mean**k:.4g}: below the uniform "
            "reference, which no Beta spread of task rates gives (runs within a task would "
            "have to be negatively dependent, or the pair is inconsistent)"
        )
    return ""


# ----------------------------------------------------- from summary rows
@dataclass(frozen=True)
class BetaFit:
    """Beta heterogeneity implied by a (mean, pass^k) pair.

    Attributes
    ----------
    kappa : float
        Concentration κ = a + b (small: tasks polarised into all-pass and
        all-fail; large: every task near the mean). 0 and inf are the limits.
    a, b : float
        Beta shape parameters μκ and (1 − μ)κ.
    icc : float
        Intra-class correlation 1/(κ + 1): the share of run-level variance
        that lies between tasks.
    mixed_share : dict[int, float]
        Predicted share of tasks with both outcomes in n runs, by n.
    pass_hat_k : dict[int, float]
        Predicted pass^k, by k.
    pass_at_k : dict[int, float]
        Predicted pass@k, by k.
    """

    kappa: float
    a: float
    b: float
    icc: float
    mixed_share: dict[int, float]
    pass_hat_k: dict[int, float]
    pass_at_k: dict[int, float]


@dataclass(frozen=True)
class SummarySpread:
    """Result of :func:`spread_from_summary`.

    ``beta`` is ``None`` and ``explained`` False when no Beta spread of task
    rates reproduces the pair; ``reason`` then says why.
    """

    label: str | None
    mean: float
    pass_hat_k: float
    k: int
    uniform: float
    ratio: float
    consistency: float
    gap: float
    explained: bool
    reason: str
    beta: BetaFit | None
    mixed_share_published: float | None = None
    mixed_share_runs: int | None = None
    mixed_share_check: str = ""
    method: str = (
        "uniform reference = mean^k; Beta(μκ, (1−μ)κ) with μ = mean and κ solved from "
        "E[p^k] = pass^k (Brent on log κ)"
    )

    def sentence(self) -> str:
        """Plain-language reading of the numbers."""
        who = f"{self.label}: " if self.label else ""
        s = (
            f"{who}mean {self.mean:.1%} would give pass^{self.k} = {self.uniform:.1%} if every "
            f"task shared it; measured {self.pass_hat_k:.1%}"
        )
        if self.uniform > 0:
            s += f" ({fmt_ratio(self.ratio)}× the uniform reference)"
        s += (
            f". Consistency pass^{self.k}/mean = {self.consistency:.2f}."
            if math.isfinite(self.consistency)
            else f". Consistency pass^{self.k}/mean is undefined (mean 0)."
        )
        if self.beta is not None:
            n = self.mixed_share_runs or self.k
            s += (
                f" A Beta spread of task rates explains the pair with κ = {self.beta.kappa:.3g} "
                f"(ICC {self.beta.icc:.2f}) and predicts {self.beta.mixed_share[n]:.0%} of tasks "
                f"with mixed outcomes in {n} runs."
            )
        else:
            s += f" No Beta spread explains it: {self.reason}."
        if self.mixed_share_check:
            s += " " + self.mixed_share_check
        return s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (keys of the ``beta`` maps become strings)."""
        beta = None
        if self.beta is not None:
            beta = {
                "kappa": self.beta.kappa,
                "a": self.beta.a,
                "b": self.beta.b,
                "icc": self.beta.icc,
                "mixed_share": {str(k): v for k, v in self.beta.mixed_share.items()},
                "pass_hat_k": {str(k): v for k, v in self.beta.pass_hat_k.items()},
                "pass_at_k": {str(k): v for k, v in self.beta.pass_at_k.items()},
            }
        return {
            "label": self.label,
            "mean": self.mean,
            "pass_hat_k": self.pass_hat_k,
            "k": self.k,
            "uniform": self.uniform,
            "ratio": self.ratio,
            "consistency": self.consistency,
            "gap": self.gap,
            "explained": self.explained,
            "reason": self.reason,
            "beta": beta,
            "mixed_share_published": self.mixed_share_published,
            "mixed_share_runs": self.mixed_share_runs,
            "mixed_share_check": self.mixed_share_check,
            "method": self.method,
            "sentence": self.sentence(),
        }


def spread_from_summary(
    *,
    mean: float,
    pass_hat_k: float,
    k: int,
    label: str | None = None,
    predict_k: Sequence[int] = (1, 2, 3, 5, 10),
    runs: int | None = None,
    mixed_share: float | None = None,
    tolerance: float = 0.03,
) -> SummarySpread:
    """Clustered vs uniform spread from a published (Mean@k, pass^k) pair alone.

    Parameters
    ----------
    mean : float
        Mean success per run (Mean@k), in [0, 1].
    pass_hat_k : float
        Measured pass^k, in [0, 1].
    k : int
        The k of ``pass_hat_k`` (≥ 1).
    label : str, optional
        Name of the row (shown in sentences).
    predict_k : sequence of int
        k values at which to predict pass^k and pass@k from the implied Beta.
    runs : int, optional
        Runs per task n for the predicted share of mixed tasks (default k).
    mixed_share : float, optional
        A published share of tasks with mixed outcomes in ``runs`` runs; the
        result says whether the Beta reproduces it within ``tolerance``.
    tolerance : float
        Absolute tolerance for that check.

    Returns
    -------
    SummarySpread

    Raises
    ------
    OptionError
        Values outside [0, 1], k < 1.

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=5)
    >>> s.explained, s.beta.kappa, f"{s.uniform:.1%}"   # half always pass, half always fail
    (True, 0.0, '3.1%')
    """
    for name, v in (("mean", mean), ("pass_hat_k", pass_hat_k)):
        if not (isinstance(v, int | float) and 0.0 <= float(v) <= 1.0):
            raise OptionError(f"{name} must be a number in [0, 1] (got {v!r})")
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise OptionError(f"k must be a whole number ≥ 1 (got {k!r})")
    if runs is not None and (
        isinstance(runs, bool)
        or not isinstance(runs, int | float | np.number)
        or not math.isfinite(runs)
        or int(runs) != runs
        or runs < 1
    ):
        raise OptionError(f"runs must be a whole number ≥ 1 (got {runs!r})")
    if mixed_share is not None and not 0.0 <= mixed_share <= 1.0:
        raise OptionError(f"mixed_share must lie in [0, 1] (got {mixed_share!r})")
    mean, pass_hat_k, k = float(mean), float(pass_hat_k), int(k)
    n_runs = int(runs) if runs is not None else k
    uniform = mean**k
    ratio = pass_hat_k / uniform if uniform > 0 else (math.inf if pass_hat_k > 0 else math.nan)
    consistency = pass_hat_k / mean if mean > 0 else math.nan
    reason = _unexplained_reason(mean, pass_hat_k, k)
    beta: BetaFit | None = None
    check = ""
    if not reason:
        kappa = solve_beta_kappa(mean, pass_hat_k, k)
        ks = sorted({*(int(v) for v in predict_k), k})
        ns = sorted({n_runs, k, *ks})
        beta = BetaFit(
            kappa=kappa,
            a=mean * kappa,
            b=(1 - mean) * kappa,
            icc=1.0 / (kappa + 1.0) if math.isfinite(kappa) else 0.0,
            mixed_share={n: float(beta_mixed_share(mean, kappa, n)) for n in ns},
            pass_hat_k={j: float(beta_moment(mean, kappa, j)) for j in ks},
            pass_at_k={j: float(1.0 - beta_moment(1.0 - mean, kappa, j)) for j in ks},
        )
        if mixed_share is not None:
            pred = beta.mixed_share[n_runs]
            diff = pred - mixed_share
            if abs(diff) <= tolerance:
                check = (
                    f"The published {mixed_share:.0%} of mixed tasks agrees with the Beta's "
                    f"{pred:.0%} (within {tolerance:.0%})."
                )
            else:
                more = "fewer" if diff > 0 else "more"
                check = (
                    f"A Beta cannot explain the published share of mixed tasks: it predicts "
                    f"{pred:.0%} against {mixed_share:.0%} published; the data have {more} "
                    "flaky tasks than a single Beta spread allows (a zero/one-inflated mixture "
                    "may fit)."
                )
    return SummarySpread(
        label=label,
        mean=mean,
        pass_hat_k=pass_hat_k,
        k=k,
        uniform=uniform,
        ratio=ratio,
        consistency=consistency,
        gap=mean - pass_hat_k,
        explained=beta is not None,
        reason=reason,
        beta=beta,
        mixed_share_published=mixed_share,
        mixed_share_runs=n_runs,
        mixed_share_check=check,
    )


# -------------------------------------------------------- from trial data
@dataclass
class Spread:
    """Result of :func:`spread`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, k): tasks, mean, pass_at_k, pass_hat_k, uniform
        (mean^k), ratio (pass^k / mean^k), consistency (pass^k / mean), gap
        (mean − pass^k), flaky_share, and the shares of tasks that carry 50%,
        80% and 100% of the gap (``tasks_for_50``, ``tasks_for_80``,
        ``tasks_for_100``). With ``ci``: ``pass_hat_k_lower``,
        ``pass_hat_k_upper``, ``scope`` and ``method`` from the estimator's
        intervals.
    shares : pandas.DataFrame
        Per system: tasks, always_pass, always_fail, flaky (counts) and their
        shares of the included tasks.
    contributions : pandas.DataFrame
        Per (system, k, task) with a positive contribution to the gap, worst
        first: n, c, mean, pass_hat_k, contribution (weighted), share (of the
        gap), cumulative (share), task_rank, task_share (rank / tasks).
    excluded : pandas.DataFrame
        Tasks left out (from :func:`passhat.estimate`).
    method : dict
        How each column is computed.
    """

    table: pd.DataFrame
    shares: pd.DataFrame
    contributions: pd.DataFrame
    excluded: pd.DataFrame
    method: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def row(self, system: str, k: int) -> pd.Series:
        """The table row of one system and k."""
        sel = self.table[(self.table["system"] == system) & (self.table["k"] == k)]
        if len(sel) != 1:
            raise OptionError(f"no spread row for system={system!r}, k={k}")
        return sel.iloc[0]

    def sentence(self, system: str, k: int) -> str:
        """Plain-language reading of one row, written from its numbers."""
        r = self.row(system, k)
        return describe_row(r)


def describe_row(r: pd.Series | dict[str, Any]) -> str:
    """One or two sentences reading a spread row (see :class:`Spread`), from its numbers."""
    k = int(r["k"])
    if k == 1:
        return f"At k = 1, pass^1 equals the mean ({r['mean']:.1%}); the spread shows from k = 2."
    ratio = float(r["ratio"])
    flaky = float(r["flaky_share"])
    uniform = float(r["uniform"])
    gap = float(r["gap"])
    clustered = not math.isfinite(ratio) or ratio > 1.005
    if not math.isfinite(ratio):
        head = (
            f"pass^{k} is {r['pass_hat_k']:.1%} while a uniform spread of the mean "
            f"({r['mean']:.1%}) would give {uniform:.1%}"
        )
    elif ratio > 1.005:
        head = f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give ({uniform:.1%})"
    elif ratio < 0.995:
        head = (
            f"pass^{k} is {fmt_ratio(ratio)}× what a uniform spread would give "
            f"({uniform:.1%}): no sign that failures cluster in some tasks"
        )
    else:
        head = f"pass^{k} matches a uniform spread ({uniform:.1%})"
    if gap <= 0 or flaky == 0:
        tail = "every task's runs agree, so there is no gap between mean and pass^k"
    elif clustered:
        tail = (
            f"failures concentrate in {flaky:.0%} of tasks (the flaky ones), which carry "
            f"the whole {gap * 100:.1f}-point gap; {float(r['tasks_for_80']):.0%} of tasks "
            "carry 80% of it"
        )
    else:
        tail = (
            f"{flaky:.0%} of tasks have both outcomes and share the {gap * 100:.1f}-point gap "
            f"({float(r['tasks_for_80']):.0%} of tasks carry 80% of it)"
        )
    return f"{head}; {tail}." if not clustered else f"{head}: {tail}."


def spread(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    weights: WeightSpec = None,
    on_short: Literal["error", "exclude"] = "error",
    min_runs: int | None = None,
    ci: float | None = None,
    n_boot: int = 2000,
    seed: int | None = None,
) -> Spread:
    """Clustered vs uniform spread per system and k, from trials or counts.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Trials or a count table.
    k : int or sequence of int
        k values.
    weights, on_short, min_runs
        As in :func:`passhat.estimate`.
    ci : float, optional
        Confidence level of the pass^k interval (from the intervals of
        :func:`passhat.estimate`); the population-scope interval is used.
    n_boot : int
        Bootstrap resamples for ``ci``.
    seed : int, optional
        Seed of the bootstrap.

    Returns
    -------
    Spread

    Examples
    --------
    >>> import passhat as ph
    >>> s = ph.spread(ph.counts_from_arrays([5] * 4, [5, 5, 0, 0]), k=5)
    >>> float(s.row("system", 5)["ratio"])   # half always pass, half always fail: 0.5 / 0.5^5
    16.0
    """
    ds = as_counts(data)
    opts: dict[str, Any] = {"k": k, "weights": weights, "on_short": on_short, "min_runs": min_runs}
    if ci is not None:
        opts.update(ci=ci, n_boot=n_boot, seed=seed)
    est = _estimate(ds, **opts)
    ks = [int(v) for v in est.settings["k"]]
    per = est.per_task
    systems = [str(s) for s in ds["system"].values]
    tasks = np.asarray([str(t) for t in ds["task"].values], dtype=object)
    inc = np.asarray(per["included"].values, dtype=bool)
    w = np.asarray(per["weight"].values, dtype=float)
    n = np.asarray(ds["n"].values, dtype=np.int64)
    c = np.asarray(ds["c"].values, dtype=np.int64)
    mean_t = np.asarray(per["mean"].values, dtype=float)  # (s, t, k)
    hat_t = np.asarray(per["pass_hat_k"].values, dtype=float)
    contrib = np.where(inc[..., None], w[..., None] * (mean_t - hat_t), 0.0)
    contrib = np.where(np.isfinite(contrib), np.maximum(contrib, 0.0), 0.0)
    always_pass = inc & (c == n) & (n > 0)
    always_fail = inc & (c == 0) & (n > 0)
    flaky = inc & (c > 0) & (c < n)
    n_inc = inc.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = pd.DataFrame(
            {
                "system": systems,
                "tasks": n_inc.astype(int),
                "always_pass": always_pass.sum(axis=1).astype(int),
                "always_fail": always_fail.sum(axis=1).astype(int),
                "flaky": flaky.sum(axis=1).astype(int),
                "always_pass_share": always_pass.sum(axis=1) / n_inc,
                "always_fail_share": always_fail.sum(axis=1) / n_inc,
                "flaky_share": flaky.sum(axis=1) / n_inc,
            }
        )
    # Sort each (system, k) column of contributions, worst first (stable on task order).
    order = np.argsort(-contrib, axis=1, kind="stable")  # (s, t, k)
    sorted_c = np.take_along_axis(contrib, order, axis=1)
    gap = sorted_c.sum(axis=1)  # (s, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        cum = np.cumsum(sorted_c, axis=1) / np.where(gap > 0, gap, 1.0)[:, None, :]
    tasks_for: dict[float, NDArray[np.float64]] = {}
    for level in GAP_LEVELS:
        # smallest number of tasks whose cumulative share reaches the level
        reach = cum >= level - 1e-12
        first = np.where(reach.any(axis=1), reach.argmax(axis=1) + 1, 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            tasks_for[level] = np.where(gap > 1e-15, first / np.maximum(n_inc, 1)[:, None], 0.0)
    wide = est.wide()
    rows = []
    for si, name in enumerate(systems):
        for ki, kv in enumerate(ks):
            sel = wide[(wide["system"] == name) & (wide["k"] == kv)].iloc[0]
            m, hat = float(sel["mean"]), float(sel["pass_hat_k"])
            uni = m**kv
            row: dict[str, Any] = {
                "system": name,
                "k": kv,
                "tasks": int(n_inc[si]),
                "mean": m,
                "pass_at_k": float(sel["pass_at_k"]),
                "pass_hat_k": hat,
                "uniform": uni,
                "ratio": hat / uni if uni > 0 else (math.inf if hat > 0 else math.nan),
                "consistency": hat / m if m > 0 else math.nan,
                "gap": m - hat,
                "flaky_share": float(shares["flaky_share"].iloc[si]),
                "always_pass_share": float(shares["always_pass_share"].iloc[si]),
                "always_fail_share": float(shares["always_fail_share"].iloc[si]),
                "tasks_for_50": float(tasks_for[0.5][si, ki]),
                "tasks_for_80": float(tasks_for[0.8][si, ki]),
                "tasks_for_100": float(tasks_for[1.0][si, ki]),
            }
            if ci is not None:
                t = est.table
                iv = t[
                    (t["system"] == name)
                    & (t["k"] == kv)
                    & (t["metric"] == "pass_hat_k")
                    & (t["scope"] == "population")
                ]
                if len(iv):
                    row["pass_hat_k_lower"] = float(iv["lower"].iloc[0])
                    row["pass_hat_k_upper"] = float(iv["upper"].iloc[0])
                    row["scope"] = "population"
                    row["method"] = str(iv["method"].iloc[0])
            rows.append(row)
    table = pd.DataFrame(rows)
    crow = []
    for si, name in enumerate(systems):
        for ki, kv in enumerate(ks):
            pos = order[si, :, ki]
            vals = sorted_c[si, :, ki]
            keep = vals > 0
            pos, vals = pos[keep], vals[keep]
            g = float(gap[si, ki])
            frame = pd.DataFrame(
                {
                    "system": name,
                    "k": kv,
                    "task": tasks[pos],
                    "n": n[si, pos],
                    "c": c[si, pos],
                    "mean": mean_t[si, pos, ki],
                    "pass_hat_k": hat_t[si, pos, ki],
                    "contribution": vals,
                    "share": vals / g if g > 0 else vals * np.nan,
                    "cumulative": cum[si, : len(vals), ki],
                    "task_rank": np.arange(1, len(vals) + 1),
                    "task_share": np.arange(1, len(vals) + 1) / max(int(n_inc[si]), 1),
                }
            )
            crow.append(frame)
    contributions = (
        pd.concat(crow, ignore_index=True)
        if crow
        else pd.DataFrame(columns=["system", "k", "task", "contribution"])
    )
    method = {
        "mean": "weighted average of per-task c/n",
        "pass_hat_k": "weighted average of per-task unbiased C(c,k)/C(n,k)",
        "uniform": "mean^k: pass^k if every task had the same success rate",
        "ratio": "pass^k / mean^k (> 1: failures cluster in some tasks)",
        "consistency": "pass^k / mean",
        "gap": "mean − pass^k, split by task as w_i (c_i/n_i − C(c_i,k)/C(n_i,k))",
        "shares": "share of included tasks (unweighted) by decided runs: all pass, all fail, both",
        "tasks_for_x": "smallest share of tasks whose contributions sum to x of the gap",
    }
    return Spread(
        table=table,
        shares=shares,
        contributions=contributions,
        excluded=est.excluded,
        method=method,
        settings={**est.settings, "ci": ci, "seed": seed},
    )
