"""Section 4, "Model": the hierarchical model's posterior, hyperparameters, diagnostics and PPC.

A fit that fails its diagnostics is shown with ``status="failed"`` and its
problems listed; its numbers stay visible (marked), never hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from passhat._labels import METRIC_LABELS
from passhat.report.document import Column, Section, Table, frame_rows
from passhat.report.sections._rows import population_row, shown, weighted

if TYPE_CHECKING:
    from passhat.report.results import ModelComparison, ReportResults

__all__ = ["MODEL_TITLE", "MODEL_WEIGHTS", "model_section"]

MODEL_TITLE = "4. Model"
#: What the task weights do in the model (a fit with unequal weights).
MODEL_WEIGHTS = (
    "the benchmark-scope values weight these tasks' posterior rates; the population scope is "
    "the unweighted model (the model has no task weights)"
)


def _posterior_table(summary: pd.DataFrame, ks: list[int], level: float, label: str) -> Table:
    rows = []
    for r in summary.to_dict(orient="records"):
        if r["metric"] not in METRIC_LABELS:
            continue  # e.g. the ICC row: shown with the hyperparameters
        k = int(r["k"])
        if not shown(str(r["metric"]), k, ks):
            continue
        rows.append(
            {
                "system": str(r["system"]),
                "metric": METRIC_LABELS.get(str(r["metric"]), str(r["metric"])),
                "k": k if r["metric"] != "mean" else None,
                "scope": str(r["scope"]),
                "mean": float(r["mean"]),
                "ci_lower": float(r["lower"]),
                "ci_upper": float(r["upper"]),
                "within_task_share": float(r["within_task_share"]),
                "task_sampling_share": float(r["task_sampling_share"]),
                "method": str(r["method"]),
                "diagnostics": str(r.get("diagnostics", "")),
            }
        )
    return Table(
        id="model_posterior",
        caption="Posterior of mean, pass@k and pass^k: population scope (the expected value over "
        "tasks like these) and benchmark scope (these tasks)",
        columns=[
            Column("system", "System"),
            Column("metric", "Metric"),
            Column("k", "k", "int"),
            Column("scope", "Scope"),
            Column("mean", "Posterior mean", "pct"),
            Column("ci", f"{level:.0%} credible interval", "interval"),
            Column("within_task_share", "Variance more runs can remove", "pct"),
            Column("task_sampling_share", "Variance from task sampling", "pct"),
        ],
        rows=rows,
        note=f"Method: {label}. Population scope is the expected value over tasks like these; "
        "benchmark scope is these tasks. The variance split follows the law of total variance "
        "given these tasks' success rates p: Var(E[θ | p]) is the share of the population-scope "
        "posterior variance that unlimited runs on these tasks would remove; the rest, "
        "E[Var(θ | p)], comes from which tasks were sampled and only more tasks reduce it. A "
        "benchmark-scope value depends on p alone, so more runs can remove all of its variance.",
    )


def _hyper_rows(hyper: pd.DataFrame) -> list[dict[str, Any]]:
    """The hyperparameter rows (per system: μ, κ and the ICC with their intervals)."""
    return [
        {str(key): value for key, value in r.items() if not _missing(value)}
        for r in hyper.to_dict(orient="records")
    ]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _hyper_table(hyper: list[dict[str, Any]], level: float) -> Table:
    return Table(
        id="model_hyper",
        caption="Hyperparameters: mean rate μ, concentration κ and intra-class correlation",
        columns=[
            Column("system", "System"),
            Column("mu", "μ (mean rate)", "pct"),
            Column("mu_ci", f"{level:.0%} interval", "interval"),
            Column("kappa", "κ", "num"),
            Column("kappa_ci", f"{level:.0%} interval", "interval_num"),
            Column("icc", "ICC 1/(κ+1)", "num"),
            Column("icc_ci", f"{level:.0%} interval", "interval_num"),
        ],
        rows=hyper,
    )


def _diagnostics_table(diag: Any) -> Table:
    dt = diag.table.copy()
    dt["divergences"] = dt["system"].map(diag.divergences).fillna(0).astype(int)
    diag_rows = [
        {
            "system": str(r["system"]),
            "variable": str(r["variable"]),
            "r_hat": float(r["r_hat"]),
            "ess_bulk": float(r["ess_bulk"]),
            "ess_tail": float(r["ess_tail"]),
            "divergences": int(r["divergences"]),
        }
        for r in dt.to_dict(orient="records")
    ]
    th = diag.thresholds
    return Table(
        id="model_diagnostics",
        caption="Diagnostics",
        columns=[
            Column("system", "System"),
            Column("variable", "Variable"),
            Column("r_hat", "R-hat", "num"),
            Column("ess_bulk", "Bulk ESS", "int"),
            Column("ess_tail", "Tail ESS", "int"),
            Column("divergences", "Divergences", "int"),
        ],
        rows=diag_rows,
        note=f"Pass when R-hat ≤ {th.get('r_hat_max')}, ESS ≥ {th.get('ess_min'):g} and "
        f"divergences ≤ {th.get('divergences_max'):g} (R-hat and divergences apply to NUTS).",
    )


def _ppc(ppc: pd.DataFrame) -> tuple[Table, list[str]]:
    """The posterior predictive check's table, and one sentence per system."""
    sent: list[str] = []
    for system, part in ppc.groupby("system", sort=False):
        outside = part[part["outside"]]
        lvl = float(part["ci"].iloc[0])
        if len(outside):
            worst = outside.iloc[0]
            sent.append(
                f"{system}: the observed number of tasks falls outside the model's {lvl:.0%} "
                f"predictive interval in {len(outside)} of {len(part)} bins of c/n (e.g. "
                f"{worst['label']}: {int(worst['observed'])} observed against "
                f"{int(worst['lower'])}–{int(worst['upper'])}); the plain Beta spread misses "
                "part of the shape of the data."
            )
        else:
            sent.append(
                f"{system}: every bin of the observed histogram of c/n lies within the model's "
                f"{lvl:.0%} predictive interval (posterior predictive check)."
            )
    table = Table(
        id="model_ppc",
        caption="Posterior predictive check: tasks per bin of c/n",
        columns=[
            Column("system", "System"),
            Column("label", "c/n"),
            Column("observed", "Observed tasks", "int"),
            Column("expected", "Replicated (mean)", "num"),
            Column("ppc", "Replicated interval (tasks)", "interval_num"),
        ],
        note="The replicated interval's bounds are counts of tasks, rounded outward to whole "
        "tasks; an observed count outside them is what the sentences above report.",
        rows=[
            {
                "system": str(r["system"]),
                "label": str(r["label"]),
                "observed": int(r["observed"]),
                "expected": float(r["expected"]),
                "ppc_lower": int(r["lower"]),
                "ppc_upper": int(r["upper"]),
            }
            for r in ppc.to_dict(orient="records")
        ],
    )
    return table, sent


