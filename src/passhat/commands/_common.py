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

    from passhat._repr import Display
    from passhat.trials import Trials

__all__ = [
    "EXIT_INPUT",
    "InputSpec",
    "ReadOptions",
    "check_path_given",
    "cluster_options",
    "clustered_input",
    "clustered_spec",
    "default_ks",
    "emit_json",
    "flush_notes",
    "fmt_num",
    "input_options",
    "load_input",
    "parse_k",
    "plain_estimate",
    "quiet_option",
    "reading_options",
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
    prefix: bool = False,
) -> Trials | xr.Dataset:
    """Read the command's input: a file, or a bundled example (``quiet``, or a command run with
    ``--quiet``: no reader notes; ``prefix``: each note names the file, one of several). An
    empty path is refused (an unset shell variable), not read as the current directory.
    ``scheduler``: count the runs on a dask cluster (:func:`passhat.read_counts`). ``runs``:
    the command needs every run (statuses), so a single file is read whole however many rows
    it has, not counted as it streams."""
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
    _queue([f"{path}: {n}" if prefix else n for n in notes], quiet)  # stderr at the end
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


def _name_targets(
    values: Sequence[str], paths: Sequence[str], extra: Sequence[str] = ()
) -> dict[str, str]:
    """``--system-name`` values as {path: name}: ``FILE=NAME`` (FILE one of ``paths`` or
    ``extra``: as typed, the same file, or its file name when no other input has it), or a
    plain NAME when there is one path (not counting ``extra``)."""
    out: dict[str, str] = {}
    for value in values:
        key, _, name = value.partition("=")
        target = _match_path(key.strip(), [*paths, *extra]) if name else None
        if target is None:
            if len(paths) != 1:
                shown = ", ".join([*paths, *extra]) or "none"
                raise OptionError(
                    f"--system-name {value!r}: with several inputs write FILE=NAME, FILE one "
                    f"of the inputs ({shown})"
                )
            if name and _looks_like_a_file(key.strip()):
                raise OptionError(
                    f"--system-name {value!r}: {key.strip()} is not an input (the input: "
                    f"{paths[0]}); write NAME alone, or FILE=NAME with FILE the input"
                )
            target, name = paths[0], value  # as given: the reader checks the name
        elif not name.strip():
            raise OptionError(f"--system-name {value!r}: give a name after the =")
        if out.get(target, name) != name:
            raise OptionError(
                f"--system-name names {target} twice ({out[target]!r} and {name!r}); give it once"
            )
        out[target] = name
    return out


#: File name endings of passhat's inputs: ``--system-name KEY=NAME`` with such a KEY names a file.
_INPUT_SUFFIXES = frozenset(
    {".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson", ".parquet", ".eval", ".zip", ".gz"}
)


def _looks_like_a_file(key: str) -> bool:
    """Whether ``KEY`` of ``--system-name KEY=NAME`` names a file (one that exists, or a name
    with an input's ending) rather than being part of a name such as ``org/model=temp0``.

    Examples
    --------
    >>> _looks_like_a_file("runs/a.csv"), _looks_like_a_file("temp"), _looks_like_a_file("org/m")
    (True, False, False)
    """
    from pathlib import Path

    if Path(key).suffix.lower() in _INPUT_SUFFIXES:
        return True
    try:
        return Path(key).exists() if key else False
    except OSError:
        return False


def _match_path(key: str, paths: Sequence[str]) -> str | None:
    """The input path ``key`` names: the path as typed, the same file, or a unique file name."""
    from pathlib import Path

    if key in paths:
        return key
    for p in paths:
        try:
            if Path(key).exists() and Path(key).resolve() == Path(p).resolve():
                return p
        except OSError:
            continue
    by_name = [p for p in paths if key in (Path(p).name, Path(p).stem)]
    return by_name[0] if len(by_name) == 1 else None


