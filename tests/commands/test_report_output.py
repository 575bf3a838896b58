"""``passhat report -o DIR`` on the command line: never over its input, a planted link or someone
else's files (``--force`` for the latter only), checked before the work, one line and exit 4 on a
full disk, 130/143 after cleaning up on an interrupt, and two reports into one directory end with
one whole report (issue 13, items 1–5 and 11).

Oracles: bytes of the files before and after; a stand-in reader that fails the test if input is
read before the output is checked; real signals sent to a child process blocked on a FIFO; the
manifest's hashes and the titles of index.html and results.json compared after a race.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from passhat._write import MANIFEST
from passhat._write import files as files_mod
from passhat.cli import main
from write_testdata import FullDisk

from .cli_helpers import GOOD, TAU, bad, write

FAST = ["--no-model", "--no-plan", "--k", "1,2", "--n-boot", "200", "-q"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_report_onto_its_own_input_refused(capsys, tmp_path: Path, monkeypatch) -> None:
    """Before: ``report results.json -o .`` overwrote its own input (exit 0)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "results.json", TAU)  # a τ-bench file is called results.json
    before = snapshot(tmp_path)
    for extra in ([], ["--force"]):
        bad(
            capsys,
            ["report", "results.json", "--format", "tau-bench", "-o", ".", *FAST, *extra],
            r"results\.json: is an input of this command",
        )
    assert snapshot(tmp_path) == before


def test_planted_link_refused_and_never_followed(capsys, tmp_path: Path) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    out = tmp_path / "rep"
    out.mkdir()
    (out / "results.json").symlink_to(victim)
    bad(capsys, ["report", runs, "-o", str(out), *FAST], "passhat did not write")
    assert main(["report", runs, "-o", str(out), *FAST, "--force"]) == 0
    assert victim.read_text() == "precious"
    assert not (out / "results.json").is_symlink()
    assert json.loads((out / "results.json").read_text())["stamp"]["input"]["path"] == runs


def test_output_checked_before_reading_input(capsys, tmp_path: Path, monkeypatch) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    (tmp_path / "file").write_text("")

    def no_read(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the input was read before -o was checked")

    import passhat.io

    monkeypatch.setattr(passhat.io, "read", no_read)  # load_input imports it when it runs
    bad(capsys, ["report", runs, "-o", str(tmp_path / "file" / "sub"), *FAST], "is a file")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "index.html").write_text("<p>not passhat's</p>")
    bad(capsys, ["report", runs, "-o", str(foreign), *FAST], r"holds index\.html")


def test_disk_full_one_line_exit_4(capsys, tmp_path: Path, monkeypatch) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    out = tmp_path / "rep"
    assert main(["report", runs, "-o", str(out), *FAST]) == 0
    capsys.readouterr()
    before = snapshot(out)

    monkeypatch.setattr(files_mod, "os", FullDisk(budget=0))
    rc = main(["report", runs, "-o", str(out), *FAST, "--title", "new"])
    err = capsys.readouterr().err
    assert rc == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert re.match(r"passhat: error: .*rep/\S+: cannot write: disk full", lines[0])
    assert snapshot(out) == before


def _child(*argv: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "passhat.cli", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_interrupt_exit_status_and_nothing_left(tmp_path: Path, sig: int, status: int) -> None:
    """The child blocks reading a FIFO (after the output check); the signal ends it with the
    documented status, the previous report whole and no temporary file or lock left. Before:
    SIGTERM killed the process with no status of passhat's choosing."""
    runs = write(tmp_path, "runs.csv", GOOD)
    out = tmp_path / "rep"
    assert main(["report", runs, "-o", str(out), *FAST]) == 0
    before = snapshot(out)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    child = _child("report", str(fifo), "--format", "csv", "-o", str(out), *FAST, cwd=tmp_path)
    writer = None
    try:
        deadline = time.monotonic() + 120
        while writer is None and time.monotonic() < deadline and child.poll() is None:
            try:  # succeeds once the child waits on the FIFO for reading: it is at work
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.05)
        assert writer is not None, child.communicate(timeout=60)
        time.sleep(0.2)
        child.send_signal(sig)
        _, err = child.communicate(timeout=60)
    finally:
        if writer is not None:
            os.close(writer)
        if child.poll() is None:
            child.kill()
    assert child.returncode == status, err
    assert "Traceback" not in err
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.csv", "rep", "runs.csv"]


def test_two_reports_into_one_directory(tmp_path: Path) -> None:
    """Before: two concurrent reports ended with one's HTML and the other's JSON. Now both finish
    (one waits for the other's lock) and the directory holds one whole report."""
    runs = write(tmp_path, "runs.csv", GOOD)
    out = tmp_path / "rep"
    kids = [
        _child("report", runs, "-o", str(out), *FAST, "--title", title, cwd=tmp_path)
        for title in ("first", "second")
    ]
    results = [k.communicate(timeout=300) for k in kids]
    assert [k.returncode for k in kids] == [0, 0], results
    doc = json.loads((out / "results.json").read_text())
    html = (out / "index.html").read_text()
    assert doc["title"] in ("first", "second")
    assert f"<title>{doc['title']}</title>" in html
    manifest = json.loads((out / MANIFEST).read_text())["files"]
    for rel, digest in manifest.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest, rel
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep", "runs.csv"]
