"""One output file, written safely: checks before the work, a temporary sibling renamed over the
target, errors that name the file; and the low-level helpers the directory writer shares."""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import glob
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from passhat.errors import OptionError, OutputError, PasshatError

__all__ = ["FileContent", "atomic_path", "check_file", "input_paths", "reason", "write_bytes"]

#: What an output file is made from: bytes, text (UTF-8) or a function that writes the file at
#: the path it is given (e.g. ``lambda p: frame.to_parquet(p)``).
FileContent = bytes | str | Callable[[Path], None]

TMP = ".passhat-tmp"
_REASONS = {
    errno.ENOSPC: "disk full (no space left on device)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.EFBIG: "file too large (file system limit or ulimit -f)",
}


# ----------------------------------------------------------------- inputs
def input_paths(*sources: Any) -> tuple[Path, ...]:
    """The files and directories a command read, from paths or from what passhat read them into.

    Accepts paths, :class:`~passhat.Trials` and :class:`~passhat.Traces` (their ``source``
    records the path), count tables (``attrs["source_path"]``) and None (skipped). Bundled
    examples have no path. A glob pattern (``runs/*.csv``, read as one dataset) stands for
    itself and every file it matches.

    Examples
    --------
    >>> [p.name for p in input_paths("runs.csv", None)]
    ['runs.csv']
    """
    out: list[Path] = []
    for src in sources:
        if src is None:
            continue
        if isinstance(src, str | os.PathLike):
            path: Any = src
        elif isinstance(getattr(src, "source", None), Mapping):
            path = src.source.get("path")
        else:
            path = getattr(src, "attrs", {}).get("source_path")
        if path:
            out.extend(_and_real(abs_path(path)))
            if is_pattern(out[-1]):
                for f in sorted(glob.glob(os.fspath(path), recursive=True)):
                    out.extend(_and_real(abs_path(f)))
    return tuple(dict.fromkeys(out))


def _and_real(path: Path) -> list[Path]:
    """A path and, when links lead elsewhere, the file they lead to (an input reached through a
    link is protected where it really is)."""
    real = Path(os.path.realpath(path))
    return [path] if real == path else [path, real]


def input_inodes(inputs: Iterable[Path]) -> frozenset[tuple[int, int]]:
    """(device, inode) of the inputs that are files: a hard link to an input, under any name, is
    the input.

    Examples
    --------
    >>> input_inodes([Path("no-such-file")])
    frozenset()
    """
    found = set()
    for src in inputs:
        try:
            st = os.stat(src)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            found.add((st.st_dev, st.st_ino))
    return frozenset(found)


def not_writable(folder: Path) -> str:
    """Why passhat cannot write in ``folder``: a read-only file system, or no permission."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        pass
    return "permission denied"


def is_pattern(path: Path) -> bool:
    """A path that names no file but holds glob characters (an input read as a dataset)."""
    return not os.path.lexists(path) and any(ch in str(path) for ch in "*?[")


def abs_path(path: str | os.PathLike[str]) -> Path:
    """Absolute and normalised, the last component not resolved (a link stays a link)."""
    return Path(os.path.abspath(os.fspath(path)))


def same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (by name, and by the real paths)."""
    if path == folder or folder in path.parents:
        return True
    try:
        real, real_folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    except OSError:  # pragma: no cover - realpath does not raise on Linux
        return False
    return real == real_folder or real_folder in real.parents


def check_inputs(target: Path, inputs: Iterable[Path], *, what: str) -> None:
    for src in inputs:
        if is_pattern(src) and fnmatch.fnmatchcase(str(target), str(src)):
            raise OptionError(
                f"{target}: {what} matches the input pattern {src}; passhat never writes into "
                "its input (choose an output path the pattern does not match)"
            )
        if same(target, src):
            raise OptionError(
                f"{target}: {what} is an input of this command; passhat never writes over its "
                "input (choose another output path)"
            )
        if src.is_dir() and inside(target, src):
            raise OptionError(
                f"{target}: {what} lies inside the input directory {src}; writing there would "
                "change the input (choose an output outside it)"
            )


def check_parent(target: Path) -> None:
    """The nearest existing ancestor of ``target`` is a directory passhat may write in."""
    anc = target.parent
    while not os.path.lexists(anc):
        anc = anc.parent
    if not anc.is_dir():
        raise OptionError(f"{anc}: is a file, not a directory, so {target} cannot be created")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: {not_writable(anc)}: cannot write in {anc}")


