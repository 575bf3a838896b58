"""Command-line interface: parse → API → write. No statistics here.

Every command prints one line (``passhat: error: ...``) and exits with
status 2 on bad input; it never shows a traceback for a
:class:`~passhat.errors.PasshatError`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from passhat._version import __version__
from passhat.commands import register_all
from passhat.commands._common import (  # re-exported for callers of passhat.cli
    EXIT_INPUT,
    emit_json,
    fmt_num,
    input_options,
    input_stamp,
    load_input,
    parse_k,
    records,
)
from passhat.errors import PasshatError

__all__ = [
    "EXIT_INPUT",
    "cli",
    "emit_json",
    "fmt_num",
    "input_options",
    "input_stamp",
    "load_input",
    "main",
    "parse_k",
    "records",
]


# ------------------------------------------------------------------ commands
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="passhat")
def cli() -> None:
    """passhat: pass@k, pass^k and mean success of repeated agent trials."""


# Commands live in passhat.commands, one module per topic.
register_all(cli)


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
    except MemoryError:
        click.echo(
            "passhat: error: out of memory; the input is too large to hold here (tidy trial "
            "files, directories and globs are counted out of core: see docs/guide/inputs.md)",
            err=True,
        )
        return 4
    except OSError as err:
        click.echo(f"passhat: error: {err}", err=True)
        return 1
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
