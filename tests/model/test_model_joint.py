"""The joint crossed model: recovery of known truth, unequal n and missing cells, the
metric formulas against Monte-Carlo oracles, ranks, the planner's spread, save/load and
bad inputs. One small fit (nutpie when installed) is shared by the module: the tests that
use it are in the integration tier."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import passhat as ph
from passhat.errors import ModelError, OptionError
from passhat.estimators import pass_hat_k_variance
from passhat.model.joint_build import joint_counts
from passhat.model.joint_metrics import (
    correlation_draws,
    population_draws,
    rank_probabilities,
    within_variance,
)

THETA = np.array([-1.0, -0.2, 0.4, 1.2])
TASK_SD, KAPPA = 1.5, 12.0
T = 80


def simulate(seed: int, theta=THETA, tasks=T, task_sd=TASK_SD, kappa=KAPPA, runs=4):
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, task_sd, tasks)
    mu = special.expit(theta[:, None] + beta[None, :])
    p = rng.beta(mu * kappa, (1.0 - mu) * kappa)
    n = np.full((len(theta), tasks), runs)
    return n, rng.binomial(n, p)


@pytest.fixture(scope="module")
def data():
    n, c = simulate(3)
    n[1] = 6  # unequal n: system 1 ran 6 times per task (its c redrawn below)
    rng = np.random.default_rng(4)
    c[1] = np.minimum(c[1] + rng.binomial(2, c[1] / 4), 6)
    n[3, :12] = 0  # system 3 did not run the first 12 tasks
    c[3, :12] = 0
    return joint_counts(n, c, systems=["s0", "s1", "s2", "s3"])


@pytest.fixture(scope="module")
def jf(data):
    return ph.fit(
        data, model="joint", k=[1, 3], seed=5, chains=2, draws=500, tune=500, progress=False
    )


@pytest.mark.integration  # the module's NUTS fit
def test_joint_fit_recovers_known_truth(jf):
    """θ_s, σ_β, κ and the between-system correlation of the simulation lie in the 99%
    posterior intervals (one fixed data set; the coverage study repeats this 100+ times)."""
    hyper = jf.hyper_summary(ci=0.99)
    theta = hyper[hyper["parameter"] == "theta"]
    # system 1's data were altered (more runs), so only the others' truth is known exactly
    for s, truth in zip(["s0", "s2", "s3"], THETA[[0, 2, 3]], strict=True):
        row = theta[theta["system"] == s].iloc[0]
        assert row["lower"] <= truth <= row["upper"], (s, truth, row.to_dict())
    sd = hyper[hyper["parameter"] == "task_sd"].iloc[0]
    assert sd["lower"] <= TASK_SD <= sd["upper"]
    kap = hyper[hyper["parameter"] == "kappa"].iloc[0]
    assert kap["lower"] <= KAPPA <= kap["upper"]
    true_rho = correlation_draws(THETA[None, :], np.array([TASK_SD]), np.array([KAPPA]))[0]
    corr = jf.correlation(ci=0.99)
    row = corr[(corr["system_a"] == "s0") & (corr["system_b"] == "s2")].iloc[0]
    assert row["lower"] <= true_rho[0, 2] <= row["upper"]
    assert jf.diagnostics.divergences["(all)"] == 0


@pytest.mark.integration  # the module's NUTS fit
def test_joint_unequal_n_and_missing_cells(jf, data):
    cd = jf.idata.constant_data
    assert cd["n"].values[1].max() == 6
    assert int(cd["present"].values.sum()) == 4 * T - 12
    assert any("not run" in note for note in jf.notes)
    bench = jf.metric_draws("pass_hat_k", 3, scope="benchmark")
    pop = jf.metric_draws("pass_hat_k", 3, scope="population")
    assert bench.shape == pop.shape == (1000, 4)
    assert np.isfinite(bench).all() and ((bench >= 0) & (bench <= 1)).all()
    # benchmark scope: the same draws on every call (seeded), and the order of the levels
    assert np.array_equal(bench, jf.metric_draws("pass_hat_k", 3, scope="benchmark"))
    assert np.argsort(pop.mean(axis=0)).tolist() == [0, 1, 2, 3]


def test_joint_population_metrics_match_monte_carlo():
    """Gauss–Hermite population pass^k / pass@k / mean against simulation of the model."""
    rng = np.random.default_rng(0)
    theta, sd, kappa = np.array([[0.3, -0.8]]), np.array([2.0]), np.array([3.0])
    beta = rng.normal(0, sd[0], 400_000)
    mu = special.expit(theta[0][:, None] + beta)
    p = rng.beta(mu * kappa[0], (1 - mu) * kappa[0])
    for metric, k, g in (
        ("mean", 1, p),
        ("pass_hat_k", 4, p**4),
        ("pass_at_k", 3, 1 - (1 - p) ** 3),
    ):
        got = population_draws(theta, sd, kappa, metric, k)[0]
        se = g.std(axis=1) / np.sqrt(g.shape[1])
        assert np.all(np.abs(got - g.mean(axis=1)) < 4 * se), metric
    # correlation of per-task rates: simulate paired rates on the same tasks
    r = correlation_draws(theta, sd, kappa)[0, 0, 1]
    assert abs(r - np.corrcoef(p)[0, 1]) < 0.01


def test_joint_within_variance_matches_exact_variance_averaged():
    """E Var(U | p) from the model's moments = the exact pass^k variance averaged over p."""
    rng = np.random.default_rng(1)
    p = rng.beta(2.0, 3.0, 200_000)
    k, n = 2, 6
    moments = np.array([np.mean(p**m) for m in range(k, 2 * k + 1)])
    oracle = pass_hat_k_variance(np.full(p.shape, n), p, k).mean()
    assert within_variance(moments, n, k) == pytest.approx(oracle, rel=1e-9)


