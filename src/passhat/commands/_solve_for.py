"""Options that solve for the quantity left out, and planner messages in the command's terms.

``passhat plan`` subcommands take several quantities and solve for the one not given;
:func:`leave_one_out` states that rule with the command's option names when it is broken,
and :func:`in_cli_terms` rewrites the planner's own messages (``half_width must …``) with
them (``--half-width must …``), so that a command-line user never reads a Python signature.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import click

from passhat.errors import OptionError

__all__ = ["cli_terms", "in_cli_terms", "leave_one_out"]


def leave_one_out(
    command: str,
    values: dict[str, Any],
    *,
    example: str,
    default: tuple[str, float] | None = None,
) -> list[Any]:
    """The values of ``--option: value``, all but one given; the rule in CLI terms otherwise.

    ``default`` fills an option that was left out together with another one
    (``--confidence`` 0.95: ``plan detect --flip-rate 0.1`` solves for the runs).

    Examples
    --------
    >>> leave_one_out("detect", {"--flip-rate": 0.1, "--confidence": None, "--runs": None},
    ...               example="--flip-rate 0.1", default=("--confidence", 0.95))
    [0.1, 0.95, None]
    >>> leave_one_out("width", {"--half-width": None, "--runs": None}, example="--runs 9")
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: plan width: give one of --half-width or --runs; the other is \
solved for (given: none); e.g. passhat plan width --runs 9
    """
    missing = [name for name, v in values.items() if v is None]
    if default is not None and len(missing) == 2 and default[0] in missing:
        values[default[0]] = default[1]
        missing.remove(default[0])
    if len(missing) != 1:
        names = list(values)
        rule = (
            f"give one of {names[0]} or {names[1]}; the other is solved for"
            if len(names) == 2
            else f"give all but one of {', '.join(names[:-1])} and {names[-1]}"
            + (f" ({default[0]} defaults to {default[1]:g})" if default else "")
            + "; the one left out is solved for"
        )
        given = [name for name in names if values[name] is not None]
        raise OptionError(
            f"plan {command}: {rule} (given: {', '.join(given) or 'none'}); "
            f"e.g. passhat plan {command} {example}"
        )
    return list(values.values())


def cli_terms(message: str, command: click.Command) -> str:
    """A planner message with its Python parameter names written as this command's options.

    ``budget_runs=`` and ``half_width must …`` become ``--budget-runs`` and
    ``--half-width must …``; names of no option (and one-letter names such as
    k, which read as plain words) are left alone.

    Examples
    --------
    >>> cmd = click.Command("width", params=[click.Option(["--half-width"], type=float)])
    >>> cli_terms("half_width must be below 0.5 (got 0.6)", cmd)
    '--half-width must be below 0.5 (got 0.6)'
    """
    for param in command.params:
        if not isinstance(param, click.Option) or not param.name:
            continue
        name = param.name.rstrip("_")
        opt = max(param.opts, key=len)
        if len(name) < 2 or not opt.startswith("--"):
            continue
        message = re.sub(rf"\b{name}=(?=[\s,;)]|$)", opt, message)
        message = re.sub(rf"\b{name} = ", f"{opt} ", message)
        message = re.sub(rf"^{name}\b", opt, message)
        if "_" in name:
            message = re.sub(rf"(?<![-\w]){name}\b", opt, message)
    return message


def in_cli_terms(f: Callable[..., Any]) -> Callable[..., Any]:
    """Re-raise the planner's option errors with the command's option names."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except OptionError as err:
            text = cli_terms(str(err), click.get_current_context().command)
            if text == str(err):
                raise
            raise OptionError(text) from err

    return wrapper
