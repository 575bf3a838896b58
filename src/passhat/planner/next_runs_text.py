"""Words of :func:`passhat.plan.next_runs`: each task's reason, the prior in a phrase, the two
precision numbers named apart, and the constants its explanation uses.

Pure wording over numbers :func:`~passhat.plan.next_runs` computed; the explanation itself is
written by :meth:`NextRuns.explain <passhat.planner.next_runs_result.NextRuns.explain>` from
the result's typed fields. The interval's half-widths are standard errors; the
root-mean-square error the batch minimises is an error given the outcomes so far (the two are
different quantities and :func:`two_numbers` says so).

Examples
--------
>>> from passhat.planner.next_runs_text import change
>>> change(0.87, 1.0), change(1.12, 1.0)
('−13%', '+12%')
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from passhat._format import pct
from passhat.planner.assumptions import Assumptions

__all__ = [
    "HEDGE_START",
    "NO_FLAKY",
    "PRIOR_Z",
    "change",
    "prior_text",
    "reasons",
    "two_numbers",
]

#: The answer when no task is flaky.
NO_FLAKY = "more runs will not change pass^k here; add tasks"
#: How the sentence saying why the runs were spread evenly begins.
HEDGE_START = "The prior of the task rates"
#: |z| of these runs' successes under a stated prior above which the output warns.
PRIOR_Z = 3.0


def prior_text(prior: Assumptions, stated: bool, no_flaky: bool) -> str:
    """The prior in one phrase, naming where it came from."""
    beta = f"Beta(μ={prior.mean:.3f}, κ={prior.kappa:.3g})"
    if not stated and not no_flaky:
        return f"{beta} fitted to these runs"
    return f"{beta}{' ' if prior.source.startswith('fitted to') else ', '}{prior.source}"


def two_numbers(
    label: str,
    scope: str,
    ci: float,
    var_now: float,
    errors: tuple[float, float, float],
    *,
    stated: bool,
) -> str:
    """The interval's standard error and the root-mean-square error, each named for what it is.

    The half-widths are z standard errors of the estimate: its spread over
    repeated runs (E[Var(estimate | p)] over each task's posterior; in the
    population scope over newly drawn tasks too). The root-mean-square error
    is the expected distance of this estimate from the true value *given the
    outcomes already seen* (the truth drawn from the posterior), which the
    batch minimises. Over the runs a prior produces the two agree on average;
    for one set of runs they differ: on the agents example the RMSE is
    smaller (the all-pass tasks' estimates err high, the flaky ones' low, and
    the errors partly cancel), under a stated prior far from the runs larger.
    """
    z = float(special.ndtri(0.5 + ci / 2))
    where = "these tasks" if scope == "benchmark" else "tasks like these"
    over = (
        "repeated runs of these tasks"
        if scope == "benchmark"
        else "repeated runs on newly drawn tasks"
    )
    rmse = np.sqrt(np.asarray(errors, dtype=float))
    return (
        f"Those half-widths are {z:.2f} standard errors ({np.sqrt(var_now):.4f} now), the "
        f"spread of the estimate over {over}. The batch minimises another number, the "
        "root-mean-square error given the outcomes so far (how far the estimate is expected "
        f"to lie from the true {label} of {where} under the {'stated' if stated else 'fitted'} "
        "prior, the errors of the runs already made included): "
        f"{rmse[0]:.4f} now, {rmse[1]:.4f} after the batch, {rmse[2]:.4f} after even runs; unlike "
        "the standard error it conditions on these runs' outcomes, so it may be smaller or larger."
    )


def change(after: float, now: float) -> str:
    """A relative change with its sign: −5%, +12%."""
    d = after / now - 1 if now > 0 else 0.0
    return ("+" if d > 0 else "−") + pct(abs(d), 0)


def reasons(
    status: np.ndarray,
    n: np.ndarray,
    c: np.ndarray,
    extra: np.ndarray,
    share: np.ndarray,
    mandatory: np.ndarray,
    kk: int,
    label: str,
) -> np.ndarray:
    """Each task's reason, written once per distinct (n, c, extra runs, share %, short)."""
    s100 = np.round(100 * share).astype(np.int64)
    key = np.stack([n, c, extra, s100, mandatory > 0], axis=1).astype(np.int64)
    if len(key) == 0:
        return _reason_texts(status, n, c, extra, s100, mandatory, kk, label)
    uniq, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    del uniq
    texts = _reason_texts(
        status[first], n[first], c[first], extra[first], s100[first], mandatory[first], kk, label
    )
    # the status is a function of (n, c) (see _status), so the distinct rows give every text
    return texts[inverse.reshape(-1)]


def _reason_texts(
    status: np.ndarray,
    n: np.ndarray,
    c: np.ndarray,
    extra: np.ndarray,
    s100: np.ndarray,
    mandatory: np.ndarray,
    kk: int,
    label: str,
) -> np.ndarray:
    counts = (
        pd.Series(c).astype(str).to_numpy(dtype=object)
        + "/"
        + pd.Series(n).astype(str).to_numpy(dtype=object)
    )
    runs = pd.Series(extra).astype(str).to_numpy(dtype=object) + np.where(
        extra == 1, " run", " runs"
    ).astype(object)
    shares = pd.Series(s100).astype(str).to_numpy(dtype=object)
    ordinary = (
        status.astype(object)
        + " ("
        + counts
        + " passed), "
        + runs
        + ", "
        + shares
        + "% of the variance more runs can remove"
    )
    short = (
        "too few runs ("
        + pd.Series(n).astype(str).to_numpy(dtype=object)
        + f" < k = {kk}), "
        + runs
        + f" so that it enters {label}"
    )
    return np.where(mandatory > 0, short, ordinary)


def method_text(hedge: Any, prior: Assumptions, *, stated: bool, no_flaky: bool, z: float) -> str:
    """How the batch was chosen: the greedy objective, the hedge (its choice), where (a, b)
    came from, and the widths' multiple of the standard error."""
    return (
        "greedy allocation by the expected reduction of the average estimate's squared "
        "error given the runs so far (per task exact sums over the new runs under the "
        "posterior Beta(a + c, b + n − c) of its rate; the tasks' biases add up), "
        + (
            "hedged against uniform runs (of the greedy batch, an even share plus "
            "greedy, and even runs, the one with the smallest worst ratio to even runs "
            f"over the (μ, κ) points: {hedge.choice}), "
            if hedge is not None and not stated
            else ""
        )
        + (
            f"(a, b) from the stated prior {prior_text(prior, stated, no_flaky)}, trusted: no hedge"
            if stated
            else f"(a, b) from {prior.source}"
        )
        + f"; widths ±{z:.2f}·sd of the variance"
    )
