"""``python -m passhat`` is the ``passhat`` command (the GitHub Action runs it so, with the
interpreter it installed passhat into): same output, same exit status."""

from __future__ import annotations

import subprocess
import sys

import passhat


def test_python_m_passhat_is_the_command() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "passhat", "--version"], capture_output=True, text=True, check=False
    )
    assert (ok.returncode, ok.stdout.strip()) == (0, f"passhat, version {passhat.__version__}")
    bad = subprocess.run(
        [sys.executable, "-m", "passhat", "estimate", "--k", "0", "--example", "abcd"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("passhat: error:")
    assert "Traceback" not in bad.stderr
