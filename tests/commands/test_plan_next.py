"""``passhat plan next``: the next batch as a table, JSON or CSV; the one-line error contract.

Oracle: the API the command calls (tests/planner/test_next_runs.py: closed forms against
integration and simulation, the greedy against brute force).
"""

from __future__ import annotations

import csv
import io
import json

import pytest

import passhat as ph
from passhat.cli import main
from passhat.examples import example_path

from .cli_helpers import GOOD, HEADER, bad, write

AGENTS = str(example_path("agents"))


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_prints_the_reasoning_and_the_batch(capsys):
    code, out, _ = run(
        capsys, "plan", "next", AGENTS, "--system", "baseline", "--budget", "60", "--k", "5"
    )
    assert code == 0
    api = ph.plan.next_runs(ph.load_example("agents"), budget=60, k=5, system="baseline")
    assert api.sentences[0] in out
    assert f"next {api.spent} runs for pass^5" in out
    assert str(api.batch.iloc[0]["task"]) in out and "more runs" in out


def test_csv_is_one_row_per_task_for_a_harness(capsys):
    code, out, _ = run(
        capsys, "plan", "next", AGENTS, "--system", "guided", "--budget", "30", "--k", "3", "--csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sum(int(r["extra_runs"]) for r in rows) == 30
    assert {"task", "extra_runs", "variance_reduction", "width_reduction", "reason"} <= set(rows[0])


def test_json_carries_the_batch_and_the_reasoning(capsys):
    code, out, _ = run(
        capsys,
        "plan",
        "next",
        AGENTS,
        "--system",
        "baseline",
        "--budget",
        "40",
        "--k",
        "5",
        "--scope",
        "population",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["spent"] == 40 and doc["scope"] == "population"
    assert doc["tasks_vs_runs"]["new_tasks"] == 8
    assert sum(r["extra_runs"] for r in doc["batch"]) == 40 and doc["input"]


def test_no_flaky_task_is_answered(capsys, tmp_path):
    path = write(tmp_path, "r.csv", HEADER + "A,t1,0,1\nA,t1,1,1\nA,t2,0,0\nA,t2,1,0\n")
    code, out, _ = run(capsys, "plan", "next", path, "--budget", "10", "--k", "2")
    assert code == 0 and "more runs will not change pass^2 here; add tasks" in out


def test_bad_options_are_one_line_exit_2(capsys, tmp_path):
    path = write(tmp_path, "r.csv", GOOD)
    bad(
        capsys,
        ["plan", "next", path, "--budget", "0", "--k", "2"],
        r"--budget must be a whole number of runs ≥ 1 \(got 0\)",
    )
    bad(capsys, ["plan", "next", path, "--budget", "-3", "--k", "2"], r"--budget must be")
    bad(capsys, ["plan", "next", AGENTS, "--budget", "5", "--k", "2"], r"name one with")


# ------------------------------------------------ the prior from an earlier evaluation
# Oracle: the API called with the prior the options state (plan.from_counts of the earlier
# file's system, or Assumptions of the stated values) gives the same batch; the output names
# where the prior came from, and JSON carries the earlier file's input stamp.
ASK = ["plan", "next", "--example", "agents", "--system", "guided", "--budget", "200", "--k", "5"]


def _batch(doc):
    return [(r["task"], r["extra_runs"]) for r in doc["batch"]]


def test_prior_from_an_earlier_evaluation_is_named_and_stamped(capsys):
    code, out, _ = run(capsys, *ASK, "--prior-from", AGENTS, "--prior-system", "baseline", "--json")
    assert code == 0
    doc = json.loads(out)
    data = ph.load_example("agents")
    fit = ph.plan.from_counts(data, system="baseline")
    api = ph.plan.next_runs(data, budget=200, k=5, system="guided", prior=fit)
    assert _batch(doc) == [(r.task, r.extra_runs) for r in api.batch.itertuples()]
    assert doc["prior_input"] == ph.io.input_stamp(ph.read_trials(AGENTS))
    assert doc["input"]["sha256"] == doc["prior_input"]["sha256"]  # same file, two roles here
    named = (
        f"Beta(μ={fit.mean:.3f}, κ={fit.kappa:.3g}) fitted to {AGENTS} (system 'baseline'): "
        "168 tasks, 840 runs"
    )
    assert doc["prior_text"] == named and doc["prior_stated"] is True
    assert f"the stated prior {named}, trusted: no hedge" in doc["method"]
    assert "a stated prior is trusted: no hedge" in doc["reasoning"]
    code, out, _ = run(capsys, *ASK, "--prior-from", AGENTS, "--prior-system", "baseline")
    assert code == 0 and named in out and "no hedge" in out


def test_without_a_prior_the_output_says_it_was_fitted_to_these_runs(capsys):
    code, out, _ = run(capsys, *ASK, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["prior_text"].endswith(") fitted to these runs") and not doc["prior_stated"]
    assert "prior_input" not in doc and "trusted" not in doc["method"]
    assert "Prior of the task rates: Beta(μ=" in doc["reasoning"]


def test_stated_prior_by_kappa_or_icc_is_the_same_prior(capsys):
    data = ph.load_example("agents")
    api = ph.plan.next_runs(
        data, budget=200, k=5, system="guided", prior=ph.plan.Assumptions(mean=0.9, kappa=5.0)
    )
    docs = []
    for given in (["--prior-kappa", "5"], ["--prior-icc", str(1 / 6)]):
        code, out, _ = run(capsys, *ASK, "--prior-mean", "0.9", *given, "--json")
        assert code == 0
        docs.append(json.loads(out))
        assert _batch(docs[-1]) == [(r.task, r.extra_runs) for r in api.batch.itertuples()]
        assert "prior_input" not in docs[-1]
    assert docs[0]["prior_text"] == "Beta(μ=0.900, κ=5), stated with --prior-mean/--prior-kappa"
    assert docs[1]["prior_text"].endswith("stated with --prior-mean/--prior-icc")


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (
            ["--prior-from", AGENTS, "--prior-mean", "0.9", "--prior-kappa", "5"],
            r"give --prior-from EARLIER_RUNS or --prior-mean with --prior-icc/--prior-kappa, "
            "not both",
        ),
        (["--prior-mean", "0.9"], r"with --prior-mean give exactly one of --prior-icc or "),
        (
            ["--prior-mean", "0.9", "--prior-kappa", "5", "--prior-icc", "0.2"],
            r"exactly one of --prior-icc or --prior-kappa",
        ),
        (["--prior-kappa", "5"], r"--prior-icc/--prior-kappa need --prior-mean"),
        (["--prior-mean", "1.2", "--prior-kappa", "5"], r"^passhat: error: --prior-mean must lie "),
        (["--prior-mean", "0", "--prior-icc", "0.2"], r"--prior-mean must lie in \(0, 1\)"),
        (["--prior-mean", "0.9", "--prior-kappa", "-1"], r"--prior-kappa must be a positive"),
        (
            ["--prior-system", "baseline"],
            r"--prior-format, --prior-map, --prior-threshold, --prior-system-name and "
            "--prior-system describe --prior-from: give it",
        ),
        (
            ["--prior-from", AGENTS],
            r"--prior-from .*agents.csv holds 2 systems \(baseline, guided\); name one with "
            "--prior-system$",
        ),
        (
            ["--prior-from", AGENTS, "--prior-system", "nosuch"],
            r"--prior-system 'nosuch' is not in --prior-from .*agents.csv \(have baseline, guided",
        ),
        (["--prior-from", "no-such-file.csv"], r"^passhat: error: --prior-from: no-such-file"),
    ],
    ids=[
        "both",
        "no-kappa",
        "kappa-and-icc",
        "kappa-alone",
        "mean-1.2",
        "mean-0",
        "kappa<0",
        "sys",
        "which-system",
        "no-such-system",
        "missing-file",
    ],
)
def test_bad_prior_options_are_one_line_exit_2(capsys, extra, pattern):
    bad(capsys, [*ASK, *extra], pattern)


@pytest.mark.parametrize(
    ("counts", "pattern"),
    [
        ([(2, 2)] * 6, r"every decided run passes .*; state the prior with --prior-mean and "),
        (
            [(2, 2), (2, 0)] * 3,
            r"κ at its lower limit e\^-6: .*\(no flaky task\), .*use an earlier evaluation with",
        ),
        ([(4, 2)] * 10, r"κ at its upper limit e\^12: .*with more tasks or runs per task, or"),
    ],
    ids=["all-pass", "no-flaky-task", "no-spread"],
)
def test_a_degenerate_earlier_fit_is_refused_with_what_to_do(capsys, tmp_path, counts, pattern):
    rows = [f"A,t{i},{r},{int(r < c)}\n" for i, (n, c) in enumerate(counts) for r in range(n)]
    path = write(tmp_path, "earlier.csv", HEADER + "".join(rows))
    line = bad(capsys, [*ASK, "--prior-from", path], pattern)
    assert f"--prior-from {path}: " in line


def test_plan_design_prior_messages_keep_their_option_names(capsys):
    """The shared helper with no prefix: plan design's --from/--mean words are unchanged."""
    args = ["plan", "design", "--budget-runs", "100", "--mean", "1.5", "--kappa", "2"]
    bad(capsys, args, r"^passhat: error: --mean must lie in \(0, 1\)")
    bad(capsys, ["plan", "design", "--budget-runs", "100"], r"no assumptions: give --from RUNS")
