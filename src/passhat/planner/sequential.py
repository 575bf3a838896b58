"""Anytime-valid gates: pass, fail or continue, valid however often the data are checked.

:func:`sequential` answers a release gate from the runs so far, and can be called again
after every batch: its error rates hold at whatever point the user stops. Two questions:

* **a failure bound** (``max_failure_rate=f₀``): is the benchmark's failure rate of the
  metric — 1 − pass^k, the chance that a task fails at least one of k runs, averaged over
  these tasks (1 − pass@k: fails all k; with k = 1, the per-run failure rate 1 − mean) —
  below f₀ (pass) or above it (fail)?
* **a baseline** (``margin=δ``): is the candidate's pass^k (or pass@k, mean) over these
  tasks at most δ below the baseline's (pass), or more than δ below it (fail)?

The data are cut into rounds (:mod:`~passhat.planner.rounds`): round r holds every task's
r-th block of k decided runs (in a comparison, paired with the baseline's r-th block of
the same task). Round means are independent across rounds with expectation the benchmark
value, so the wealth of a mixture of constant bets (:mod:`~passhat.planner.betting`) is a
nonnegative supermartingale under the null at the end of every complete round; Ville's
inequality bounds the chance that it ever reaches 1/α by α. Each decision is therefore a
sequential test at level α:

* P(pass) ≤ α when the true rate is ≥ f₀ (or the candidate is more than δ worse);
* P(fail) ≤ α when the true rate is ≤ f₀ (or the candidate is at most δ worse);

however many times the gate is called and whenever the caller stops. The confidence
sequence [lower, upper] holds each of its sides with probability ≥ 1 − α at all rounds at
once. A fixed-n test (the planner's ``runs_to_certify``, a paired sign test) gives none of
this: checked after every run up to 1,000 runs of a stream with the failure rate exactly at
the bound 5%, the planner's exact 5% bound "passes" 24% of such streams, and this gate 3%
(``reports/gates/README.md``; ``tests/planner/test_betting.py`` checks it).

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> runs = pd.DataFrame({"task_id": [f"t{i}" for i in range(10)] * 40,
...                      "trial": [r for r in range(40) for _ in range(10)],
...                      "success": True})
>>> g = ph.plan.sequential(ph.Trials.from_frame(runs), k=1, max_failure_rate=0.05)
>>> g.decision, g.rounds, g.exit_code
('pass', 40, 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat.errors import InputError, OptionError
from passhat.estimators import WeightSpec
from passhat.inputs import name_systems
from passhat.planner.betting import Side, bounds, further_steps, log_evalue
from passhat.planner.result import _prob
from passhat.planner.rounds import BlockRounds, block_rounds
from passhat.planner.sequential_result import EXIT_CODES, Decision, GateBuild, SequentialResult
from passhat.trials import Trials, provenance

__all__ = ["EXIT_CODES", "SequentialResult", "sequential"]

#: Why a gate with a baseline refuses count tables.
_NEEDS_TRIALS = (
    "a comparison with a baseline pairs the r-th runs of each task in both builds, so it "
    "needs trial tables (runs in order), not count tables"
)


def _kinds(
    per_task: NDArray[np.float64], values: NDArray[np.float64], scale: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Counts per (task scale, value): the e-value depends on nothing else."""
    cls, inv = np.unique(np.round(scale, 12), return_inverse=True)
    counts = np.zeros((cls.size, values.size))
    np.add.at(counts, inv, per_task)
    return (
        np.tile(values, cls.size),
        np.repeat(cls, values.size),
        counts.ravel(),
    )


