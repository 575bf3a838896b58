"""QA regressions found by exercising every command with hostile input.

Each test pins one defect that was seen: a traceback instead of one
``passhat: error: ...`` line, a silent coercion, or an undefined number
printed as a value. The oracle is the CLI contract (exit status 2, one line on
stderr naming the file / option and the rule) or plain arithmetic (0/0 is
undefined, not infinite).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passhat.cli import main

HEADER = "system,task_id,trial,success\n"


def _bad(capsys: pytest.CaptureFixture[str], args: list[str], pattern: str) -> str:
    rc = main(args)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("passhat: error: ")
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def _write(tmp_path: Path, name: str, data: str | bytes) -> str:
    f = tmp_path / name
    if isinstance(data, bytes):
        f.write_bytes(data)
    else:
        f.write_text(data, encoding="utf-8")
    return str(f)


# ------------------------------------------------------------ non-UTF-8 input
NON_UTF8_CSV = (HEADER + "A,t\xff,0,1\nA,t\xff,1,0\n").encode("latin-1")
NON_UTF8_JSONL = b'{"system":"A","task_id":"t\xff","trial":0,"success":1}\n' + (
    b'{"system":"A","task_id":"t1","trial":1,"success":1}\n'
)


@pytest.mark.parametrize(
    ("name", "data", "extra"),
    [
        ("latin.csv", NON_UTF8_CSV, []),
        ("latin.csv", NON_UTF8_CSV, ["--format", "csv"]),
        ("latin.jsonl", NON_UTF8_JSONL, []),
    ],
    ids=["csv-sniffed", "csv-format", "jsonl"],
)
def test_non_utf8_trial_file_is_one_line_error(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    data: bytes,
    extra: list[str],
) -> None:
    path = _write(tmp_path, name, data)
    _bad(capsys, ["estimate", path, *extra], rf"{re.escape(name)}: .*UTF-8")


def test_non_utf8_stages_file_is_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stages = _write(tmp_path, "stages.toml", b'[stages]\nget_user = "look\xffup"\n')
    traces = _write(tmp_path, "t.json", "[]")
    _bad(capsys, ["traces", traces, "--stages", stages], r"stages\.toml: .*UTF-8")


def test_non_utf8_step_log_is_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    steps = _write(
        tmp_path, "steps.jsonl", b'{"task_id":"t\xff","trial":0,"step":0,"action":"a"}\n'
    )
    _bad(capsys, ["traces", steps, "--format", "steps-jsonl"], r"steps\.jsonl: line 1: .*UTF-8")


# ------------------------------------------------------------ negative seeds
GOOD = HEADER + "A,t1,0,1\nA,t1,1,0\nA,t2,0,1\nA,t2,1,1\nA,t3,0,0\nA,t3,1,0\n"


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "{good}", "--ci", "0.9", "--n-boot", "100", "--seed", "-1"],
        ["compare", "{good}", "{good}", "--n-boot", "100", "--seed", "-1"],
        ["fit", "{good}", "--method", "grid", "--k", "1", "--seed", "-1"],
        ["report", "{good}", "-o", "{out}", "--k", "1", "--no-model", "--seed", "-1"],
        [
            "plan", "power", "--delta", "0.1", "--tasks", "20", "--runs-per-task", "3",
            "--mean", "0.6", "--icc", "0.3", "--method", "simulation", "--seed", "-1",
        ],
    ],
    ids=["estimate", "compare", "fit", "report", "plan-power"],
)  # fmt: skip
def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    good = _write(tmp_path, "good.csv", GOOD)
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    _bad(capsys, argv, r"--seed.*-1")


def test_negative_seed_in_the_api_is_an_option_error() -> None:
    import passhat as ph
    from passhat.errors import OptionError

    data = ph.counts_from_arrays([2, 2, 2], [1, 2, 0])
    with pytest.raises(OptionError, match="seed"):
        ph.estimate(data, k=1, ci=0.9, n_boot=100, seed=-1)
    with pytest.raises(OptionError, match="seed"):
        ph.compare(data, data, n_boot=100, seed=-1)


# ------------------------------------------- reader options a format cannot take
_CALL = {"id": "1", "type": "function", "function": {"name": "get_user", "arguments": "{}"}}
_TRAJ = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "1", "name": "get_user", "content": "ok"},
    {"role": "assistant", "content": "done"},
]
TAU = json.dumps(
    [
        {"task_id": t, "trial": r, "reward": float((t + r) % 2), "info": {}, "traj": _TRAJ}
        for t in range(2)
        for r in range(2)
    ]
)


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--threshold", "0.5"], r"tau\.json: the tau-bench format takes no option threshold"),
        (["--map", "task=q"], r"tau\.json: the tau-bench format takes no option task=q"),
    ],
    ids=["threshold", "map"],
)
def test_reader_option_the_format_does_not_take_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], pattern: str
) -> None:
    path = _write(tmp_path, "tau.json", TAU)
    assert main(["estimate", path, "--json"]) == 0  # the file itself reads
    capsys.readouterr()
    _bad(capsys, ["estimate", path, *extra], pattern)


# --------------------------------------------------------- non-finite threshold
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_threshold_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    # score >= nan is False for every row: all runs would silently become failures
    path = _write(tmp_path, "scores.csv", "task_id,score\nt1,0.3\nt1,0.9\nt2,1.0\nt2,0.7\n")
    _bad(capsys, ["estimate", path, "--threshold", value], rf"threshold .*finite.*{value}")


# ------------------------------------------------------- spread at mean 0: 0/0
def test_spread_ratio_at_mean_zero_is_undefined_not_infinite() -> None:
    import math

    import passhat as ph

    s = ph.spread_from_summary(mean=0.0, pass_hat_k=0.0, k=4)
    assert math.isnan(s.ratio) and math.isnan(s.consistency)  # 0 / 0
    assert "nan" not in s.sentence() and "∞" not in s.sentence()
    t = ph.spread_from_summary(mean=0.5, pass_hat_k=0.5, k=4)
    assert t.ratio == pytest.approx(8.0)  # 0.5 / 0.5**4, unchanged


@pytest.mark.parametrize(
    "args",
    [["spread", "--mean", "0", "--pass-hat", "0", "--k", "4"], ["spread", "{allfail}", "--k", "2"]],
    ids=["published-pair", "all-fail-runs"],
)
def test_spread_cli_prints_no_nan_or_infinity_for_zero_over_zero(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    allfail = _write(tmp_path, "f.csv", HEADER + "A,t1,0,0\nA,t1,1,0\nA,t2,0,0\nA,t2,1,0\n")
    assert main([a.format(allfail=allfail) for a in args]) == 0
    out = capsys.readouterr().out
    assert "∞" not in out and "nan" not in out, out
    assert "—" in out and "—×" not in out  # the undefined ratio is shown as such


# ------------------------------------------------------------ plan: bad numbers
PRIOR = ["--mean", "0.6", "--icc", "0.3"]


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
    _bad(capsys, args, pattern)


def test_plan_power_bad_scheduler_address_is_an_option_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["plan", "power", "--delta", "0.1", *PRIOR, "--grid-tasks", "20", "--grid-runs", "3"]
    _bad(capsys, [*args, "--scheduler", "nonsense"], r"scheduler 'nonsense': cannot connect")


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

    path = _write(tmp_path, "runs.csv", HEADER + body)
    with pytest.raises(InputError, match=rf"every decided run .*{word}"):
        ph.plan.from_counts(ph.read_trials(path))
    args = ["plan", "power", "--delta", "-0.1", "--tasks", "20", "--runs-per-task", "2"]
    _bad(capsys, [*args, "--from", path], rf"system 'A': every decided run .*{word}.*--mean")


def test_report_without_model_on_all_pass_runs_still_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, "runs.csv", HEADER + "A,t1,0,1\nA,t1,1,1\nA,t2,0,1\nA,t2,1,1\n")
    out = tmp_path / "rep"
    assert main(["report", path, "-o", str(out), "--k", "1,2", "--no-model", "-q"]) == 0
    capsys.readouterr()
    assert "no design of the budget" in (out / "report.md").read_text(encoding="utf-8")


def test_api_bad_seed_and_runs_are_option_errors() -> None:
    import passhat as ph
    from passhat.errors import OptionError

    prior = ph.plan.Assumptions(mean=0.5, icc=0.3)
    with pytest.raises(OptionError, match="seed"):
        ph.plan.simulate_power(
            tasks=10, runs_per_task=2, delta=0.1, prior=prior, replicates=10, seed=-1
        )
    with pytest.raises(OptionError, match="seed"):
        ph.plan.simulate_design(tasks=10, runs_per_task=2, k=1, prior=prior, replicates=10, seed=-1)
    with pytest.raises(OptionError, match="runs"):
        ph.spread_from_summary(mean=0.5, pass_hat_k=0.3, k=2, runs=float("nan"))


def test_runs_to_detect_keeps_precision_at_tiny_flip_rates() -> None:
    # oracle: 1 − (1 − f)^n → 1 − e^(−nf) as f → 0; (1 − f) rounds to 1 in floating point
    import math

    from passhat import plan

    r = plan.runs_to_detect(flip_rate=1e-300)
    assert r.quantities["achieved_confidence"] == pytest.approx(0.95, abs=1e-6)  # was 0.0
    assert "0.00% ≥" not in r.reasoning
    c = plan.runs_to_detect(flip_rate=1e-17, runs=10**17, confidence=None)
    assert float(c) == pytest.approx(1 - math.exp(-1), rel=1e-9)


# ----------------------------------------------- slices: the default keys
def test_slices_default_works_without_a_category_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, "runs.csv", GOOD)
    assert main(["slices", path]) == 0
    out = capsys.readouterr().out
    assert "runs by status" in out and "no category column" in out
    assert main(["slices", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["slices"]) == ["status"]
    assert sum(r["runs"] for r in doc["slices"]["status"]) == 6  # no run lost
    # asked for explicitly, a missing category is still an error naming the file
    _bad(capsys, ["slices", path, "--by", "category"], r"runs\.csv: no category column")


def test_slices_severe_status_that_no_run_has_is_pointed_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # allowed (rate 0 with an upper bound), but a misspelt status must not pass unremarked
    assert main(["slices", "--example", "agents", "--severe", "tool_eror"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"'tool_eror' occurs in no run .*tool_error", out.replace("\n", " "))
    assert main(["slices", "--example", "agents", "--severe", "tool_error"]) == 0
    assert "occurs in no run" not in capsys.readouterr().out


# ------------------------------------------------ estimate --per-task with --ci
def test_estimate_per_task_keeps_the_requested_aggregate_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["estimate", "--example", "abcd", "--k", "2", "--per-task"]
    assert main([*args, "--ci", "0.9", "--n-boot", "100", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "per-task estimates with 0.9 wilson intervals" in out
    assert "with 0.9 intervals (two scopes)" in out  # --ci was asked for: not dropped
    # a point value outside its interval is explained (the interval is for p^k itself)
    assert main([*args, "--k", "5"]) == 0
    out = capsys.readouterr().out
    assert "0.000 [0.0" in out and "can lie outside them" in out.replace("\n", " ")


# ------------------------------------- compare: a difference of rates is in [-1, 1]
def test_compare_benchmark_interval_stays_within_minus_one_and_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = _write(tmp_path, "one.csv", HEADER + "A,t1,0,1\n")
    two = _write(tmp_path, "two.csv", HEADER + "B,t1,0,1\n")
    assert main(["compare", one, two, "--n-boot", "100", "--seed", "0", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["comparison"]
    assert rows and all(-1.0 <= r["lower"] <= r["upper"] <= 1.0 for r in rows), rows


# ---------------------------------------- report --traces of another benchmark
def test_report_traces_that_share_no_task_with_the_runs_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    traces = _write(tmp_path, "tau.json", TAU)  # tasks "0", "1"
    runs = _write(tmp_path, "runs.csv", GOOD)  # tasks t1, t2, t3
    out = str(tmp_path / "rep")
    args = ["report", runs, "-o", out, "--k", "1", "--no-model", "--no-plan", "-q"]
    _bad(capsys, [*args, "--traces", traces], r"tau\.json: none of its 2 task\(s\).*runs\.csv")


def test_report_unknown_baseline_is_refused_with_one_system_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["report", "--example", "abcd", "-o", str(tmp_path / "r"), "--no-model", "-q"]
    _bad(capsys, [*args, "--baseline", "nosuch"], r"baseline 'nosuch' is not a system")


# ---------------------------------------------------------- --map conflicts
@pytest.mark.parametrize(
    ("text", "maps", "pattern"),
    [
        (
            "qid,task_id,passed\nq1,x,1\nq1,y,0\n",
            ["--map", "task=qid", "--map", "success=passed"],
            r"m\.csv: --map task=qid would make a second 'task_id' column",
        ),
        (
            "qid,passed\nq1,1\nq1,0\n",
            ["--map", "task=qid", "--map", "success=qid"],
            r"m\.csv: column 'qid' is mapped to both task and success",
        ),
    ],
    ids=["target-exists", "same-source-twice"],
)
def test_map_conflicts_are_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, maps: list[str], pattern: str
) -> None:
    _bad(capsys, ["estimate", _write(tmp_path, "m.csv", text), *maps], pattern)


# ---------------------------- spread: the --min-runs its own error message names
def test_spread_min_runs_excludes_and_lists_short_tasks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = "A,t1,0,1\nA,t1,1,0\nA,t2,0,1\nA,t2,1,1\nA,t3,0,1\n"
    path = _write(tmp_path, "runs.csv", HEADER + body)
    line = _bad(capsys, ["spread", path, "--k", "2"], r"t3 \(n=1\)")
    assert "--min-runs" in line  # the message points at an option spread must have
    assert main(["spread", path, "--k", "2", "--min-runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "excluded 1 task(s)" in out and "t3" in out
    assert main(["spread", path, "--k", "2", "--min-runs", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["task"] for r in doc["excluded"]] == ["t3"]
    assert doc["spread"][0]["tasks"] == 2


# ------------------------------- category weights after excluding short tasks
def test_category_weights_stay_equal_per_category_after_exclusions() -> None:
    # c1: t1 (1/2) and t4 (no decided run, excluded); c2: t2 (1/1), t3 (2/2).
    # Oracle (weights='category': every category the same total weight, shared by its
    # tasks): t1 carries c1's half alone → mean = 0.5·0.5 + 0.25·1 + 0.25·1 = 0.75.
    import numpy as np

    import passhat as ph

    frame = {
        "system": ["A"] * 6,
        "task_id": ["t1", "t1", "t2", "t3", "t3", "t4"],
        "trial": [0, 1, 0, 0, 1, 0],
        "success": [True, False, True, True, True, None],
        "category": ["c1", "c1", "c2", "c2", "c2", "c1"],
    }
    import pandas as pd

    trials = ph.Trials.from_frame(pd.DataFrame(frame), where="test")
    est = ph.estimate(trials, k=1, weights="category", on_short="exclude", min_runs=1)
    assert est.wide()["mean"].iloc[0] == pytest.approx(0.75)
    assert np.isclose(est.table["value"], 0.75).all()


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "counts"])
def test_directory_read_as_a_file_format_is_a_format_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    d = tmp_path / "runs"
    d.mkdir()
    _bad(capsys, ["estimate", str(d), "--format", fmt], rf"runs: a directory, not a {fmt} file")


# ------------------------------------------------ lists of whole numbers (--k etc.)
def test_value_lists_name_their_option_and_refuse_absurd_ranges(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, "runs.csv", GOOD)
    # a range of 10^9 values would take minutes and gigabytes before any check
    _bad(capsys, ["estimate", path, "--k", "1-1000000000"], r"--k: range '1-1000000000' .*values")
    grid = ["plan", "power", "--delta", "0.1", *PRIOR, "--scheduler", "synchronous"]
    _bad(capsys, [*grid, "--grid-tasks", "abc", "--grid-runs", "3"], r"--grid-tasks: 'abc'")
    _bad(capsys, [*grid, "--grid-tasks", "20", "--grid-runs", "0"], r"--grid-runs: .*≥ 1")
    spread = ["spread", "--mean", "0.5", "--pass-hat", "0.3", "--k", "2"]
    _bad(capsys, [*spread, "--predict-k", "x"], r"--predict-k: 'x'")


def test_backwards_k_range_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the OptionError was raised inside `except ValueError` and replaced by "not a number"
    path = _write(tmp_path, "runs.csv", GOOD)
    _bad(capsys, ["estimate", path, "--k", "5-1"], r"--k: range '5-1' runs backwards")


def test_fit_api_negative_seed_is_an_option_error() -> None:
    import passhat as ph
    from passhat.errors import OptionError

    data = ph.counts_from_arrays([4, 4, 4], [1, 4, 0])
    with pytest.raises(OptionError, match="seed"):
        ph.fit(data, method="grid", k=1, seed=-1, progress=False)


def test_plan_design_refuses_a_budget_too_large_to_enumerate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 10^9 runs enumerate 10^9 (tasks, runs) candidates: ~10 GB before any answer
    args = ["plan", "design", "--budget-runs", "1e9", *PRIOR]
    _bad(capsys, args, r"budget_runs = 1e\+09 .*too many .*max_runs_per_task")


# ------------------------------------------- surrounding spaces in a CSV
def test_spaces_after_commas_in_the_header_are_not_a_missing_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, "s.csv", "system, task_id, trial, success\nA,t1,0,1\nA,t1,1,0\n")
    assert main(["estimate", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"][0]["tasks"] == 1 and doc["summary"][0]["runs"] == 2


def test_ids_that_differ_only_by_surrounding_spaces_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # " t1" and "t1" would silently be two tasks of one run each
    path = _write(tmp_path, "s.csv", HEADER + "A, t1,0,1\nA,t1,1,0\n")
    _bad(capsys, ["estimate", path], r"s\.csv: row 1: task_id ' t1' .*'t1'.*spaces")


def test_system_name_applies_to_a_count_table_without_a_system_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, "c.csv", "task_id,n,c\nt1,5,3\nt2,5,5\n")
    assert main(["estimate", path, "--system-name", "gpt-x", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in doc["summary"]] == ["gpt-x"]


def test_classify_labels_builds_like_the_paired_comparison(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # two count tables without a system column: the paired table says "cb − ca"; the
    # classify summary said "system → system"
    a = _write(tmp_path, "ca.csv", "task_id,n,c\nt1,5,3\nt2,5,5\n")
    b = _write(tmp_path, "cb.csv", "task_id,n,c\nt1,5,1\nt2,5,5\n")
    assert main(["compare", a, b, "--classify", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["settings"]["base"], doc["settings"]["cand"]) == ("ca", "cb")
    assert "(ca → cb;" in doc["summary"]


@pytest.mark.parametrize("weights", ["category", "declared"])
def test_weights_without_their_column_name_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, weights: str
) -> None:
    path = _write(tmp_path, "runs.csv", GOOD)
    _bad(capsys, ["estimate", path, "--weights", weights], rf"runs\.csv: .*{weights}")


# ---------------------------------------------------------- traces --stages
def test_stages_file_typos_are_pointed_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    traces = _write(tmp_path, "tau.json", TAU)
    empty = _write(tmp_path, "empty.toml", '[stages]\nget_user = ""\n')
    _bad(capsys, ["traces", traces, "--stages", empty], r"empty\.toml: \[stages\] get_user")
    typo = _write(tmp_path, "typo.toml", '[stages]\nget_usr = "lookup"\nget_user = "lookup"\n')
    assert main(["traces", traces, "--stages", typo]) == 0
    out = capsys.readouterr().out.replace("\n", " ")
    assert re.search(r"1 tool\(s\) of the stages file never called in the traces: get_usr", out)


def test_traces_when_failing_runs_match_the_passing_ones_step_for_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # every run makes the same call; outcomes differ: no divergence step (NA), no traceback
    traces = _write(tmp_path, "tau.json", TAU)
    assert main(["traces", traces]) == 0
    out = capsys.readouterr().out
    assert "—" in out


def test_api_wrong_input_types_are_validation_errors() -> None:
    import passhat as ph
    from passhat.errors import ValidationError

    trials = ph.counts_from_arrays([2, 2], [1, 2])
    with pytest.raises(ValidationError, match="read_traces"):
        ph.divergence(trials)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"base: expected passhat\.Trials"):
        ph.classify(None, trials)  # type: ignore[arg-type]


def test_spread_and_report_default_k_follow_the_runs(tmp_path, capsys):
    """No --k: k = 1, 2, 5 capped at the fewest decided runs (4 → 1, 2, 4), not a k = 5 error."""
    import pandas as pd

    from passhat.cli import main

    rows = [
        {"task_id": t, "trial": r, "success": (r + i) % 3 != 0}
        for i, t in enumerate(["a", "b", "c"])
        for r in range(4)
    ]
    f = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    assert main(["spread", str(f), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"k": 4' in out and '"k": 5' not in out
    assert main(["report", str(f), "-o", str(tmp_path / "r"), "--no-model", "-q"]) == 0
    import json

    stamp = json.loads((tmp_path / "r" / "results.json").read_text())["stamp"]
    assert stamp["settings"]["k"] == [1, 2, 4]
