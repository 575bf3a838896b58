"""Adversarial QA of the command line's remaining edges (round 2, session 6).

Oracles: the exit statuses of docs/guide/cli.md (2: bad options, never 4 or a traceback), the
JSON grammar of RFC 8259 (no NaN / Infinity tokens), and counts written by hand.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.commands.cli_helpers import GOOD, bad, write


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "--ci", "0.9"],
        ["compare", "--example", "agents", "--intersect"],
        ["rank", "--example", "leaderboard"],
        ["spread", "--ci", "0.9"],
    ],
    ids=["estimate", "compare", "rank", "spread"],
)
def test_absurd_n_boot_exits_2_naming_the_bound(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    """--n-boot 10^12 ended in exit 4 (MemoryError); now exit 2, one line naming the bound."""
    if "--example" not in args:
        args = [args[0], write(tmp_path, "runs.csv", GOOD), *args[1:]]
    bad(capsys, [*args, "--n-boot", str(10**12)], r"at most 1,000,000 .*TiB of memory")


def test_fit_with_1000_chains_exits_2_naming_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, ["fit", "--example", "abcd", "--chains", "1000"], r"chains must be .* 1 to 64")


@pytest.mark.parametrize("fmt", [[], ["--csv"], ["--json"]], ids=["table", "csv", "json"])
def test_a_closed_output_pipe_ends_quietly_with_status_4(tmp_path: Path, fmt: list[str]) -> None:
    """``passhat estimate ... | head -1``: rich's console exited with status 1 (a failed gate's,
    and nothing else's, in docs/guide/cli.md) and click turned the same error from ``click.echo``
    (``--csv``, ``--json``) into status 1 too. Now every path ends with 4 and nothing on
    stderr. The reader closes the pipe before the command writes (it is still reading its
    input), so the first write meets the closed pipe."""
    runs = write(tmp_path, "runs.csv", GOOD)
    code = "import sys; from passhat.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "estimate", runs, "--per-task", *fmt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away, as `head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 4, err
    assert err == ""
