"""passhat.graders.correct / correct_grader, its result, the audit planner and the CLI.

Oracles: today's estimate (se = sp = 1), SciPy's Beta quantiles for the grader's intervals,
a Monte-Carlo of the corrected mean under Beta-drawn (se, sp) for the planner's delta method,
the direct computation for the table lookup of the run bootstrap.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from scipy.stats import beta

import passhat as ph
from passhat import schemas
from passhat.cli import main
from passhat.errors import OptionError
from passhat.graders import GraderSpec, audit_size
from passhat.graders.audit import grader_variance
from passhat.graders.draws import benchmark_draws
from passhat.graders.spec import audit_from_labels


def test_perfect_grader_gives_todays_estimate() -> None:
    data = ph.load_example("agents")
    r = ph.correct_grader(data, sensitivity=1.0, specificity=1.0, k=[1, 2, 5])
    est = ph.estimate(data, k=[1, 2, 5])
    for metric, k in (("mean", 1), ("pass_at_k", 2), ("pass_hat_k", 5)):
        got, want = r.value(metric, k, system="guided"), est.value(metric, k, system="guided")
        assert got == pytest.approx(want, abs=1e-12)


def test_grader_intervals_are_scipy_beta_quantiles() -> None:
    g = GraderSpec.from_audit((90, 10, 80, 20))
    (se_lo, _), (_, sp_hi) = g.intervals(0.9)
    assert se_lo == pytest.approx(beta.ppf(0.05, 90.5, 10.5))
    assert sp_hi == pytest.approx(beta.ppf(0.95, 80.5, 20.5))
    assert (g.sensitivity, g.specificity) == (0.9, 0.8)


def test_intervals_both_scopes_and_wider_than_uncorrected() -> None:
    data = ph.load_example("agents")
    r = ph.correct_grader(data, audit=(95, 5, 90, 10), k=2, ci=0.9, n_boot=400)
    u = ph.correct_grader(data, sensitivity=1.0, specificity=1.0, k=2, ci=0.9, n_boot=400)
    t, tu = r.table, u.table
    assert set(t["scope"]) == {"benchmark", "population"}
    assert ((t["lower"] <= t["upper"]) & (t["lower"] >= 0) & (t["upper"] <= 1)).all()
    assert ((t["upper"] - t["lower"]).to_numpy() > (tu["upper"] - tu["lower"]).to_numpy()).all()
    stated = ph.correct_grader(data, sensitivity=0.95, specificity=0.9, k=2, ci=0.9, n_boot=400)
    assert any("ignore the grader's own uncertainty" in n for n in stated.notes)


def test_table_lookup_equals_direct_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    n = np.array([3.0, 5, 5, 4])
    c = np.array([1.0, 5, 0, 2])
    g = GraderSpec.from_audit((40, 4, 30, 6))
    a = benchmark_draws(n, c, [2, 3], g, n_boot=50, rng=np.random.default_rng(1))
    monkeypatch.setattr("passhat.graders.draws._power_table", lambda n, top: None)
    b = benchmark_draws(n, c, [2, 3], g, n_boot=50, rng=np.random.default_rng(1))
    np.testing.assert_allclose(a.pass_hat_k, b.pass_hat_k, atol=1e-12)
    np.testing.assert_allclose(a.pass_at_k, b.pass_at_k, atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"sensitivity": 0.5, "specificity": 0.4}, "sensitivity"),
        ({"sensitivity": 1.2, "specificity": 0.9}, "sensitivity"),
        ({"sensitivity": 0.9}, "sensitivity"),
        ({"audit": (1, 2, 3)}, "audit"),
        ({"audit": (0, 0, 5, 1)}, "audit"),
        ({"audit": (5, 5, 5, 5)}, "audit"),
        ({"audit": (9, 1, 9, 1), "sensitivity": 0.9, "specificity": 0.9}, "sensitivity"),
        ({"truth": "true_success"}, "truth"),
        ({}, "sensitivity"),
    ],
)
def test_refusals_name_the_option(kwargs: dict, param: str) -> None:
    with pytest.raises(OptionError) as err:
        ph.correct_grader(ph.load_example("abcd"), k=2, **kwargs)
    assert param in err.value.params


def test_k_above_runs_refused() -> None:
    with pytest.raises(OptionError, match="exceeds the decided runs"):
        ph.correct_grader(ph.load_example("abcd"), sensitivity=0.9, specificity=0.9, k=6)


def test_audit_column(tmp_path: Path) -> None:
    rows = ["task_id,trial,success,true_success"]
    rng = np.random.default_rng(3)
    for t in range(30):
        for r in range(4):
            g = int(rng.random() < 0.6)
            truth = "" if r else str(g if rng.random() < 0.9 else 1 - g)
            rows.append(f"t{t},{r},{g},{truth}")
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(rows) + "\n")
    data = ph.read_trials(str(path))
    r = ph.correct_grader(data, truth="true_success", k=2)
    df = data.frame[data.frame["true_success"].notna()]
    truth = df["true_success"].astype(float).to_numpy() == 1
    want = audit_from_labels(df["success"].astype(bool).to_numpy(), truth)
    assert r.grader.audit == want
    assert r.grader.audit.positives + r.grader.audit.negatives == 30


def test_result_shape() -> None:
    r = ph.correct_grader(ph.load_example("abcd"), audit=(45, 5, 40, 10), k=2, ci=0.9, n_boot=200)
    doc = r.to_dict(per_task=True)
    assert doc["schema"] == "passhat.grader_correction" and "passhat_version" in doc
    assert {"grader", "estimates", "tasks", "settings"} <= set(doc)
    assert len(repr(r)) <= 2000 and "<table" in r._repr_html_()
    with pytest.raises(AttributeError):
        r.ci = 0.5  # type: ignore[misc]
    from passhat import schemas

    schemas.validate(doc)


def test_audit_planner_matches_monte_carlo() -> None:
    """The delta method's grader s.d. of the corrected pass^2 against Beta-drawn (se, sp)."""
    se, sp, mu, k, n_audit = 0.9, 0.85, 0.6, 2, 2000
    g = grader_variance(sensitivity=se, specificity=sp, mean=mu, metric="pass_hat_k", k=k)
    rng = np.random.default_rng(0)
    pos = round(n_audit * mu)
    s = rng.beta(se * pos + 0.5, (1 - se) * pos + 0.5, 20_000)
    t = rng.beta(sp * (n_audit - pos) + 0.5, (1 - sp) * (n_audit - pos) + 0.5, 20_000)
    q = (se + sp - 1) * mu + 1 - sp  # every task at mu: theta = ((q - 1 + sp) / a)^k
    theta = ((q - 1 + t) / (s + t - 1)) ** k
    assert theta.std() == pytest.approx(np.sqrt(g / n_audit), rel=0.05)
    plan = audit_size(sensitivity=se, specificity=sp, mean=mu, k=k, half_width=0.02)
    assert plan.table["grader_half_width"].iloc[0] <= 0.02


