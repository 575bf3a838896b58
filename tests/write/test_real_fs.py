"""Outputs on a real full disk and a real read-only file system (issue 33, items 1, 2 and 11).

A small tmpfs is mounted in a user and mount namespace of the test's own (``unshare -rm``): a
write there fails with ENOSPC as on a full disk, and ``mount -o remount,ro`` makes it read-only
(EROFS). No stand-in for :mod:`os`: the kernel refuses. The tests are skipped where the kernel
does not allow such namespaces.

Oracles: the exit status and the one line on stderr (docs/guide/cli.md), and the files' bytes
(SHA-256 printed from inside the namespace) before and after.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from write_testdata import can_mount, in_small_fs

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or not can_mount(),
    reason="needs a user and mount namespace (unshare -rm) to mount a small tmpfs",
)

PASSHAT = f"{shlex.quote(sys.executable)} -m passhat.cli"
EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "passhat" / "examples" / "agents.csv"


def test_stdout_on_a_full_disk(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    proc = in_small_fs(
        mnt,
        f"{PASSHAT} estimate {EXAMPLE} --per-task --csv > {mnt}/est.csv; echo rc=$?; "
        f"stat -c %s {mnt}/est.csv",
    )
    assert proc.stdout.split() == ["rc=4", "0"], proc.stderr
    assert proc.stderr == (
        f"passhat: error: {mnt}/est.csv (standard output): cannot write: disk full (no space "
        "left on device); the partial output was removed\n"
    )


def test_report_on_a_full_disk_keeps_the_previous_report(tmp_path: Path) -> None:
    """The first report fits; the second (built whole beside the first) fills the disk. Both
    run in one interpreter (``passhat.cli.main`` twice), the snapshots taken between."""
    mnt = tmp_path / "mnt"
    code = (
        "import hashlib, pathlib, sys\n"
        "from passhat.cli import main\n"
        f"rep = pathlib.Path({str(mnt / 'rep')!r})\n"
        "def snap():\n"
        "    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()\n"
        "            for p in sorted(rep.rglob('*')) if p.is_file()}\n"
        "args = ['report', '--example', 'abcd', '-o', str(rep), '--no-model', '-q']\n"
        "assert main([*args, '--title', 'one']) == 0\n"
        "before = snap()\n"
        "rc = main([*args, '--title', 'two'])\n"
        "print('rc', rc, 'same', snap() == before, 'index', any('index' in p for p in before))\n"
        "print(*sorted(p.name for p in rep.parent.iterdir()))\n"
    )
    proc = in_small_fs(mnt, f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}", size_kb=720)
    assert proc.stdout.splitlines()[-2:] == ["rc 4 same True index True", "rep"], proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"passhat: error: {mnt}/rep"), proc.stderr
    assert "cannot write: disk full" in line and "the previous output is unchanged" in line


def test_fit_output_on_a_full_disk(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    proc = in_small_fs(
        mnt,
        f"echo previous > {mnt}/fit.nc\n"
        f"{PASSHAT} fit --example abcd --method grid --draws 100 --chains 2 -q -o {mnt}/fit.nc"
        f" --force > /dev/null; echo rc=$?; cat {mnt}/fit.nc; ls -A {mnt}",
    )
    assert proc.stdout.split() == ["rc=4", "previous", "fit.nc"], proc.stderr
    assert proc.stderr == (
        f"passhat: error: {mnt}/fit.nc: cannot write: disk full (no space left on device); "
        "nothing was replaced\n"
    )


@pytest.mark.parametrize(
    ("argv", "target"),
    [
        (["fit", "--example", "abcd", "-q", "-o"], "fit.nc"),
        (["report", "--example", "abcd", "--no-model", "-q", "-o"], "rep"),
    ],
    ids=["fit", "report"],
)
def test_read_only_file_system_is_named(tmp_path: Path, argv: list[str], target: str) -> None:
    """Before: "permission denied" (``os.access`` says no to both)."""
    mnt = tmp_path / "mnt"
    proc = in_small_fs(mnt, f"remount_ro\n{PASSHAT} {shlex.join(argv)} {mnt}/{target}; echo rc=$?")
    assert proc.stdout.strip() == "rc=4", proc.stderr
    assert proc.stderr == (
        f"passhat: error: {mnt}/{target}: read-only file system: cannot write in {mnt}\n"
    )