def sequential(
    runs: Trials | xr.Dataset,
    baseline: Trials | xr.Dataset | None = None,
    *,
    k: int = 1,
    metric: str = "pass_hat_k",
    max_failure_rate: float | None = None,
    margin: float | None = None,
    alpha: float = 0.05,
    system: str | None = None,
    baseline_system: str | None = None,
    weights: WeightSpec = None,
    sources: tuple[str, str] | None = None,
) -> SequentialResult:
    """Decide a release gate from the runs so far: pass, fail or continue (anytime-valid).

    Give exactly one of ``max_failure_rate`` (a bound on the failure rate of ``runs``)
    or ``margin`` (a comparison with a baseline: ``baseline`` runs, or
    ``baseline_system`` inside ``runs``). Call it again after every batch of runs: the
    error rates below hold however often it is called (see the module docstring).

    Parameters
    ----------
    runs : Trials or count table
        The candidate's runs. A count table works only for k = 1 with equal runs per
        task and without a baseline (a gate needs trial order to cut blocks and pairs).
    baseline : Trials, optional
        The baseline's runs of the same tasks (one system, or name it with
        ``baseline_system``).
    k : int
        Runs per block: the gate bounds pass^k (or pass@k) of k-run blocks.
    metric : "pass_hat_k", "pass_at_k" or "mean"
        A block fails when any of its k runs fails (pass^k), when all do (pass@k); "mean"
        is the per-run rate (k = 1; the three coincide there).
    max_failure_rate : float in (0, 1), optional
        Pass when the benchmark failure rate (1 − metric) is shown below this; fail when
        shown above it.
    margin : float in [0, 1), optional
        Pass when the candidate's metric is shown at most ``margin`` below the
        baseline's; fail when shown more than ``margin`` below it. With 0 the gate
        passes only a candidate shown better.
    alpha : float in (0, 1)
        P(pass) ≤ α under the null of "pass", and P(fail) ≤ α under that of "fail".
    system, baseline_system : str, optional
        Which system of ``runs`` is the candidate; which is the baseline (in ``runs``
        when ``baseline`` is not given, else in ``baseline``).
    weights : None, "equal", "declared", "category" or mapping
        Task weights (the candidate's; :func:`passhat.estimators.task_weights`).
    sources : (str, str), optional
        How error messages name the candidate's and the baseline's input (e.g. their
        file names); "the data" and "the baseline" by default.

    Returns
    -------
    SequentialResult
        ``decision``, ``exit_code`` (0/1/3), e-values, the confidence sequence, and the
        further runs expected to decide if the estimate holds.

    Raises
    ------
    OptionError
        Both or neither of ``max_failure_rate`` and ``margin``; values out of range; a
        system not named or not found.
    InputError
        A count table where trial order is needed; builds with different tasks.

    References
    ----------
    .. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables
       by betting", *J. R. Stat. Soc. B* 86(1), 1–27 (2024).
    .. [2] A. Ramdas, P. Grünwald, V. Vovk and G. Shafer, "Game-theoretic statistics and
       safe anytime-valid inference", *Statist. Sci.* 38(4), 576–601 (2023).

    Examples
    --------
    >>> import passhat as ph
    >>> agents = ph.load_example("agents")
    >>> g = ph.plan.sequential(agents, baseline_system="baseline", system="guided",
    ...                        margin=0.02, k=1)
    >>> g.decision, g.rounds
    ('pass', 5)
    """
    a = _prob("alpha", alpha)
    what, base_what = sources if sources is not None else ("the data", "the baseline")
    if max_failure_rate is None and margin is None:
        raise OptionError(
            "give {param} (a bound on 1 − pass^k) or {margin} with a baseline",
            param="max_failure_rate",
            also=("margin",),
        )
    if max_failure_rate is not None and margin is not None:
        raise OptionError(
            "give one of {param} (a bound on the failure rate) and {margin} (how far below a "
            "baseline the candidate may be), not both",
            param="max_failure_rate",
            also=("margin",),
        )
    with_baseline = baseline is not None or baseline_system is not None
    source = {"runs": provenance(runs)}
    if max_failure_rate is not None:
        if with_baseline:
            raise OptionError(
                "{param} bounds one system; to compare with a baseline give {margin}",
                param="max_failure_rate",
                also=("margin",),
            )
        f0 = _prob("max_failure_rate", max_failure_rate)
        cand = block_rounds(runs, k=k, metric=metric, system=system, weights=weights, what=what)
        return _bound_gate(cand, f0, a, metric, source=source)
    d = _prob("margin", margin, closed_low=True)
    if not with_baseline:
        raise OptionError(
            "{param} compares with a baseline: give its runs ({baseline}) or its system "
            "({baseline_system})",
            param="margin",
            also=("baseline", "baseline_system"),
        )
    if baseline is not None:
        source["baseline"] = provenance(baseline)
        (runs, baseline), _ = name_systems([runs, baseline], clashes=False)  # files named
    if baseline is None:
        base_src, cand_src = runs, runs
        if system is None and isinstance(runs, Trials):
            others = [s for s in runs.systems if s != baseline_system]
            system = others[0] if len(others) == 1 else None
    else:
        base_src, cand_src = baseline, runs
    for src in (base_src, cand_src):
        if not isinstance(src, Trials):
            raise InputError(_NEEDS_TRIALS)
    base = block_rounds(
        base_src,
        k=k,
        metric=metric,
        system=baseline_system,
        what=base_what if baseline is not None else what,
        option="--baseline-system",
    )
    cand = block_rounds(cand_src, k=k, metric=metric, system=system, weights=weights, what=what)
    if baseline is None and base.system == cand.system:
        raise OptionError(
            f"baseline and candidate are the same system ({cand.system!r}); name the candidate"
        )
    return _baseline_gate(base, cand, d, a, metric, source=source)


