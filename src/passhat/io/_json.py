"""Shared JSON helpers for readers: every parse error, and nesting too deep to parse (``[`` ×
100,000), is a :class:`~passhat.errors.FormatError` naming the file and line."""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import Any

from passhat.errors import FormatError

__all__ = [
    "damaged_gzip",
    "file_stem",
    "is_gzip",
    "json_object",
    "jsonl_objects",
    "load_json",
    "message_text",
    "missing",
    "not_utf8",
    "records_frame",
    "refuse_wide",
    "reward_success",
    "scenario_fingerprint",
    "too_deep",
    "wide_encoding",
]


#: The longest whole-number literal read (Python converts at most 4,300 digits to an int; no count,
#: trial number, id or reward needs more than a few dozen).
MAX_INT_DIGITS = 4300


class LongNumber(ValueError):
    """A whole-number literal longer than :data:`MAX_INT_DIGITS` digits."""


def parse_int(text: str) -> int:
    """``int(text)`` for a JSON whole number, or :class:`LongNumber` when it is absurdly long.

    Examples
    --------
    >>> parse_int("-12")
    -12
    >>> parse_int("9" * 5000)
    Traceback (most recent call last):
    ...
    passhat.io._json.LongNumber: 5000
    """
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise LongNumber(digits)
    return int(text)


def long_number(path: Path, err: LongNumber, lineno: int | None = None) -> FormatError:
    """The error for a whole number of more than :data:`MAX_INT_DIGITS` digits."""
    at = f"line {lineno}: " if lineno is not None else ""
    return FormatError(
        f"{path}: {at}a number of {err.args[0]:,} digits: too long for a count, trial, id or "
        f"reward (at most {MAX_INT_DIGITS:,} digits)"
    )


def load_json(path: Path, *, expected: str | None = None) -> Any:
    """Parse a JSON file; a syntax error names the line and column.

    Parameters
    ----------
    path : Path
        The file.
    expected : str, optional
        What the file should be (e.g. ``"τ-bench result file"``); named in the
        error when the file is not JSON at all.
    """
    what = f"not a {expected}: " if expected else ""
    _refuse_nul(path, what)
    try:
        with _open_json(path) as fh:
            return json.load(fh, parse_int=parse_int, object_pairs_hook=_unique_keys)
    except LongNumber as err:
        raise long_number(path, err) from None
    except _DuplicateKey as err:
        raise FormatError(
            f"{path}: {what}key {err.args[0]!r} appears twice in one object; which value holds "
            "is a guess"
        ) from None
    except json.JSONDecodeError as err:
        raise FormatError(
            f"{path}: {what}line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})"
        ) from err
    except UnicodeDecodeError as err:
        raise FormatError(f"{path}: {what}not a UTF-8 text file") from err
    except IsADirectoryError as err:
        raise FormatError(f"{path}: {what}a directory, not a JSON file") from err
    except RecursionError as err:
        raise too_deep(path) from err
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise damaged_gzip(path, err) from err


def is_gzip(path: Path) -> bool:
    """Whether a file starts with the gzip magic bytes."""
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def damaged_gzip(path: Path, err: BaseException) -> FormatError:
    """The error for a gzip file whose stream breaks off (truncated, or damaged)."""
    return FormatError(
        f"{path}: a damaged gzip file ({type(err).__name__}: {err}); is it truncated?"
    )


def _open_json(path: Path, mode: str = "rt") -> Any:
    """A JSON file for reading, gzip-compressed (``results.json.gz``) or not."""
    if mode == "rb":
        return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")
    if is_gzip(path):
        return gzip.open(path, "rt", encoding="utf-8-sig")
    return open(path, encoding="utf-8-sig")


def file_stem(path: Path) -> str:
    """A file's name without its extension, a ``.gz`` looked through (the system name of a file
    that names none).

    Examples
    --------
    >>> file_stem(Path("runs/gpt-4o.json.gz")), file_stem(Path("gpt-4o.json"))
    ('gpt-4o', 'gpt-4o')
    """
    p = Path(path.stem) if path.suffix.lower() in (".gz", ".gzip") else path
    return p.stem


