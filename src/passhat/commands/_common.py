"""Helpers shared by the CLI command modules (input options, k parsing; output in ``_output``).

Kept apart from :mod:`passhat.cli` so that a command module can be imported
on its own without a circular import.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import click

from passhat._format import num
from passhat._result import records
from passhat.commands._notes import PENDING_NOTES, flush_notes
from passhat.commands._output import emit_json
from passhat.errors import EXIT_INPUT, OptionError
from passhat.examples import EXAMPLES

if TYPE_CHECKING:  # the readers (pandas, xarray) load when a command reads its input
    import xarray as xr

    from passhat.trials import Trials

__all__ = [
    "EXIT_INPUT",
    "InputSpec",
    "check_path_given",
    "default_ks",
    "emit_json",
    "flush_notes",
    "fmt_num",
    "input_options",
    "load_input",
    "parse_k",
    "quiet_option",
    "records",
    "unscored_tasks_option",
]

# ------------------------------------------------------------------ helpers
#: Most values a list option may expand to (``1-1000000000`` must not build 10^9 ints).
MAX_LIST_VALUES = 100_000

#: True while a command runs with ``--quiet``: the reader's notes are not queued.
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("passhat_quiet", default=False)


def quiet_option(
    help: str = "No notes or progress, only the result.",
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--quiet``/``-q`` for a command: while it runs, the reader's notes (which column was read
    as the system, ...) are not printed and Python warnings are silenced, whichever reader the
    command calls. The command receives ``quiet`` when its signature asks for it (to skip its own
    notes and progress bars).

    Examples
    --------
    >>> @click.command()
    ... @quiet_option()
    ... def cmd() -> None:
    ...     click.echo("quiet" if _QUIET.get() else "loud")
    >>> from click.testing import CliRunner
    >>> CliRunner().invoke(cmd, ["-q"]).output
    'quiet\\n'
    """

    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        params = inspect.signature(f).parameters
        wants = "quiet" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())

        @functools.wraps(f)
        def wrapper(*args: Any, quiet: bool = False, **kwargs: Any) -> Any:
            if wants:
                kwargs["quiet"] = quiet
            token = _QUIET.set(quiet)
            try:
                with warnings.catch_warnings() if quiet else contextlib.nullcontext():
                    if quiet:
                        warnings.simplefilter("ignore")
                    return f(*args, **kwargs)
            finally:
                _QUIET.reset(token)

        return click.option("--quiet", "-q", "quiet", is_flag=True, help=help)(wrapper)

    return deco


def default_ks(data: Trials | xr.Dataset) -> list[int]:
    """The k shown when ``--k`` is not given: :func:`passhat.exclusions.default_ks`.

    The API (:func:`passhat.report` without ``k``) uses the same function, so the
    two never disagree.
    """
    from passhat.exclusions import default_ks as _default_ks

    return _default_ks(data)


def parse_k(text: str, *, option: str = "--k") -> list[int]:
    """Parse ``1,2,5`` or ``1-5`` (or a mix) into sorted distinct ints ≥ 1.

    ``option`` names the option in error messages (``--grid-tasks``, ...).
    """
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        is_range = "-" in part[1:]
        try:
            a, b = (int(x) for x in part.split("-", 1)) if is_range else (int(part),) * 2
        except ValueError as err:
            raise OptionError(
                f"{option}: {part!r} is not a whole number or range like 1-5"
            ) from err
        if a > b:
            raise OptionError(f"{option}: range {part!r} runs backwards")
        if b - a + 1 > MAX_LIST_VALUES:
            raise OptionError(
                f"{option}: range {part!r} has {b - a + 1} values; at most {MAX_LIST_VALUES}"
            )
        out.update(range(a, b + 1))
    if not out:
        raise OptionError(f"{option}: give at least one value, e.g. {option} 1,2,5")
    if len(out) > MAX_LIST_VALUES:
        raise OptionError(f"{option}: {len(out)} values; at most {MAX_LIST_VALUES}")
    if min(out) < 1:
        noun = "k" if option == "--k" else "values"
        raise OptionError(f"{option}: {noun} must be ≥ 1 (got {min(out)})")
    return sorted(out)


