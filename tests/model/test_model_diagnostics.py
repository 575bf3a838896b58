"""Sampler diagnostics: which posteriors pass and fail R-hat, ESS and divergence checks.

Oracles: constructed draws whose answer is known: independent draws (R-hat ≈ 1, ESS ≈ the
number of draws); chains centred on different values (R-hat far above 1.01); a random walk
(ESS far below 100 per chain); divergence flags set by hand. Grid fits (independent draws)
are not checked for R-hat or divergences.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from passhat.model.diagnostics import THRESHOLDS, compute_diagnostics


def _post(values):
    """A posterior Dataset over (chain, draw, system) with one variable, two systems A, B."""
    return xr.Dataset(
        {"mu": (("chain", "draw", "system"), values)},
        coords={"system": ["A", "B"]},
    )


def test_independent_draws_pass():
    rng = np.random.default_rng(0)
    d = compute_diagnostics(
        _post(rng.random((4, 1000, 2))),
        np.zeros((4, 1000, 2), bool),
        variables=["mu"],
        method="nuts",
    )
    assert d.passed and d.status() == "ok" and d.divergences == {"A": 0, "B": 0}
    assert d.thresholds["ess_min"] == THRESHOLDS["ess_per_chain_min"] * 4
    assert (d.table["r_hat"] < 1.01).all() and (d.table["ess_bulk"] > 2000).all()


def test_shifted_chains_divergences_and_random_walks_fail_by_system():
    rng = np.random.default_rng(1)
    vals = rng.random((4, 1000, 2))
    vals[2:, :, 0] += 1.0  # system A: two chains elsewhere → R-hat
    div = np.zeros((4, 1000, 2), bool)
    div[0, :3, 1] = True  # system B: 3 divergent transitions
    d = compute_diagnostics(_post(vals), div, variables=["mu"], method="nuts")
    assert not d.passed
    assert any("r_hat(mu)" in p for p in d.problems_for("A"))
    assert d.problems_for("B") == ["B: 3 divergent transition(s)"]
    assert d.status("B").startswith("FAILED: ")
    walk = np.cumsum(rng.normal(size=(2, 400, 2)), axis=1)
    slow = compute_diagnostics(_post(walk), None, variables=["mu"], method="grid")
    assert any("bulk ESS(mu)" in p for p in slow.problems_for("A"))


def test_grid_fits_skip_r_hat_and_divergences():
    rng = np.random.default_rng(2)
    vals = rng.random((4, 1000, 2))
    vals[2:] += 1.0
    div = np.ones((4, 1000, 2), bool)
    nuts = compute_diagnostics(_post(vals), div, variables=["mu"], method="nuts")
    grid = compute_diagnostics(_post(vals), div, variables=["mu"], method="grid")
    assert any("r_hat" in p for p in nuts.problems) and any("divergent" in p for p in nuts.problems)
    assert not any("r_hat" in p or "divergent" in p for p in grid.problems), grid.problems
    assert (grid.table["r_hat"] > 1.01).all()  # reported, not checked
    ok = compute_diagnostics(_post(rng.random((4, 1000, 2))), div, variables=["mu"], method="grid")
    assert ok.passed, ok.problems


def test_one_nuts_chain_says_r_hat_needs_two_without_a_warning(caplog):
    """One chain: R-hat is undefined (it compares chains). The fit says so once per system
    instead of "r_hat = nan > 1.01", and ArviZ's shape warning no longer reaches stderr
    (it broke --quiet)."""
    rng = np.random.default_rng(0)
    post = xr.Dataset(
        {"mu": (("chain", "draw", "system"), rng.random((1, 500, 2)))},
        coords={"system": ["A", "B"]},
    )
    with caplog.at_level("WARNING"):
        d = compute_diagnostics(post, np.zeros((1, 500, 2), bool), variables=["mu"], method="nuts")
    assert not caplog.records
    assert [p for p in d.problems if "r_hat" in p] == [
        "A: r_hat not computed: 1 chain (R-hat compares chains; use chains ≥ 2)",
        "B: r_hat not computed: 1 chain (R-hat compares chains; use chains ≥ 2)",
    ]
    assert not any("nan" in p for p in d.problems)