# ------------------------------------------------------------- single file
def check_file(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Refuse a bad output file before any work; return its absolute path.

    Refused (:class:`~passhat.errors.OptionError`): an input of the command (always), an
    existing directory, an existing file or a symbolic link without ``force``, a parent that is
    a file. A parent without write permission is an :class:`~passhat.errors.OutputError`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "fit.nc"
    >>> check_file(f) == f
    True
    >>> _ = f.write_text("x")
    >>> check_file(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: ...fit.nc: exists; pass --force (force=True) to replace it
    """
    if not os.fspath(path):  # `-o "$OUT"` with OUT unset: never the current directory
        raise OptionError(
            "the output file (-o FILE) is an empty path; give a file name, e.g. fit.nc"
        )
    p = abs_path(path)
    check_inputs(p, inputs, what="the output file")
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None  # a parent is a file: _check_parent names it
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            if not force:
                raise OptionError(
                    f"{p}: is a symbolic link; passhat does not write through links (remove it, "
                    "or pass --force to replace the link itself)"
                )
        elif stat.S_ISDIR(st.st_mode):
            raise OptionError(f"{p}: is a directory; give a file name, e.g. {p / 'fit.nc'}")
        elif not force:
            raise OptionError(f"{p}: exists; pass --force (force=True) to replace it")
    check_parent(p)
    return p


@contextlib.contextmanager
def io_errors(where: list[Path], *, replaced: str = "nothing was replaced") -> Iterator[None]:
    """Turn an OSError into an OutputError naming ``where[-1]`` (the file being written)."""
    try:
        yield
    except PasshatError:
        raise
    except OSError as err:
        raise OutputError(f"{where[-1]}: cannot write: {reason(err)}; {replaced}") from err


def reason(err: OSError) -> str:
    """Why a write failed, in words (disk full, read-only file system, ...).

    Examples
    --------
    >>> reason(OSError(errno.EROFS, "Read-only file system"))
    'read-only file system'
    """
    return _REASONS.get(err.errno or 0, err.strerror or str(err))


def umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def file_mode() -> int:
    """Mode of a new file as ``open()`` would make it (0o644 under the usual umask)."""
    return 0o666 & ~umask()


def dir_mode() -> int:
    """Mode of a new directory as ``mkdir`` would make it (0o755 under the usual umask)."""
    return 0o777 & ~umask()


def fsync_path(path: Path, *, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    except OSError as err:  # some file systems cannot sync a directory
        if not directory or err.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def write_into(path: Path, content: FileContent) -> None:
    """Write ``path`` (new, or a temporary file of ours; never through a link), flush it to
    disk and give it the usual file mode."""
    if callable(content):
        content(path)
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise OSError(errno.EINVAL, "the writer did not create a regular file", str(path))
    else:
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        fd = os.open(path, flags, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    os.chmod(path, file_mode())
    fsync_path(path)


def temp_sibling(target: Path) -> Path:
    """A new empty file beside ``target`` (same directory: same file system, so the rename is
    atomic), readable by the owner only until it is complete."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP, dir=target.parent)
    os.close(fd)
    return Path(name)


@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[Path] = (),
    force: bool = False,
) -> Iterator[Path]:
    """Write a file by writing a temporary sibling (the yielded path), renamed over ``path`` at
    the end; on any error or interrupt the temporary file is removed and ``path`` is untouched.

    Checked as :func:`check_file` (again at the rename, in case a link was planted meanwhile).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_path(f) as tmp:
    ...     _ = tmp.write_text("done")
    >>> f.read_text(), [p.name for p in f.parent.iterdir()]
    ('done', ['out.txt'])
    """
    inputs = tuple(inputs)
    p = check_file(path, inputs=inputs, force=force)
    where = [p]
    tmp: Path | None = None
    try:
        with io_errors(where):
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = temp_sibling(p)
            yield tmp
            if not stat.S_ISREG(os.lstat(tmp).st_mode):
                raise OSError(errno.EINVAL, "the writer did not create a regular file", str(tmp))
            os.chmod(tmp, file_mode())
            fsync_path(tmp)
            check_file(p, inputs=inputs, force=force)  # a link or file planted meanwhile
            os.replace(tmp, p)  # replaces a link itself, never its target
            tmp = None
            fsync_path(p.parent, directory=True)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_bytes(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    inputs: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically (see :func:`atomic_path`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> write_bytes(pathlib.Path(tempfile.mkdtemp()) / "a.csv", "x,y\\n").read_text()
    'x,y\\n'
    """
    with atomic_path(path, inputs=inputs, force=force) as tmp:
        write_into(tmp, data)
    return abs_path(path)
