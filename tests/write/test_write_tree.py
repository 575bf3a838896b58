"""A directory of outputs written safely (``passhat._write.tree`` and ``.lock``): the manifest tells
passhat's files from foreign ones, the whole set is swapped in, stale files go, one writer at a
time, links are never followed.

Oracles: the directory read back (bytes, inode numbers, links) after each step, errors forced at
the system-call level, and a second process holding the lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from passhat._write import MANIFEST, check_tree, input_paths, write_tree
from passhat._write import files as files_mod
from passhat._write import tree as tree_mod
from passhat.errors import OptionError, OutputError
from write_testdata import FullDisk, leftovers, snapshot

OWNED = ("index.html", "results.json", "figures")


def report_v1() -> dict[str, bytes | str]:
    return {
        "index.html": "<p>v1</p>",
        "results.json": '{"v": 1}',
        "figures/ppc.png": b"png1",
        "figures/spread.png": b"s1",
    }


def test_new_directory_and_manifest(tmp_path: Path) -> None:
    out = tmp_path / "a" / "rep"
    written = write_tree(out, report_v1(), owned=OWNED)
    assert written["figures/ppc.png"] == out / "figures" / "ppc.png"
    files = json.loads((out / MANIFEST).read_text())["files"]
    assert sorted(files) == sorted(report_v1())
    import hashlib

    assert files["index.html"] == hashlib.sha256(b"<p>v1</p>").hexdigest()
    assert leftovers(tmp_path / "a") == [] and leftovers(out) == []


def test_stale_files_of_the_previous_output_removed(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    v2 = {"index.html": "<p>v2</p>", "results.json": '{"v": 2}', "figures/spread.png": b"s2"}
    write_tree(out, v2, owned=OWNED)
    snap = snapshot(out)
    assert "figures/ppc.png" not in snap  # the old report's figure is gone
    assert snap["index.html"] == b"<p>v2</p>" and snap["figures/spread.png"] == b"s2"


def test_whole_directory_swapped_at_once(tmp_path: Path) -> None:
    """The new report is a new directory put in place by one rename: the old inode is gone."""
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    before = out.stat().st_ino
    out.chmod(0o750)
    write_tree(out, {"index.html": "v2"}, owned=OWNED)
    assert out.stat().st_ino != before
    assert oct(out.stat().st_mode & 0o777) == oct(0o750)  # the directory's mode is kept
    assert sorted(snapshot(out)) == [MANIFEST, "index.html"]
    assert leftovers(tmp_path) == []


def test_swap_without_renameat2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_mod, "_exchange", lambda a, b: False)
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    write_tree(out, {"index.html": "v2"}, owned=OWNED)
    assert sorted(snapshot(out)) == [MANIFEST, "index.html"]
    assert leftovers(tmp_path) == []


def test_foreign_files_of_the_report_names_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"  # e.g. a τ²-bench run folder: its own results.json
    run.mkdir()
    (run / "results.json").write_text('{"info": {}}')
    (run / "notes.txt").write_text("mine")
    before = snapshot(run)
    for call in (
        lambda: check_tree(run, owned=OWNED),
        lambda: write_tree(run, report_v1(), owned=OWNED),
    ):
        with pytest.raises(OptionError, match=r"holds results\.json, which passhat did not write"):
            call()
    assert snapshot(run) == before
    # --force: the report's names are replaced; other files stay
    write_tree(run, report_v1(), owned=OWNED, force=True)
    snap = snapshot(run)
    assert snap["results.json"] == b'{"v": 1}' and snap["notes.txt"] == b"mine"
    # afterwards the directory is passhat's: no --force needed, notes.txt still left alone
    write_tree(run, {"index.html": "v2"}, owned=OWNED)
    assert sorted(snapshot(run)) == [MANIFEST, "index.html", "notes.txt"]


def test_file_changed_since_written_is_foreign(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    (out / "index.html").write_text("<p>my edits</p>")
    with pytest.raises(OptionError, match=r"index\.html.*changed since"):
        write_tree(out, report_v1(), owned=OWNED)
    assert (out / "index.html").read_text() == "<p>my edits</p>"


def test_unreadable_manifest_is_foreign(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    (out / MANIFEST).write_text("[" * 100_000)  # not a manifest passhat wrote
    with pytest.raises(OptionError, match=MANIFEST.replace(".", r"\.")):
        check_tree(out, owned=OWNED)


def test_other_files_kept_in_place_mode(tmp_path: Path) -> None:
    """A directory shared with other files is not swapped: passhat's files are replaced one by
    one (each atomically), its stale ones removed, the rest untouched (same inode)."""
    out = tmp_path / "shared"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    write_tree(out, report_v1(), owned=OWNED)
    ino = out.stat().st_ino
    write_tree(out, {"index.html": "v2", "results.json": "{}"}, owned=OWNED)
    assert out.stat().st_ino == ino
    assert sorted(snapshot(out)) == [MANIFEST, "index.html", "notes.txt", "results.json"]
    assert leftovers(out) == [] and leftovers(tmp_path) == []


def test_current_directory_not_swapped_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    monkeypatch.chdir(out)
    ino = out.stat().st_ino
    write_tree(".", {"index.html": "v2"}, owned=OWNED)
    assert out.stat().st_ino == ino and Path.cwd().exists()
    assert sorted(snapshot(out)) == [MANIFEST, "index.html"]


def test_inputs_protected(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "results.json").write_text("[]")  # the command's input, with a report name
    with pytest.raises(OptionError, match="is an input of this command"):
        write_tree(folder, report_v1(), owned=OWNED, inputs=input_paths(folder / "results.json"))
    with pytest.raises(OptionError, match="inside the input directory"):
        write_tree(folder / "rep", report_v1(), owned=OWNED, inputs=input_paths(folder))
    # an input beside the report (other name) is kept and the directory is not swapped away
    runs = tmp_path / "rep" / "runs.csv"
    runs.parent.mkdir()
    runs.write_text("task_id,success\n")
    write_tree(runs.parent, report_v1(), owned=OWNED, inputs=input_paths(runs))
    write_tree(runs.parent, {"index.html": "v2"}, owned=OWNED, inputs=input_paths(runs))
    assert runs.read_text() == "task_id,success\n"


@pytest.mark.parametrize("force", [False, True])
def test_planted_links_never_followed(tmp_path: Path, force: bool) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    victim_dir = tmp_path / "victim_dir"
    victim_dir.mkdir()
    (victim_dir / "keep.png").write_bytes(b"keep")
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")  # in-place mode: files written one by one
    (out / "results.json").symlink_to(victim)
    (out / "figures").symlink_to(victim_dir, target_is_directory=True)
    if not force:
        with pytest.raises(OptionError, match="passhat did not write"):
            write_tree(out, report_v1(), owned=OWNED)
    else:
        write_tree(out, report_v1(), owned=OWNED, force=True)
        assert not (out / "results.json").is_symlink() and not (out / "figures").is_symlink()
        assert (out / "results.json").read_text() == '{"v": 1}'
    assert victim.read_text() == "precious"
    assert snapshot(victim_dir) == {"keep.png": b"keep"}


def test_output_directory_itself_a_link_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "rep").symlink_to(real, target_is_directory=True)
    with pytest.raises(OptionError, match="symbolic link"):
        write_tree(tmp_path / "rep", report_v1(), owned=OWNED, force=True)
    assert list(real.iterdir()) == []


def test_a_directory_where_a_file_goes(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    (out / "index.html").mkdir(parents=True)
    with pytest.raises(OptionError, match="is a directory where passhat writes a file"):
        write_tree(out, report_v1(), owned=OWNED, force=True)


@pytest.mark.parametrize("shared", [False, True])
def test_disk_full_leaves_previous_output_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool
) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    if shared:
        (out / "notes.txt").write_text("mine")
    write_tree(out, report_v1(), owned=OWNED)
    before = snapshot(out)
    monkeypatch.setattr(files_mod, "os", FullDisk(budget=20))  # the first two files fit
    v2 = {"index.html": "<p>version two</p>", "results.json": "{}", "figures/a.png": b"x" * 99}
    with pytest.raises(OutputError) as info:
        write_tree(out, v2, owned=OWNED)
    msg = str(info.value)
    assert "disk full" in msg and "the previous output is unchanged" in msg
    assert str(out / "figures" / "a.png") in msg  # the file being written when the disk filled
    assert snapshot(out) == before
    assert leftovers(out) == [] and leftovers(tmp_path) == []


def test_interrupt_leaves_previous_output_and_no_lock(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    before = snapshot(out)

    def interrupted(path: Path) -> None:
        path.write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_tree(out, {"index.html": "v2", "results.json": interrupted}, owned=OWNED)
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []  # staging directory and lock removed
    write_tree(out, {"index.html": "v3"}, owned=OWNED, lock_timeout=0.0)  # not locked


def test_callable_content(tmp_path: Path) -> None:
    """One more file, written by a function (as a Parquet writer would)."""
    out = tmp_path / "rep"
    write_tree(out, {"results.json": lambda p: p.write_text("{}")}, owned=OWNED)
    assert (out / "results.json").read_text() == "{}"
    with pytest.raises(ValueError, match="not under one of the owned names"):
        write_tree(out, {"../escape.txt": "x"}, owned=OWNED)


def _holder(out: Path) -> subprocess.Popen[str]:
    """A real process that holds the writer's lock of ``out`` until killed (it says "held")."""
    code = (
        "import sys, time, pathlib\n"
        "from passhat._write.lock import locked\n"
        f"with locked(pathlib.Path({str(out)!r}), 5.0):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_busy_lock_fails_clearly(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    holder = _holder(out)
    try:
        with pytest.raises(OutputError, match=rf"another passhat \(pid {holder.pid} .*remove"):
            write_tree(out, report_v1(), owned=OWNED, lock_timeout=0.3)
        assert not out.exists()
    finally:
        holder.kill()  # SIGKILL: the lock directory stays, the kernel's lock goes
        holder.wait()
    assert (tmp_path / ".rep.passhat-lock").is_dir()
    write_tree(out, report_v1(), owned=OWNED, lock_timeout=0.3)  # taken over at once
    assert leftovers(tmp_path) == [] and (out / "index.html").is_file()


_RACER = """
import os, sys, time, pathlib
from passhat._write.lock import locked
root, start, trials = pathlib.Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
clashes = 0
for i in range(trials):
    at = start + 0.03 * i
    time.sleep(max(0.0, at - time.time() - 0.002))
    while time.time() < at:  # every process at once, to the microsecond
        pass
    with locked(root / f"rep{i}", 10.0):
        try:
            fd = os.open(root / f"held{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            clashes += 1  # the other process holds the same lock
        else:
            time.sleep(0.01)
            os.close(fd)
            os.unlink(root / f"held{i}")
print(clashes)
"""


@pytest.mark.parametrize(
    "trials", [60, pytest.param(1500, marks=pytest.mark.slow)], ids=["fast", "slow"]
)
def test_stale_lock_taken_over_by_one_writer_only(tmp_path: Path, trials: int) -> None:
    """Issue 33, item 4: two writers met a stale lock, both judged it stale, both removed it and
    both held it (3 of 60 trials in the audit). Two real processes race, to the microsecond, for
    stale locks (left by a writer killed with SIGKILL: a directory with its owner file and no
    holder); never do both hold one. The race is rare on a loaded machine: the old lock failed
    the slow variant (1 clash in 600 trials) and passed the fast one."""
    import socket

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    for i in range(trials):
        lock = tmp_path / f".rep{i}.passhat-lock"
        lock.mkdir()
        (lock / "owner").write_text(f"{socket.gethostname()} {dead}\n")
    start = time.time() + 1.0
    argv = [sys.executable, "-c", _RACER, str(tmp_path), str(start), str(trials)]
    racers = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    clashes = [int(r.communicate(timeout=60)[0]) for r in racers]
    assert [r.returncode for r in racers] == [0] * 2
    assert clashes == [0] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # every lock released and removed


def test_leftovers_of_a_killed_writer_cleaned(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    (tmp_path / ".rep.passhat-new-abc").mkdir()  # as SIGKILL during a write would leave
    (out / ".index.html.x.passhat-tmp").write_text("half")
    write_tree(out, {"index.html": "v2"}, owned=OWNED)
    assert leftovers(tmp_path) == [] and leftovers(out) == []


@pytest.mark.parametrize("how", ["symlink", "hardlink", "linked-dir"])
def test_input_reached_through_a_link_is_protected(tmp_path: Path, how: str) -> None:
    """Issue 33, item 3: ``cp runs.csv g/results.json; ln -s g/results.json link.csv; passhat
    report link.csv -o g --force`` replaced the input. Inputs are protected by their real path
    and their inode, with and without --force."""
    g = tmp_path / "g"
    g.mkdir()
    (g / "results.json").write_text("task_id,success\nt,1\n")
    if how == "symlink":
        src = tmp_path / "link.csv"
        src.symlink_to(g / "results.json")
    elif how == "hardlink":
        src = tmp_path / "hard.csv"
        os.link(g / "results.json", src)
    else:
        (tmp_path / "gl").symlink_to(g, target_is_directory=True)
        src = tmp_path / "gl" / "results.json"
    before = snapshot(g)
    for force in (False, True):
        with pytest.raises(OptionError, match="is an input of this command"):
            write_tree(g, report_v1(), owned=OWNED, inputs=input_paths(src), force=force)
    assert snapshot(g) == before


def test_hard_link_to_an_input_inside_an_owned_directory(tmp_path: Path) -> None:
    """Forced, a foreign figures/x.csv would be removed as stale: not when it is the input."""
    out = tmp_path / "rep"
    (out / "figures").mkdir(parents=True)
    src = tmp_path / "runs.csv"
    src.write_text("task_id,success\n")
    os.link(src, out / "figures" / "x.csv")
    with pytest.raises(OptionError, match=r"figures/x\.csv: is an input"):
        write_tree(out, report_v1(), owned=OWNED, inputs=input_paths(src), force=True)
    assert (out / "figures" / "x.csv").read_text() == "task_id,success\n"


_KILL_MID_RENAMES = """
import os, signal, sys, pathlib
from passhat._write import journal, write_tree
real, calls = journal._rename, [0]
def rename(a, b):  # the real rename, then SIGKILL after the second: a writer dies mid-commit
    real(a, b)
    calls[0] += 1
    if calls[0] == 2:
        os.kill(os.getpid(), signal.SIGKILL)
journal._rename = rename
files = {"index.html": "<p>v2</p>", "results.json": '{"v": 2}', "figures/spread.png": b"s2"}
write_tree(pathlib.Path(sys.argv[1]), files, owned=("index.html", "results.json", "figures"))
"""


def test_writer_killed_mid_renames_is_completed_by_the_next(tmp_path: Path) -> None:
    """Issue 33, item 5: SIGKILL in the in-place rename loop (``-o`` shared with a foreign file)
    left old and new files mixed, and the next run was refused until --force. A real process
    is killed after two of its renames; the next writer completes its write from the journal."""
    from passhat._write.journal import JOURNAL, roll_forward

    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")  # foreign: the in-place path
    write_tree(out, report_v1(), owned=OWNED)
    child = subprocess.run([sys.executable, "-c", _KILL_MID_RENAMES, str(out)], timeout=60)
    assert child.returncode == -9
    mixed = snapshot(out)
    assert JOURNAL in mixed and mixed["index.html"] == b"<p>v2</p>"  # died half-way
    assert mixed["figures/ppc.png"] == b"png1"  # the old output's file is still there
    check_tree(out, owned=OWNED)  # not refused: the journal's files are passhat's
    assert roll_forward(out, OWNED)  # what the next writer does first, under the lock
    done = snapshot(out)
    manifest = json.loads(done.pop(MANIFEST))["files"]
    assert done == {
        "index.html": b"<p>v2</p>",
        "results.json": b'{"v": 2}',
        "figures/spread.png": b"s2",
        "notes.txt": b"mine",
    }
    import hashlib

    assert manifest == {k: hashlib.sha256(done[k]).hexdigest() for k in manifest}
    assert leftovers(out) == []
    write_tree(out, {"index.html": "v3"}, owned=OWNED)  # no --force needed
    assert leftovers(tmp_path) == []  # the killed writer's lock, taken over and removed


def test_next_writer_completes_a_killed_write_itself(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    write_tree(out, report_v1(), owned=OWNED)
    subprocess.run([sys.executable, "-c", _KILL_MID_RENAMES, str(out)], timeout=60)
    write_tree(out, {"index.html": "v3", "results.json": "{}"}, owned=OWNED)
    assert sorted(snapshot(out)) == [MANIFEST, "index.html", "notes.txt", "results.json"]
    assert leftovers(out) == []


_TERM_AFTER_SWAP = """
import os, signal, sys, pathlib
from passhat._write import tree, write_tree
from passhat.cli import _signals_unwind  # SIGTERM unwinds as it does in `passhat report`
real = tree._exchange
def exchange(a, b):  # the real swap, then SIGTERM at once
    done = real(a, b)
    os.kill(os.getpid(), signal.SIGTERM)
    return done
tree._exchange = exchange
files = {"index.html": "<p>v2</p>", "results.json": '{"v": 2}'}
with _signals_unwind():
    write_tree(pathlib.Path(sys.argv[1]), files, owned=("index.html", "results.json", "figures"))
print("written")
"""


def test_signal_just_after_the_swap_reports_the_complete_output(tmp_path: Path) -> None:
    """Issue 33, item 5: SIGTERM just after the swap exited 143 while the new report was
    complete, leaving a ``.rep.passhat-new-*`` directory. Now the removal of the old output
    completes and the writer returns: the outcome that happened, a complete new output."""
    out = tmp_path / "rep"
    write_tree(out, report_v1(), owned=OWNED)
    child = subprocess.run(
        [sys.executable, "-c", _TERM_AFTER_SWAP, str(out)], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert (child.returncode, child.stdout) == (0, "written\n"), child.stderr
    snap = snapshot(out)
    assert sorted(snap) == [MANIFEST, "index.html", "results.json"]
    assert snap["results.json"] == b'{"v": 2}'
    assert leftovers(tmp_path) == [] and leftovers(out) == []
