"""``passhat spread``: clustered vs uniform failures, from runs or from a published pair."""

from __future__ import annotations

import math
from typing import Any

import click

from passhat._format import fmt_ratio, pct
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_ci, check_n_boot
from passhat._version import __version__
from passhat.commands._common import (
    InputSpec,
    default_ks,
    emit_json,
    input_options,
    parse_k,
    quiet_option,
    records,
)
from passhat.commands._output import Table, make_console, table_output
from passhat.errors import OptionError
from passhat.io import input_stamp
from passhat.spread import spread, spread_from_summary
from passhat.spread.from_summary import kappa_text

__all__ = ["register"]


def _rate(text: str | None, name: str) -> float | None:
    """Parse 0.774 or 77.4% into a fraction."""
    if text is None:
        return None
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
    except ValueError as err:
        raise OptionError(f"{name}: {text!r} is not a number (write 0.774 or 77.4%)") from err
    if not 0.0 <= value <= 1.0 or not math.isfinite(value):
        raise OptionError(f"{name}: {text!r} is outside [0, 1] (write 0.774 or 77.4%)")
    return value


@click.command("spread")
@input_options
@click.option("--mean", "mean_text", default=None, help="Published Mean@k (0.774 or 77.4%).")
@click.option("--pass-hat", "hat_text", default=None, help="Published pass^k (0.530 or 53%).")
@click.option(
    "--k", "k_text", default=None, help="k of the pair (one value), or k values for runs."
)
@click.option("--label", default=None, help="Name of the published row.")
@click.option(
    "--runs", type=int, default=None, help="Runs per task for the mixed-share prediction."
)
@click.option(
    "--mixed-share", "mixed_text", default=None, help="Published share of flaky tasks to check."
)
@click.option(
    "--predict-k",
    "predict_text",
    default="1,2,3,5,10",
    show_default=True,
    help="k values at which the implied Beta predicts pass^k.",
)
@click.option(
    "--min-runs",
    type=int,
    default=None,
    help="Runs: exclude tasks with fewer decided runs than this, and tasks with n < k, listing "
    "them.",
)
@click.option(
    "--ci",
    type=float,
    default=0.95,
    show_default=True,
    help="Runs: level of the population intervals; the clustering test runs at 1 − ci.",
)
@click.option(
    "--n-boot",
    type=int,
    default=DEFAULT_N_BOOT,
    show_default=True,
    help="Runs: bootstrap resamples and Monte Carlo draws of the clustering test.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=DEFAULT_SEED,
    show_default=True,
    help="Runs: seed of every random step (printed with the results).",
)
@quiet_option("No notes, only the tables.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@table_output("spread")
def spread_cmd(
    source: InputSpec,
    mean_text: str | None,
    hat_text: str | None,
    k_text: str | None,
    label: str | None,
    runs: int | None,
    mixed_text: str | None,
    predict_text: str,
    min_runs: int | None,
    ci: float,
    n_boot: int,
    seed: int,
    as_json: bool,
) -> None:
    """Measured pass^k against the uniform-spread reference Mean^k.

    From runs (a file or --example): per system and k, the ratio with its
    population interval, the consistency pass^k/Mean, the flaky share, which
    tasks carry the gap, and a test of whether the tasks' success rates
    differ at all ("clustered" is that test's decision). From a published
    pair (--mean, --pass-hat, --k): the same ratio and the Beta
    heterogeneity the pair implies; an impossible pair is an error.
    """
    summary_mode = mean_text is not None or hat_text is not None
    if summary_mode:
        if min_runs is not None:
            raise OptionError("--min-runs applies to runs (a file or --example) only")
        if source.given:
            raise OptionError("give runs (a file or --example) or --mean/--pass-hat, not both")
        mean = _rate(mean_text, "--mean")
        hat = _rate(hat_text, "--pass-hat")
        if mean is None or hat is None or k_text is None:
            raise OptionError("a published pair needs --mean, --pass-hat and --k")
        ks = parse_k(k_text)
        if len(ks) != 1:
            raise OptionError(f"--k: a published pair has one k (got {k_text!r})")
        res = spread_from_summary(
            mean=mean,
            pass_hat_k=hat,
            k=ks[0],
            label=label,
            predict_k=parse_k(predict_text, option="--predict-k"),
            runs=runs,
            mixed_share=_rate(mixed_text, "--mixed-share"),
        )
        if res.impossible:
            raise OptionError(f"--mean/--pass-hat/--k: {res.reason}")
        if as_json:
            emit_json({"passhat_version": __version__, "spread": res.to_dict()})
            return
        _print_summary(res)
        return
    if label is not None or runs is not None or mixed_text is not None:
        raise OptionError("--label, --runs and --mixed-share apply to a published pair only")
    level = check_ci(ci)
    check_n_boot(n_boot)
    data = source.load()
    sp = spread(
        data,
        k=parse_k(k_text) if k_text is not None else default_ks(data),
        on_short="exclude" if min_runs is not None else "error",
        min_runs=min_runs,
        ci=level,
        n_boot=n_boot,
        seed=seed,
    )
    if as_json:
        top = sp.contributions
        emit_json(
            {
                "passhat_version": __version__,
                "input": input_stamp(data),
                "settings": sp.settings,
                "method": sp.method,
                "spread": records(sp.table),
                "shares": records(sp.shares),
                "heterogeneity": records(sp.heterogeneity),
                "contributions": records(top),
                "excluded": records(sp.excluded),
                "notes": sp.notes,
            }
        )
        return
    console = make_console()
    table = Table(
        title="passhat spread: measured pass^k vs uniform-spread reference mean^k "
        "(CI: population scope, tasks like these)"
    )
    cols = (
        "system",
        "k",
        "mean",
        "pass^k",
        "mean^k",
        f"ratio ({level:.0%} CI)",
        "pass^k/mean",
        "flaky",
        "gap",
    )
    for col in cols:
        table.add_column(col, justify="left" if col == "system" else "right")
    for _, r in sp.table.iterrows():
        table.add_row(
            str(r["system"]),
            str(r["k"]),
            pct(r["mean"]),
            pct(r["pass_hat_k"]),
            pct(r["uniform"]),
            f"{_times(r['ratio'])} ({_span(r.get('ratio_lower'), r.get('ratio_upper'))})",
            _two(r["consistency"]),
            pct(r["flaky_share"]),
            f"{r['gap'] * 100:.1f} pts",
        )
    console.print(table)
    het = Table(
        title="Do the tasks' success rates differ? (Tarone's test of one common rate, "
        "independent runs)"
    )
    for col in ("system", "tasks", "runs", "Z", "p-value", f"clustered (α = {1 - level:.2g})"):
        het.add_column(col, justify="left" if col == "system" else "right")
    het.add_column(f"ICC ({level:.0%} interval)", justify="right")
    for _, h in sp.heterogeneity.iterrows():
        het.add_row(
            str(h["system"]),
            str(h["tasks"]),
            str(h["runs"]),
            _two(h["statistic"]),
            f"{h['p_value']:.3g}" if h["testable"] else "—",
            ("yes" if h["clustered"] else "no") if h["testable"] else f"untested: {h['reason']}",
            f"{_two(h['icc'])} ({_span(h.get('icc_lower'), h.get('icc_upper'), two=True)})",
        )
    console.print(het)
    kmax = int(sp.table["k"].max())
    for system in sp.table["system"].unique():
        console.print(f"{system}: {sp.sentence(system, kmax)}", markup=False, highlight=False)
    for note in sp.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    console.print(f"bootstrap and test: {n_boot} resamples, seed {seed}")
    if len(sp.excluded):
        for reason, grp in sp.excluded.groupby("reason", sort=False):
            names = ", ".join(str(t) for t in grp["task"].head(8))
            more = f" and {len(grp) - 8} more" if len(grp) > 8 else ""
            console.print(
                f"excluded {len(grp)} task(s): {reason} ({names}{more})",
                markup=False,
                highlight=False,
            )


def _times(x: float) -> str:
    """A ratio with ×, or — when undefined (0/0)."""
    return "—" if math.isnan(float(x)) else fmt_ratio(float(x)) + "×"


def _span(lo: Any, hi: Any, *, two: bool = False) -> str:
    """An interval as lo–hi (ratios with ×), or — when missing."""
    if lo is None or hi is None or not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        return "—"
    if two:
        return f"{float(lo):.2f}–{float(hi):.2f}"
    return f"{fmt_ratio(float(lo))}–{fmt_ratio(float(hi))}×"


def _two(x: float) -> str:
    """Two decimals, or — when undefined (0/0)."""
    return "—" if not math.isfinite(float(x)) else f"{float(x):.2f}"


def _print_summary(res: Any) -> None:
    console = make_console()
    title = f"passhat spread: {res.label}" if res.label else "passhat spread"
    table = Table(title=title)
    for col in ("k", "mean", "pass^k", "mean^k (uniform)", "ratio", "pass^k/mean", "gap"):
        table.add_column(col, justify="right")
    table.add_row(
        str(res.k),
        pct(res.mean),
        pct(res.pass_hat_k),
        pct(res.uniform),
        _times(res.ratio),
        _two(res.consistency),
        f"{res.gap * 100:.1f} pts",
    )
    console.print(table)
    if res.beta is not None:
        b = res.beta
        bt = Table(title=f"Implied Beta spread: {kappa_text(b.kappa)}, ICC = {b.icc:.2f}")
        for col in ("k", "pass^k (Beta)", "pass@k (Beta)", "mixed tasks in k runs"):
            bt.add_column(col, justify="right")
        for kv in sorted(b.pass_hat_k):
            bt.add_row(
                str(kv),
                pct(b.pass_hat_k[kv]),
                pct(b.pass_at_k[kv]),
                pct(b.mixed_share.get(kv, float("nan"))),
            )
        console.print(bt)
    console.print(res.sentence(), markup=False, highlight=False)


def register(cli: click.Group) -> None:
    """Attach ``spread`` to the CLI group."""
    cli.add_command(spread_cmd)
