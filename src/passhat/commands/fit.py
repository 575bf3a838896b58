"""``passhat fit``: hierarchical Beta-Binomial posterior of pass^k / pass@k / mean per system."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from passhat._format import pct
from passhat._validate import DEFAULT_SEED
from passhat._version import __version__
from passhat.commands._common import (
    InputSpec,
    emit_json,
    input_options,
    parse_k,
    quiet_option,
    records,
    unscored_tasks_option,
)
from passhat.commands._output import Table, make_console, table_output
from passhat.errors import EXIT_FAIL, OptionError
from passhat.estimators import METRIC_LABELS
from passhat.io import input_stamp

if TYPE_CHECKING:
    from passhat.model.joint_result import JointFit

__all__ = ["register"]

#: ``--strict`` is a gate on the diagnostics: "fail" is exit status 1 (docs/guide/cli.md).
EXIT_DIAGNOSTICS = EXIT_FAIL


def _interval(row: Any) -> str:
    return f"{row['mean']:.3f} [{row['lower']:.3f}, {row['upper']:.3f}]"


def _method_note(ran: str, asked: str, model: str) -> str:
    """One line saying which method computed the posterior, and how to get the other."""
    why = " (the default for this model)" if asked == "auto" else ""
    if ran == "grid":
        return (
            f"method: exact grid quadrature on (logit μ, log κ){why}; "
            "--method nuts samples the same posterior with NUTS."
        )
    if model == "beta":
        return f"method: NUTS{why}; --method grid computes this model exactly, without compiling."
    return f"method: NUTS{why}; the grid covers the plain model only."


@click.command("fit")
@input_options
@click.option("--k", "k_text", default="1,2,5", show_default=True, help="k values: 1,2,5 or 1-5.")
@click.option(
    "--method",
    type=click.Choice(["auto", "grid", "nuts"]),
    default="auto",
    show_default=True,
    help="grid: exact quadrature on (logit μ, log κ), plain model only, no compiling; "
    "nuts: NUTS sampling (compiles first); auto: grid for the plain model, else NUTS.",
)
@click.option(
    "--model",
    "model_name",
    type=click.Choice(["beta", "inflated", "joint", "rasch"]),
    default="beta",
    show_default=True,
    help="Beta-Binomial, or with shares of always-pass / always-fail tasks (one fit per "
    "system); joint: all systems in one model with shared task effects; rasch: the joint "
    "model without its system × task deviation (cost nearly flat in the tasks).",
)
@click.option(
    "--weights",
    type=click.Choice(["equal", "declared", "category"]),
    default="equal",
    show_default=True,
    help="Task weights in benchmark-scope metrics.",
)
@unscored_tasks_option(impute=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=DEFAULT_SEED,
    show_default=True,
    help="Random seed (recorded in the output).",
)
@click.option("--draws", type=int, default=1000, show_default=True, help="Draws per chain.")
@click.option("--tune", type=int, default=1000, show_default=True, help="Tuning steps per chain.")
@click.option("--chains", type=int, default=4, show_default=True, help="Chains.")
@click.option("--ci", type=float, default=0.95, show_default=True, help="Interval level.")
@click.option(
    "--sampler",
    type=click.Choice(["auto", "nutpie", "pymc"]),
    default="auto",
    show_default=True,
    help="NUTS implementation (auto: nutpie when installed).",
)
@click.option(
    "-o",
    "--output",
    default=None,
    help="Save the posterior as netCDF here (checked before fitting; never over the input).",
)
@click.option("--force", is_flag=True, help="With -o: replace an existing file.")
@click.option("--strict", is_flag=True, help=f"Exit {EXIT_DIAGNOSTICS} when diagnostics fail.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("summary")
@quiet_option("No progress bar and no notes.")
def fit_cmd(
    source: InputSpec,
    k_text: str,
    method: str,
    model_name: str,
    weights: str,
    unscored_tasks: str,
    seed: int,
    draws: int,
    tune: int,
    chains: int,
    ci: float,
    sampler: str,
    output: str | None,
    force: bool,
    strict: bool,
    as_json: bool,
    quiet: bool,
) -> int:
    """Posterior of mean, pass@k and pass^k in two scopes, with diagnostics.

    benchmark = these tasks (only within-task uncertainty); population = the
    expected value over tasks like these (adds task sampling).
    """
    from passhat._write import check_file, input_paths
    from passhat.model import fit as _fit
    from passhat.model.fit import fit_notes
    from passhat.model.summaries import mean_outside_note

    if output is not None:  # before sampling, not after
        check_file(output, inputs=input_paths(source.path), force=force)
    elif force:
        raise OptionError("--force applies to -o FILE")
    ks = parse_k(k_text)
    data = source.load()
    result = _fit(
        data,
        k=ks,
        method=method,
        model=model_name,
        weights=None if weights == "equal" else weights,
        unscored_tasks=unscored_tasks,
        seed=seed,
        draws=draws,
        tune=tune,
        chains=chains,
        sampler=sampler,
        progress=False if (quiet or as_json) else None,
    )
    from passhat.model.joint_result import JointFit

    if isinstance(result, JointFit):
        if output is not None:
            result.to_netcdf(output, force=force)
        return _joint_output(
            result,
            data,
            ks,
            ci=ci,
            output=output,
            strict=strict,
            as_json=as_json,
            quiet=quiet,
            settings={"draws": draws, "tune": tune, "chains": chains},
        )
    summary = result.summary(k=ks, ci=ci)
    diag = result.diagnostics
    if output is not None:
        result.to_netcdf(output, force=force)
    if as_json:
        emit_json(
            {
                "passhat_version": __version__,
                "input": input_stamp(data),
                "settings": {
                    "k": ks,
                    "method": result.method,
                    "method_requested": method,
                    "model": model_name,
                    "sampler": result.sampler,
                    "seed": result.seed,
                    "draws": draws,
                    "tune": tune,
                    "chains": chains,
                    "ci": ci,
                    "weights": weights,
                    "unscored_tasks": unscored_tasks,
                    "priors": result.priors.to_json(),
                    "output": output,
                },
                "notes": fit_notes(result) + mean_outside_note(summary),
                "summary": records(summary),
                "diagnostics": _diagnostics_json(diag),
            }
        )
        return EXIT_DIAGNOSTICS if strict and not diag.passed else 0
    console = make_console(min_width=110)
    table = Table(
        title=f"passhat fit ({result.method_label}; {ci:.0%} posterior intervals, seed "
        f"{result.seed})"
    )
    for col in ("system", "k", "metric", "benchmark", "population", "runs can remove"):
        table.add_column(col, justify="left" if col in ("system", "metric") else "right")
    names = METRIC_LABELS
    for s in result.systems:
        part = summary[summary["system"] == s]
        for kk in ks:
            for m in ("mean", "pass_at_k", "pass_hat_k"):
                if (m == "mean" and kk != ks[0]) or (m != "mean" and kk == 1):
                    continue  # mean does not depend on k; pass@1 = pass^1 = mean
                rows = part[(part["metric"] == m) & (part["k"] == kk)]
                b = rows[rows["scope"] == "benchmark"].iloc[0]
                p = rows[rows["scope"] == "population"].iloc[0]
                table.add_row(
                    s,
                    "—" if m == "mean" else str(kk),
                    names[m],
                    _interval(b),
                    _interval(p),
                    pct(float(p["within_task_share"]), 0),
                )
        icc = part[part["metric"] == "icc"].iloc[0]
        icc_label = "ICC 1/(κ+1)" if result.model == "beta" else "ICC"
        table.add_row(s, "—", icc_label, "", _interval(icc), "", end_section=True)
    console.print(table)
    for s in result.systems:
        dt = diag.table[diag.table["system"] == s]
        detail = (
            f"max r_hat {dt['r_hat'].max():.3f}, min ESS bulk {dt['ess_bulk'].min():.0f} / "
            f"tail {dt['ess_tail'].min():.0f}, {diag.divergences[s]} divergences"
        )
        if result.method == "grid":
            detail = f"independent draws from the grid, min ESS bulk {dt['ess_bulk'].min():.0f}"
        status = diag.status(s)
        console.print(f"diagnostics {s}: {status} ({detail})", highlight=False)
    if not quiet:
        console.print(_method_note(result.method, method, model_name), highlight=False)
        console.print(
            "benchmark = these tasks, uncertainty from the finite runs per task only; "
            "population = the expected value over tasks like these, adding task sampling. "
            "runs can remove = the share of the population-scope posterior variance that "
            "unlimited runs on these tasks would remove (law of total variance given their "
            "rates); the rest comes from which tasks were sampled and only more tasks reduce "
            "it. `passhat plan more-runs` gives the expected width after m more runs.",
            highlight=False,
        )
        for note in fit_notes(result) + mean_outside_note(summary):
            console.print(note)  # the console prints every string literally
        if output is not None:
            console.print(f"posterior saved to {output} (load with passhat.load_fit)")
    if strict and not diag.passed:
        console.print(f"--strict: diagnostics failed, exit status {EXIT_DIAGNOSTICS}")
        return EXIT_DIAGNOSTICS
    return 0


def _joint_output(
    result: JointFit,
    data: Any,
    ks: list[int],
    *,
    ci: float,
    output: str | None,
    strict: bool,
    as_json: bool,
    quiet: bool,
    settings: dict[str, Any],
) -> int:
    """Print (or emit as JSON) a joint fit: per-system table, parameters, diagnostics."""
    from passhat.model.summaries import mean_outside_note

    summary = result.summary(k=ks, ci=ci)
    diag = result.diagnostics
    hyper = result.hyper_summary(ci=ci)
    corr = result.correlation(ci=ci)
    disp = result.dispersion_check()
    if as_json:
        emit_json(
            {
                "passhat_version": __version__,
                "input": input_stamp(data),
                "settings": {
                    "k": ks,
                    "method": "nuts",
                    "model": result.model,
                    "sampler": result.sampler,
                    "seed": result.seed,
                    "ci": ci,
                    "priors": result.priors.to_json(),
                    "output": output,
                    **settings,
                },
                "notes": result.notes + mean_outside_note(summary),
                "summary": records(summary),
                "parameters": records(hyper),
                "correlation": records(corr),
                "dispersion_check": records(disp),
                "diagnostics": _diagnostics_json(diag),
            }
        )
        return EXIT_DIAGNOSTICS if strict and not diag.passed else 0
    console = make_console(min_width=110)
    table = Table(
        title=f"passhat fit --model {result.model} ({result.method_label}; {ci:.0%} posterior "
        f"intervals, seed {result.seed}; {len(result.systems)} systems × {len(result.tasks)} tasks)"
    )
    for col in ("system", "k", "metric", "benchmark", "population"):
        table.add_column(col, justify="left" if col in ("system", "metric") else "right")
    for s in result.systems:
        part = summary[summary["system"] == s]
        shown = [("mean", ks[0])] + [
            (m, kk) for kk in ks if kk > 1 for m in ("pass_at_k", "pass_hat_k")
        ]
        for i, (m, kk) in enumerate(shown):
            rows = part[(part["metric"] == m) & (part["k"] == (1 if m == "mean" else kk))]
            b = rows[rows["scope"] == "benchmark"].iloc[0]
            p = rows[rows["scope"] == "population"].iloc[0]
            table.add_row(
                s,
                "—" if m == "mean" else str(kk),
                METRIC_LABELS[m],
                _interval(b),
                _interval(p),
                end_section=i == len(shown) - 1,
            )
    console.print(table)
    sd = hyper[hyper["parameter"] == "task_sd"].iloc[0]
    kap = hyper[hyper["parameter"] == "kappa"]
    deviation = f"κ = {_interval(kap.iloc[0])}" if len(kap) else "none (Rasch form, κ = ∞)"
    console.print(
        f"task effects: σ_β = {_interval(sd)} (logit scale); system × task deviation: "
        f"{deviation}; between-system correlation of per-task rates: mean over "
        f"{len(corr)} pair(s) {corr['mean'].mean():.2f} (range {corr['mean'].min():.2f}–"
        f"{corr['mean'].max():.2f})",
        highlight=False,
    )
    console.print(_dispersion_line(disp, result.model), highlight=False)
    d = diag.table
    console.print(
        f"diagnostics: {diag.status()} (max r_hat {d['r_hat'].max():.3f}, min ESS bulk "
        f"{d['ess_bulk'].min():.0f} / tail {d['ess_tail'].min():.0f}, "
        f"{diag.divergences['(all)']} divergences)",
        highlight=False,
    )
    if not quiet:
        console.print(
            "benchmark = these tasks (cells a system did not run predicted from the task's "
            "effect); population = a new task like these. Intervals are marginal, one system "
            "at a time. Pairwise differences and rank probabilities: passhat.JointFit."
            "differences / rank_table, or `passhat rank`.",
            highlight=False,
        )
        for note in result.notes + mean_outside_note(summary):
            console.print(note)
        if output is not None:
            console.print(f"posterior saved to {output} (load with passhat.load_fit)")
    if strict and not diag.passed:
        console.print(f"--strict: diagnostics failed, exit status {EXIT_DIAGNOSTICS}")
        return EXIT_DIAGNOSTICS
    return 0


def _dispersion_line(disp: Any, model: str) -> str:
    """One line on the posterior predictive check of the cells' spread."""
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


def register(cli: click.Group) -> None:
    """Attach ``fit`` to the CLI group."""
    cli.add_command(fit_cmd)


def _diagnostics_json(diag: Any) -> dict[str, Any]:
    """The diagnostics of a fit (single-system or joint) as fit --json writes them."""
    return {
        "passed": diag.passed,
        "problems": diag.problems,
        "thresholds": diag.thresholds,
        "divergences": diag.divergences,
        "table": records(diag.table),
    }
