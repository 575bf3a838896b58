"""The words of the model package: notes, method lines and explanations, in one place.

Every sentence a fit shows (the CLI's ``passhat fit``, a notebook, ``repr``, the JSON
``notes``) is written here from typed values: counts, names, table rows. The computing
modules (:mod:`~passhat.model.fit`, :mod:`~passhat.model.joint_fit`) call these functions for
the notes they record in the fit; the result modules (:mod:`~passhat.model.fit_summary`,
:mod:`~passhat.model.joint_summary`) for what they show.

Examples
--------
>>> interval({"mean": 0.5, "lower": 0.25, "upper": 0.75})
'0.500 [0.250, 0.750]'
>>> method_note("grid", "auto", "beta")[:52]
'method: exact grid quadrature on (logit μ, log κ) (t'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from passhat.exclusions import weight_zero_notes
from passhat.intervals import outside_mask

__all__ = [
    "BENCHMARK_RULE",
    "JOINT_SCOPES_NOTE",
    "LOO_NOTE",
    "MODEL_LABELS",
    "MODEL_SHORT",
    "ONE_TASK_NOTE",
    "SCOPES_NOTE",
    "SHAPE_WEIGHT",
    "SHAPE_WHAT",
    "diagnostics_line",
    "disagreement_line",
    "dispersion_line",
    "extrapolation_line",
    "imh_label",
    "interval",
    "joint_cell_notes",
    "joint_diagnostics_line",
    "loo_sentence",
    "mean_outside_note",
    "method_label",
    "method_note",
    "rules_line",
    "saved_note",
    "shape_line",
    "task_effects_line",
    "unscored_task_notes",
    "weight_zero_task_notes",
    "weights_line",
]

#: What the two scopes and the variance split of a single-system fit's table mean.
SCOPES_NOTE = (
    "benchmark = these tasks, uncertainty from the finite runs per task only; "
    "population = the expected value over tasks like these, adding task sampling. "
    "runs can remove = the share of the population-scope posterior variance that "
    "unlimited runs on these tasks would remove (law of total variance given their "
    "rates); the rest comes from which tasks were sampled and only more tasks reduce "
    "it. `passhat plan more-runs` gives the expected width after m more runs."
)

#: What the two scopes of a joint fit's table mean, and where the comparisons are.
JOINT_SCOPES_NOTE = (
    "benchmark = these tasks (cells a system did not run predicted from the task's "
    "effect); population = a new task like these. Intervals are marginal, one system "
    "at a time. Pairwise differences and rank probabilities: passhat.JointFit."
    "differences / rank_table, or `passhat rank`."
)


#: What a comparison by PSIS-LOO of fits of a pass/fail table asks.
LOO_NOTE = (
    "The pointwise log-likelihood is one term per task, so LOO asks how well each model "
    "predicts a left-out task."
)


def loo_sentence(best: Mapping[str, Any], other: Mapping[str, Any]) -> str:
    """Which model predicts left-out tasks better for one system, and whether clearly (the
    ELPD difference beyond twice its standard error); rows of a comparison table."""
    clear = float(other["elpd_diff"]) > 2 * float(other["dse"])
    return (
        f"{best['system']}: the {best['model']} model predicts left-out tasks "
        + ("better" if clear else "about as well")
        + f" (ELPD difference {float(other['elpd_diff']):.1f} ± {float(other['dse']):.1f})."
    )


def interval(row: Mapping[str, Any]) -> str:
    """A posterior mean with its interval, ``0.766 [0.751, 0.782]`` (a summary row)."""
    return f"{row['mean']:.3f} [{row['lower']:.3f}, {row['upper']:.3f}]"


#: Each single-system model in words.
MODEL_LABELS = {
    "beta": "Beta-Binomial",
    "inflated": "zero/one-inflated Beta-Binomial",
    "discrete": "discrete mixing distribution (Bayesian bootstrap of the NPMLE)",
    "auto": "stacked Beta / inflated / discrete (exact LOO)",
}
#: Short names of the models, as the model-weight line and the warnings show them.
MODEL_SHORT = {"beta": "Beta", "inflated": "inflated", "discrete": "discrete", "auto": "stacked"}


def method_label(model: str, method: str, sampler: str) -> str:
    """Human-readable method of a single-system fit, as its tables show it.

    Examples
    --------
    >>> method_label("beta", "nuts", "nutpie")
    'posterior, Beta-Binomial, NUTS (nutpie)'
    """
    m = MODEL_LABELS.get(model, model)
    how = "grid quadrature" if method == "grid" else f"NUTS ({sampler})"
    return f"posterior, {m}, {how}"


def method_note(ran: str, asked: str | None, model: str) -> str:
    """One line saying which method computed the posterior, and how to get the other.

    ``asked`` is the method requested (``"auto"``: the line says it was the default).
    """
    why = " (the default)" if asked == "auto" else ""
    if ran == "grid":
        how = {
            "beta": "exact grid quadrature on (logit μ, log κ)",
            "inflated": "grid quadrature on (logit μ, log κ_e, logit π_B, logit π₁/(π₁ + π₀))",
            "discrete": "the Bayesian bootstrap over tasks of the NPMLE on a grid of p",
            "auto": "each model on its grid, stacked by exact leave-one-task-out",
        }[model]
        other = (
            "--method nuts samples the same posterior with NUTS."
            if model in ("beta", "inflated")
            else "no sampler is needed."
        )
        return f"method: {how}{why}; {other}"
    return f"method: NUTS{why}; --method grid computes this model on its grid, without compiling."


def saved_note(output: str) -> str:
    """The line saying where the posterior was saved."""
    return f"posterior saved to {output} (load with passhat.load_fit)"


def diagnostics_line(
    system: str, status: str, *, method: str, table: pd.DataFrame, divergences: int
) -> str:
    """One system's diagnostics: its status, then the worst R-hat, ESS and the divergences
    (a grid fit: its ESS only; its draws are independent)."""
    if method == "grid":
        detail = f"independent draws from the grid, min ESS bulk {table['ess_bulk'].min():.0f}"
    else:
        detail = (
            f"max r_hat {table['r_hat'].max():.3f}, min ESS bulk {table['ess_bulk'].min():.0f} / "
            f"tail {table['ess_tail'].min():.0f}, {divergences} divergences"
        )
    return f"diagnostics {system}: {status} ({detail})"


def joint_diagnostics_line(status: str, table: pd.DataFrame, divergences: int | None) -> str:
    """The joint fit's diagnostics: status, worst R-hat, ESS, divergences (``None``: a sampler
    without trajectories, which has none to count).

    Examples
    --------
    >>> t = pd.DataFrame({"r_hat": [1.001], "ess_bulk": [2100.0], "ess_tail": [2500.0]})
    >>> joint_diagnostics_line("ok", t, None).split(", ")[-1]
    'no divergences to count: independence MH)'
    """
    counted = (
        "no divergences to count: independence MH"
        if divergences is None
        else f"{divergences} divergences"
    )
    return (
        f"diagnostics: {status} (max r_hat {table['r_hat'].max():.3f}, min ESS bulk "
        f"{table['ess_bulk'].min():.0f} / tail {table['ess_tail'].min():.0f}, {counted})"
    )


def task_effects_line(parameters: pd.DataFrame, correlation: pd.DataFrame) -> str:
    """The joint fit's task effects, its system × task deviation and the correlations."""
    sd = parameters[parameters["parameter"] == "task_sd"].iloc[0]
    kap = parameters[parameters["parameter"] == "kappa"]
    deviation = f"κ = {interval(kap.iloc[0])}" if len(kap) else "none (Rasch form, κ = ∞)"
    r = correlation["mean"]
    return (
        f"task effects: σ_β = {interval(sd)} (logit scale); system × task deviation: "
        f"{deviation}; between-system correlation of per-task rates: mean over "
        f"{len(correlation)} pair(s) {r.mean():.2f} (range {r.min():.2f}–{r.max():.2f})"
    )


