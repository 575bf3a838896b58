"""passhat.report.plots_scores: the threshold curve figure draws the estimate's curve.

Oracle: the curve table itself (each line's points are its rows) and the fixture's systems.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passhat.report.plots_scores import plot_threshold_curve


def test_one_panel_per_system_one_line_per_k_with_the_curve_points(extras_results) -> None:
    curve = extras_results.estimate.curve
    fig = plot_threshold_curve(curve)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["plain", "tuned<b>"]
    t = curve.table
    for ax, system in zip(axes, ["plain", "tuned<b>"], strict=True):
        lines = ax.get_lines()
        assert len(lines) == 3 + 1  # pass^1, pass^2, pass^5 and pass@5
        want = t[(t["system"] == system) & (t["k"] == 5)].sort_values("threshold")
        np.testing.assert_allclose(lines[2].get_ydata(), want["pass_hat_k"])
        np.testing.assert_allclose(lines[3].get_ydata(), want["pass_at_k"])
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    assert labels == ["pass^1", "pass^2", "pass^5", "pass@5"]


def test_a_name_with_dollars_is_literal() -> None:
    t = pd.DataFrame(
        {
            "system": "$x^2$",
            "threshold": [0.5, 1.0],
            "k": 2,
            "pass_hat_k": [1.0, 0.25],
            "pass_at_k": [1.0, 0.5],
        }
    )
    fig = plot_threshold_curve(t)
    assert fig.axes[0].get_title() == r"\$x^2\$"
