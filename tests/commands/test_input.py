"""CLI input handling shared by every command: readers, column maps, value lists.

Oracles: the CLI contract (exit 2, one line on stderr naming the file / row /
option and the rule; never a traceback) and the readers' good paths through
``passhat estimate``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from passhat.cli import main

from .cli_helpers import GOOD, HEADER, PRIOR, TAU, bad, write

# (file name, content, extra args, expected message pattern)
CASES = [
    ("empty.csv", "", [], r"empty\.csv: the file is empty"),
    ("blank.csv", "\n  \n", [], r"blank\.csv: the file is empty"),
    ("runs.csv", "task_id,success\na,1\n", ["--format", "xlsx"], r"unknown format 'xlsx'"),
    ("notes.txt", "just some text\nmore\n", [], r"notes\.txt: cannot tell the format"),
    ("r.csv", "task_id,result\na,1\n", [], r"r\.csv: required column 'success' is missing"),
    (
        "r.csv",
        "task_id,success\na,yes\nb,maybe\nc,sometimes\n",
        [],
        r"r\.csv: row 2: success values must be boolean-like .*saw 'maybe', 'sometimes'",
    ),
    ("c.csv", "task_id,n,c\na,3,4\n", [], r"c\.csv: task 'a' .*c = 4 successes exceeds n = 3"),
    ("c.csv", "task_id,n,c\na,3,1\nb,-2,0\n", [], r"c\.csv: task 'b' .*n = -2 is negative"),
    ("c.csv", "task_id,n,c\na,3.5,1\n", [], r"c\.csv: row 1 \(task 'a'\): n = '3.5' is not a"),
    ("c.csv", "task_id,n,c\na,3,1\na,3,2\n", [], r"c\.csv: rows 1, 2: task 'a' .*more than once"),
    (
        "d.csv",
        "task_id,trial,success\na,0,1\na,0,0\n",
        [],
        r"d\.csv: duplicate \(system, task_id, trial\) = \(system, a, 0\) at rows 1, 2",
    ),
    ("j.json", '[\n {"task_id": 1,\n  "reward": ]', [], r"j\.json: line 3, column 13"),
    (
        "j.jsonl",
        '{"task_id": "a", "success": 1}\n{"task_id": \n',
        [],
        r"j\.jsonl: line 2: not valid",
    ),
    (
        "r.csv",
        "task_id,success\na,1\n",
        ["--format", "tau-bench"],
        r"r\.csv: not a τ-bench result file: line 1, column 1",
    ),
    (
        "o.json",
        '{"simulations": [{"task_id": 1}]}',
        ["--format", "tau-bench"],
        r"o\.json: not a τ-bench result file \(expected a JSON list",
    ),
    (
        "r.csv",
        "task_id,success\na,1\n",
        ["--format", "tau2-bench"],
        r"r\.csv: not a τ²-bench results file",
    ),
    (
        "l.json",
        '[{"task_id": 0, "reward": 1.0}]',
        ["--format", "tau2-bench"],
        r"l\.json: not a τ²-bench results file \(expected a JSON object",
    ),
    ("r.csv", "task_id,success\na,1\n", ["--format", "inspect"], r"r\.csv: not an Inspect AI log"),
    (
        "s.csv",
        "task_id,score\na,0.9\nb,n/a!\n",
        ["--threshold", "0.5"],
        r"s\.csv: row 2: score 'n/a!' is not a number \(threshold=0\.5",
    ),
    ("s.csv", "task_id,score\na,0.9\n", [], r"s\.csv: no success column.*--threshold"),
    ("m.csv", "q,ok\na,1\n", ["--map", "task=question"], r"column 'question' \(given for task\)"),
    ("m.csv", "q,ok\na,1\n", ["--map", "task"], r"--map 'task': write FIELD=COLUMN"),
]


@pytest.mark.parametrize(("name", "text", "extra", "pattern"), CASES)
def test_bad_input_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    extra: list[str],
    pattern: str,
) -> None:
    bad(capsys, ["estimate", write(tmp_path, name, text), *extra], pattern)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, ["estimate", str(tmp_path / "nope.csv")], r"nope\.csv: no such file")


def test_tau2_dir_through_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    (run / "simulations").mkdir(parents=True)
    info = {"agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"}}
    (run / "results.json").write_text(json.dumps({"info": info, "tasks": [{"id": "0"}]}))
    for i, (reason, reward) in enumerate(
        [("user_stop", 1.0), ("user_stop", 0.0), ("infrastructure_error", None)]
    ):
        sim = {
            "id": f"s{i}",
            "task_id": "0",
            "trial": i,
            "termination_reason": reason,
            "reward_info": None if reward is None else {"reward": reward},
        }
        (run / "simulations" / f"s{i}.json").write_text(json.dumps(sim))
    assert main(["estimate", str(run), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"][0]["system"] == "gpt-4.1"
    assert (doc["summary"][0]["runs"], doc["summary"][0]["unscored"]) == (2, 1)


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
    path = write(tmp_path, name, data)
    bad(capsys, ["estimate", path, *extra], rf"{re.escape(name)}: .*UTF-8")


# ------------------------------------------- reader options a format cannot take
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
    path = write(tmp_path, "tau.json", TAU)
    assert main(["estimate", path, "--json"]) == 0  # the file itself reads
    capsys.readouterr()
    bad(capsys, ["estimate", path, *extra], pattern)


# --------------------------------------------------------- non-finite threshold
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_threshold_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    # score >= nan is False for every row: all runs would silently become failures
    path = write(tmp_path, "scores.csv", "task_id,score\nt1,0.3\nt1,0.9\nt2,1.0\nt2,0.7\n")
    bad(capsys, ["estimate", path, "--threshold", value], rf"threshold .*finite.*{value}")


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
    bad(capsys, ["estimate", write(tmp_path, "m.csv", text), *maps], pattern)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "counts"])
def test_directory_read_as_a_file_format_is_a_format_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    d = tmp_path / "runs"
    d.mkdir()
    # a directory of tidy part files is a dataset (counted out of core): an empty one says so
    want = "a directory, not a counts file" if fmt == "counts" else "a directory with no data files"
    bad(capsys, ["estimate", str(d), "--format", fmt], rf"runs: {want}")


# ------------------------------------------------ lists of whole numbers (--k etc.)
def test_value_lists_name_their_option_and_refuse_absurd_ranges(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "runs.csv", GOOD)
    # a range of 10^9 values would take minutes and gigabytes before any check
    bad(capsys, ["estimate", path, "--k", "1-1000000000"], r"--k: range '1-1000000000' .*values")
    grid = ["plan", "power", "--delta", "0.1", *PRIOR, "--scheduler", "synchronous"]
    bad(capsys, [*grid, "--grid-tasks", "abc", "--grid-runs", "3"], r"--grid-tasks: 'abc'")
    bad(capsys, [*grid, "--grid-tasks", "20", "--grid-runs", "0"], r"--grid-runs: .*≥ 1")
    spread = ["spread", "--mean", "0.5", "--pass-hat", "0.3", "--k", "2"]
    bad(capsys, [*spread, "--predict-k", "x"], r"--predict-k: 'x'")


def test_backwards_k_range_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the OptionError was raised inside `except ValueError` and replaced by "not a number"
    path = write(tmp_path, "runs.csv", GOOD)
    bad(capsys, ["estimate", path, "--k", "5-1"], r"--k: range '5-1' runs backwards")


# ------------------------------------------- surrounding spaces in a CSV
def test_spaces_after_commas_in_the_header_are_not_a_missing_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "s.csv", "system, task_id, trial, success\nA,t1,0,1\nA,t1,1,0\n")
    assert main(["estimate", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"][0]["tasks"] == 1 and doc["summary"][0]["runs"] == 2


def test_ids_that_differ_only_by_surrounding_spaces_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # " t1" and "t1" would silently be two tasks of one run each
    path = write(tmp_path, "s.csv", HEADER + "A, t1,0,1\nA,t1,1,0\n")
    bad(capsys, ["estimate", path], r"s\.csv: row 1: task_id ' t1' .*'t1'.*spaces")


def test_system_name_applies_to_a_count_table_without_a_system_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "c.csv", "task_id,n,c\nt1,5,3\nt2,5,5\n")
    assert main(["estimate", path, "--system-name", "gpt-x", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in doc["summary"]] == ["gpt-x"]


def test_system_name_for_a_file_not_given_is_refused_with_one_input_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found in QA: with one input, ``--system-name other.csv=X`` (a file not given, e.g. a
    typo) named the system 'other.csv=X' without a word; with several inputs it was refused.
    A name with '=' whose left side is not a file name stays a name."""
    path = write(tmp_path, "c.csv", "task_id,n,c\nt1,5,3\nt2,5,5\n")
    other = write(tmp_path, "d.csv", "task_id,n,c\nt1,5,3\n")
    for value in ("zz.csv=X", f"{other}=X", "runs/x.jsonl=X"):
        bad(capsys, ["estimate", path, "--system-name", value], r"not an input.*c\.csv")
    for name in ("temp=0.7", "org/model=t0"):
        assert main(["estimate", path, "--system-name", name, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["summary"][0]["system"] == name
    assert main(["estimate", path, "--system-name", "c.csv=X", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"][0]["system"] == "X"


def _two_models_csv(tmp_path: Path, column: str = "model") -> str:
    """Two models, 3 questions x 4 attempts each; model-b always passes, model-a passes 1 of 4."""
    rows = [f"{column},question_id,attempt,passed"]
    for model in ("model-a", "model-b"):
        for q in range(3):
            for a in range(4):
                rows.append(f"{model},q{q},{a},{int(model == 'model-b' or a == 0)}")
    return write(tmp_path, "export.csv", "\n".join(rows) + "\n")


def test_two_models_in_one_file_are_two_systems_with_a_note(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 12 item 1: read with the README's column map, two models were one system."""
    path = _two_models_csv(tmp_path)
    rc = main(
        [
            "estimate",
            path,
            "--map",
            "task=question_id",
            "--map",
            "success=passed",
            "--k",
            "4",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 0
    doc = json.loads(out)  # the note goes to stderr: stdout stays JSON
    values = {r["system"]: r["value"] for r in doc["estimates"] if r["metric"] == "pass_hat_k"}
    assert values == {"model-a": 0.0, "model-b": 1.0}  # by hand: c = 1 of 4 and 4 of 4
    assert doc["input"]["system_column"] == "model"
    assert "passhat: note: read column 'model' as the system (2 systems: model-a, model-b)" in err


def test_an_unknown_splitting_column_is_refused_with_the_fix(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = _two_models_csv(tmp_path, column="arm_label")
    bad(
        capsys,
        ["estimate", path, "--map", "task=question_id", "--map", "success=passed"],
        r"column 'arm_label' splits every task's runs into 2 groups \(model-a, model-b\).*"
        r"--map system=arm_label",
    )
    rc = main(
        [
            "estimate",
            path,
            "--map",
            "task=question_id",
            "--map",
            "success=passed",
            "--map",
            "system=arm_label",
        ]
    )
    assert rc == 0 and "model-b" in capsys.readouterr().out


def test_reader_notes_follow_success_and_never_precede_an_error(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The reader's note (a 'model' column read as the system) went to stderr as soon as the
    file was read, so bad input printed it and then the error: two lines where the contract
    is one. Now the note follows a command that succeeds (or a gate's verdict) and is dropped
    on an error; the short-task error names each system's task."""
    path = _two_models_csv(tmp_path)
    opts = ["--map", "task=question_id", "--map", "success=passed"]
    bad(capsys, ["estimate", path, *opts, "--k", "9"], r"q0 \(model-a, n=4\), .*q0 \(model-b")
    bad(capsys, ["compare", path, *opts, "--baseline", "nope"], "baseline 'nope' not found")
    rc = main(["estimate", path, *opts, "--csv"])
    out, err = capsys.readouterr()
    assert rc == 0 and out.startswith("system,") and err.startswith("passhat: note: read column")
    assert main(["estimate", path, *opts]) == 0  # nothing left over from the runs before
    assert capsys.readouterr().err.count("passhat: note:") == 1


# ------------------------------------------- --quiet on every command; empty paths
#: A run graded as a pass whose status says timeout: the reader adds a note.
NOTED = HEADER.replace("success", "success,status") + "".join(
    f"A,t{t},{r},{int((t + r) % 3 > 0)},{'timeout' if (t, r) == (1, 1) else 'ok'}\n"
    for t in range(1, 5)
    for r in range(3)
)

#: Every command that reads runs, with options that keep it fast ({f}: the input file).
READERS = {
    "estimate": ["estimate", "{f}"],
    "slices": ["slices", "{f}"],
    "spread": ["spread", "{f}", "--n-boot", "100"],
    "fit": ["fit", "{f}", "--method", "grid"],
    "gate": ["gate", "{f}", "--max-failure-rate", "0.5"],
    "compare": ["compare", "{f}", "{f}", "--n-boot", "100"],
    "plan next": ["plan", "next", "{f}", "--budget", "5"],
    "plan more-runs": ["plan", "more-runs", "{f}", "--simulations", "20"],
    "plan design": ["plan", "design", "--from", "{f}", "--budget-runs", "100"],
    "report": ["report", "{f}", "-o", "{out}", "--no-model", "--no-plan", "--n-boot", "100"],
}


@pytest.mark.parametrize("command", sorted(READERS))
def test_quiet_silences_the_reader_notes_of_every_command(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: slices, spread, plan next and plan more-runs had no --quiet (exit 2), and fit,
    gate, plan design and report printed the reader's note under --quiet."""
    f = write(tmp_path, "runs.csv", NOTED)
    argv = [a.format(f=f, out=tmp_path / "out") for a in READERS[command]]
    done = (0, 3) if command == "gate" else (0,)  # 3: the gate says "continue"
    assert main(argv) in done
    assert "graded as passes" in capsys.readouterr().err  # the note, without --quiet
    assert main([*argv, "--quiet"]) in done
    out, err = capsys.readouterr()
    assert err == "", err
    assert out.strip()  # the result is still printed


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "bound", "--runs", "10"],
        ["plan", "detect", "--flip-rate", "0.1"],
        ["plan", "certify", "--max-failure-rate", "0.05"],
        ["plan", "width", "--half-width", "0.1", "--rate", "0.8"],
        ["plan", "gate", "--rate", "0.9", "--attempts", "3"],
        ["plan", "table"],
    ],
)
def test_closed_form_plans_accept_quiet(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `No such option '-q'` (exit 2) on the closed forms; a script passes -q to all."""
    assert main(argv) == 0
    loud = capsys.readouterr()
    assert main([*argv, "-q"]) == 0
    assert capsys.readouterr() == loud  # nothing to silence: the same output


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["estimate", ""], "the input path"),
        (["slices", ""], "the input path"),
        (["compare", "", ""], "the input path"),
        (["plan", "design", "--from", "", "--budget-runs", "100"], "--from"),
        (["plan", "next", "{f}", "--budget", "5", "--prior-from", ""], "--prior-from"),
        (["report", "{f}", "-o", "{out}", "--traces", ""], "--traces"),
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_directory(
    argv: list[str], option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Before: `passhat estimate ""` (an unset $RUNS) read every file of the working directory
    as one dataset, and succeeded when it held one runs file."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    write(cwd, "runs.csv", GOOD)  # what the old code read
    monkeypatch.chdir(cwd)
    f = write(tmp_path, "in.csv", GOOD)
    argv = [a.format(f=f, out=tmp_path / "out") for a in argv]
    bad(capsys, argv, rf"{re.escape(option)} is empty")
    assert not (tmp_path / "out").exists()


def test_scheduler_counts_a_directory_on_a_dask_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oracle: the same command without --scheduler (the table is counted on this machine):
    the output is identical, line for line, the reader's notes included."""
    distributed = pytest.importorskip("distributed")
    d = tmp_path / "runs"
    d.mkdir()
    lines = [*GOOD.splitlines()[1:], "B,t1,0,1", "B,t1,1,", "B,t1,2,1", "b,t2,0,0", "b,t2,1,1"]
    for i in range(4):
        write(d, f"part-{i}.csv", HEADER + "\n".join(lines[i::4]) + "\n")
    args = ["estimate", str(d), "--k", "1,2"]
    assert main(args) == 0
    want = capsys.readouterr()
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        assert main([*args, "--scheduler", cluster.scheduler_address]) == 0
        got = capsys.readouterr()
    assert got.out == want.out and "letter case" in got.err and got.err == want.err
    bad(capsys, [*args[:1], "--example", "abcd", "--scheduler", "local"], r"--scheduler counts")
    tau = write(tmp_path, "tau.json", TAU)
    bad(capsys, ["estimate", tau, "--scheduler", "local"], r"takes no option scheduler")
