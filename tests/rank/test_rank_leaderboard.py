"""Tests of passhat.rank: the paired bootstrap engine, the leaderboard API and its errors.

Oracles: the resampled means recomputed from the resampled task indices by plain
averaging (what a task bootstrap is by definition), passhat.compare on the same two
systems (the same difference, interval and p-value: one paired rule), and τ-bench
airline gpt-4o against itself (identical systems must share a letter, a rank and
P(rank = 1) = 0.5 each) and against a copy with a few tasks edited.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import passhat as ph
from passhat.compare import paired_table
from passhat.errors import ModelError, ShortTaskError, ValidationError
from passhat.estimators import as_counts, pass_hat_k
from passhat.rank.engine import paired_draws
from passhat.scopes import column_values, columns
from passhat.trials import counts_from_arrays


def _frame(systems: dict[str, tuple[list[int], list[int]]]) -> pd.DataFrame:
    rows = []
    for name, (n, c) in systems.items():
        for t, (nn, cc) in enumerate(zip(n, c, strict=True)):
            for r in range(nn):
                rows.append({"system": name, "task_id": f"t{t}", "trial": r, "success": r < cc})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("equal_weights", [True, False])
def test_paired_draws_are_the_task_bootstrap(equal_weights: bool) -> None:
    rng = np.random.default_rng(0)
    s_n, t_n = 4, 37
    n = rng.integers(3, 7, size=(s_n, t_n)).astype(float)
    c = rng.binomial(n.astype(int), 0.6).astype(float)
    w = np.ones(t_n) if equal_weights else rng.uniform(0.5, 2.0, t_n)
    cols = columns([1, 3])
    d = paired_draws(n, c, w, cols, n_boot=50, rng=np.random.default_rng(7))
    # replay the same resamples: the engine draws task indices with rng.integers
    idx = np.random.default_rng(7).integers(0, t_n, size=(50, t_n))
    for s in range(s_n):
        v = column_values(n[s], c[s], cols)  # tasks × columns
        brute = np.array([(w[i] @ v[i]) / w[i].sum() for i in idx])
        assert np.allclose(d[:, s, :], brute, atol=1e-9)


def test_identical_systems_have_identical_draws() -> None:
    n = np.full((3, 60), 5.0)
    c = np.vstack([np.arange(60) % 6] * 2 + [np.arange(60) % 4]).astype(float)
    d = paired_draws(n, c, np.ones(60), columns([1, 5]), n_boot=300, rng=np.random.default_rng(1))
    assert np.array_equal(d[:, 0], d[:, 1])


def test_two_systems_agree_with_compare(agents_trials: ph.Trials) -> None:
    r = ph.rank(agents_trials, k=[1, 3], n_boot=2000, seed=4)
    cmp = ph.compare(agents_trials, k=[1, 3], n_boot=2000, seed=4)
    for (metric, kk, scope), part in r.pairs.groupby(["metric", "k", "scope"]):
        row = part.iloc[0]
        assert (row["system_a"], row["system_b"]) == ("baseline", "guided")
        ref = cmp.table[
            (cmp.table["metric"] == metric) & (cmp.table["k"] == kk) & (cmp.table["scope"] == scope)
        ].iloc[0]
        assert row["difference"] == pytest.approx(ref["difference"], abs=1e-12)
        assert row["method"] == ref["method"]
        # the same rule; random sign flips differ by seed stream, exact parts match
        assert row["lower"] == pytest.approx(ref["lower"], abs=0.01)
        assert row["upper"] == pytest.approx(ref["upper"], abs=0.01)
        # one pair: Holm changes nothing, and the letters split is the test's decision
        assert row["p_holm"] == pytest.approx(row["p_value"])
    pop = r.pairs[(r.pairs["scope"] == "population") & (r.pairs["metric"] == "pass_hat_k")]
    for _, row in pop.iterrows():
        t = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == row["k"])]
        split = t["group"].nunique() == 2
        assert split == bool(row["p_value"] <= 0.05)
        assert (row["lower"] > 0 or row["upper"] < 0) == split


@pytest.mark.parametrize("tasks", [10, 40])
def test_two_systems_reproduce_compare_exactly_with_the_same_seed(tasks: int) -> None:
    """With two systems the pair is `compare`'s to the last digit (same seed, same n_boot):
    10 tasks take the posterior rule, 40 the sign-flip rule. The pair test once drew from
    the stream the rank bootstrap had consumed, so a borderline pair could be separated by
    `rank` and not by `compare` (here the 10-task population p-value was 0.038 vs 0.020)."""
    rng = np.random.default_rng(3)
    n = [5] * tasks
    df = ph.Trials.from_frame(
        _frame(
            {
                "A": (n, rng.binomial(5, 0.7, tasks).tolist()),
                "B": (n, rng.binomial(5, 0.45, tasks).tolist()),
            }
        )
    )
    r = ph.rank(df, k=[1, 2], n_boot=1000, seed=11)
    cmp = ph.compare(df, k=[1, 2], n_boot=1000, seed=11)
    assert len(r.pairs) >= 4  # every metric and k, two scopes
    for _, row in r.pairs.iterrows():
        ref = cmp.table[
            (cmp.table["metric"] == row["metric"])
            & (cmp.table["k"] == row["k"])
            & (cmp.table["scope"] == row["scope"])
        ].iloc[0]
        assert row["method"] == ref["method"]
        for col in ("difference", "lower", "upper", "p_value"):
            assert row[col] == ref[col], (row["metric"], row["scope"], col)


def test_pairwise_matrix_on_shared_flips_matches_per_pair_compare_rule() -> None:
    # oracle: the per-pair engine (each pair its own random flips, what compare does) with
    # the same number of flips; the shared flips change the random stream only, so the
    # p-values agree within Monte-Carlo error, the ends within a few MC errors, the rest exactly
    rng = np.random.default_rng(3)
    s_n, t_n = 5, 80
    n = np.full((s_n, t_n), 4)
    p = rng.beta(1, 1, size=t_n)
    lift = np.array([0.0, 0.02, 0.05, 0.1, 0.2])
    c = rng.binomial(n, np.clip(p[None, :] + lift[:, None], 0, 1))
    names = [f"m{i}" for i in range(s_n)]
    tables = [counts_from_arrays(n[i], c[i], system=names[i]) for i in range(s_n)]
    r = ph.rank(tables, k=[1, 2], n_boot=3000, seed=0)
    flips = r.settings["pair_flips"]
    pairs = [(a, b) for a in range(s_n) for b in range(a + 1, s_n)]
    ref = paired_table(
        n, c, np.ones(t_n), pairs, [1, 2], ci=0.95, n_boot=flips, rng=np.random.default_rng(9)
    )
    ref = ref[(ref["metric"] != "mean") | (ref["k"] == 1)].reset_index(drop=True)
    got = r.pairs
    assert got["system_a"].tolist() == [names[i] for i in ref["a"]]
    for col in ("metric", "k", "scope", "difference", "method"):
        assert got[col].tolist() == ref[col].tolist()
    flip = ref["p_method"].str.contains("random sign flips").to_numpy()
    assert flip.sum() >= 20
    assert got.loc[flip, "p_method"].str.contains(f"shared by {len(pairs)} pairs").all()
    po, pn = ref.loc[flip, "p_value"].to_numpy(), got.loc[flip, "p_value"].to_numpy()
    pm = np.clip((po + pn) / 2, 1 / flips, 1)
    assert (np.abs(pn - po) <= 4.5 * np.sqrt(2 * pm * (1 - pm) / flips) + 2 / flips).all()
    for end in ("lower", "upper"):
        assert np.abs(got.loc[flip, end].to_numpy() - ref.loc[flip, end].to_numpy()).max() < 0.03


def test_tau_airline_against_itself() -> None:
    tr = ph.load_example("tau-airline")
    df = tr.frame.copy()
    a = df.assign(system="gpt-4o")
    b = df.assign(system="gpt-4o (copy)")
    r = ph.rank(ph.Trials.from_frame(pd.concat([a, b])), k=[1, 4], n_boot=2000, seed=0)
    for _, part in r.table.groupby(["metric", "k"]):
        assert part["group"].tolist() == ["a", "a"]
        assert part["rank"].tolist() == [1, 1]
        assert part["share_first"].tolist() == pytest.approx([0.5, 0.5])
        assert part[["rank_lower", "rank_upper"]].values.tolist() == [[1, 2], [1, 2]]
    assert (r.pairs["difference"] == 0).all()
    assert (r.pairs["win_probability"] == 0.5).all()


def test_tau_airline_against_an_edited_copy() -> None:
    tr = ph.load_example("tau-airline")
    df = tr.frame.copy()
    counts = df.groupby("task_id")["success"].sum()
    # the copy passes every run on five tasks the original failed in some runs
    fix = counts[(counts > 0) & (counts < 4)].index[:5]
    b = df.assign(system="gpt-4o edited")
    b.loc[b["task_id"].isin(fix), "success"] = True
    both = ph.Trials.from_frame(pd.concat([df.assign(system="gpt-4o"), b]))
    r = ph.rank(both, k=[1, 4], n_boot=2000, seed=0)
    p4 = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == 4)]
    assert p4["system"].tolist() == ["gpt-4o edited", "gpt-4o"]
    assert p4["share_first"].iloc[0] > 0.9  # better on 5 tasks, equal elsewhere
    cmp = ph.compare(both, k=[1, 4], n_boot=2000, seed=0, baseline="gpt-4o")
    ref = cmp.table[(cmp.table["metric"] == "pass_hat_k") & (cmp.table["k"] == 4)]
    row = r.pairs[(r.pairs["metric"] == "pass_hat_k") & (r.pairs["k"] == 4)]
    sign = 1.0 if row["system_a"].iloc[0] == "gpt-4o" else -1.0
    assert sign * row["difference"].iloc[0] == pytest.approx(ref["difference"].iloc[0])


def test_ties_share_a_rank_and_known_order() -> None:
    # a: all pass, b = c: half pass, d: none pass — values are known exactly
    n = [4] * 40
    df = _frame(
        {
            "a": (n, [4] * 40),
            "b": (n, [4] * 20 + [0] * 20),
            "c": (n, [0] * 20 + [4] * 20),
            "d": (n, [0] * 40),
        }
    )
    r = ph.rank(ph.Trials.from_frame(df), k=[1, 2], n_boot=1000, seed=0)
    t = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == 2)].set_index("system")
    assert t.loc[["a", "b", "c", "d"], "rank"].tolist() == [1, 2, 2, 4]
    assert t.loc["a", "share_first"] == 1.0
    assert t.loc["b", "group"] == t.loc["c", "group"]
    assert t.loc[["b", "c"], "rank_lower"].tolist() == [2, 2]
    assert t.loc[["b", "c"], "rank_upper"].tolist() == [3, 3]


def test_several_inputs_and_value_against_estimate(agents_trials: ph.Trials) -> None:
    df = agents_trials.frame
    parts = [ph.Trials.from_frame(df[df["system"] == s]) for s in ("baseline", "guided")]
    r = ph.rank(parts, k=[2], n_boot=500, seed=0)
    est = ph.estimate(agents_trials, k=[2])
    for s in ("baseline", "guided"):
        got = r.table[(r.table["system"] == s) & (r.table["metric"] == "pass_hat_k")]["value"]
        ref = est.table[
            (est.table["system"] == s)
            & (est.table["metric"] == "pass_hat_k")
            & (est.table["k"] == 2)
        ]["value"]
        assert float(got.iloc[0]) == pytest.approx(float(ref.iloc[0]))
    n, c = np.full(20, 4), np.arange(20) % 5
    v = pass_hat_k(n, c, 2).mean()
    one = ph.rank(
        [counts_from_arrays(n, c, system="x"), counts_from_arrays(n, 4 - c, system="y")],
        k=2,
        n_boot=300,
    )
    assert one.table.set_index(["system", "metric"]).loc[("x", "pass_hat_k"), "value"] == (
        pytest.approx(v)
    )


def test_bad_input_errors() -> None:
    n = [4] * 12
    one = ph.Trials.from_frame(_frame({"a": (n, [2] * 12)}))
    with pytest.raises(ValidationError, match="at least two systems; the input holds one"):
        ph.rank(one)
    apart = _frame({"a": (n, [2] * 12), "b": (n, [3] * 12)})
    apart.loc[apart["system"] == "b", "task_id"] += "-other"
    with pytest.raises(ValidationError, match="system 'a' has no task in common"):
        ph.rank(ph.Trials.from_frame(apart))
    short = _frame({"a": (n, [2] * 12), "b": ([4] * 11 + [2], [1] * 12)})
    with pytest.raises(ShortTaskError, match="system 'b': k = 4 exceeds its n = 2"):
        ph.rank(ph.Trials.from_frame(short), k=[1, 4])
    partial = _frame({"a": (n, [2] * 12), "b": (n[:10], [1] * 10)})
    with pytest.raises(ValidationError, match="2 task\\(s\\) not run by every system"):
        ph.rank(ph.Trials.from_frame(partial), k=1)
    r = ph.rank(ph.Trials.from_frame(partial), k=1, intersect=True, n_boot=200)
    assert r.settings["tasks"] == 10 and len(r.dropped) == 2


def test_joint_engine_needs_a_joint_fit(agents_trials: ph.Trials) -> None:
    with pytest.raises(ModelError, match="engine='joint' needs a joint model fit"):
        ph.rank(agents_trials, k=1, engine="joint", fit=object())
    # rank never fits (the model is a higher layer): without fit= the error says how
    with pytest.raises(ModelError, match=r"engine='rasch' needs .*fit=passhat\.fit to fit it"):
        ph.rank(agents_trials, k=1, engine="rasch")


def test_joint_engine_uses_metric_draws(agents_trials: ph.Trials) -> None:
    class FakeJointFit:  # JointFit's interface, returning known draws
        systems = ("guided", "baseline")  # in its own order

        def metric_draws(self, metric: str, k: int, *, scope: str):
            rng = np.random.default_rng(k)
            return np.column_stack([rng.normal(0.8, 0.01, 400), rng.normal(0.6, 0.01, 400)])

    r = ph.rank(agents_trials, k=1, engine="joint", fit=FakeJointFit(), n_boot=200)
    t = r.table[r.table["metric"] == "mean"].set_index("system")
    assert t.loc["guided", "upper"] > 0.78 and t.loc["baseline", "upper"] < 0.65
    assert t.loc["guided", "value"] == pytest.approx(0.8, abs=0.005)  # the posterior mean
    assert t.loc["guided", "share_first"] == 1.0
    assert r.settings["engine_label"].startswith("joint")


def test_bands_are_simultaneous_and_wider(agents_trials: ph.Trials) -> None:
    r = ph.rank(agents_trials, k=[1, 2, 3, 4, 5], n_boot=3000, seed=0)
    b = r.band("guided", "pass_hat_k")
    marg = r.table[(r.table["system"] == "guided") & (r.table["metric"] == "pass_hat_k")]
    assert (b["upper"].to_numpy() - b["lower"].to_numpy()).mean() > (
        marg["upper"].to_numpy() - marg["lower"].to_numpy()
    ).mean()
    d = r.draws[
        :, r.systems.index("guided"), [j for j, c in enumerate(r.columns) if c[0] == "pass_hat_k"]
    ]
    inside = np.all((d >= b["lower"].to_numpy()) & (d <= b["upper"].to_numpy()), axis=1).mean()
    assert inside >= 0.95 - 0.01
    assert "simultaneous over k = 1, 2, 3, 4, 5" in set(r.bands["interval"])
    db = r.difference_band("baseline", "guided")
    assert (db["lower"] <= db["difference"]).all() and (db["difference"] <= db["upper"]).all()


def test_enough_flips_for_holm_across_many_pairs() -> None:
    # 12 systems, 66 pairs: with 200 flips the smallest permutation p (1/201) could never
    # pass Holm's first step (0.05 / 66); rank raises the flips to 2 · 66 / 0.05 = 2640
    rng = np.random.default_rng(3)
    t_n = 40
    rates = np.linspace(0.05, 0.95, 12)
    tables = [
        counts_from_arrays(np.full(t_n, 4), rng.binomial(4, p, t_n), system=f"s{i:02d}")
        for i, p in enumerate(rates)
    ]
    r = ph.rank(tables, k=1, metrics=["mean"], n_boot=200, seed=0)
    assert r.settings["pair_flips"] == 2640
    pop = r.pairs[r.pairs["scope"] == "population"]
    extreme = pop[(pop["system_a"] == "s00") & (pop["system_b"] == "s11")].iloc[0]
    assert extreme["p_value"] < 0.05 / 66 and bool(extreme["separated"])
    assert r.table["group"].nunique() > 1


def test_views_say_marginal_or_simultaneous(agents_trials: ph.Trials) -> None:
    df = agents_trials.frame.copy()
    df.loc[df["system"] == "guided", "system"] = "<b>guided</b>"
    r = ph.rank(ph.Trials.from_frame(df), k=[1, 2], n_boot=300, seed=0)
    text = repr(r)  # the CLI's view: a table per metric and k, the engine, the legend
    assert text.startswith("mean: 2 systems on 168 common tasks (0.95 intervals)")
    assert "pass^2: 2 systems on 168 common tasks" in text and "pass^1:" not in text
    assert "marginal percentile interval of the paired task bootstrap per system" in text
    assert "simultaneous over its comparisons with the others" in text
    assert "300 resamples, seed 0" in text
    html = r._repr_html_()
    assert "&lt;b&gt;guided&lt;/b&gt;" in html and "<b>guided</b>" not in html
    assert set(r.table["interval"]) == {"marginal"}
    assert r.bands["interval"].str.startswith("simultaneous over k").all()


def test_tasks_without_a_decided_run_are_left_out_and_listed() -> None:
    tasks = [f"t{i}" for i in range(12)]
    a = counts_from_arrays([4] * 12, [2] * 12, tasks=tasks, system="a")
    b = counts_from_arrays(
        [4] * 11 + [0], [3] * 11 + [0], tasks=tasks, unscored=[0] * 11 + [4], system="b"
    )
    r = ph.rank([a, b], k=2, n_boot=200)
    assert r.settings["tasks"] == 11
    assert r.dropped.to_dict(orient="records") == [
        {"task": "t11", "reason": "no decided run for b"}
    ]
    with pytest.raises(ValidationError, match="no decided run"):
        ph.rank([a, b], k=2, n_boot=200, unscored_tasks="error")


@pytest.mark.integration  # NUTS
def test_joint_engine_with_a_real_joint_fit(agents_trials: ph.Trials) -> None:
    """engine='joint' ranks from JointFit's posterior draws (a small fit, NUTS)."""
    jf = ph.fit(agents_trials, model="joint", draws=150, tune=150, chains=2, seed=1)
    r = ph.rank(agents_trials, k=[1, 5], engine="joint", fit=jf, n_boot=200, seed=0)
    t = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == 5)].set_index("system")
    d = jf.metric_draws("pass_hat_k", 5, scope="population")
    col = jf.systems.index("guided")
    # the point value is the posterior mean of the joint model's population pass^5
    assert t.loc["guided", "value"] == pytest.approx(float(d[:, col].mean()), rel=1e-9)
    assert r.settings["engine_label"].startswith("joint")
    # guided is ahead in every posterior draw on this example, as in the bootstrap
    assert t.loc["guided", "share_first"] > 0.95 and t.loc["guided", "rank"] == 1