@pytest.mark.integration  # the module's NUTS fit
def test_joint_ranks_and_differences(jf):
    rp = jf.rank_probabilities("mean")
    assert np.allclose(rp.sum(axis=1), 1.0)
    table = jf.rank_table("mean")
    assert table["system"].iloc[0] == "s3" and table["rank_lower"].iloc[0] == 1
    d = jf.metric_draws("mean", 1, scope="population")
    diff = jf.differences("mean")
    row = diff[(diff["baseline"] == "s0") & (diff["candidate"] == "s3")].iloc[0]
    assert row["mean"] == pytest.approx((d[:, 3] - d[:, 0]).mean())
    assert row["prob_candidate_better"] == pytest.approx(float((d[:, 3] > d[:, 0]).mean()))
    assert len(diff) == 6
    # ties share the better rank; P(rank) from a hand-made draw matrix
    assert rank_probabilities(np.array([[1.0, 1.0, 0.0]])).tolist() == [
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
    ]


@pytest.mark.integration  # the module's NUTS fit
def test_joint_spread_feeds_plan_power(jf):
    sp = jf.pilot("s0", "s2", metric="pass_hat_k", k=2)
    assert 0 < sp.rho < 1
    assert sp.rho == pytest.approx(jf.rho("s0", "s2", metric="pass_hat_k", k=2), abs=0.05)
    r = ph.plan.power(delta=0.1, runs_per_task=4, power=0.8, pilot=sp, metric="pass_hat_k", k=2)
    assert r.solved_for == "tasks" and int(r) > 2
    assert r.quantities["correlation"] == pytest.approx(sp.rho)
    # a more correlated pair needs no more tasks than the what-if of no correlation
    r0 = ph.plan.power(
        delta=0.1, runs_per_task=4, power=0.8, pilot=sp, metric="pass_hat_k", k=2, correlation=0.0
    )
    assert int(r0) >= int(r)


@pytest.mark.integration  # the module's NUTS fit
def test_joint_save_and_load(jf, tmp_path):
    back = ph.load_fit(jf.to_netcdf(tmp_path / "joint.nc"))
    assert isinstance(back, ph.JointFit)
    assert back.systems == jf.systems and back.tasks == jf.tasks
    for scope in ("population", "benchmark"):
        assert np.allclose(
            back.metric_draws("pass_at_k", 3, scope=scope),
            jf.metric_draws("pass_at_k", 3, scope=scope),
        )


@pytest.mark.integration  # the module's NUTS fit
def test_joint_summary_and_diagnostics_tables(jf):
    s = jf.summary(k=[3])
    assert set(s["scope"]) == {"benchmark", "population"}
    assert ((s["lower"] <= s["mean"]) & (s["mean"] <= s["upper"])).all()
    diag = jf.diagnostics.table
    assert set(diag["variable"]) == {"theta", "task_sd", "kappa", "beta (worst task)"}
    assert "joint crossed model" in repr(jf)


@pytest.mark.integration  # the module's NUTS fit
def test_joint_fit_records_quadrature(jf):
    """The fit records its quadrature and the task effects' draws cover their windows."""
    import json

    info = json.loads(jf.idata.posterior.attrs["passhat_quadrature"])
    assert info["rows"] <= T and info["window"] <= info["nodes"]
    assert info["window_edge"] < 1e-6
    assert not any("quadrature" in n for n in jf.notes)


