"""Tasks of weight 0 in ``fit``: listed, and left out of every average and of the fit.

Oracle: the fit of the same data without the weight-0 task (same seed, grid method): the
posterior and every summary row are identical; :func:`passhat.estimate` and
:func:`passhat.compare` leave such tasks out the same way (``exclusions.weight_zero_notes``).
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph
from passhat.errors import ModelError
from passhat.model.fit import fit_notes
from passhat.rank import combine_systems

GRID = {"method": "grid", "chains": 2, "draws": 500, "k": [1, 2]}


def _counts(c: list[int], tasks: list[str]):
    return ph.counts_from_arrays([4] * len(c), c, tasks=tasks)


def test_weight_zero_task_is_listed_and_not_fitted():
    full = _counts([4, 1, 0, 2], ["a", "b", "c", "d"])
    with_zero = ph.fit(full, weights={"a": 1, "b": 1, "c": 0, "d": 1}, seed=3, **GRID)
    without = ph.fit(_counts([4, 1, 2], ["a", "b", "d"]), seed=3, **GRID)
    np.testing.assert_array_equal(
        with_zero.idata.posterior["mu"].values, without.idata.posterior["mu"].values
    )
    a, b = with_zero.summary(), without.summary()
    np.testing.assert_allclose(a[["mean", "lower", "upper"]], b[["mean", "lower", "upper"]])
    notes = fit_notes(with_zero)
    assert any("weight 0" in n and n.endswith(": c") for n in notes), notes


def test_weight_zero_for_one_system_names_it():
    ds = combine_systems(
        [
            ph.counts_from_arrays(
                [4, 4, 4], [4, 1, 0], tasks=list("abc"), system="s1", weight=[1, 1, 0]
            ),
            ph.counts_from_arrays(
                [4, 4, 4], [3, 2, 1], tasks=list("abc"), system="s2", weight=[1, 1, 1]
            ),
        ]
    )
    ds.attrs["declared_weights"] = True
    f = ph.fit(ds, weights="declared", seed=0, **GRID)
    assert any(n.endswith(": c (s1)") for n in fit_notes(f)), fit_notes(f)
    alone = ph.fit(
        ph.counts_from_arrays([4, 4], [4, 1], tasks=list("ab"), system="s1"), seed=0, **GRID
    )
    np.testing.assert_array_equal(
        f.idata.posterior["mu"].sel(system="s1").values,
        alone.idata.posterior["mu"].sel(system="s1").values,
    )


def test_every_weight_zero_is_refused():
    with pytest.raises(ModelError, match="weights sum to zero"):
        ph.fit(_counts([4, 1], ["a", "b"]), weights={"a": 0, "b": 0}, seed=0, **GRID)
