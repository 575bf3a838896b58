"""``passhat plan``: answers first, JSON, bad options → one line and exit 2.

Oracles: the seeds' printed lines (shared/seeds/pass-at-k-vs-pass-hat-k.txt) and the
planner API itself (tested against scipy/statsmodels/simulation in tests/planner/).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import passhat as ph
from passhat.cli import main

from .cli_helpers import GOOD, HEADER, PRIOR, bad, write


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_detect_prints_answer_first(capsys):
    code, out, _ = run(capsys, "plan", "detect", "--flip-rate", "0.10", "--ci", "0.95")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "29 runs"
    assert "10.0%" in lines[1] and "Assumes:" in out and "clean state" in out


def test_bound_and_certify_and_retry(capsys):
    _, out, _ = run(capsys, "plan", "bound", "--runs", "30", "--failures", "0")
    assert out.splitlines()[0] == "failure rate ≤ 9.5%"
    _, out, _ = run(capsys, "plan", "certify", "--max-failure-rate", "0.05")
    assert out.splitlines()[0] == "59 runs"
    _, out, _ = run(
        capsys, "plan", "certify", "--max-failure-rate", "0.05", "--allowed-failures", "2"
    )
    assert (
        out.splitlines()[0]
        == f"{int(ph.plan.runs_to_certify(max_failure_rate=0.05, allowed_failures=2))} runs"
    )
    _, out, _ = run(capsys, "plan", "retry", "--rate", "0.9", "--attempts", "3")
    assert out.splitlines()[0] == "retry-until-green 99.9% vs all-must-pass 72.9%"


def test_the_old_names_still_run_with_a_one_line_note(capsys):
    """``plan gate`` is ``plan retry`` (hidden, "gate" is ``passhat gate``) and ``--confidence``
    is ``--ci``, for one release: the same output, one deprecation line on stderr."""
    code, out, err = run(capsys, "plan", "gate", "--rate", "0.9", "--attempts", "3")
    assert code == 0 and out == run(capsys, "plan", "retry", "--rate", "0.9", "--attempts", "3")[1]
    assert err.count("\n") == 1 and "'plan gate' is deprecated: use 'plan retry'" in err
    code, out, err = run(capsys, "plan", "bound", "--runs", "30", "--confidence", "0.9")
    assert code == 0 and out == run(capsys, "plan", "bound", "--runs", "30", "--ci", "0.9")[1]
    assert (
        err
        == "passhat: --confidence is deprecated: use --ci (the old name goes in the next release)\n"
    )
    bad(capsys, ["plan", "bound", "--runs", "3", "--ci", "0.9", "--confidence", "0.9"], "not both")
    _, help_text, _ = run(capsys, "plan", "--help")
    assert "retry" in help_text and " gate " not in help_text


def test_table_reproduces_seed_lines(capsys):
    # the seeds' script output, line for line
    code, out, _ = run(capsys, "plan", "table", "--ci", "0.95")
    assert code == 0
    expected = [
        " 3 clean runs rule out failure rates above 63.2%",
        " 5 clean runs rule out failure rates above 45.1%",
        "10 clean runs rule out failure rates above 25.9%",
        "20 clean runs rule out failure rates above 13.9%",
        "30 clean runs rule out failure rates above 9.5%",
        "60 clean runs rule out failure rates above 4.9%",
        "flip rate 10%: 29 runs",
        "flip rate 5%: 59 runs",
        "p=0.9, gate passes if any of 3 attempts passes: 99.9%; all 3 must pass: 72.9%",
    ]
    assert out.splitlines()[: len(expected)] == expected


def test_width_json(capsys):
    code, out, _ = run(
        capsys,
        "plan",
        "width",
        "--half-width",
        "0.05",
        "--rate",
        "0.8",
        "--method",
        "wilson",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["value"] == int(ph.plan.runs_for_width(half_width=0.05, rate=0.8))
    assert doc["solved_for"] == "runs" and doc["assumptions"]


def test_design_stated_and_json(capsys):
    code, out, _ = run(
        capsys,
        "plan",
        "design",
        "--budget-runs",
        "2000",
        "--k",
        "5",
        "--mean",
        "0.77",
        "--icc",
        "0.4",
    )
    assert code == 0
    api = ph.plan.design(budget_runs=2000, k=5, prior=ph.plan.Assumptions(mean=0.77, icc=0.4))
    best = api.optimum
    assert out.splitlines()[0].startswith(f"{best['tasks']} tasks × {best['runs_per_task']} runs")
    code, out, _ = run(
        capsys,
        "plan",
        "design",
        "--budget-cost",
        "500",
        "--cost-per-run",
        "0.12",
        "--cost-per-task",
        "3",
        "--k",
        "1",
        "--metric",
        "mean",
        "--kappa",
        "1.5",
        "--mean",
        "0.6",
        "--json",
    )
    doc = json.loads(out)
    assert doc["optimum"]["cost"] <= 500 and len(doc["table"]) > 10


def test_design_from_runs(capsys, tau_airline_path):
    code, out, _ = run(
        capsys,
        "plan",
        "design",
        "--budget-runs",
        "1000",
        "--k",
        "4",
        "--from",
        str(tau_airline_path),
    )
    assert code == 0 and "ML fit to 50 tasks" in out


def test_power_paths(capsys):
    base = ["--mean", "0.77", "--icc", "0.4", "--metric", "pass_hat_k", "--k", "5"]
    code, out, _ = run(capsys, "plan", "power", "--delta", "0.05", "--power", "0.8", *base)
    assert code == 0
    first = out.splitlines()[0]
    t = ph.plan.power(
        delta=0.05,
        power=0.8,
        k=5,
        metric="pass_hat_k",
        prior=ph.plan.Assumptions(mean=0.77, icc=0.4),
    )
    assert first.startswith(f"{t.optimum['tasks']} tasks")
    code, out, _ = run(
        capsys,
        "plan",
        "power",
        "--delta",
        "0.05",
        "--tasks",
        "1500",
        "--runs-per-task",
        "5",
        *base,
        "--json",
    )
    assert 0.8 < json.loads(out)["value"] < 1
    code, out, _ = run(
        capsys,
        "plan",
        "power",
        "--delta",
        "0.1",
        "--grid-tasks",
        "20,40",
        "--grid-runs",
        "3",
        "--replicates",
        "200",
        "--mean",
        "0.6",
        "--icc",
        "0.3",
        "--scheduler",
        "synchronous",
        "--json",
    )
    grid = json.loads(out)["grid"]
    assert [g["tasks"] for g in grid] == [20, 40] and all(0 <= g["power"] <= 1 for g in grid)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["detect", "--flip-rate", "1.5"], "--flip-rate must lie in (0, 1)"),
        (["detect", "--flip-rate", "0.1", "--ci", "1.2"], "--ci must lie in (0, 1)"),
        (["detect", "--flip-rate", "0.1", "--ci", "0.9", "--runs", "5"], "all but one"),
        (["bound", "--runs", "5", "--failures", "9"], "--failures 9 exceeds --runs 5"),
        (["retry", "--rate", "0", "--attempts", "3"], "--rate must lie in (0, 1)"),
        (
            ["design", "--budget-runs", "3", "--k", "5", "--mean", "0.5", "--icc", "0.2"],
            "smaller than one task × k = 5 runs",
        ),
        (["design", "--budget-runs", "100", "--k", "5"], "no assumptions"),
        (["design", "--budget-runs", "100", "--mean", "0.5"], "exactly one of --icc or --kappa"),
        (
            ["design", "--budget-runs", "100", "--mean", "0.5", "--icc", "0.2", "--kappa", "3"],
            "exactly one of --icc or --kappa",
        ),
        (
            [
                "design",
                "--budget-runs",
                "100",
                "--mean",
                "0.5",
                "--icc",
                "0.2",
                "--from",
                "x.jsonl",
            ],
            "not both",
        ),
        (["design", "--mean", "0.5", "--icc", "0.2"], "--budget-runs or --budget-cost"),
        (
            [
                "design",
                "--budget-runs",
                "240",
                "--scope",
                "benchmark",
                "--mean",
                "0.5",
                "--icc",
                "0.2",
            ],
            "--scope benchmark needs --tasks N",
        ),
        (["power", "--delta", "0.05", "--mean", "0.5", "--icc", "0.2"], "give three of"),
        (
            [
                "power",
                "--delta",
                "0.05",
                "--tasks",
                "10",
                "--runs-per-task",
                "3",
                "--power",
                "0.8",
                "--mean",
                "0.5",
                "--icc",
                "0.2",
            ],
            "given: --delta, --tasks, --runs-per-task, --power",
        ),
        (["power", "--grid-tasks", "10", "--mean", "0.5", "--icc", "0.2"], "a sweep needs"),
    ],
)
def test_bad_options_one_line_exit_2(capsys, args, needle):
    code, _out, err = run(capsys, "plan", *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("passhat: error:")
    assert needle in err


@pytest.mark.parametrize(
    ("args", "options", "example"),
    [
        (["detect"], "--flip-rate, --ci and --runs", "detect --flip-rate 0.1"),
        (["detect", "--ci", "0.9"], "--flip-rate, --ci and --runs", "detect"),
        (["certify"], "--max-failure-rate, --ci and --runs", "certify --max-failure"),
        (["width", "--rate", "0.8"], "one of --half-width or --runs", "width --rate 0.8 --h"),
        (["power", *PRIOR], "three of --delta, --tasks, --runs-per-task and --power", "power"),
        (["power", *PRIOR, "--tasks", "20"], "(given: --tasks)", "power --mean"),
    ],
)
def test_missing_quantities_are_named_as_options(capsys, args, options, example):
    # it said "runs_to_detect: leave exactly one of flip_rate=, confidence=, runs= as None";
    # the planner states the rule, naming its parameters, and the command shows its options
    line = bad(capsys, ["plan", *args], re.escape(options))
    assert f"e.g. passhat plan {example}" in line
    assert "None" not in line and not re.search(r"\b[a-z_]+=", line), line


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["bound", "--runs", "3", "--failures", "5"], "--failures 5 exceeds --runs 3"),
        (["width", "--rate", "0.8", "--half-width", "0.6"], "--half-width must be below 0.5"),
        (["detect", "--flip-rate", "2"], "--flip-rate must lie in (0, 1) (got 2)"),
        (
            ["certify", "--max-failure-rate", "0.1", "--runs", "5", "--allowed-failures", "7"],
            "--allowed-failures 7 must be below --runs 5",
        ),
    ],
)
def test_planner_rules_name_the_options(capsys, args, text):
    line = bad(capsys, ["plan", *args], re.escape(text))
    assert not re.search(r"(?<!-)\b(flip_rate|half_width|allowed_failures)\b", line)


def test_design_all_pairs_selection_stays_short(capsys):
    # 20,000 runs give 178,000+ affordable (T, n) pairs; the default view is a selection
    # of efficient rows plus the optimum (it printed every row with n ≤ k + 9 before)
    code, out, _err = run(
        capsys,
        "plan",
        "design",
        "--budget-runs",
        "20000",
        "--k",
        "5",
        "--mean",
        "0.77",
        "--icc",
        "0.4",
        "--all-pairs",
    )
    assert code == 0
    assert "★" in out
    assert out.count("\n") < 60


@pytest.mark.parametrize("extra", [[], ["--all-pairs"]])
def test_design_prints_the_selection_of_the_api(capsys, extra):
    # the rows printed are the design's selection(), in its order (tasks and runs per task)
    args = ["--budget-runs", "3000", "--k", "3", "--mean", "0.7", "--icc", "0.3", *extra]
    code, out, _err = run(capsys, "plan", "design", *args)
    assert code == 0
    t = ph.plan.design(
        budget_runs=3000,
        k=3,
        prior=ph.plan.Assumptions(mean=0.7, icc=0.3),
        all_pairs=bool(extra),
    )
    view = t.selection()
    rows = [line.strip("│").split("│") for line in out.splitlines() if line.startswith("│")]
    printed = [(int(r[0]), int(r[1])) for r in rows]
    assert printed == list(zip(view["tasks"], view["runs_per_task"], strict=True))
    assert len(view) < len(t.table[t.table["metric"] == "pass_hat_k"])


def test_design_with_fixed_tasks_headline_table_and_reasoning_agree(capsys):
    """Issue 12: --tasks 50 --budget-runs 2000. The headline design is the starred row of the
    printed table; the reasoning states the floor (the task-spread SE, printed in every row) and
    the fewest runs per task within 5% of it, and that row is printed too."""
    args = [
        "--tasks",
        "50",
        "--budget-runs",
        "2000",
        "--k",
        "4",
        "--mean",
        "0.428",
        "--kappa",
        "1.5",
    ]
    code, out, _err = run(capsys, "plan", "design", *args)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("50 tasks × 40 runs per task (2000 runs")
    rows = [line.strip("│").split("│") for line in lines if line.startswith("│")]
    starred = [r for r in rows if "★" in r[-1]]
    assert len(starred) == 1 and (int(starred[0][0]), int(starred[0][1])) == (50, 40)
    floors = {r[5].strip() for r in rows}
    assert len(floors) == 1
    floor = floors.pop()
    assert f"task-spread floor ±{floor}" in lines[1]
    assert "fewest runs" not in lines[1]
    t = ph.plan.design(
        budget_runs=2000, k=4, tasks=50, prior=ph.plan.Assumptions(mean=0.428, kappa=1.5)
    )
    near = t.floor.runs_within_5pct
    assert f"{near} runs per task already come within 5%" in lines[1]
    assert near in {int(r[1]) for r in rows}


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
        (["plan", "design", "--budget-runs", "nan", *PRIOR], r"--budget-runs .*nan"),
        (["plan", "design", "--budget-runs", "inf", *PRIOR], r"--budget-runs .*inf"),
        (["plan", "design", "--budget-cost", "nan", *PRIOR], r"--budget-cost .*nan"),
        (["plan", "design", "--budget-cost", "inf", *PRIOR], r"--budget-cost .*inf"),
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
    bad(capsys, args, r"--budget-runs 1e\+09 .*too many .*max_runs_per_task")
