"""Bundled examples.

Oracles: the bundled ``agents.csv`` must be exactly what its documented, seeded
simulation (:func:`passhat.examples.simulate.simulate_agents`) produces; the
``abcd`` example is the seeds' four-task example (pass-at-k-vs-pass-hat-k seed:
5, 4, 2, 0 successes of 5 runs; k = 2 → per task mean/any/all 1/1/1,
.8/1/.6, .4/.7/.1, 0/0/0; macro 0.550 / 0.675 / 0.425).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.examples.simulate import simulate_agents
from passhat.trials import Trials


def test_agents_csv_is_the_seeded_simulation() -> None:
    bundled = ph.load_example("agents").frame
    regenerated = Trials.from_frame(simulate_agents(), where="simulate_agents()").frame
    assert list(bundled.columns) == list(regenerated.columns)
    # text columns are object (CSV) vs pandas' string dtype (built in memory): compare values
    pd.testing.assert_frame_equal(
        bundled.reset_index(drop=True),
        regenerated.reset_index(drop=True),
        check_exact=True,
        check_dtype=False,
    )
    assert bundled["success"].dtype == regenerated["success"].dtype == "boolean"


def test_agents_shape() -> None:
    trials = ph.load_example("agents")
    ds = trials.counts()
    assert trials.systems == ["baseline", "guided"]
    assert ds.sizes["task"] == 168
    assert (ds["n"].values == 5).all()  # 5 decided runs each; unscored attempts were re-run
    assert int(ds["unscored"].sum()) == int(trials.frame["success"].isna().sum()) > 0
    # clustered: many tasks always pass or always fail, a minority flip
    c = ds["c"].sel(system="baseline").values
    assert ((c == 0) | (c == 5)).mean() > 0.5
    assert ((c > 0) & (c < 5)).sum() > 10


def test_abcd_counts_and_seed_numbers() -> None:
    trials = ph.load_example("abcd")
    ds = trials.counts()
    assert ds["task"].values.tolist() == ["A", "B", "C", "D"]
    assert ds["n"].values.tolist() == [[5, 5, 5, 5]]
    assert ds["c"].values.tolist() == [[5, 4, 2, 0]]
    per = ph.per_task_metrics(ds, 2).sel(k=2).isel(system=0)
    np.testing.assert_allclose(per["mean"].values, [1, 0.8, 0.4, 0])
    np.testing.assert_allclose(per["pass_at_k"].values, [1, 1, 0.7, 0])
    np.testing.assert_allclose(per["pass_hat_k"].values, [1, 0.6, 0.1, 0])
    row = ph.estimate(trials, k=2).wide().iloc[0]
    assert row["mean"] == pytest.approx(0.550)
    assert row["pass_at_k"] == pytest.approx(0.675)
    assert row["pass_hat_k"] == pytest.approx(0.425)


def test_unknown_example() -> None:
    with pytest.raises(ph.errors.OptionError, match="unknown example 'nope'"):
        ph.load_example("nope")
