"""Model comparison by PSIS-LOO: :func:`compare_models` of fits of the same data, per system.

Each fit's pointwise log-likelihood (:meth:`passhat.Fit.log_likelihood`: one
term per task, the Beta-Binomial probability of its c given its n) goes to
ArviZ's ``compare``, which estimates each model's expected log predictive
density of a left-out task by Pareto-smoothed importance sampling.

References
----------
.. [1] Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model
   evaluation using leave-one-out cross-validation and WAIC. *Statistics and
   Computing* 27, 1413–1432.

Examples
--------
>>> import passhat as ph
>>> t = ph.load_example("abcd")
>>> f1 = ph.fit(t, method="grid", seed=0, chains=2, draws=500)
>>> f2 = ph.fit(t, method="grid", seed=1, chains=2, draws=500)
>>> sorted(ph.compare_models({"one": f1, "two": f2}).table["model"])   # a row per system, fit
['one', 'two']
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from passhat.errors import OptionError
from passhat.model.comparison import ModelComparison
from passhat.model.diagnostics import import_arviz
from passhat.model.result import Fit

__all__ = ["ModelComparison", "compare_models"]


def compare_models(fits: Mapping[str, Fit] | Sequence[Fit], *, ic: str = "loo") -> ModelComparison:
    """Compare fits of the same data by PSIS-LOO (ArviZ), separately per system.

    Parameters
    ----------
    fits : mapping name → Fit, or list of Fit (named by their model)
        Fits of the same count data (same systems, tasks, n and c).
    ic : {"loo", "waic"}
        The information criterion ArviZ computes.

    Returns
    -------
    ModelComparison
        Its ``table``: system, model and ArviZ's columns (rank, elpd_loo,
        p_loo, elpd_diff, weight, se, dse, warning), best model first within
        each system. The pointwise log-likelihood is one term per task
        (Beta-Binomial probability of its c given n), so LOO asks how well
        each model predicts a left-out task.

    Raises
    ------
    OptionError
        Fewer than two fits, something that is not a Fit, or fits of
        different data.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian
       model evaluation using leave-one-out cross-validation and WAIC.
       *Statistics and Computing* 27, 1413–1432.

    Examples
    --------
    >>> import passhat as ph
    >>> t = ph.load_example("abcd")
    >>> fits = [ph.fit(t, model="beta", method="grid", seed=s) for s in (0, 1)]
    >>> cmp = ph.compare_models(fits)   # a list: named by model, then numbered
    >>> sorted(cmp.table["model"]), cmp.table["system"].unique().tolist(), cmp.models
    (['beta', 'beta_2'], ['seed-example'], ('beta', 'beta_2'))
    """
    if isinstance(fits, Mapping):
        named = {str(k): v for k, v in fits.items()}
    else:
        named = {}
        for f in fits:
            name = f.model
            i = 2
            while name in named:
                name = f"{f.model}_{i}"
                i += 1
            named[name] = f
    if ic not in ("loo", "waic"):
        raise OptionError(f"{{param}} must be 'loo' or 'waic' (got {ic!r})", param="ic")
    if len(named) < 2:
        raise OptionError("compare_models needs at least two fits", param="fits")
    first = next(iter(named.values()))
    for name, f in named.items():
        if not isinstance(f, Fit):
            raise OptionError(f"{name!r} is not a passhat Fit")
        if f.systems != first.systems or not (
            np.array_equal(f.idata.constant_data["n"].values, first.idata.constant_data["n"].values)
            and np.array_equal(
                f.idata.constant_data["c"].values, first.idata.constant_data["c"].values
            )
        ):
            raise OptionError(
                f"fit {name!r} was made on different data; LOO compares like with like"
            )
    az = import_arviz()
    frames = []
    lls = {name: f.log_likelihood() for name, f in named.items()}
    for si, s in enumerate(first.systems):
        present = np.asarray(first.idata.constant_data["present"].values[si], dtype=bool)
        per = {}
        for name, f in named.items():
            ll = lls[name].isel(system=si).isel(task=np.flatnonzero(present))
            post = f.idata.posterior[["mu", "kappa"]].isel(system=si)
            per[name] = az.InferenceData(posterior=post, log_likelihood=xr.Dataset({"c": ll}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cmp = az.compare(per, ic=ic)
        cmp = cmp.reset_index().rename(columns={"index": "model"})
        cmp.insert(0, "system", s)
        frames.append(cmp)
    table = pd.concat(frames, ignore_index=True)
    return ModelComparison(table, ic=ic, models=tuple(named))