def too_deep(path: Path, line: int | None = None) -> FormatError:
    """The error for JSON nested more deeply than Python's parser can follow.

    Examples
    --------
    >>> print(too_deep(Path("x.json"), 3))
    x.json: line 3: JSON nested too deeply to read (over ~1,000 levels of [ or {)
    """
    where = f"{path}: line {line}: " if line is not None else f"{path}: "
    return FormatError(f"{where}JSON nested too deeply to read (over ~1,000 levels of [ or {{)")


def _refuse_nul(path: Path, what: str) -> None:
    """A NUL byte anywhere (a sparse, truncated or binary file) is refused before parsing: a
    1 MiB-block scan, so a 2 GB file of zeros fails in a second, not after loading it."""
    try:
        with _open_json(path, "rb") as fh:
            offset = 0
            for block in iter(lambda: fh.read(1 << 20), b""):
                at = block.find(b"\x00")
                if at >= 0:
                    raise FormatError(
                        f"{path}: {what}byte {offset + at} is NUL: a binary file, not JSON text"
                    )
                offset += len(block)
    except (IsADirectoryError, FileNotFoundError, PermissionError, EOFError, zlib.error):
        return  # the JSON reader reports these


def wide_encoding(raw: bytes) -> str | None:
    """``"UTF-16"`` / ``"UTF-32"`` when the first bytes of a file are text in that encoding (a
    byte-order mark, or ASCII with every other byte NUL, as Windows tools write); else None.

    Examples
    --------
    >>> wide_encoding("task_id,success".encode("utf-16")), wide_encoding(b"task_id")
    ('UTF-16', None)
    >>> wide_encoding("task_id,n".encode("utf-16-le"))
    'UTF-16'
    """
    for bom, name in (
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
    ):
        if raw.startswith(bom):
            return name
    sample = raw[: min(len(raw), 512) // 2 * 2]
    if len(sample) >= 4 and b"\x00" in sample:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) == len(odd) and even.count(0) == 0:
            return "UTF-16"
        if even.count(0) == len(even) and odd.count(0) == 0:
            return "UTF-16"
    return None


