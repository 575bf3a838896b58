"""The fit() entry point: option checks, weights, tasks a system did not run.

Oracles: the Rao–Blackwellised benchmark mean computed by hand from the posterior draws
with the declared weights normalised over the tasks each system ran.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.errors import OptionError


def test_bad_options():
    t = ph.load_example("abcd")
    with pytest.raises(ph.OptionError, match="grid only"):
        ph.fit(t, method="nuts", model="discrete")
    with pytest.raises(ph.OptionError, match="grid only"):
        ph.fit(t, method="nuts", model="auto")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="laplace")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="grid", draws=0)
    with pytest.raises(ph.OptionError):
        ph.fit(t, model="hurdle")
    with pytest.raises(ph.OptionError):
        ph.fit(t, method="grid", target_accept=1.0)
    with pytest.raises(ph.ModelError):
        ph.fit(ph.counts_from_arrays([0, 0], [0, 0]), method="grid")


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
    f = ph.fit(
        trials, k=[2], method="grid", model="beta", weights="declared", seed=0, chains=2, draws=2000
    )
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


def test_default_method_is_the_grid_where_it_applies_and_nuts_elsewhere():
    """method="auto": the grid for every single-system model (no compiling); NUTS only when asked.

    Oracle: the grid fit with the same seed, asked for by name (identical draws).
    """
    from passhat.model.sampler import resolve_method

    data = ph.load_example("abcd")
    f = ph.fit(data, k=[2], seed=3, chains=2, draws=300)
    assert (f.method, f.sampler) == ("grid", "grid")
    assert "grid quadrature" in f.method_label
    named = ph.fit(data, k=[2], method="grid", seed=3, chains=2, draws=300)
    np.testing.assert_array_equal(f.idata.posterior["mu"], named.idata.posterior["mu"])
    assert resolve_method("auto", "inflated") == "grid"
    assert resolve_method("grid", "inflated") == "grid"
    assert resolve_method("nuts", "beta") == resolve_method("nuts", "inflated") == "nuts"
    with pytest.raises(ph.OptionError, match=r"grid only"):
        resolve_method("nuts", "discrete")
    with pytest.raises(ph.OptionError, match="sampler"):  # checked even when the grid runs
        ph.fit(data, sampler="stan")


def test_compiling_shows_a_spinner_then_its_time_only_when_asked(capsys):
    from passhat.model.sampler import compiling

    with compiling(False, "compiling the beta model"):
        pass
    assert capsys.readouterr().err == ""
    with compiling(True, "compiling the beta model"):
        pass
    assert "compiling the beta model: done in" in capsys.readouterr().err


def test_task_with_no_decided_run_follows_estimates_rule():
    """Issue 16 item 3: fit kept a task with no decided run in the benchmark scope (its rate
    drawn from the fitted distribution) while estimate refused it. One rule, default "exclude".

    Oracle: the same fit on the data without that task (same seed: identical draws, since a
    task with n = 0 adds nothing to the likelihood), and estimate's task set.
    """
    from passhat.model.fit import fit_notes

    with_empty = ph.counts_from_arrays(
        [4, 4, 4, 0], [4, 1, 0, 0], tasks=list("abcd"), unscored=[0, 0, 0, 4]
    )
    without = ph.counts_from_arrays([4, 4, 4], [4, 1, 0], tasks=list("abc"))
    opts = {"method": "grid", "k": [1, 2], "seed": 3, "draws": 400, "chains": 2}
    f = ph.fit(with_empty, **opts)
    g = ph.fit(without, **opts)
    cols = ["metric", "k", "scope", "mean", "lower", "upper"]
    pd.testing.assert_frame_equal(f.summary(k=[1, 2])[cols], g.summary(k=[1, 2])[cols])
    present = f.idata.constant_data["present"].values.astype(bool)
    est = ph.estimate(with_empty, k=[1, 2])
    assert present.tolist() == est.per_task["included"].values.tolist() == [[True] * 3 + [False]]
    # the unscored runs are counted first (never dropped silently), then the task left out
    assert fit_notes(f)[0].startswith("4 unscored run(s) (no verdict")
    assert fit_notes(f)[0].endswith("are not counted in n: system 4")
    assert "left out of the benchmark scope: d (system)" in fit_notes(f)[1]
    assert fit_notes(g) == []
    imputed = ph.fit(with_empty, unscored_tasks="impute", **opts)
    assert "drawn from the fitted distribution" in fit_notes(imputed)[1]
    bench = imputed.summary(k=[1])
    bench = bench[(bench["scope"] == "benchmark") & (bench["metric"] == "mean")]["mean"].iloc[0]
    ref = g.summary(k=[1])
    ref = ref[(ref["scope"] == "benchmark") & (ref["metric"] == "mean")]["mean"].iloc[0]
    assert bench != pytest.approx(ref)  # the old behaviour, kept one option away
    with pytest.raises(ph.ValidationError, match="have no decided run"):
        ph.fit(with_empty, unscored_tasks="error", **opts)
    with pytest.raises(ph.OptionError, match="unscored_tasks must be one of"):
        ph.fit(with_empty, unscored_tasks="drop", **opts)


def test_unknown_model_names_every_model_including_joint() -> None:
    names = r"one of beta, inflated, discrete, auto, joint, rasch \(got 'x'\)"
    with pytest.raises(OptionError, match=names):
        ph.fit(ph.load_example("abcd"), model="x")
