"""``plan.more_runs``: the expected width after m more runs per task, with the variance split.

Oracles: the two computations it combines are tested on their own (tests/model: an independent
quadrature, the martingale identity); here they must agree with each other — the floor's
variance (these tasks' rates known) is the task-sampling share of today's variance, computed by
a different code path (grid draws of p vs the fit's draws) — and with the Fit they come from.
"""

from __future__ import annotations

import numpy as np
import pytest

import passhat as ph


@pytest.fixture(scope="module")
def result():
    return ph.plan.more_runs(ph.load_example("agents"), runs=[2, 10], k=[5], simulations=300)


@pytest.fixture(scope="module")
def table(result):
    return result.table


def test_floor_is_the_task_sampling_share(table):
    for _system, part in table[
        (table["scope"] == "population") & (table["metric"] != "pass_at_k")
    ].groupby(["system", "metric"]):
        by_m = part.set_index("runs_added")
        ratio = (by_m.loc[np.inf, "expected_sd"] / by_m.loc[0.0, "expected_sd"]) ** 2
        assert ratio == pytest.approx(1 - by_m.loc[0.0, "within_task_share"], abs=0.06)
        assert by_m.loc[0.0, "expected_width"] > by_m.loc[2.0, "expected_width"]
        assert by_m.loc[2.0, "expected_width"] > by_m.loc[10.0, "expected_width"]
        assert by_m.loc[10.0, "expected_width"] > by_m.loc[np.inf, "expected_width"]


def test_more_runs_of_a_fit_is_the_fits_table(table):
    data = ph.load_example("agents")
    f = ph.fit(data, k=[5], method="grid", model="beta", seed=0, progress=False)
    again = ph.plan.more_runs(f, runs=[2, 10], simulations=300)
    cols = ["system", "metric", "k", "scope", "runs_added", "expected_width"]
    assert again.table[cols].equals(table[cols])
    assert again.source == {}  # a fit given as such: no input read
    direct = f.more_runs([2, 10], simulations=300)
    np.testing.assert_allclose(direct["expected_sd"], table["expected_sd"])
    s = f.summary(k=[5])
    row = s[(s["metric"] == "pass_hat_k") & (s["scope"] == "population")].iloc[0]
    got = table[
        (table["system"] == row["system"])
        & (table["metric"] == "pass_hat_k")
        & (table["scope"] == "population")
    ]
    assert (got["within_task_share"] == row["within_task_share"]).all()


def test_reasoning_quotes_the_table(result, table):
    r = result.reasoning
    p = table[
        (table["system"] == "baseline")
        & (table["metric"] == "pass_hat_k")
        & (table["scope"] == "population")
    ].set_index("runs_added")
    assert f"from {p.loc[0.0, 'expected_width']:.3f} to {p.loc[10.0, 'expected_width']:.3f}" in r
    assert f"no number of runs below {p.loc[np.inf, 'expected_width']:.3f}" in r


def test_the_result_shows_itself_and_writes_the_former_json(result):
    # the keys `passhat plan more-runs --json` wrote before the result owned them, after the header
    doc = result.to_dict()
    assert list(doc) == [
        "schema", "schema_version", "passhat_version", "input", "reasoning", "sentences",
        "method", "table",
    ]  # fmt: skip
    assert doc["schema"] == "passhat.plan_more_runs" and doc["input"]["example"] == "agents"
    assert doc["sentences"] == result.explain() and len(doc["table"]) == len(result.table)
    text = repr(result)
    assert len(text) <= 2000 and text.startswith(result.explain()[0][:40])
    assert "baseline: pass^5, expected interval after more runs per task" in text
    with pytest.raises(AttributeError):
        result.ci = 0.9


def test_default_k_is_the_one_rule_for_runs():
    # oracle: passhat.exclusions.default_ks (1, 2, 5 capped at the fewest runs: 5 here)
    r = ph.plan.more_runs(ph.load_example("agents"), runs=[1], simulations=20)
    assert sorted(set(r.table["k"])) == [1, 2, 5]