@dataclass(frozen=True)
class _Looks:
    """What the e-values see of the data: the kinds of observation (value, scale) and, for
    each look (the complete rounds; every decided run up to the rounds reached), the counts
    each side of the test sees — an open block counted against that side (its lowest value
    for ``"above"``, its highest for ``"below"``).

    Every look's wealth is at most the wealth the completed data would give at its round,
    a supermartingale under the null, so the largest over the looks crosses 1/α with
    probability at most α (Ville's inequality), however often the gate is called.
    """

    values: NDArray[np.float64]
    scale: NDArray[np.float64]
    above: list[NDArray[np.float64]]  # counts seen by the "above" side, one per look
    below: list[NDArray[np.float64]]
    per_round: NDArray[np.float64] | None  # kinds per complete round (the projection)
    rounds: list[int]  # the round of each look


def _decide(
    looks: _Looks, *, null: float, pass_side: Side, alpha: float, lo: float, hi: float
) -> tuple[Decision, float, float, float, float, int | None, Decision | None]:
    """The decision from the largest e-value of each side over the looks, the confidence
    sequence (each bound the tightest over the looks) and the projection from the last look."""
    v, sc = looks.values, looks.scale
    seen = {"above": looks.above, "below": looks.below}
    fail_side: Side = "above" if pass_side == "below" else "below"

    def best(side: Side) -> float:
        return max(
            log_evalue(v, c, null=null, side=side, scale=sc, lo=lo, hi=hi) for c in seen[side]
        )

    le_pass, le_fail = best(pass_side), best(fail_side)
    target = math.log(1 / alpha)
    decision: Decision = (
        "pass"
        if le_pass >= target and le_fail < target
        else "fail"
        if le_fail >= target
        else "continue"
    )
    lower = max(
        (bounds(v, c, alpha=alpha, scale=sc, lo=lo, hi=hi)[0] for c in looks.above if c.sum()),
        default=lo,
    )
    upper = min(
        (bounds(v, c, alpha=alpha, scale=sc, lo=lo, hi=hi)[1] for c in looks.below if c.sum()),
        default=hi,
    )
    steps: int | None = None
    projected: Decision | None = None
    if decision == "continue" and looks.per_round is not None and looks.per_round.sum() > 0:
        for side in ("above", "below"):  # the side that decides first (ties: this order)
            r, got = further_steps(
                v,
                seen[side][-1],
                looks.per_round,
                null=null,
                sides=(side,),
                alpha=alpha,
                scale=sc,
                lo=lo,
                hi=hi,
            )
            if r is not None and (steps is None or r < steps):
                steps, projected = r, "pass" if got == pass_side else "fail"
    e_pass, e_fail = (math.exp(x) if x < 709.0 else math.inf for x in (le_pass, le_fail))
    return decision, e_pass, e_fail, lower, upper, steps, projected


