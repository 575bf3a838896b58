"""One default number of bootstrap resamples and one default seed, shared by every entry point
(and one min_runs rule).

Issue 12 items 2 and 8: the report bootstrapped 2,000 times and ``estimate``/``compare``
10,000, so the same data and seed gave different intervals; and without a default seed the
intervals moved between runs. Oracles: the signatures and CLI options themselves (every
default is :data:`passhat._validate.DEFAULT_N_BOOT` / :data:`DEFAULT_SEED`), and equality of
the numbers the entry points compute from the same data.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import click
import numpy as np
import pytest

import passhat as ph
from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED, check_min_runs, resolve_seed
from passhat.bootstrap import task_bootstrap
from passhat.cli import cli
from passhat.compare import paired_difference
from passhat.errors import OptionError
from passhat.intervals import estimate_intervals
from passhat.planner.design_check import simulate_design
from passhat.report.build import build_report_data

API = [
    ph.estimate,
    ph.compare,
    ph.report,
    build_report_data,
    ph.spread,
    paired_difference,
    task_bootstrap,
    estimate_intervals,
]


def test_constants() -> None:
    assert DEFAULT_N_BOOT == 10_000 and DEFAULT_SEED == 0


@pytest.mark.parametrize("func", API, ids=lambda f: f.__qualname__)
def test_every_api_default_is_the_shared_one(func) -> None:  # type: ignore[no-untyped-def]
    params = inspect.signature(func).parameters
    assert params["n_boot"].default == DEFAULT_N_BOOT
    assert params["seed"].default == DEFAULT_SEED


def test_fit_seed_default_is_the_shared_one() -> None:
    assert inspect.signature(ph.fit).parameters["seed"].default == DEFAULT_SEED


@pytest.mark.parametrize(
    "command", ["estimate", "compare", "report", "fit", "plan", "spread", "rank"]
)
def test_every_cli_default_is_the_shared_one(command: str) -> None:
    ctx = click.Context(cli)
    cmd = cli.get_command(ctx, command)  # the group is lazy: commands load by name
    assert cmd is not None, command
    if isinstance(cmd, click.Group):
        subs = [cmd.get_command(ctx, name) for name in cmd.list_commands(ctx)]
    else:
        subs = [cmd]
    found = 0
    for sub in subs:
        for p in sub.params:
            if p.name == "n_boot":
                assert p.default == DEFAULT_N_BOOT, (command, sub.name)
                found += 1
            if p.name == "seed":
                assert p.default == DEFAULT_SEED, (command, sub.name)
                found += 1
    assert found, f"{command} has no --seed / --n-boot"


def test_repeated_estimates_without_a_seed_agree() -> None:
    """Item 8: intervals no longer move between runs."""
    trials = ph.load_example("tau-airline")
    a = ph.estimate(trials, k=4, ci=0.95).table
    b = ph.estimate(trials, k=4, ci=0.95).table
    assert a[["lower", "upper"]].equals(b[["lower", "upper"]])


def test_seed_none_draws_a_seed_that_is_recorded_and_reproduces() -> None:
    trials = ph.load_example("tau-airline")
    est = ph.estimate(trials, k=4, ci=0.95, seed=None, n_boot=500)
    seed = est.settings["seed"]
    assert isinstance(seed, int) and f"seed {seed}" in est.notes[-1]
    again = ph.estimate(trials, k=4, ci=0.95, seed=seed, n_boot=500)
    assert est.table[["lower", "upper"]].equals(again.table[["lower", "upper"]])
    cmp = ph.compare(ph.load_example("agents"), k=1, seed=None, n_boot=200)
    assert isinstance(cmp.settings["seed"], int)
    assert resolve_seed(5) == 5


def test_report_and_estimate_give_the_same_intervals(tmp_path: Path) -> None:
    """Item 2: the report's headline intervals are the estimate's, each with its defaults."""
    trials = ph.load_example("tau-airline")
    res = ph.report(trials, tmp_path / "r", model=False, plan=False)
    stamp = json.loads(res.paths.json.read_text(encoding="utf-8"))["stamp"]
    assert stamp["settings"]["n_boot"] == DEFAULT_N_BOOT and stamp["seed"] == DEFAULT_SEED
    est = ph.estimate(trials, k=stamp["settings"]["k"], ci=0.95)
    rows = res.data.section("headline").tables[0].rows
    metric = {"mean": "mean", "pass@k": "pass_at_k", "pass^k": "pass_hat_k"}
    for row in rows:
        k = 1 if row["k"] is None else row["k"]
        for scope in ("benchmark", "population"):
            lo, hi = est.interval(metric[row["metric"]], k, scope=scope)
            assert (row[f"{scope}_lower"], row[f"{scope}_upper"]) == (lo, hi)
    assert len(rows) == 5  # mean, and pass@k / pass^k at k = 2 and 4


def test_cli_prints_resamples_and_seed(capsys) -> None:  # type: ignore[no-untyped-def]
    from passhat.cli import main

    assert main(["estimate", "--example", "tau-airline", "--k", "4", "--ci", "0.95"]) == 0
    assert "10000 resamples or posterior draws, seed 0" in capsys.readouterr().out
    assert main(["estimate", "--example", "tau-airline", "--k", "4", "--ci", "0.9", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["n_boot"] == 10000 and doc["settings"]["seed"] == 0
    assert main(["compare", "--example", "agents", "--n-boot", "300", "--seed", "7"]) == 0
    assert "sign flips and posterior draws: 300, seed 7" in capsys.readouterr().out


# ------------------------------------------------- k is a whole number, never a boolean
def _k_calls() -> dict[str, object]:
    """Every public entry point that takes k, called with everything else valid."""
    import numpy as np

    from passhat import plan

    abcd, agents = ph.load_example("abcd"), ph.load_example("agents")
    prior = plan.Assumptions(mean=0.6, icc=0.3)
    est = ph.estimate(abcd, k=[1, 2], ci=None)
    sp = ph.spread(abcd, k=[1, 2])
    return {
        "estimate": lambda k: ph.estimate(abcd, k=k, ci=None),
        "Estimate.value": lambda k: est.value("pass_hat_k", k),
        "compare": lambda k: ph.compare(agents, k=k, n_boot=200),
        "rank": lambda k: ph.rank(agents, k=k, n_boot=200),
        "spread": lambda k: ph.spread(abcd, k=k),
        "Spread.row": lambda k: sp.row("seed-example", k),
        "spread_from_summary": lambda k: ph.spread_from_summary(mean=0.77, pass_hat_k=0.53, k=k),
        "plot_gap": lambda k: ph.plot_gap(sp, k=k),
        "task_intervals": lambda k: ph.task_intervals(abcd, k=k),
        "per_task_metrics": lambda k: ph.per_task_metrics(ph.counts_from_arrays([5], [3]), k),
        "pass_hat_k": lambda k: ph.pass_hat_k(5, 3, k),
        "pass_at_k": lambda k: ph.pass_at_k(5, 3, k),
        "pass_hat_k array": lambda k: ph.pass_hat_k(5, 3, np.array([k, 2], dtype=object)),
        "plugin_pass_hat_k": lambda k: ph.plugin_pass_hat_k(5, 3, k),
        "plugin_pass_at_k": lambda k: ph.plugin_pass_at_k(5, 3, k),
        "pass_hat_k_variance": lambda k: ph.pass_hat_k_variance(5, 0.5, k),
        "pass_at_k_variance": lambda k: ph.pass_at_k_variance(5, 0.5, k),
        "pass_hat_k_variance_estimate": lambda k: ph.pass_hat_k_variance_estimate(5, 3, k),
        "plan.population_value": lambda k: plan.population_value(2.0, 2.0, k, "pass_hat_k"),
        "plan.estimator_moments": lambda k: plan.estimator_moments([5], 2.0, 2.0, k),
        "plan.design": lambda k: plan.design(budget_runs=200, k=k, prior=prior),
        "plan.simulate_design": lambda k: simulate_design(
            tasks=10, runs_per_task=3, k=k, prior=prior, replicates=20
        ),
        "plan.power": lambda k: plan.power(
            delta=0.1, tasks=50, runs_per_task=3, prior=prior, k=k, metric="pass_hat_k"
        ),
        "plan.rate_for_pass_hat_k": lambda k: plan.rate_for_pass_hat_k(target=0.9, k=k),
        "plan.choose_k": lambda k: plan.choose_k(unacceptable_failure_rate=0.1, k=k, ci=None),
        "plan.next_runs": lambda k: plan.next_runs(abcd, budget=5, k=k),
        "plan.sequential": lambda k: plan.sequential(abcd, k=k, max_failure_rate=0.5),
        "plan.more_runs": lambda k: plan.more_runs(abcd, k=k, simulations=20),
    }


@pytest.fixture(scope="module")
def k_calls() -> dict[str, object]:
    return _k_calls()


@pytest.mark.parametrize("name", list(_k_calls()))
def test_k_refuses_booleans_in_every_entry_point(name: str, k_calls: dict) -> None:  # type: ignore[type-arg]
    """``True`` is an int in Python and ``numpy.True_`` converts to 1: k=True was read as k = 1
    by the estimators, Estimate.value, Spread.row, plot_gap, spread_from_summary (numpy's
    True) and the planner's moments. Oracle: the rule (k is a whole number ≥ 1), one message
    from passhat._validate.check_k / check_k_values / norm_k; k = 1 itself still works."""
    import numpy as np

    call = k_calls[name]
    for bad in (True, np.True_):
        with pytest.raises(ph.OptionError, match=r"k must be .*not (a boolean|booleans)"):
            call(bad)  # type: ignore[operator]
    call(1)  # type: ignore[operator]


def test_one_min_runs_rule() -> None:
    """check_min_runs: whole numbers ≥ 1 as k (no 2.0, no True); estimate, compare and
    classify share it."""
    assert check_min_runs(3) == 3 and check_min_runs(np.int64(2)) == 2
    assert check_min_runs(None) is None
    for bad_value in (2.0, True, 0, "3"):
        with pytest.raises(OptionError, match="min_runs must be a whole number ≥ 1"):
            check_min_runs(bad_value)
    with pytest.raises(OptionError, match="got None"):
        check_min_runs(None, optional=False)
    agents = ph.load_example("agents")
    for call in (
        lambda: ph.estimate(agents, k=1, on_short="exclude", min_runs=2.0),
        lambda: ph.compare(agents, k=1, n_boot=100, on_short="exclude", min_runs=2.0),
        lambda: ph.classify(agents, min_runs=2.0),
    ):
        with pytest.raises(OptionError, match=r"min_runs must be a whole number ≥ 1 \(got 2.0\)"):
            call()
