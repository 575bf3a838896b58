"""The tables and the choice of batch behind :func:`passhat.plan.next_runs`.

:class:`Groups` holds the tasks grouped by their (runs, successes), with each
group's expected squared error and bias after x more runs under every point
of the (μ, κ) posterior; it allocates greedily and evaluates any allocation.
:func:`hedge` compares the greedy batch with even shares of the runs under
each point and keeps the one safest against uniform runs.

Examples
--------
>>> import numpy as np
>>> from passhat.planner.batch import Groups
>>> n, c = np.array([3, 3, 3, 3]), np.array([3, 3, 2, 1])
>>> hyper = (np.array([2.0]), np.array([1.0]), np.ones(1))
>>> g = Groups.of(n, c, hyper, 3, 8, 8, k=3, metric="pass_hat_k", levels=8)
>>> int(g.allocate(8).sum())
8
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat.errors import OptionError
from passhat.planner.allocate import expected_error, expected_variance, greedy, per_task

__all__ = ["MAX_PER_TASK", "Groups", "check_batch", "hedge"]


#: Most more runs one task can get in one batch (the expected errors are tabulated up to it).
MAX_PER_TASK = 1000


def check_batch(budget: int, tasks: int) -> None:
    """Refuse a batch whose even share exceeds :data:`MAX_PER_TASK` runs per task (its tables
    would not fit in memory), naming the largest batch that can be planned.

    Examples
    --------
    >>> check_batch(4000, 4)
    >>> check_batch(4001, 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: budget 4001 over 4 task(s) is more than 1000 more runs per task ...
    """
    if -(-budget // tasks) > MAX_PER_TASK:
        raise OptionError(
            f"budget {budget} over {tasks} task(s) is more than {MAX_PER_TASK} more runs per task "
            f"in one batch; plan a batch of at most {tasks * MAX_PER_TASK} runs, run it, and plan "
            "the next one from its results"
        )


@dataclass(frozen=True)
class Groups:
    """Tasks grouped by (runs, successes), with each group's expected error per more runs."""

    group: NDArray[np.int64]  # (T,) group of each task
    rank: NDArray[np.int64]  # (T,) rank of the task within its group
    mult: NDArray[np.int64]  # (G,) tasks per group
    lack: NDArray[np.int64]  # (G,) runs short of k
    room: NDArray[np.int64]  # (G,) most free runs a task may take
    mse: NDArray[np.float64]  # (P, G, L + 1) expected squared error after x more runs, per (μ, κ)
    bias: NDArray[np.float64]  # (P, G, L + 1) its expected bias
    ivar: NDArray[np.float64]  # (P, G, L + 1) E[Var(estimate | p)]: what an interval will show
    weights: NDArray[np.float64]  # (P,) posterior weights of the (μ, κ) points
    n: NDArray[np.int64]  # (T,) runs so far
    kk: int

    @classmethod
    def of(
        cls,
        n: NDArray[np.int64],
        c: NDArray[np.int64],
        hyper: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
        kk: int,
        cap: int,
        free: int,
        *,
        k: int,
        metric: str,
        levels: int,
    ) -> Groups:
        T = len(n)
        # distinct (n, c) rows, ordered by n then c (a row-wise unique: n × (c + 1) as one
        # integer overflowed int64 for n near 2^32 and grouped unequal tasks together)
        uniq, group, mult = np.unique(
            np.stack([np.asarray(n, np.int64), np.asarray(c, np.int64)], axis=1),
            axis=0,
            return_inverse=True,
            return_counts=True,
        )
        group = group.ravel()
        order = np.argsort(group, kind="stable")
        first = np.cumsum(mult) - mult
        rank = np.empty(T, dtype=np.int64)
        rank[order] = np.arange(T) - first[group[order]]
        gn, gc = uniq[:, 0], uniq[:, 1]
        lack = np.maximum(kk - gn, 0)
        room = np.maximum(np.minimum(cap, MAX_PER_TASK) - lack, 0)
        # the even share of the batch is evaluated too; never tabulate beyond one batch's
        # limit (10^5 runs over 4 tasks built a 25,001² table per group: 23 GB)
        reach = max(min(free, int(room.max()), levels), min(-(-free // T), MAX_PER_TASK))
        more = np.arange(int(lack.max()) + reach + 1)
        ha, hb, hw = hyper
        tables = [  # one per (μ, κ) point: a loop over a few hyperparameter values
            expected_error(gn, gc, a + gc, b + (gn - gc), more, k=k, metric=metric)
            for a, b in zip(ha, hb, strict=True)
        ]
        enough = (gn[:, None] + more[None, :] >= kk)[None]
        mse = np.where(enough, np.stack([t[0] for t in tables]), 0.0)
        bias = np.where(enough, np.stack([t[1] for t in tables]), 0.0)
        runs = np.maximum(gn[:, None] + more[None, :], kk)
        ivar = np.where(
            enough,
            np.stack(
                [
                    expected_variance(
                        runs, (a + gc)[:, None], (b + gn - gc)[:, None], k=k, metric=metric
                    )
                    for a, b in zip(ha, hb, strict=True)
                ]
            ),
            0.0,
        )
        return cls(group, rank, mult, lack, room, mse, bias, ivar, hw, n, kk)

    def allocate(self, free: int, *, even: int = 0, point: int | None = None) -> NDArray[np.int64]:
        """Greedy runs per task, the lacking ones included (all given: ``free`` > 0).

        ``even`` runs go to every task first (a uniform share of the batch);
        the greedy spends the rest.
        """
        T = int(self.mult.sum())
        even = int(min(even, free // max(T, 1), int(self.room.min())))
        sel = slice(None) if point is None else slice(point, point + 1)
        counts, _ = greedy(
            self.mse[sel],
            self.bias[sel],
            self.mult,
            start=self.lack + even,
            room=self.room - even,
            budget=free - even * T,
            weights=self.weights if point is None else None,
        )
        return per_task(counts, self.group, self.rank)

    def _cells(self, extra: NDArray[np.int64]) -> tuple[NDArray[Any], ...]:
        """Distinct (group, runs added) cells, not tasks (few of them): their tables' values.

        Returns ``ok`` (T,) tasks with ≥ k runs, ``where`` (T,) each task's
        cell, ``use`` (cells,) tasks with ≥ k runs per cell, ``m``, ``b`` and
        ``v`` (P, cells) the expected squared error, bias and estimator
        variance per (μ, κ) point.
        """
        ok = self.n + extra >= self.kk
        width = self.mse.shape[2]
        col = np.minimum(extra, width - 1)
        cells, where = np.unique(self.group * width + col, return_inverse=True)
        use = np.bincount(where.ravel(), weights=ok, minlength=len(cells))
        g, x = cells // width, cells % width
        return ok, where.ravel(), use, self.mse[:, g, x], self.bias[:, g, x], self.ivar[:, g, x]

    def errors(self, extra: NDArray[np.int64]) -> NDArray[np.float64]:
        """t² × the expected squared error of the average under each (μ, κ) point: (P,)."""
        _, _, use, m, b, _ = self._cells(extra)
        return np.asarray((m - b * b) @ use + (b @ use) ** 2, dtype=float)

    def variance(
        self, extra: NDArray[np.int64], between: float
    ) -> tuple[NDArray[np.float64], float, float, int]:
        """Per-task variances; the average's variance and its expected squared error.

        Over the t tasks with ≥ k runs: the variance Σ V_i / t² (plus the
        task-sampling ``between``/t in the population scope) is what an
        interval will reflect, V_i = E[Var(estimate | p_i)] over the task's
        posterior (the variance ``estimate`` computes, in expectation; it only
        falls with more runs); the expected squared error given the runs so
        far, biases included ((Σ Var_i + (Σ bias_i)²) / t², plus ``between``/t),
        is what the allocation minimises.
        """
        ok, where, use, m, b, v = self._cells(extra)
        var_i = np.where(ok, (self.weights @ v)[where], 0.0)
        t = int(ok.sum())
        if t == 0:
            return var_i, float("nan"), float("nan"), 0
        sq = float(self.weights @ ((m - b * b) @ use + (b @ use) ** 2))
        return var_i, float(var_i.sum()) / t**2 + between / t, sq / t**2 + between / t, t


def hedge(
    groups: Groups, greedy_extra: NDArray[np.int64], uni: NDArray[np.int64], free: int, T: int
) -> tuple[NDArray[np.int64], dict[str, Any]]:
    """The batch that is safest against uniform runs under the uncertainty of (μ, κ).

    The greedy batch minimises the objective averaged over the points of the
    (μ, κ) posterior, but near pass rates of 1 the points disagree on how
    wrong the all-pass tasks' estimates are, and a batch good on average can
    be much worse than uniform runs at the true (μ, κ). The candidates: the
    greedy batch, an even share of q runs per task with the rest spent
    greedily (q = ¼, ½, ¾ and all of budget // T), and the same runs spread
    evenly. Each point gives every candidate's expected squared error as a
    ratio to the uniform spread's; the candidate with the smallest worst
    ratio is chosen (uniform runs have 1 at every point, so the batch is
    never expected to be worse than them under any of the points). Only
    when the batch has at least one run per task: with fewer, "evenly" would
    mean an arbitrary subset of the tasks, and the greedy batch is kept.
    """
    q_max = free // T
    evens = sorted({0, *(round(f * q_max) for f in (0.25, 0.5, 0.75)), q_max})
    cands = [greedy_extra] + [groups.allocate(free, even=q) for q in evens[1:]] + [uni]
    err = np.stack([groups.errors(c) for c in cands])  # (candidates, points)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(err[-1] > 0, err / err[-1], 1.0)
    worst = ratio.max(axis=1)
    # ties (within rounding) go to the more adaptive candidate
    best = int(np.flatnonzero(worst <= worst.min() + 1e-9)[0])
    if np.array_equal(cands[best], uni):
        choice = "uniform"
    else:
        choice = "greedy" if best == 0 else "mixed"
    info = {
        "choice": choice,
        "even_runs": evens[best] if choice == "mixed" else 0 if choice == "greedy" else None,
        "worst_ratio_greedy": float(worst[0]),
        "mean_ratio_greedy": float(ratio[0] @ groups.weights),
        "worst_ratio_chosen": float(worst[best]),
    }
    return cands[best], info
