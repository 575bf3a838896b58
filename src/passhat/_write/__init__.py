"""Safe writing of outputs: never over an input or a file passhat did not write, all or nothing.

Every file passhat writes goes through here: the report directory (:func:`write_tree`), a fit's
netCDF file and any other single file (:func:`atomic_path`, :func:`write_bytes`). The rules:

* **Checks first.** :func:`check_file` and :func:`check_tree` refuse a bad output path (an input
  of the command, an existing file without ``force``, a directory where a file goes, a parent that
  is a file, a symbolic link) in milliseconds, so a command can call them before its work.
* **Never over an input**, even with ``force``; **never over a file passhat did not write**
  unless ``force``: a report directory carries a manifest (:data:`MANIFEST`) listing the files
  passhat wrote and their SHA-256; a file of the report's names that is not listed, or that
  changed since, belongs to someone else.
* **Atomic.** A file is written to a temporary sibling, flushed to disk and renamed over the
  target. A report directory is built complete in a hidden sibling and swapped in with one
  rename, so a reader sees the old complete report or the new one; what the old report had and
  the new one lacks (a stale ``figures/ppc.png``) is gone with it. When the directory also holds
  other files, passhat's files are replaced one by one (each atomically) and the stale ones
  among them removed.
* **No symbolic link is followed**: a link planted where an output goes is refused (or, with
  ``force``, replaced by the file itself, never written through).
* **One writer at a time**: a lock beside the directory; a second writer waits up to
  ``lock_timeout`` seconds, then fails with a clear message.
* **Errors name the file**: an :class:`OSError` (disk full, permission, read-only file system)
  becomes :class:`~passhat.errors.OutputError` (exit status 4) saying which file and that
  nothing was replaced; an interrupt removes the temporary files.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
>>> paths = write_tree(d, {"a.txt": "one", "sub/b.bin": b"2"}, owned=("a.txt", "sub"))
>>> sorted(p.name for p in d.rglob("*"))
['.passhat-manifest.json', 'a.txt', 'b.bin', 'sub']
>>> _ = write_tree(d, {"a.txt": "new"}, owned=("a.txt", "sub"))  # sub/b.bin was passhat's: gone
>>> sorted(p.name for p in d.rglob("*"))
['.passhat-manifest.json', 'a.txt']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from passhat._lazy import lazy_exports

if TYPE_CHECKING:
    from passhat._write.files import (
        FileContent,
        atomic_path,
        check_file,
        input_paths,
        write_bytes,
    )
    from passhat._write.netcdf import write_netcdf
    from passhat._write.tree import MANIFEST, check_tree, write_tree

# lazy (start-up): every command imports passhat._write.stdout, which needs none of these
lazy_exports(
    __name__,
    {
        "passhat._write.files": (
            "FileContent", "atomic_path", "check_file", "input_paths", "write_bytes",
        ),
        "passhat._write.netcdf": ("write_netcdf",),
        "passhat._write.tree": ("MANIFEST", "check_tree", "write_tree"),
    },
)  # fmt: skip

__all__ = [
    "MANIFEST",
    "FileContent",
    "atomic_path",
    "check_file",
    "check_tree",
    "input_paths",
    "write_bytes",
    "write_netcdf",
    "write_tree",
]
