"""A posterior (ArviZ InferenceData) saved as netCDF safely: built in memory, then written as any
other file (:func:`passhat._write.write_bytes`).

HDF5, under ArviZ's own ``to_netcdf``, writes the file itself: when the disk fills or ``ulimit
-f`` stops it, h5py prints a dozen "Exception ignored" tracebacks and the process may crash
(measured: exit 139, a segmentation fault, after the right error line). Here HDF5 writes into a
memory buffer only, which cannot fail half-way; the bytes then go to a temporary sibling and are
renamed into place, so a failure is one :class:`~passhat.errors.OutputError` and the old file
is kept. The file holds what ArviZ writes: the root attributes, then each group (numbers
compressed), read back by :func:`arviz.from_netcdf`.

Examples
--------
>>> import arviz as az, numpy as np, tempfile, pathlib
>>> idata = az.from_dict(posterior={"mu": np.zeros((2, 5))})
>>> path = write_netcdf(pathlib.Path(tempfile.mkdtemp()) / "fit.nc", idata)
>>> az.from_netcdf(str(path)).posterior["mu"].shape
(2, 5)
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from passhat._write.files import check_file, write_bytes

__all__ = ["netcdf_bytes", "write_netcdf"]

_COMPRESSIBLE = frozenset("biufcS")  # dtype kinds zlib compresses (as ArviZ does)


def netcdf_bytes(idata: Any) -> bytes:
    """The netCDF-4 file of an InferenceData, as bytes (HDF5 writes to memory only)."""
    import xarray as xr

    buf = io.BytesIO()
    mode: Literal["w", "a"] = "w"
    attrs = dict(getattr(idata, "attrs", {}) or {})
    if attrs:
        xr.Dataset(attrs=attrs).to_netcdf(buf, mode=mode, engine="h5netcdf", group="/")
        mode = "a"
    for group in idata.groups():
        data = getattr(idata, group)
        encoding = {
            name: {"zlib": True}
            for name, var in data.variables.items()
            if var.dtype.kind in _COMPRESSIBLE
        }
        data.to_netcdf(buf, mode=mode, engine="h5netcdf", group=group, encoding=encoding)
        mode = "a"
    return buf.getvalue()


def write_netcdf(
    path: str | os.PathLike[str],
    idata: Any,
    *,
    inputs: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Write ``idata`` to ``path`` as netCDF, all or nothing (checked as
    :func:`passhat._write.check_file`: never over an input, an existing file only with
    ``force``)."""
    inputs = tuple(inputs)
    check_file(path, inputs=inputs, force=force)  # before the bytes are built
    return write_bytes(path, netcdf_bytes(idata), inputs=inputs, force=force)
