"""``--passhat-report``'s file: passhat reads back exactly the runs written.

Oracle: :func:`passhat.read` of the file (CSV and JSONL) gives the counts written — decided
runs, successes and unscored runs per test — and an existing file is never replaced unless
asked.
"""

from __future__ import annotations

import pytest

import passhat as ph
from passhat.errors import OptionError
from passhat.pytest_plugin.runs_file import write_runs

FOUND = [
    {
        "test": "t.py::test_a",
        "runs": [[True, "ok", 0.5], [False, "ok", 0.2], [None, "unscored", 0.1]],
    },
    {"test": "t.py::test_b[x,y]", "runs": [[True, "ok", 0.3]] * 4},
]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_passhat_reads_back_the_runs(tmp_path, suffix: str) -> None:
    path = tmp_path / f"runs{suffix}"
    assert write_runs(path, FOUND, system="my agent") == 7
    trials = ph.read(path)
    counts = trials.counts().sel(system="my agent")
    assert counts["n"].sel(task="t.py::test_a").item() == 2
    assert counts["c"].sel(task="t.py::test_a").item() == 1
    assert counts["unscored"].sel(task="t.py::test_a").item() == 1
    assert counts["n"].sel(task="t.py::test_b[x,y]").item() == 4


def test_never_over_a_file_unless_asked(tmp_path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("mine\n")
    with pytest.raises(OptionError, match="exists"):
        write_runs(path, FOUND)
    assert path.read_text() == "mine\n"
    write_runs(path, FOUND, force=True)
    assert path.read_text().startswith("system,task_id,trial,success,status,duration_s\n")
    with pytest.raises(OptionError, match=r"give a \.csv or \.jsonl file"):
        write_runs(tmp_path / "runs.parquet", FOUND)
