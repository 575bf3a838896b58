"""The shared options of commands/_options.py that are not covered elsewhere: --latex and
--markdown (the table for papers on stdout, equal to the API's to_latex / to_markdown) and their
--scope, and the one-line refusals of combinations that make no sense."""

from __future__ import annotations

import pytest
from tests.commands.cli_helpers import bad, run

import passhat as ph


def test_latex_and_markdown_print_the_results_table(capsys: pytest.CaptureFixture[str]) -> None:
    est = ph.estimate(ph.load_example("agents"), k=[1, 2], ci=0.9, n_boot=100)
    argv = ["estimate", "--example", "agents", "--k", "1,2", "--ci", "0.9", "--n-boot", "100"]
    rc, out, err = run(capsys, [*argv, "--latex"])
    assert rc == 0 and out == est.to_latex() and err == ""
    rc, out, _ = run(capsys, [*argv, "--markdown", "--scope", "benchmark"])
    assert rc == 0 and out == est.to_markdown(scope="benchmark")
    cmp = ph.compare(ph.load_example("agents"), k=2, n_boot=100)
    rc, out, _ = run(capsys, ["compare", "--example", "agents", "--k", "2", "--n-boot", "100",
                              "--markdown"])  # fmt: skip
    assert rc == 0 and out == cmp.to_markdown()


@pytest.mark.parametrize(
    "argv",
    [
        ["rank", "--example", "agents", "--k", "2", "--n-boot", "100", "--latex"],
        ["fit", "--example", "abcd", "--method", "grid", "--draws", "100", "--latex"],
        ["spread", "--example", "agents", "--k", "2", "--n-boot", "100", "--latex"],
        ["spread", "--mean", "0.774", "--pass-hat", "0.53", "--k", "5", "--latex"],
    ],
)
def test_every_command_with_a_table_for_papers(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = run(capsys, argv)
    assert rc == 0 and out.startswith("\\begin{table}\n") and out.endswith("\\end{table}\n")
    rc, out, _ = run(capsys, [*argv[:-1], "--markdown"])
    assert rc == 0 and out.startswith("| ") and "\nTable: " in out


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["--latex", "--json"], "--latex, --json and --csv: choose one"),
        (["--markdown", "--csv"], "--markdown, --json and --csv: choose one"),
        (["--latex", "--markdown"], "--latex and --markdown: choose one"),
        (["--scope", "benchmark"], "--scope applies to the tables of --latex and --markdown"),
        (["--latex", "--per-task"], "--latex writes the benchmark table; --per-task is not in it"),
        # found in QA: these tables were left out of the paper's without a word (exit 0)
        (["--markdown", "--by", "category"], "--markdown writes the benchmark table; --by is not"),
        (["--latex", "--scores"], "--latex writes the benchmark table; --scores is not in it"),
        (["--markdown", "--thresholds", "0.5"], "--thresholds is not in it"),
        (["--latex", "--curve", "--scores"], "--scores is not in it"),
        (["--markdown", "--cost"], "--cost is not in it"),
        (["--markdown", "--scope", "benchmark"], "--scope picks the intervals' scope.*--ci"),
        (["--ci", "0.9", "--markdown", "--scope", "predictive"], "--scope must be one of"),
    ],
)
def test_estimate_refusals(
    argv: list[str], pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad(capsys, ["estimate", "--example", "abcd", "--k", "2", "--n-boot", "100", *argv], pattern)


def test_compare_classify_has_no_table_for_papers(capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, ["compare", "--example", "agents", "--classify", "--latex"], "not --classify")
