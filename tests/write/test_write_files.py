"""One output file written safely (``passhat._write.files``): checks before the work, never over an
input, never through a link, atomic replacement, errors that name the file.

Oracles: the file system itself (bytes, inodes, links read back with ``os.lstat``) and errors
forced at the system-call level (a proxy of :mod:`os` whose ``write`` fails with ENOSPC after a
number of bytes, and a real ``ulimit -f`` in a child process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from passhat._write import atomic_path, check_file, input_paths, write_bytes
from passhat._write import files as files_mod
from passhat.errors import OptionError, OutputError
from write_testdata import FullDisk, leftovers


def test_new_file_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.txt"  # a missing parent is created
    assert write_bytes(target, "hello\n") == target
    assert target.read_text() == "hello\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert leftovers(target.parent) == []


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_existing_file_needs_force(tmp_path: Path) -> None:
    target = tmp_path / "fit.nc"
    target.write_text("good fit")
    with pytest.raises(OptionError, match=r"fit\.nc: exists; pass --force"):
        write_bytes(target, "new")
    assert target.read_text() == "good fit"
    write_bytes(target, "new", force=True)
    assert target.read_text() == "new"


def test_input_never_written_even_with_force(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    src.write_text("[1]")
    alias = tmp_path / "alias.json"
    os.link(src, alias)  # the same file under another name
    for target in (src, alias):
        with pytest.raises(OptionError, match="is an input of this command"):
            write_bytes(target, "x", inputs=input_paths(src), force=True)
    assert src.read_text() == "[1]"


def test_files_of_an_input_pattern_never_written(tmp_path: Path) -> None:
    # `passhat fit 'runs/*.csv' -o runs/a.csv --force` wrote the fit over the input part a.csv:
    # the pattern named no file, so nothing matched it as an input
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.csv").write_text("task_id,success\nt,1\n")
    (runs / "b.csv").write_text("task_id,success\nu,1\n")
    pattern = str(runs / "*.csv")
    assert set(input_paths(pattern)) == {Path(pattern), runs / "a.csv", runs / "b.csv"}
    for target in (runs / "a.csv", runs / "c.csv"):  # c.csv would join the input next time
        with pytest.raises(OptionError, match=r"matches the input pattern .*\*\.csv"):
            write_bytes(target, "x", inputs=input_paths(pattern), force=True)
    (tmp_path / "link.csv").symlink_to(runs / "a.csv")
    with pytest.raises(OptionError, match="is an input of this command"):
        write_bytes(tmp_path / "link.csv", "x", inputs=input_paths(pattern), force=True)
    assert (runs / "a.csv").read_text() == "task_id,success\nt,1\n"
    assert not (runs / "c.csv").exists()
    write_bytes(runs / "fit.nc", "x", inputs=input_paths(pattern))  # beside the parts: fine


def test_inside_an_input_directory_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(OptionError, match="inside the input directory"):
        check_file(run / "fit.nc", inputs=input_paths(run))


@pytest.mark.parametrize("force", [False, True])
def test_symlink_never_followed(tmp_path: Path, force: bool) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "fit.nc"
    link.symlink_to(victim)
    if not force:
        with pytest.raises(OptionError, match="symbolic link"):
            write_bytes(link, "x")
        assert link.is_symlink()
    else:
        write_bytes(link, "x", force=True)
        assert not link.is_symlink() and link.read_text() == "x"  # the link itself replaced
    assert victim.read_text() == "precious"


def test_dangling_symlink_not_followed(tmp_path: Path) -> None:
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "elsewhere.txt")
    with pytest.raises(OptionError, match="symbolic link"):
        write_bytes(link, "x")
    assert not (tmp_path / "elsewhere.txt").exists()


def test_directory_and_file_parent_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(OptionError, match="is a directory"):
        check_file(tmp_path / "d")
    (tmp_path / "f").write_text("")
    with pytest.raises(OptionError, match=r"f: is a file, not a directory"):
        check_file(tmp_path / "f" / "sub" / "fit.nc")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere: no permission to test")
def test_parent_without_permission(tmp_path: Path) -> None:  # pragma: no cover - not as root
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="permission denied"):
            check_file(ro / "fit.nc")
    finally:
        ro.chmod(0o700)


def test_disk_full_names_file_and_keeps_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "fit.nc"
    target.write_bytes(b"old complete fit")
    monkeypatch.setattr(files_mod, "os", FullDisk(budget=10))
    with pytest.raises(OutputError) as info:
        write_bytes(target, b"x" * 1000, force=True)
    assert isinstance(info.value, OSError) and info.value.exit_code == 4
    msg = str(info.value)
    assert str(target) in msg and "disk full" in msg and "nothing was replaced" in msg
    assert target.read_bytes() == b"old complete fit"
    assert leftovers(tmp_path) == []


def test_interrupt_removes_temporary_and_keeps_old(tmp_path: Path) -> None:
    target = tmp_path / "fit.nc"
    target.write_bytes(b"good")
    with pytest.raises(KeyboardInterrupt), atomic_path(target, force=True) as tmp:
        tmp.write_bytes(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"good"
    assert leftovers(tmp_path) == []


def test_link_planted_during_the_work_is_refused(tmp_path: Path) -> None:
    """Checked again at the rename: a link that appears while the output is produced."""
    victim = tmp_path / "victim"
    victim.write_text("precious")
    target = tmp_path / "out.txt"
    with pytest.raises(OptionError, match="symbolic link"), atomic_path(target) as tmp:
        tmp.write_text("data")
        target.symlink_to(victim)
    assert victim.read_text() == "precious" and target.is_symlink()
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE / SIGXFSZ as on Linux")
def test_real_write_limit_in_child_process(tmp_path: Path) -> None:
    """A genuine kernel refusal (``ulimit -f``): OutputError naming the file, old file kept."""
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    code = textwrap.dedent(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from passhat._write import write_bytes
        from passhat.errors import OutputError
        try:
            write_bytes({str(target)!r}, b"y" * 100_000, force=True)
        except OutputError as err:
            print("ERR", err)
        """
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.stdout.startswith("ERR "), (res.stdout, res.stderr)
    assert str(target) in res.stdout and "file too large" in res.stdout
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path) == []


def test_input_through_a_link_never_written(tmp_path: Path) -> None:
    """Issue 33, item 3, for a single file: the link's target and a hard link are the input."""
    real = tmp_path / "d" / "runs.csv"
    real.parent.mkdir()
    real.write_text("x")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert input_paths(link) == (link, real)
    for target in (real, tmp_path / "d" / "." / "runs.csv"):
        with pytest.raises(OptionError, match="is an input of this command"):
            write_bytes(target, "y", inputs=input_paths(link), force=True)
    assert real.read_text() == "x"


def test_empty_output_path_is_refused(tmp_path: Path) -> None:
    """Issue 33, item 11: ``fit -o ""`` was taken as the current directory."""
    with pytest.raises(OptionError, match=r"the output file \(-o FILE\) is an empty path"):
        check_file("")