def _icc_sentences(
    hyper: list[dict[str, Any]], summary: pd.DataFrame, kmax: int, level: float
) -> list[str]:
    pre = []
    for h in hyper:
        system = h["system"]
        p = population_row(summary, system, "pass_hat_k", kmax)
        line = (
            f"{system}: ICC {h['icc']:.2f} ({level:.0%} interval {h['icc_ci_lower']:.2f}–"
            f"{h['icc_ci_upper']:.2f}): {h['icc']:.0%} of the run-to-run variance of success "
            "lies between tasks rather than within them."
        )
        if p is not None:
            share = float(p["task_sampling_share"])
            line += (
                f" The expected pass^{kmax} over tasks like these is {p['mean']:.1%} "
                f"({p['lower']:.1%}–{p['upper']:.1%}); {share:.0%} of that posterior variance "
                "comes from which tasks were sampled and would remain however many runs each "
                f"task got (law of total variance given the tasks' rates), {1 - share:.0%} from "
                "the finite runs per task, "
                + (
                    "so more tasks, not more runs per task, would narrow it most."
                    if share > 0.5
                    else "so more runs per task would narrow it most."
                )
            )
        pre.append(line)
    return pre


def _comparison(cmp: ModelComparison) -> tuple[Table | None, list[str]]:
    """Plain Beta vs zero/one-inflated by PSIS-LOO (only healthy fits are ranked: when either
    fails its diagnostics, the sentence says which and why, and no table is made)."""
    if cmp.status == "plain_failed":
        return None, [
            "Model comparison (plain Beta vs zero/one-inflated) was not run: the plain fit "
            "failed its diagnostics."
        ]
    if cmp.table is None:  # the inflated fit failed its diagnostics
        return None, [
            "Model comparison (plain Beta vs zero/one-inflated) not shown: the inflated model's "
            "fit failed its diagnostics ("
            + "; ".join(cmp.problems)
            + "), so its comparison would be unreliable."
        ]
    caption = (
        "Models of the fit by exact leave-one-task-out (Beta, zero/one-inflated, discrete), "
        "with the stacking weight of each (the share of the fit's draws from it)"
        if cmp.exact
        else "Model comparison by PSIS-LOO (plain Beta vs zero/one-inflated)"
    )
    table = Table(
        id="model_compare",
        caption=caption,
        columns=[
            Column("system", "System"),
            Column("model", "Model"),
            Column("rank", "Rank", "int"),
            Column("elpd_loo", "ELPD (LOO)", "num"),
            Column("elpd_diff", "Difference to best", "num"),
            Column("dse", "SE of difference", "num"),
            Column("weight", "Stacking weight", "num"),
            Column("warning", "Pareto-k warning", "bool"),
        ],
        rows=frame_rows(cmp.table),
        note="The pointwise log-likelihood is one term per task, so LOO asks how well "
        "each model predicts a left-out task.",
    )
    sent = []
    for system, part in cmp.table.groupby("system", sort=False):
        best, other = part.iloc[0], part.iloc[1]
        clear = float(other["elpd_diff"]) > 2 * float(other["dse"])
        line = (
            f"{system}: the {best['model']} model predicts left-out tasks "
            + ("better" if clear else "about as well")
            + f" (ELPD difference {float(other['elpd_diff']):.1f} ± "
            f"{float(other['dse']):.1f})."
        )
        if cmp.exact:
            weights = ", ".join(
                f"{r['model']} {float(r['weight']):.0%}"
                for _, r in part.sort_values("weight", ascending=False, kind="stable").iterrows()
            )
            line += f" The fit stacks {weights} of its draws from them."
        sent.append(line)
    return table, sent


