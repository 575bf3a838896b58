"""passhat.report.plots: each figure draws what its data holds, readably, as public API.

Oracle: the input frames (one line / bar group / panel per system, as the docstrings say),
the figure geometry after drawing (legend and panels inside the figure), and a fresh
interpreter for what importing and plotting leave behind (no pyplot).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

import passhat as ph
from passhat.estimators import as_counts
from passhat.report.figure_data import curve_frame, ppc_frame, rate_frame
from passhat.report.plots import PALETTE, plot_gap, plot_ppc, plot_rates, plot_spread


def _axes_width_share(fig: Figure) -> float:
    """Share of the figure's width covered by its panels (after layout)."""
    fig.canvas.draw()
    return sum(ax.get_position().width for ax in fig.axes if ax.get_visible())


@pytest.fixture(scope="module")
def agents_curve() -> pd.DataFrame:
    ds = as_counts(ph.load_example("agents"))
    return curve_frame(ds, kmax=5, ci=0.9, seed=0, n_boot=100, weights=None)


def test_spread_has_one_panel_per_system_so_bands_never_overlap(agents_curve) -> None:
    fig = plot_spread(agents_curve)
    assert [ax.get_title() for ax in fig.axes] == ["baseline", "guided"]
    for i, ax in enumerate(fig.axes):
        assert len(ax.get_lines()) == 3  # pass^k, pass@k and mean^k
        assert len(ax.collections) == 2  # an interval band for pass^k and pass@k
        # every band of a panel is its own system's colour: none from the other system
        colours = {to_hex(c.get_facecolor()[0], keep_alpha=False) for c in ax.collections}
        assert colours == {PALETTE[i].lower()}
        assert ax.get_legend() is None  # one legend for the figure, above the panels
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "pass^k: all k runs pass",
        "pass@k: one of k passes",
        "mean^k: uniform spread",
        "interval (population)",
    ]


def test_spread_legend_leaves_the_plot_its_width(agents_curve) -> None:
    # the legend outside on the right left the single panel ~40% of the width
    one = agents_curve[agents_curve["system"] == "baseline"]
    assert _axes_width_share(plot_spread(one)) > 0.8
    assert _axes_width_share(plot_spread(agents_curve)) > 0.8
    fig = plot_spread(one)
    legend = fig.legends[0].get_window_extent()
    assert legend.y0 >= fig.axes[0].get_window_extent().y1 - 1  # above the panel, not beside


def test_spread_from_data_is_the_report_curve(agents_curve) -> None:
    fig = plot_spread(ph.load_example("agents"), kmax=5, ci=0.9, seed=0, n_boot=100)
    base = agents_curve[
        (agents_curve["system"] == "baseline") & (agents_curve["metric"] == "pass_hat_k")
    ]
    assert np.allclose(fig.axes[0].get_lines()[0].get_ydata(), base["value"])
    no_ci = plot_spread(ph.load_example("abcd"), ci=None)
    assert len(no_ci.axes[0].collections) == 0 and len(no_ci.legends[0].get_texts()) == 3


def test_many_systems_wrap_into_rows() -> None:
    curve = pd.concat(
        [
            pd.DataFrame(
                {
                    "system": f"s{i}",
                    "k": [1, 2],
                    "metric": "pass_hat_k",
                    "value": [0.5, 0.3],
                    "lower": np.nan,
                    "upper": np.nan,
                    "uniform": [0.5, 0.25],
                }
            )
            for i in range(4)
        ]
    )
    fig = plot_spread(curve)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 4 and len(fig.axes) == 6  # 3 per row, two spare panels hidden


def test_rate_histogram_has_twelve_bars_per_system() -> None:
    ds = as_counts(ph.load_example("agents"))
    rates = rate_frame(
        ds["system"].values, ds["task"].values, ds["n"].values, ds["c"].values, ds["present"].values
    )
    ax = plot_rates(rates).axes[0]
    assert len(ax.patches) == 2 * 12  # all fail, 10 bins of mixed tasks, all pass
    heights = [p.get_height() for p in ax.patches[:12]]
    share_all_pass = (rates.loc[rates["system"] == "baseline", "rate"] == 1).mean()
    assert heights[-1] == share_all_pass
    from_data = plot_rates(ph.load_example("agents")).axes[0]
    assert [p.get_height() for p in from_data.patches] == [p.get_height() for p in ax.patches]


