"""Figures of passhat results (matplotlib, object API: no pyplot state, no display needed).

Each ``plot_*`` function takes the data (trials or a count table), a result
(:class:`~passhat.Fit`, :class:`~passhat.spread.Spread`) or the tidy frame the
report draws from, and returns a :class:`matplotlib.figure.Figure` that is not
registered with pyplot: nothing is shown or kept open behind your back, and in a
notebook the figure displays itself as a PNG. The report saves the same figures
as PNG (embedded in ``index.html``) and SVG.

=========================  ==================================================
:func:`plot_spread`        pass^k and pass@k over k, with mean^k, per system
:func:`plot_rates`         histogram of per-task success rates c/n
:func:`plot_gap`           which tasks carry the gap mean − pass^k
:func:`plot_ppc`           posterior predictive check of a fitted model
=========================  ==================================================

Examples
--------
>>> import passhat as ph
>>> fig = ph.plot_rates(ph.load_example("agents"))
>>> type(fig).__name__, [ax.get_xlabel() for ax in fig.axes][:1]
('Figure', ['per-task success rate c/n (mixed tasks in 10 bins)'])
"""

from __future__ import annotations

import functools
import io
import math
from typing import Any

import numpy as np
import pandas as pd

from passhat._format import printable, short
from passhat._validate import check_k
from passhat.estimators import as_counts
from passhat.report.figure_data import curve_frame, ppc_frame, rate_frame
from passhat.spread import spread

__all__ = [
    "PALETTE",
    "plot_gap",
    "plot_ppc",
    "plot_rates",
    "plot_spread",
]

#: Okabe–Ito colours (distinguishable with the common colour-vision deficiencies).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

#: Panels per row of the per-system figures.
PANELS_PER_ROW = 3


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    return buf.getvalue()


#: Figure width (inches) from which the spread figure's four legend entries fit in one row.
LEGEND_ONE_ROW_INCHES = 9.0


