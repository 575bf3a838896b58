"""Section 4, "Model": the hierarchical model's posterior, hyperparameters, diagnostics and PPC.

A fit that fails its diagnostics is shown with ``status="failed"`` and its
problems listed; its numbers stay visible (marked), never hidden.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from passhat.estimators import METRIC_LABELS
from passhat.model import Fit, compare_models, fit
from passhat.model.summaries import mean_outside_note
from passhat.report.document import Column, Section, Table, frame_rows
from passhat.report.figure_data import ppc_frame
from passhat.report.sections._rows import population_row, shown
from passhat.trials import Trials

__all__ = ["MODEL_TITLE", "model_section"]

MODEL_TITLE = "4. Model"


def _fit(
    data: Trials | xr.Dataset, model: Any, ks: list[int], seed: int | None, method: str
) -> Fit:
    if isinstance(model, Fit):
        return model
    if model is not True:
        raise TypeError(f"model= must be True, False or a passhat.Fit (got {type(model).__name__})")
    return fit(data, k=ks, seed=seed, method=method, progress=False)


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


def _hyper_rows(f: Fit, level: float) -> list[dict[str, Any]]:
    post = f.idata.posterior
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    rows = []
    for system in (str(s) for s in post["system"].values):
        row: dict[str, Any] = {"system": system}
        for var in ("mu", "kappa", "icc"):
            if var not in post:
                continue
            x = np.asarray(post[var].sel(system=system).values, dtype=float).ravel()
            row[var] = float(np.mean(x))
            row[f"{var}_ci_lower"] = float(np.quantile(x, lo_q))
            row[f"{var}_ci_upper"] = float(np.quantile(x, hi_q))
        rows.append(row)
    return rows


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


def _ppc(f: Fit) -> tuple[Table, list[str]]:
    """The posterior predictive check's table, and one sentence per system."""
    sent: list[str] = []
    ppc = ppc_frame(f)
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


def _comparison(
    data: Trials | xr.Dataset,
    f: Fit,
    ks: list[int],
    seed: int | None,
    *,
    progress: bool | None = None,
) -> tuple[Table | None, list[str]]:
    """Plain Beta vs zero/one-inflated by PSIS-LOO (the inflated model is fitted by NUTS).

    Only healthy fits are ranked: when either fails its diagnostics, the sentence says
    which and why, and no table is made.
    """
    if not f.diagnostics.passed:
        return None, [
            "Model comparison (plain Beta vs zero/one-inflated) was not run: the plain fit "
            "failed its diagnostics."
        ]
    # NUTS compiles first (seconds to a minute): progress on a terminal unless told otherwise
    inflated = fit(data, k=ks, seed=seed, model="inflated", progress=progress)
    if not inflated.diagnostics.passed:
        return None, [
            "Model comparison (plain Beta vs zero/one-inflated) not shown: the inflated model's "
            "fit failed its diagnostics ("
            + "; ".join(inflated.diagnostics.problems[:3])
            + "), so its comparison would be unreliable."
        ]
    cmp = compare_models({str(f.model): f, "inflated": inflated}).table
    table = Table(
        id="model_compare",
        caption="Model comparison by PSIS-LOO (plain Beta vs zero/one-inflated)",
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
        rows=frame_rows(cmp),
        note="The pointwise log-likelihood is one term per task, so LOO asks how well "
        "each model predicts a left-out task.",
    )
    sent = []
    for system, part in cmp.groupby("system", sort=False):
        best, other = part.iloc[0], part.iloc[1]
        clear = float(other["elpd_diff"]) > 2 * float(other["dse"])
        sent.append(
            f"{system}: the {best['model']} model predicts left-out tasks "
            + ("better" if clear else "about as well")
            + f" (ELPD difference {float(other['elpd_diff']):.1f} ± "
            f"{float(other['dse']):.1f})."
        )
    return table, sent


def model_section(
    data: Trials | xr.Dataset,
    model: bool | Fit,
    *,
    ks: list[int],
    ci: float | None,
    seed: int | None,
    method: str,
    compare: bool = True,
    progress: bool | None = None,
) -> tuple[Section, pd.DataFrame | None, Fit | None]:
    """Fit (or take) the hierarchical model and summarise it.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        The report's input.
    model : bool or passhat.Fit
        True: fit the model; False: skip it (a skipped section); a Fit: use it.
    ks : list of int
        k values of the posterior table.
    ci : float, optional
        Credible-interval level (0.95 when None).
    seed : int, optional
        Seed of the fit.
    method : str
        Method of the fit (``"grid"``: exact quadrature; ``"nuts"``).
    compare : bool, default True
        Also fit the zero/one-inflated model (NUTS) and compare the two by
        PSIS-LOO per system, when both fits pass their diagnostics.
    progress : bool, optional
        Progress bar of that NUTS fit (None: on a terminal only; False: never).

    Returns
    -------
    (Section, pandas.DataFrame or None, passhat.Fit or None)
        The section (id ``model``), the fit's summary (for the headline) and
        the fit (for the plan section and the PPC figure); None, None when
        skipped.

    Examples
    --------
    >>> import passhat as ph
    >>> sec, summary, fit = model_section(ph.load_example("abcd"), True, ks=[1, 2], ci=0.95,
    ...                                   seed=0, method="grid", compare=False)
    >>> sec.status, [t.id for t in sec.tables]
    ('ok', ['model_posterior', 'model_hyper', 'model_diagnostics', 'model_ppc'])
    """
    if model is False:
        note = "The model was not run (--no-model)."
        return Section(id="model", title=MODEL_TITLE, status="skipped", note=note), None, None
    level = ci or 0.95
    f = _fit(data, model, ks, seed, method)
    summary = f.summary(k=ks, ci=level)
    diag = f.diagnostics
    label = str(f.method_label)
    hyper = _hyper_rows(f, level)
    ppc_table, sent = _ppc(f)
    tables = [
        _posterior_table(summary, ks, level, label),
        _hyper_table(hyper, level),
        _diagnostics_table(diag),
        ppc_table,
    ]
    pre = _icc_sentences(hyper, summary, ks[-1], level) + mean_outside_note(summary)
    if compare:
        cmp_table, cmp_sent = _comparison(data, f, ks, seed, progress=progress)
        tables += [cmp_table] if cmp_table is not None else []
        sent += cmp_sent
    else:
        sent.append(
            "Model comparison (plain Beta vs zero/one-inflated, PSIS-LOO) was not run "
            "(--no-compare-models, compare_models=False)."
        )
    status = "ok"
    note = ""
    if not diag.passed:
        status = "failed"
        note = (
            "The model failed its diagnostics, so its numbers are unreliable: "
            + "; ".join(diag.problems)
            + ". They are shown for inspection, marked."
        )
    else:
        pre.append(f"Diagnostics pass ({label}).")
    section = Section(
        id="model",
        title=MODEL_TITLE,
        sentences=pre + sent,
        tables=tables,
        status=status,  # type: ignore[arg-type]
        note=note,
    )
    return section, summary, f
