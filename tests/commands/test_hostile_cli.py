"""Adversarial QA of the command line's remaining edges (round 2, session 6).

Oracles: the exit statuses of docs/guide/cli.md (2: bad options, never 4 or a traceback), the
JSON grammar of RFC 8259 (no NaN / Infinity tokens), and counts written by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.commands.cli_helpers import GOOD, bad, write

from passhat.cli import main


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "--ci", "0.9"],
        ["compare", "--example", "agents", "--intersect"],
        ["rank", "--example", "leaderboard"],
        ["spread", "--ci", "0.9"],
    ],
    ids=["estimate", "compare", "rank", "spread"],
)
def test_absurd_n_boot_exits_2_naming_the_bound(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    """--n-boot 10^12 ended in exit 4 (MemoryError); now exit 2, one line naming the bound."""
    if "--example" not in args:
        args = [args[0], write(tmp_path, "runs.csv", GOOD), *args[1:]]
    bad(capsys, [*args, "--n-boot", str(10**12)], r"at most 1,000,000 .*TiB of memory")


def test_fit_with_1000_chains_exits_2_naming_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, ["fit", "--example", "abcd", "--chains", "1000"], r"chains must be .* 1 to 64")


@pytest.mark.parametrize("fmt", [[], ["--csv"], ["--json"]], ids=["table", "csv", "json"])
def test_a_closed_output_pipe_ends_quietly_with_status_4(tmp_path: Path, fmt: list[str]) -> None:
    """``passhat estimate ... | head -1``: rich's console exited with status 1 (a failed gate's,
    and nothing else's, in docs/guide/cli.md) and click turned the same error from ``click.echo``
    (``--csv``, ``--json``) into status 1 too. Now every path ends with 4 and nothing on
    stderr. The reader closes the pipe before the command writes (it is still reading its
    input), so the first write meets the closed pipe."""
    runs = write(tmp_path, "runs.csv", GOOD)
    code = "import sys; from passhat.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "estimate", runs, "--per-task", *fmt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away, as `head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 4, err
    assert err == ""


def _every_command() -> list[list[str]]:
    """Every command and ``plan`` subcommand, listed from the group itself (new ones included)."""
    import click

    from passhat.cli import cli

    ctx = click.Context(cli)
    out = []
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        out.append([name])
        if isinstance(cmd, click.Group):
            out += [[name, sub] for sub in cmd.list_commands(click.Context(cmd))]
    return out


@pytest.mark.parametrize("command", _every_command(), ids=" ".join)
def test_every_command_help_works(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    """Oracle: click's contract, ``--help`` exits 0 with the usage line of that command."""
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: ") and f" {' '.join(command)} [OPTIONS]" in out.splitlines()[0]


def _strict(text: str) -> object:
    def refuse(token: str) -> object:
        raise AssertionError(f"{token} is not JSON (RFC 8259)")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("outcome", ["1", "0"], ids=["all-pass", "all-fail"])
@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "--ci", "0.9", "--n-boot", "200", "--per-task", "--predictive", "5"],
        ["spread", "--ci", "0.9", "--n-boot", "200", "--k", "1,3"],
        ["slices"],
        ["fit", "--k", "1,3", "--draws", "200"],
        ["gate", "--max-failure-rate", "0.2"],
        ["plan", "next", "--budget", "10", "--k", "1"],
        ["plan", "more-runs"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_json_is_strict_json_on_one_degenerate_task(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], outcome: str
) -> None:
    """One task whose three runs all pass (or all fail): every rate, interval and variance sits
    on a boundary, where NaN or Infinity would slip into ``--json`` (not JSON)."""
    body = "task_id,trial,success\n" + "".join(f"t1,{r},{outcome}\n" for r in range(3))
    runs = write(tmp_path, "runs.csv", body)
    n = 2 if args[0] == "plan" else 1
    rc = main([*args[:n], runs, *args[n:], "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1, 3), out
    _strict(out)


def test_report_over_an_input_reached_through_a_link(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 33, item 3, as reported: the input replaced by the report's results.json."""
    g = tmp_path / "g"
    g.mkdir()
    (g / "results.json").write_text(GOOD)
    link = tmp_path / "link.csv"
    link.symlink_to(g / "results.json")
    argv = ["report", str(link), "--format", "csv", "-o", str(g), "--force", "--no-model"]
    bad(capsys, argv, r"g/results\.json: is an input of this command")
    assert (g / "results.json").read_text() == GOOD


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["fit", "--example", "abcd", "-o", ""], r"the output file \(-o FILE\) is an empty path"),
        (["report", "--example", "abcd", "-o", ""], r"the output directory \(-o DIR, out_dir\)"),
    ],
    ids=["fit", "report"],
)
def test_empty_output_path(
    capsys: pytest.CaptureFixture[str], argv: list[str], pattern: str
) -> None:
    """Issue 33, item 11: ``fit -o ""`` was the current directory, ``report -o ""`` named only
    the API's parameter."""
    bad(capsys, argv, pattern)


def test_infinite_declared_weight_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 33, item 8: ``--weights declared`` with ``inf`` printed "—", raw numpy warnings and
    exited 0."""
    runs = write(tmp_path, "w.csv", "task_id,success,weight\na,1,inf\na,0,inf\nb,1,1\nb,1,1\n")
    bad(capsys, ["estimate", runs, "--weights", "declared"], r"row 1: weight 'inf' is not a finite")


def test_weights_of_1e308_average_right(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """All weights 1e308 gave mean 0.000; the right value is 0.750 (equal weights)."""
    body = "task_id,success,weight\na,1,1e308\na,0,1e308\nb,1,1e308\nb,1,1e308\n"
    runs = write(tmp_path, "w.csv", body)
    assert main(["estimate", runs, "--weights", "declared", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc.get("table") or doc.get("rows") or doc["estimates"]
    assert {r["metric"]: r["value"] for r in rows}["mean"] == 0.75


def _long_ids(tmp_path: Path) -> tuple[str, list[str]]:
    names = [f"T{i}" + "x" * 100_000 for i in range(3)]
    body = "task_id,trial,success\n" + "".join(
        f"{name},{r},{(i + r) % 2}\n" for i, name in enumerate(names) for r in range(3)
    )
    return write(tmp_path, "runs.csv", body), names


def test_long_names_are_shortened_for_display_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 33, item 10: ids of 10^5 characters gave a 25 MB page Chromium could not render
    in 400 s and 200 KB error lines. Tables and pages show each name's start and end; CSV and
    JSON keep it whole; an error line is at most 2,000 characters."""
    runs, names = _long_ids(tmp_path)
    assert main(["estimate", runs, "--per-task"]) == 0
    table = capsys.readouterr().out
    assert max(map(len, table.splitlines())) < 1000 and "T0xxx" in table and "…" in table
    assert main(["estimate", runs, "--per-task", "--csv"]) == 0
    csv_out = capsys.readouterr().out
    assert all(name in csv_out for name in names)  # whole, exact
    out = tmp_path / "rep"
    assert main(["report", runs, "-o", str(out), "--no-model", "-q", "--n-boot", "200"]) == 0
    capsys.readouterr()
    html = (out / "index.html").read_text(encoding="utf-8")
    assert len(html) < 1_000_000 and names[0] not in html and "T0xxxx" in html
    assert names[0] in (out / "results.json").read_text(encoding="utf-8")
    bad_runs = write(tmp_path, "bad.csv", f"task_id,success\n{names[0]}\u200b,1\n")
    line = bad(capsys, ["estimate", bad_runs], r"characters left out\] … .*U\+200B")
    assert len(line) <= 2000