@pytest.mark.integration  # NUTS
def test_rasch_engine_fits_the_rasch_form(agents_trials: ph.Trials) -> None:
    """engine='rasch' with ``fit=passhat.fit`` fits the joint model's Rasch form itself
    (``fit(data, model="rasch", seed=seed)`` on the ranked data, defaults otherwise) and names
    it in the label; its values are that fit's posterior means.

    The fit rank makes is recorded by wrapping the real ``passhat.fit`` (it runs unchanged),
    instead of fitting a second time with the same seed: 4 chains × 2000 iterations less.
    """
    made: list[tuple[tuple[Any, ...], dict[str, Any], Any]] = []

    def recording_fit(*args: Any, **kwargs: Any) -> Any:
        out = ph.fit(*args, **kwargs)
        made.append((args, kwargs, out))
        return out

    r = ph.rank(agents_trials, k=[1, 2], engine="rasch", fit=recording_fit, n_boot=200, seed=0)
    assert "Rasch form" in r.settings["engine_label"]
    assert len(made) == 1
    (data,), kwargs, jf = made[0]
    assert kwargs == {"model": "rasch", "seed": 0} and jf.model == "rasch"
    # the data fitted are the ranked runs: every task of both systems, the same counts
    want = as_counts(agents_trials)
    for var in ("n", "c"):
        np.testing.assert_array_equal(
            data[var].transpose("system", "task").values,
            want[var].sel(system=data["system"].values, task=data["task"].values).values,
        )
    assert data.sizes["task"] == want.sizes["task"] == 168
    t = r.table[(r.table["metric"] == "pass_hat_k") & (r.table["k"] == 2)].set_index("system")
    d = jf.metric_draws("pass_hat_k", 2, scope="population")
    for system in ("guided", "baseline"):
        col = jf.systems.index(system)
        assert t.loc[system, "value"] == pytest.approx(float(d[:, col].mean()), rel=1e-12)


