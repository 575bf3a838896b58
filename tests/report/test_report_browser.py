"""Open index.html in headless Chromium: it renders, with no console errors.

Skipped with a reason when Chromium is not installed. A negative control (a page with a
script error) shows that the console check can fail.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)


def _open(path: Path) -> tuple[str, list[str]]:
    """The DOM after load and the console messages Chromium logged."""
    proc = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            path.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]
    return proc.stdout, console


def test_console_check_catches_errors(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>no_such_fn()</script></body></html>")
    _, console = _open(page)
    assert any("no_such_fn" in line for line in console)


def test_report_renders_without_console_errors(example_report, malicious_dir: Path) -> None:
    for page in (example_report.paths.html, malicious_dir / "index.html"):
        dom, console = _open(page)
        assert console == [], console
        assert "<table" in dom and "1. Data" in dom
        assert "<script" not in dom.lower()
