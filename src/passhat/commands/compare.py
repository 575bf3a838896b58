"""``passhat compare``: paired comparison of systems on matched tasks, or per-task verdicts.

Two modes of one command: the paired difference (default;
:func:`passhat.compare`) and, with ``--classify``, the baseline-vs-candidate
verdict of every task (:func:`passhat.classify`, exit 1 on a ``--fail-on``
verdict). Both read BASE and CAND (or one input with several systems and
``--baseline``) the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import click
import xarray as xr

from passhat.commands._common import (
    InputSpec,
    cluster_options,
    clustered_spec,
    input_options,
    quiet_option,
)
from passhat.commands._options import (
    ci_option,
    command,
    cost_of_option,
    json_option,
    k_option,
    n_boot_option,
    paper_option,
    seed_option,
    weights_option,
)
from passhat.commands._output import echo, emit_json, emit_paper, show
from passhat.compare import CategoryComparison, Comparison, classify, compare, compare_scores
from passhat.compare.categories import compare_by_category
from passhat.compare.cost import compare_cost
from passhat.compare.cost_result import CostComparison
from passhat.errors import OptionError
from passhat.trials import Trials

__all__ = ["register"]


def _load(
    source: InputSpec, quiet: bool, runs: bool = False
) -> tuple[Trials | xr.Dataset | list[Trials | xr.Dataset], Trials | xr.Dataset | None]:
    """Read RUNS: one input (BASE alone, or the example), BASE and CAND, or a list of three
    or more inputs (the first one's system the baseline unless --baseline names one);
    ``runs``: every run kept (--scores needs each run's score)."""
    if not source.given:
        raise OptionError("no input: give BASE and CAND files (or one file and --baseline NAME)")
    inputs = source.inputs(quiet=quiet, runs=runs)
    if len(inputs) == 1:
        return inputs[0], None
    if len(inputs) == 2:
        return inputs[0], inputs[1]
    return inputs, None


# Options of the paired comparison (the default mode).
PAIRED_OPTIONS: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
    k_option(),
    ci_option(default=0.95, help="Confidence level."),
    n_boot_option(help="Random sign flips and posterior draws."),
    seed_option(help="Seed of the sign flips and posterior draws (printed with the results)."),
    click.option(
        "--intersect",
        is_flag=True,
        help="Compare the tasks both systems ran; report how many were dropped.",
    ),
    weights_option(help="Task weights of the compared average (shared by both systems)."),
    click.option(
        "--baseline",
        default=None,
        help="With one input holding several systems: the system the others are compared to.",
    ),
    click.option(
        "--by",
        type=click.Choice(["category"]),
        default=None,
        help="The paired difference per category (Holm across the categories) and a "
        "permutation test of whether it differs between categories.",
    ),
    click.option(
        "--scores",
        is_flag=True,
        help="Compare each run's score in [0, 1] (partial credit): the mean score and the "
        "expected best / worst of k, per task, instead of pass/fail.",
    ),
    click.option(
        "--cost",
        is_flag=True,
        help="Compare what the systems pay (needs a cost column): cost per run, per success, "
        "per all-k-pass and pass^k per unit cost, with the paired difference and ratio.",
    ),
    cost_of_option(),
]

# Options of the baseline-vs-candidate classification (--classify).
CLASSIFY_OPTIONS: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
    click.option(
        "--classify",
        is_flag=True,
        help="Per-task verdicts: stable_pass/fail, regression, fixed, flaky, redefined, undecided.",
    ),
    click.option(
        "--candidate",
        default=None,
        help="With --classify and several systems: the system classified against --baseline.",
    ),
    click.option(
        "--fail-on",
        type=click.Choice(
            [
                "regression",
                "possible_regression",
                "flaky",
                "fixed",
                "possible_fix",
                "redefined",
                "undecided",
            ]
        ),
        multiple=True,
        help="With --classify: exit 1 when a task gets this verdict (repeatable).",
    ),
    click.option(
        "--alpha",
        type=float,
        default=0.05,
        show_default=True,
        help="With --classify: the error rate across tasks (see --multiplicity).",
    ),
    click.option(
        "--multiplicity",
        type=click.Choice(["holm", "bh", "none"]),
        default=None,
        help="With --classify (default holm): holm bounds P(any false regression) by --alpha "
        "(FWER); bh the share of false flags (FDR); none tests each task at --alpha alone. "
        "The paired comparison with several candidates (default none): holm adds p-values "
        "adjusted across the candidates.",
    ),
    click.option(
        "--min-runs",
        type=int,
        default=None,
        help="Leave out matched tasks where either system has fewer decided runs than this, or "
        "fewer than k (listed); with --classify: fewer decided runs than this in a build leaves "
        "a task undecided (default 3).",
    ),
]


