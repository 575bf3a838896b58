"""The options every command shares, each defined once: ``--k``, ``--ci``, ``--seed``,
``--n-boot``, ``--json``; and :func:`command`, which maps a library error's parameter to the
option that set it.

A command declares ``@command("estimate")`` instead of ``@click.command("estimate")`` and
takes its shared options from here, so that an option reads the same (name, default, help)
on every command, and an :class:`~passhat.errors.OptionError` raised by the library with
``param="ci"`` reads ``--ci …`` on the command line.

Examples
--------
>>> from click.testing import CliRunner
>>> from passhat.errors import OptionError
>>> @command("demo")
... @ci_option()
... def demo(ci: float | None) -> None:
...     raise OptionError("{param} must lie in (0, 1), got " + str(ci), param="ci")
>>> result = CliRunner().invoke(demo, ["--ci", "2"])
>>> str(result.exception)
'--ci must lie in (0, 1), got 2.0'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from passhat._validate import DEFAULT_N_BOOT, DEFAULT_SEED
from passhat.errors import OptionError

__all__ = [
    "PasshatCommand",
    "ci_option",
    "command",
    "cost_of_option",
    "grader_options",
    "json_option",
    "k_option",
    "n_boot_option",
    "paper_option",
    "renamed_option",
    "say_deprecated",
    "seed_option",
]

F = TypeVar("F", bound=Callable[..., Any])


class PasshatCommand(click.Command):
    """A click command whose :class:`OptionError` names the option, not the API parameter.

    ``example`` (options that would work, ``--flip-rate 0.1``) replaces the Python example of
    an error that gives one (:attr:`OptionError.example`): ``e.g. passhat plan detect
    --flip-rate 0.1``.
    """

    def __init__(self, *args: Any, example: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.example = example

    def option_for(self, param: str) -> str:
        """The command-line spelling of the parameter ``param`` of the API: the option (or
        argument) of this command with that name, else ``--`` and the name with dashes."""
        for p in self.params:
            if p.name == param:
                if isinstance(p, click.Option):
                    return max(p.opts, key=len)
                return p.human_readable_name
        return "--" + param.replace("_", "-")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OptionError as err:
            for name in err.params:
                err.options.setdefault(name, self.option_for(name))
            if err.example is not None and self.example is not None:
                err.example = f"{command_path(ctx)} {self.example}"
            raise


def command_path(ctx: click.Context) -> str:
    """``passhat`` and the subcommands of ``ctx`` (``passhat plan detect``), however the
    program was started (a test runner, ``python -m``)."""
    names = []
    while ctx.parent is not None:
        names.append(str(ctx.info_name))
        ctx = ctx.parent
    return " ".join(["passhat", *reversed(names)])


def say_deprecated(old: str, new: str) -> None:
    """One line on stderr: ``old`` (an option or a subcommand) is deprecated in favour of
    ``new``, and goes in the next release."""
    click.echo(
        f"passhat: {old} is deprecated: use {new} (the old name goes in the next release)",
        err=True,
    )


def renamed_option(old: str, new: str, param: str, **kwargs: Any) -> Callable[[F], F]:
    """A hidden option ``old`` that sets the parameter ``param`` of the option ``new`` (its
    name before a rename), with a one-line deprecation note on stderr; ``kwargs`` (``type``)
    as for ``new``. Giving both is an error.
    """
    import functools

    from click.core import ParameterSource

    hidden = "renamed_" + old.lstrip("-").replace("-", "_")

    def deco(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args: Any, **kw: Any) -> Any:
            value = kw.pop(hidden)
            if value is not None:
                ctx = click.get_current_context()
                if ctx.get_parameter_source(param) is ParameterSource.COMMANDLINE:
                    raise OptionError(f"give {new} or {old} (its old name), not both")
                say_deprecated(old, new)
                kw[param] = value
            return f(*args, **kw)

        opt = click.option(old, hidden, default=None, hidden=True, **kwargs)
        return opt(wrapper)  # type: ignore[return-value]

    return deco


def command(name: str, **kwargs: Any) -> Callable[[Callable[..., Any]], PasshatCommand]:
    """``click.command`` with :class:`PasshatCommand` (errors name the option; ``example=``
    the options of an example call)."""
    return click.command(name, cls=PasshatCommand, **kwargs)


def _parse_k_callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Parse ``--k`` text (``1,2,5``, ``1-5``) into sorted ints; None stays None."""
    if value is None:
        return None
    from passhat.commands._common import parse_k

    return parse_k(str(value))


