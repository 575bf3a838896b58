"""The CLI group: listing commands loads no heavy library; each command loads when used.

Oracles: ``sys.modules`` of a fresh interpreter after ``passhat --help`` (what was imported,
not how long it took: timings live in ``benchmarks/bench_startup.py``), and each command's own
click help (the table :data:`passhat.commands.COMMANDS` must agree with it).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import click
import pytest

import passhat.commands
from passhat.cli import cli, main
from passhat.commands import COMMANDS, LazyGroup, command_modules

#: Libraries that cost tenths of a second or more to import; none is needed to list commands.
HEAVY = ("numpy", "pandas", "xarray", "scipy", "pymc", "pytensor", "arviz", "matplotlib")


def _modules_after(code: str) -> tuple[list[str], str]:
    """Top-level packages imported by ``code`` in a fresh interpreter, and what it printed."""
    probe = (
        "import io, json, sys, contextlib\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    {code}\n"
        "print(json.dumps([sorted({m.split('.')[0] for m in sys.modules}), out.getvalue()]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    mods, printed = json.loads(res.stdout.strip().splitlines()[-1])
    return mods, printed


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_listing_imports_no_heavy_library(argv: list[str]) -> None:
    mods, printed = _modules_after(f"from passhat.cli import main; main({argv!r})")
    assert sorted(set(HEAVY) & set(mods)) == []
    if argv == ["--version"]:
        assert printed.startswith("passhat, version ")
    if argv == ["--help"]:
        for name in COMMANDS:
            assert f"  {name} " in printed


#: Libraries a closed form never needs (issue 32): it prints an answer computed from a formula.
NOT_FOR_A_CLOSED_FORM = ("pandas", "xarray", "pymc", "pytensor", "arviz", "matplotlib", "dask")


@pytest.mark.parametrize(
    ("argv", "answer", "no_scipy"),
    [
        (["plan", "detect", "--flip-rate", "0.1"], "29 runs", True),
        (["plan", "detect", "--flip-rate", "0.1", "--json"], '"value": 29', True),
        (["plan", "detect", "--runs", "30", "--ci", "0.9"], "flip rate = 7.39%", True),
        (["plan", "retry", "--rate", "0.9", "--attempts", "3"], "retry-until-green 99.9%", True),
        (["plan", "bound", "--runs", "30"], "failure rate ≤ 9.5%", True),
        (["plan", "bound", "--runs", "30", "--failures", "2"], "failure rate ≤ 19.5%", False),
        (["plan", "certify", "--max-failure-rate", "0.05"], "59 runs", False),
    ],
)
def test_closed_form_imports_no_table_or_model_library(
    argv: list[str], answer: str, no_scipy: bool
) -> None:
    """A closed form (``plan detect``, ``bound``, ``certify``, ``retry``) imports none of pandas,
    xarray, PyMC (nor SciPy, nor even numpy, where no quantile is needed: ``plan detect`` was
    2× ``import numpy`` with numpy, 1× without), and prints its answer."""
    mods, printed = _modules_after(f"from passhat.cli import main; main({argv!r})")
    assert answer in printed
    assert sorted(set(NOT_FOR_A_CLOSED_FORM) & set(mods)) == []
    if no_scipy:
        assert "scipy" not in mods
        assert "numpy" not in mods
    if "--json" in argv:
        assert "rich" not in mods  # rich loads only to print a table or text


@pytest.mark.parametrize("command", ["estimate", "plan", "fit", "gate", "report", "spread"])
def test_a_commands_help_imports_no_heavy_library(command: str) -> None:
    """``passhat estimate --help`` was 5.9× ``import numpy``: commands/_common imported pandas
    and xarray at module level (issue 32); since the checks of numbers import no numpy either,
    a command's help needs none of them (0.7×)."""
    mods, printed = _modules_after(f"from passhat.cli import main; main([{command!r}, '--help'])")
    assert f" {command} [OPTIONS]" in printed
    assert sorted(set(HEAVY) & set(mods)) == []
    assert "rich" not in mods


def test_a_plan_result_needs_pandas_only_for_its_table() -> None:
    """``PlanResult.to_frame()`` builds a DataFrame; answering, printing and ``to_dict()``
    do not import pandas."""
    code = (
        "from passhat import plan; r = plan.runs_to_detect(flip_rate=0.1); r.to_dict(); "
        "print(repr(r)); import sys; print('pandas' in sys.modules); "
        "print(r.to_frame().shape)"
    )
    mods, printed = _modules_after(code)
    assert printed.splitlines()[0] == "29 runs"
    assert printed.splitlines()[-2:] == ["False", "(4, 2)"]
    assert "pandas" in mods


def test_import_passhat_imports_no_heavy_library() -> None:
    mods, _ = _modules_after("import passhat")
    assert sorted(set(HEAVY) & set(mods)) == []


def test_commands_table_lists_every_command_module_with_its_own_help() -> None:
    modules = sorted(
        m.name for m in pkgutil.iter_modules(passhat.commands.__path__) if not m.name[0] == "_"
    )
    commands = [m for m in modules if m.split("_")[0] == m or m.split("_")[0] not in modules]
    parts = [m for m in modules if m not in commands]  # plan_power: part of `plan`
    assert sorted(COMMANDS) == commands, "add the new command to COMMANDS in commands/__init__.py"
    assert all(p.split("_")[0] in COMMANDS for p in parts)
    for name in commands:  # command_modules imports the command and every part of it
        loaded = sorted(m.__name__.rsplit(".", 1)[1] for m in command_modules(name))
        assert loaded == sorted([name, *(p for p in parts if p.split("_")[0] == name)]), name
    ctx = click.Context(cli)
    for name in commands:
        cmd = cli.get_command(ctx, name)
        assert cmd is not None and cmd.name == name
        listed = click.Command(name, help=COMMANDS[name]).get_short_help_str(1000)
        assert cmd.get_short_help_str(1000) == listed, (
            f"COMMANDS[{name!r}] differs from the command's help: update commands/__init__.py"
        )