def test_gap_concentration_steps_end_at_the_cumulative_share() -> None:
    conc = pd.DataFrame(
        {"system": ["s", "s"], "task_share": [0.25, 0.5], "cumulative": [0.75, 1.0]}
    )
    ax = plot_gap(conc, tasks={"s": 4}).axes[0]
    step = ax.get_lines()[0]
    assert list(step.get_xdata()) == [0.0, 0.25, 0.5, 1.0]
    assert list(step.get_ydata()) == [0.0, 0.75, 1.0, 1.0]
    sp = ph.spread(ph.load_example("agents"), k=[1, 5])
    cb = sp.contributions[(sp.contributions["k"] == 5) & (sp.contributions["system"] == "guided")]
    line = plot_gap(sp).axes[0].get_lines()[1]
    assert list(line.get_ydata()[1:-1]) == cb["cumulative"].tolist()
    # from data: k = 5, or the fewest decided runs when smaller (here 3)
    counts = ph.counts_from_arrays([3, 4, 6, 6], [1, 2, 3, 6], tasks=["a", "b", "c", "d"])
    three = ph.spread(counts, k=[3]).contributions
    line = plot_gap(counts).axes[0].get_lines()[0]
    assert list(line.get_ydata()[1:-1]) == three["cumulative"].tolist()


def test_legends_keep_names_that_start_with_an_underscore() -> None:
    """matplotlib leaves a label starting with "_" out of an automatic legend; a system of
    that name vanished from the rate histogram's and the gap figure's legends."""
    rates = pd.DataFrame({"system": ["_under_"] * 2 + ["b"] * 2, "rate": [0.0, 0.5, 1.0, 0.5]})
    legend = plot_rates(rates).axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["_under_", "b"]
    conc = pd.DataFrame(
        {"system": ["_under_", "b"], "task_share": [0.5, 0.5], "cumulative": [1.0, 1.0]}
    )
    legend = plot_gap(conc, tasks={"_under_": 2, "b": 2}).axes[0].get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["_under_", "b", "gap spread evenly over tasks"]


def test_ppc_has_one_panel_per_system_in_whole_tasks() -> None:
    fit = ph.fit(ph.load_example("agents"), method="grid", seed=0, k=[1])
    table = fit.ppc()
    fig = plot_ppc(table)
    assert [a.get_title() for a in fig.axes] == ["baseline", "guided"]
    assert len(fig.axes[0].patches) == len(table[table["system"] == "baseline"])
    shown = ppc_frame(table)
    assert (shown["lower"] <= table["lower"]).all() and (shown["upper"] >= table["upper"]).all()
    assert (shown["upper"] - table["upper"] < 1).all() and (
        table["lower"] - shown["lower"] < 1
    ).all()
    # the error bars end on whole tasks
    bars = fig.axes[0].collections[-1].get_segments()
    ends = np.array([[seg[0][1], seg[1][1]] for seg in bars])
    assert np.allclose(ends, np.round(ends))


def test_figures_are_public_api_without_pyplot() -> None:
    assert {"plot_spread", "plot_rates", "plot_gap", "plot_ppc"} <= set(ph.__all__)
    code = """
import sys
import passhat.report.plots as plots        # failed: 'passhat.report' is the function
import passhat, passhat as ph
assert passhat.report.plots is plots and plots.plot_ppc is ph.plot_ppc
assert callable(ph.report) and ph.report.__module__ == "passhat.report"
data = ph.load_example("abcd")
figs = [ph.plot_spread(data, n_boot=100), ph.plot_rates(data), ph.plot_gap(data, k=2)]
assert all(type(f).__name__ == "Figure" for f in figs)
assert all(f._repr_png_().startswith(b"\\x89PNG") for f in figs)   # a notebook shows them
assert "matplotlib.pyplot" not in sys.modules, "pyplot state"
print("ok")
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
