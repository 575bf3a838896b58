"""Standard output with every byte accounted for (``passhat._write.stdout``; issue 33, item 1).

Before: ``passhat estimate runs.csv --per-task --csv > /full/est.csv`` wrote 20,480 of 65,426
bytes and exited 0 (with ``PYTHONUNBUFFERED=1`` Python's stdout ignores a short write), and
``--csv | head -1`` exited 0 because the whole output fit in the pipe's buffer.

Oracles: the kernel's own refusal (``RLIMIT_FSIZE``, i.e. ``ulimit -f``, set in the child before
it starts), real pipes whose reader leaves after one line, and the file read back.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from passhat._write.stdout import CheckedWriter

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE as on Linux")

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "passhat" / "examples" / "agents.csv"

#: Commands and outputs, each larger than the limit below (``fit`` and ``report`` write files
#: of their own: tests/write/test_write_files.py and tests/commands/test_report_output.py).
OUTPUTS = [
    ["estimate", str(EXAMPLE), "--per-task", "--csv"],
    ["estimate", str(EXAMPLE), "--per-task", "--json"],
    ["estimate", str(EXAMPLE), "--per-task"],
    ["compare", str(EXAMPLE), "--baseline", "baseline", "--csv", "--n-boot", "200"],
    ["rank", str(EXAMPLE), "--json", "--n-boot", "200"],
    ["slices", str(EXAMPLE), "--by", "status"],
    ["spread", "--example", "agents", "--json"],
    ["traces", "--example", "tau-airline", "--json"],
    ["plan", "table"],
]


def _limit(size: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("argv", OUTPUTS, ids=lambda a: " ".join(a[:1] + a[2:3] + a[-1:]))
def test_stdout_over_the_file_size_limit_is_exit_4_and_no_partial_file(
    tmp_path: Path, argv: list[str], unbuffered: bool
) -> None:
    out = tmp_path / "out.txt"
    with open(out, "wb") as fh:
        proc = subprocess.run(
            [sys.executable, "-m", "passhat.cli", *argv],
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(unbuffered),
            preexec_fn=_limit(300),
            timeout=60,
        )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 4, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0] == (
        f"passhat: error: {out} (standard output): cannot write: file too large (file system "
        "limit or ulimit -f); the partial output was removed"
    )
    assert out.stat().st_size == 0  # nothing that looks like a whole CSV or JSON is left


def test_appended_output_keeps_what_the_file_held(tmp_path: Path) -> None:
    out = tmp_path / "log.txt"
    out.write_text("earlier lines\n")
    with open(out, "ab") as fh:
        proc = subprocess.run(
            [sys.executable, "-m", "passhat.cli", *OUTPUTS[0]],
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(True),
            preexec_fn=_limit(300),
            timeout=60,
        )
    assert proc.returncode == 4, proc.stderr
    assert out.read_text() == "earlier lines\n"


def test_checked_writer_writes_all_or_raises(tmp_path: Path) -> None:
    """In a child under a 100-byte limit: 80 bytes pass, the next 80 are refused (the first 20
    would be a short write) and the file is cut back to where it began."""
    code = (
        "import os, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"
        "from passhat._write.stdout import CheckedWriter\n"
        f"fd = os.open({str(tmp_path / 'f')!r}, os.O_WRONLY | os.O_CREAT)\n"
        "w = CheckedWriter(fd)\n"
        "print(w.write(b'a' * 80))\n"
        "try:\n"
        "    w.write(b'b' * 80)\n"
        "except OSError as err:\n"
        "    print(type(err).__name__, err)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    first, second = proc.stdout.splitlines()
    assert first == "80"
    assert second.startswith("OutputError ") and "file too large" in second, proc.stderr
    assert (tmp_path / "f").stat().st_size == 0


def test_checked_writer_is_a_raw_writer(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "g", os.O_WRONLY | os.O_CREAT)
    try:
        w = CheckedWriter(fd)
        assert w.writable() and w.fileno() == fd and not w.isatty()
        assert w.write(memoryview(b"xyz")) == 3
    finally:
        os.close(fd)
    assert (tmp_path / "g").read_bytes() == b"xyz"


def test_a_reader_that_reads_after_the_end_does_not_hang_passhat() -> None:
    """``Popen(...).wait()`` before ``.read()`` (the reader reads nothing while passhat runs):
    passhat ends after the stall limit, exit 0, and the bytes are still there to read."""
    import subprocess
    import sys
    import time

    code = "import sys; from passhat.cli import main; sys.exit(main())"
    args = [sys.executable, "-c", code, "estimate", "--example", "abcd", "--k", "1", "--json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    try:
        rc = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert rc == 0 and time.monotonic() - start < 120
    assert b'"schema": "passhat.estimate"' in proc.stdout.read()  # type: ignore[union-attr]
