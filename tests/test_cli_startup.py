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
