"""What the histogram of successes fixes: the discrete model's values where the data identify them.

For k up to the runs of every task, pass^k and pass@k of a distribution of task rates G are
linear in the distribution of successes per task: E_G[p^k] = E[C(c, k) / C(n, k)] and
E_G[(1 − p)^k] = E[C(n − c, k) / C(n, k)] (the unbiased per-task estimates of
:mod:`passhat.estimators`). The discrete model (:mod:`passhat.model.discrete`) estimates G by
the nonparametric maximum-likelihood estimate, which must be a mixture of binomials: when the
observed histogram is not one (often, when the truth has few atoms, e.g. two kinds of task),
the NPMLE projects it onto the mixtures and on the way puts spurious mass at or near p = 0 (a
point mass there can add tasks with c = 0 but nothing can remove them). Its pass@k at k = n
is then biased low — by about the spurious mass: 0.015 with 200 tasks × 5 runs, half at p =
0.4, half at 0.95, more than half its 90% interval's width (``reports/fit_shapes``).

So, for these identified values, the discrete model's draws are replaced by what the
histogram says, without a model:

* **population**: the Bayesian bootstrap of the per-task unbiased estimates, with the discrete
  model's own prior (Dirichlet weights: Gamma(multiplicity) per group of tasks, and half a
  pseudo-task at p = 0 and half at p = 1); where every task's value is 0 or 1 and fewer than
  10 tasks lie on a side of the estimate, draws whose intervals are ``estimate``'s
  Clopper–Pearson bounds of the share of tasks at 1 (:func:`population_bound`);
* **benchmark** (these tasks): the weighted unbiased estimate U plus a normal deviate times its
  standard error (:func:`passhat.intervals.benchmark_se`: below 2k runs the larger of the
  shrunk-rate plug-in and the model-free bound of :mod:`passhat.variance_bound`), the rule of
  ``estimate`` where n ≥ 2k; the Rao–Blackwellised value is U.

Above the fewest runs of a task nothing fixes the value and the NPMLE's extrapolation stays.
In the population scope the Beta and inflated models keep their own values (a shape they
impose, checked by the shape check and stacked by leave-one-task-out). In the benchmark scope
every model's draws take U + se · z where ``estimate``'s rule allows that normal interval
(:func:`informative`; :meth:`passhat.Fit._compute`): these values are measured by the runs,
and in ``studies/fit_shapes`` the Beta and inflated models' own benchmark intervals covered
0.82–0.85 at 90% in cells (50 tasks) where no check warned reliably.

Examples
--------
>>> import numpy as np
>>> from passhat.model.metrics import Groups
>>> from passhat.model.histogram import identified_values
>>> g = Groups.from_tasks([4] * 4, [4, 4, 0, 2], [1.0] * 4)
>>> out = identified_values(g, [("pass_hat_k", 2), ("pass_hat_k", 5)], 4000,
...                         scope="benchmark", rng=np.random.default_rng(0), rao_blackwell=True)
>>> sorted(out), round(float(out[("pass_hat_k", 2)][0]), 4)   # (1 + 1 + 0 + 1/6) / 4
([('pass_hat_k', 2)], 0.5417)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from passhat.estimators import pass_at_k, pass_hat_k
from passhat.intervals import benchmark_se

__all__ = [
    "PSEUDO",
    "Groups",
    "identified",
    "identified_values",
    "informative",
    "population_bound",
    "task_values",
]


class Groups(Protocol):
    """Tasks grouped by (n, c, weight) (:class:`passhat.model.metrics.Groups`): ``n``, ``c``,
    ``weight`` (of one task of the group, all tasks' summing to one) and ``mult``."""

    @property
    def n(self) -> NDArray[Any]: ...
    @property
    def c(self) -> NDArray[Any]: ...
    @property
    def weight(self) -> NDArray[Any]: ...
    @property
    def mult(self) -> NDArray[Any]: ...


#: The Dirichlet weight of the pseudo-task at p = 0 and of the one at p = 1 (as the discrete
#: model's Bayesian bootstrap: :func:`passhat.model.discrete.discrete_posterior`).
PSEUDO = 0.5


def identified(groups: Groups, metric: str, k: int) -> bool:
    """Whether (metric, k) is fixed by the histogram: the mean always, pass^k and pass@k for
    k up to the fewest runs of a task.

    Examples
    --------
    >>> from passhat.model.metrics import Groups
    >>> g = Groups.from_tasks([3, 5], [1, 2], [1.0, 1.0])
    >>> identified(g, "pass_at_k", 3), identified(g, "pass_at_k", 4), identified(g, "icc", 1)
    (True, False, False)
    """
    if metric == "mean":
        return True
    if metric not in ("pass_at_k", "pass_hat_k") or groups.n.size == 0:
        return False
    return int(k) <= int(groups.n.min())


def informative(groups: Groups, metric: str, k: int, *, scope: str = "benchmark") -> bool:
    """Whether the value of (metric, k) in ``scope`` is identified and ``estimate``'s rule
    (:mod:`passhat.scopes`) trusts a model-free interval for it, so that :class:`passhat.Fit`
    reports the histogram's values there whatever its model:

    * **benchmark**: at least :data:`~passhat.scopes.MIN_TASKS` tasks, at least
      :data:`~passhat.scopes.MIN_FLAKY` of them with both outcomes, and se > 0 (the normal
      interval U ± z · se);
    * **population**: equal task weights (the fit weights the benchmark scope only, so with
      unequal weights its population scope stays the model's, unweighted), at least
      :data:`~passhat.scopes.MIN_TASKS` tasks, and either at least
      :data:`~passhat.scopes.MIN_SIDE` of them strictly on each side of the estimate (where
      ``estimate`` resamples tasks; here the Bayesian bootstrap of the tasks' unbiased
      estimates) or every task's value 0 or 1 (``estimate``'s Clopper–Pearson-type bound:
      :func:`population_bound`).

    Otherwise (few tasks; most tasks all-pass or all-fail with values between 0 and 1)
    ``estimate`` needs a model or pseudo-tasks, and the fit keeps its model.

    Examples
    --------
    >>> from passhat.model.metrics import Groups
    >>> informative(Groups.from_tasks([9], [0], [1.0]), "mean", 1)   # one task
    False
    >>> g = Groups.from_tasks([4] * 40, [0, 1, 2, 4] * 10, [1.0] * 40)
    >>> informative(g, "mean", 1), informative(g, "mean", 1, scope="population")
    (True, True)
    """
    from passhat.scopes import MIN_FLAKY, MIN_SIDE, MIN_TASKS

    if not identified(groups, metric, k):
        return False
    used = groups.weight > 0
    if groups.mult[used].sum() < MIN_TASKS:
        return False
    if scope == "population":
        if np.ptp(groups.weight[used]) > 1e-12 * float(groups.weight[used].max()):
            return False  # unequal weights: the fit's population scope is unweighted (the model)
        below, above = _sides(groups, metric, k)
        return bool(min(below, above) >= MIN_SIDE or _binary(groups, metric, k))
    flaky = used & (groups.c > 0) & (groups.c < groups.n)
    if groups.mult[flaky].sum() < MIN_FLAKY:
        return False
    n = np.repeat(groups.n, groups.mult).astype(np.int64)
    c = np.repeat(groups.c, groups.mult).astype(np.int64)
    w = np.repeat(groups.weight, groups.mult)
    se, _ = benchmark_se(n, c, k=int(k), metric=metric, weights=w)
    return bool(se > 0)


def _sides(groups: Groups, metric: str, k: int) -> tuple[float, float]:
    """How many tasks' unbiased estimates lie strictly below and strictly above their mean."""
    used = groups.weight > 0
    vals = task_values(groups, metric, k)
    u = float((groups.weight * groups.mult) @ vals)
    below = groups.mult[used & (vals < u - 1e-12)].sum()
    above = groups.mult[used & (vals > u + 1e-12)].sum()
    return float(below), float(above)


def _binary(groups: Groups, metric: str, k: int) -> bool:
    """Whether every task's unbiased estimate is 0 or 1 (pass^k and pass@k at k = n)."""
    vals = task_values(groups, metric, k)[groups.weight > 0]
    return bool(np.all((vals == 0.0) | (vals == 1.0)))


def population_bound(groups: Groups, metric: str, k: int) -> bool:
    """Whether the population values of (metric, k) are the Clopper–Pearson-type bound: the
    rule of ``estimate`` (:func:`passhat.scopes.bound_interval`) where every task's value is 0
    or 1 and fewer than :data:`~passhat.scopes.MIN_SIDE` tasks lie on a side of the estimate
    (typically pass@n with most tasks passing at least once); it needs no model, and the
    fit's model there covered 0.81–0.84 at 90% in ``reports/fit_shapes``.

    Examples
    --------
    >>> from passhat.model.metrics import Groups
    >>> g = Groups.from_tasks([3] * 40, [0] * 3 + [1] * 37, [1.0] * 40)   # 3 tasks at 0
    >>> population_bound(g, "pass_at_k", 3), population_bound(g, "pass_at_k", 2)
    (True, False)
    """
    from passhat.scopes import MIN_SIDE

    if not (identified(groups, metric, k) and _binary(groups, metric, k)):
        return False
    return min(_sides(groups, metric, k)) < MIN_SIDE and informative(
        groups, metric, k, scope="population"
    )


def task_values(groups: Groups, metric: str, k: int) -> NDArray[np.float64]:
    """Each group's unbiased estimate of the metric at k (one task of the group).

    Examples
    --------
    >>> from passhat.model.metrics import Groups
    >>> g = Groups.from_tasks([4, 4], [2, 4], [1.0, 1.0])
    >>> g.c.tolist(), task_values(g, "pass_hat_k", 2).round(4).tolist()   # C(2,2)/C(4,2) = 1/6
    ([2.0, 4.0], [0.1667, 1.0])
    """
    n, c = groups.n.astype(np.int64), groups.c.astype(np.int64)
    if metric == "mean":
        return np.asarray(c / n, dtype=float)
    f = pass_at_k if metric == "pass_at_k" else pass_hat_k
    return np.asarray(f(n, c, int(k)), dtype=float)


def _population(
    groups: Groups,
    requests: Sequence[tuple[str, int]],
    size: int,
    rng: np.random.Generator,
    rao_blackwell: bool,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """The Bayesian bootstrap of the groups' unbiased estimates, with the pseudo-tasks."""
    mult = groups.mult.astype(float)
    shape = np.append(mult, [PSEUDO, PSEUDO])
    if rao_blackwell:
        v = (shape / shape.sum())[None, :]
    else:
        g = rng.gamma(shape, size=(size, shape.size))
        v = g / g.sum(axis=1, keepdims=True)
    # the bound's draws come after the Dirichlet weights, whatever the requests
    u = None if rao_blackwell else (rng.permutation(size) + 0.5) / size
    out = {}
    for metric, k in requests:
        vals = np.append(task_values(groups, metric, k), [0.0, 1.0])  # pseudo at p = 0, 1
        out[(metric, k)] = np.broadcast_to(v @ vals, (size,)).copy()
        if u is not None and population_bound(groups, metric, k):
            out[(metric, k)] = _bound_draws(groups, metric, k, u)
    return out


def _bound_draws(
    groups: Groups, metric: str, k: int, u: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Draws whose equal-tailed intervals are the Clopper–Pearson bounds of x tasks at 1 of T
    (as :func:`passhat.scopes.bound_interval`): the u-quantile of Beta(x, T − x + 1) for u < ½
    (the lower end's distribution), of Beta(x + 1, T − x) for u ≥ ½ (the upper end's)."""
    from scipy import special

    used = groups.weight > 0
    t = float(groups.mult[used].sum())
    x = float(groups.mult[used] @ task_values(groups, metric, k)[used])
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = special.betaincinv(x, t - x + 1, u) if x > 0 else np.zeros_like(u)
        hi = special.betaincinv(x + 1, t - x, u) if x < t else np.ones_like(u)
    return np.asarray(np.where(u < 0.5, lo, hi), dtype=float)


def _benchmark(
    groups: Groups,
    requests: Sequence[tuple[str, int]],
    size: int,
    rng: np.random.Generator,
    rao_blackwell: bool,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """U + se · z per draw (one z per draw, shared by every metric and k), clipped to [0, 1]."""
    n = np.repeat(groups.n, groups.mult).astype(np.int64)
    c = np.repeat(groups.c, groups.mult).astype(np.int64)
    w = np.repeat(groups.weight, groups.mult)
    z = np.zeros(size) if rao_blackwell else rng.standard_normal(size)
    out = {}
    for metric, k in requests:
        u = float((groups.weight * groups.mult) @ task_values(groups, metric, k))
        se, _ = benchmark_se(n, c, k=int(k), metric=metric, weights=w)
        out[(metric, k)] = np.clip(u + se * z, 0.0, 1.0)
    return out


def identified_values(
    groups: Groups,
    requests: Sequence[tuple[str, int]],
    size: int,
    *,
    scope: str,
    rng: np.random.Generator,
    rao_blackwell: bool = False,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """``size`` draws of each identified request (the others are left out) in ``scope``.

    Population: the Bayesian bootstrap of the per-task unbiased estimates (with the pseudo-tasks
    at 0 and 1); benchmark: U + se · z. With ``rao_blackwell``, the expected values (the
    bootstrap's mean; U). The random numbers depend only on ``rng`` and ``size``, not on the
    requests, so that every call with the same generator state gives the same draws.
    """
    todo = [(m, k) for m, k in requests if identified(groups, m, k)]
    if scope == "population":
        return _population(groups, todo, size, rng, rao_blackwell)
    return _benchmark(groups, todo, size, rng, rao_blackwell)
