"""The size guard of an Inspect AI ``.eval`` archive (a zip file): members that inflate absurdly,
or past the size the archive declares, are refused before the log is read.

Examples
--------
>>> import tempfile, zipfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "run.eval"
>>> with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as zf:
...     zf.writestr("header.json", "{}")
>>> check_zip_sizes(f)  # a small, honest archive passes
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from passhat.errors import FormatError

__all__ = [
    "MAX_LOG_BYTES",
    "MAX_MEMBER_BYTES",
    "MAX_RATIO",
    "check_zip_sizes",
    "unreadable_eval",
]

#: An .eval member larger than this when inflated, at a ratio above ``MAX_RATIO``, is refused.
MAX_MEMBER_BYTES = 32 * 2**20
MAX_RATIO = 100
#: Most an .eval archive may inflate to in all.
MAX_LOG_BYTES = 4 * 2**30


def unreadable_eval(path: Path, err: BaseException) -> FormatError:
    """The error for an ``.eval`` file that is not a readable zip archive (truncated, damaged,
    or not a log at all), saying what Inspect writes and why this one cannot be read.

    Examples
    --------
    >>> print(unreadable_eval(Path("run.eval"), zipfile.BadZipFile("File is not a zip file")))
    run.eval: an unreadable Inspect AI .eval log: an .eval log is a zip archive, and this one \
cannot be opened (File is not a zip file); is it truncated or still being written?
    """
    why = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return FormatError(
        f"{path}: an unreadable Inspect AI .eval log: an .eval log is a zip archive, and this "
        f"one cannot be opened ({why[:200]}); is it truncated or still being written?"
    )


def check_zip_sizes(path: Path) -> None:
    """Refuse an ``.eval`` archive whose members inflate absurdly (a zip bomb, or a corrupt
    size), from the sizes its directory declares, before anything is inflated.

    JSON compresses about 5–20 times; a member that inflates more than :data:`MAX_RATIO`
    times to over 32 MiB is not a log of samples.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError) as err:
        raise unreadable_eval(path, err) from err
    total = 0
    for info in infos:
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > MAX_MEMBER_BYTES and ratio > MAX_RATIO:
            raise FormatError(
                f"{path}: member {info.filename!r} inflates {ratio:,.0f} times to "
                f"{info.file_size / 2**20:,.0f} MiB; not a log of samples (a damaged or "
                "hostile archive)"
            )
    if total > MAX_LOG_BYTES:
        raise _too_big(path, total)
    _inflate_counted(path, infos)


def _too_big(path: Path, total: float) -> FormatError:
    return FormatError(
        f"{path}: inflates to {total / 2**30:,.1f} GiB, over the {MAX_LOG_BYTES // 2**30} GiB "
        "passhat reads from one log; split the evaluation into several logs"
    )


def _inflate_counted(path: Path, infos: list[zipfile.ZipInfo]) -> None:
    """Inflate every deflated member once, counting the bytes it really gives (never kept), and
    refuse the archive as soon as a member gives more than its directory declares (a size that
    lies: a zip bomb), or inflates absurdly, or the whole more than :data:`MAX_LOG_BYTES`. The
    declared sizes alone are not trusted: the compressed stream is read to its own end."""
    total = 0
    with open(path, "rb") as fh:
        for info in infos:
            if info.compress_type != zipfile.ZIP_DEFLATED:
                total += info.file_size  # stored: its bytes are the declared ones
                continue
            fh.seek(info.header_offset)
            local = fh.read(30)
            if len(local) < 30 or local[:4] != b"PK\x03\x04":
                raise unreadable_eval(path, zipfile.BadZipFile("bad local file header"))
            name_len, extra_len = (
                int.from_bytes(local[26:28], "little"),
                int.from_bytes(local[28:30], "little"),
            )
            fh.seek(info.header_offset + 30 + name_len + extra_len)
            given = _inflated_size(fh, limit=info.file_size)
            if given > info.file_size:
                raise FormatError(
                    f"{path}: member {info.filename!r} declares {info.file_size:,} bytes and "
                    "inflates to more; not a log of samples (a damaged or hostile archive)"
                )
            total += given
            if total > MAX_LOG_BYTES:
                raise _too_big(path, total)


def _inflate_chunks(fh: Any) -> Iterator[bytes]:
    """The inflated chunks of the raw deflate stream at ``fh``'s position, 1 MiB at most each."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    while not inflater.eof:
        data = inflater.unconsumed_tail or fh.read(1 << 16)
        if not data:
            return
        try:
            out = inflater.decompress(data, 1 << 20)
        except zlib.error:
            return  # a damaged stream: the reader says so
        yield out


def _inflated_size(fh: Any, *, limit: int) -> int:
    """Bytes the deflate stream at ``fh`` inflates to, counted up to ``limit`` + 1 only."""
    got = 0
    for chunk in _inflate_chunks(fh):
        got += len(chunk)
        if got > limit:
            return got
    return got
