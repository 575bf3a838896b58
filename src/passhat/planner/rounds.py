"""Runs in rounds: the r-th block of k decided runs of every task, as a gate consumes them.

A sequential gate (:func:`passhat.plan.sequential`) needs observations that stay valid
to test however often they are checked. Runs of one task share the task's rate, and
tasks differ, so single runs in arrival order are neither independent of the task nor
identically distributed. Rounds are: round r holds, for every task, its r-th block of
k decided runs in trial order (runs (r−1)k+1 … rk). A block passes when all k runs pass
(pass^k) or any does (pass@k); with k = 1 a block is a run. Under "runs of a task are
independent given its rate", block outcomes of different rounds are independent, and a
round's mean over tasks has expectation the benchmark value of the metric — whatever the
order in which a harness ran the tasks, and however unequal their rates.

Rounds that not every task has completed (a run went unscored, a harness ran tasks one at
a time) are kept too, up to the most complete blocks any task has (:attr:`BlockRounds.top`):
each block carries the lowest and highest outcome it can still have (:attr:`~BlockRounds.lo`,
:attr:`~BlockRounds.hi`). A complete block is known; so is an incomplete one its decided runs
settle (a failure among them for pass^k, a pass for pass@k); the others are open, and the gate
counts each against the decision it tests (:func:`passhat.plan.sequential`), so every decided
run is used and the error bounds still hold. Runs beyond :attr:`~BlockRounds.top` rounds are
set aside (and counted) until another round is reached.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aaabb"), "trial": [0, 1, 2, 0, 1],
...                    "success": [True, False, True, True, True]})
>>> b = block_rounds(ph.Trials.from_frame(df), k=1)
>>> b.rounds, b.passes.tolist(), b.top, b.set_aside, b.missing().tolist()
(2, [1, 2], 3, 0, [0, 1])
>>> b.lo.tolist(), b.hi.tolist()  # task b's third run is open: it may pass or fail
([[True, False, True], [True, True, False]], [[True, False, True], [True, True, True]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import check_k
from passhat.errors import InputError, OptionError
from passhat.estimators import WeightSpec, as_counts, task_weights
from passhat.trials import Trials

__all__ = ["BlockRounds", "block_rounds", "pick_system"]


@dataclass(frozen=True)
class BlockRounds:
    """One system's runs cut into rounds of k-run blocks.

    Attributes
    ----------
    system : str
    tasks : list of str
        Every task the system ran (in order of appearance).
    k : int
        Runs per block.
    rounds : int
        Complete rounds R: every task has at least R·k decided runs.
    passes : ndarray of int
        Per task, passing blocks among its first R.
    blocks : ndarray of bool (tasks × R), or None
        Each block's outcome in round order; None for a count table (no trial order).
    decided : ndarray of int
        Decided runs per task (all of them, used or not).
    unscored : int
        Runs without a verdict (never used).
    weights : ndarray of float
        Task weights, summing to 1.
    top : int
        Rounds reached: the most complete blocks any task has (``rounds`` for a count table).
    lo, hi : ndarray of bool (tasks × top), or None
        The lowest and highest outcome each block can still have (pass = True): equal for
        a known block (complete, or settled by its decided runs), False and True for an
        open one. None for a count table.
    complete : ndarray of bool (tasks × top), or None
        Whether the block has all its k decided runs.
    """

    system: str
    tasks: list[str]
    k: int
    rounds: int
    passes: NDArray[np.int64]
    blocks: NDArray[np.bool_] | None
    decided: NDArray[np.int64]
    unscored: int
    weights: NDArray[np.float64]
    top: int = 0
    lo: NDArray[np.bool_] | None = None
    hi: NDArray[np.bool_] | None = None
    complete: NDArray[np.bool_] | None = None

    def used_to(self, rounds: int) -> int:
        """Decided runs inside the first ``rounds`` rounds."""
        return int(np.minimum(self.decided, rounds * self.k).sum())

    @property
    def used(self) -> int:
        """Decided runs inside the rounds reached (:attr:`top`)."""
        return self.used_to(max(self.top, self.rounds))

    @property
    def set_aside(self) -> int:
        """Decided runs beyond the rounds reached (not used yet)."""
        return int(self.decided.sum()) - self.used

    def missing(self, rounds: int | None = None) -> NDArray[np.int64]:
        """Per task, the decided runs still to take to complete ``rounds`` (default: the
        rounds reached, :attr:`top`)."""
        r = max(self.top, self.rounds) if rounds is None else rounds
        return np.maximum(r * self.k - self.decided, 0).astype(np.int64)

    def runs_to_reach(self, rounds: int) -> int:
        """Decided runs still to take so that every task completes ``rounds`` rounds."""
        return int(np.maximum(rounds * self.k - self.decided, 0).sum())


def pick_system(systems: list[str], system: str | None, *, what: str, option: str) -> str:
    """The one system to use: the only one, or the one named (else a one-line error)."""
    if system is not None:
        if system not in systems:
            raise OptionError(f"{what}: system {system!r} not found; have {', '.join(systems)}")
        return system
    if len(systems) != 1:
        raise OptionError(
            f"{what} holds {len(systems)} systems ({', '.join(systems)}); name one ({option} NAME)"
        )
    return systems[0]


def _weights(
    data: Trials | xr.Dataset, system: str, tasks: list[str], spec: WeightSpec
) -> NDArray[np.float64]:
    if not tasks:  # an empty count table: nothing to gate on (was a ZeroDivisionError)
        raise InputError(f"system {system!r} has no task: a gate needs runs of at least one task")
    if spec is None or spec == "equal":
        return np.full(len(tasks), 1.0 / len(tasks))
    ds = as_counts(data)
    w = task_weights(ds, spec).sel(system=system).to_series()
    w.index = w.index.astype(str)
    vals = w.reindex(tasks).to_numpy(dtype=float)
    total = float(np.nansum(vals))
    if not np.all(np.isfinite(vals)) or total <= 0:
        raise OptionError(f"system {system!r}: task weights must be finite with a positive sum")
    return vals / total


def block_rounds(
    data: Trials | xr.Dataset,
    *,
    k: int = 1,
    metric: str = "pass_hat_k",
    system: str | None = None,
    weights: WeightSpec = None,
    what: str = "the data",
    option: str = "--system",
) -> BlockRounds:
    """Cut one system's decided runs into rounds of k-run blocks (see the module docstring).

    Parameters
    ----------
    data : Trials or count table
        A count table works only for k = 1 with the same number of decided runs for
        every task (it carries no trial order).
    k : int
        Runs per block.
    metric : "pass_hat_k", "pass_at_k" or "mean"
        A block passes when all its runs pass, when any does; "mean" needs k = 1.
    system : str, optional
        Which system, when the data hold several.
    weights : None, "equal", "declared", "category" or mapping
        Task weights (:func:`passhat.estimators.task_weights`), normalised to sum 1.
    what, option : str
        How error messages name the input and the option that picks a system.

    Returns
    -------
    BlockRounds

    Raises
    ------
    InputError
        A count table with k > 1 or unequal runs per task.
    OptionError
        Several systems and none named; a bad k or metric.
    """
    check_k(k)
    if metric not in ("pass_hat_k", "pass_at_k", "mean"):
        raise OptionError(f"metric must be pass_hat_k, pass_at_k or mean (got {metric!r})")
    if metric == "mean" and k != 1:
        raise OptionError(f"the mean is a per-run metric: use k = 1 with it (got k = {k})")
    k = int(k)
    if isinstance(data, Trials):
        return _from_trials(
            data, k=k, metric=metric, system=system, weights=weights, what=what, option=option
        )
    ds = as_counts(data)
    sysname = pick_system([str(s) for s in ds["system"].values], system, what=what, option=option)
    one = ds.sel(system=sysname)
    present = np.asarray(one["present"].values, dtype=bool)
    tasks = [str(t) for t in one["task"].values[present]]
    n = np.asarray(one["n"].values, dtype=np.int64)[present]
    c = np.asarray(one["c"].values, dtype=np.int64)[present]
    if k != 1:
        raise InputError(
            f"{what}: a count table has no trial order, so it cannot be cut into blocks of "
            f"k = {k} runs; give the runs themselves (a trial table), or use k = 1"
        )
    if n.size and n.min() != n.max():
        raise InputError(
            f"{what}: a count table has no trial order and its tasks have {n.min()} to "
            f"{n.max()} decided runs; a gate uses the same number of runs of every task: "
            "give the runs themselves (a trial table) or equal runs per task"
        )
    rounds = int(n.min()) if n.size else 0
    return BlockRounds(
        system=sysname,
        tasks=tasks,
        k=1,
        rounds=rounds,
        passes=c,
        blocks=None,
        decided=n,
        unscored=int(np.asarray(one["unscored"].values)[present].sum()),
        weights=_weights(data, sysname, tasks, weights),
        top=rounds,
    )


def _from_trials(
    trials: Trials,
    *,
    k: int,
    metric: str,
    system: str | None,
    weights: WeightSpec,
    what: str,
    option: str,
) -> BlockRounds:
    frame = trials.frame
    sysname = pick_system(trials.systems, system, what=what, option=option)
    sub = frame[frame["system"] == sysname] if len(trials.systems) > 1 else frame
    tasks = [str(t) for t in pd.unique(sub["task_id"])]
    decided = sub["success"].notna().to_numpy()
    codes = pd.Categorical(sub["task_id"], categories=tasks).codes.astype(np.int64)[decided]
    success = sub["success"].to_numpy()[decided].astype(bool)
    trial = sub["trial"].to_numpy()[decided]
    order = np.lexsort((trial, codes))
    codes, success = codes[order], success[order]
    n = np.bincount(codes, minlength=len(tasks)).astype(np.int64)
    rounds = int((n // k).min()) if len(tasks) else 0
    top = int((n // k).max()) if len(tasks) else 0
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    rank = np.arange(codes.size) - starts[codes]
    lo, hi, complete = _block_bounds(codes, rank, success, len(tasks), top, k, metric)
    blocks = lo[:, :rounds]  # complete rounds: every block known
    return BlockRounds(
        system=sysname,
        tasks=tasks,
        k=k,
        rounds=rounds,
        passes=blocks.sum(axis=1).astype(np.int64),
        blocks=blocks,
        decided=n,
        unscored=int((~decided).sum()),
        weights=_weights(trials, sysname, tasks, weights),
        top=top,
        lo=lo,
        hi=hi,
        complete=complete,
    )


def _block_bounds(
    codes: NDArray[np.int64],
    rank: NDArray[np.int64],
    success: NDArray[np.bool_],
    tasks: int,
    top: int,
    k: int,
    metric: str,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Each block's lowest and highest possible outcome, and whether it is complete, for the
    first ``top`` blocks of every task (decided runs in trial order; ``rank`` within task)."""
    keep = rank < top * k
    block = codes[keep] * top + rank[keep] // k
    runs = np.bincount(block, minlength=tasks * top).reshape(tasks, top)
    wins = np.bincount(block, weights=success[keep], minlength=tasks * top).reshape(tasks, top)
    complete = runs == k
    if metric == "pass_at_k":  # one pass settles it; a fail needs all k
        lo = wins > 0.5
        hi = ~(complete & (wins < 0.5))
    else:  # pass^k (and the mean, k = 1): one failure settles it; a pass needs all k
        lo = complete & (wins > k - 0.5)
        hi = runs - wins < 0.5
    return lo, hi, complete