@dataclass(frozen=True)
class InputSpec:
    """What the shared input options said: files (RUNS) or a bundled example, how to read
    them, the names of files' systems (``--system-name``) and the systems to use
    (``--system``).

    ``load`` reads every file and gives one input (several files combined, systems named
    after the files that name none: :func:`passhat.inputs.combine_inputs`); ``inputs`` gives
    them one by one (``rank``, ``compare``); ``read`` reads another file the same way
    (``gate --baseline``).
    """

    paths: tuple[str, ...] = ()
    example: str | None = None
    fmt: str | None = None
    maps: tuple[str, ...] = ()
    threshold: float | None = None
    system_names: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    keep: bool = True  # --system keeps these systems (else the command uses the one named)
    scheduler: str | None = None  # --scheduler: count the runs on a dask cluster
    ignore_clusters: bool = False  # --ignore-clusters: each input read without its clusters
    cluster_column: str | None = None  # --cluster COLUMN (also in maps as cluster=COLUMN)

    @property
    def given(self) -> bool:
        """Whether a file or an example was named."""
        return bool(self.paths) or self.example is not None

    @property
    def system(self) -> str | None:
        """The one system named with ``--system`` (commands that take one)."""
        return self.systems[0] if self.systems else None

    @property
    def where(self) -> str:
        """How messages name the input: its files, or the example."""
        return ", ".join(self.paths) if self.paths else f"example {self.example}"

    def _names(self, extra: Sequence[str] = ()) -> dict[str, str]:
        return _name_targets(self.system_names, self.paths, extra)

    def trace_name(self, path: str) -> str | None:
        """The system name of a trace file: ``--system-name PATH=NAME``, else the one
        input's ``--system-name NAME`` (the traces of the same runs)."""
        names = self._names([path])
        if path in names:
            return names[path]
        return names.get(self.paths[0]) if len(self.paths) == 1 else None  # the same runs

    def read(self, path: str, *, quiet: bool = False, extra: Sequence[str] = ()) -> Any:
        """Read one more file (``extra``: files besides RUNS that ``--system-name`` may name)
        with the reading options and the name ``--system-name`` gives it."""
        return load_input(
            path,
            example=None,
            fmt=self.fmt,
            maps=self.maps,
            threshold=self.threshold,
            system_name=self._names([*extra, path]).get(path),  # only FILE=NAME names it
            quiet=quiet,
            prefix=len(self.paths) > 1,
        )

    def inputs(
        self, *, quiet: bool = False, extra: Sequence[str] = (), runs: bool = False
    ) -> list[Any]:
        """Each file read (or the example), in order; with ``--system`` (and ``keep``) only
        the inputs' systems named, after the files' systems are named (``runs``: keep every
        run of a file, see :func:`load_input`)."""
        if self.example is not None and self.paths:
            raise OptionError("give input files or --example, not both")
        if self.example is not None:  # load_input refuses --scheduler with it
            data: list[Trials | xr.Dataset] = [
                load_input(None, example=self.example, fmt=None, scheduler=self.scheduler)
            ]
        elif not self.paths:
            raise OptionError("no input: give a file (or --example NAME)")
        else:
            names = self._names(extra)
            data = [
                load_input(
                    p,
                    example=None,
                    fmt=self.fmt,
                    maps=self.maps,
                    threshold=self.threshold,
                    system_name=names.get(p),
                    quiet=quiet,
                    scheduler=self.scheduler,
                    runs=runs,
                    prefix=len(self.paths) > 1,
                )
                for p in self.paths
            ]
        if self.ignore_clusters:
            from passhat.clusters import without_clusters

            data = without_clusters(data)
        if not (self.keep and self.systems):
            return data
        from passhat.inputs import keep_systems, name_systems

        named, notes = name_systems(data)
        _queue(notes, quiet)
        return keep_systems(named, self.systems)

    def plain_file(self) -> tuple[str, str] | None:
        """(format, path) of the one file these options read as it is, with no other reading
        option: a τ-bench file (``--example`` of a τ-bench example, or ``--format tau-bench``)
        or a ``.csv`` file (``--format counts`` or ``csv``, or none: ``""``, the header says
        which); None otherwise."""
        from passhat.examples import EXAMPLES, example_path

        others = (self.maps, self.threshold, self.system_names, self.systems, self.scheduler,
                  self.ignore_clusters, self.cluster_column)  # fmt: skip
        if any(v not in (None, (), False) for v in others):
            return None
        fmt = (self.fmt or "").lower().replace("_", "-")
        if self.example is not None and not self.paths and not fmt:
            if EXAMPLES.get(self.example, (None, None))[1] == "tau-bench":
                return "tau-bench", str(example_path(self.example))
            return None
        if self.example is not None or len(self.paths) != 1:
            return None
        path = self.paths[0]
        if not (path.strip() and os.path.isfile(path)):
            return None
        if fmt == "tau-bench":
            return fmt, path
        if fmt in ("", "counts", "csv") and path.lower().endswith(".csv"):
            return fmt, path
        if not fmt and _sniffed(path) == "tau-bench":
            return "tau-bench", path
        return None

    def load(
        self, *, quiet: bool = False, extra: Sequence[str] = (), runs: bool = False
    ) -> Trials | xr.Dataset:
        """One input: the file or example, or every file's systems combined (``extra``: other
        files ``--system-name FILE=NAME`` may name, read with :meth:`read`; ``runs``: keep
        every run of a file)."""
        data = self.inputs(quiet=quiet, extra=extra, runs=runs)
        if len(data) == 1:
            return data[0]
        from passhat.inputs import check_distinct, join_inputs, name_systems

        named, notes = name_systems(data)
        _queue(notes, quiet)
        check_distinct(named)
        return join_inputs(named, data, notes=notes)  # type: ignore[no-any-return]