def dispersion_line(disp: pd.DataFrame, model: str) -> str:
    """One line on the posterior predictive check of the cells' spread (a joint fit)."""
    total = disp[disp["system"] == "(all)"].iloc[0]
    low = disp[(disp["system"] != "(all)") & (disp["p_value"] < 0.05)]["system"].tolist()
    what = (
        "X² of the cells given each task's total" if model == "rasch" else "Pearson X² of the cells"
    )
    text = (
        f"dispersion check ({what}, observed against replicated): p = "
        f"{total['p_value']:.3f} over all systems"
    )
    if low:
        text += f"; p < 0.05 for {', '.join(repr(s) for s in low)}"
    if model == "rasch" and (low or total["p_value"] < 0.05):
        text += (
            ": the counts vary more than the Rasch form allows (a system × task deviation, "
            "which moves pass^k and widens the intervals of differences): fit --model joint"
        )
    return text


def mean_outside_note(summary: pd.DataFrame) -> list[str]:
    """The note that says which posterior means lie outside their equal-tailed interval, and why.

    A posterior of pass^k (or pass@k) near 0 (or 1) is so skewed that its mean
    can lie beyond the interval's end: e.g. one task with 0 of 9 runs at k = 9,
    whose benchmark pass^9 has posterior mean 6e-7 and 95% interval 0–1.7e-7.
    Both are right; the output says so instead of leaving it for the reader.

    Parameters
    ----------
    summary : pandas.DataFrame
        From :meth:`passhat.Fit.summary` (``system``, ``metric``, ``k``,
        ``scope``, ``mean``, ``lower``, ``upper``, ``ci``).

    Returns
    -------
    list of str
        Empty when every interval contains its mean; else one sentence.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["s"], "metric": ["pass_hat_k"], "k": [9],
    ...                   "scope": ["benchmark"], "mean": [6e-7], "lower": [0.0],
    ...                   "upper": [1.7e-7], "ci": [0.95]})
    >>> mean_outside_note(t)[0][:58]
    '1 posterior mean(s) lie outside their interval, e.g. s pas'
    """
    if summary.empty:
        return []
    out = outside_mask(summary["mean"], summary["lower"], summary["upper"], tol=0.0)
    if not out.any():
        return []
    r = summary[out].iloc[0]
    label = str(r["metric"]).replace("pass_hat_k", "pass^").replace("pass_at_k", "pass@")
    label += "" if r["metric"] in ("mean", "icc") else str(int(r["k"]))
    return [
        f"{int(out.sum())} posterior mean(s) lie outside their interval, e.g. {r['system']} "
        f"{label} ({r['scope']}): mean {float(r['mean']):.3g} against {float(r['lower']):.3g}–"
        f"{float(r['upper']):.3g}. The posterior is so skewed (a rate near 0 or 1 raised to "
        f"the power k) that its mean lies beyond the end of the central {float(r['ci']):.0%} "
        "interval; both are correct, and the interval is the one to read."
    ]


