"""``.ci/run``: installs Chromium when it is missing (quietly, once), then runs ``make test``
and ``make integration``.

Oracle: the commands the script runs, recorded by stand-ins for ``apt-get``, ``make`` and
``id`` on a PATH that holds nothing else (no real package is installed, no suite is run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "run"
BASH = shutil.which("bash")

pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def _stub(bin_dir: Path, name: str, body: str) -> None:
    f = bin_dir / name
    f.write_text(f"#!{BASH}\n{body}\n")
    f.chmod(0o755)


def _run(
    tmp_path: Path, *, uid: int, chromium: bool, failing: str = ""
) -> tuple[subprocess.CompletedProcess, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    _stub(bin_dir, "apt-get", f'echo "apt-get $*" >> {log}')
    # `make TARGET` is logged; the target named by `failing` exits 2, as make does on a failure
    _stub(bin_dir, "make", f'echo "make $* CI=$CI" >> {log}; [ "$1" != "{failing}" ] || exit 2')
    _stub(bin_dir, "id", f"echo {uid}")
    _stub(bin_dir, "dirname", f'exec {shutil.which("dirname")} "$@"')
    if chromium:
        _stub(bin_dir, "chromium", "exit 0")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PATH")}
    proc = subprocess.run(
        [str(BASH), str(SCRIPT)],
        env={**env, "PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return proc, log.read_text() if log.exists() else ""


def test_installs_chromium_when_missing_then_runs_both_tiers_under_ci(tmp_path: Path) -> None:
    proc, log = _run(tmp_path, uid=0, chromium=False)
    assert proc.returncode == 0, proc.stderr
    assert log.splitlines() == [
        "apt-get update -qq",
        "apt-get install -y -qq --no-install-recommends chromium",
        "make test CI=true",
        "make integration CI=true",
    ]
    assert (
        proc.stdout.strip()
        == "ci: installing chromium (Debian package) for the report's browser test"
    )


def test_does_nothing_more_when_chromium_is_there(tmp_path: Path) -> None:
    proc, log = _run(tmp_path, uid=0, chromium=True)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert log.splitlines() == ["make test CI=true", "make integration CI=true"]


def test_a_failing_default_tier_stops_before_the_integration_tier(tmp_path: Path) -> None:
    proc, log = _run(tmp_path, uid=0, chromium=True, failing="test")
    assert proc.returncode == 2
    assert log.splitlines() == ["make test CI=true"]


def test_says_why_when_it_cannot_install(tmp_path: Path) -> None:
    proc, log = _run(tmp_path, uid=1000, chromium=False)
    # the browser test then fails, not skips
    assert log.splitlines() == ["make test CI=true", "make integration CI=true"]
    assert "chromium is missing and cannot be installed here" in proc.stderr