def test_unscored_runs_are_counted_in_the_notes() -> None:
    """Unscored runs are not in n; the ranking says how many per system (as estimate does)."""
    df = _frame({"A": ([4, 4, 4], [3, 1, 2]), "B": ([4, 4, 4], [2, 2, 4])})
    r = ph.rank(ph.Trials.from_frame(df), k=1, n_boot=200, seed=0)
    assert r.notes == []
    extra = pd.DataFrame(
        {"system": "A", "task_id": ["t1", "t1"], "trial": [4, 5], "success": [None, None]}
    )
    r = ph.rank(ph.Trials.from_frame(pd.concat([df, extra])), k=1, n_boot=200, seed=0)
    assert r.notes == [
        "2 unscored run(s) (no verdict: grader, harness or infrastructure error) are not "
        "counted in n: A 2"
    ]


def test_a_zero_width_bootstrap_interval_takes_the_estimates_rule() -> None:
    # A passes every run of 30 tasks: every task resample gives 1, so the percentile interval
    # read [1, 1] for the population mean of tasks like these, which is not known exactly.
    # Oracle: passhat.estimate's population interval of the same system (same seed and draws).
    a = ph.counts_from_arrays([5] * 30, [5] * 30, system="A")
    b = ph.counts_from_arrays([5] * 30, [5] * 29 + [4], system="B")
    r = ph.rank([a, b], k=[1, 5], n_boot=500, seed=0)
    t = r.table.set_index(["system", "metric", "k"])
    est = ph.estimate(a, k=[1, 5], ci=0.95, n_boot=500, seed=0).table
    pop = est[est["scope"] == "population"].set_index(["metric", "k"])
    for metric, kk in [("mean", 1), ("pass_hat_k", 5), ("pass_at_k", 5)]:
        row = t.loc[("A", metric, kk)]
        assert row["upper"] - row["lower"] > 1e-3
        assert row["lower"] == pytest.approx(pop.loc[(metric, kk), "lower"])
        assert row["upper"] == pytest.approx(pop.loc[(metric, kk), "upper"])
        assert "every bootstrap resample gave one value" in row["interval"]
    assert t.loc[("B", "pass_hat_k", 5), "interval"] == "marginal"  # B's resamples differ
    assert any("not the bootstrap's percentile interval" in n for n in r.notes)