def _parse_map(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise OptionError(f"--map {item!r}: write FIELD=COLUMN, e.g. --map task=question_id")
        key, val = item.split("=", 1)
        key, val = key.strip(), val.strip()
        if out.get(key, val) != val:  # the last one would win without a word
            raise OptionError(f"--map {key}= given twice ({out[key]!r} and {val!r}); give it once")
        out[key] = val
    return out


def load_input(
    path: str | None,
    *,
    example: str | None,
    fmt: str | None,
    maps: Sequence[str] = (),
    threshold: float | None = None,
    system_name: str | None = None,
    quiet: bool = False,
    scheduler: str | None = None,
    runs: bool = False,
) -> Trials | xr.Dataset:
    """Read the command's input: a file, or a bundled example (``quiet``, or a command run with
    ``--quiet``: no reader notes). An empty path is refused (an unset shell variable), not read
    as the current directory. ``scheduler``: count the runs on a dask cluster
    (:func:`passhat.read_counts`). ``runs``: the command needs every run (statuses), so a
    single file is read whole however many rows it has, not counted as it streams."""
    from passhat.examples import load_example
    from passhat.io import read
    from passhat.trials import Trials

    if example is not None and path is not None:
        raise OptionError("give an input file or --example, not both")
    if example is not None:
        if scheduler is not None:
            raise OptionError("--scheduler counts runs read from files, not --example")
        return load_example(example)
    if path is None:
        raise OptionError("no input: give a file (or --example NAME)")
    check_path_given(path)
    options: dict[str, Any] = _parse_map(maps)
    if threshold is not None:
        options["threshold"] = threshold
    if system_name is not None:
        options["system_name"] = system_name
    if scheduler is not None:
        from passhat.io import read_counts

        data: Trials | xr.Dataset = read_counts(path, format=fmt, scheduler=scheduler, **options)
    else:
        whole = runs and os.path.isfile(path)
        data = read(path, format=fmt, aggregate=False if whole else None, **options)
    notes = data.notes if isinstance(data, Trials) else data.attrs.get("notes", [])
    for note in () if quiet or _QUIET.get() else notes:
        PENDING_NOTES.append(f"passhat: note: {note}")  # stderr at the end: flush_notes
    return data


def check_path_given(path: str, *, option: str = "the input path") -> None:
    """Refuse an empty (or blank) path: read as-is it would be the current directory.

    Examples
    --------
    >>> check_path_given("")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: the input path is empty (an unset variable?); give a file ...
    """
    if not str(path).strip():
        raise OptionError(f"{option} is empty (an unset variable?); give a file or directory")


@dataclass(frozen=True)
class InputSpec:
    """What the shared input options said: a file or a bundled example, and how to read it."""

    path: str | None = None
    example: str | None = None
    fmt: str | None = None
    maps: tuple[str, ...] = ()
    threshold: float | None = None
    system_name: str | None = None
    scheduler: str | None = None

    @property
    def given(self) -> bool:
        """Whether a file or an example was named."""
        return self.path is not None or self.example is not None

    def load(self, *, quiet: bool = False, runs: bool = False) -> Trials | xr.Dataset:
        """Read the input (see :func:`load_input`; ``runs``: keep every run of a file)."""
        return load_input(
            self.path,
            example=self.example,
            fmt=self.fmt,
            maps=self.maps,
            threshold=self.threshold,
            system_name=self.system_name,
            quiet=quiet,
            scheduler=self.scheduler,
            runs=runs,
        )


@overload
def input_options(f: Callable[..., Any], /) -> Callable[..., Any]: ...


@overload
def input_options(
    *, bare_example: str | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...


def input_options(
    f: Callable[..., Any] | None = None, /, *, bare_example: str | None = None
) -> Any:
    """Options shared by every command that reads trial data.

    The command receives them as one ``source: InputSpec`` argument. Use it bare
    (``@input_options``) or with ``bare_example``, the example that ``--example``
    given without a name means (click's optional option value, ``flag_value``):
    ``@input_options(bare_example="agents")``.
    """
    if f is None:
        return functools.partial(_input_options, bare_example=bare_example)
    return _input_options(f, bare_example=bare_example)


def _input_options(f: Callable[..., Any], *, bare_example: str | None) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(
        *args: Any,
        path: str | None,
        example: str | None,
        fmt: str | None,
        maps: tuple[str, ...],
        threshold: float | None,
        system_name: str | None,
        scheduler: str | None,
        **kwargs: Any,
    ) -> Any:
        spec = InputSpec(path, example, fmt, tuple(maps), threshold, system_name, scheduler)
        return f(*args, source=spec, **kwargs)

    g: Callable[..., Any] = wrapper
    g = click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Count the runs of a directory of part files on a dask cluster: its scheduler's "
        "address (tcp://host:8786), or 'local' for a local cluster.",
    )(g)
    g = click.option("--system-name", default=None, help="System name when the file has none.")(g)
    g = click.option(
        "--threshold", type=float, default=None, help="Numeric score → success when ≥ this."
    )(g)
    g = click.option(
        "--map",
        "maps",
        multiple=True,
        metavar="FIELD=COLUMN",
        help="Column map for tidy files, e.g. --map task=question_id --map success=passed.",
    )(g)
    g = click.option("--format", "fmt", default=None, help="Input format (sniffed when omitted).")(
        g
    )
    bare: dict[str, Any] = {}
    if bare_example is not None:  # `--example` alone takes this value
        bare = {"is_flag": False, "flag_value": bare_example}
    g = click.option(
        "--example",
        type=click.Choice(sorted(EXAMPLES)),
        default=None,
        help="Use a bundled example instead of a file"
        + (f" (alone: {bare_example!r})." if bare_example is not None else "."),
        **bare,
    )(g)
    g = click.argument("path", required=False, type=click.Path(dir_okay=True, readable=False))(g)
    return g


def unscored_tasks_option(*, impute: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """``--unscored-tasks``: the rule for tasks with no decided run (:mod:`passhat.exclusions`).

    ``impute=True`` adds the model's third choice (``fit``).
    """
    choices = ["exclude", "error", *(["impute"] if impute else [])]
    extra = ", or keep with rates drawn from the fitted distribution" if impute else ""
    return click.option(
        "--unscored-tasks",
        type=click.Choice(choices),
        default="exclude",
        show_default=True,
        help="Tasks with no decided run (every run unscored): leave out and list, or refuse"
        f"{extra}.",
    )


#: The table cells' number format (kept under this name for the command modules).
fmt_num = num
