"""Helpers of the safe-write tests (not a test module): a full disk, leftovers, snapshots.

Used by tests/write, tests/report and tests/commands."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any


class FullDisk:
    """Stands in for :mod:`os` in ``passhat._write.files``: ``write`` fails with ENOSPC once
    ``budget`` bytes have been written, as a full disk does."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: Any) -> int:
        if len(data) > self.budget:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.budget -= len(data)
        return os.write(fd, data)


def leftovers(folder: Path) -> list[str]:
    """Hidden temporary or staging entries passhat may leave behind (none expected)."""
    return sorted(
        p.name
        for p in folder.iterdir()
        if ".passhat-" in p.name and p.name != ".passhat-manifest.json"
    )


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: file bytes, or ``-> target`` for a link."""
    out: dict[str, bytes | str] = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = f"-> {os.readlink(p)}"
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


def can_mount() -> bool:
    """Whether this machine lets a test mount a small file system of its own (a user and mount
    namespace: ``unshare -rm``, no privileges needed where the kernel allows it)."""
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    probe = "d=$(mktemp -d) && mount -t tmpfs -o size=8k tmpfs $d && umount $d && rmdir $d"
    try:
        res = subprocess.run(["unshare", "-rm", "sh", "-c", probe], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return res.returncode == 0


def in_small_fs(mount: Path, script: str, *, size_kb: int = 16, timeout: float = 120) -> Any:
    """Run the shell ``script`` with a fresh tmpfs of ``size_kb`` KiB mounted at ``mount`` (a real
    full disk: writes there fail with ENOSPC); ``remount_ro`` in the script makes it read-only.
    Returns the completed process (stdout, stderr as text)."""
    import subprocess

    mount.mkdir(parents=True, exist_ok=True)
    setup = (
        f"mount -t tmpfs -o size={size_kb}k tmpfs '{mount}' || exit 99\n"
        f"remount_ro() {{ mount -o remount,ro '{mount}'; }}\n"
    )
    return subprocess.run(
        ["unshare", "-rm", "bash", "-c", setup + script],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