def test_joint_bad_inputs():
    n, c = simulate(0, tasks=6)
    one = joint_counts(n[:1], c[:1], systems=["only"])
    with pytest.raises(ModelError, match=r"at least two systems.*model='beta'"):
        ph.fit(one, model="joint")
    n2 = n[:2].copy()
    n2[0, 3:] = 0
    n2[1, :3] = 0
    apart = joint_counts(n2, np.minimum(c[:2], n2), systems=["a", "b"])
    with pytest.raises(ModelError, match="'a' shares no task"):
        ph.fit(apart, model="joint")
    ds = joint_counts(n[:2], c[:2], systems=["a", "b"])
    with pytest.raises(OptionError, match=r"grid. does not apply to model=.joint."):
        ph.fit(ds, model="joint", method="grid")
    with pytest.raises(OptionError, match="weights"):
        ph.fit(ds, model="joint", weights="declared")
    with pytest.raises(OptionError, match="JointPriors"):
        ph.fit(ds, model="joint", priors=ph.model.Priors())
    with pytest.raises(OptionError, match="unscored_tasks"):
        ph.fit(ds, model="joint", unscored_tasks="impute")


@pytest.mark.integration  # the module's NUTS fit
def test_joint_bad_queries(jf):
    with pytest.raises(OptionError, match="scope"):
        jf.metric_draws("mean", 1, scope="tasks")
    with pytest.raises(OptionError, match="metric"):
        jf.metric_draws("icc", 1, scope="population")
    with pytest.raises(OptionError, match="not in the fit"):
        jf.pilot("s0", "nope")


def test_joint_to_netcdf_never_writes_over_the_fits_input(tmp_path, mock_nuts):
    """As Fit.to_netcdf: the joint fit now records where its data came from (source_path,
    SHA-256) and refuses to save over that file even with force=True. Oracle: the input's
    bytes before and after. (A fit's shape is enough: PyMC's mock sampler.)"""
    src = tmp_path / "agents.csv"
    ph.load_example("agents").frame.to_csv(src, index=False)
    before = src.read_bytes()
    jfit = ph.fit(ph.read_trials(src), model="joint", sampler="pymc", seed=0, chains=1, draws=50)
    assert jfit.idata.constant_data.attrs["source_path"] == str(src)
    with pytest.raises(OptionError, match=r"agents\.csv: .* is an input"):
        jfit.to_netcdf(src, force=True)
    assert src.read_bytes() == before
    back = ph.load_fit(jfit.to_netcdf(tmp_path / "joint.nc"))
    with pytest.raises(OptionError, match=r"agents\.csv: .* is an input"):
        back.to_netcdf(src, force=True)
    assert src.read_bytes() == before


def test_joint_summary_is_a_frozen_result_with_the_keys_fit_json_wrote(data, mock_nuts):
    """JointFit.summarize(): the JSON document passhat fit --model joint --json wrote (the
    header added), the table it printed, a short repr; frozen. (Its shape: the module's fit
    made with PyMC's mock sampler.)"""
    from dataclasses import FrozenInstanceError

    jf = ph.fit(
        data, model="joint", k=[1, 3], seed=5, chains=2, draws=500, tune=500, sampler="pymc"
    )

    s = jf.summarize(ci=0.9)
    doc = s.to_dict(output="x.nc")
    assert list(doc) == [
        "schema", "schema_version", "passhat_version", "input", "settings", "notes", "summary",
        "parameters", "correlation", "dispersion_check", "diagnostics",
    ]  # fmt: skip
    assert list(doc["settings"]) == [
        "k", "method", "model", "sampler", "seed", "ci", "priors", "output", "draws", "tune",
        "chains",
    ]  # fmt: skip
    st = doc["settings"]
    assert (st["k"], st["ci"], st["output"], st["tune"], st["draws"], st["chains"]) == (
        [1, 3], 0.9, "x.nc", 500, 500, 2,
    )  # fmt: skip
    assert len(doc["correlation"]) == 6 and doc["dispersion_check"][-1]["system"] == "(all)"
    frame = s.view().parts[0].frame
    assert frame["system"].tolist() == [x for x in jf.systems for _ in range(3)]
    row = s.table.query(
        "system == 's2' and metric == 'pass_hat_k' and k == 3 and scope == 'population'"
    )
    r = row.iloc[0]
    cell = f"{r['mean']:.3f} [{r['lower']:.3f}, {r['upper']:.3f}]"
    assert (
        frame.loc[(frame["system"] == "s2") & (frame["metric"] == "pass^k"), "population"].item()
        == cell
    )
    text = repr(jf)
    assert len(text) <= 2000 and "between-system correlation" in text and "diagnostics:" in text
    for obj, attr in ((s, "table"), (jf, "seed"), (jf.diagnostics, "table")):
        with pytest.raises(FrozenInstanceError):
            setattr(obj, attr, None)
