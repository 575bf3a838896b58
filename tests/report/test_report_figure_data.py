"""passhat.report.figure_data: the frames behind the figures, and alt text from the numbers.

Oracles: passhat.estimate at each k (curve), c/n by hand (rates), Fit.ppc (PPC alt text).
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.estimators import as_counts
from passhat.report.figure_data import curve_frame, figure_texts, ppc_text, rate_frame


def test_curve_is_estimate_at_each_k_with_mean_to_the_k() -> None:
    ds = as_counts(ph.load_example("agents"))
    curve = curve_frame(ds, kmax=5, ci=0.9, seed=1, n_boot=200, weights=None)
    est = ph.estimate(ds, k=[1, 2, 3, 4, 5])
    for r in curve.itertuples():
        assert r.value == pytest.approx(est.value(r.metric, r.k, system=r.system), abs=1e-12)
        assert r.uniform == pytest.approx(est.value("mean", 1, system=r.system) ** r.k)
        assert r.lower <= r.value <= r.upper
    assert len(curve) == 2 * 5 * 2  # systems × k × (pass^k, pass@k)
    no_ci = curve_frame(ds, kmax=2, ci=None, seed=1, n_boot=200, weights=None)
    assert no_ci["lower"].isna().all() and no_ci["upper"].isna().all()


def test_rates_and_texts() -> None:
    n = np.array([[4, 2, 5]])
    c = np.array([[1, 2, 0]])
    rates = rate_frame(["s"], ["a", "b", "c"], n, c, np.array([[True, True, True]]))
    assert rates["rate"].tolist() == [0.25, 1.0, 0.0]
    counts = ph.counts_from_arrays([4, 2, 5], [1, 2, 0], tasks=["a", "b", "c"])
    sp = ph.spread(counts, k=[1, 2])
    texts = figure_texts(sp, curve=None, rates=rates.assign(system="system"), kmax=2)
    assert (
        "system: 33% of tasks at 100%, 33% at 0%, 33% in between" in texts["rate_histogram"]["alt"]
    )
    assert texts["spread_curve"]["title"].startswith("pass^k and pass@k over k = 1..2")


def test_ppc_text_counts_the_bins_outside() -> None:
    fit = ph.fit(ph.load_example("agents"), method="grid", seed=0, k=[1, 5])
    ppc = fit.ppc()
    text = ppc_text(fit)["alt"]
    for system, part in ppc.groupby("system", sort=False):
        out = int(((part["observed"] < part["lower"]) | (part["observed"] > part["upper"])).sum())
        assert f"{system}: {out} of {len(part)} bins outside the" in text