def _build(b: BlockRounds, top: int) -> GateBuild:
    """What the words need of one build's rounds (``top``: the rounds the gate reached)."""
    shortest = int(np.argmin(b.decided)) if len(b.decided) else 0
    missing = b.missing(top) if top > b.rounds else np.zeros(len(b.tasks), dtype=np.int64)
    return GateBuild(
        system=b.system,
        k=b.k,
        rounds=b.rounds,
        unscored=int(b.unscored),
        set_aside=int(b.decided.sum()) - b.used_to(top),
        decided_min=int(b.decided.min()) if len(b.decided) else 0,
        decided_max=int(b.decided.max()) if len(b.decided) else 0,
        shortest_task=str(b.tasks[shortest]) if len(b.tasks) else "",
        top=top,
        reruns=tuple((str(b.tasks[i]), int(missing[i])) for i in np.flatnonzero(missing)),
    )


def _complete(b: BlockRounds, top: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per task, its complete blocks among the first ``top`` and the passing ones."""
    if b.complete is None or b.lo is None:  # a count table: every round complete
        return np.full(len(b.tasks), float(b.rounds)), b.passes.astype(float)
    done = b.complete[:, :top]
    return done.sum(axis=1).astype(float), (done & b.lo[:, :top]).sum(axis=1).astype(float)


def _bound_looks(cand: BlockRounds, scale: NDArray[np.float64]) -> _Looks:
    """Failing blocks per task (value 1) at the complete rounds, and with every decided run
    up to the rounds reached (an open block fails for the pass side, passes for the fail
    side)."""
    R, top = cand.rounds, cand.top
    vals = np.array([0.0, 1.0])

    def counts(fails: NDArray[np.float64], r: int) -> NDArray[np.float64]:
        return _kinds(np.stack([r - fails, fails], axis=1), vals, scale)[2]

    exact = counts((R - cand.passes).astype(float), R)
    values, kinds_scale, _ = _kinds(np.zeros((len(cand.tasks), 2)), vals, scale)
    above, below, rounds = [exact], [exact], [R]
    if top > R and cand.lo is not None and cand.hi is not None:
        above.append(counts((top - cand.hi.sum(axis=1)).astype(float), top))
        below.append(counts((top - cand.lo.sum(axis=1)).astype(float), top))
        rounds.append(top)
    per_round = exact / R if R else None
    return _Looks(values, kinds_scale, above, below, per_round, rounds)


def _bound_gate(
    cand: BlockRounds, f0: float, alpha: float, metric: str, *, source: dict[str, dict[str, str]]
) -> SequentialResult:
    T, R, k, top = len(cand.tasks), cand.rounds, cand.k, max(cand.top, cand.rounds)
    looks = _bound_looks(cand, T * cand.weights)
    decision, e_pass, e_fail, lower, upper, steps, projected = _decide(
        looks, null=f0, pass_side="below", alpha=alpha, lo=0.0, hi=1.0
    )
    n, wins = _complete(cand, top)
    fail = (n - wins) / np.maximum(n, 1)  # per task, over its complete blocks
    # a weighted mean lies between its values: clip away rounding (ten weights of 0.1 sum to
    # 0.9999999999999999, and an all-fail benchmark read as 100.000000000000%)
    estimate = (
        float(np.clip(np.dot(cand.weights, fail), fail.min(), fail.max())) if R else float("nan")
    )
    return SequentialResult(
        decision=decision,
        mode="bound",
        metric=metric,
        k=k,
        alpha=alpha,
        null=f0,
        estimate=estimate,
        lower=lower,
        upper=upper,
        e_pass=e_pass,
        e_fail=e_fail,
        rounds=R,
        tasks=T,
        runs_used=cand.used_to(top),
        runs_set_aside=int(cand.decided.sum()) - cand.used_to(top),
        further_rounds=steps,
        further_runs=None if steps is None else cand.runs_to_reach(top + steps),
        projected=projected,
        candidate=_build(cand, top),
        source=source,
    )


def _same_tasks(base: BlockRounds, cand: BlockRounds) -> None:
    """A comparison needs the same tasks in both builds (and trial order)."""
    only_b = sorted(set(base.tasks) - set(cand.tasks))
    only_c = sorted(set(cand.tasks) - set(base.tasks))
    if only_b or only_c:
        parts = []
        if only_b:
            parts.append(f"{len(only_b)} only in the baseline ({', '.join(only_b[:5])})")
        if only_c:
            parts.append(f"{len(only_c)} only in the candidate ({', '.join(only_c[:5])})")
        raise InputError(
            "a gate compares the same tasks in both builds; tasks differ: " + "; ".join(parts)
        )
    if base.blocks is None or cand.blocks is None:  # count tables have no trial order
        raise InputError(_NEEDS_TRIALS)


def _pair_looks(
    base: BlockRounds, cand: BlockRounds, idx: NDArray[np.intp], top: int, scale: Any
) -> _Looks:
    """Paired differences (candidate − baseline block: −1, 0, +1) per task at the complete
    rounds both builds have, and up to ``top`` with every decided run (an open block counted
    against each side: the smallest difference it allows for "above", the largest for
    "below")."""
    R = min(base.rounds, cand.rounds)
    vals = np.array([-1.0, 0.0, 1.0])

    def counts(diff: NDArray[np.int8]) -> NDArray[np.float64]:
        per_task = np.stack([(diff == v).sum(axis=1) for v in (-1, 0, 1)], axis=1)
        return _kinds(per_task.astype(float), vals, scale)[2]

    if base.blocks is None or cand.blocks is None:  # trial tables carry blocks (_same_tasks)
        raise RuntimeError("the paired gate on unequal runs needs both builds' run blocks")
    exact = counts(cand.blocks[:, :R].astype(np.int8) - base.blocks[idx, :R].astype(np.int8))
    values, kinds_scale, _ = _kinds(np.zeros((len(cand.tasks), 3)), vals, scale)
    above, below, rounds = [exact], [exact], [R]
    if top > R and base.lo is not None and base.hi is not None:
        if cand.lo is None or cand.hi is None:  # trial tables both (_same_tasks)
            raise RuntimeError("the candidate's open blocks are missing beside the baseline's")
        c_lo, c_hi = cand.lo[:, :top].astype(np.int8), cand.hi[:, :top].astype(np.int8)
        b_lo, b_hi = base.lo[idx, :top].astype(np.int8), base.hi[idx, :top].astype(np.int8)
        above.append(counts(c_lo - b_hi))
        below.append(counts(c_hi - b_lo))
        rounds.append(top)
    return _Looks(values, kinds_scale, above, below, exact / R if R else None, rounds)


def _baseline_gate(
    base: BlockRounds,
    cand: BlockRounds,
    margin: float,
    alpha: float,
    metric: str,
    *,
    source: dict[str, dict[str, str]],
) -> SequentialResult:
    _same_tasks(base, cand)
    T, k = len(cand.tasks), cand.k
    R = min(base.rounds, cand.rounds)
    top = max(min(base.top, cand.top), R)
    idx = pd.Index(base.tasks).get_indexer(cand.tasks)
    looks = _pair_looks(base, cand, idx, top, T * cand.weights)
    decision, e_pass, e_fail, lower, upper, steps, projected = _decide(
        looks, null=-margin, pass_side="above", alpha=alpha, lo=-1.0, hi=1.0
    )
    further = None
    if steps is not None:
        further = cand.runs_to_reach(top + steps) + base.runs_to_reach(top + steps)
    used = cand.used_to(top) + base.used_to(top)
    (nc, wc), (nb, wb) = _complete(cand, top), _complete(base, top)
    diff = wc / np.maximum(nc, 1) - (wb / np.maximum(nb, 1))[idx]  # each over its complete blocks
    return SequentialResult(
        decision=decision,
        mode="baseline",
        metric=metric,
        k=k,
        alpha=alpha,
        null=-margin,
        estimate=float(np.dot(cand.weights, diff)) if R else float("nan"),
        lower=lower,
        upper=upper,
        e_pass=e_pass,
        e_fail=e_fail,
        rounds=R,
        tasks=T,
        runs_used=used,
        runs_set_aside=int(base.decided.sum() + cand.decided.sum()) - used,
        further_rounds=steps,
        further_runs=further,
        projected=projected,
        candidate=_build(cand, top),
        baseline=_build(base, top),
        source=source,
    )