def test_few_tasks_take_each_systems_posterior_the_interval_estimate_gives() -> None:
    """Below 30 common tasks the task bootstrap cannot resample (one task: every resample is
    the same task, intervals of zero width and P(rank = 1) = 1.00 for a system 'ahead' on one
    task). Oracle: `ph.estimate`'s population interval of each system (the hierarchical
    posterior below 30 tasks), to the last digit; P(rank = 1) sums to 1."""
    rng = np.random.default_rng(4)
    for tasks in (1, 12):
        n = [4] * tasks
        df = ph.Trials.from_frame(
            _frame(
                {
                    "A": (n, rng.binomial(4, 0.9, tasks).tolist()),
                    "B": (n, rng.binomial(4, 0.7, tasks).tolist()),
                    "C": (n, rng.binomial(4, 0.5, tasks).tolist()),
                }
            )
        )
        r = ph.rank(df, k=[1, 4], n_boot=2000, seed=0)
        assert "fewer than 30 common tasks" in r.settings["engine_label"]
        assert r.settings["draws_word"] == "draws"
        assert (r.table["engine"] == "posterior").all()  # the rows say what drew them
        assert (r.table["upper"] - r.table["lower"] > 0.05).all()
        # each system's estimate, once for the k grid rank was given (its rows do not depend
        # on the other k asked for)
        est = {
            s: ph.estimate(
                ph.Trials.from_frame(df.frame[df.frame["system"] == s]),
                k=[1, 4],
                ci=0.95,
                n_boot=2000,
                seed=0,
            ).table.set_index(["metric", "k", "scope"])
            for s in ("A", "B", "C")
        }
        for (metric, k), part in r.table.groupby(["metric", "k"]):
            assert part["share_first"].sum() == pytest.approx(1.0)
            assert part["share_first"].max() < 0.99
            for row in part.itertuples():
                ref = est[row.system].loc[(metric, k, "population")]
                assert (row.lower, row.upper) == (ref["lower"], ref["upper"])


