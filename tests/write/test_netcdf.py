"""A posterior saved as netCDF (``passhat._write.netcdf``; issue 33, item 2).

Before: ``passhat fit -o`` under ``ulimit -f`` (or on a full disk) printed the right error line,
then 10-14 h5py "Exception ignored" tracebacks, and died of a segmentation fault (exit 139); the
test of a full disk faked ENOSPC through a stand-in ``os`` that h5py never calls.

Oracles: the kernel's refusal (``RLIMIT_FSIZE`` in a child), the old file's bytes, and ArviZ's
own writer (the file read back holds the same groups, values and attributes).
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr

import passhat as ph
from passhat._write.netcdf import netcdf_bytes, write_netcdf
from passhat.errors import OptionError

GRID = ["--method", "grid", "--chains", "2", "--draws", "100", "--seed", "0", "--quiet"]


@pytest.fixture(scope="module")
def fit() -> ph.Fit:
    return ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=100)


def test_same_file_as_arviz_writes(tmp_path: Path, fit: ph.Fit) -> None:
    import arviz as az

    fit.idata.to_netcdf(str(tmp_path / "arviz.nc"))  # ArviZ's own writer: the oracle
    (tmp_path / "ours.nc").write_bytes(netcdf_bytes(fit.idata))
    theirs, ours = (
        az.from_netcdf(str(tmp_path / "arviz.nc")),
        az.from_netcdf(str(tmp_path / "ours.nc")),
    )
    assert ours.groups() == theirs.groups()
    for group in theirs.groups():
        xr.testing.assert_identical(getattr(ours, group), getattr(theirs, group))
    back = ph.load_fit(tmp_path / "ours.nc")
    assert back.seed == fit.seed and back.systems == fit.systems


def test_checks_before_building(tmp_path: Path, fit: ph.Fit) -> None:
    (tmp_path / "fit.nc").write_text("someone's")
    with pytest.raises(OptionError, match="exists"):
        write_netcdf(tmp_path / "fit.nc", fit.idata)
    assert (tmp_path / "fit.nc").read_text() == "someone's"


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE as on Linux")
def test_fit_output_over_the_file_size_limit(tmp_path: Path) -> None:
    """``ulimit -f 40``: one line, exit 4, the previous fit kept whole, nothing left over."""
    out = tmp_path / "fit.nc"
    out.write_bytes(b"previous fit")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (40 * 1024, 40 * 1024))

    argv = ["fit", "--example", "abcd", *GRID, "-o", str(out), "--force"]
    proc = subprocess.run(
        [sys.executable, "-m", "passhat.cli", *argv],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr == (
        f"passhat: error: {out}: cannot write: file too large (file system limit or ulimit -f); "
        "nothing was replaced\n"
    )
    assert out.read_bytes() == b"previous fit"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.nc"]