def test_cli_estimate_and_plan_audit(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["estimate", "--example", "abcd", "--k", "2", "--grader-audit", "45,5,40,10",
               "--ci", "0.9", "--n-boot", "200", "--json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["grader"]["audit"] == {"tp": 45, "fn": 5, "tn": 40, "fp": 10}
    for argv, text in (
        (["estimate", "--example", "abcd", "--grader-audit", "1,2"], "--grader-audit"),
        (
            [
                "estimate",
                "--example",
                "abcd",
                "--grader-sensitivity",
                "0.9",
                "--grader-specificity",
                "0.9",
                "--by",
                "category",
            ],
            "--by",
        ),
        (
            [
                "plan",
                "audit",
                "--grader-sensitivity",
                "0.9",
                "--mean",
                "0.5",
                "--half-width",
                "0.1",
            ],
            "--grader-specificity",
        ),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and text in err[0] and err[0].startswith("passhat: error:")
    rc = main(["plan", "audit", "--grader-sensitivity", "0.9", "--grader-specificity", "0.85",
               "--mean", "0.6", "--half-width", "0.05", "--json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["schema"] == "passhat.plan_audit" and doc["audited_runs"] > 0


def test_small_audit_refused_when_draws_reach_chance() -> None:
    """se + sp > 1 at the audit's point values, but many posterior draws at or below 1."""
    with pytest.raises(OptionError, match="too small to tell the grader from chance") as err:
        ph.correct_grader(ph.load_example("abcd"), audit=(3, 2, 3, 2), k=2, ci=0.9, n_boot=200)
    assert "audit" in err.value.params


def test_per_task_view_and_rates() -> None:
    r = ph.correct_grader(ph.load_example("abcd"), sensitivity=0.9, specificity=0.8, k=2)
    p = r.per_task
    want = (p["c"] / p["n"] - 0.2) / 0.7
    np.testing.assert_allclose(p["corrected_rate"], want)
    text = str(r.view(per_task=True).parts[1].frame)
    assert "corrected rate" in text and len(r.to_frame()) == 3


def _counts(tasks: int = 40, seed: int = 3, **kw: object) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    n = rng.integers(3, 7, tasks)
    c = rng.binomial(n, rng.beta(1.2, 0.8, tasks))
    return ph.counts_from_arrays(n, c, tasks=[f"t{i}" for i in range(tasks)], **kw)


def _same_tables(a: ph.graders.GraderCorrection, b: ph.graders.GraderCorrection) -> None:
    cols = ["value", "observed", "lower", "upper"]
    np.testing.assert_array_equal(a.table[cols].to_numpy(), b.table[cols].to_numpy())


OPTS = {"audit": (95, 5, 90, 10), "k": [1, 2, 3], "ci": 0.9, "n_boot": 300, "seed": 5}


def test_equal_weights_give_the_unweighted_result_exactly() -> None:
    """Oracle: weights all equal (2.5 each) = the unweighted correction, bit for bit."""
    plain = ph.correct_grader(_counts(), **OPTS)
    equal = ph.correct_grader(_counts(weight=np.full(40, 2.5)), weights="declared", **OPTS)
    _same_tables(plain, equal)
    assert equal.weights == "declared" and equal.effective_tasks == {}


def test_one_task_per_cluster_gives_the_unclustered_result_exactly() -> None:
    """Oracle: every task its own cluster = the task bootstrap's numbers, bit for bit."""
    ds = _counts()
    plain = ph.correct_grader(ds, **OPTS)
    own_cluster = ds.assign_coords(cluster=("task", [f"r{i}" for i in range(40)]))
    own = ph.correct_grader(own_cluster, **OPTS)
    _same_tables(plain, own)
    assert own.clusters == {"system": 40}


def test_integer_weights_are_duplicated_tasks() -> None:
    """Oracle: a task of weight w counts as w copies of it (point values)."""
    rng = np.random.default_rng(8)
    n, c = rng.integers(3, 7, 15), None
    c = rng.binomial(n, 0.6)
    w = rng.integers(1, 4, 15)
    weighted = ph.correct_grader(
        ph.counts_from_arrays(n, c, weight=w.astype(float)), weights="declared",
        sensitivity=0.9, specificity=0.85, k=[1, 2, 3],
    )  # fmt: skip
    dup = ph.correct_grader(
        ph.counts_from_arrays(np.repeat(n, w), np.repeat(c, w)),
        sensitivity=0.9, specificity=0.85, k=[1, 2, 3],
    )  # fmt: skip
    np.testing.assert_allclose(weighted.table["value"], dup.table["value"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(weighted.table["observed"], dup.table["observed"], atol=1e-12)
    assert "weight" in weighted.per_task.columns and "Kish" in " ".join(weighted.notes)


def test_clusters_change_the_population_scope_only() -> None:
    ds = _counts(tasks=48)
    groups = np.repeat([f"repo{i}" for i in range(12)], 4)
    plain = ph.correct_grader(ds, **OPTS)
    cl = ph.correct_grader(ds.assign_coords(cluster=("task", groups)), **OPTS)
    bench = [r.table[r.table["scope"] == "benchmark"] for r in (plain, cl)]
    np.testing.assert_array_equal(bench[0][["lower", "upper"]], bench[1][["lower", "upper"]])
    pop = cl.table[cl.table["scope"] == "population"]
    assert pop["method"].str.startswith("cluster bootstrap (12 clusters").all()
    assert pop["method"].str.contains("fewer than 20 clusters").all()
    notes = " ".join(cl.notes)
    assert "system: 12 clusters" in notes and "may be too narrow below 20" in notes
    assert cl.to_dict()["clusters"] == {"system": 12}
    one = ph.correct_grader(ds.assign_coords(cluster=("task", ["r"] * 48)), **OPTS)
    assert one.table[one.table["scope"] == "population"]["lower"].isna().all()


def test_weight_zero_tasks_left_out_and_listed() -> None:
    w = np.ones(40)
    w[:3] = 0.0
    r = ph.correct_grader(_counts(weight=w), weights="declared", sensitivity=0.9,
                          specificity=0.9, k=2)  # fmt: skip
    assert len(r.excluded) == 3 and r.excluded["reason"].str.startswith("weight 0").all()
    assert int(r.table["tasks"].iloc[0]) == 37
    with pytest.raises(OptionError, match="weight 0") as err:
        ph.correct_grader(_counts(weight=np.zeros(40)), weights="declared", sensitivity=0.9,
                          specificity=0.9, k=2)  # fmt: skip
    assert "weights" in err.value.params


def test_cli_grader_with_weights_and_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = ["task_id,trial,success,repo"]
    for t in range(6):
        rows += [f"T{t},{i},{int((t + i) % 3 > 0)},r{t // 2}" for i in range(3)]
    path = tmp_path / "cl.csv"
    path.write_text("\n".join(rows) + "\n")
    rc = main(["estimate", str(path), "--k", "2", "--grader-audit", "45,5,40,10", "--ci", "0.9",
               "--n-boot", "200", "--cluster", "repo", "--json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["clusters"] == {"system": 3}
    schemas.validate(doc)
    pop = [e for e in doc["estimates"] if e["scope"] == "population"]
    assert all(e["method"].startswith("cluster bootstrap (3 clusters") for e in pop)
    rc = main(["estimate", "--example", "agents", "--k", "2", "--grader-audit", "45,5,40,10",
               "--weights", "category", "--json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["settings"]["weights"] == "category"
    schemas.validate(doc)


def _audited_runs(tmp_path: Path) -> ph.Trials:
    """30 tasks × 4 runs of one system; the first run of every task audited (true label
    disagreeing with the grader in about 1 of 10); task t0's runs all audited, all wrong."""
    rows = ["task_id,trial,success,true_success"]
    rng = np.random.default_rng(5)
    for t in range(30):
        for r in range(4):
            g = int(rng.random() < 0.6)
            truth = "" if r and t else str(1 - g if t == 0 else g if rng.random() < 0.9 else 1 - g)
            rows.append(f"t{t},{r},{g},{truth}")
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(rows) + "\n")
    return ph.read_trials(str(path))


def test_audit_column_counts_only_the_tasks_averaged(tmp_path: Path) -> None:
    """A task of weight 0 is left out of the average, so its audited runs are left out of
    the audit too (the audit is of the runs the correction applies to), and a note says so.
    Oracle: the audit counts by hand from the other tasks' audited runs."""
    data = _audited_runs(tmp_path)
    weights = {f"t{t}": (0.0 if t == 0 else 1.0) for t in range(30)}
    r = ph.correct_grader(data, truth="true_success", k=2, weights=weights)
    df = data.frame[data.frame["true_success"].notna() & (data.frame["task_id"] != "t0")]
    truth = df["true_success"].astype(float).to_numpy() == 1
    assert r.grader.audit == audit_from_labels(df["success"].astype(bool).to_numpy(), truth)
    assert r.grader.audit.positives + r.grader.audit.negatives == 29
    assert "audit: 29 run(s) with a true label in column 'true_success'" in r.notes
    assert any(n.startswith("4 audited run(s) of tasks the estimate leaves out") for n in r.notes)
    # equal weights: every audited run counts (t0's four, all mislabelled, lower se and sp)
    every = ph.correct_grader(data, truth="true_success", k=2)
    assert every.grader.audit.positives + every.grader.audit.negatives == 33
    assert not any("leaves out" in n for n in every.notes)
    assert every.grader.sensitivity < r.grader.sensitivity


def test_audit_column_with_no_label_left_is_refused(tmp_path: Path) -> None:
    """No audited run on the tasks averaged: refused, naming why (not an empty audit)."""
    from passhat.graders.correct import grader_spec

    data = _audited_runs(tmp_path)
    with pytest.raises(OptionError, match="no true label of a decided run of the tasks the"):
        grader_spec(data, truth="true_success", keep=frozenset({("other", "t1")}))
