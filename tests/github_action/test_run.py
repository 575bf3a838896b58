"""The Action's step (``python -m passhat.github_action``) run locally on fixture files, with
``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` pointed at temporary files; no network.

Oracles: the exit statuses are DESIGN.md's (0 pass, 1 fail, 2 bad input, 3 continue), and the
decision and numbers shown are those of ``passhat gate`` / ``compare`` / ``estimate --json`` run
separately on the same files (in this process).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from action_testdata import HOSTILE, passhat_json

import passhat
from passhat.github_action.markdown import MARKER, escape
from passhat.github_action.run import (
    ActionError,
    commands,
    main,
    parse_inputs,
    run_command,
    step_status,
    write_outputs,
)


def _env(tmp_path: Path) -> dict[str, str]:
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("earlier step\n")
    output.write_text("earlier=1\n")
    return {
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp_path),
    }


def _outputs(env: dict[str, str]) -> dict[str, str]:
    lines = Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    assert lines[0] == "earlier=1"  # appended, never replaced
    return dict(line.split("=", 1) for line in lines[1:])


def test_a_pass_writes_summary_outputs_and_comment(runs_dir: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    base, cand = str(runs_dir / "base.csv"), str(runs_dir / "cand.csv")
    argv = ["--files", cand, "--baseline", base, "--margin", "0.05", "--k", "2"]
    code = main(argv, env)

    g_code, g_doc = passhat_json(
        "gate", cand, "--baseline", base, "--margin", "0.05", "--k", "2", "--alpha", "0.05"
    )
    c_code, c_doc = passhat_json("compare", base, cand, "--k", "2", "--ci", "0.95")
    assert (g_code, g_doc["gate"]["decision"], c_code) == (0, "pass", 0)
    assert code == 0
    comment = tmp_path / "passhat-comment.md"
    assert _outputs(env) == {
        "decision": "pass",
        "exit-code": "0",
        "comment-file": str(comment.resolve()),
    }
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("earlier step\n## passhat\n")
    assert comment.read_text() == f"{MARKER}\n" + summary.removeprefix("earlier step\n")
    g = g_doc["gate"]
    assert "passhat gate: **pass** (exit 0)" in summary
    assert f"| estimate | {g['estimate']:+.4f} |" in summary
    assert f"| 95% anytime bounds | {g['lower']:+.4f} … {g['upper']:+.4f} |" in summary
    pass2 = next(
        r
        for r in c_doc["comparison"]
        if (r["metric"], r["k"], r["scope"]) == ("pass_hat_k", 2, "population")
    )
    row = (
        f"| guided | baseline | pass^2 | population | {pass2['base_value']:.3f} | "
        f"{pass2['cand_value']:.3f} | {pass2['difference']:+.3f} | "
        f"[{pass2['lower']:+.3f}, {pass2['upper']:+.3f}] |"
    )
    assert row in summary
    assert "**Step exit status: 0** (gate: pass)" in summary


def test_fail_is_1_and_continue_is_3_unless_on_continue_pass(
    runs_dir: Path, tmp_path: Path
) -> None:
    cand, small = str(runs_dir / "cand.csv"), str(runs_dir / "small.csv")
    env = _env(tmp_path)
    assert main(["--files", cand, "--max-failure-rate", "0.01", "--k", "2"], env) == 1
    assert _outputs(env)["decision"] == "fail"
    assert passhat_json("gate", cand, "--max-failure-rate", "0.01", "--k", "2")[0] == 1

    gate = run_command("gate", ["gate", small, "--max-failure-rate", "0.5", "--json"])
    assert (gate.code, gate.doc and gate.doc["gate"]["decision"]) == (3, "continue")
    assert step_status([gate], "fail") == (3, "continue")
    assert step_status([gate], "pass") == (0, "continue")


def test_a_failed_command_fails_the_step_with_its_status_and_message(tmp_path: Path) -> None:
    env = _env(tmp_path)
    missing = tmp_path / "no such runs.csv"
    code = main(["--files", str(missing), "--max-failure-rate", "0.1"], env)
    assert code == 2
    assert _outputs(env)["decision"] == "error"
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert "exited 2" in summary and "no such file or directory" in summary
    assert "**Step exit status: 2** (a command failed)" in summary


def test_no_gate_is_the_estimate_table_with_names_escaped(runs_dir: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    hostile = str(runs_dir / "hostile.csv")
    assert main(["--files", hostile, "--k", "2", "--ci", "0.9"], env) == 0
    assert _outputs(env)["decision"] == "none"
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    _, doc = passhat_json("estimate", hostile, "--k", "2", "--ci", "0.9")
    mean = next(r for r in doc["estimates"] if r["metric"] == "mean")
    escaped = r"a\|b &lt;script&gt;x&lt;/script&gt; \*c\*"
    (runs,) = doc["summary"]
    shown = (
        f"| {escaped} | 168 | {runs['runs']} ({runs['unscored']}) | mean | {mean['value']:.3f} |"
    )
    assert shown in summary
    for note in doc["notes"]:  # nothing the command said is left out
        assert f"> note: {note}" in summary
    sha = hashlib.sha256(Path(hostile).read_bytes()).hexdigest()
    assert f"- input {escape(hostile)} (csv), SHA-256 {sha}" in summary
    assert f"- passhat {passhat.__version__}" in summary
    assert "<script>" not in summary and HOSTILE not in summary
    assert "benchmark 90%" in summary


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--files", ""], "input files"),
        (["--files", "a\nb"], "one path"),
        (["--files", "x", "--k", "0"], "input k"),
        (["--files", "x", "--ci", "1.5"], "input ci"),
        (["--files", "x", "--margin", "0.1"], "give the baseline input"),
        (
            ["--files", "x", "--baseline", "y", "--margin", "0.1", "--max-failure-rate", "0.1"],
            "give one",
        ),
        (["--files", "x", "--max-failure-rate", "1"], "input max-failure-rate"),
        (["--files", "x", "--on-continue", "maybe"], "input on-continue"),
    ],
)
def test_bad_inputs_stop_before_any_command_and_write_nothing(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _env(tmp_path)
    assert main(argv, env) == 2
    err = capsys.readouterr()
    assert words in err.err and err.out.startswith("::error title=passhat action::")
    assert "$ passhat" not in err.out  # no command ran
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == "earlier step\n"
    assert Path(env["GITHUB_OUTPUT"]).read_text() == "earlier=1\n"
    assert not (tmp_path / "passhat-comment.md").exists()


def test_the_comment_file_replaces_only_its_own(tmp_path: Path) -> None:
    env = _env(tmp_path)
    theirs = tmp_path / "notes.md"
    theirs.write_text("someone's notes\n")
    argv = ["--files", "x", "--comment-file", str(theirs)]
    assert main(argv, env) == 2  # refused before running anything
    assert theirs.read_text() == "someone's notes\n"
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == "earlier step\n"

    link = tmp_path / "link.md"
    ours = tmp_path / "ours.md"
    ours.write_text(f"{MARKER}\nold\n")
    os.symlink(ours, link)
    assert main(["--files", "x", "--comment-file", str(link)], env) == 2
    assert ours.read_text() == f"{MARKER}\nold\n" and link.is_symlink()

    inp = parse_inputs(["--files", "x", "--comment-file", str(ours)], env)
    write_outputs(inp, "new\n", "pass", 0, env)
    assert ours.read_text() == f"{MARKER}\nnew\n"


def test_an_unwritable_output_is_an_io_error(tmp_path: Path) -> None:
    env = {**_env(tmp_path), "GITHUB_OUTPUT": str(tmp_path)}  # a directory
    inp = parse_inputs(["--files", "x"], env)
    with pytest.raises(ActionError, match="GITHUB_OUTPUT") as err:
        write_outputs(inp, "text\n", "none", 0, env)
    assert err.value.code == 4


def test_commands_are_the_ones_a_user_types() -> None:
    env: dict[str, str] = {}
    margin = parse_inputs(
        ["--files", "c.csv", "--baseline", "b.csv", "--margin", "0.05", "--k", "3", "--ci", "0.9"],
        env,
    )
    assert commands(margin) == [
        (
            "gate",
            [
                "gate",
                "c.csv",
                "--baseline",
                "b.csv",
                "--margin",
                "0.05",
                "--k",
                "3",
                "--alpha",
                "0.1",
                "--json",
            ],
        ),
        ("compare", ["compare", "b.csv", "c.csv", "--k", "3", "--ci", "0.9", "--json"]),
    ]
    bound = parse_inputs(["--files", "c.csv", "--max-failure-rate", "0.02"], env)
    assert commands(bound) == [
        (
            "gate",
            [
                "gate",
                "c.csv",
                "--max-failure-rate",
                "0.02",
                "--k",
                "1",
                "--alpha",
                "0.05",
                "--json",
            ],
        ),
        ("estimate", ["estimate", "c.csv", "--k", "1", "--ci", "0.95", "--json"]),
    ]
    assert bound.comment_file == Path("passhat-comment.md")


def test_the_markdown_in_the_guide_is_what_the_step_writes(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/guide/ci.md pastes the step's Markdown from a run on the agents example (files
    ``results/main.csv`` and ``results/candidate.csv``): it must still be what the step writes."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "ci.md"
    text = guide.read_text(encoding="utf-8")
    pasted = text.split("````markdown\n", 1)[1].split("\n````", 1)[0] + "\n"
    results = tmp_path / "results"
    results.mkdir()
    (results / "main.csv").write_bytes((runs_dir / "base.csv").read_bytes())
    (results / "candidate.csv").write_bytes((runs_dir / "cand.csv").read_bytes())
    monkeypatch.chdir(tmp_path)
    env = _env(tmp_path)
    argv = ["--files", "results/candidate.csv", "--baseline", "results/main.csv", "--k", "2",
            "--margin", "0.05"]  # fmt: skip
    assert main(argv, env) == 0
    written = Path(env["GITHUB_STEP_SUMMARY"]).read_text().removeprefix("earlier step\n")
    assert written == pasted


def test_a_path_that_starts_with_a_dash_is_not_an_option() -> None:
    inp = parse_inputs(["--files=-cand.csv", "--baseline=-base.csv"], {})
    assert commands(inp) == [
        ("compare", ["compare", "./-base.csv", "./-cand.csv", "--k", "1", "--ci", "0.95", "--json"])
    ]


def test_format_threshold_and_metric_reach_the_commands_that_read() -> None:
    argv = ["--files", "c.eval", "--max-failure-rate", "0.1", "--metric", "pass_at_k",
            "--format", "inspect", "--threshold", "0.5"]  # fmt: skip
    gate, table = commands(parse_inputs(argv, {}))
    assert gate[1][:8] == ["gate", "c.eval", "--format", "inspect", "--threshold", "0.5",
                           "--max-failure-rate", "0.1"]  # fmt: skip
    assert gate[1][8:10] == ["--metric", "pass_at_k"]
    assert table[1][:6] == ["estimate", "c.eval", "--format", "inspect", "--threshold", "0.5"]
    with pytest.raises(ActionError, match="input metric"):
        parse_inputs(["--files", "x", "--metric", "pass_k"], {})
    with pytest.raises(ActionError, match="input threshold"):
        parse_inputs(["--files", "x", "--threshold", "high"], {})
