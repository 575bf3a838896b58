"""NUTS fits: agreement with the exact grid, degenerate data, LOO, I/O, PPC, CLI.

Oracles: the grid quadrature of the same posterior (tolerances from the Monte-Carlo
standard errors: NUTS via ArviZ's bulk ESS, grid via its independent draws); exact
leave-one-out by refitting the grid without each task (for PSIS-LOO); the observed
data (PPC totals); the closed forms of the task posteriors.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import passhat as ph
from passhat.cli import main
from passhat.model.diagnostics import import_arviz
from passhat.model.grid import grid_posterior

az = import_arviz()


def _draws(fit, name, scope, k, si):
    if name in ("mu", "kappa"):
        da = fit.idata.posterior[name].isel(system=si)
        da = np.log(da) if name == "kappa" else da
    else:
        da = fit.metric(name, k=[k], scope=scope).isel(system=si).sel(k=k)
    return np.asarray(da.values)  # (chain, draw)


def _agree(nuts, grid, k):
    for si in range(len(nuts.systems)):
        for name, scope in [
            ("mu", None),
            ("kappa", None),
            ("pass_hat_k", "population"),
            ("pass_hat_k", "benchmark"),
            ("pass_at_k", "population"),
        ]:
            x = _draws(nuts, name, scope, k, si)
            y = _draws(grid, name, scope, k, si).ravel()
            ess = float(az.ess(x[None, ...].squeeze(0)))
            se = math.sqrt(x.var() / ess + y.var() / len(y))
            z = abs(x.mean() - y.mean()) / se
            assert z < 4.5, (nuts.systems[si], name, scope, x.mean(), y.mean(), se)
            # spread: se of a sd estimate ≈ sd / sqrt(2 n)
            rel = abs(x.std() / y.std() - 1)
            assert rel < 4.5 * math.sqrt(1 / (2 * ess) + 1 / (2 * len(y))) + 0.02, (name, rel)


def test_nuts_agrees_with_grid_on_agents(agents_nuts, agents_grid):
    assert agents_nuts.diagnostics.passed, agents_nuts.diagnostics.problems
    assert agents_nuts.sampler in ("nutpie", "pymc")
    _agree(agents_nuts, agents_grid, 5)


def test_nuts_agrees_with_grid_on_tau_bench(tau_nuts, tau_grid):
    assert tau_nuts.diagnostics.passed, tau_nuts.diagnostics.problems
    _agree(tau_nuts, tau_grid, 4)


def test_fit_idata_layout(agents_nuts):
    post = agents_nuts.idata.posterior
    assert post["mu"].dims == ("chain", "draw", "system")
    assert post["kappa"].dims == ("chain", "draw", "system")
    assert post["pass_hat_k_population"].dims == ("chain", "draw", "system", "k")
    assert list(post["system"].values) == ["baseline", "guided"]
    assert agents_nuts.idata.constant_data["n"].dims == ("system", "task")
    assert agents_nuts.idata.constant_data.sizes["task"] == 168
    # ICC is 1/(κ+1) per draw
    np.testing.assert_allclose(post["icc"].values, 1 / (post["kappa"].values + 1))


def test_benchmark_metric_is_reproducible_and_rao_blackwell_consistent(agents_nuts):
    stored = agents_nuts.metric("pass_hat_k", k=[5], scope="benchmark")
    again = agents_nuts.metric("pass_hat_k", k=[5, 6], scope="benchmark").sel(k=[5])
    np.testing.assert_array_equal(stored.values, again.values)
    rb = agents_nuts.metric("pass_hat_k", k=[5], scope="benchmark", rao_blackwell=True)
    # same posterior mean (draws add zero-mean conditional noise), less spread
    se = float(np.sqrt((stored - rb).var() / stored.size))
    assert abs(float(stored.mean() - rb.mean())) < 5 * se
    assert float(rb.std()) < float(stored.std())


def test_k_beyond_runs_is_a_prediction(agents_grid):
    m = agents_grid.metric("pass_hat_k", k=[5, 10, 20])
    means = m.mean(("chain", "draw")).values
    assert np.all(np.diff(means, axis=-1) < 0)  # pass^k decreases in k
    assert np.all(means > 0)


def test_summary_columns_and_variance_split(agents_grid):
    s = agents_grid.summary(k=[1, 5], ci=0.9)
    assert {"system", "metric", "k", "scope", "mean", "lower", "upper"} <= set(s.columns)
    assert {"within_task_share", "task_sampling_share", "method", "diagnostics"} <= set(s.columns)
    pop = s[(s["scope"] == "population") & (s["metric"] != "icc")]
    np.testing.assert_allclose(pop["within_task_share"] + pop["task_sampling_share"], 1.0)
    assert (pop["task_sampling_share"] > 0.5).all()  # 168 tasks × 5 runs: tasks dominate
    assert ((s["lower"] <= s["mean"]) & (s["mean"] <= s["upper"])).all()
    # benchmark pass^5 posterior mean vs the unbiased estimator (different estimands of the same
    # quantity; the model shrinks 5/5 tasks a little): within the posterior interval.
    est = ph.estimate(ph.load_example("agents"), k=5)
    for sysname in agents_grid.systems:
        row = s[
            (s["system"] == sysname)
            & (s["metric"] == "pass_hat_k")
            & (s["k"] == 5)
            & (s["scope"] == "benchmark")
        ].iloc[0]
        assert row["lower"] - 0.02 <= est.value("pass_hat_k", 5, sysname) <= row["upper"] + 0.02


def test_task_posterior_closed_form(agents_grid):
    tp = agents_grid.task_posterior(k=[2])
    assert len(tp) == 2 * 168
    row = tp.iloc[0]
    si = agents_grid.systems.index(row["system"])
    mu = agents_grid.idata.posterior["mu"].values[..., si].ravel()
    ka = agents_grid.idata.posterior["kappa"].values[..., si].ravel()
    a, _b = mu * ka, (1 - mu) * ka
    exact = np.mean((a + row["c"]) / (ka + row["n"]))
    assert row["p_mean"] == pytest.approx(exact)
    exact2 = np.mean((a + row["c"]) * (a + row["c"] + 1) / ((ka + row["n"]) * (ka + row["n"] + 1)))
    assert row["p_k_mean"] == pytest.approx(exact2)
    assert ((tp["p_lower"] <= tp["p_mean"]) & (tp["p_mean"] <= tp["p_upper"])).all()


def test_ppc_table_and_plot(agents_grid):
    t = agents_grid.ppc()
    for _s, part in t.groupby("system"):
        assert part["observed"].sum() == 168
        assert part["expected"].sum() == pytest.approx(168)
        assert len(part) == 6  # c = 0..5 of 5 runs
        # the fitted model reproduces the U shape: the observed counts of all-fail and
        # all-pass tasks lie within (a widened) predictive interval
        ends = part[part["bin"].isin([0, 5])]
        assert (
            (ends["observed"] >= ends["lower"] - 5) & (ends["observed"] <= ends["upper"] + 5)
        ).all()
    fig = ph.plot_ppc(agents_grid)
    assert len(fig.axes) == 2


def test_netcdf_round_trip(agents_grid, tmp_path):
    path = agents_grid.to_netcdf(tmp_path / "fit.nc")
    back = ph.load_fit(path)
    assert back.systems == agents_grid.systems
    assert back.seed == agents_grid.seed and back.k == agents_grid.k
    a = agents_grid.summary(k=[1, 5])
    b = back.summary(k=[1, 5])
    np.testing.assert_allclose(a["mean"], b["mean"])
    np.testing.assert_allclose(a["upper"], b["upper"])
    with pytest.raises(ph.ModelError):
        ph.load_fit(tmp_path / "missing.nc")


def test_degenerate_all_pass_nuts_runs_clean():
    f = ph.fit(
        ph.counts_from_arrays([5] * 20, [5] * 20),
        k=[1, 5],
        seed=5,
        progress=False,
        chains=2,
        draws=1000,
        tune=500,
    )
    assert f.diagnostics.divergences["system"] == 0
    assert f.diagnostics.passed, f.diagnostics.problems
    lam = np.log(f.idata.posterior["kappa"].values.ravel())
    assert lam.std() > 0.6  # κ is not identified by all-pass data: posterior stays wide


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


def test_inflated_model_and_compare(agents_nuts):
    inf = ph.fit(
        ph.load_example("agents"),
        k=[5],
        model="inflated",
        seed=21,
        progress=False,
        chains=2,
        draws=2000,
        tune=1000,
    )
    post = inf.idata.posterior
    assert {"mu", "kappa", "pi_pass", "pi_fail"} <= set(post.data_vars)
    assert inf.diagnostics.passed, inf.diagnostics.problems
    # shares of always-pass / always-fail tasks cannot exceed the observed shares of
    # 5/5 and 0/5 tasks by much (posterior mean within the observed share + 0.1)
    ds = ph.load_example("agents").counts()
    for si in range(2):
        n, c = ds["n"].values[si], ds["c"].values[si]
        assert float(post["pi_fail"].isel(system=si).mean()) < np.mean(c == 0) + 0.1
        assert float(post["pi_pass"].isel(system=si).mean()) < np.mean(c == n) + 0.1
    assert ((post["pi_pass"] + post["pi_fail"]) <= 1).all()
    m = inf.metric("pass_hat_k", k=[5]).values
    assert ((m >= 0) & (m <= 1)).all()
    cmp = ph.compare_models({"beta": agents_nuts, "inflated": inf})
    assert set(cmp["model"]) == {"beta", "inflated"}
    assert set(cmp["system"]) == {"baseline", "guided"}
    for _, part in cmp.groupby("system"):
        assert part["weight"].sum() == pytest.approx(1.0)
        assert np.isfinite(part["elpd_loo"]).all()
    with pytest.raises(ph.OptionError):
        ph.compare_models([agents_nuts])
    s = inf.summary(k=[5])
    assert (s["method"].str.contains("inflated")).all()


def test_pymc_sampler_fallback():
    f = ph.fit(
        ph.load_example("abcd"),
        k=[2],
        sampler="pymc",
        seed=3,
        progress=False,
        chains=2,
        draws=300,
        tune=300,
    )
    assert f.sampler == "pymc"
    assert f.idata.posterior["mu"].dims == ("chain", "draw", "system")


def test_bad_options():
    t = ph.load_example("abcd")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="grid", model="inflated")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="laplace")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="grid", draws=0)
    f = ph.fit(t, method="grid", seed=0, chains=1, draws=100)
    with pytest.raises(ph.OptionError):
        f.metric("icc", scope="benchmark")
    with pytest.raises(ph.OptionError):
        f.metric("pass_hat", k=2)
    with pytest.raises(ph.OptionError):
        ph.model.Priors(log_kappa_sd=0)


def test_cli_fit_json_and_strict(capsys, tmp_path):
    out = tmp_path / "f.nc"
    rc = main(
        [
            "fit",
            "--example",
            "agents",
            "--method",
            "grid",
            "--k",
            "1,5",
            "--seed",
            "0",
            "--json",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["diagnostics"]["passed"] is True
    assert {r["scope"] for r in doc["summary"]} == {"benchmark", "population"}
    assert ph.load_fit(out).systems == ["baseline", "guided"]
    # too few draws: ESS below 100 per chain → diagnostics fail → non-zero under --strict only
    args = [
        "fit",
        "--example",
        "abcd",
        "--method",
        "grid",
        "--chains",
        "2",
        "--draws",
        "40",
        "--seed",
        "0",
        "--quiet",
    ]
    assert main(args) == 0
    assert main([*args, "--strict"]) == 3
    text = capsys.readouterr().out
    assert "FAILED" in text and "ESS" in text


def test_cli_bad_input_one_line(capsys):
    assert main(["fit", "--example", "abcd", "--method", "grid", "--model", "inflated"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and len(err.strip().splitlines()) == 1


def test_weights_and_tasks_missing_for_a_system():
    """Declared weights enter the benchmark scope; tasks a system never ran are left out.

    Oracle: the Rao–Blackwellised benchmark mean equals Σ w_i E[p_i | a, b, data] computed
    by hand from the posterior draws, with w normalised over the tasks the system ran.
    """
    import pandas as pd

    rows = []
    spec = {"A": {"t1": 5, "t2": 4, "t3": 0, "t4": 2}, "B": {"t1": 3, "t2": 5}}
    weights = {"t1": 1.0, "t2": 3.0, "t3": 1.0, "t4": 0.5}
    for system, tasks in spec.items():
        for task, c in tasks.items():
            for trial in range(5):
                rows.append(
                    {
                        "system": system,
                        "task_id": task,
                        "trial": trial,
                        "success": trial < c,
                        "weight": weights[task],
                    }
                )
    trials = ph.Trials.from_frame(pd.DataFrame(rows))
    f = ph.fit(trials, k=[2], method="grid", weights="declared", seed=0, chains=2, draws=2000)
    assert f.idata.constant_data["present"].values.astype(bool).sum(axis=1).tolist() == [4, 2]
    rb = f.metric("mean", scope="benchmark", rao_blackwell=True)
    for si, system in enumerate(f.systems):
        mu = f.idata.posterior["mu"].values[..., si].ravel()
        ka = f.idata.posterior["kappa"].values[..., si].ravel()
        tasks = spec[system]
        w = np.array([weights[t] for t in tasks])
        w = w / w.sum()
        c = np.array(list(tasks.values()))
        hand = sum(wi * (mu * ka + ci) / (ka + 5) for wi, ci in zip(w, c, strict=True))
        np.testing.assert_allclose(rb.isel(system=si).values.ravel(), hand, rtol=1e-10)
    tp = f.task_posterior()
    assert len(tp[tp["system"] == "B"]) == 2
    assert f.ppc().groupby("system")["observed"].sum().to_dict() == {"A": 4, "B": 2}


def test_fit_api_negative_seed_is_an_option_error() -> None:
    from passhat.errors import OptionError

    data = ph.counts_from_arrays([4, 4, 4], [1, 4, 0])
    with pytest.raises(OptionError, match="seed"):
        ph.fit(data, method="grid", k=1, seed=-1, progress=False)
