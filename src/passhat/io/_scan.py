"""Scanning tidy trial files in batches: which files a source names, their header, and their rows.

A *source* is a file (``.csv``, ``.tsv``, either gzip-compressed; ``.jsonl`` /
``.ndjson``; ``.parquet``), a directory of such files (a partitioned dataset:
every data file under it, sorted by path), or a glob pattern
(``logs/part-*.parquet``). :func:`batches` yields each file's rows in batches of
Arrow arrays (CSV, Parquet) or pandas columns (JSON lines), with the row number
of the batch's first row, so that an error can name the file and the row. Only
the columns asked for are read (Parquet and CSV skip the others).
"""

from __future__ import annotations

import csv
import glob
import gzip
import io
import json
import os
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passhat.errors import FormatError, InputError, ValidationError
from passhat.io._json import damaged_gzip, is_gzip, json_object, missing, records_frame

if TYPE_CHECKING:  # pandas loads where a frame is made: naming a file's kind needs none
    import pandas as pd

__all__ = [
    "PANDAS_NA",
    "TABULAR",
    "Batch",
    "batches",
    "check_header",
    "estimated_rows",
    "file_kind",
    "header",
    "header_delimiter",
    "is_gzip",
    "refuse_runs_and_counts",
    "resolve_columns",
    "source_files",
    "unread_note",
    "walk_files",
]

#: Text that pandas' ``read_csv`` reads as missing (its default ``na_values``); the Arrow
#: reader is given the same list so both paths agree on what "missing" is.
PANDAS_NA = [
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
]

_NA_WORDS = frozenset(PANDAS_NA)


def na_except_ids(df: pd.DataFrame, ids: Collection[str]) -> pd.DataFrame:
    """Missing cells of a CSV read as text (``na_filter=False``), as pandas reads them, except
    in the id columns ``ids``: there only an empty cell is missing, so a task or system named
    "NA", "None" or "null" keeps its name (the Arrow reader does the same).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task_id": ["NA", "None"], "success": ["NA", "1"]})
    >>> na_except_ids(df, {"task_id"}).isna().values.tolist()
    [[False, True], [False, False]]
    """
    import pandas as pd

    cols = {c: df[c].mask(df[c] == "" if c in ids else df[c].isin(_NA_WORDS)) for c in df.columns}
    return pd.DataFrame(cols, index=df.index)


