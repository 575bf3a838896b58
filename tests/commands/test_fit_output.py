"""``passhat fit -o``: the output file is checked before the fit, never written over the input,
replaced only with ``--force``, and an interrupted save leaves a good fit whole (issue 13, items
1, 2 and 5).

Oracles: the input's bytes before and after; a stand-in for the fit that fails the test if it is
reached (the check must come first); ``passhat.load_fit`` of the file after an interrupted save.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import passhat as ph
import passhat.model
from passhat._write import files as files_mod
from passhat.cli import main

from .cli_helpers import GOOD, TAU, bad, write

GRID = ["--method", "grid", "--chains", "2", "--draws", "100", "--seed", "0", "--quiet"]


@pytest.fixture
def no_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fitting is an error: the output path must be refused before the work."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the fit ran before the output path was checked")

    monkeypatch.setattr(passhat.model, "fit", refuse)


def test_fit_output_onto_its_input_refused(capsys, tmp_path: Path, no_fit: None) -> None:
    tau = write(tmp_path, "t.json", TAU)
    before = Path(tau).read_bytes()
    for extra in ([], ["--force"]):  # never, even with --force
        bad(capsys, ["fit", tau, "-o", tau, *GRID, *extra], r"t\.json: the output file is an input")
    assert Path(tau).read_bytes() == before


def test_fit_output_existing_directory_refused_first(capsys, tmp_path: Path, no_fit: None) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    (tmp_path / "d").mkdir()
    bad(capsys, ["fit", runs, "-o", str(tmp_path / "d"), *GRID], r"d: is a directory")
    (tmp_path / "f").write_text("")
    bad(capsys, ["fit", runs, "-o", str(tmp_path / "f" / "x.nc"), *GRID], "is a file")
    bad(capsys, ["fit", runs, "--force", *GRID], r"--force applies to -o")


def test_fit_output_existing_file_needs_force(capsys, tmp_path: Path) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    out = tmp_path / "fit.nc"
    out.write_bytes(b"someone's file")
    bad(capsys, ["fit", runs, "-o", str(out), *GRID], r"fit\.nc: exists; pass --force")
    assert out.read_bytes() == b"someone's file"
    assert main(["fit", runs, "-o", str(out), "--force", *GRID]) == 0
    assert ph.load_fit(out).systems == ["A"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.nc", "runs.csv"]  # no temp left


def test_fit_output_symlink_not_followed(capsys, tmp_path: Path) -> None:
    runs = write(tmp_path, "runs.csv", GOOD)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "fit.nc"
    link.symlink_to(victim)
    bad(capsys, ["fit", runs, "-o", str(link), *GRID], "symbolic link")
    assert main(["fit", runs, "-o", str(link), "--force", *GRID]) == 0
    assert victim.read_text() == "precious" and not link.is_symlink()
    assert ph.load_fit(link).systems == ["A"]


def test_interrupted_save_keeps_the_good_fit(tmp_path: Path, monkeypatch) -> None:
    """Before: an interrupt during ``to_netcdf`` truncated the old file (load_fit then raised
    AttributeError). Now the old fit still loads, and no temporary file is left."""
    fit = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=100)
    path = fit.to_netcdf(tmp_path / "fit.nc")
    good = path.read_bytes()

    def interrupted(target: Path, content: Any) -> None:
        Path(target).write_bytes(b"\x89HDF\r\n")  # half a file
        raise KeyboardInterrupt

    monkeypatch.setattr(files_mod, "write_into", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fit.to_netcdf(path, force=True)
    assert path.read_bytes() == good
    assert ph.load_fit(path).seed == 0
    assert [p.name for p in tmp_path.iterdir()] == ["fit.nc"]


def test_fit_json_says_when_a_posterior_mean_lies_outside_its_interval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # all-fail task, k = n = 9: benchmark pass^9 has mean 6e-7 against a 95% interval 0–1.7e-7
    path = write(tmp_path, "f.csv", "task_id,n,c\nt1,9,0\n")
    assert main(["fit", path, "--k", "1,9", "--method", "grid", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    outside = [r for r in doc["summary"] if not r["lower"] <= r["mean"] <= r["upper"]]
    assert outside and any("lie outside their interval" in n for n in doc["notes"])
