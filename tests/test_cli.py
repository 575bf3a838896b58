"""The exit statuses of ``passhat`` (docs/guide/cli.md), the same for every command: 0 success,
1 a gate's "fail" only, 2 bad input or options, 4 I/O errors (OSError, MemoryError, disk full),
130/143 interrupted, 70 a bug — always one line on stderr, never a traceback (issue 13, item 11).

Oracle: the documented table itself; each failure is raised where a command reads its input,
so the mapping is checked through the real entry point.
"""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path
from typing import Any

import click
import pytest

import passhat.commands._common as common
import passhat.estimate_quick as estimate_quick
from passhat.cli import EXIT_BUG, main
from passhat.errors import (
    EXIT_FAIL,
    EXIT_INPUT,
    EXIT_INTERRUPT,
    EXIT_IO,
    OptionError,
    OutputError,
    PasshatError,
)

GOOD = "system,task_id,trial,success\n" + "".join(
    f"A,t{t},{r},{int(r < t)}\n" for t in range(4) for r in range(3)
)


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("passhat: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("raised", "status", "words"),
    [
        (OptionError("--k: bad"), EXIT_INPUT, "--k: bad"),
        (click.ClickException("click says no"), EXIT_INPUT, "click says no"),  # exit 1 in click
        (OutputError("out.nc: cannot write: disk full"), EXIT_IO, "disk full"),
        (OSError(errno.ENOSPC, "No space left on device"), EXIT_IO, "disk full"),
        (PermissionError(errno.EACCES, "Permission denied"), EXIT_IO, "permission denied"),
        (  # issue 33, item 11: "FILE: reason", not "[Errno 13] Permission denied: 'FILE'"
            PermissionError(errno.EACCES, "Permission denied", "r.csv"),
            EXIT_IO,
            r"error: r\.csv: permission denied$",
        ),
        (MemoryError(), EXIT_IO, "out of memory"),
        (RecursionError("maximum recursion depth exceeded"), EXIT_INPUT, "nested too deeply"),
        (KeyboardInterrupt(), EXIT_INTERRUPT, "interrupted"),
        (ValueError("oops"), EXIT_BUG, r"unexpected ValueError: oops \(a bug in passhat"),
        (KeyError("k"), EXIT_BUG, "unexpected KeyError"),
        # a library's EOFError was read by click as Ctrl-D: "interrupted", 130, and a blank line
        (EOFError("stream ended"), EXIT_BUG, r"unexpected RuntimeError: EOFError: stream ended"),
    ],
)
def test_exit_status_by_failure(
    capsys, monkeypatch, tmp_path: Path, raised: BaseException, status: int, words: str
) -> None:
    """Before: OSError and MemoryError exited 1 (a gate's "fail"), a bug exited 1 with a
    traceback, and a RecursionError printed a traceback."""
    runs = tmp_path / "runs.csv"
    runs.write_text(GOOD)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise raised

    monkeypatch.setattr(common, "load_input", fail)
    for reader in ("plain_runs", "plain_count_csv", "plain_runs_csv"):  # the plain path's too
        monkeypatch.setattr(estimate_quick, reader, fail)
    rc = main(["estimate", str(runs)])
    assert rc == status
    assert re.search(words, one_line(capsys.readouterr().err))


def test_debug_shows_the_traceback_of_a_bug(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(common, "load_input", lambda *a, **k: {}["missing"])
    monkeypatch.setenv("PASSHAT_DEBUG", "1")
    assert main(["estimate", "x.csv"]) == EXIT_BUG
    assert "Traceback" in capsys.readouterr().err


def test_every_error_class_has_a_documented_status() -> None:
    import passhat.errors as errors

    documented = {0, 1, 2, 3, 4, 130, 143}
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, PasshatError):
            assert obj.exit_code in documented - {0, 1}, name  # 1 is a gate's decision only
    text = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "cli.md").read_text()
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 4 |", "| 70 |", "| 130 |", "| 143 |"):
        assert code in text, code


def test_usage_errors_are_two(capsys) -> None:
    assert main(["estimate", "--no-such-option"]) == EXIT_INPUT
    one_line(capsys.readouterr().err)
    assert main(["no-such-command"]) == EXIT_INPUT
    one_line(capsys.readouterr().err)
    assert main(["--version"]) == 0
    capsys.readouterr()
    assert main([]) == EXIT_INPUT  # `passhat` alone: click's help, lines intact
    err = capsys.readouterr().err
    assert err.startswith("Usage: ") and "\\x0a" not in err and "\n  estimate " in err


def test_gate_fail_is_the_only_one(capsys, tmp_path: Path) -> None:
    """``compare --classify --fail-on regression``: 1 exactly when a task regressed."""
    base = tmp_path / "base.csv"
    cand = tmp_path / "cand.csv"
    rows = "".join(f"A,t{t},{r},1\n" for t in range(3) for r in range(6))
    base.write_text("system,task_id,trial,success\n" + rows)
    worse = rows.replace("A,t0,0,1", "A,t0,0,0").replace("A,t0,1,1", "A,t0,1,0")
    for r in range(2, 6):
        worse = worse.replace(f"A,t0,{r},1", f"A,t0,{r},0")
    cand.write_text("system,task_id,trial,success\n" + worse)
    argv = ["compare", str(base), str(cand), "--classify", "--fail-on", "regression"]
    assert main(argv) == EXIT_FAIL
    assert main(["compare", str(base), str(base), "--classify", "--fail-on", "regression"]) == 0


def test_deeply_nested_json_is_bad_input(capsys, tmp_path: Path) -> None:
    """Before: ``[`` × 100,000 gave a RecursionError traceback (item 8)."""
    for name, text in (("deep.json", "[" * 100_000), ("deep.jsonl", "{" * 50_000 + "\n")):
        f = tmp_path / name
        f.write_text(text)
        for fmt in ([], ["--format", "tau-bench" if name.endswith(".json") else "jsonl"]):
            assert main(["estimate", str(f), *fmt]) == EXIT_INPUT
            line = one_line(capsys.readouterr().err)
            assert name in line, line


def test_json_payloads_carry_no_float_noise(capsys, tmp_path: Path) -> None:
    """Issue 12: 0.42, not 0.42000000000000004, in every number a command writes as JSON."""
    runs = tmp_path / "runs.csv"
    runs.write_text(GOOD)

    def floats(obj: Any) -> list[float]:
        if isinstance(obj, dict):
            return [x for v in obj.values() for x in floats(v)]
        if isinstance(obj, list):
            return [x for v in obj for x in floats(v)]
        return [obj] if isinstance(obj, float) else []

    argvs = [
        ["estimate", str(runs), "--k", "1,2", "--ci", "0.9", "--n-boot", "300", "--seed", "1"],
        ["slices", str(runs)],
        ["spread", str(runs), "--k", "1,2"],
        ["spread", "--mean", "0.774", "--pass-hat", "0.53", "--k", "5"],
        ["plan", "design", "--budget-runs", "300", "--mean", "0.6", "--icc", "0.3"],
        ["fit", str(runs), "--method", "grid", "--draws", "200", "--chains", "2", "--seed", "0"],
    ]
    for argv in argvs:
        assert main([*argv, "--json"]) == 0, argv
        values = floats(json.loads(capsys.readouterr().out))
        assert values, argv
        noisy = [x for x in values if float(f"{x:.12g}") != x]
        assert noisy == [], (argv, noisy[:5])
