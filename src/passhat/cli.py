"""Command-line interface: parse → API → write. No statistics here.

Every command prints one line (``passhat: error: ...``) and exits with
status 2 on bad input; it never shows a traceback for a
:class:`~passhat.errors.PasshatError`.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click
import numpy as np
import pandas as pd
import xarray as xr

from passhat import __version__
from passhat.errors import OptionError, PasshatError
from passhat.examples import EXAMPLES, load_example
from passhat.io import read
from passhat.trials import Trials

__all__ = ["cli", "main"]

EXIT_INPUT = 2


# ------------------------------------------------------------------ helpers
def parse_k(text: str) -> list[int]:
    """Parse ``1,2,5`` or ``1-5`` (or a mix) into sorted distinct ints ≥ 1."""
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part[1:]:
                lo, hi = part.split("-", 1)
                a, b = int(lo), int(hi)
                if a > b:
                    raise OptionError(f"--k: range {part!r} runs backwards")
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError as err:
            raise OptionError(f"--k: {part!r} is not a whole number or range like 1-5") from err
    if not out:
        raise OptionError("--k: give at least one value, e.g. --k 1,2,5")
    if min(out) < 1:
        raise OptionError(f"--k: k must be ≥ 1 (got {min(out)})")
    return sorted(out)


def _parse_map(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise OptionError(f"--map {item!r}: write FIELD=COLUMN, e.g. --map task=question_id")
        key, val = item.split("=", 1)
        out[key.strip()] = val.strip()
    return out


def load_input(
    path: str | None,
    *,
    example: str | None,
    fmt: str | None,
    maps: Sequence[str] = (),
    threshold: float | None = None,
    system_name: str | None = None,
) -> Trials | xr.Dataset:
    """Read the command's input: a file, or a bundled example."""
    if example is not None and path is not None:
        raise OptionError("give an input file or --example, not both")
    if example is not None:
        return load_example(example)
    if path is None:
        raise OptionError("no input: give a file (or --example NAME)")
    options: dict[str, Any] = _parse_map(maps)
    if threshold is not None:
        options["threshold"] = threshold
    if system_name is not None:
        options["system_name"] = system_name
    return read(path, format=fmt, **options)


def input_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that reads trial data."""
    f = click.option("--system-name", default=None, help="System name when the file has none.")(f)
    f = click.option(
        "--threshold", type=float, default=None, help="Numeric score → success when ≥ this."
    )(f)
    f = click.option(
        "--map",
        "maps",
        multiple=True,
        metavar="FIELD=COLUMN",
        help="Column map for tidy files, e.g. --map task=question_id --map success=passed.",
    )(f)
    f = click.option("--format", "fmt", default=None, help="Input format (sniffed when omitted).")(
        f
    )
    f = click.option(
        "--example",
        type=click.Choice(sorted(EXAMPLES)),
        default=None,
        help="Use a bundled example instead of a file.",
    )(f)
    f = click.argument("path", required=False, type=click.Path(dir_okay=True))(f)
    return f


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows as JSON-safe dicts (NaN → null)."""
    return [_jsonable(r) for r in df.to_dict(orient="records")]


def emit_json(payload: dict[str, Any]) -> None:
    """Write a JSON document to stdout."""
    click.echo(json.dumps(_jsonable(payload), indent=2, sort_keys=False))


def input_stamp(data: Trials | xr.Dataset) -> dict[str, Any]:
    """Provenance of the input for machine-readable output."""
    if isinstance(data, Trials):
        return {k: str(v) for k, v in data.source.items()}
    return {
        k.removeprefix("source_"): str(v) for k, v in data.attrs.items() if k.startswith("source_")
    }


def fmt_num(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


# ------------------------------------------------------------------ commands
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="passhat")
def cli() -> None:
    """passhat: pass@k, pass^k and mean success of repeated agent trials."""


# Commands of the other topics live in passhat.commands (one module each).
from passhat.commands import register_all  # noqa: E402

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
    except (OSError, MemoryError) as err:
        click.echo(f"passhat: error: {err}", err=True)
        return 1
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