def test_identical_systems_on_few_tasks_split_the_first_rank() -> None:
    n = [5] * 10
    c = [5, 5, 4, 3, 5, 2, 5, 5, 1, 4]
    r = ph.rank(ph.Trials.from_frame(_frame({"a": (n, c), "b": (n, c)})), k=[1, 3], seed=0)
    assert (r.pairs["difference"] == 0).all()
    for _, part in r.table.groupby(["metric", "k"]):
        assert part["group"].tolist() == ["a", "a"]
        # independent draws of one posterior: 0.5 each within 4 MC s.e. of 10,000 draws
        assert part["share_first"].tolist() == pytest.approx([0.5, 0.5], abs=4 * 0.005)
        assert part[["rank_lower", "rank_upper"]].values.tolist() == [[1, 2], [1, 2]]


def test_win_probabilities_equal_the_direct_comparison_of_draws() -> None:
    # oracle: (db > da).mean() + 0.5 (db == da).mean() on the rounded draws, pair by pair;
    # many ties (values on a coarse grid), equal systems, -0.0 and 0.0, a column with NaN
    from passhat.rank.pairs import win_probabilities

    rng = np.random.default_rng(3)
    draws = np.round(rng.uniform(-0.2, 1.0, (400, 7, 3)), 1)
    draws[:, 3] = draws[:, 2]
    draws[:50, 4, 0] = -0.0
    draws[:50, 5, 0] = 0.0
    draws[7, 6, 2] = np.nan
    a, b = np.triu_indices(7, 1)
    a, b = np.r_[a, b], np.r_[b, a]  # both directions
    j = np.arange(a.size) % 3
    got = win_probabilities(draws, a, b, j)
    x = np.round(draws, 12)
    want = [
        (x[:, bb, jj] > x[:, aa, jj]).mean() + 0.5 * (x[:, bb, jj] == x[:, aa, jj]).mean()
        for aa, bb, jj in zip(a, b, j, strict=True)
    ]
    assert got.tolist() == want


def test_twins_group_rows_as_numpy_unique_does() -> None:
    from passhat.rank.leaderboard import _twins

    rows = np.random.default_rng(1).integers(0, 2, size=(40, 6)).astype(float)
    labels = _twins(rows)
    want = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
    same = labels[:, None] == labels[None, :]
    np.testing.assert_array_equal(same, want[:, None] == want[None, :])
