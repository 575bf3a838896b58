"""``passhat plan`` (the CLI regressions of the QA pass; the planner's own CLI tests are in
tests/test_cli_plan.py).

Oracles: the CLI contract (exit 2, one line naming the option and the rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli_helpers import GOOD, HEADER, PRIOR, bad, write


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = [
        "plan",
        "power",
        "--delta",
        "0.1",
        "--tasks",
        "20",
        "--runs-per-task",
        "3",
        "--mean",
        "0.6",
        "--icc",
        "0.3",
        "--method",
        "simulation",
        "--seed",
        "-1",
    ]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["plan", "design", "--budget-runs", "nan", *PRIOR], r"budget_runs .*nan"),
        (["plan", "design", "--budget-runs", "inf", *PRIOR], r"budget_runs .*inf"),
        (["plan", "design", "--budget-cost", "nan", *PRIOR], r"budget_cost .*nan"),
        (["plan", "design", "--budget-cost", "inf", *PRIOR], r"budget_cost .*inf"),
        (
            ["plan", "power", "--delta", "0.1", "--tasks", "20", "--runs-per-task", "3",
             *PRIOR, "--method", "simulation", "--replicates", "0"],
            r"replicates .*≥ 1.*0",
        ),
    ],
    ids=["runs-nan", "runs-inf", "cost-nan", "cost-inf", "replicates-0"],
)  # fmt: skip
def test_plan_non_finite_budget_and_zero_replicates_are_option_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], pattern: str
) -> None:
    bad(capsys, args, pattern)


def test_plan_power_bad_scheduler_address_is_an_option_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["plan", "power", "--delta", "0.1", *PRIOR, "--grid-tasks", "20", "--grid-runs", "3"]
    bad(capsys, [*args, "--scheduler", "nonsense"], r"scheduler 'nonsense': cannot connect")


# ---------------------------------------- plan --from data with no interior ML fit
@pytest.mark.parametrize(
    ("body", "word"),
    [("A,t1,0,0\nA,t1,1,0\nA,t2,0,0\nA,t2,1,0\n", "fail"), ("A,t1,0,1\nA,t2,0,1\n", "pass")],
    ids=["all-fail", "all-pass"],
)
def test_plan_from_all_fail_or_all_pass_runs_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: str, word: str
) -> None:
    # every (μ, κ) with μ at 0 (or 1) maximises the likelihood: κ, hence the ICC,
    # the SEs and the power, would be an arbitrary optimiser stop, not a fit
    import passhat as ph
    from passhat.errors import InputError

    path = write(tmp_path, "runs.csv", HEADER + body)
    with pytest.raises(InputError, match=rf"every decided run .*{word}"):
        ph.plan.from_counts(ph.read_trials(path))
    args = ["plan", "power", "--delta", "-0.1", "--tasks", "20", "--runs-per-task", "2"]
    bad(capsys, [*args, "--from", path], rf"system 'A': every decided run .*{word}.*--mean")


def test_plan_design_refuses_a_budget_too_large_to_enumerate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 10^9 runs enumerate 10^9 (tasks, runs) candidates: ~10 GB before any answer
    args = ["plan", "design", "--budget-runs", "1e9", *PRIOR]
    bad(capsys, args, r"budget_runs = 1e\+09 .*too many .*max_runs_per_task")
