"""Model comparison by PSIS-LOO.

Oracles: exact leave-one-out by refitting the grid without each task (for PSIS-LOO of a
grid fit); the ArviZ stacking weights summing to one per system.
"""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

import passhat as ph
from passhat.model.diagnostics import import_arviz
from passhat.model.grid import grid_posterior

az = import_arviz()


def test_exact_loo_vs_psis_loo(agents_grid):
    """PSIS-LOO (ArviZ) of a grid fit vs exact LOO: refit the grid without each distinct pair."""
    si = 0
    n, c, _, _ = agents_grid._tasks(si)
    comp = ph.model.compress(n, c)
    exact = 0.0
    rng = np.random.default_rng(0)
    for j in range(len(comp)):
        mult = comp.mult.copy()
        mult[j] -= 1
        g = grid_posterior(comp.n, comp.c, mult, n_draws=20_000, rng=rng)
        ll = ph.model.build.pair_loglik(
            comp.n[j : j + 1], comp.c[j : j + 1], g.mu * g.kappa, (1 - g.mu) * g.kappa
        )[:, 0]
        exact += comp.mult[j] * (np.logaddexp.reduce(ll) - math.log(len(ll)))
    ll_task = agents_grid.log_likelihood().isel(system=si)
    idata = az.InferenceData(
        posterior=agents_grid.idata.posterior[["mu"]].isel(system=si),
        log_likelihood=ll_task.to_dataset(name="c"),
    )
    psis = az.loo(idata)
    assert psis.elpd_loo == pytest.approx(exact, abs=1.0)


@pytest.mark.integration  # NUTS: the plain and the inflated model
def test_compare_models(agents_nuts, agents_inflated):
    inf = agents_inflated
    result = ph.compare_models({"beta": agents_nuts, "inflated": inf})
    cmp = result.table
    assert set(cmp["model"]) == {"beta", "inflated"}
    assert set(cmp["system"]) == {"baseline", "guided"}
    for _, part in cmp.groupby("system"):
        assert part["weight"].sum() == pytest.approx(1.0)
        assert np.isfinite(part["elpd_loo"]).all()
    with pytest.raises(ph.OptionError):
        ph.compare_models([agents_nuts])
    # a frozen result: its document, its view (one sentence per system), a short repr
    doc = result.to_dict()
    assert doc["schema"] == "passhat.model_comparison" and doc["models"] == ["beta", "inflated"]
    assert len(doc["comparison"]) == len(cmp) == 4 and doc["ic"] == "loo"
    text = repr(result)
    assert len(text) <= 2000 and text.count("predicts left-out tasks") == 2
    for system in ("baseline", "guided"):
        best = cmp[cmp["system"] == system].iloc[0]["model"]
        assert result.best(system) == best and f"{system}: the {best} model" in text
    with pytest.raises(FrozenInstanceError):
        result.ic = "waic"  # type: ignore[misc]
