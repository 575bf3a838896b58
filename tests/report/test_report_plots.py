"""passhat.report.plots: each figure draws what its data holds.

Oracle: the input frames (one line / bar group / panel per system, as the docstrings say).
"""

from __future__ import annotations

import pandas as pd

import passhat as ph
from passhat.estimators import as_counts
from passhat.report.figure_data import curve_frame, rate_frame
from passhat.report.plots import (
    plot_gap_concentration,
    plot_ppc,
    plot_rate_histogram,
    plot_spread_curve,
)


def test_spread_curve_has_three_lines_per_system() -> None:
    ds = as_counts(ph.load_example("agents"))
    curve = curve_frame(ds, kmax=5, ci=0.9, seed=0, n_boot=100, weights=None)
    ax = plot_spread_curve(curve).axes[0]
    assert len(ax.get_lines()) == 2 * 3  # pass^k, pass@k and mean^k for each system
    assert len(ax.collections) == 2 * 2  # an interval band for pass^k and pass@k
    labels = ax.get_legend_handles_labels()[1]
    assert "guided: mean^k (uniform spread)" in labels


def test_rate_histogram_has_twelve_bars_per_system() -> None:
    ds = as_counts(ph.load_example("agents"))
    rates = rate_frame(
        ds["system"].values, ds["task"].values, ds["n"].values, ds["c"].values, ds["present"].values
    )
    ax = plot_rate_histogram(rates).axes[0]
    assert len(ax.patches) == 2 * 12  # all fail, 10 bins of mixed tasks, all pass
    heights = [p.get_height() for p in ax.patches[:12]]
    share_all_pass = (rates.loc[rates["system"] == "baseline", "rate"] == 1).mean()
    assert heights[-1] == share_all_pass


def test_gap_concentration_steps_end_at_the_cumulative_share() -> None:
    conc = pd.DataFrame(
        {"system": ["s", "s"], "task_share": [0.25, 0.5], "cumulative": [0.75, 1.0]}
    )
    ax = plot_gap_concentration(conc, {"s": 4}).axes[0]
    step = ax.get_lines()[0]
    assert list(step.get_xdata()) == [0.0, 0.25, 0.5, 1.0]
    assert list(step.get_ydata()) == [0.0, 0.75, 1.0, 1.0]


def test_ppc_has_one_panel_per_system() -> None:
    fit = ph.fit(ph.load_example("agents"), method="grid", seed=0, k=[1])
    table = fit.ppc()
    fig = plot_ppc(table)
    assert [a.get_title() for a in fig.axes] == ["baseline", "guided"]
    assert len(fig.axes[0].patches) == len(table[table["system"] == "baseline"])
