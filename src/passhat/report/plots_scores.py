"""The partial-credit figure: pass^k (and pass@k) as functions of the pass threshold.

:func:`plot_threshold_curve` takes a :class:`~passhat.scores.result.ThresholdCurve` (an
estimate made with ``scores=True``: ``est.curve``) or its table, and draws one panel per
system: pass^k at each k as a step curve over the threshold t (success = score ≥ t), and
pass@k at the largest k dotted. Each step holds a threshold's value back to the threshold
before it: with the distinct scores as thresholds (the default up to 21 of them) that is the
exact curve (a score ≥ t for t between two scores is a score ≥ the upper one), and the area
under the pass^k curve is the expected worst of k.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"task_id": list("aabb"), "success": [True, False, True, True],
...                    "score": [1.0, 0.5, 0.75, 1.0]})
>>> est = ph.estimate(ph.Trials.from_frame(df), k=[1, 2], scores=True)
>>> fig = plot_threshold_curve(est.curve)
>>> [ax.get_xlabel() for ax in fig.axes][:1]
['pass threshold t (success = score ≥ t)']
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from passhat.report.plots import PALETTE, _name, _panels, _pct_formatter

__all__ = ["plot_threshold_curve"]


def plot_threshold_curve(curve: Any) -> Any:
    """pass^k over the pass threshold per system (one line per k), pass@k at the largest k.

    Parameters
    ----------
    curve : ThresholdCurve or pandas.DataFrame
        ``est.curve`` of an estimate with ``scores=True``, or its table (system, threshold,
        k, pass_hat_k, pass_at_k).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    t = curve if isinstance(curve, pd.DataFrame) else curve.table
    systems = list(pd.unique(t["system"]))
    ks = sorted(int(k) for k in t["k"].unique())
    fig, axes = _panels(len(systems), width=6.0, height=3.4)
    for ax, system in zip(axes, systems, strict=True):
        part = t[t["system"] == system]
        for i, k in enumerate(ks):
            p = part[part["k"] == k].sort_values("threshold")
            ax.step(
                p["threshold"],
                p["pass_hat_k"],
                where="pre",
                color=PALETTE[i % len(PALETTE)],
                marker="o",
                ms=3,
            )
        top = part[part["k"] == ks[-1]].sort_values("threshold")
        ax.step(top["threshold"], top["pass_at_k"], where="pre", ls=":", color="0.35")
        ax.set_title(_name(system), fontsize=10)
        ax.set_xlabel("pass threshold t (success = score ≥ t)")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_formatter(_pct_formatter())
        ax.grid(alpha=0.3)
    if axes:
        axes[0].set_ylabel("share of tasks")
    handles: list[Any] = [
        Line2D([], [], color=PALETTE[i % len(PALETTE)], marker="o", ms=3, label=f"pass^{k}")
        for i, k in enumerate(ks)
    ]
    handles.append(Line2D([], [], color="0.35", ls=":", label=f"pass@{ks[-1]}"))
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(handles), 4), fontsize=8)
    return fig
