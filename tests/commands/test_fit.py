"""``passhat fit``: options checked like every command's (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli_helpers import GOOD, bad, write


def test_negative_seed_is_an_option_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "good.csv", GOOD)
    args = ["fit", "{good}", "--method", "grid", "--k", "1", "--seed", "-1"]
    argv = [a.format(good=good, out=tmp_path / "rep") for a in args]
    bad(capsys, argv, r"--seed.*-1")