def unscored_task_notes(rule: str, count: int, shown: Sequence[tuple[str, str]]) -> list[str]:
    """What a single-system fit says about its ``count`` tasks with no decided run.

    ``shown``: (task, system) of the first few of them, in order.

    Examples
    --------
    >>> unscored_task_notes("exclude", 1, [("t4", "A")])[0][:60]
    '1 task(s) have no decided run (every run unscored) and are l'
    >>> unscored_task_notes("exclude", 0, [])
    []
    """
    if not count:
        return []
    if rule == "impute":
        return [
            f"{count} task(s) have no decided run (every run unscored): kept in the benchmark "
            "scope with their rates drawn from the fitted distribution (unscored_tasks='impute'; "
            "estimate leaves them out)"
        ]
    names = ", ".join(f"{task} ({system})" for task, system in shown[:5])
    return [
        f"{count} task(s) have no decided run (every run unscored) and are left out of the "
        f"benchmark scope: {names}{' ...' if count > 5 else ''} (unscored_tasks='exclude', "
        "the default of estimate and fit; 'impute' keeps them with rates drawn from the "
        "fitted distribution)"
    ]


def weight_zero_task_notes(named: Sequence[tuple[str, Sequence[str]]], systems: int) -> list[str]:
    """The tasks of weight 0, named once (with their systems when not every system's).

    ``named``: each such task with the systems that gave it weight 0; ``systems``: how many
    systems the fit has.

    Examples
    --------
    >>> weight_zero_task_notes([("c", ["A"])], systems=2)[0][-9:]
    'nt: c (A)'
    """
    shown = [task if len(who) == systems else f"{task} ({', '.join(who)})" for task, who in named]
    return weight_zero_notes(shown)


