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
from typing import Any

import click
import xarray as xr

from passhat.commands._common import load_input, quiet_option
from passhat.commands._options import (
    ci_option,
    command,
    json_option,
    k_option,
    n_boot_option,
    paper_option,
    seed_option,
)
from passhat.commands._output import echo, emit_json, emit_paper, show
from passhat.compare import classify, compare
from passhat.errors import OptionError
from passhat.estimators import as_counts
from passhat.examples import EXAMPLES
from passhat.trials import Trials

__all__ = ["register"]


def _load_pair(
    opts: dict[str, Any],
) -> tuple[Trials | xr.Dataset, Trials | xr.Dataset | None, tuple[str, str] | None]:
    """Read BASE (and CAND): two files, or one file/example with several systems."""
    read_opts = {
        "fmt": opts["fmt"],
        "maps": opts["maps"],
        "threshold": opts["threshold"],
        "quiet": bool(opts.get("quiet")),
    }
    base, cand, example = opts["base"], opts["cand"], opts["example"]
    if example is not None:
        if base is not None or cand is not None:
            raise OptionError("give input files or --example, not both")
        return load_input(None, example=example, **read_opts), None, None
    if base is None:
        raise OptionError("no input: give BASE and CAND files (or one file and --baseline NAME)")
    data_a = load_input(base, example=None, **read_opts)
    if cand is None:
        return data_a, None, None
    data_b = load_input(cand, example=None, **read_opts)
    sa = [str(s) for s in as_counts(data_a)["system"].values]
    sb = [str(s) for s in as_counts(data_b)["system"].values]
    names = None
    if len(sa) == 1 and len(sb) == 1 and sa == sb:
        stems = (Path(base).stem, Path(cand).stem)
        names = stems if stems[0] != stems[1] else ("base", "cand")
    return data_a, data_b, names


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
    click.option(
        "--weights",
        type=click.Choice(["equal", "declared", "category"]),
        default="equal",
        show_default=True,
        help="Task weights of the compared average (shared by both systems).",
    ),
    click.option(
        "--baseline",
        default=None,
        help="With one input holding several systems: the system the others are compared to.",
    ),
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
        default="holm",
        show_default=True,
        help="With --classify: holm bounds P(any false regression) by --alpha (FWER); bh the "
        "share of false flags (FDR); none tests each task at --alpha alone.",
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


def _same_file_note(opts: dict[str, Any]) -> None:
    """Say so when BASE and CAND are one file (after the results: an error stays one line)."""
    base, cand = opts["base"], opts["cand"]
    if cand is not None and not opts["quiet"] and Path(base).resolve() == Path(cand).resolve():
        echo(
            f"passhat: note: BASE and CAND are the same file ({cand}): the differences are 0 by "
            "construction (the intervals show only the method's noise)",
            err=True,
        )


def _run_classify(
    data_a: Trials | xr.Dataset,
    data_b: Trials | xr.Dataset | None,
    names: tuple[str, str] | None,
    opts: dict[str, Any],
) -> int:
    """``compare --classify``: print verdicts; return 1 when a --fail-on verdict is found."""
    res = classify(
        data_a,
        data_b,
        alpha=opts["alpha"],
        min_runs=opts["min_runs"] if opts["min_runs"] is not None else 3,
        multiplicity=opts["multiplicity"],
        base_system=opts["baseline"],
        cand_system=opts["candidate"],
        names=names,
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
@click.argument("base", required=False, type=click.Path(dir_okay=True, readable=False))
@click.argument("cand", required=False, type=click.Path(dir_okay=True, readable=False))
@click.option(
    "--example",
    type=click.Choice(sorted(EXAMPLES)),
    default=None,
    help="Use a bundled example (several systems) instead of files.",
)
@click.option("--format", "fmt", default=None, help="Input format (sniffed when omitted).")
@click.option(
    "--map", "maps", multiple=True, metavar="FIELD=COLUMN", help="Column map for tidy files."
)
@click.option("--threshold", type=float, default=None, help="Numeric score → success when ≥ this.")
@_apply(PAIRED_OPTIONS)
@_apply(CLASSIFY_OPTIONS)
@json_option("verdicts", "comparison")
@paper_option(scopes=("population", "benchmark"))
@quiet_option("No notes, only the tables.")
def compare_cmd(**opts: Any) -> None:
    """Paired difference CAND − BASE on matched tasks, with intervals and p-values.

    BASE and CAND are files with one system each, or BASE alone holds several
    systems and --baseline names the one the others are compared to.
    """
    if opts["classify"] and opts["paper"] is not None:
        raise OptionError(f"--{opts['paper']} writes the paired comparison's table, not --classify")
    data_a, data_b, names = _load_pair(opts)
    if opts["classify"]:
        status = _run_classify(data_a, data_b, names, opts)
        if status:
            click.get_current_context().exit(status)
        return
    if opts["fail_on"]:
        raise OptionError("--fail-on needs --classify")
    if opts["candidate"] is not None:
        raise OptionError("--candidate needs --classify (the paired comparison takes every system)")
    cmp = compare(
        data_a,
        data_b,
        k=opts["k"],
        ci=opts["ci"],
        n_boot=opts["n_boot"],
        seed=opts["seed"],
        intersect=opts["intersect"],
        baseline=opts["baseline"],
        names=names,
        weights=None if opts["weights"] == "equal" else opts["weights"],
        on_short="exclude" if opts["min_runs"] is not None else "error",
        min_runs=opts["min_runs"],
    )
    _same_file_note(opts)
    if opts["as_json"]:
        emit_json(cmp.to_dict())
    elif opts["paper"] is not None:
        emit_paper(cmp, opts["paper"], scope=opts["scope"])
    else:
        show(cmp, quiet=opts["quiet"])


def register(cli: click.Group) -> None:
    """Attach ``compare`` to the CLI group."""
    cli.add_command(compare_cmd)
