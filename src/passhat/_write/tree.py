"""A report directory, written safely: passhat's files told apart from foreign ones by a manifest,
the whole set built aside and swapped in, one writer at a time."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from passhat._write.files import (
    TMP,
    FileContent,
    abs_path,
    check_parent,
    dir_mode,
    fsync_path,
    input_inodes,
    inside,
    io_errors,
    not_writable,
    temp_sibling,
    write_into,
)
from passhat._write.journal import (
    JOURNAL,
    deferred_signals,
    journal_manifest,
    roll_forward,
    write_journal,
)
from passhat._write.lock import OLD, STAGING, clean_leftovers, locked
from passhat.errors import OptionError, OutputError

__all__ = ["MANIFEST", "check_tree", "write_tree"]

#: The manifest of a directory passhat wrote: which files are passhat's, with their SHA-256.
MANIFEST = ".passhat-manifest.json"


@dataclass
class _Tree:
    """What an output directory holds now, as far as the writer cares."""

    path: Path
    exists: bool
    manifest: dict[str, str] = field(default_factory=dict)
    ours: set[str] = field(default_factory=set)  # listed in the manifest, unchanged
    clashes: list[str] = field(default_factory=list)  # foreign, where the writer writes
    others: list[str] = field(default_factory=list)  # foreign, elsewhere (left alone)
    inputs_inside: bool = False
    inputs_here: list[str] = field(default_factory=list)  # owned names that are an input's inode


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_manifest(path: Path) -> dict[str, str] | None:
    """The manifest's files, or None when it is not a manifest passhat wrote."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
        files = doc["files"]
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
            return None
        return {str(k): v for k, v in files.items()}
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def _survey(
    out: Path, owned: Iterable[str], inodes: frozenset[tuple[int, int]] = frozenset()
) -> _Tree:
    """Sort the directory's entries into passhat's (unchanged since written) and foreign; note
    the files that are an input (``inodes``: their device and inode numbers)."""
    owned = set(owned) | {MANIFEST}
    try:
        st = os.lstat(out)
    except (FileNotFoundError, NotADirectoryError):  # missing, or a parent is a file
        return _Tree(out, exists=False)
    if stat.S_ISLNK(st.st_mode):
        raise OptionError(
            f"{out}: is a symbolic link; give the directory itself (passhat does not write "
            "through links)"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise OptionError(f"{out}: is a file, not a directory")
    tree = _Tree(out, exists=True)
    has_manifest = os.path.lexists(out / MANIFEST)
    listed = _read_manifest(out / MANIFEST) if has_manifest else {}
    if listed is None:
        tree.clashes.append(MANIFEST)
        listed = {}
    tree.manifest = listed
    decided = journal_manifest(out, owned)  # a decided write not yet completed: its files too
    if _is_input(out / MANIFEST, inodes):
        tree.inputs_here.append(MANIFEST)

    def visit(rel: str) -> None:
        name = rel.rsplit("/", 1)[-1]
        if name.startswith(".") and TMP in name:
            return  # a temporary file of an interrupted write (removed under the lock)
        full = out / rel
        st = os.lstat(full)
        if (st.st_dev, st.st_ino) in inodes:
            tree.inputs_here.append(rel)
        if stat.S_ISDIR(st.st_mode):
            for entry in sorted(os.listdir(full)):
                visit(f"{rel}/{entry}")
            return
        known = {listed.get(rel), decided.get(rel)} - {None}
        if stat.S_ISREG(st.st_mode) and known and _sha256(full) in known:
            tree.ours.add(rel)
        else:
            tree.clashes.append(rel)

    for entry in sorted(os.listdir(out)):
        if entry in (MANIFEST, JOURNAL):
            continue
        if entry in owned:
            visit(entry)
        elif entry.startswith(".") and (TMP in entry):
            continue  # a temporary file of an interrupted in-place write (removed under lock)
        else:
            tree.others.append(entry)
    return tree


def _is_input(path: Path, inodes: frozenset[tuple[int, int]]) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) in inodes