def joint_cell_notes(*, left_out: int, not_run: int, window_edge: float, rasch: bool) -> list[str]:
    """What a joint fit says about its cells: left out (no decided run), not run, and a
    quadrature that ends where the integrand is not yet negligible.

    Examples
    --------
    >>> joint_cell_notes(left_out=0, not_run=2, window_edge=0.0, rasch=False)[0][:40]
    '2 (system, task) cell(s) were not run: e'
    """
    notes = []
    if left_out:
        notes.append(
            f"{left_out} (system, task) cell(s) have no decided run (every run unscored) and are "
            "left out of the likelihood (unscored_tasks='exclude')"
        )
    if not_run:  # an unscored-only cell was run: it is counted above, not here
        notes.append(
            f"{not_run} (system, task) cell(s) were not run: each task effect is estimated from "
            "the systems that ran it; benchmark-scope values predict the missing cells from it"
        )
    if window_edge > 1e-4:
        notes.append(
            f"the quadrature {'grid' if rasch else 'windows'} over the task effects end where a "
            "task's integrand is still "
            f"{window_edge:.1e} of its peak at some posterior draws (expected < 1e-6): the "
            "likelihood is truncated; please report this data set"
        )
    return notes


#: A model that fails the shape check is a warning when it carries at least this stacking
#: weight (a one-model fit: weight 1); below it the stacked numbers hardly depend on it.
SHAPE_WEIGHT = 0.1
#: What the shape check is, in one clause.
SHAPE_WHAT = "histogram of successes per task against the model's prediction, G statistic"


