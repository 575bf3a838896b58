"""Reader registry and format sniffing, for trial, count and trace readers alike.

Each format module registers its readers with :func:`register_reader`: a
``read`` function, a ``sniff`` function that says whether a file looks like the
format, a ``kind`` (what ``read`` returns: ``"trials"``, ``"counts"`` or
``"traces"``) and a sniffing ``priority``. One format name may have a reader of
each kind (``tau-bench`` has a trial and a trace reader). :func:`read`,
:func:`read_trials` and :func:`read_counts` choose among the trial and count
readers; :func:`passhat.read_traces` among the trace readers, through the same
:func:`sniff`.

Examples
--------
>>> formats(kind="traces")
['tau-bench', 'tau2-bench', 'inspect', 'steps-jsonl']
"""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from passhat._lazy import load_modules
from passhat.errors import FormatError, InputError, OptionError, PasshatError, ReadError
from passhat.io._guards import readable_input
from passhat.io._json import damaged_gzip, missing, refuse_wide

if TYPE_CHECKING:  # reading loads them; registering a reader (at import) does not
    import xarray as xr

    from passhat.traces import Traces
    from passhat.trials import Trials

__all__ = [
    "BUILTIN_READERS",
    "KINDS",
    "STREAM_ROWS",
    "Reader",
    "file_head",
    "file_sha256",
    "find_reader",
    "formats",
    "input_stamp",
    "read",
    "read_counts",
    "read_trials",
    "readers",
    "register_reader",
    "sniff",
]

#: Tidy trial files of more rows than this are counted out of core by :func:`read` (see
#: ``stream``): rows from a Parquet file's metadata, estimated for text (``estimated_rows``).
STREAM_ROWS = 2_000_000
#: What a reader returns: a trial table, a count table, or traces.
KINDS = ("trials", "counts", "traces")
#: The kinds :func:`read` returns (one namespace of format names).
_DATA_KINDS = ("trials", "counts")


@dataclass(frozen=True)
class Reader:
    """A registered reader.

    ``read(path, **options)`` returns :class:`~passhat.trials.Trials`, a
    count-table :class:`xarray.Dataset` or :class:`~passhat.traces.Traces`
    (by ``kind``); ``sniff(path, head)`` says whether the file looks like this
    format (``head`` is its first 64 KiB as text, empty for a directory).
    """

    name: str
    read: Callable[..., Trials | xr.Dataset | Traces]
    sniff: Callable[[Path, str], bool]
    kind: str  # "trials", "counts" or "traces"
    priority: int = 50
    aliases: tuple[str, ...] = ()
    stream: Callable[..., xr.Dataset] | None = None


_READERS: dict[tuple[str, str], Reader] = {}

#: passhat's own reader modules (each registers its readers when imported), by the format
#: names and aliases each registers: a format named by ``format=`` loads only its module(s);
#: listing or sniffing formats loads them all. A name missing here loads them all too, so the
#: table only saves time (tests/io/test_registry.py checks it against the registrations).
BUILTIN_READERS: dict[str, tuple[str, ...]] = {
    "counts": ("counts",),
    "csv": ("tidy",),
    "jsonl": ("tidy", "steps_jsonl"),
    "parquet": ("tidy",),
    "harbor": ("harbor",),
    "helm": ("helm",),
    "inspect": ("inspect_log",),
    "lm-eval": ("lm_eval",),
    "lm-evaluation-harness": ("lm_eval",),
    "promptfoo": ("promptfoo",),
    "steps-jsonl": ("steps_jsonl",),
    "steps": ("steps_jsonl",),
    "swe-bench": ("swebench",),
    "swebench": ("swebench",),
    "tau-bench": ("tau_bench",),
    "tau2-bench": ("tau2_bench",),
}


