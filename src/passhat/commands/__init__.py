"""CLI subcommands, one module per topic, imported only when their command is used.

Each module ``passhat.commands.<name>`` defines the command ``<name>`` and a
``register(cli: click.Group) -> None`` that attaches it; a module named
``<name>_<part>`` adds to that command (``plan_power`` attaches ``plan power``
and ``plan more-runs`` to the ``plan`` group), and modules starting with ``_``
are helpers. :class:`LazyGroup` lists the commands from :data:`COMMANDS`
(name → one-line help) without importing any of them, so ``passhat --help``
loads neither pandas, xarray, SciPy nor PyMC; a command's modules are
imported when that command runs or shows its own help. Adding a command: its
module, one line in :data:`COMMANDS` and one branch in
:func:`command_modules` (``tests/test_cli_startup.py`` fails when they
disagree, or when a line's help differs from the command's own).

Examples
--------
>>> import click
>>> from passhat.commands import LazyGroup
>>> group = LazyGroup("demo")
>>> "estimate" in group.list_commands(click.Context(group))
True
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import click

__all__ = ["COMMANDS", "LazyGroup", "OutputGone"]

#: Every subcommand and its one-line help, as ``passhat --help`` lists them.
COMMANDS: dict[str, str] = {
    "compare": "Paired difference CAND − BASE on matched tasks, with intervals and p-values.",
    "estimate": "Mean success, pass@k and pass^k per system (unbiased, per task, then averaged).",
    "fit": "Posterior of mean, pass@k and pass^k in two scopes, with diagnostics and checks.",
    "gate": "Pass, fail or continue: a gate on RUNS that stays valid however often it is checked.",
    "plan": "How many runs, tasks and dollars: closed forms, budget design, power.",
    "rank": "Leaderboard of several systems on the same tasks: rank intervals, group letters.",
    "report": "Write the reliability report of RUNS (one file or several: each file's systems, "
    "a file without a system column named after the file) or --example NAME into -o DIR.",
    "slices": "Counts and rates of runs by status and category, per system.",
    "spread": "Measured pass^k against the uniform-spread reference Mean^k.",
    "traces": "Where failing runs diverge from passing runs, per task with mixed outcomes.",
}


class OutputGone(Exception):
    """The reader of the output went away (``passhat ... | head -1``): not an OSError, so that
    click does not turn it into exit status 1 (a failed gate's alone); :func:`passhat.cli.main`
    ends quietly with the I/O status."""


def command_modules(name: str) -> list[ModuleType]:
    """The modules that define the command ``name`` (its module and its parts), imported here,
    when the command is first used."""
    if name == "compare":
        from passhat.commands import compare

        return [compare]
    if name == "estimate":
        from passhat.commands import estimate

        return [estimate]
    if name == "fit":
        from passhat.commands import fit

        return [fit]
    if name == "gate":
        from passhat.commands import gate

        return [gate]
    if name == "plan":
        from passhat.commands import plan, plan_audit, plan_next, plan_power

        return [plan, plan_audit, plan_next, plan_power]
    if name == "rank":
        from passhat.commands import rank

        return [rank]
    if name == "report":
        from passhat.commands import report

        return [report]
    if name == "slices":
        from passhat.commands import slices

        return [slices]
    if name == "spread":
        from passhat.commands import spread

        return [spread]
    if name == "traces":
        from passhat.commands import traces

        return [traces]
    return []


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use.

    The listing in ``--help`` comes from :data:`COMMANDS`; :meth:`get_command`
    imports ``passhat.commands.<name>`` and lets it register its command.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Names of the subcommands (no import)."""
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The subcommand ``cmd_name``, importing its module (and its parts) the first time."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            for module in command_modules(cmd_name):
                module.register(self)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; a closed output pipe becomes :class:`OutputGone`, and an
        :class:`EOFError` that escaped a library a bug report (click reads it as Ctrl-D at a
        prompt: "interrupted", status 130)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError as err:
            raise OutputGone from err
        except EOFError as err:
            raise RuntimeError(f"EOFError: {err}") from err

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The "Commands:" part of ``--help``, from :data:`COMMANDS` (no import)."""
        limit = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        rows = []
        for name in self.list_commands(ctx):
            loaded = self.commands.get(name)
            if loaded is not None and loaded.hidden:
                continue
            shown = loaded or click.Command(name, help=COMMANDS[name])  # same shortening
            rows.append((name, shown.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