def weights_line(system: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """A stacked fit's models for one system, best first: stacking weights, and how.

    Examples
    --------
    >>> weights_line("A", [{"model": "discrete", "weight": 0.97}, {"model": "beta",
    ...                                                            "weight": 0.03}])[:35]
    'models A: discrete 0.97, Beta 0.03 '
    """
    parts = ", ".join(f"{MODEL_SHORT.get(str(r['model']), r['model'])} {r['weight']:.2f}"
                      for r in rows)  # fmt: skip
    rule = str(rows[0].get("weight_rule", "")) if rows else ""
    if rule.startswith("no stacking"):
        return (
            f"models {system}: {parts} ({rule}; leave-one-task-out cannot weigh models on one task)"
        )
    return (
        f"models {system}: {parts} (stacking weights: the share of draws from each model, "
        "chosen by exact leave-one-task-out)"
    )


def rules_line(
    model: str,
    upto: Mapping[str, int],
    population: str = "none",
    *,
    benchmark: bool = True,
    benchmark_some: bool = False,
    bound: bool = False,
) -> str:
    """Which rule made each scope's intervals: where the runs measure a value (k up to the
    fewest runs of a task; ``upto``: per system, the largest such k among the model-free
    benchmark rows) and ``estimate``'s rule trusts a model-free interval, that interval; the
    model elsewhere. ``population``: whether "all", "some" or "none" of the population rows
    up to that k are model-free. ``benchmark=False``: no benchmark row is model-free (fewer
    than 10 tasks with both outcomes) while population rows up to ``upto`` are;
    ``benchmark_some``: only some benchmark rows up to that k are (the rule's condition said).
    ``bound``: some population rows are the Clopper–Pearson-type bound (said after the
    bootstrap).

    Examples
    --------
    >>> print(rules_line("auto", {"A": 5}, "some"))  # doctest: +NORMALIZE_WHITESPACE
    intervals: benchmark scope, mean and k ≤ 5: the unbiased estimate ± z · se; population
    scope, mean and k ≤ 5 where ≥ 30 tasks lie ≥ 10 on each side of the estimate (some rows
    here): a Bayesian bootstrap of the tasks' unbiased estimates — both model-free, as
    `passhat estimate`, whatever the model; every other row: the stacked model's posterior
    (each row's rule: `method` in --json).
    """
    ks = sorted(set(upto.values()))
    at = f"k ≤ {ks[0]}" if len(ks) == 1 else "k up to each system's fewest runs of a task"
    cp = (
        " (where every task's value is 0 or 1 and fewer lie on a side: the Clopper–Pearson "
        "bounds of the share of tasks at 1)"
        if bound
        else ""
    )
    if not benchmark:
        return (
            f"intervals: population scope, mean and {at} where ≥ 30 tasks lie ≥ 10 on each "
            f"side of the estimate: a Bayesian bootstrap of the tasks' unbiased estimates{cp}, "
            "model-free, as `passhat estimate`, whatever the model; every other row (the "
            "benchmark scope: fewer than 10 tasks with both outcomes): the "
            f"{_model_phrase(model)}'s posterior (each row's rule: `method` in --json)."
        )
    pop = ""
    if population != "none":
        which = " (some rows here)" if population == "some" else ""
        pop = (
            f"; population scope, mean and {at} where ≥ 30 tasks lie ≥ 10 on each side of the "
            f"estimate{which}: a Bayesian bootstrap of the tasks' unbiased estimates{cp} — both "
            "model-free, as `passhat estimate`"
        )
    else:
        pop = ", model-free, as `passhat estimate`"
    cond = " where ≥ 30 tasks, ≥ 10 with both outcomes (some rows here)" if benchmark_some else ""
    return (
        f"intervals: benchmark scope, mean and {at}{cond}: the unbiased estimate ± z · se{pop}, "
        f"whatever the model; every other row: the {_model_phrase(model)}'s posterior (each "
        "row's rule: `method` in --json)."
    )


def _model_phrase(model: str) -> str:
    """The model as a noun phrase ("the stacked model", "the Beta-Binomial model")."""
    if model == "auto":
        return "stacked model"
    return f"{MODEL_SHORT.get(model, model)} model"


#: The method note of a ``model="auto"`` fit whose every system has one task.
ONE_TASK_NOTE = (
    "method: no stacking — leave-one-task-out over one task leaves no data to predict it "
    "from, so it cannot weigh the models; the Beta model alone, on its grid."
)

#: The ``method`` of a benchmark-scope row that the histogram of successes fixes.
BENCHMARK_RULE = (
    "unbiased estimate ± z·se (model-free: estimate's normal interval; where a task has "
    "fewer than 2k runs, se from the larger of the exact variance at (c + ½)/(n + 1) and a "
    "conservative model-free bound, not a model's)"
)

#: The ``method`` of a population-scope row that the histogram of successes fixes.
POPULATION_RULE = (
    "Bayesian bootstrap of the tasks' unbiased estimates (model-free, as estimate resamples tasks)"
)

#: The ``method`` of a population-scope row where every task's value is 0 or 1 and few tasks
#: lie on a side of the estimate (:func:`passhat.model.histogram.population_bound`).
POPULATION_BOUND_RULE = (
    "Clopper–Pearson bounds of the share of tasks at 1 (model-free: estimate's rule where every "
    "task's value is 0 or 1 and fewer than 10 tasks lie on a side of the estimate)"
)

#: Every ``method`` of a population-scope row the histogram fixes.
POPULATION_RULES = (POPULATION_RULE, POPULATION_BOUND_RULE)


def shape_line(system: str, rows: Sequence[Mapping[str, Any]], *, level: float = 0.05) -> str:
    """One system's shape check (the all-tasks rows, one per model): each model's p-value, and
    which models the histogram contradicts.

    Examples
    --------
    >>> row = {"model": "beta", "p_value": 0.005, "g": 17.3, "weight": 1.0}
    >>> shape_line("A", [row]).endswith("lets a model that bends to the data take over")
    True
    """
    parts = "; ".join(
        f"{MODEL_SHORT.get(str(r['model']), r['model'])} G = {r['g']:.1f}, p = {r['p_value']:.3f}"
        for r in rows
    )
    bad = [r for r in rows if r["p_value"] < level and r["weight"] >= SHAPE_WEIGHT]
    text = f"shape check {system} ({SHAPE_WHAT}, calibrated p-value): {parts}"
    if bad:
        names = " and ".join(MODEL_SHORT.get(str(r["model"]), str(r["model"])) for r in bad)
        text += (
            f". WARNING: the data contradict the {names} model (p < {level:g}): it does not "
            "reproduce how successes spread over tasks, so its numbers may be wrong"
        )
        if len(rows) == 1:
            text += "; --model auto lets a model that bends to the data take over"
    return text


def disagreement_line(row: Mapping[str, Any], model: str) -> str:
    """The line saying a model's benchmark value disagrees with the unbiased estimate.

    Examples
    --------
    >>> print(disagreement_line({"system": "A", "metric": "pass_at_k", "k": 5, "model_mean": 0.91,
    ...                          "estimate": 0.935, "estimate_se": 0.01, "z": -2.3, "ci": 0.95},
    ...                         "beta")[:60])
    WARNING A: the Beta model's pass@5 for these tasks, 0.910, d
    """
    label = _metric_label(str(row["metric"]), int(row["k"]))
    return (
        f"WARNING {row['system']}: the {MODEL_SHORT.get(model, model)} model's {label} for "
        f"these tasks, {row['model_mean']:.3f}, disagrees with the unbiased estimate "
        f"{row['estimate']:.3f} (se {row['estimate_se']:.3f}; z = {row['z']:.1f}, beyond their "
        f"joint {float(row['ci']):.0%} uncertainty): the data contradict the model here; read "
        "the unbiased number (passhat estimate)"
    )


def extrapolation_line(system: str, ks: Sequence[int], n_max: int, model: str) -> str:
    """The line marking k above the runs as the model's extrapolation.

    Examples
    --------
    >>> extrapolation_line("A", [10], 5, "auto")[:50]
    'A: k = 10 (marked *) is above the 5 decided runs o'
    """
    shown = ", ".join(str(k) for k in ks)
    return (
        f"{system}: k = {shown} (marked *) is above the {n_max} decided runs of any task: no "
        f"task shows it, so the value is the {MODEL_SHORT.get(model, model)} model's "
        "extrapolation, not a measurement"
    )


def _metric_label(metric: str, k: int) -> str:
    if metric == "mean":
        return "mean"
    return ("pass^" if metric == "pass_hat_k" else "pass@") + str(k)


def imh_label(sampler: str, imh: dict[str, Any] | None) -> str:
    """How a joint fit's posterior was sampled, with the independence sampler's check.

    Examples
    --------
    >>> imh_label("imh", {"khat": 0.27, "acceptance": 0.81})
    'independence MH (t proposal at the mode; PSIS k̂ 0.27 ≤ 0.7, 81% accepted)'
    >>> imh_label("nutpie", {"khat": 0.93, "acceptance": 0.1, "refused": "khat"})
    'NUTS (nutpie; the independence sampler was not used: PSIS k̂ 0.93 > 0.7)'
    >>> imh_label("nutpie", {"khat": 0.5, "ess_min": 120.4, "refused": "mixing"})[42:]
    ' not used: its chains mixed too slowly: smallest ESS 120)'
    >>> imh_label("nutpie", {"khat": None, "cells": 100, "refused": "cells"})[42:]
    ' not used: 100 cells are too few for a Gaussian-like posterior)'
    >>> imh_label("nutpie", None)
    'NUTS (nutpie)'
    """
    if sampler == "imh" and imh is not None:
        return (
            f"independence MH (t proposal at the mode; PSIS k̂ {imh['khat']:.2f} ≤ 0.7, "
            f"{imh['acceptance']:.0%} accepted)"
        )
    if imh is None:
        return f"NUTS ({sampler})"
    why = {
        "cells": f"{imh.get('cells')} cells are too few for a Gaussian-like posterior",
        "mode": "no mode found",
        "khat": f"PSIS k̂ {imh.get('khat') or float('inf'):.2f} > 0.7",
        "mixing": f"its chains mixed too slowly: smallest ESS {imh.get('ess_min', 0):.0f}",
    }.get(str(imh.get("refused")), "its check failed")
    return f"NUTS ({sampler}; the independence sampler was not used: {why})"
