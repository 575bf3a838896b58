"""Reading traces (:mod:`passhat.io.traces`): the stage mapping file.

The trace readers of each format are tested beside that format's trial reader
(``test_tau_bench.py``, ``test_tau2_bench.py``, ``test_inspect_log.py``,
``test_steps_jsonl.py``); choosing among them is in ``test_registry.py``.
Oracle: stage files written here, their mapping read back as written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from passhat.errors import FormatError
from passhat.io.traces import load_stages


def test_load_stages(tmp_path: Path) -> None:
    f = tmp_path / "stages.toml"
    f.write_text('[stages]\nget_user_details = "lookup"\ncancel_reservation = "write"\n')
    assert load_stages(f) == {"get_user_details": "lookup", "cancel_reservation": "write"}
    f.write_text("[other]\nx = 1\n")
    with pytest.raises(FormatError, match=r"needs a \[stages\] table"):
        load_stages(f)
    f.write_text("[stages\n")
    with pytest.raises(FormatError, match="not valid TOML"):
        load_stages(f)
