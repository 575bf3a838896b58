"""Read a fit back from its netCDF file: :func:`load_fit` (a :class:`~passhat.Fit` or a
:class:`~passhat.JointFit`, whichever was saved).

Examples
--------
>>> import passhat as ph, tempfile, pathlib
>>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=100)
>>> with tempfile.TemporaryDirectory() as d:
...     back = load_fit(f.to_netcdf(pathlib.Path(d) / "fit.nc"))
>>> type(back).__name__, back.k == f.k
('Fit', True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from passhat.errors import ModelError
from passhat.model.diagnostics import import_arviz
from passhat.model.joint_result import JointFit
from passhat.model.result import Fit

__all__ = ["joint_from_idata", "load_fit"]


def load_fit(path: str | Path) -> Fit | JointFit:
    """Load a fit saved with :meth:`Fit.to_netcdf` (or :meth:`JointFit.to_netcdf`).

    Raises
    ------
    ModelError
        The file is missing or is not a passhat fit.

    Examples
    --------
    >>> import passhat as ph
    >>> ph.load_fit("no-such-fit.nc")
    Traceback (most recent call last):
    ...
    passhat.errors.ModelError: no-such-fit.nc: no such file
    """
    p = Path(path)
    if not p.exists():
        raise ModelError(f"{p}: no such file")
    az = import_arviz()
    try:
        idata = az.from_netcdf(str(p))
    except (OSError, ValueError) as err:
        raise ModelError(f"{p}: not a netCDF InferenceData file ({err})") from err
    if "posterior" not in idata or "constant_data" not in idata:
        raise ModelError(f"{p}: not a passhat fit (posterior or constant_data group missing)")
    if idata.posterior.attrs.get("passhat_model") in ("joint", "rasch"):
        return joint_from_idata(idata, where=str(p))
    lacking = [v for v in ("n", "c", "weight", "present") if v not in idata.constant_data]
    if lacking:
        raise ModelError(f"{p}: not a passhat fit (constant_data lacks {', '.join(lacking)})")
    idata.constant_data["present"] = idata.constant_data["present"].astype(bool)
    for name in ("system", "task"):
        for grp in ("posterior", "constant_data"):
            ds = getattr(idata, grp, None)
            if ds is not None and name in ds.coords:
                ds.coords[name] = np.asarray(ds[name].values).astype(str)
    try:
        return Fit(idata)
    except ModelError as err:
        raise ModelError(f"{p}: {err}") from err


def joint_from_idata(idata: Any, *, where: str) -> JointFit:
    """A JointFit from an InferenceData read back from netCDF (labels as str, present as bool)."""
    for grp in ("posterior", "constant_data"):
        ds = getattr(idata, grp)
        for name in ("system", "task"):
            if name in ds.coords:
                ds.coords[name] = np.asarray(ds[name].values).astype(str)
    cd = idata.constant_data
    lacking = [v for v in ("n", "c", "present") if v not in cd]
    need = {"theta", "task_sd", "beta"} | (
        set() if idata.posterior.attrs.get("passhat_model") == "rasch" else {"kappa"}
    )
    if lacking or not need <= set(idata.posterior.data_vars):
        raise ModelError(f"{where}: not a passhat joint fit (variables missing)")
    cd["present"] = cd["present"].astype(bool)
    try:
        return JointFit(idata)
    except ModelError as err:
        raise ModelError(f"{where}: {err}") from err
