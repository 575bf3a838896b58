"""Command-line interface: parse → API → write. No statistics here.

Every command prints one line (``passhat: error: ...``) and exits with
status 2 on bad input; it never shows a traceback for a
:class:`~passhat.errors.PasshatError`. Listing the commands (``passhat --help``)
imports none of them: see :mod:`passhat.commands`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from passhat.commands import EXIT_INPUT, LazyGroup
from passhat.errors import PasshatError

__all__ = ["EXIT_INPUT", "cli", "main"]


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version (looked up only when asked: it costs ~0.1 s)."""
    if not value or ctx.resilient_parsing:
        return
    from passhat._version import __version__

    click.echo(f"passhat, version {__version__}")
    ctx.exit()


# ------------------------------------------------------------------ commands
@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """passhat: pass@k, pass^k and mean success of repeated agent trials."""


# Commands live in passhat.commands, one module per topic, imported when used.


# --------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``passhat`` console script."""
    try:
        rv = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except PasshatError as err:
        click.echo(f"passhat: error: {err}", err=True)
        return EXIT_INPUT
    except click.exceptions.Abort:
        click.echo("passhat: aborted", err=True)
        return 130
    except click.ClickException as err:
        click.echo(f"passhat: error: {err.format_message()}", err=True)
        return err.exit_code
    except click.exceptions.Exit as err:
        return int(err.exit_code)
    except (OSError, MemoryError) as err:
        click.echo(f"passhat: error: {err}", err=True)
        return 1
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
