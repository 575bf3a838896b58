"""``passhat slices``: failure slices by status and category.

Oracles: the Python API on the same input, run counts (no run lost), and the
CLI contract on bad input.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import passhat as ph
from passhat.cli import main

from .cli_helpers import GOOD, bad, run, write


def test_slices_default_works_without_a_category_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "runs.csv", GOOD)
    assert main(["slices", path]) == 0
    out = capsys.readouterr().out
    assert "runs by status" in out and "no category column" in out
    assert main(["slices", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["slices"]) == ["status"]
    assert sum(r["runs"] for r in doc["slices"]["status"]) == 6  # no run lost
    # asked for explicitly, a missing category is still an error naming the file
    bad(capsys, ["slices", path, "--by", "category"], r"runs\.csv: no category column")


def test_slices_severe_status_that_no_run_has_is_pointed_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # allowed (rate 0 with an upper bound), but a misspelt status must not pass unremarked
    assert main(["slices", "--example", "agents", "--severe", "tool_eror"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"'tool_eror' occurs in no run .*tool_error", out.replace("\n", " "))
    assert main(["slices", "--example", "agents", "--severe", "tool_error"]) == 0
    assert "occurs in no run" not in capsys.readouterr().out


def test_slices_cli(capsys) -> None:  # type: ignore[no-untyped-def]
    rc, out, _ = run(capsys, ["slices", "--example", "agents", "--severe", "tool_error", "--json"])
    assert rc == 0
    doc = json.loads(out)
    sev = {r["system"]: r for r in doc["severe"]}
    api = ph.slices(ph.load_example("agents"), severe=["tool_error"]).severe.set_index("system")
    assert sev["baseline"]["count"] == api.loc["baseline", "count"]
    assert {"status", "category"} == set(doc["slices"])
    rc, out, _ = run(capsys, ["slices", "--example", "agents", "--by", "status"])
    assert rc == 0 and "infrastructure_error" in out and "never counted in n" in out


def test_slices_missing_category(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = ph.load_example("agents").frame.copy()
    df.loc[7, "category"] = None
    p = tmp_path / "runs.csv"
    df.to_csv(p, index=False)
    rc, _, err = run(capsys, ["slices", str(p), "--by", "category"])
    assert rc == 2 and "category is missing in 1 row(s)" in err


def test_slices_read_a_file_whole_that_other_commands_stream(  # type: ignore[no-untyped-def]
    capsys, tmp_path, monkeypatch
) -> None:
    """A file over the streaming threshold (lowered here, as for a file of millions of rows) is
    counted as it streams by ``estimate``; ``slices`` needs every run's status, so it reads the
    file whole and gives what it gives for the same rows read in memory."""
    import passhat.io._registry as registry

    p = tmp_path / "runs.csv"
    ph.load_example("agents").frame.to_csv(p, index=False)
    monkeypatch.setattr(registry, "STREAM_ROWS", 10)
    assert not isinstance(ph.read(p), ph.Trials)  # streamed into counts
    rc, out, _ = run(capsys, ["slices", str(p), "--by", "status", "--json"])
    assert rc == 0
    api = ph.slices(ph.load_example("agents"), by=["status"])
    assert (
        json.loads(out)["slices"]["status"]
        == json.loads(json.dumps(api.to_dict()))["slices"]["status"]
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["slices", "--example", "abcd", "--by", "category"], "no category column"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    rc, _, err = run(capsys, argv)
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1
