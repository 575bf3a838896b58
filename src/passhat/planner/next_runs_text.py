"""The sentences :func:`passhat.plan.next_runs` writes: its reasoning and each task's reason.

Pure wording over numbers :func:`~passhat.plan.next_runs` computed: the interval now, after the
batch and after even runs, named as standard errors; the root-mean-square error the batch
minimises, named as an error given the outcomes so far (the two are different quantities and
the sentence says so); the prior and, for a stated one, how far these runs lie from it; why the
runs were spread evenly; the tasks that matter most; in the population scope, new tasks against
reruns.

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
    "write_sentences",
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


def _two_numbers(
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


def write_sentences(
    table: pd.DataFrame,
    label: str,
    scope: str,
    T: int,
    budget: int,
    width: dict[str, float],
    var_now: float,
    var_after: float,
    ci: float,
    no_flaky: bool,
    mandatory: int,
    between: float,
    tvr: dict[str, Any] | None,
    hedge: dict[str, Any] | None = None,
    errors: tuple[float, float, float] = (float("nan"),) * 3,
    prior_text: str = "",
    check: dict[str, float] | None = None,
    n_min: int = 0,
) -> list[str]:
    where = "these tasks (benchmark)" if scope == "benchmark" else "tasks like these (population)"
    out: list[str] = []
    if mandatory:
        out.append(
            f"{mandatory} of the {budget} runs go first to tasks with fewer runs than k: "
            f"without them those tasks have no {label} estimate."
        )
    if no_flaky:
        out.append(
            f"No task is flaky: every task passed all its runs or failed all of them, so "
            f"{NO_FLAKY.replace('pass^k', label)}. That rests on {n_min} run(s) per task at "
            f"fewest: such a task's rate may still lie up to {1 - 0.05 ** (1 / max(n_min, 1)):.0%}"
            " from the 1 or 0 its runs show (95% bound); more runs per task would show whether "
            "any task is flaky."
        )
    else:
        spread = int((table["extra_runs"] > 0).sum())
        out.append(
            f"The next {budget} runs on {spread} of {T} tasks are expected to "
            f"{'narrow' if width['after'] <= width['now'] else 'change'} the "
            f"{ci:.0%} interval of {label} for {where} from ±{width['now'] / 2:.4f} to "
            f"±{width['after'] / 2:.4f} (variance {change(var_after, var_now)}); the "
            f"same runs spread evenly: ±{width['uniform'] / 2:.4f}. "
            + _two_numbers(label, scope, ci, var_now, errors, stated=check is not None)
        )
        if check is not None:
            best = (
                ""
                if hedge is None or hedge["choice"] == "greedy"
                else " Under it, even runs are expected to do best."
                if hedge["choice"] == "uniform"
                else f" Under it, {hedge['even_runs']} run{'s' * (hedge['even_runs'] != 1)} per "
                "task first and the rest where they help most are expected to do best."
            )
            out.append(
                f"Prior of the task rates: {prior_text}; a stated prior is trusted: no hedge "
                f"(if it is wrong the batch can do worse than even runs).{best}"
            )
            if abs(check["z"]) > PRIOR_Z:
                out.append(
                    f"These runs do not look like the stated prior: mean success "
                    f"{check['mean_here']:.3f} here against μ = {check['mu']:.3f} (z = "
                    f"{check['z']:+.1f}); a wrong prior can make the batch far worse than even "
                    "runs, so check that the earlier runs are comparable, or leave the prior "
                    "out (fitted to these runs and hedged)."
                )
        else:
            out.append(f"Prior of the task rates: {prior_text}.")
        if hedge is not None and hedge["choice"] != "greedy" and check is None:
            how = (
                "so the runs are spread evenly"
                if hedge["choice"] == "uniform"
                else f"so every task gets {hedge['even_runs']} of them first and the rest go "
                "where they help most"
            )
            out.append(
                f"{HEDGE_START} fitted from these runs is uncertain enough that the "
                "batch aimed at the largest expected gain could be worse than even runs "
                f"(up to {hedge['worst_ratio_greedy']:.2f}× their squared error under a "
                f"plausible prior, {hedge['mean_ratio_greedy']:.2f}× on average), {how}."
            )
        top = table[table["status"] != "too few runs"].head(3)
        for r in top.itertuples():
            out.append(f"Task {r.task}: {r.reason}.")
    if scope == "population" and tvr is not None and T:
        floor = between / T
        out.append(
            f"Which tasks were sampled adds a variance of {floor:.2e} that no number of runs "
            f"removes ({pct(floor / var_now, 0)} of today's)."
        )
        nt, per = tvr["new_tasks"], tvr["runs_per_new_task"]
        need = tvr["tasks_to_match_reruns"]
        match = "task already matches" if need == 1 else "tasks already match"
        if tvr["free_runs"] and (tvr["tasks_beat_runs"] or no_flaky):
            out.append(
                f"Adding tasks beats adding runs: {nt} new tasks × {per} runs would bring the "
                f"variance to {tvr['variance_new_tasks']:.2e}, against "
                f"{tvr['variance_reruns']:.2e} from the reruns"
                + (f"; {need} new {match} the reruns." if need is not None else ".")
            )
        elif tvr["free_runs"]:  # no free runs: nothing to weigh against new tasks
            out.append(
                f"Reruns beat new tasks here: {nt} new tasks × {per} runs would bring the "
                f"variance only to {tvr['variance_new_tasks']:.2e} (reruns: "
                f"{tvr['variance_reruns']:.2e})"
                + (
                    f"; matching the reruns would take {need} new tasks ({need * per} runs)."
                    if need is not None
                    else "."
                )
            )
    return out