def k_option(
    *, single: bool = False, default: int | None = None, help: str | None = None
) -> Callable[[F], F]:
    """``--k``: the k of pass@k and pass^k.

    Several values (``1,2,5`` or ``1-5``; parsed to a sorted list) unless ``single``. With no
    default the command uses the one default rule (:func:`passhat.exclusions.default_ks`:
    1, 2 and 5, capped at the fewest decided runs).
    """
    if single:
        text = help or "k of pass@k and pass^k."
        return click.option(  # type: ignore[return-value]
            "--k", "k", type=click.IntRange(min=1), default=default, show_default=True, help=text
        )
    text = help or "k values: 1,2,5 or 1-5 [default: 1, 2, 5 capped at the fewest runs]."
    return click.option(  # type: ignore[return-value]
        "--k",
        "k",
        default=None if default is None else str(default),
        callback=_parse_k_callback,
        help=text,
    )


def ci_option(*, default: float | None = None, help: str | None = None) -> Callable[[F], F]:
    """``--ci``: the confidence level of the intervals (``0.95``); with no default, intervals
    are computed only when it is given."""
    text = help or (
        "Confidence level of the intervals, e.g. 0.95."
        if default is not None
        else "Confidence level, e.g. 0.95: add benchmark- and population-scope intervals."
    )
    return click.option(  # type: ignore[return-value]
        "--ci", "ci", type=float, default=default, show_default=default is not None, help=text
    )


def seed_option(*, help: str | None = None) -> Callable[[F], F]:
    """``--seed``: the seed of every random step (recorded in the output)."""
    return click.option(  # type: ignore[return-value]
        "--seed",
        "seed",
        type=click.IntRange(min=0),
        default=DEFAULT_SEED,
        show_default=True,
        help=help or "Seed of every random step (recorded in the output).",
    )


def weights_option(*, help: str | None = None) -> Callable[[F], F]:
    """``--weights``: the task weights of the averages over tasks (``equal``, ``declared``: the
    runs' ``weight`` column, ``category``: each category the same total weight)."""
    return click.option(  # type: ignore[return-value]
        "--weights",
        type=click.Choice(["equal", "declared", "category"]),
        default="equal",
        show_default=True,
        help=help or "Task weights in the benchmark average.",
    )


def cost_of_option() -> Callable[[F], F]:
    """``--cost-of {cost,duration}``: what the cost figures measure (the ``cost`` column or the
    ``duration_s`` column, in seconds); ``duration`` asks for the figures."""
    return click.option(  # type: ignore[return-value]
        "--cost-of",
        "cost_of",
        type=click.Choice(["cost", "duration"]),
        default="cost",
        show_default=True,
        help="What the cost figures measure: the cost column, or the duration_s column "
        "(seconds per run: duration per success, per all-k-pass, pass^k per second). "
        "'duration' turns the figures on.",
    )


def n_boot_option(*, help: str | None = None) -> Callable[[F], F]:
    """``--n-boot``: bootstrap resamples and posterior draws of the intervals."""
    return click.option(  # type: ignore[return-value]
        "--n-boot",
        "n_boot",
        type=int,
        default=DEFAULT_N_BOOT,
        show_default=True,
        help=help or "Bootstrap resamples and posterior draws of the intervals.",
    )


def json_option(*csv_keys: str | tuple[str, ...]) -> Callable[[F], F]:
    """``--json`` (the result's :meth:`~passhat._result.Result.to_dict` on stdout) and, when
    ``csv_keys`` are given, ``--csv`` (the first of those tables of the document, as CSV; a
    tuple of keys: their tables stacked as one, when the document holds them all)."""
    from passhat.commands._output import table_output

    def deco(f: F) -> F:
        g: Any = f
        if csv_keys:
            g = table_output(*csv_keys)(g)
        return click.option(  # type: ignore[no-any-return]
            "--json", "as_json", is_flag=True, help="Machine-readable output on stdout."
        )(g)

    return deco


