"""Clustered vs uniform spread: oracles are the seeds' printed table, scipy's Beta /
BetaBinomial moments, brute force with math.comb, and a simulation with known truth."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import passhat as ph
from passhat.cli import main
from passhat.errors import OptionError
from passhat.spread import beta_mixed_share, beta_moment, solve_beta_kappa

# The seeds' table (pass-at-k-vs-pass-hat-k.txt, IBM AppWorld rows, k = 5): label, Mean@5,
# measured pass^5, printed Mean@5^5 (1 decimal, %).
IBM_ROWS = [
    ("GPT-4.1 baseline", 0.774, 0.530, "27.8%"),
    ("GPT-4.1 + guidelines, same task", 0.810, 0.690, "34.9%"),
    ("GPT-4.1 + guidelines, similar task", 0.795, 0.660, "31.8%"),
    ("GPT-OSS-120B baseline", 0.339, 0.101, "0.4%"),
]


@pytest.mark.parametrize(("label", "mean", "hat", "printed"), IBM_ROWS)
def test_seed_rows_uniform_reference(label: str, mean: float, hat: float, printed: str) -> None:
    s = ph.spread_from_summary(mean=mean, pass_hat_k=hat, k=5, label=label)
    assert f"{s.uniform:.1%}" == printed
    assert s.ratio == pytest.approx(hat / mean**5)
    assert s.explained
    assert s.beta is not None
    # the implied Beta reproduces the pair it was solved from (scipy's Beta moment as oracle)
    dist = stats.beta(s.beta.a, s.beta.b)
    assert dist.mean() == pytest.approx(mean, rel=1e-9)
    assert dist.moment(5) == pytest.approx(hat, rel=1e-8)
    assert s.beta.icc == pytest.approx(1 / (s.beta.kappa + 1))
    assert label in s.sentence()


def test_seed_gaps_and_consistency() -> None:
    # seeds: "a gap of 24.4 percentage points" (GPT-4.1) and 23.8 (GPT-OSS-120B);
    # "pass^5 divided by Mean@5 is 0.68 for GPT-4.1 against 0.30 for GPT-OSS-120B"
    gpt = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5)
    oss = ph.spread_from_summary(mean=0.339, pass_hat_k=0.101, k=5)
    assert round(gpt.gap * 100, 1) == 24.4
    assert round(oss.gap * 100, 1) == 23.8
    assert f"{gpt.consistency:.2f}" == "0.68"
    assert f"{oss.consistency:.2f}" == "0.30"
    # "measured pass^5 is nearly double what an even spread predicts"
    assert 1.8 < gpt.ratio < 2.0


def test_two_fifty_percent_agents_from_pairs() -> None:
    # seeds: every task passes half its runs → pass^5 = 3.1%; half always pass → 50.0%
    uniform = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5**5, k=5)
    split = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=5)
    assert f"{uniform.pass_hat_k:.1%}" == "3.1%" and f"{uniform.uniform:.1%}" == "3.1%"
    assert uniform.beta is not None and uniform.beta.kappa == math.inf and uniform.beta.icc == 0
    assert split.beta is not None and split.beta.kappa == 0.0 and split.beta.icc == 1.0
    assert split.ratio == pytest.approx(16.0)
    assert split.beta.mixed_share[5] == 0.0
    assert uniform.beta.mixed_share[5] == pytest.approx(1 - 2 * 0.5**5)


def test_two_fifty_percent_agents_from_runs() -> None:
    # 100 tasks × 5 runs, half 5/5 and half 0/5: measured 50.0% vs uniform 3.1%
    counts = ph.counts_from_arrays([5] * 100, [5] * 50 + [0] * 50)
    row = ph.spread(counts, k=5).row("system", 5)
    assert f"{row['pass_hat_k']:.1%}" == "50.0%" and f"{row['uniform']:.1%}" == "3.1%"
    assert row["flaky_share"] == 0 and row["gap"] == 0
    assert "no gap" in ph.spread(counts, k=5).sentence("system", 5)


@pytest.mark.parametrize(
    ("mean", "hat", "k", "words"),
    [
        (0.5, 0.6, 5, "impossible"),
        (0.5, 0.01, 5, "below the uniform reference"),
        (0.5, 0.4, 1, "k = 1"),
        (1.0, 1.0, 5, "not strictly between"),
    ],
)
def test_pairs_no_beta_explains(mean: float, hat: float, k: int, words: str) -> None:
    s = ph.spread_from_summary(mean=mean, pass_hat_k=hat, k=k)
    assert not s.explained and s.beta is None
    assert words in s.reason
    assert "No Beta" in s.sentence()
    with pytest.raises(OptionError):
        solve_beta_kappa(mean, hat, k)


def test_beta_moment_and_mixed_share_match_scipy() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        mu, kappa, k = rng.uniform(0.05, 0.95), rng.lognormal(0, 1.5), int(rng.integers(1, 12))
        a, b = mu * kappa, (1 - mu) * kappa
        assert beta_moment(mu, kappa, k) == pytest.approx(stats.beta(a, b).moment(k), rel=1e-9)
        bb = stats.betabinom(k, a, b)
        assert beta_mixed_share(mu, kappa, k) == pytest.approx(1 - bb.pmf(0) - bb.pmf(k), abs=1e-12)


def test_published_mixed_share_check() -> None:
    # IBM: the shortfall concentrates in ~32% of tasks; a single Beta matching (77.4%, 53.0%)
    # predicts more mixed tasks than that, and the result must say so.
    s = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, mixed_share=0.32)
    assert s.beta is not None
    pred = s.beta.mixed_share[5]
    bb = stats.betabinom(5, s.beta.a, s.beta.b)
    assert pred == pytest.approx(1 - bb.pmf(0) - bb.pmf(5))
    assert abs(pred - 0.32) > 0.03
    assert "cannot explain" in s.mixed_share_check
    ok = ph.spread_from_summary(mean=0.774, pass_hat_k=0.530, k=5, mixed_share=round(pred, 2))
    assert "agrees" in ok.mixed_share_check


def test_known_truth_recovers_kappa() -> None:
    """Simulate p ~ Beta(μκ, (1−μ)κ), n = 5 runs; pass^5 measured from the runs, then
    spread_from_summary recovers κ within 4 standard errors (delta method on the measured
    pass^5, whose SE is the per-task spread / √T)."""
    rng = np.random.default_rng(7)
    mu, kappa, T, n = 0.7, 1.5, 40_000, 5
    p = rng.beta(mu * kappa, (1 - mu) * kappa, size=T)
    c = rng.binomial(n, p)
    counts = ph.counts_from_arrays(np.full(T, n), c)
    row = ph.spread(counts, k=5).row("system", 5)
    per_task = ph.pass_hat_k(n, c, 5)
    se = per_task.std(ddof=1) / math.sqrt(T)
    k_hat = solve_beta_kappa(row["mean"], row["pass_hat_k"], 5)
    h = 1e-4
    slope = (
        solve_beta_kappa(row["mean"], row["pass_hat_k"] + h, 5)
        - solve_beta_kappa(row["mean"], row["pass_hat_k"] - h, 5)
    ) / (2 * h)
    # the mean is estimated too; add its part the same way
    se_mu = (c / n).std(ddof=1) / math.sqrt(T)
    slope_mu = (
        solve_beta_kappa(row["mean"] + h, row["pass_hat_k"], 5)
        - solve_beta_kappa(row["mean"] - h, row["pass_hat_k"], 5)
    ) / (2 * h)
    tol = 4 * math.hypot(slope * se, slope_mu * se_mu)
    assert abs(k_hat - kappa) < tol, (k_hat, tol)
    # and the predicted share of mixed tasks matches the observed one within 4 SE
    mixed = ((c > 0) & (c < n)).mean()
    pred = float(beta_mixed_share(mu, kappa, n))
    assert abs(row["flaky_share"] - mixed) < 1e-12
    assert abs(mixed - pred) < 4 * math.sqrt(pred * (1 - pred) / T)


def test_gap_split_by_task_brute_force() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(5, 9, size=40)
    c = rng.binomial(n, rng.beta(0.6, 0.4, size=40))
    counts = ph.counts_from_arrays(n, c, tasks=[f"t{i}" for i in range(40)])
    sp = ph.spread(counts, k=[2, 5])
    for k in (2, 5):
        brute = np.array(
            [
                ci / ni - math.comb(int(ci), k) / math.comb(int(ni), k)
                for ni, ci in zip(n, c, strict=True)
            ]
        ) / len(n)
        row = sp.row("system", k)
        contrib = sp.contributions[sp.contributions["k"] == k]
        assert contrib["contribution"].sum() == pytest.approx(row["gap"], abs=1e-12)
        assert row["gap"] == pytest.approx(brute.sum(), abs=1e-12)
        # worst first, the exact brute-force values, and only tasks with both outcomes
        expect = np.sort(brute[brute > 0])[::-1]
        np.testing.assert_allclose(contrib["contribution"].to_numpy(), expect, atol=1e-12)
        assert set(contrib["task"]) == {f"t{i}" for i in np.flatnonzero((c > 0) & (c < n))}
        # smallest share of tasks carrying 80% of the gap, by brute force
        cum = np.cumsum(expect) / expect.sum()
        assert row["tasks_for_80"] == pytest.approx((np.argmax(cum >= 0.8) + 1) / 40)
        assert row["tasks_for_100"] == pytest.approx(((c > 0) & (c < n)).sum() / 40)
        assert contrib["cumulative"].iloc[-1] == pytest.approx(1.0)
        assert row["uniform"] == pytest.approx(row["mean"] ** k)
        assert row["consistency"] == pytest.approx(row["pass_hat_k"] / row["mean"])


def test_shares_and_sentence_on_example(agents_trials) -> None:
    sp = ph.spread(agents_trials, k=[1, 5])
    counts = agents_trials.counts()
    for s, system in enumerate(counts["system"].values):
        n, c = counts["n"].values[s], counts["c"].values[s]
        sh = sp.shares[sp.shares["system"] == system].iloc[0]
        assert sh["always_pass"] == int((c == n).sum())
        assert sh["always_fail"] == int((c == 0).sum())
        assert sh["flaky"] == int(((c > 0) & (c < n)).sum())
        row = sp.row(system, 5)
        text = sp.sentence(system, 5)
        # written from the numbers, not hard-coded
        assert f"{row['flaky_share']:.0%} of tasks" in text
        assert f"{row['gap'] * 100:.1f}-point gap" in text
    assert "k = 1" in sp.sentence(str(counts["system"].values[0]), 1)


def test_spread_short_tasks_error_names_task() -> None:
    counts = ph.counts_from_arrays([5, 2], [3, 1], tasks=["long", "short-one"])
    with pytest.raises(ph.ShortTaskError, match="short-one"):
        ph.spread(counts, k=5)
    sp = ph.spread(counts, k=5, on_short="exclude")
    assert sp.row("system", 5)["tasks"] == 1 and len(sp.excluded) == 1


# ------------------------------------------------------------------------- CLI
def test_cli_published_pair_json(capsys) -> None:
    rc = main(["spread", "--mean", "77.4%", "--pass-hat", "0.530", "--k", "5", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["spread"]
    assert f"{out['uniform']:.1%}" == "27.8%"
    assert out["beta"]["pass_hat_k"]["5"] == pytest.approx(0.53)


def test_cli_published_pair_table(capsys) -> None:
    rc = main(["spread", "--mean", "0.339", "--pass-hat", "0.101", "--k", "5", "--label", "OSS"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "0.4%" in out and "10.1%" in out and "23.8 pts" in out and "0.30" in out


def test_cli_runs(capsys) -> None:
    assert main(["spread", "--example", "agents", "--k", "1,5"]) == 0
    assert "uniform spread" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["spread", "--mean", "1.4", "--pass-hat", "0.5", "--k", "5"],
        ["spread", "--mean", "abc", "--pass-hat", "0.5", "--k", "5"],
        ["spread", "--mean", "0.5", "--k", "5"],
        ["spread", "--mean", "0.5", "--pass-hat", "0.2", "--k", "2,5"],
        ["spread", "--example", "agents", "--mean", "0.5", "--pass-hat", "0.2", "--k", "5"],
    ],
)
def test_cli_bad_input_one_line(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("passhat: error:") and err.count("\n") == 1


def test_spread_even_spread_sentence() -> None:
    # every task 3 of 5: unbiased pass^2 = C(3,2)/C(5,2) = 0.3 < 0.6² = 0.36 (no clustering)
    counts = ph.counts_from_arrays([5] * 20, [3] * 20)
    sp = ph.spread(counts, k=2)
    row = sp.row("system", 2)
    assert row["pass_hat_k"] == pytest.approx(math.comb(3, 2) / math.comb(5, 2))
    assert row["ratio"] == pytest.approx(0.3 / 0.36)
    text = sp.sentence("system", 2)
    assert "no sign that failures cluster" in text and "concentrate" not in text
    assert "100% of tasks have both outcomes" in text


def test_spread_with_intervals_matches_estimate() -> None:
    # the pass^k interval of the spread table is the population-scope interval of estimate
    trials = ph.load_example("agents")
    sp = ph.spread(trials, k=[2, 5], ci=0.9, n_boot=400, seed=1)
    est = ph.estimate(trials, k=[2, 5], ci=0.9, n_boot=400, seed=1)
    t = est.table
    for r in sp.table.to_dict(orient="records"):
        iv = t[
            (t["system"] == r["system"])
            & (t["k"] == r["k"])
            & (t["metric"] == "pass_hat_k")
            & (t["scope"] == "population")
        ].iloc[0]
        assert (r["pass_hat_k_lower"], r["pass_hat_k_upper"]) == (iv["lower"], iv["upper"])
        assert r["pass_hat_k_lower"] <= r["pass_hat_k"] <= r["pass_hat_k_upper"]
        assert r["scope"] == "population" and "bootstrap" in r["method"]


def test_spread_ratio_at_mean_zero_is_undefined_not_infinite() -> None:
    s = ph.spread_from_summary(mean=0.0, pass_hat_k=0.0, k=4)
    assert math.isnan(s.ratio) and math.isnan(s.consistency)  # 0 / 0
    assert "nan" not in s.sentence() and "∞" not in s.sentence()
    t = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=4)
    assert t.ratio == pytest.approx(8.0)  # 0.5 / 0.5**4, unchanged


def test_spread_from_summary_refuses_non_finite_runs() -> None:
    with pytest.raises(OptionError, match="runs"):
        ph.spread_from_summary(mean=0.5, pass_hat_k=0.3, k=2, runs=float("nan"))