def refuse_wide(path: Path) -> None:
    """A UTF-16 or UTF-32 file (Excel's "Unicode text", PowerShell's redirect) is refused with
    the fix, not called binary."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as gz:
                raw = gz.read(4096)
    except (OSError, EOFError):
        return  # the reader reports an unreadable file
    name = wide_encoding(raw)
    if name is not None:
        raise FormatError(
            f"{path}: {name} text; passhat reads UTF-8: save the file as UTF-8 "
            f"(e.g. iconv -f {name} -t UTF-8)"
        )


def missing(path: Path) -> str:
    """The message for a path that does not exist, or a symbolic link that leads nowhere.

    Examples
    --------
    >>> missing(Path("nope.csv"))
    'nope.csv: no such file or directory'
    """
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except RuntimeError:  # Python < 3.13
            return f"{path}: a symbolic link that loops (it leads back to itself)"
        except OSError as err:
            if err.errno == errno.ELOOP:  # Python ≥ 3.13
                return f"{path}: a symbolic link that loops (it leads back to itself)"
        return f"{path}: a symbolic link to {os.readlink(path)!r}, which does not exist"
    return f"{path}: no such file or directory"


def not_utf8(path: Path, what: str = "") -> FormatError:
    """The error for a text file that is not UTF-8, naming the line and byte of the first bad byte.

    Examples
    --------
    >>> import tempfile, os
    >>> f = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = f.write_bytes(b"a,b\\nt\\xff,1\\n")
    >>> str(not_utf8(f)).endswith("line 2: byte 0xff is not UTF-8; save the file as UTF-8")
    True
    """
    import codecs

    refuse_wide(path)  # UTF-16 from Windows tools: say which encoding, not "byte 0xff"
    where = "not UTF-8 text"
    try:
        decoder = codecs.getincrementaldecoder("utf-8")()
        lines = 0
        with open(path, "rb") as fh:  # in blocks: the file may be large
            for block in iter(lambda: fh.read(1 << 20), b""):
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as err:
                    start = max(err.start, 0)
                    line = lines + block.count(b"\n", 0, start) + 1
                    where = f"line {line}: byte 0x{block[start]:02x} is not UTF-8"
                    break
                lines += block.count(b"\n")
    except OSError:
        pass
    return FormatError(f"{path}: {what}{where}; save the file as UTF-8")


def scenario_fingerprint(obj: Any) -> str:
    """A short, stable hash of a task definition (canonical JSON)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON-lines file with their line numbers (blank lines skipped).

    A line that is not valid JSON, or not an object, is a :class:`FormatError`
    naming the line.
    """
    out: list[tuple[int, dict[str, Any]]] = []
    try:
        with _open_json(path) as fh:  # gzip too, as the streamed reader reads it
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                out.append((lineno, json_object(path, lineno, line)))
    except UnicodeDecodeError as err:
        raise not_utf8(path) from err
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise damaged_gzip(path, err) from err
    return out


def records_frame(records: list[dict[str, Any]]) -> Any:
    """JSON records as a pandas DataFrame whose columns keep what JSON wrote: a column mixing
    whole numbers and decimals (ids ``1`` and ``1.0``, or ``7`` and ``null``) stays Python
    objects instead of becoming float, so the id ``1`` is not read as ``1.0`` (nor
    ``12345678901234567`` as ``1.2345678901234568e16``).

    Examples
    --------
    >>> df = records_frame([{"task_id": 1, "score": 0.5}, {"task_id": 1.0, "score": 1}])
    >>> [str(v) for v in df["task_id"]], df["score"].tolist()
    (['1', '1.0'], [0.5, 1])
    """
    import pandas as pd

    df = pd.DataFrame.from_records(records)
    for col in df.columns[(df.dtypes == "float64").to_numpy()]:
        vals = [r.get(col) for r in records]
        if any(type(v) is int for v in vals):
            df[col] = pd.Series(vals, index=df.index, dtype=object)
    return df


def json_object(path: Path, lineno: int, line: str) -> dict[str, Any]:
    """One line of a JSON-lines file as an object; NUL bytes, bad JSON, deep nesting and
    non-objects are errors naming the line."""
    if "\x00" in line:
        raise FormatError(f"{path}: line {lineno}: NUL bytes: a binary file, not JSON lines")
    try:
        obj = json.loads(line, object_pairs_hook=_unique_keys, parse_int=parse_int)
    except LongNumber as err:
        raise long_number(path, err, lineno) from None
    except json.JSONDecodeError as err:
        raise FormatError(f"{path}: line {lineno}: not valid JSON ({err.msg})") from err
    except RecursionError as err:
        raise too_deep(path, lineno) from err
    except _DuplicateKey as err:
        raise FormatError(
            f"{path}: line {lineno}: key {err.args[0]!r} appears twice in one object; which "
            "value holds is a guess"
        ) from None
    if not isinstance(obj, dict):
        raise FormatError(
            f"{path}: line {lineno}: expected a JSON object, got {type(obj).__name__}"
        )
    return obj


class _DuplicateKey(Exception):
    """A JSON object names a key twice (``json`` would keep the last value silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def reward_success(reward: float, where: str) -> bool:
    """τ-bench's and τ²-bench's rule, success = reward within 1e-6 of 1, for a reward in
    [0, 1]; a reward outside it (1.5, −1) is not one these benchmarks write, and calling it a
    failure would be a guess: a FormatError naming the record.

    Examples
    --------
    >>> reward_success(0.9999995, "r"), reward_success(0.5, "r")
    (True, False)
    >>> reward_success(1.5, "runs.json: record 3")
    Traceback (most recent call last):
    ...
    passhat.errors.FormatError: runs.json: record 3: reward 1.5 is outside [0, 1] (success is \
a reward of 1); check the file
    """
    if not -1e-6 <= reward <= 1 + 1e-6:
        raise FormatError(
            f"{where}: reward {reward:g} is outside [0, 1] (success is a reward of 1); "
            "check the file"
        )
    return abs(reward - 1.0) <= 1e-6


def message_text(content: Any) -> str:
    """The text of a message's content: a string, or the ``text`` of its parts joined.

    Examples
    --------
    >>> message_text([{"type": "text", "text": "Error: "}, {"text": "no such user"}])
    'Error: no such user'
    >>> message_text(None)
    ''
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = []
        for c in content:
            t = getattr(c, "text", None)
            if t is None and isinstance(c, dict):
                t = c.get("text")
            parts.append(str(t) if t is not None else "")
        return "".join(parts)
    return str(content)