def _figure(width: float = 7.0, height: float = 4.0) -> Any:
    """A Figure outside pyplot that a notebook still displays (its ``_repr_png_``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    fig._repr_png_ = functools.partial(_png, fig)  # type: ignore[attr-defined]  # IPython hook
    return fig


def _name(value: Any, limit: int = 40) -> str:
    """A name from the data as literal figure text: ``$`` escaped (it would start mathtext),
    control characters shown as escapes (:func:`passhat._format.printable`), at most ``limit``
    characters (then "…").

    Examples
    --------
    >>> print(_name("v1 $x^$\\x1b[2J"))
    v1 \\$x^\\$\\x1b[2J
    """
    return printable(short(str(value), limit)).replace("$", r"\$")


def _panels(n: int, *, width: float, height: float) -> tuple[Any, list[Any]]:
    """A figure with one panel per system (rows of :data:`PANELS_PER_ROW`), shared y axis."""
    cols = min(max(n, 1), PANELS_PER_ROW)
    rows = math.ceil(max(n, 1) / cols)
    fig = _figure(max(width, 3.6 * cols), height * rows + 0.5)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _pct_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def _is_data(data: Any) -> bool:
    """Trials or a count table (not a frame the report has already computed)."""
    return not isinstance(data, pd.DataFrame)


# --------------------------------------------------------------- spread curve
def plot_spread(
    data: Any,
    *,
    kmax: int | None = None,
    ci: float | None = 0.95,
    seed: int | None = 0,
    n_boot: int = 2000,
    weights: Any = None,
) -> Any:
    """pass^k and pass@k over k, with their intervals and the uniform-spread curve mean^k.

    One panel per system (so that two systems' interval bands never overlap),
    the same y axis in each, one legend above them.

    Parameters
    ----------
    data : Trials, xarray.Dataset or pandas.DataFrame
        Trials or a count table (the curve is computed with
        :func:`passhat.estimate` at k = 1..kmax, population-scope intervals), or
        the report's curve frame (columns system, k, metric ("pass_hat_k" |
        "pass_at_k"), value, lower, upper, uniform).
    kmax : int, optional
        Largest k (default: the fewest decided runs of a task, at most 20).
    ci, seed, n_boot, weights
        As in :func:`passhat.estimate` (``ci=None``: no bands).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import passhat as ph
    >>> fig = ph.plot_spread(ph.load_example("agents"), kmax=5, n_boot=200)
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[0].get_lines())  # 3 curves
    (['baseline', 'guided'], 3)
    """
    if _is_data(data):
        ds = as_counts(data)
        if kmax is None:
            n = ds["n"].values[ds["present"].values.astype(bool)]
            kmax = int(min(max(int(n.min()) if n.size else 1, 1), 20))
        curve = curve_frame(ds, kmax=kmax, ci=ci, seed=seed, n_boot=n_boot, weights=weights)
    else:
        curve = data
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    systems = list(pd.unique(curve["system"]))
    fig, axes = _panels(len(systems), width=6.0, height=3.4)
    ks = sorted(curve["k"].unique())
    has_band = bool(curve["lower"].notna().any())
    for i, (ax, system) in enumerate(zip(axes, systems, strict=True)):
        part = curve[curve["system"] == system]
        color = PALETTE[i % len(PALETTE)]
        for metric, style in (("pass_hat_k", "-"), ("pass_at_k", ":")):
            p = part[part["metric"] == metric].sort_values("k")
            ax.plot(p["k"], p["value"], style, color=color, marker="o", ms=4)
            if p["lower"].notna().any():
                ax.fill_between(p["k"], p["lower"], p["upper"], color=color, alpha=0.18, lw=0)
        u = part[part["metric"] == "pass_hat_k"].sort_values("k")
        ax.plot(u["k"], u["uniform"], "--", color="0.35", lw=1.2)
        ax.set_title(_name(system), fontsize=10)
        ax.set_xticks(ks)
        ax.set_xlabel("k")
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_formatter(_pct_formatter())
        ax.grid(alpha=0.3)
    if axes:
        axes[0].set_ylabel("share of tasks")
    handles: list[Any] = [
        Line2D([], [], color="0.2", ls="-", marker="o", ms=4, label="pass^k: all k runs pass"),
        Line2D([], [], color="0.2", ls=":", marker="o", ms=4, label="pass@k: one of k passes"),
        Line2D([], [], color="0.35", ls="--", lw=1.2, label="mean^k: uniform spread"),
    ]
    if has_band:
        handles.append(Patch(color="0.2", alpha=0.18, lw=0, label="interval (population)"))
    # four entries in one row need about 9 inches at this size: narrower, two rows of two
    # (one row was cut off at both ends of a one-panel figure)
    ncols = len(handles) if fig.get_figwidth() >= LEGEND_ONE_ROW_INCHES else 2
    fig.legend(handles=handles, loc="outside upper center", ncols=ncols, fontsize=8)
    fig.get_layout_engine().set(h_pad=0.04)
    return fig


# ----------------------------------------------------------- rate histogram
def plot_rates(data: Any) -> Any:
    """Histogram of per-task success rates c/n, one bar group per system.

    Always-fail and always-pass tasks get their own bars at the ends; mixed
    tasks fall into ten bins between.

    Parameters
    ----------
    data : Trials, xarray.Dataset or pandas.DataFrame
        Trials or a count table, or a frame with columns system, rate.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> rates = pd.DataFrame({"system": "s", "rate": [0.0, 0.4, 1.0, 1.0]})
    >>> len(plot_rates(rates).axes[0].patches)  # all fail, 10 bins, all pass
    12
    """
    if _is_data(data):
        ds = as_counts(data)
        mask = ds["present"].values.astype(bool) & (ds["n"].values > 0)
        rates = rate_frame(
            ds["system"].values, ds["task"].values, ds["n"].values, ds["c"].values, mask
        )
    else:
        rates = data
    fig = _figure(6.0, 3.6)
    ax = fig.add_subplot()
    systems = list(pd.unique(rates["system"]))
    edges = np.linspace(0, 1, 11)
    width = 0.085 / max(len(systems), 1)
    centres = (edges[:-1] + edges[1:]) / 2
    handles: list[Any] = []
    for i, system in enumerate(systems):
        r = rates.loc[rates["system"] == system, "rate"].to_numpy()
        # 0 and 1 get their own bins so that always-fail / always-pass stand out
        cnt = [
            float((r == 0).sum()),
            *np.histogram(r[(r > 0) & (r < 1)], bins=edges)[0].astype(float),
            float((r == 1).sum()),
        ]
        xs = np.concatenate([[-0.14], centres, [1.14]]) + (i - (len(systems) - 1) / 2) * width
        share = np.asarray(cnt) / max(len(r), 1)
        handles.append(ax.bar(xs, share, width=width, color=PALETTE[i % len(PALETTE)]))
    ax.set_xticks([-0.14, 0.05, 0.25, 0.5, 0.75, 0.95, 1.14])
    ax.set_xticklabels(["all fail", "5%", "25%", "50%", "75%", "95%", "all pass"], fontsize=8)
    ax.axvline(-0.045, color="grey", lw=0.6, ls=":")
    ax.axvline(1.045, color="grey", lw=0.6, ls=":")
    ax.set_xlabel("per-task success rate c/n (mixed tasks in 10 bins)")
    ax.set_ylabel("share of tasks")
    ax.yaxis.set_major_formatter(_pct_formatter())
    ax.grid(alpha=0.3, axis="y")
    # labels passed explicitly: matplotlib leaves out a label starting with "_" otherwise
    ax.legend(handles, [_name(x) for x in systems], fontsize=8, frameon=False)
    return fig


# -------------------------------------------------------- gap concentration
def plot_gap(data: Any, *, k: int | None = None, tasks: dict[str, int] | None = None) -> Any:
    """Cumulative share of the gap mean − pass^k against the share of tasks, worst first.

    Parameters
    ----------
    data : Trials, xarray.Dataset, Spread or pandas.DataFrame
        Trials or a count table (the spread at ``k`` is computed), a
        :class:`~passhat.spread.Spread`, or the report's concentration frame
        (columns system, task_share, cumulative: tasks with a positive
        contribution, worst first).
    k : int, optional
        The k of the gap (default: the largest k of a Spread; for data 5, or
        the fewest decided runs of a task when that is smaller).
    tasks : dict, optional
        With a frame: tasks per system (the systems drawn, in order).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> conc = pd.DataFrame({"system": "s", "task_share": [0.25, 0.5], "cumulative": [0.7, 1.0]})
    >>> fig = plot_gap(conc, tasks={"s": 4})
    >>> fig.axes[0].get_xlabel()
    'share of tasks (largest contribution first)'
    """
    if k is not None:
        k = check_k(k)  # k=True would draw the k = 1 gap
    if isinstance(data, pd.DataFrame):
        concentration = data
        if tasks is None:
            tasks = {str(s): 0 for s in pd.unique(data["system"])}
    else:
        if not hasattr(data, "contributions"):
            if k is None:  # 5, or the fewest decided runs of a task when that is smaller
                n = as_counts(data)["n"].values
                k = int(max(1, min(5, n[n > 0].min()))) if (n > 0).any() else 1
            data = spread(data, k=[k])
        k = int(k or data.table["k"].max())
        cb = data.contributions
        concentration = cb[cb["k"] == k]
        tasks = {str(r.system): int(r.tasks) for r in data.shares.itertuples()}
    fig = _figure(6.0, 3.6)
    ax = fig.add_subplot()
    handles: list[Any] = []
    for i, system in enumerate(tasks):
        part = concentration[concentration["system"] == system]
        x = np.concatenate([[0.0], part["task_share"].to_numpy(), [1.0]])
        last = part["cumulative"].iloc[-1] if len(part) else 0.0
        y = np.concatenate([[0.0], part["cumulative"].to_numpy(), [last]])
        handles += ax.step(x, y, where="post", color=PALETTE[i % len(PALETTE)])
    handles += ax.plot([0, 1], [0, 1], ":", color="grey", lw=1)
    ax.set_xlabel("share of tasks (largest contribution first)")
    ax.set_ylabel("cumulative share of the gap")
    ax.xaxis.set_major_formatter(_pct_formatter())
    ax.yaxis.set_major_formatter(_pct_formatter())
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    # labels passed explicitly: matplotlib leaves out a label starting with "_" otherwise
    labels = [_name(x) for x in tasks] + ["gap spread evenly over tasks"]
    ax.legend(handles, labels, fontsize=8, frameon=False, loc="lower right")
    return fig


# ---------------------------------------------------------------------- PPC
def plot_ppc(fit: Any, *, ci: float = 0.9) -> Any:
    """Posterior predictive check: observed histogram of c/n vs replicated benchmarks.

    Parameters
    ----------
    fit : passhat.Fit or pandas.DataFrame
        A fitted model, or the table of :meth:`passhat.Fit.ppc` (columns
        system, bin, label, observed, expected, lower, upper, ci).
    ci : float
        Interval of the replicated counts (when ``fit`` is a Fit).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per system: bars = observed tasks per bin, points with
        bars = replicated mean and interval (whole tasks, rounded outward as
        in the report's table).

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=200)
    >>> len(ph.plot_ppc(f).axes)
    1
    """
    from matplotlib.patches import Patch

    table = ppc_frame(fit, ci=ci)
    systems = list(pd.unique(table["system"]))
    fig, axes = _panels(len(systems), width=5.0, height=3.4)
    level = float(table["ci"].iloc[0]) if "ci" in table and len(table) else ci
    for i, (ax, system) in enumerate(zip(axes, systems, strict=True)):
        part = table[table["system"] == system].sort_values("bin")
        x = np.arange(len(part))
        color = PALETTE[i % len(PALETTE)]
        ax.bar(x, part["observed"], color=color, alpha=0.35, label="observed")
        err = np.vstack([part["expected"] - part["lower"], part["upper"] - part["expected"]]).clip(
            min=0
        )
        ax.errorbar(
            x,
            part["expected"],
            yerr=err,
            fmt="o",
            color="black",
            ms=4,
            capsize=3,
            label=f"replicated: mean and {level:.0%} interval",
        )
        ax.set_xticks(x)
        ax.set_xticklabels(part["label"], rotation=45 if len(part) > 7 else 0, fontsize=8)
        ax.set_xlabel("successes / runs per task")
        ax.set_title(_name(system), fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    if axes:
        axes[0].set_ylabel("tasks")
        _, labels = axes[0].get_legend_handles_labels()
        bar = Patch(color="0.5", alpha=0.35, lw=0, label=labels[0])
        handles = [bar, axes[0].get_legend_handles_labels()[0][1]]
        fig.legend(handles, labels, loc="outside upper center", ncols=2, fontsize=8)
    return fig