def test_group_help_lists_the_same_text_as_the_loaded_commands(capsys) -> None:
    assert main(["--help"]) == 0
    lazy = capsys.readouterr().out
    group = LazyGroup("passhat")
    ctx = click.Context(group)
    for name in COMMANDS:
        group.get_command(ctx, name)  # now every command is loaded: help from the commands
    formatter = ctx.make_formatter()
    group.format_commands(ctx, formatter)
    loaded = formatter.getvalue()
    assert loaded.strip() and loaded.strip() in lazy


def test_a_command_in_several_modules_is_whole() -> None:
    """``plan``'s subcommands live in commands/plan.py and commands/plan_power.py."""
    group = LazyGroup("passhat")
    plan = group.get_command(click.Context(group), "plan")
    assert isinstance(plan, click.Group)
    assert {"detect", "design", "power", "more-runs"} <= set(plan.commands)


def test_unknown_command_is_one_line_and_exit_2(capsys) -> None:
    assert main(["nosuchcommand"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuchcommand" in err[0]


def test_estimate_of_an_example_imports_one_reader_and_no_dask() -> None:
    """``passhat estimate --example tau-airline``: xarray asks for dask only once it is used
    (``--scheduler``), and ``--example``'s named format imports its reader module only
    (issue 32; the time is in ``benchmarks/bench_startup.py``). Once dask is imported, xarray
    knows a dask array as before (:func:`passhat._lazy.defer_dask`)."""
    code = (
        "from passhat.cli import main; main(['estimate', '--example', 'tau-airline', '--k', "
        "'1-4'])\n    print(sorted(m for m in sys.modules if m.startswith('passhat.io.') "
        "and not m.startswith('passhat.io._')), sorted({'dask', 'scipy', 'pymc', 'matplotlib'} "
        "& {m.split('.')[0] for m in sys.modules}))\n"
        "    import dask.array as da, xarray as xr\n"
        "    a = xr.DataArray(da.ones(4, chunks=2), dims='x')\n"
        "    print(a.chunks, type(a.data).__name__, int((a + 1).sum().compute()))"
    )
    _, printed = _modules_after(code)
    assert "│ gpt-4o-airline │    50 │  200 │        0 │ 4 │ 0.420 │  0.720 │  0.200 │" in printed
    assert printed.splitlines()[-2:] == ["['passhat.io.tau_bench'] []", "((2, 2),) Array 8"]


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "--example", "tau-airline", "--k", "1-4"],
        ["estimate", "--example", "tau-airline", "-q"],
        ["estimate", "--format", "tau-bench", "TAU"],
        ["estimate", "TAU", "--k", "1-4"],  # sniffed: the registry imports no reader to sniff
    ],
)
def test_plain_estimate_of_a_tau_bench_file_imports_no_table_library(argv: list[str]) -> None:
    """``passhat estimate`` of one τ-bench file with no option but ``--k`` counts its runs
    without pandas or xarray (issue 32 goal 1; :mod:`passhat.estimate_quick`), and prints the
    table the whole estimate prints (tests/test_estimate_quick.py compares the two)."""
    from passhat.examples import example_path

    argv = [str(example_path("tau-airline")) if a == "TAU" else a for a in argv]
    mods, printed = _modules_after(f"from passhat.cli import main; main({argv!r})")
    assert "│ gpt-4o-airline │    50 │  200 │        0 │ 2 │ 0.420 │  0.567 │  0.273 │" in printed
    assert sorted(set(NOT_FOR_A_CLOSED_FORM) & set(mods)) == []
    assert "scipy" not in mods


def test_estimate_of_a_file_with_an_unscored_run_goes_the_whole_way(tmp_path) -> None:
    """A file whose reading needs a rule (here an unscored run, counted in a note) is read
    by the whole reader, pandas and all, and says so."""
    from passhat.examples import example_path

    recs = json.loads(example_path("tau-airline").read_text())
    recs[0]["info"] = {"error": "harness crashed"}
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(recs))
    argv = ["estimate", "--format", "tau-bench", str(path), "--k", "1,2"]
    mods, printed = _modules_after(f"from passhat.cli import main; main({argv!r})")
    assert "1 unscored run(s)" in printed and "pandas" in mods


_COUNTS = "system,task_id,n,c\na,t1,4,4\na,t2,4,2\nb,t1,4,1\nb,t2,4,0\n"
_RUNS = "system,task_id,success\n" + "".join(
    f"{s},{t},{int(i < c)}\n" for s, t, c in (("a", "t1", 4), ("a", "t2", 2), ("b", "t1", 1),
                                             ("b", "t2", 0)) for i in range(4)
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "fmt"),
    [(_COUNTS, []), (_COUNTS, ["--format", "counts"]), (_RUNS, []), (_RUNS, ["--format", "csv"])],
)
def test_plain_estimate_of_a_csv_imports_no_table_library(tmp_path, text, fmt) -> None:
    """The same for a count table or a table of runs written as plain CSV (task_id, n, c or
    success, and system)."""
    path = tmp_path / "runs.csv"
    path.write_text(text)
    argv = ["estimate", *fmt, str(path), "--k", "1,2"]
    mods, printed = _modules_after(f"from passhat.cli import main; main({argv!r})")
    assert "│ a      │     2 │    8 │        0 │ 2 │ 0.750 │  0.917 │  0.583 │" in printed
    assert sorted(set(NOT_FOR_A_CLOSED_FORM) & set(mods)) == []
    assert "scipy" not in mods