def _describe(names: list[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def check_tree(
    out_dir: str | os.PathLike[str],
    *,
    owned: Iterable[str],
    inputs: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Refuse a bad output directory before any work; return its absolute path.

    ``owned`` are the top-level names the writer writes (files and directories). Refused
    (:class:`~passhat.errors.OptionError`): a path that is a file or a symbolic link, a parent
    that is a file, an output inside an input directory or over an input file (always), and,
    without ``force``, a directory holding entries of the owned names that passhat did not write
    (no manifest, or changed since). Without permission to write: :class:`OutputError`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "results.json").write_text("{}")  # someone else's file
    >>> check_tree(d, owned=["results.json"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: ...: holds results.json, which passhat did not write ...
    """
    out = abs_path(out_dir)
    _inspect(out, tuple(owned), tuple(inputs), force)
    return out


def _inspect(
    out: Path,
    owned: tuple[str, ...],
    inputs: tuple[Path, ...],
    force: bool,
    files: Iterable[str] = (),
) -> _Tree:
    """Survey ``out`` and refuse what must be refused; ``files`` are the paths to be written."""
    for src in inputs:
        if src.is_dir() and inside(out, src):
            raise OptionError(
                f"{out}: the output directory lies inside the input directory {src}; writing "
                "there would change the input (choose an output outside it)"
            )
    tree = _survey(out, owned, input_inodes(inputs))
    if not tree.exists:
        check_parent(out)
        return tree
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputError(f"{out}: {not_writable(out)}: cannot write in this directory")
    if tree.inputs_here:
        raise OptionError(
            f"{out / tree.inputs_here[0]}: is an input of this command (the same file, "
            "reached through a link or under another name); passhat never writes over its "
            "input (choose another output directory)"
        )
    real_out = Path(os.path.realpath(out))
    for src in inputs:
        if inside(src, out):
            tree.inputs_inside = True
            rel = os.path.relpath(os.path.realpath(src), real_out)
            if rel.split(os.sep)[0] in set(owned) | {MANIFEST}:
                raise OptionError(
                    f"{src}: is an input of this command and has a name the output uses; "
                    "passhat never writes over its input (choose another output directory)"
                )
    if tree.clashes and not force:
        hint = (
            "it has no passhat manifest"
            if not os.path.lexists(out / MANIFEST)
            else "they are not in its passhat manifest or changed since"
        )
        raise OptionError(
            f"{out}: holds {_describe(tree.clashes)}, which passhat did not write ({hint}); "
            "choose an empty or new directory, or pass --force (force=True) to replace them"
        )
    for rel in files:
        target = out / rel
        if os.path.isdir(target) and not os.path.islink(target):
            raise OptionError(f"{target}: is a directory where passhat writes a file")
    return tree


def _cwd_in(out: Path) -> bool:
    try:
        return inside(Path.cwd(), out)
    except OSError:
        return False


def _swappable(tree: _Tree) -> bool:
    """Whether the whole directory may be replaced by a rename (nothing foreign would go)."""
    if not tree.exists:
        return True
    if tree.others or tree.inputs_inside or _cwd_in(tree.path):
        return False
    parent = tree.path.parent
    try:
        same_fs = os.stat(parent).st_dev == os.stat(tree.path).st_dev
    except OSError:
        return False
    return same_fs and os.access(parent, os.W_OK | os.X_OK)


def _manifest_text(hashes: Mapping[str, str]) -> str:
    from passhat._version import __version__

    doc = {
        "written_by": f"passhat {__version__}",
        "about": "files of this directory that passhat wrote (it replaces only these)",
        "files": dict(sorted(hashes.items())),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directory entries in one step (Linux renameat2 RENAME_EXCHANGE); False when the
    system cannot, so the caller renames in two steps."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.argtypes += [ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _check_keys(files: Mapping[str, FileContent], owned: tuple[str, ...]) -> None:
    for rel in files:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts or not parts or parts[0] not in owned:
            raise ValueError(f"write_tree: {rel!r} is not under one of the owned names {owned}")


def write_tree(
    out_dir: str | os.PathLike[str],
    files: Mapping[str, FileContent],
    *,
    owned: Iterable[str],
    inputs: Iterable[Path] = (),
    force: bool = False,
    lock_timeout: float = 30.0,
) -> dict[str, Path]:
    """Write ``files`` (relative path → content) into ``out_dir`` as one complete set.

    Parameters
    ----------
    out_dir : path
        The directory (created when missing).
    files : mapping
        Relative paths (``"index.html"``, ``"figures/ppc.png"``) → bytes, text or a function
        that writes the file at the path it is given.
    owned : iterable of str
        Top-level names this writer owns (e.g. ``index.html``, ``figures``); every key of
        ``files`` lies under one of them. Files of these names that passhat did not write are
        refused unless ``force``.
    inputs : iterable of Path
        Files and directories the command read: never written over (see :func:`input_paths`).
    force : bool
        Replace entries of the owned names that passhat did not write.
    lock_timeout : float
        Seconds to wait for another writer of the same directory.

    Returns
    -------
    dict
        Relative path → absolute path written.

    Raises
    ------
    OptionError
        As :func:`check_tree` (checked again here, with the lock held).
    OutputError
        An OSError while writing (disk full, permission, ...), naming the file; the directory
        then holds the previous output, complete.
    """
    out = abs_path(out_dir)
    owned = tuple(owned)
    inputs = tuple(inputs)
    _check_keys(files, owned)
    where = [out]
    with io_errors(where, replaced="the previous output is unchanged"):
        if not out.exists():
            _inspect(out, owned, inputs, force)  # refuse before creating anything
            out.parent.mkdir(parents=True, exist_ok=True)
        with locked(out, lock_timeout):
            if os.path.isdir(out) and not os.path.islink(out):
                roll_forward(out, owned)  # a decided write that a killed writer left unfinished
            tree = _inspect(out, owned, inputs, force, files)
            if tree.exists:
                clean_leftovers(out, owned)
            if _swappable(tree):
                _swap_in(tree, files, where)
            else:
                _replace_in_place(tree, files, where, owned)
    return {rel: out / rel for rel in files}


def _swap_in(tree: _Tree, files: Mapping[str, FileContent], where: list[Path]) -> None:
    """Build the whole directory in a hidden sibling, then put it in place with one rename (an
    interrupt from then on waits until the old directory is removed: the new one is in place)."""
    out = tree.path
    built = Path(tempfile.mkdtemp(prefix=f".{out.name}{STAGING}", dir=out.parent))
    staging: Path | None = built  # what is left to remove on the way out
    try:
        hashes = {}
        for rel, content in files.items():
            target = built / rel
            where.append(out / rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_into(target, content)
            hashes[rel] = _sha256(target)
        where.append(out / MANIFEST)
        write_into(built / MANIFEST, _manifest_text(hashes))
        where.append(out)
        with deferred_signals():
            staging = _put_in_place(tree, built)
            if staging is not None:  # the old directory: removed before an interrupt counts
                shutil.rmtree(staging, ignore_errors=True)
                staging = None
            fsync_path(out.parent, directory=True)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _put_in_place(tree: _Tree, staging: Path) -> Path | None:
    """Rename the complete ``staging`` to the output; return the old directory to remove."""
    out = tree.path
    if not tree.exists:
        os.chmod(staging, dir_mode())
        os.rename(staging, out)  # fails when a directory appeared there meanwhile
        return None
    os.chmod(staging, stat.S_IMODE(os.stat(out).st_mode))
    if _exchange(staging, out):
        return staging  # now holds the old output
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}{OLD}", dir=out.parent))
    os.rename(out, old / "old")
    try:
        os.rename(staging, out)
    except OSError:
        os.rename(old / "old", out)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # empty: it was renamed
    return old


def _replace_in_place(
    tree: _Tree, files: Mapping[str, FileContent], where: list[Path], owned: tuple[str, ...]
) -> None:
    """Write every file beside its target first, then decide the write with a journal (the
    renames over the targets, the manifest last, and the files of the previous output that the
    new one lacks, plus, when forced, the foreign files of the owned names), then complete it
    (:mod:`passhat._write.journal`). Entries of other names are left alone."""
    out = tree.path
    temps: dict[str, Path] = {}
    try:
        hashes = {}
        for rel, content in files.items():
            target = out / rel
            where.append(target)
            _make_dirs(out, Path(rel).parent)
            tmp = temp_sibling(target)
            temps[rel] = tmp
            write_into(tmp, content)
            hashes[rel] = _sha256(tmp)
        manifest_tmp = temp_sibling(out / MANIFEST)
        temps[MANIFEST] = manifest_tmp
        write_into(manifest_tmp, _manifest_text(hashes))
        stale = sorted((set(tree.ours) | set(tree.clashes)) - set(files) - {MANIFEST})
        where.append(out / JOURNAL)
        write_journal(out, {rel: tmp.name for rel, tmp in temps.items()}, stale)
        temps = {}  # the journal's now: completed below, or by the next writer
        roll_forward(out, owned)
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _make_dirs(out: Path, rel_dir: Path) -> None:
    """Create ``out / rel_dir`` component by component; a link or file in the way is replaced
    (it was refused earlier unless the writer was forced)."""
    current = out
    for part in rel_dir.parts:
        current = current / part
        if os.path.islink(current) or (os.path.lexists(current) and not current.is_dir()):
            os.unlink(current)
        if not os.path.lexists(current):
            os.mkdir(current)