def _load_readers(name: str | None = None) -> None:
    """Import the reader modules registering ``name`` (a normalised format name), or all of
    passhat's reader modules (``None``, or a name not in :data:`BUILTIN_READERS`)."""
    modules = BUILTIN_READERS.get(name or "")
    if modules is None:
        modules = tuple(sorted({m for ms in BUILTIN_READERS.values() for m in ms}))
    load_modules(f"passhat.io.{m}" for m in modules)


def register_reader(
    name: str,
    read: Callable[..., Trials | xr.Dataset | Traces],
    *,
    sniff: Callable[[Path, str], bool],
    kind: str = "trials",
    priority: int = 50,
    aliases: tuple[str, ...] = (),
    stream: Callable[..., xr.Dataset] | None = None,
) -> None:
    """Register a reader of one kind under a format name (lower priority sniffs first).

    ``aliases`` are other names ``format=`` accepts for it. ``stream(path, **options)``, for a
    trial format, counts a file, directory or glob out of core (memory by tasks, not rows):
    :func:`read_counts` always uses it, :func:`read` for directories, globs and files of over
    :data:`STREAM_ROWS` rows.

    Examples
    --------
    >>> import pandas as pd
    >>> def read_mine(path):
    ...     return Trials.from_frame(pd.read_csv(path, sep=" "), where=str(path))
    >>> register_reader("mine", read_mine, sniff=lambda path, head: head.startswith("task_id "))
    >>> "mine" in formats()
    True
    >>> _ = _READERS.pop(("trials", "mine"))
    """
    if kind not in KINDS:
        raise OptionError(f"reader {name!r}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
    _READERS[(kind, name)] = Reader(
        name=name,
        read=read,
        sniff=sniff,
        kind=kind,
        priority=priority,
        aliases=tuple(aliases),
        stream=stream,
    )


def readers(kinds: Iterable[str] = _DATA_KINDS) -> list[Reader]:
    """The registered readers of these kinds, in sniffing order (priority, then name).

    Examples
    --------
    >>> [(r.name, r.priority) for r in readers(["traces"])][:2]
    [('tau-bench', 10), ('tau2-bench', 20)]
    """
    _load_readers()
    return _registered(kinds)


def _registered(kinds: Iterable[str]) -> list[Reader]:
    """The readers of these kinds registered so far, in sniffing order."""
    wanted = set(kinds)
    found = [r for r in _READERS.values() if r.kind in wanted]
    return sorted(found, key=lambda r: (r.priority, r.name))


def formats(kind: str | None = None) -> list[str]:
    """Names of the registered formats.

    Without ``kind``: the formats :func:`read` takes (trial and count tables),
    sorted by name. With ``kind``: that kind's formats in sniffing order.

    Examples
    --------
    >>> formats()[:2]
    ['counts', 'csv']
    """
    if kind is None:
        return sorted({r.name for r in readers(_DATA_KINDS)})
    return [r.name for r in readers((kind,))]


def find_reader(name: str, *, kinds: Iterable[str] = _DATA_KINDS) -> Reader | None:
    """The reader registered under a format name or alias (``_`` or ``-``, any case).

    Examples
    --------
    >>> find_reader("TAU_BENCH", kinds=["traces"]).kind
    'traces'
    """
    key = name.lower().replace("_", "-")
    _load_readers(key)
    found = next((r for r in _registered(kinds) if key == r.name or key in r.aliases), None)
    return found if found is not None else _find_in_all(key, kinds)


def _find_in_all(key: str, kinds: Iterable[str]) -> Reader | None:
    """:func:`find_reader` over every reader module (a name :data:`BUILTIN_READERS` lacks)."""
    return next((r for r in readers(kinds) if key == r.name or key in r.aliases), None)


def sniff(path: Path, head: str, *, kinds: Iterable[str] = _DATA_KINDS) -> Reader | None:
    """The first reader of these kinds whose sniffer recognises the file, or None.

    ``head`` is :func:`file_head` of the path. A sniffer that raises says no.

    Examples
    --------
    >>> import tempfile, os
    >>> f = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = f.write_text("task_id,success\\nt,1\\n")
    >>> sniff(f, file_head(f)).name
    'csv'
    """
    for reader in _sniffing_order(kinds) if not path.is_dir() else readers(kinds):
        try:
            if reader.sniff(path, head):
                return _loaded(reader)
        except Exception:  # a sniffer that cannot tell simply says no
            continue
    return None


def _sniffing_order(kinds: Iterable[str]) -> list[Any]:
    """The sniffers of a file for readers of these kinds, in sniffing order (priority, then
    name): the registered readers', and the built-in ones not imported yet by their file
    sniffers alone (:mod:`passhat.io._sniff`, for trial and count tables; other kinds import
    every reader module)."""
    from passhat.io._sniff import SNIFFERS  # here: _sniff imports modules that import this one

    wanted = set(kinds)
    if not wanted <= set(_DATA_KINDS):
        return readers(wanted)
    order: dict[tuple[str, str], Any] = {(s.kind, s.name): s for s in SNIFFERS if s.kind in wanted}
    order.update({(r.kind, r.name): r for r in _registered(wanted)})
    return sorted(order.values(), key=lambda r: (r.priority, r.name))


def _loaded(found: Any) -> Reader:
    """The registered reader of a sniffer that recognised a file: a built-in one's module is
    imported now (it registers the reader with this sniffer)."""
    if isinstance(found, Reader):
        return found
    _load_readers(found.name)
    return _READERS[(found.kind, found.name)]


def input_stamp(data: Trials | xr.Dataset) -> dict[str, str]:
    """Provenance of an input for machine-readable output: its path, format and SHA-256 (computed
    here when the source recorded a path but no hash), as strings."""
    from passhat.trials import provenance

    src = provenance(data)
    path = src.get("path")
    if path and "sha256" not in src and Path(path).is_file():
        src["sha256"] = file_sha256(path)
    return src


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file (of every file, in order, for a directory)."""
    p = Path(path)
    h = hashlib.sha256()
    if p.is_dir():
        from passhat.io._scan import walk_files  # the files a dataset read covers, links followed

        files = sorted(walk_files(p))
    else:
        files = [p]
    for f in files:
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def file_head(path: Path) -> str:
    """The first 64 KiB of a file as text (gzip looked through, a UTF-8 byte-order mark dropped,
    undecodable bytes replaced); empty for a directory.

    Examples
    --------
    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "x.txt"
    >>> _ = f.write_bytes("é".encode("latin-1") + b" ok")
    >>> file_head(f) == "\\N{REPLACEMENT CHARACTER} ok", file_head(f.parent)
    (True, '')
    """
    if path.is_dir():
        return ""
    with open(path, "rb") as fh:
        raw = fh.read(65536)
    if raw[:2] == b"\x1f\x8b":
        import gzip
        import zlib

        try:
            with gzip.open(path, "rb") as gz:
                raw = gz.read(65536)
        except (OSError, EOFError, zlib.error) as err:
            raise damaged_gzip(path, err) from err
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


#: Formats whose files are text: a NUL byte in their head means a binary file.
_TEXT_FORMATS = frozenset({"csv", "jsonl", "counts", "tau-bench", "tau2-bench"})


def _refuse_binary(path: Path, head: str, what: str | None = None) -> None:
    """A text reader given a binary file (NUL bytes, e.g. a sparse or truncated file) says so at
    once instead of parsing gigabytes of zeros."""
    at = head.find("\x00")
    if at >= 0 or head.startswith("\ufffd"):
        refuse_wide(path)
    if at < 0 or head.startswith(("PAR1", "PK")):  # Parquet and zip containers are binary
        return
    line = head.count("\n", 0, at) + 1
    raise FormatError(
        f"{path}: line {line} holds NUL bytes (byte {len(head[:at].encode('utf-8'))}): a binary "
        f"file, not {what or 'a text table or JSON'}"
    )


def _resolve(path: Path, fmt: str | None) -> Reader:
    if not path.exists():
        raise InputError(missing(path))
    if fmt is not None:
        found = find_reader(fmt)
        if found is None:
            raise FormatError(
                f"{path}: unknown format {fmt!r}; known formats: {', '.join(formats())}"
            )
        if found.name in _TEXT_FORMATS and path.is_file():
            _refuse_binary(path, file_head(path), f"{found.name} text")
        return found
    if path.is_file() and path.stat().st_size == 0:
        raise FormatError(f"{path}: the file is empty")
    head = file_head(path)
    if path.is_file() and (head.startswith("\ufffd") or "\x00" in head[:512]):
        refuse_wide(path)  # before sniffing: a UTF-16 file has no format a sniffer can see
    if path.is_file() and not head.strip() and path.suffix.lower() not in {".parquet", ".eval"}:
        raise FormatError(f"{path}: the file is empty (only whitespace)")
    reader = sniff(path, head)
    if reader is not None:
        if reader.name in _TEXT_FORMATS:
            _refuse_binary(path, head, f"{reader.name} text")
        return reader
    _refuse_binary(path, head)
    if path.is_file() and (path.suffix.lower() == ".json" or head.lstrip().startswith(("{", "["))):
        from passhat.io._json import load_json

        doc = load_json(path)  # a syntax error is the more useful message (line, column)
        holds = _json_holds(doc)
        if "--format" not in holds:
            holds += f"; pass format= (--format) if it is one of: {', '.join(formats())}"
        raise FormatError(f"{path}: {holds}")
    inside = _readable_inside(path) if path.is_dir() else ""
    raise FormatError(
        f"{path}: cannot tell the format from its name or content; {inside}pass format= "
        f"(--format) with one of: {', '.join(formats())}"
    )


def _readable_inside(path: Path, *, limit: int = 50) -> str:
    """For a directory no reader claims: the files directly in it that one would read (at most
    ``limit`` looked at), as the start of the hint, e.g. ``it holds results.json (promptfoo):
    give the file itself; ``."""
    found = []
    try:
        children = sorted(q for q in path.iterdir() if q.is_file())[:limit]
    except OSError:
        return ""
    for f in children:
        try:
            reader = sniff(f, file_head(f))
        except (OSError, PasshatError):
            continue
        if reader is not None:
            found.append(f"{f.name} ({reader.name})")
    if not found:
        return ""
    more = " ..." if len(found) > 5 else ""
    return f"it holds {', '.join(found[:5])}{more}: give the file itself, or "


def _json_holds(doc: Any) -> str:
    """What a JSON file no reader recognised holds, and the nearest format passhat reads.

    Examples
    --------
    >>> _json_holds([{"task_id": "a", "success": True}])
    "a JSON array of 1 record(s) with keys task_id, success, not a format passhat recognises; \
trial tables are read as JSON lines, one object per line (jq -c '.[]' FILE > runs.jsonl)"
    >>> _json_holds({})
    'a JSON file holding an empty object, not a format passhat recognises'
    """
    if isinstance(doc, list) and doc and all(isinstance(r, dict) for r in doc):
        keys = list(dict.fromkeys(k for r in doc[:100] for k in r))
        shown = ", ".join(map(str, keys[:8])) + (" ..." if len(keys) > 8 else "")
        from passhat.io._scores import predictions_hint

        hint = predictions_hint(keys)
        if hint is not None:
            return f"a JSON array of {len(doc)} record(s) with keys {shown}: {hint}"
        if "task_id" in keys and "reward" in keys:
            return (
                f"a JSON array of {len(doc)} record(s) with keys {shown}: τ-bench results "
                "carry 'traj' or 'info' too; if it is one, pass --format tau-bench"
            )
        return (
            f"a JSON array of {len(doc)} record(s) with keys {shown}, not a format passhat "
            "recognises; trial tables are read as JSON lines, one object per line "
            "(jq -c '.[]' FILE > runs.jsonl)"
        )
    if isinstance(doc, dict):
        first = next(iter(doc.values()), None)
        if isinstance(first, dict):  # SWE-bench's preds.json: {instance_id: prediction}
            from passhat.io._scores import predictions_hint

            hint = predictions_hint(first)
            if hint is not None:
                return f"a JSON object of {len(doc)} prediction(s): {hint}"
        what = (
            f"an object with keys {', '.join(map(str, list(doc)[:8]))}"
            if doc
            else "an empty object"
        )
    elif isinstance(doc, list):
        what = "an empty array" if not doc else f"an array of {type(doc[0]).__name__} values"
    else:
        what = "null" if doc is None else f"a single {type(doc).__name__}"
    return f"a JSON file holding {what}, not a format passhat recognises"


def _check_options(path: Path, reader: Reader, options: dict[str, Any]) -> None:
    """Refuse options the reader has no parameter for (never a TypeError traceback)."""
    params = inspect.signature(reader.read).parameters
    if any(q.kind is inspect.Parameter.VAR_KEYWORD for q in params.values()):
        return  # the reader checks its own options
    unknown = [k for k in options if k not in params]
    if unknown:
        shown = ", ".join(
            k
            if k in ("threshold", "system_name", "scheduler")
            else f"{k}={options[k]} (a column map)"
            for k in unknown
        )
        raise OptionError(
            f"{path}: the {reader.name} format takes no option {shown}; "
            f"it takes: {', '.join(k for k in params if k != 'path') or 'none'}"
        )


def _is_pattern(path: Path) -> bool:
    return not path.exists() and any(ch in str(path) for ch in "*?[")


def _dataset_reader(path: Path, fmt: str | None) -> Reader:
    """The trial reader of a directory of part files or a glob (by the files' kind)."""
    from passhat.io._scan import file_kind, source_files

    files = source_files(path)
    kind = fmt or file_kind(files[0]) or "csv"
    found = find_reader("csv" if kind == "tsv" else kind, kinds=("trials",))
    if found is None or found.stream is None:
        raise FormatError(
            f"{path}: a directory or pattern of {kind} files; only csv, tsv, jsonl and parquet "
            "part files are read as one dataset"
        )
    return found


def read(
    path: str | Path,
    *,
    format: str | None = None,
    aggregate: bool | None = None,
    **options: Any,
) -> Trials | xr.Dataset:
    """Read a file into trials or a count table, whichever it holds.

    Parameters
    ----------
    path : str or Path
        The file, a τ²-bench run directory, or a tidy dataset: a directory of
        CSV/TSV/JSONL/Parquet part files or a glob pattern (``"runs/*.parquet"``).
    format : str, optional
        A registered format name; sniffed from the content when omitted.
    aggregate : bool, optional
        Count a tidy trial source out of core and return its count table (memory by
        tasks, not rows). Default (None): for directories, globs and files of over
        :data:`STREAM_ROWS` rows; False: always a trial table (not for a dataset).
    **options
        Passed to the reader (column map, threshold, system name, ...).
    """
    p = Path(path)
    try:
        with readable_input(p) as (q, spooled):  # a pipe: read once into a temporary file
            result = _read(q, format=format, aggregate=aggregate, **options)
        if spooled:
            _name_source(result, p)
        return result
    except PasshatError:
        raise
    except PermissionError as err:
        locked = p.is_dir() and not os.access(p, os.R_OK | os.X_OK)
        name = p if locked else err.filename or p
        raise ReadError(f"{name}: cannot read it: permission denied") from err
    except OSError as err:
        if err.errno is None:  # not the operating system's (a library's own OSError)
            raise
        raise ReadError(
            f"{err.filename or p}: cannot read it: {err.strerror or type(err).__name__}"
        ) from err


def _name_source(result: Trials | xr.Dataset, path: Path) -> None:
    """Record the path the user gave (a pipe), not the temporary copy that was read."""
    from passhat.trials import Trials

    if isinstance(result, Trials):
        result.source = {**result.source, "path": str(path)}
    else:
        result.attrs["source_path"] = str(path)


def _read(
    p: Path, *, format: str | None, aggregate: bool | None, **options: Any
) -> Trials | xr.Dataset:
    dataset = _is_pattern(p) or (p.is_dir() and not (p / "results.json").is_file())
    if dataset and format is None and p.is_dir():
        # a directory a whole-directory reader claims (one Inspect log per model) is
        # read by that reader, not scanned as tidy part files
        claimed = sniff(p, "")
        dataset = claimed is None or claimed.stream is not None
    if dataset and format is not None:
        named = find_reader(format)
        dataset = named is not None and named.stream is not None
    if dataset:
        reader = _dataset_reader(p, format)
        if aggregate is False:
            raise FormatError(
                f"{p}: a directory or pattern of part files is read as counts "
                "(passhat.read_counts), not as one trial table"
            )
    else:
        reader = _resolve(p, format)
    _check_options(p, reader, options)
    if reader.stream is not None and (aggregate or (aggregate is None and (dataset or _big(p)))):
        counts = reader.stream(p, **options)
        counts.attrs["source_format"] = reader.name
        if p.exists():
            counts.attrs["source_sha256"] = file_sha256(p)
        return counts
    try:
        result = reader.read(p, **options)
    except IsADirectoryError as err:
        raise FormatError(f"{p}: a directory, not a {reader.name} file") from err
    except RecursionError as err:
        raise FormatError(
            f"{p}: nested too deeply to read (JSON depth over Python's limit)"
        ) from err
    from passhat.trials import Trials

    meta = {"path": str(p), "format": reader.name, "sha256": file_sha256(p)}
    if isinstance(result, Trials):
        result.source = {**meta, **result.source}
        return result
    counts = cast("xr.Dataset", result)  # trial and count readers return one or the other
    counts.attrs.update({f"source_{k}": v for k, v in meta.items()})
    return counts


def _big(p: Path) -> bool:
    """A file of more rows than :data:`STREAM_ROWS` (by its metadata, or estimated)."""
    from passhat.io._scan import estimated_rows

    return p.is_file() and estimated_rows(p) > STREAM_ROWS


def read_trials(path: str | Path, *, format: str | None = None, **options: Any) -> Trials:
    """Read repeated-trial results into a :class:`~passhat.trials.Trials` table.

    The format is sniffed from the content unless given: tidy ``csv``,
    ``jsonl``, ``parquet`` (with a column map, e.g. ``task="question_id",
    success="passed"``, and ``threshold=`` for numeric rewards),
    ``tau-bench``, ``tau2-bench`` and ``inspect`` logs, and the outputs of ``lm-eval``,
    ``helm``, ``harbor``, ``swe-bench`` and ``promptfoo``.

    Examples
    --------
    >>> import passhat as ph, tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "runs.csv")
    >>> _ = open(f, "w").write("question_id,passed\\nq1,1\\nq1,0\\nq2,1\\nq2,1\\n")
    >>> ph.read_trials(f, task="question_id", success="passed")
    Trials(4 runs, 1 system(s), 2 tasks, 0 unscored)
    """
    from passhat.trials import Trials

    result = read(path, format=format, aggregate=False, **options)
    if not isinstance(result, Trials):
        raise FormatError(
            f"{path}: holds a count table (task_id, n, c), not trials; use passhat.read_counts"
        )
    return result


def read_counts(
    path: str | Path, *, format: str | None = None, scheduler: str | None = None, **options: Any
) -> xr.Dataset:
    """Read a file into a count table (trial files are aggregated; tidy files, directories and
    globs of part files out of core, so memory follows the tasks, not the rows).

    ``scheduler``: a dask scheduler's address (``tcp://host:8786``) or ``"local"``: a tidy
    source's files are counted on that cluster (:func:`passhat.io.aggregate_counts`), with the
    same rules and result; other formats are refused."""
    if scheduler is not None:
        options["scheduler"] = scheduler
    from passhat.trials import Trials

    result = read(path, format=format, aggregate=True, **options)
    return result.counts() if isinstance(result, Trials) else result