def paper_option(*, scopes: Sequence[str] = ()) -> Callable[[F], F]:
    """``--latex`` and ``--markdown``: the result's table for papers on stdout
    (:meth:`~passhat._result.Result.to_latex` / ``to_markdown``) instead of the terminal's
    tables; with ``scopes``, ``--scope`` picks the scope of its intervals (default: the first).

    Flags beside ``--json`` and ``--csv``, the other output formats, so that ``--format`` keeps
    naming the input's format. Listed after :func:`json_option`, so that giving one with
    ``--json`` or ``--csv`` is refused. The command receives ``paper`` (None, ``"latex"`` or
    ``"markdown"``) and, with ``scopes``, ``scope``.

    Examples
    --------
    >>> from click.testing import CliRunner
    >>> @command("demo")
    ... @json_option()
    ... @paper_option(scopes=("population", "benchmark"))
    ... def demo(as_json: bool, paper: str | None, scope: str) -> None:
    ...     click.echo(f"{paper} {scope}")
    >>> CliRunner().invoke(demo, ["--markdown", "--scope", "benchmark"]).output
    'markdown benchmark\\n'
    >>> str(CliRunner().invoke(demo, ["--scope", "benchmark"]).exception)
    '--scope applies to the tables of --latex and --markdown'
    """
    import functools

    def deco(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args: Any, as_latex: bool, as_markdown: bool, **kw: Any) -> Any:
            if as_latex and as_markdown:
                raise OptionError("--latex and --markdown: choose one")
            paper = "latex" if as_latex else "markdown" if as_markdown else None
            if paper is not None and kw.get("as_json"):
                raise OptionError(f"--{paper}, --json and --csv: choose one")
            if scopes:
                if paper is None and kw["scope"] is not None:
                    raise OptionError("--scope applies to the tables of --latex and --markdown")
                kw["scope"] = kw["scope"] or scopes[0]
            return f(*args, paper=paper, **kw)

        g: Any = click.option(
            "--markdown",
            "as_markdown",
            is_flag=True,
            help="The table for a paper or a pull request, as Markdown, on stdout.",
        )(wrapper)
        g = click.option(
            "--latex",
            "as_latex",
            is_flag=True,
            help="The table for a paper, as LaTeX (booktabs), on stdout.",
        )(g)
        if scopes:
            g = click.option(
                "--scope",
                "scope",
                type=click.Choice(list(scopes)),
                default=None,
                help=f"Scope of the intervals in --latex / --markdown [default: {scopes[0]}].",
            )(g)
        return g  # type: ignore[no-any-return]

    return deco


def _parse_thresholds(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``0.5,0.8,1`` → [0.5, 0.8, 1.0]; the range is the library's to check."""
    import math

    if value is None:
        return None
    try:
        out = [float(v) for v in value.split(",")]  # an empty item is an error, not dropped
    except ValueError:
        out = [float("nan")]
    if not out or not all(math.isfinite(v) for v in out):
        raise click.BadParameter(f"{value!r} is not a comma-separated list of numbers")
    return out


def thresholds_option() -> Callable[[F], F]:
    """``--thresholds T1,T2,...``: the pass thresholds of the partial-credit curve (implies
    ``--scores``); the command receives ``thresholds`` (None or a list of floats)."""
    return click.option(
        "--thresholds",
        callback=_parse_thresholds,
        default=None,
        metavar="T1,T2,...",
        help="The pass thresholds of the --scores curve (implies --scores; default: the "
        "distinct scores, or 0, 0.05, ..., 1).",
    )


def _parse_audit(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``90,10,80,20`` → [90, 10, 80, 20]; the counts' rules are the library's to check."""
    if value is None:
        return None
    try:
        return [int(v) if v.strip().lstrip("-").isdigit() else float(v) for v in value.split(",")]
    except ValueError as err:
        raise click.BadParameter(
            f"{value!r} is not four comma-separated counts TP,FN,TN,FP"
        ) from err


def grader_options(*, audit: bool = True) -> Callable[[F], F]:
    """``--grader-sensitivity`` and ``--grader-specificity`` (parameters ``sensitivity``,
    ``specificity``) and, with ``audit``, ``--grader-audit TP,FN,TN,FP`` (``audit``) and
    ``--grader-truth COLUMN`` (``truth``): a noisy grader's error (:mod:`passhat.graders`)."""

    def deco(f: F) -> F:
        g: Any = f
        if audit:
            g = click.option(
                "--grader-truth",
                "truth",
                default=None,
                metavar="COLUMN",
                help="The column holding the true label of the audited runs (empty where not "
                "audited): the grader's sensitivity and specificity are counted from them.",
            )(g)
            g = click.option(
                "--grader-audit",
                "audit",
                callback=_parse_audit,
                default=None,
                metavar="TP,FN,TN,FP",
                help="Audit counts of the grader: TP, FN among truly passing runs, TN, FP among "
                "truly failing runs (their uncertainty enters the intervals).",
            )(g)
        g = click.option(
            "--grader-specificity",
            "specificity",
            type=float,
            default=None,
            help="The grader's specificity: the share of truly failing runs it fails.",
        )(g)
        g = click.option(
            "--grader-sensitivity",
            "sensitivity",
            type=float,
            default=None,
            help="The grader's sensitivity: the share of truly passing runs it passes"
            + (" (stated values: the intervals ignore their uncertainty)." if audit else "."),
        )(g)
        return g  # type: ignore[no-any-return]

    return deco
