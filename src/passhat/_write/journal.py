"""The commit of a write into a directory that cannot be swapped whole: a journal written first,
then completed, now or by the next writer.

When ``-o DIR`` also holds files passhat did not write (or the current directory is inside it),
passhat's files are replaced one by one. An interrupt (or SIGKILL, or a power cut) in the middle
of those renames left a mix of old and new files whose hashes matched neither manifest, and the
next run was refused until ``--force``. Now every new file is first written complete beside its
target, then a journal (:data:`JOURNAL`) lists the renames and removals still to do and the new
manifest: from the moment the journal exists the write is decided, and :func:`roll_forward`
completes it, at once, or on the next run of any passhat writer of the directory (under its
lock) if this one died. Before the journal exists, nothing of the old output has been touched
(the temporary files are removed, by this run or the next). SIGINT and SIGTERM that arrive while
a decided write completes wait for it (:func:`deferred_signals`): the command then reports the
outcome that happened, a complete new output.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / ".a.txt.x.passhat-tmp").write_text("new")
>>> write_journal(d, {"a.txt": ".a.txt.x.passhat-tmp"}, [])
>>> roll_forward(d, ("a.txt",)), (d / "a.txt").read_text(), (d / JOURNAL).exists()
(True, 'new', False)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from passhat._write.files import TMP, fsync_path, temp_sibling, write_into

__all__ = ["JOURNAL", "deferred_signals", "journal_manifest", "roll_forward", "write_journal"]

#: The journal of a decided in-place write, in the output directory.
JOURNAL = ".passhat-journal.json"
MANIFEST = ".passhat-manifest.json"

#: The rename the journal's steps use (a hook for the tests that kill a writer between two).
_rename = os.replace


@contextlib.contextmanager
def deferred_signals() -> Iterator[list[int]]:
    """While the block runs, SIGINT and SIGTERM are recorded (in the yielded list), not acted on:
    the block is the completion of a decided write, which an interrupt must not split. Outside
    the main thread, signals cannot be handled and the block runs as it is."""
    got: list[int] = []

    def record(signum: int, frame: Any) -> None:
        got.append(signum)

    try:
        old = {sig: signal.signal(sig, record) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield got
        return
    try:
        yield got
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def write_journal(out: Path, renames: Mapping[str, str], remove: Iterable[str]) -> None:
    """Decide a write: ``renames`` maps each relative path (the manifest last) to the name of
    its complete temporary sibling, ``remove`` lists the relative paths to delete. Written
    atomically and flushed to disk: once it is there, :func:`roll_forward` can finish."""
    doc = {
        "about": "an interrupted passhat write; the next passhat writer of this directory "
        "completes it",
        "rename": dict(renames),
        "remove": sorted(remove),
    }
    tmp = temp_sibling(out / JOURNAL)
    try:
        write_into(tmp, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, out / JOURNAL)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_path(out, directory=True)


def _read_journal(out: Path, owned: Iterable[str]) -> dict[str, Any] | None:
    """The journal's steps when it is one passhat wrote and every step stays inside the owned
    names (nothing else is ever renamed or removed); else None."""
    path = out / JOURNAL
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
        renames, remove = dict(doc["rename"]), list(doc["remove"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    names = set(owned) | {MANIFEST}

    def inside(rel: Any) -> bool:
        parts = Path(str(rel)).parts
        return bool(parts) and parts[0] in names and ".." not in parts and not parts[0] == "/"

    temps_ok = all(
        isinstance(t, str) and "/" not in t and t.startswith(".") and t.endswith(TMP)
        for t in renames.values()
    )
    if not (temps_ok and all(map(inside, renames)) and all(map(inside, remove))):
        return None
    return {"rename": renames, "remove": remove}


def journal_manifest(out: Path, owned: Iterable[str]) -> dict[str, str]:
    """The manifest a decided, unfinished write will leave (read from its temporary file), so
    that its files count as passhat's before it is completed; empty when there is none."""
    steps = _read_journal(out, owned)
    if steps is None or MANIFEST not in steps["rename"]:
        return {}
    tmp = out / steps["rename"][MANIFEST]
    try:
        files = json.loads(tmp.read_text(encoding="utf-8"))["files"]
        return {str(k): str(v) for k, v in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def roll_forward(out: Path, owned: Iterable[str]) -> bool:
    """Complete the decided write of ``out``, if a journal says there is one (with the writer's
    lock held): rename what is still to rename, remove what is still to remove, then the
    journal. A journal passhat did not write (or that names paths outside the owned names) is
    removed without a step. Returns whether a write was completed."""
    owned = tuple(owned)
    if not os.path.lexists(out / JOURNAL):
        return False
    steps = _read_journal(out, owned)
    if steps is None:
        with contextlib.suppress(OSError):
            os.unlink(out / JOURNAL)
        return False
    with deferred_signals():
        renames = steps["rename"]
        for rel in sorted(renames, key=lambda r: r == MANIFEST):  # the manifest last
            tmp = (out / rel).parent / renames[rel]
            if os.path.lexists(tmp):
                _rename(tmp, out / rel)  # a link there is replaced, never followed
        for rel in steps["remove"]:
            stale = out / rel
            if os.path.islink(stale) or os.path.isfile(stale):  # a directory made meanwhile stays
                os.unlink(stale)
            _prune_empty(out, Path(rel).parent)
        fsync_path(out, directory=True)
        os.unlink(out / JOURNAL)
        fsync_path(out, directory=True)
    return True


def _prune_empty(out: Path, rel_dir: Path) -> None:
    while rel_dir.parts:
        with contextlib.suppress(OSError):
            os.rmdir(out / rel_dir)
        rel_dir = rel_dir.parent
