"""Standard output into pipes (``passhat._write.stdout``; issue 33, item 1): a reader that
leaves after one line gets exit 4, one that reads everything exit 0.

Before: ``--csv | head -1`` exited 0 because the whole output fit in the pipe's buffer.
Oracle: real pipes (bash) whose reader leaves after one line, and the bytes counted.
Split from test_stdout.py to keep each file under the suite's 20 s per-file budget.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="pipes and bash as on Linux")

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "passhat" / "examples" / "agents.csv"


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.parametrize("fmt", ["--csv", "--json", "--per-task"])
def test_reader_that_leaves_after_one_line_is_exit_4(tmp_path: Path, fmt: str) -> None:
    """A real shell pipe into ``head -1``: the output (about 48 KB) fits in the pipe's buffer,
    so every write succeeds; the end of the command sees the reader gone with bytes unread."""
    cmd = (
        f"{sys.executable} -m passhat.cli estimate {EXAMPLE} --per-task {fmt} | head -1 "
        "> /dev/null; echo ${PIPESTATUS[0]}"
    )
    proc = subprocess.run(
        ["bash", "-c", cmd], capture_output=True, text=True, timeout=60, env=_env(False)
    )
    assert proc.stdout.strip() == "4", proc.stderr
    assert proc.stderr == ""  # quiet: the reader chose to stop


def test_reader_that_reads_everything_is_exit_0(tmp_path: Path) -> None:
    cmd = (
        f"{sys.executable} -m passhat.cli estimate {EXAMPLE} --per-task --csv | wc -c; "
        "echo ${PIPESTATUS[0]}"
    )
    proc = subprocess.run(
        ["bash", "-c", cmd], capture_output=True, text=True, timeout=60, env=_env(False)
    )
    size, status = proc.stdout.split()
    assert status == "0" and int(size) > 40_000, proc.stderr