#: File kinds a tidy source may hold.
TABULAR = ("csv", "tsv", "jsonl", "parquet")
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def file_kind(path: Path) -> str | None:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet`` from a file's name (``.gz`` looked through).

    Examples
    --------
    >>> file_kind(Path("runs.tsv.gz")), file_kind(Path("part-0.parquet")), file_kind(Path("x"))
    ('tsv', 'parquet', None)
    """
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".gzip"):
        suffixes = suffixes[:-1]
    return _SUFFIXES.get(suffixes[-1]) if suffixes else None


def source_files(source: str | Path) -> list[Path]:
    """The data files a source names: the file, a directory's data files, or a glob's matches.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in ("b.parquet", "a.parquet", "_SUCCESS"):
    ...     _ = (d / name).write_bytes(b"")
    >>> [p.name for p in source_files(d)], [p.name for p in source_files(str(d / "*.parquet"))]
    (['a.parquet', 'b.parquet'], ['a.parquet', 'b.parquet'])
    """
    text = str(source)
    p = Path(source)
    if p.is_dir():
        files = sorted(
            f
            for f in walk_files(p)
            if file_kind(f) is not None
            and not any(part.startswith((".", "_")) for part in f.relative_to(p).parts)
        )
        if not files:
            json_files = sorted(f.name for f in p.iterdir() if f.suffix.lower() == ".json")
            also = (
                f"; its {len(json_files)} .json file(s) ({', '.join(json_files[:3])}"
                f"{' ...' if len(json_files) > 3 else ''}) are read one at a time (τ-bench, "
                "τ²-bench results): name them, e.g. passhat rank A.json B.json"
                if json_files
                else ""
            )
            raise InputError(
                f"{p}: a directory with no data files (.csv, .tsv, .jsonl, .parquet, "
                f"optionally .gz){also}"
            )
    elif p.exists():
        files = [p]
    elif any(ch in text for ch in "*?["):
        files = sorted(Path(f) for f in glob.glob(text, recursive=True) if Path(f).is_file())
        if not files:
            raise InputError(f"{text}: no file matches the pattern")
    else:
        raise InputError(missing(p))
    kinds = {file_kind(f) or "csv" for f in files}
    if len(kinds) > 1:
        raise FormatError(
            f"{text}: the files mix formats ({', '.join(sorted(kinds))}); one dataset is one format"
        )
    return files


#: Bytes of a text file read to measure its lines, for :func:`estimated_rows`.
_SAMPLE_BYTES = 1 << 20


def estimated_rows(path: Path) -> int:
    """A tidy file's number of rows: from a Parquet file's metadata; for text, its lines
    counted when the file is small, else its size divided by the mean length of its first
    lines (a gzip file's size from its trailer, the size modulo 4 GiB, raised past its
    compressed size). 0 when the file cannot be read (its reader says why).

    Examples
    --------
    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = f.write_text("task_id,success\\n" + "t,1\\n" * 1000)
    >>> estimated_rows(f)
    1000
    """
    try:
        if file_kind(path) == "parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        size = path.stat().st_size
        with gzip.open(path, "rb") if is_gzip(path) else open(path, "rb") as fh:
            head = fh.read(_SAMPLE_BYTES)
            whole = not fh.read(1)
        if is_gzip(path):
            with open(path, "rb") as raw:
                raw.seek(-4, os.SEEK_END)
                size = int.from_bytes(raw.read(4), "little")
            while size < path.stat().st_size:  # the trailer holds the size modulo 4 GiB
                size += 1 << 32
    except Exception:  # a damaged file: its reader says what is wrong
        return 0
    lines = head.count(b"\n") + (0 if head.endswith(b"\n") or not head else 1)
    if whole:
        return max(lines - 1, 0)  # less the header line (JSON lines: a close estimate)
    return int(size * lines / max(len(head), 1))


def unread_note(root: Path, read: Iterable[Path], *, tables_only: bool, what: str) -> str | None:
    """The note naming the files of a directory that a read left out, or None.

    ``tables_only``: only csv / tsv / jsonl / parquet files directly in ``root`` (beside a
    framework's own files, e.g. a runs.csv in a Harbor job directory); else every file under
    ``root`` (a dataset directory's JSON results beside its part files). Hidden files and
    those starting with ``_`` (``_SUCCESS``) are not named.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in ("part-0.csv", "results.json", "_SUCCESS"):
    ...     _ = (d / name).write_text("x")
    >>> unread_note(d, [d / "part-0.csv"], tables_only=False, what="part files")[-39:]
    'not read (not part files): results.json'
    """
    done = {Path(f) for f in read}
    if tables_only:
        found = sorted(q for q in root.iterdir() if q.is_file() and file_kind(q) is not None)
    else:
        found = sorted(walk_files(root))
    left = [
        q
        for q in found
        if q not in done and not any(p.startswith((".", "_")) for p in q.relative_to(root).parts)
    ]
    if not left:
        return None
    shown = ", ".join(str(q.relative_to(root)) for q in left[:5])
    more = f" and {len(left) - 5} more" if len(left) > 5 else ""
    return f"{root}: not read (not {what}): {shown}{more}"


def walk_files(root: Path) -> Iterator[Path]:
    """Every file under a directory, following links to directories (a dataset assembled from
    links loses no part) but entering each real directory once (a link loop ends there), and
    not entering what passhat wrote (a report directory holding passhat's manifest: its
    tables are results, not runs). A directory that cannot be listed raises its OSError (a part
    never read is never dropped without a word)."""
    from passhat._write.journal import MANIFEST

    def refuse(err: OSError) -> None:  # os.walk skips what it cannot list: never silently
        raise err

    seen: set[tuple[int, int]] = set()
    for top, dirs, names in os.walk(root, followlinks=True, onerror=refuse):
        st = os.stat(top)
        if (st.st_dev, st.st_ino) in seen or (top != str(root) and MANIFEST in names):
            dirs[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirs.sort()
        for name in names:
            f = Path(top) / name
            if f.is_file():
                yield f


def _open_text(path: Path) -> io.TextIOWrapper:
    raw: Any = gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def delimiter(path: Path) -> str:
    """Tab for ``.tsv`` (``.tab``, gzip or not); else the header line's separator
    (:func:`header_delimiter`)."""
    if file_kind(path) == "tsv":
        return "\t"
    try:
        with _open_text(path) as fh:
            first = fh.readline(MAX_HEADER_CHARS)  # never more: a file may have no line break
    except (OSError, EOFError, UnicodeDecodeError):
        return ","  # the reader reports what is wrong with the file
    return header_delimiter(first)


#: The longest header line (or first JSON-lines record) read to learn the columns.
MAX_HEADER_CHARS = 1 << 20


def first_line(fh: Any, path: Path, *, skip_blank: bool = False) -> str:
    """The first line of a text file (the first non-blank one with ``skip_blank``), read up to
    :data:`MAX_HEADER_CHARS` only: a longer one is a :class:`FormatError`, never gigabytes read
    to find a line break that does not come."""
    while True:
        line = fh.readline(MAX_HEADER_CHARS + 1)
        if len(line) > MAX_HEADER_CHARS:
            raise FormatError(
                f"{path}: the first line is longer than {MAX_HEADER_CHARS:,} characters (no line "
                "break): not a table or JSON lines file passhat reads"
            )
        if not skip_blank or not line or line.strip():
            return str(line)


def header_delimiter(first: str) -> str:
    """Comma, or — when the header line has none — semicolon (spreadsheets saved where the
    decimal separator is a comma) or tab.

    Examples
    --------
    >>> header_delimiter("task_id,trial,success"), header_delimiter("task_id;trial;success")
    (',', ';')
    """
    if "," not in first:
        for sep in (";", "\t"):
            if sep in first:
                return sep
    return ","


def check_header(names: Sequence[str], where: str) -> None:
    """Refuse duplicate column names (after trimming spaces): which one would be read is a guess.

    Examples
    --------
    >>> check_header(["task_id", "success", " success"], "runs.csv")
    Traceback (most recent call last):
    ...
    passhat.errors.FormatError: runs.csv: columns 2 and 3 are both named 'success'; \
rename one (which one holds the data is a guess)
    """
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        key = str(name).strip()
        if key in seen:
            raise FormatError(
                f"{where}: columns {seen[key]} and {i} are both named {key!r}; rename one "
                "(which one holds the data is a guess)"
            )
        seen[key] = i


def _refuse_not_parquet(path: Path) -> None:
    """A file named ``.parquet`` that is gzip (or text) says what it is, not "magic bytes"."""
    try:
        with open(path, "rb") as fh:
            start = fh.read(4)
    except OSError:
        return  # the reader names the error
    if start[:2] == b"\x1f\x8b":
        raise FormatError(
            f"{path}: a gzip-compressed file named .parquet; Parquet files are not gzipped: "
            "gunzip it and name it by what it holds (.csv, .jsonl), or pass --format"
        )
    if start != b"PAR1" and start:
        raise FormatError(
            f"{path}: named .parquet but not a Parquet file (it starts with {start!r}, not "
            "b'PAR1'); rename it by what it holds, or pass --format"
        )


def header(path: Path) -> list[str]:
    """Column names of a tidy file (CSV/TSV header, Parquet schema, first JSON-lines object's
    keys), duplicates refused."""
    kind = file_kind(path) or "csv"
    where = str(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        _refuse_not_parquet(path)
        try:
            names = list(pq.read_schema(path).names)
        except Exception as err:  # pyarrow raises several types
            raise FormatError(f"{path}: not a readable Parquet file ({err})") from err
    elif kind == "jsonl":
        names = []
        try:
            with _open_text(path) as fh:
                line = first_line(fh, path, skip_blank=True)
            if line.strip():
                obj = json.loads(line)
                names = list(obj) if isinstance(obj, dict) else []
        except FormatError:
            raise
        except (ValueError, UnicodeDecodeError):  # bad JSON, a number too long to convert
            names = []  # the reader names the line
        except RecursionError as err:
            from passhat.io._json import too_deep

            raise too_deep(path) from err
    else:
        try:
            with _open_text(path) as fh:
                line = first_line(fh, path)
                while line.count('"') % 2 and len(line) <= MAX_HEADER_CHARS:  # a quoted break
                    more = fh.readline(MAX_HEADER_CHARS)
                    if not more:
                        break
                    line += more
            names = next(csv.reader(io.StringIO(line), delimiter=delimiter(path)), [])
        except UnicodeDecodeError as err:
            from passhat.io._json import not_utf8

            raise not_utf8(path) from err
        except csv.Error as err:
            raise FormatError(f"{path}: cannot read the header ({err})") from err
        except IsADirectoryError:
            raise
        except (OSError, EOFError) as err:
            raise FormatError(f"{path}: cannot read ({err})") from err
    check_header(names, where)
    return names


#: option name -> data-model column
_MAP_OPTIONS = {
    "system": "system",
    "task": "task_id",
    "task_id": "task_id",
    "trial": "trial",
    "success": "success",
    "status": "status",
    "score": "score",
    "category": "category",
    "cluster": "cluster",
    "weight": "weight",
    "scenario_hash": "scenario_hash",
    "duration": "duration_s",
    "cost": "cost",
}


def resolve_columns(
    names: Sequence[Any], column_map: Mapping[str, str | None], *, where: str
) -> dict[str, str]:
    """Each source column's data-model name: spaces trimmed, the column map applied.

    Duplicate names (after trimming) are refused; so is a map that names a missing column,
    maps one column twice, or makes a second column of a name the file already has. A
    ``task`` column is ``task_id`` when there is none.

    Examples
    --------
    >>> resolve_columns(["question_id", " passed"], {"task": "question_id", "success": "passed"},
    ...                 where="t")
    {'question_id': 'task_id', ' passed': 'success'}
    """
    check_header([str(c) for c in names], where)
    stripped = {c: str(c).strip() for c in names}
    rename: dict[str, str] = {}
    for opt, src in column_map.items():
        if src is None:
            continue
        if opt not in _MAP_OPTIONS:
            raise ValidationError(
                f"{where}: unknown column option {opt!r}; known: {', '.join(sorted(_MAP_OPTIONS))}"
            )
        if src not in stripped.values():
            raise ValidationError(
                f"{where}: column {src!r} (given for {opt}) is missing; "
                f"columns: {', '.join(stripped.values())}"
            )
        target = _MAP_OPTIONS[opt]
        if src in rename:
            first = next(o for o, v in column_map.items() if v == src)
            raise ValidationError(f"{where}: column {src!r} is mapped to both {first} and {opt}")
        if target in rename.values():
            raise ValidationError(f"{where}: two columns are mapped to {target!r}")
        if target in stripped.values() and target != src:
            raise ValidationError(
                f"{where}: --map {opt}={src} would make a second {target!r} column; the file "
                "already has one (rename or drop it first)"
            )
        rename[src] = target
    out = {c: rename.get(name, name) for c, name in stripped.items()}
    if "task_id" not in out.values() and "task" in out.values():
        out = {c: "task_id" if t == "task" else t for c, t in out.items()}
    refuse_runs_and_counts(out.values(), where)
    return out


def refuse_runs_and_counts(names: Iterable[Any], where: str) -> None:
    """Refuse columns of both layouts, runs (``success``) and counts (``n`` and ``c``).

    ``task_id, n, c, success`` was read as runs, ignoring n and c: one of the two layouts
    is wrong, and which one is a guess.

    Examples
    --------
    >>> refuse_runs_and_counts(["task_id", "n", "c", "success"], "r.csv")
    Traceback (most recent call last):
    ...
    passhat.errors.FormatError: r.csv: columns 'n', 'c' and 'success' mix two layouts: a \
count table (one row per task: task_id, n, c) and runs (one row per run: task_id, success); \
passhat will not guess which to read. Keep one: drop 'success' for a count table, or drop or \
rename 'n' and 'c' for runs
    """
    cols = {str(c).strip() for c in names}
    if {"n", "c", "success"} <= cols:
        raise FormatError(
            f"{where}: columns 'n', 'c' and 'success' mix two layouts: a count table (one row "
            "per task: task_id, n, c) and runs (one row per run: task_id, success); passhat "
            "will not guess which to read. Keep one: drop 'success' for a count table, or drop "
            "or rename 'n' and 'c' for runs"
        )


@dataclass
class Batch:
    """Rows ``offset + 1 … offset + rows`` of one file: column name → Arrow array or pandas
    Series (only the columns asked for)."""

    where: str
    offset: int
    rows: int
    columns: dict[str, Any]


def batches(
    path: Path, columns: Sequence[str], *, batch_rows: int = 1 << 20, ids: Collection[str] = ()
) -> Iterator[Batch]:
    """The rows of one tidy file in batches, with only ``columns`` (source names).

    In a CSV, pandas' NA words are missing except in the id columns ``ids``, where only
    an empty cell is (:func:`na_except_ids`).
    """
    kind = file_kind(path) or "csv"
    if kind == "parquet":
        yield from _parquet_batches(path, columns, batch_rows)
    elif kind == "jsonl":
        yield from _jsonl_batches(path, columns, batch_rows)
    else:
        yield from _csv_batches(path, columns, batch_rows, ids)


def _null_words(arr: Any) -> Any:
    """A dictionary-encoded text column with pandas' NA words as nulls."""
    import pyarrow as pa
    import pyarrow.compute as pc

    hit = pc.is_in(arr.dictionary, value_set=pa.array(PANDAS_NA))
    if not pc.any(hit).as_py():
        return arr
    # re-encoded, so that the NA words leave the dictionary (its values are what is checked)
    return pc.dictionary_encode(pc.if_else(pc.take(hit, arr.indices), None, arr.cast(pa.string())))


def _csv_batches(
    path: Path, columns: Sequence[str], batch_rows: int, ids: Collection[str] = ()
) -> Iterator[Batch]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    as_text = pa.dictionary(pa.int32(), pa.string())
    convert = pcsv.ConvertOptions(
        column_types={c: as_text for c in columns},
        include_columns=list(columns),
        null_values=[""],  # the other NA words: _null_words, outside the id columns
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )
    # blocks of ~16 bytes a row (a quarter of a typical row): batches of about a quarter of
    # batch_rows, so that the reader's read-ahead of a few blocks stays small
    read = pcsv.ReadOptions(block_size=max(1 << 12, min(batch_rows * 16, 1 << 26)))
    parse = pcsv.ParseOptions(delimiter=delimiter(path), newlines_in_values=False)
    offset = 0
    try:
        # compressed or not by the content, as the in-memory reader (Arrow goes by the name)
        source = pa.input_stream(str(path), compression="gzip" if is_gzip(path) else None)
        reader = pcsv.open_csv(
            source, read_options=read, parse_options=parse, convert_options=convert
        )
        for rb in reader:
            if rb.num_rows == 0:
                continue
            cols = {
                name: rb.column(i) if name in ids else _null_words(rb.column(i))
                for i, name in enumerate(rb.schema.names)
            }
            yield Batch(str(path), offset, rb.num_rows, cols)
            offset += rb.num_rows
    except pa.ArrowInvalid as err:
        msg = str(err).splitlines()[0]
        if "straddling" in msg or "block" in msg:
            msg = "a row longer than the reader's block (binary content, or no line breaks?)"
        raise FormatError(f"{path}: not valid CSV after data row {offset} ({msg})") from err
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: after data row {offset}: not UTF-8 text") from err
    except OSError as err:  # Arrow's "Truncated compressed stream" (no errno)
        if err.errno is None and is_gzip(path):
            raise damaged_gzip(path, err) from err
        raise


def _parquet_batches(path: Path, columns: Sequence[str], batch_rows: int) -> Iterator[Batch]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
        strings = [
            c
            for c in columns
            if c in schema.names
            and (
                pa.types.is_string(schema.field(c).type)
                or pa.types.is_large_string(schema.field(c).type)
            )
        ]
        if strings:
            pf = pq.ParquetFile(path, read_dictionary=strings)
        offset = 0
        for rb in pf.iter_batches(batch_size=batch_rows, columns=list(columns), use_threads=True):
            cols = {name: rb.column(i) for i, name in enumerate(rb.schema.names)}
            yield Batch(str(path), offset, rb.num_rows, cols)
            offset += rb.num_rows
    except (pa.ArrowException, OSError) as err:
        raise FormatError(f"{path}: not a readable Parquet file ({err})") from err


def _jsonl_batches(path: Path, columns: Sequence[str], batch_rows: int) -> Iterator[Batch]:
    import pandas as pd

    wanted = list(columns)
    records: list[dict[str, Any]] = []
    offset = 0

    def flush() -> Batch:
        df = records_frame(records)
        cols = {c: (df[c] if c in df.columns else pd.Series([None] * len(df))) for c in wanted}
        return Batch(str(path), offset, len(records), cols)

    try:
        with _open_text(path) as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                obj = json_object(path, lineno, line)
                records.append({c: obj.get(c) for c in wanted})
                if len(records) >= batch_rows:
                    yield flush()
                    offset += len(records)
                    records = []
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: not UTF-8 text") from err
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise damaged_gzip(path, err) from err
    if records:
        yield flush()
