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

from passhat._format import row_names
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, check_n_boot
from passhat._version import __version__
from passhat.commands._common import (
    emit_json,
    fmt_num,
    load_input,
    parse_k,
    quiet_option,
    records,
)
from passhat.commands._output import Table, echo, make_console, table_output
from passhat.compare import Comparison, classify, compare
from passhat.errors import OptionError
from passhat.estimators import METRIC_LABELS, as_counts
from passhat.examples import EXAMPLES
from passhat.io import input_stamp
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
    click.option("--k", "k_text", default="1", show_default=True, help="k values: 1,5 or 1-5."),
    click.option("--ci", type=float, default=0.95, show_default=True, help="Confidence level."),
    click.option(
        "--n-boot",
        type=int,
        default=DEFAULT_N_BOOT,
        show_default=True,
        help="Random sign flips and posterior draws.",
    ),
    click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=DEFAULT_SEED,
        show_default=True,
        help="Seed of the sign flips and posterior draws (printed with the results).",
    ),
    click.option(
        "--ci-method",
        type=click.Choice(["bca", "percentile"]),
        default="bca",
        show_default=True,
        help="Accepted for compatibility: a documented rule picks each paired interval.",
    ),
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


def _run_paired(
    data_a: Trials | xr.Dataset,
    data_b: Trials | xr.Dataset | None,
    names: tuple[str, str] | None,
    opts: dict[str, Any],
) -> Comparison:
    ks = parse_k(opts["k_text"])
    check_ci(opts["ci"])
    check_n_boot(opts["n_boot"])
    return compare(
        data_a,
        data_b,
        k=ks,
        ci=opts["ci"],
        n_boot=opts["n_boot"],
        seed=opts["seed"],
        intersect=opts["intersect"],
        baseline=opts["baseline"],
        method=opts["ci_method"],
        names=names,
        weights=None if opts["weights"] == "equal" else opts["weights"],
        on_short="exclude" if opts["min_runs"] is not None else "error",
        min_runs=opts["min_runs"],
    )


def _p(x: float) -> str:
    return "—" if x != x else ("<0.0001" if x < 1e-4 else f"{x:.4f}")