def model_section(results: ReportResults) -> Section:
    """The model's section: posterior, hyperparameters, diagnostics, predictive check and the
    comparison with the zero/one-inflated model.

    Parameters
    ----------
    results : ReportResults
        The report's results; without a model (``model=False``) the section is skipped.

    Returns
    -------
    Section
        Id ``model``; status ``failed`` (its numbers shown, marked) when the fit failed its
        diagnostics, and then without the ``ppc`` figure.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], n_boot=200, plan=False,
    ...                       compare_models=False)
    >>> sec = model_section(res)
    >>> sec.status, [t.id for t in sec.tables]
    ('ok', ['model_posterior', 'model_hyper', 'model_diagnostics', 'model_ppc'])
    """
    m = results.model
    if m is None:
        note = "The model was not run (--no-model)."
        return Section(id="model", title=MODEL_TITLE, status="skipped", note=note)
    ks, level, label = results.ks, m.level, m.label
    hyper = _hyper_rows(m.hyper)
    ppc_table, sent = _ppc(m.ppc)
    tables = [
        _posterior_table(m.summary, ks, level, label),
        _hyper_table(hyper, level),
        _diagnostics_table(m.diagnostics),
        ppc_table,
    ]
    pre = list(m.warnings) + _icc_sentences(hyper, m.summary, ks[-1], level) + list(m.outside_notes)
    if weighted(m.weights):
        pre.append(f"Task weights: {MODEL_WEIGHTS}.")
    if m.comparison is not None:
        cmp_table, cmp_sent = _comparison(m.comparison)
        tables += [cmp_table] if cmp_table is not None else []
        sent += cmp_sent
    else:
        sent.append(
            "Model comparison (plain Beta vs zero/one-inflated, PSIS-LOO) was not run "
            "(--no-compare-models, compare_models=False)."
        )
    if not m.passed:
        return Section(
            id="model",
            title=MODEL_TITLE,
            sentences=pre + sent,
            tables=tables,
            status="failed",
            note="The model failed its diagnostics, so its numbers are unreliable: "
            + "; ".join(m.diagnostics.problems)
            + ". They are shown for inspection, marked.",
        )
    pre.append(f"Diagnostics pass ({label}).")
    return Section(
        id="model", title=MODEL_TITLE, sentences=pre + sent, tables=tables, figures=["ppc"]
    )
