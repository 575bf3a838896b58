"""Adversarial QA of the command line's remaining edges (round 2, session 6).

Oracles: the exit statuses of docs/guide/cli.md (2: bad options, never 4 or a traceback), the
JSON grammar of RFC 8259 (no NaN / Infinity tokens), and counts written by hand.
"""

from __future__ import annotations

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
