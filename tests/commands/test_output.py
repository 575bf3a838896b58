"""How commands print (``passhat.commands._output``): tables that never wrap when piped, ``--csv``
for every table-printing command, names shown literally (issue 12, "CLI tables"; issue 13,
item 6).

Oracles: for ``--csv``, the same command's ``--json`` records (the CSV must hold exactly those
rows); for wrapping, the row of a table read back from the captured output.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from passhat._format import jsonable, printable
from passhat.cli import main
from passhat.commands._output import PIPE_WIDTH, Table, make_console

from .cli_helpers import bad, write

LONG = "a-system-with-a-rather-long-name-v2.3.1"
RUNS = "system,task_id,trial,success\n" + "".join(
    f"{s},t{t},{r},{int((r + t + i) % 3 > 0)}\n"
    for i, s in enumerate((LONG, "base"))
    for t in range(6)
    for r in range(4)
)
STEPS = "\n".join(
    json.dumps(row)
    for t in range(2)
    for trial, ok in ((0, True), (1, True), (2, False))
    for row in (
        {"task_id": f"t{t}", "trial": trial, "action": "get_user", "success": ok},
        {"task_id": f"t{t}", "trial": trial, "action": "refund" if ok else "cancel", "success": ok},
    )
)


def test_piped_table_rows_stay_on_one_line(capsys, tmp_path: Path, monkeypatch) -> None:
    """Before: piped output was cut at 80 columns and an interval split across lines."""
    monkeypatch.delenv("COLUMNS", raising=False)
    runs = write(tmp_path, "runs.csv", RUNS)
    argv = ["estimate", runs, "--k", "1,2", "--ci", "0.9", "--n-boot", "200", "--seed", "0"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln for ln in lines if LONG in ln and "pass^k" in ln]
    assert rows, lines
    assert all(ln.count("[") == 2 and ln.count("]") == 2 for ln in rows), rows  # 2 intervals
    assert max(map(len, lines)) > 80  # the table kept its natural width


def test_console_width_rules(monkeypatch) -> None:
    piped = make_console(file=io.StringIO())
    assert not piped.is_terminal and piped.width == PIPE_WIDTH

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert make_console(file=Tty()).width == 60
    assert make_console(file=Tty(), min_width=120).width == 120


def test_terminal_output_has_no_escape_from_names(monkeypatch) -> None:
    """On a real terminal rich styles its own text with SGR codes; a name's own escape sequence
    (OSC 8 hyperlink, SGR, BEL) is shown as text, never emitted."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("FORCE_COLOR", "1")
    out = Tty()
    c = make_console(file=out)
    t = Table(title="runs of \x1b]0;pwned\x07")
    t.add_column("system \x1b[5m")
    t.add_row("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ [link=https://x]y[/link]")
    c.print(t)
    c.print("note about \x1b[2J")
    text = out.getvalue()
    assert "\x1b]" not in text and "\x07" not in text and "\x1b[2J" not in text
    assert "\\x1b]8;;https://evil.example" in text and "[link=https://x]y[/link]" in text


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _as_csv_cells(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    def cell(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, list | dict):
            return printable(json.dumps(jsonable(v), ensure_ascii=False))
        return str(v)

    return [{str(k): cell(v) for k, v in r.items()} for r in records]


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["estimate", "{runs}", "--k", "1,2"], "estimates"),
        (["estimate", "{runs}", "--k", "2", "--per-task"], "tasks"),
        (
            ["compare", "{runs}", "--baseline", "base", "--n-boot", "200", "--seed", "0"],
            "comparison",
        ),
        (["compare", "{runs}", "--baseline", "base", "--classify"], "verdicts"),
        (["slices", "{runs}"], "slices"),
        (["spread", "{runs}", "--k", "1,2"], "spread"),
        (
            ["fit", "{runs}", "--method", "grid", "--draws", "200", "--chains", "2", "--seed", "0"],
            "summary",
        ),
        (["traces", "{steps}", "--format", "steps-jsonl"], "divergence"),
        (["plan", "design", "--budget-runs", "200", "--mean", "0.6", "--icc", "0.3"], "table"),
        (
            ["plan", "power", "--delta", "0.1", "--power", "0.8", "--mean", "0.6", "--icc", "0.3"],
            "table",
        ),
    ],
)
def test_csv_holds_the_json_rows(capsys, tmp_path: Path, argv: list[str], key: str) -> None:
    files = {
        "{runs}": write(tmp_path, "runs.csv", RUNS),
        "{steps}": write(tmp_path, "s.jsonl", STEPS),
    }
    argv = [files.get(a, a) for a in argv]
    assert main([*argv, "--json"]) == 0
    value = json.loads(capsys.readouterr().out)[key]
    if isinstance(value, dict):  # slices: one table per key, tagged
        value = [{key: name, **r} for name, rows in value.items() for r in rows]
    assert main([*argv, "--csv"]) == 0
    got = _csv(capsys.readouterr().out)
    assert len(got) == len(value) > 0
    want = _as_csv_cells(value)
    assert [{k: v for k, v in r.items() if k in w} for r, w in zip(got, want, strict=True)] == want


def test_csv_and_json_together_refused(capsys, tmp_path: Path) -> None:
    runs = write(tmp_path, "runs.csv", RUNS)
    bad(capsys, ["estimate", runs, "--csv", "--json"], "--csv and --json: choose one")


def test_csv_keeps_names_that_look_like_spreadsheet_formulas(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The documented choice (docs/guide/cli.md): names starting with = + - @ are written as they
    are, so that a program reading the CSV gets each name back equal to itself."""
    names = ["=1+2", "+cmd", "-2+3", "@SUM(A1)", '=HYPERLINK("http://x","y")']
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["system", "task_id", "trial", "success"])
    out.writerows([s, f"t{t}", r, (t + r) % 2] for s in names for t in range(3) for r in range(2))
    f = write(tmp_path, "runs.csv", buf.getvalue())
    assert main(["estimate", f, "--k", "1", "--csv", "-q"]) == 0
    got = {r["system"] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert got == set(names)


def test_csv_of_an_empty_table_is_its_header(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Before: `plan next --csv` with no flaky task (an empty batch) printed nothing at all, so a
    harness reading the batch found no columns; now the header line, the same as with rows."""
    rows = "".join(f"A,t{t},{r},1\n" for t in range(4) for r in range(3))
    f = write(tmp_path, "allpass.csv", "system,task_id,trial,success\n" + rows)
    flaky = write(tmp_path, "flaky.csv", "system,task_id,trial,success\n" + rows + "A,t0,3,0\n")
    argv = ["plan", "next", "--budget", "6", "--k", "2", "--csv", "-q"]
    assert main([*argv, f]) == 0
    empty = capsys.readouterr().out
    assert main([*argv, flaky]) == 0
    full = capsys.readouterr().out
    assert empty.splitlines() == full.splitlines()[:1]
    assert "task" in next(csv.reader(io.StringIO(empty))) and len(full.splitlines()) > 1
