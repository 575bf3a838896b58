"""The checks that keep a fit's numbers honest (:mod:`passhat.model.checks`): agreement with the
unbiased estimates, k above the runs marked as extrapolation.

Oracles: the unbiased estimator written out with scipy's binomial coefficients (and
passhat.estimate's value, the model-free path); a two-point truth
(half the tasks at p = 0.4, half at 0.95, 1000 tasks × 5 runs) where the Beta model's pass@5 is
biased low by about 3 joint standard errors (seen on seeds 0–2 of this design: z = −3.9, −3.2,
−3.8) while the stacked fit agrees (|z| ≤ 1.2).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import special, stats

import passhat as ph
from passhat.model.checks import agreement_rows


def test_agreement_rows_by_hand():
    n = np.array([5, 5, 4, 6])
    c = np.array([5, 3, 0, 2])
    w = np.full(4, 0.25)
    draws = np.random.default_rng(0).normal(0.3, 0.02, 4000)
    row = agreement_rows(n, c, w, {("pass_hat_k", 3): draws}, ci=0.9)[0]
    u = float(np.mean(special.comb(c, 3) / special.comb(n, 3)))
    est = ph.estimate(ph.counts_from_arrays(n, c), k=[3])
    assert row["estimate"] == pytest.approx(u)
    assert u == pytest.approx(est.table.query("metric == 'pass_hat_k'")["value"].iloc[0])
    se = row["estimate_se"]
    assert se > 0
    z = (draws.mean() - u) / np.hypot(se, draws.std())
    assert row["z"] == pytest.approx(z)
    assert row["disagrees"] == (abs(z) > stats.norm.ppf(0.95))
    assert agreement_rows(n, c, w, {("pass_hat_k", 5): draws}, ci=0.9) == []  # 5 > min n


@pytest.fixture(scope="module")
def two_point_big() -> ph.Trials:
    rng = np.random.default_rng([1000, 0])
    p = np.where(rng.random(1000) < 0.5, 0.4, 0.95)
    return ph.counts_from_arrays(np.full(1000, 5), rng.binomial(5, p))


def test_agreement_warns_when_the_beta_model_is_contradicted(two_point_big):
    f = ph.fit(two_point_big, k=[1, 5], model="beta", seed=0)
    a = f.agreement().set_index(["metric", "k"])
    # z against the unbiased estimate's se; below 2k runs that se is the larger of the plug-in
    # and the conservative bound (passhat.intervals.benchmark_se), so |z| is smaller than with
    # the plug-in alone (−2.6 here)
    assert a.loc[("pass_at_k", 5), "disagrees"] and a.loc[("pass_at_k", 5), "z"] < -2.5
    s = f.summarize()
    warned = [w for w in s.warnings() if "pass@5" in w]
    assert len(warned) == 1, s.warnings()
    doc = json.loads(json.dumps(s.to_dict()))
    assert warned[0] in doc["checks"]["warnings"]
    assert any(warned[0] in line for part in s.view().parts for line in part.lines)
    stacked = ph.fit(two_point_big, k=[1, 5], seed=0)
    assert not stacked.agreement()["disagrees"].any()


def test_k_above_the_runs_is_marked_as_extrapolation():
    data = ph.counts_from_arrays([5, 5, 4, 5], [5, 3, 0, 2])
    f = ph.fit(data, k=[2, 5, 8], model="beta", seed=0, chains=2, draws=300)
    s = f.summarize(k=[2, 5, 8])
    table = s.table[s.table["metric"].isin(["pass_at_k", "pass_hat_k"])]
    assert table.loc[table["k"] == 8, "extrapolated"].all()
    assert not table.loc[table["k"] <= 5, "extrapolated"].any()
    doc = s.to_dict()
    flags = {
        (r["metric"], r["k"], r["extrapolated"])
        for r in doc["summary"]
        if r["k"] == 8 and r["metric"] != "mean"
    }
    assert flags and all(x for _, _, x in flags)
    frame = s.view().parts[0].frame
    assert set(frame["k"]) >= {"8*", "2", "5"}
    note = [w for w in s.warnings() if "k = 8" in w]
    assert len(note) == 1 and "Beta model" in note[0] and "extrapolation" in note[0]