def _sniffed(path: str) -> str | None:
    """The format :func:`passhat.read` would sniff for a file (its registry's sniffers, which
    import no reader), or None when it would find none or stop at an error (the whole reading
    reports it)."""
    from pathlib import Path

    from passhat.errors import PasshatError
    from passhat.io._registry import file_head, sniff

    try:
        found = sniff(Path(path), file_head(Path(path)))
    except (PasshatError, OSError):
        return None
    return None if found is None else found.name


def _queue(notes: Sequence[str], quiet: bool) -> None:
    """Queue notes for stderr (printed when the command ends), unless quiet."""
    for note in () if quiet or _QUIET.get() else notes:
        PENDING_NOTES.append(f"passhat: note: {note}")


@overload
def input_options(f: Callable[..., Any], /) -> Callable[..., Any]: ...


@overload
def input_options(
    *, bare_example: str | None = None, system: str = "keep"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...


def input_options(
    f: Callable[..., Any] | None = None,
    /,
    *,
    bare_example: str | None = None,
    system: str = "keep",
) -> Any:
    """Options shared by every command that reads runs: RUNS (one file or several),
    ``--example``, ``--format``, ``--map``, ``--threshold``, ``--system-name`` and ``--system``.

    The command receives them as one ``source: InputSpec`` argument. Use it bare
    (``@input_options``) or with ``bare_example``, the example that ``--example``
    given without a name means (click's optional option value, ``flag_value``):
    ``@input_options(bare_example="agents")``. ``system``: ``"keep"`` — ``--system NAME``
    (repeatable) keeps only those systems; ``"one"`` — it names the one system the command
    uses (:attr:`InputSpec.system`); ``"none"`` — no ``--system`` (the command has its own).
    """
    if f is None:
        return functools.partial(_input_options, bare_example=bare_example, system=system)
    return _input_options(f, bare_example=bare_example, system=system)


def _system_option(system: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    if system == "one":
        return click.option(
            "--system",
            "systems",
            default=None,
            callback=lambda ctx, param, v: () if v is None else (v,),
            help="The system to use when the input holds several.",
        )
    return click.option(
        "--system",
        "systems",
        multiple=True,
        metavar="NAME",
        help="Use only this system of the input(s) (repeatable).",
    )


def _input_options(
    f: Callable[..., Any], *, bare_example: str | None, system: str
) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(
        *args: Any,
        paths: tuple[str, ...],
        example: str | None,
        reading: ReadOptions,
        scheduler: str | None,
        systems: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> Any:
        spec = InputSpec(
            paths=tuple(paths),
            example=example,
            fmt=reading.fmt,
            maps=reading.maps,
            threshold=reading.threshold,
            system_names=reading.system_names,
            systems=tuple(systems),
            keep=system == "keep",
            scheduler=scheduler,
        )
        return f(*args, source=spec, **kwargs)

    g: Callable[..., Any] = wrapper
    if system != "none":
        g = _system_option(system)(g)
    g = click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Count the runs of a directory of part files on a dask cluster: its scheduler's "
        "address (tcp://host:8786), or 'local' for a local cluster.",
    )(g)
    g = reading_options()(g)
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
    g = click.argument(
        "paths", nargs=-1, metavar="[RUNS]...", type=click.Path(dir_okay=True, readable=False)
    )(g)
    return g


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file of runs: ``--format``, ``--map``, ``--threshold`` and
    ``--system-name`` (:func:`reading_options`), for a file a command names in an option
    (``plan design --from RUNS``) or as an argument beside RUNS (``plan power PILOT CAND``)."""

    fmt: str | None = None
    maps: tuple[str, ...] = ()
    threshold: float | None = None
    system_names: tuple[str, ...] = ()

    def read(self, path: str, *, among: Sequence[str] = (), quiet: bool = False) -> Any:
        """Read ``path`` (``among``: the files the command reads together, whom
        ``--system-name FILE=NAME`` may name; default the path alone)."""
        files = list(among) or [path]
        return load_input(
            path,
            example=None,
            fmt=self.fmt,
            maps=self.maps,
            threshold=self.threshold,
            system_name=_name_targets(self.system_names, files).get(path),
            quiet=quiet,
            prefix=len(files) > 1,
        )


def reading_options(
    prefix: str = "", *, dest: str = "reading", of: str = "the input"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The reading options of every command that reads runs, defined once: ``--format``,
    ``--map``, ``--threshold``, ``--system-name``; with ``prefix`` (``prior-``) a second set
    for another file (``--prior-format`` …). The command receives them as one
    :class:`ReadOptions` argument named ``dest``; ``of`` names the file in the help.

    Examples
    --------
    >>> @click.command()
    ... @reading_options()
    ... def cmd(reading: ReadOptions) -> None:
    ...     click.echo(f"{reading.maps} {reading.threshold}")
    >>> from click.testing import CliRunner
    >>> CliRunner().invoke(cmd, ["--map", "success=reward", "--threshold", "0.5"]).output
    "('success=reward',) 0.5\\n"
    """
    key = prefix.replace("-", "_") + "read_"

    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            spec = ReadOptions(
                fmt=kwargs.pop(key + "fmt"),
                maps=tuple(kwargs.pop(key + "maps")),
                threshold=kwargs.pop(key + "threshold"),
                system_names=tuple(kwargs.pop(key + "system_names")),
            )
            return f(*args, **{dest: spec}, **kwargs)

        g: Callable[..., Any] = wrapper
        for opt in reversed(_READING):  # click lists the options in the order applied last first
            name, param, extra = opt(of)
            g = click.option(f"--{prefix}{name}", key + param, **extra)(g)
        return g

    return deco


def _format_opt(of: str) -> tuple[str, str, dict[str, Any]]:
    return "format", "fmt", {"default": None, "help": f"Format of {of} (sniffed when omitted)."}


def _map_opt(of: str) -> tuple[str, str, dict[str, Any]]:
    return (
        "map",
        "maps",
        {
            "multiple": True,
            "metavar": "FIELD=COLUMN",
            "help": f"Column map of {of} (tidy files), e.g. --map task=question_id "
            "--map success=passed.",
        },
    )


def _threshold_opt(of: str) -> tuple[str, str, dict[str, Any]]:
    return (
        "threshold",
        "threshold",
        {"type": float, "default": None, "help": "Numeric score → success when ≥ this."},
    )


def _system_name_opt(of: str) -> tuple[str, str, dict[str, Any]]:
    return (
        "system-name",
        "system_names",
        {
            "multiple": True,
            "metavar": "[FILE=]NAME",
            "help": f"Name the system of {of} when a file has none (FILE=NAME with several "
            "files; repeatable). Files without one are named after the file.",
        },
    )


#: The reading options, in the order the help lists them.
_READING = (_format_opt, _map_opt, _threshold_opt, _system_name_opt)


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


def cluster_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--cluster COLUMN`` and ``--ignore-clusters``: the column naming each task's cluster
    (population intervals resample clusters), or none (the tasks as independent); the command
    passes both to :func:`clustered_input`."""
    f = click.option(
        "--ignore-clusters",
        is_flag=True,
        help="Treat the tasks as independent even when the input has a cluster column.",
    )(f)
    return click.option(
        "--cluster",
        "cluster_column",
        default=None,
        metavar="COLUMN",
        help="The column naming each task's cluster (repository, document...; as --map "
        "cluster=COLUMN): population intervals resample clusters. A column named 'cluster' is "
        "used without it.",
    )(f)


def plain_estimate(source: InputSpec, *, k: Sequence[int] | None) -> Display | None:
    """``passhat estimate``'s table of one τ-bench file, CSV count table or CSV of runs with no
    option but ``--k``, counted without pandas or xarray (:mod:`passhat.estimate_quick`): the same
    table, started in a third of the time; None where the whole estimate must run (any other
    input, or one whose runs need a rule's note or error)."""
    plain = source.plain_file()
    if plain is None:
        return None
    from pathlib import Path

    from passhat.estimate_quick import plain_count_csv, plain_runs, plain_runs_csv, plain_view

    fmt, path = plain[0], Path(plain[1])
    if fmt == "tau-bench":
        counts = plain_runs(path)
    else:  # a count table's header or a run table's: the registry's sniffing agrees
        counts = plain_count_csv(path) if fmt != "csv" else None
        counts = counts or (plain_runs_csv(path) if fmt != "counts" else None)
    return plain_view(counts, k=k) if counts is not None else None


def clustered_spec(
    source: InputSpec, *, cluster_column: str | None, ignore_clusters: bool
) -> InputSpec:
    """The input options with ``--cluster COLUMN`` mapped (``--map cluster=COLUMN``), or set
    to read every input without its cluster column (``--ignore-clusters``); both at once is
    an error."""
    from dataclasses import replace

    if cluster_column is not None and ignore_clusters:
        raise OptionError("--cluster and --ignore-clusters contradict each other; give one")
    if cluster_column is not None:
        source = replace(
            source, maps=(*source.maps, f"cluster={cluster_column}"), cluster_column=cluster_column
        )
    return replace(source, ignore_clusters=ignore_clusters) if ignore_clusters else source


def clustered_input(
    source: InputSpec, *, cluster_column: str | None, ignore_clusters: bool, **load: Any
) -> Any:
    """The input read with ``--cluster COLUMN`` mapped, or without its cluster column
    (``--ignore-clusters``); ``load`` as :meth:`InputSpec.load` takes it."""
    spec = clustered_spec(source, cluster_column=cluster_column, ignore_clusters=ignore_clusters)
    return spec.load(**load)
