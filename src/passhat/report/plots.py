"""Figures of the report (matplotlib, object API: no pyplot state, no display needed).

Each function takes plain data and returns a :class:`matplotlib.figure.Figure`;
the renderer saves it as PNG (embedded in ``index.html``) and SVG. Names from the
data are drawn as literal text (:func:`figure_text`): a ``$`` never starts
mathtext, control characters are shown escaped, long names are shortened.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from passhat._format import printable, short

__all__ = [
    "PALETTE",
    "figure_text",
    "plot_gap_concentration",
    "plot_ppc",
    "plot_rate_histogram",
    "plot_spread_curve",
]

#: Okabe–Ito colours (distinguishable with the common colour-vision deficiencies).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def figure_text(name: Any, limit: int = 40) -> str:
    """A name as matplotlib text that is drawn as it reads: ``$`` escaped (no mathtext),
    control characters shown as escapes, at most ``limit`` characters (then "…").

    Examples
    --------
    >>> print(figure_text("v1 $x^$"))
    v1 \\$x^\\$
    """
    return printable(short(str(name), limit)).replace("$", r"\$")


def _figure(width: float = 7.0, height: float = 4.0) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def plot_spread_curve(curve: pd.DataFrame) -> Any:
    """pass^k and pass@k over k with interval bands and the uniform curve mean^k.

    Parameters
    ----------
    curve : pandas.DataFrame
        Columns system, k, metric ("pass_hat_k" | "pass_at_k"), value, lower,
        upper (NaN when there are no intervals), uniform (mean^k).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"system": "s", "k": [1, 2, 1, 2],
    ...                       "metric": ["pass_hat_k"] * 2 + ["pass_at_k"] * 2,
    ...                       "value": [0.6, 0.45, 0.6, 0.75], "lower": float("nan"),
    ...                       "upper": float("nan"), "uniform": [0.6, 0.36, 0.6, 0.36]})
    >>> len(plot_spread_curve(curve).axes[0].get_lines())  # pass^k, pass@k, mean^k
    3
    """
    fig = _figure()
    ax = fig.add_subplot()
    for i, (system, part) in enumerate(curve.groupby("system", sort=False)):
        color = PALETTE[i % len(PALETTE)]
        for metric, style, label in (
            ("pass_hat_k", "-", "pass^k"),
            ("pass_at_k", ":", "pass@k"),
        ):
            p = part[part["metric"] == metric].sort_values("k")
            ax.plot(
                p["k"],
                p["value"],
                style,
                color=color,
                marker="o",
                ms=4,
                label=f"{figure_text(system)}: {label}",
            )
            if p["lower"].notna().any():
                ax.fill_between(p["k"], p["lower"], p["upper"], color=color, alpha=0.15, lw=0)
        u = part[part["metric"] == "pass_hat_k"].sort_values("k")
        ax.plot(
            u["k"],
            u["uniform"],
            "--",
            color=color,
            alpha=0.8,
            lw=1.2,
            label=f"{figure_text(system)}: mean^k (uniform spread)",
        )
    ks = sorted(curve["k"].unique())
    ax.set_xticks(ks)
    ax.set_xlabel("k (runs that must all pass / of which one must pass)")
    ax.set_ylabel("share of tasks")
    ax.set_ylim(-0.02, 1.02)
    ax.yaxis.set_major_formatter(_pct_formatter())
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def plot_rate_histogram(rates: pd.DataFrame) -> Any:
    """Histogram of per-task success rates c/n, one bar group per system.

    Parameters
    ----------
    rates : pandas.DataFrame
        Columns system, rate.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> rates = pd.DataFrame({"system": "s", "rate": [0.0, 0.4, 1.0, 1.0]})
    >>> len(plot_rate_histogram(rates).axes[0].patches)  # all fail, 10 bins, all pass
    12
    """
    fig = _figure(7.0, 3.4)
    ax = fig.add_subplot()
    systems = list(pd.unique(rates["system"]))
    edges = np.linspace(0, 1, 11)
    width = 0.085 / max(len(systems), 1)
    centres = (edges[:-1] + edges[1:]) / 2
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
        ax.bar(xs, share, width=width, color=PALETTE[i % len(PALETTE)], label=figure_text(system))
    ax.set_xticks([-0.14, 0.05, 0.25, 0.5, 0.75, 0.95, 1.14])
    ax.set_xticklabels(["all fail", "5%", "25%", "50%", "75%", "95%", "all pass"], fontsize=8)
    ax.axvline(-0.045, color="grey", lw=0.6, ls=":")
    ax.axvline(1.045, color="grey", lw=0.6, ls=":")
    ax.set_xlabel("per-task success rate c/n (mixed tasks in 10 bins)")
    ax.set_ylabel("share of tasks")
    ax.yaxis.set_major_formatter(_pct_formatter())
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, frameon=False)
    return fig


def plot_gap_concentration(concentration: pd.DataFrame, tasks: dict[str, int]) -> Any:
    """Cumulative share of the gap mean − pass^k against the share of tasks, worst first.

    Parameters
    ----------
    concentration : pandas.DataFrame
        Columns system, task_share, cumulative (tasks with a positive
        contribution, worst first).
    tasks : dict
        Number of tasks per system (for the x axis end).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> conc = pd.DataFrame({"system": "s", "task_share": [0.25, 0.5], "cumulative": [0.7, 1.0]})
    >>> fig = plot_gap_concentration(conc, {"s": 4})
    >>> fig.axes[0].get_xlabel()
    'share of tasks (largest contribution first)'
    """
    fig = _figure(6.0, 3.6)
    ax = fig.add_subplot()
    for i, system in enumerate(tasks):
        part = concentration[concentration["system"] == system]
        x = np.concatenate([[0.0], part["task_share"].to_numpy(), [1.0]])
        last = part["cumulative"].iloc[-1] if len(part) else 0.0
        y = np.concatenate([[0.0], part["cumulative"].to_numpy(), [last]])
        ax.step(x, y, where="post", color=PALETTE[i % len(PALETTE)], label=figure_text(system))
    ax.plot([0, 1], [0, 1], ":", color="grey", lw=1, label="gap spread evenly over tasks")
    ax.set_xlabel("share of tasks (largest contribution first)")
    ax.set_ylabel("cumulative share of the gap")
    ax.xaxis.set_major_formatter(_pct_formatter())
    ax.yaxis.set_major_formatter(_pct_formatter())
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    return fig


def _pct_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


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
        bars = replicated mean and interval.

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=200)
    >>> len(ph.plot_ppc(f).axes)
    1
    """
    table = fit if isinstance(fit, pd.DataFrame) else fit.ppc(ci=ci)
    systems = list(pd.unique(table["system"]))
    fig = _figure(width=max(5.0, 4.2 * len(systems)), height=3.8)
    axes = fig.subplots(1, len(systems), squeeze=False)[0]
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
        ax.set_xticklabels(
            [figure_text(v) for v in part["label"]], rotation=45 if len(part) > 7 else 0, fontsize=8
        )
        ax.set_xlabel("successes / runs per task")
        ax.set_ylabel("tasks")
        ax.set_title(figure_text(system), fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        if i == 0:
            ax.legend(fontsize=8, frameon=False)
    return fig