def _print_paired(cmp: Comparison, *, quiet: bool) -> None:
    console = make_console(min_width=120)
    t = cmp.table
    level = cmp.settings["ci"]
    names = METRIC_LABELS
    for cand, part in t.groupby("candidate", sort=False):
        base = str(part["baseline"].iloc[0])
        pop = part[part["scope"] == "population"].reset_index(drop=True)
        bench = part[part["scope"] == "benchmark"].reset_index(drop=True)
        table = Table(
            title=f"{cand} − {base}: paired difference on {int(part['tasks'].iloc[0])} "
            f"matched tasks ({level:g} intervals)"
        )
        for col in (
            "k",
            "metric",
            base,
            str(cand),
            "difference",
            "population",
            "p (pop.)",
            "benchmark",
            "p (bench.)",
        ):
            table.add_column(col, justify="left" if col == "metric" else "right")
        kmin = int(pop["k"].min())
        for (_, p), (_, b) in zip(pop.iterrows(), bench.iterrows(), strict=True):
            if p["metric"] == "mean" and p["k"] != kmin:
                continue
            table.add_row(
                "—" if p["metric"] == "mean" else str(p["k"]),
                names[str(p["metric"])],
                fmt_num(p["base_value"]),
                fmt_num(p["cand_value"]),
                f"{p['difference']:+.3f}",
                f"[{p['lower']:+.3f}, {p['upper']:+.3f}]",
                _p(p["p_value"]),
                f"[{b['lower']:+.3f}, {b['upper']:+.3f}]",
                _p(b["p_value"]),
            )
        console.print(table)
        d = cmp.discordant[cmp.discordant["candidate"] == cand].iloc[0]
        console.print(
            f"k = 1, per task: only {base} succeeded in some run {d['only_base']}, only {cand} "
            f"{d['only_cand']}; higher success rate: {base} {d['base_better']}, {cand} "
            f"{d['cand_better']}, ties {d['ties']}"
        )
        if d["dropped_tasks"]:
            console.print(
                f"dropped {d['dropped_tasks']} task(s) not run by both systems (--intersect)"
            )
        dropped = cmp.dropped[(cmp.dropped["candidate"] == cand) & cmp.dropped["only"].isna()]
        if len(dropped):
            console.print(
                f"left out {len(dropped)} matched task(s) for both systems: "
                + "; ".join(f"{r.task} ({r.reason})" for r in dropped.head(5).itertuples())
                + (" ..." if len(dropped) > 5 else ""),
                markup=False,
                highlight=False,
            )
    console.print(
        f"sign flips and posterior draws: {cmp.settings['n_boot']}, seed {cmp.settings['seed']}"
    )
    if not quiet:
        of = t["candidate"].nunique()
        by = "candidate" if of > 1 else None
        for (scope, method, p_method), rows in t.groupby(
            ["scope", "method", "p_method"], sort=False
        ):
            console.print(
                f"{scope} ({row_names(rows, by=by, of=of)}): interval {method}; p-value {p_method}",
                markup=False,
                highlight=False,
            )
        console.print(
            "population: the expected difference over tasks like these; benchmark: on these "
            "tasks, given their finitely many runs. In each scope the interval excludes 0 "
            f"exactly when p ≤ {1 - level:.2g} (interval and test are one construction)."
        )
        for note in cmp.notes:
            console.print(note, markup=False, highlight=False)


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
    failed = [v for v in fail_on if res.has(v)]
    if opts["as_json"]:
        emit_json(
            {
                "passhat_version": __version__,
                "settings": res.settings,
                "counts": res.counts,
                "summary": res.summary(),
                "note": res.settings_text(),
                "verdicts": records(res.table),
                "excluded": records(res.excluded),
                "fail_on": fail_on,
                "failed": failed,
            }
        )
        return 1 if failed else 0
    console = make_console(min_width=120)
    shown = res.table[~res.table["verdict"].isin(["stable_pass", "stable_fail"])]
    if len(shown) and not opts["quiet"]:
        t = Table(title="Tasks that changed, flaked or cannot be decided yet")
        cols = ("task", "verdict", "base c/n", "cand c/n", "p (regr.)", "adj.", "p (fixed)", "adj.")
        for col in (*cols, "note"):
            t.add_column(col, justify="left" if col in ("task", "verdict", "note") else "right")
        for _, r in shown.iterrows():
            t.add_row(
                str(r["task"]),
                str(r["verdict"]),
                f"{r['c_base']}/{r['n_base']}",
                f"{r['c_cand']}/{r['n_cand']}",
                f"{r['p_regression']:.3f}",
                f"{r['p_regression_adj']:.3f}",
                f"{r['p_fixed']:.3f}",
                f"{r['p_fixed_adj']:.3f}",
                str(r["note"]),
            )
        console.print(t)
    if len(res.excluded) and not opts["quiet"]:
        for reason, part in res.excluded.groupby("reason"):
            console.print(
                f"not compared, {reason}: {', '.join(map(str, part['task'].tolist()[:10]))}"
                + (" ..." if len(part) > 10 else "")
            )
    echo(res.summary())
    if not opts["quiet"]:
        echo(res.settings_text())
    if failed:
        echo(f"passhat: failing on {', '.join(failed)} (--fail-on)", err=True)
    return 1 if failed else 0


@click.command("compare")
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
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("verdicts", "comparison")
@quiet_option("No notes, only the tables.")
def compare_cmd(**opts: Any) -> None:
    """Paired difference CAND − BASE on matched tasks, with intervals and p-values.

    BASE and CAND are files with one system each, or BASE alone holds several
    systems and --baseline names the one the others are compared to.
    """
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
    cmp = _run_paired(data_a, data_b, names, opts)
    _same_file_note(opts)
    if opts["as_json"]:
        emit_json(
            {
                "passhat_version": __version__,
                "input": {
                    "base": input_stamp(data_a),
                    **({"cand": input_stamp(data_b)} if data_b is not None else {}),
                },
                "settings": cmp.settings,
                "comparison": records(cmp.table),
                "discordant": records(cmp.discordant),
                "dropped": records(cmp.dropped),
                "notes": list(cmp.notes),
            }
        )
        return
    _print_paired(cmp, quiet=opts["quiet"])


def register(cli: click.Group) -> None:
    """Attach ``compare`` to the CLI group."""
    cli.add_command(compare_cmd)