def _apply(
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed(options):
            f = opt(f)
        return f

    return deco


def _paired_multiplicity(value: str | None) -> Literal["none", "holm"]:
    """--multiplicity of the paired comparison: none unless holm is asked for."""
    if value == "bh":
        raise OptionError(
            "--multiplicity bh applies to --classify's per-task tests; the paired comparison "
            "takes holm (p-values adjusted across the candidates) or none"
        )
    return "holm" if value == "holm" else "none"


def _refuse_by(opts: dict[str, Any]) -> None:
    """--by category takes the plain paired comparison's options only (one line each)."""
    if opts["by"] is None:
        return
    other = {"--classify": opts["classify"],
             "--weights": opts["weights"] != "equal", "--multiplicity": opts["multiplicity"],
             f"--{opts['paper']}": opts["paper"] is not None}  # fmt: skip
    for name, on in other.items():
        if on:
            raise OptionError(f"--by category does not take {name}")


def _refuse_cost(opts: dict[str, Any]) -> None:
    """--cost takes the inputs, k, ci, n-boot, seed, --intersect, --baseline, --weights and the
    clusters."""
    if not opts["cost"]:
        return
    other = {"--classify": opts["classify"], "--scores": opts["scores"], "--by": opts["by"],
             "--multiplicity": opts["multiplicity"], "--min-runs": opts["min_runs"] is not None,
             f"--{opts['paper']}": opts["paper"] is not None}  # fmt: skip
    for name, on in other.items():
        if on:
            raise OptionError(f"--cost does not take {name}")


def _same_file_note(opts: dict[str, Any]) -> None:
    """Say so when BASE and CAND are one file (after the results: an error stays one line)."""
    paths = opts["paths"]
    if len(paths) != 2 or opts["quiet"]:
        return
    base, cand = paths
    if Path(base).resolve() == Path(cand).resolve():
        echo(
            f"passhat: note: BASE and CAND are the same file ({cand}): the differences are 0 by "
            "construction (the intervals show only the method's noise)",
            err=True,
        )


def _run_classify(
    data_a: Trials | xr.Dataset | list[Trials | xr.Dataset],
    data_b: Trials | xr.Dataset | None,
    opts: dict[str, Any],
) -> int:
    """``compare --classify``: print verdicts; return 1 when a --fail-on verdict is found."""
    res = classify(
        data_a,
        data_b,
        alpha=opts["alpha"],
        min_runs=opts["min_runs"] if opts["min_runs"] is not None else 3,
        multiplicity=opts["multiplicity"] or "holm",
        base_system=opts["baseline"],
        cand_system=opts["candidate"],
    )
    _same_file_note(opts)
    fail_on = list(opts["fail_on"] or ())
    failed = res.found(fail_on)
    if opts["as_json"]:
        emit_json(res.to_dict(fail_on=fail_on))
        return 1 if failed else 0
    show(res.view(changed=not opts["quiet"]), quiet=opts["quiet"])
    if failed:
        echo(f"passhat: failing on {', '.join(failed)} (--fail-on)", err=True)
    return 1 if failed else 0


@command("compare")
@input_options
@cluster_options
@_apply(PAIRED_OPTIONS)
@_apply(CLASSIFY_OPTIONS)
@json_option("verdicts", "comparison", "cost", "by_category")
@paper_option(scopes=("population", "benchmark"))
@quiet_option("No notes, only the tables.")
def compare_cmd(source: InputSpec, **opts: Any) -> None:
    """Paired difference CAND − BASE on matched tasks, with intervals and p-values.

    RUNS are BASE and CAND, files with one system each; or BASE alone holds several
    systems and --baseline names the one the others are compared to (with two, the
    first is the baseline); or three or more files, each system compared with the first
    file's (or --baseline's). A file without a system column is named after the file.
    """
    if opts["classify"] and opts["paper"] is not None:
        raise OptionError(f"--{opts['paper']} writes the paired comparison's table, not --classify")
    if opts["classify"] and opts["scores"]:
        raise OptionError("--scores compares scores in the paired comparison, not --classify")
    opts["cost"] = opts["cost"] or opts["cost_of"] != "cost"  # --cost-of duration: --cost
    _refuse_by(opts)
    _refuse_cost(opts)
    source = clustered_spec(
        source, cluster_column=opts["cluster_column"], ignore_clusters=opts["ignore_clusters"]
    )
    data_a, data_b = _load(source, opts["quiet"], runs=opts["scores"] or opts["cost"])
    opts["paths"] = source.paths
    if opts["classify"]:
        status = _run_classify(data_a, data_b, opts)
        if status:
            click.get_current_context().exit(status)
        return
    if opts["fail_on"]:
        raise OptionError("--fail-on needs --classify")
    if opts["candidate"] is not None:
        raise OptionError("--candidate needs --classify (the paired comparison takes every system)")
    shared = {
        "k": opts["k"],
        "ci": opts["ci"],
        "n_boot": opts["n_boot"],
        "seed": opts["seed"],
        "intersect": opts["intersect"],
        "baseline": opts["baseline"],
        "weights": None if opts["weights"] == "equal" else opts["weights"],
        "min_runs": opts["min_runs"],
        "multiplicity": _paired_multiplicity(opts["multiplicity"]),
    }
    cmp: Comparison | CategoryComparison | CostComparison
    if opts["cost"]:
        del shared["multiplicity"], shared["min_runs"]  # refused above
        shared["cost_of"] = opts["cost_of"]
        cmp = compare_cost(data_a, data_b, **shared)  # type: ignore[arg-type]
    elif opts["by"] is not None:
        del shared["weights"], shared["multiplicity"]  # checked above: equal, none
        shared["scores"] = opts["scores"]
        cmp = compare_by_category(data_a, data_b, **shared)  # type: ignore[arg-type]
    elif opts["scores"]:
        cmp = compare_scores(data_a, data_b, **shared)  # type: ignore[arg-type]
    else:
        short = "exclude" if opts["min_runs"] is not None else "error"
        cmp = compare(data_a, data_b, on_short=short, **shared)  # type: ignore[arg-type]
    _same_file_note(opts)
    if opts["as_json"]:
        emit_json(cmp.to_dict())
    elif opts["paper"] is not None and isinstance(cmp, Comparison):  # --by: refused above
        emit_paper(cmp, opts["paper"], scope=opts["scope"])
    else:
        show(cmp, quiet=opts["quiet"])


def register(cli: click.Group) -> None:
    """Attach ``compare`` to the CLI group."""
    cli.add_command(compare_cmd)
