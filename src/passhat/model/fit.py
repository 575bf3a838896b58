"""The fit() entry point: check the options, sample each system, assemble the Fit.

:func:`fit` turns a trial or count table into a :class:`~passhat.Fit`: it
checks the options, compresses each system's tasks to distinct (n, c) pairs,
has :mod:`passhat.model.sampler` draw the hyperparameters (NUTS or the exact
grid), and stores draws, count data, settings and the metrics for the asked
k in one ArviZ InferenceData.

Examples
--------
>>> import passhat as ph
>>> fit = ph.fit(ph.load_example("abcd"), k=[1, 2], method="grid", seed=0,
...              chains=2, draws=500)
>>> s = fit.summary(k=[2])
>>> sorted(set(s["scope"]))
['benchmark', 'population']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import DEFAULT_SEED, norm_k
from passhat._version import __version__
from passhat.errors import ModelError, OptionError
from passhat.estimators import as_counts, task_weights
from passhat.exclusions import unscored_runs_note, unscored_task_rule, weight_zero_notes
from passhat.model.build import MODELS, Compressed, Priors, check_model, compress
from passhat.model.diagnostics import import_arviz
from passhat.model.joint_build import JOINT_FORMS, JointPriors
from passhat.model.joint_result import JointFit
from passhat.model.metrics import Groups
from passhat.model.result import K_METRICS, Fit
from passhat.model.sampler import (
    METHODS,
    resolve_method,
    resolve_progress,
    resolve_sampler,
    resolve_seed,
    sample_system,
    sub_seed,
)
from passhat.model.summaries import SCOPES
from passhat.trials import Trials

__all__ = ["SIZE_BOUNDS", "UNSCORED_TASK_RULES", "check_sizes", "fit", "fit_notes"]

#: The rules :func:`fit` accepts for tasks with no decided run: :func:`passhat.estimate`'s
#: ("exclude", the default of both, or "error") and "impute" (keep the task in the benchmark
#: scope, its rate drawn from the fitted distribution of task rates).
UNSCORED_TASK_RULES = ("exclude", "error", "impute")

#: Bounds of the sampler's sizes: at least 4 draws per chain (R-hat and ESS need 4; with fewer
#: ArviZ returns NaN and logs a shape warning), at most 64 chains (each NUTS chain is a separate
#: sampler run: 1000 chains took 48 s on the 4-task example; more draws per chain buy the same
#: effective draws), at most 10^7 draws in all (8 bytes each per variable and system), and a
#: grid of 16 to 4096 points per axis (fewer misplace the posterior; 10^6 asked for 7 TiB).
SIZE_BOUNDS: dict[str, tuple[int, int]] = {
    "draws": (4, 10_000_000),
    "chains": (1, 64),
    "tune": (0, 10_000_000),
    "grid_size": (16, 4096),
}


def check_sizes(**sizes: Any) -> None:
    """Refuse sampler sizes outside :data:`SIZE_BOUNDS` (and chains × draws over 10^7).

    Examples
    --------
    >>> check_sizes(draws=1000, chains=4, tune=1000, grid_size=256)
    >>> check_sizes(draws=1000, chains=1000, tune=1000, grid_size=256)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: chains must be a whole number from 1 to 64 (got 1000); more \
draws per chain give more effective draws
    """
    hints = {
        "draws": "; R-hat and ESS need at least 4 draws per chain",
        "chains": "; more draws per chain give more effective draws",
        "grid_size": "; the default 256 is exact to about 10⁻⁴",
    }
    for name, v in sizes.items():
        lo, hi = SIZE_BOUNDS[name]
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
            hint = hints.get(name, "")
            bounds = f"from {lo} to {hi:,}"
            raise OptionError(f"{name} must be a whole number {bounds} (got {v!r}){hint}")
    total = int(sizes.get("draws", 1)) * int(sizes.get("chains", 1))
    if total > SIZE_BOUNDS["draws"][1]:
        raise OptionError(
            f"chains × draws must be at most {SIZE_BOUNDS['draws'][1]:,} (got {total:,})"
        )


def _jsonable_attr(v: Any) -> Any:
    """A count-table attribute as a netCDF attribute: lists, tuples and dicts as JSON text.

    netCDF attributes hold strings, numbers and flat numeric arrays, not nested
    or mixed containers, so a container is stored as its JSON text and a scalar
    as it is (the fit's file must save). This is not :func:`passhat._format.jsonable`,
    which makes values JSON-safe for JSON output and keeps containers as containers.

    Examples
    --------
    >>> from passhat.model.fit import _jsonable_attr
    >>> _jsonable_attr({"format": "tidy", "rows": [1, 2]}), _jsonable_attr(3)
    ('{"format": "tidy", "rows": [1, 2]}', 3)
    """
    return json.dumps(v) if isinstance(v, list | dict | tuple) else v


def _str_labels(values: Any) -> Any:
    """Task labels (or per-task coordinate values) as strings.

    Labels that already are all ``str`` are passed on as they are: a pandas
    index is reused by xarray as is, so a 10^6-task fit does not copy the labels
    into a new string array nor build a new index (~0.25 s); other labels
    (numbers, ...) are converted with ``astype(str)``.
    """
    if isinstance(values, pd.Index):
        if pd.api.types.is_string_dtype(values.dtype) and (
            values.dtype != object or pd.api.types.infer_dtype(values, skipna=False) == "string"
        ):
            return values
        return np.asarray(values).astype(str)
    arr = np.asarray(values)
    if arr.dtype.kind == "U" or (
        arr.dtype == object and pd.api.types.infer_dtype(arr, skipna=False) == "string"
    ):
        return arr
    return arr.astype(str)


@overload
def fit(  # type: ignore[overload-overlap]
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = ...,
    method: str = ...,
    model: Literal["joint", "rasch"],
    priors: JointPriors | None = ...,
    weights: Any = ...,
    unscored_tasks: str = ...,
    seed: int | None = ...,
    draws: int = ...,
    tune: int = ...,
    chains: int = ...,
    sampler: str = ...,
    target_accept: float = ...,
    progress: bool | None = ...,
    grid_size: int = ...,
) -> JointFit: ...


@overload
def fit(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = ...,
    method: str = ...,
    model: str = ...,
    priors: Priors | None = ...,
    weights: Any = ...,
    unscored_tasks: str = ...,
    seed: int | None = ...,
    draws: int = ...,
    tune: int = ...,
    chains: int = ...,
    sampler: str = ...,
    target_accept: float = ...,
    progress: bool | None = ...,
    grid_size: int = ...,
) -> Fit: ...


def fit(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] = (1, 2, 5),
    method: str = "auto",
    model: str = "beta",
    priors: Priors | JointPriors | None = None,
    weights: Any = None,
    unscored_tasks: str = "exclude",
    seed: int | None = DEFAULT_SEED,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    sampler: str = "auto",
    target_accept: float = 0.9,
    progress: bool | None = None,
    grid_size: int = 256,
) -> Fit | JointFit:
    """Fit the hierarchical Beta-Binomial model, one independent fit per system (or all jointly).

    Parameters
    ----------
    data : Trials or count-table Dataset
    k : int or list of int, default (1, 2, 5)
        The k whose metrics are stored in ``idata`` (any k can be asked of
        :meth:`passhat.Fit.metric` later; k may exceed n).
    method : {"auto", "grid", "nuts"}, default "auto"
        ``"grid"``: exact quadrature on (logit μ, log κ), returned as
        independent draws in the same shape as NUTS' (plain model only: it
        has two parameters per system). ``"nuts"``: NUTS sampling (compiles
        the model first: seconds to a minute in a new process). ``"auto"``:
        the grid for ``model="beta"``, NUTS for ``model="inflated"`` and
        ``model="joint"``. The method that ran is :attr:`Fit.method` (and in
        ``Fit.method_label``).
    model : {"beta", "inflated", "joint", "rasch"}
        Plain Beta-Binomial, or with shares of always-pass / always-fail tasks
        (one fit per system); or ``"joint"``: one model of all systems with
        crossed task effects, logit μ_si = θ_s + β_i and a Beta system × task
        deviation (:mod:`passhat.model.joint_build`), returning a
        :class:`~passhat.model.joint_result.JointFit` (NUTS only; equal task
        weights; needs two or more systems sharing tasks); or ``"rasch"``:
        the joint model without the deviation (κ = ∞: p_si = logistic(θ_s +
        β_i)), whose likelihood compresses to one term per distinct (runs
        pattern, total successes) of a task, so its cost hardly grows with
        the tasks (:mod:`passhat.model.joint_rasch`; check the assumption
        with :meth:`~passhat.model.joint_result.JointFit.dispersion_check`).
    priors : Priors or JointPriors, optional
        Defaults documented in :class:`passhat.model.Priors` (joint:
        :class:`passhat.model.JointPriors`).
    weights : None, "declared", "category" or mapping
        Task weights for benchmark-scope metrics (as in :func:`passhat.estimate`).
    unscored_tasks : {"exclude", "error", "impute"}
        Tasks with no decided run (every run unscored): left out of the
        benchmark scope and listed (default, as in :func:`passhat.estimate`,
        so both report the same tasks), refused (:class:`ValidationError`),
        or kept with their rate drawn from the fitted distribution
        ("impute"). Such a task carries no information about the
        hyperparameters either way. Stated in :func:`fit_notes`.
    seed : int or None
        Seeds the sampler and the benchmark-scope draws (default 0, fixed, as
        every entry point). None draws a seed, recorded in ``idata`` so the
        fit can be reproduced.
    draws, tune, chains : int
        Draws kept per chain, tuning steps, chains (grid: chains × draws
        independent draws; ``tune`` unused).
    sampler : {"auto", "nutpie", "pymc"}
        "auto" uses nutpie when installed, else PyMC's NUTS.
    target_accept : float
        NUTS target acceptance rate.
    progress : bool, optional
        NUTS only: a spinner while the model compiles, then the sampler's
        progress bar; default: when stderr is a terminal.
    grid_size : int
        Points per axis of the final grid.

    Returns
    -------
    Fit

    Raises
    ------
    OptionError
        Unknown method/model/sampler, ``method="grid"`` with the inflated
        model, bad sizes.
    ModelError
        A system has no task with decided runs.
    DependencyError
        ``sampler="nutpie"`` and nutpie is not installed.

    Notes
    -----
    Each system is fitted on its distinct (n, c) pairs with their
    multiplicities, so the cost follows the number of pairs, not of tasks.
    System i's sampler seed is ``sub_seed(seed, i)``
    (:mod:`passhat.model.sampler`): a fit is reproduced from its recorded
    seed. Both methods are checked against each other in the tests and by
    simulation-based calibration [2]_ in ``studies/model_calibration``.

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A.
       and Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press,
       ch. 5: the hierarchical Beta-Binomial model.
    .. [2] Talts, S., Betancourt, M., Simpson, D., Vehtari, A. and Gelman, A.
       (2018). Validating Bayesian inference algorithms with simulation-based
       calibration. arXiv:1804.06788.

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), method="grid", seed=0, chains=2, draws=500)
    >>> f.idata.posterior["mu"].dims
    ('chain', 'draw', 'system')
    """
    if model not in (*MODELS, *JOINT_FORMS):  # check_model names the single-system models
        raise OptionError(
            f"model must be one of {', '.join((*MODELS, *JOINT_FORMS))} (got {model!r})"
        )
    check_sizes(draws=draws, chains=chains, tune=tune, grid_size=grid_size)
    if model in JOINT_FORMS:
        if method not in METHODS:
            raise OptionError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
        return _fit_joint(
            data,
            model=model,
            k=k,
            method=method,
            priors=priors,
            weights=weights,
            unscored_tasks=unscored_tasks,
            seed=seed,
            draws=draws,
            tune=tune,
            chains=chains,
            sampler=sampler,
            target_accept=target_accept,
            progress=progress,
        )
    check_model(model)
    if priors is not None and not isinstance(priors, Priors):
        raise OptionError(f"model={model!r} takes priors=Priors(...) (got {type(priors).__name__})")
    method = resolve_method(method, model)
    if not 0 < target_accept < 1:
        raise OptionError(f"target_accept must lie in (0, 1) (got {target_accept})")
    ks = norm_k(k)
    pri = priors or Priors()
    ds = as_counts(data)
    empty, excluded = unscored_task_rule(ds, unscored_tasks, allowed=UNSCORED_TASK_RULES)
    if unscored_tasks == "exclude" and empty.any():
        ds = ds.assign(present=ds["present"] & ~xr.DataArray(empty, dims=("system", "task")))
    w_all = np.asarray(task_weights(ds, weights).values, dtype=float)
    present0 = np.asarray(ds["present"].values, dtype=bool)
    for si in np.flatnonzero((present0 & (w_all > 0)).sum(axis=1) == 0).tolist():
        if present0[si].any():  # a zero total weight has no average: never a silent 0
            raise ModelError(f"system {str(ds['system'].values[si])!r}: task weights sum to zero")
    zero_w = present0 & (w_all <= 0)  # out of every average and of the fit, as in estimate
    if zero_w.any():
        ds = ds.assign(present=ds["present"] & ~xr.DataArray(zero_w, dims=("system", "task")))
    seed = resolve_seed(seed)
    show = resolve_progress(progress)
    used_sampler = resolve_sampler(sampler, method)

    systems = [str(s) for s in ds["system"].values]
    n_all = np.asarray(ds["n"].values, dtype=np.int64)
    c_all = np.asarray(ds["c"].values, dtype=np.int64)
    present_all = np.asarray(ds["present"].values, dtype=bool)
    weight_norm = np.zeros_like(w_all)
    draws_by_var: dict[str, list[NDArray[Any]]] = {}
    comps: list[Compressed] = []
    for si, s in enumerate(systems):
        present = present_all[si]
        n, c = n_all[si][present], c_all[si][present]
        if len(n) == 0 or n.sum() == 0:
            raise ModelError(f"system {s!r}: no task has a decided run; nothing to fit")
        w = w_all[si][present]
        if w.sum() <= 0:
            raise ModelError(f"system {s!r}: task weights sum to zero")
        weight_norm[si, present] = w / w.sum()
        comp = compress(n, c)
        comps.append(comp)
        res = sample_system(
            comp,
            method=method,
            sampler=used_sampler,
            model=model,
            priors=pri,
            chains=chains,
            draws=draws,
            tune=tune,
            seed=sub_seed(seed, si),
            progress=show,
            target_accept=target_accept,
            grid_size=grid_size,
        )
        for key, val in res.items():
            draws_by_var.setdefault(key, []).append(val)

    coords = {"chain": np.arange(chains), "draw": np.arange(draws), "system": systems}
    post_vars = {
        key: (("chain", "draw", "system"), np.stack(v, axis=-1))
        for key, v in draws_by_var.items()
        if key != "diverging"
    }
    posterior = xr.Dataset(post_vars, coords=coords)
    posterior.attrs.update(
        {
            "passhat_model": model,
            "passhat_method": method,
            "passhat_sampler": used_sampler,
            "passhat_seed": seed,
            "passhat_priors": pri.to_json(),
            "passhat_k": json.dumps(ks),
            "passhat_version": str(__version__),
            "passhat_unscored_tasks": unscored_tasks,
            "passhat_notes": json.dumps(
                unscored_runs_note(ds)
                + _notes(unscored_tasks, empty, excluded)
                + _weight_zero_notes(ds, zero_w)
            ),
        }
    )
    sample_stats = xr.Dataset(
        {"diverging": (("chain", "draw", "system"), np.stack(draws_by_var["diverging"], -1))},
        coords=coords,
    )
    task_coords = {
        name: ("task", _str_labels(crd.values))
        for name, crd in ds.coords.items()
        if name not in ("system", "task") and crd.dims == ("task",)
    }
    constant = xr.Dataset(
        {
            "n": (("system", "task"), n_all),
            "c": (("system", "task"), c_all),
            "weight": (("system", "task"), weight_norm),
            "present": (("system", "task"), present_all.astype(np.int8)),
        },
        coords={
            "system": systems,
            "task": _str_labels(ds.indexes["task"]),
            **task_coords,
        },
    )
    constant.attrs.update({k: _jsonable_attr(v) for k, v in ds.attrs.items()})
    az = import_arviz()
    idata = az.InferenceData(posterior=posterior, sample_stats=sample_stats, constant_data=constant)
    result = Fit(idata)
    for si, comp in enumerate(comps):  # the benchmark-scope groups, from the pairs just made
        present = present_all[si]
        result._group_cache[si] = Groups.from_tasks(
            n_all[si][present], c_all[si][present], weight_norm[si][present], comp=comp
        )
    _store_metrics(result, ks)
    return result


def _fit_joint(
    data: Any, *, model: str, method: str, priors: Any, weights: Any, **kw: Any
) -> JointFit:
    """``model="joint"`` or ``"rasch"``: the crossed model of :mod:`passhat.model.joint_fit`
    (NUTS only)."""
    from passhat.model.joint_fit import fit_joint

    if method == "grid":
        raise OptionError(
            f"method='grid' does not apply to model={model!r}: the grid evaluates the "
            "2-parameter single-system posterior exactly, the joint model has one parameter per "
            "system and per task; use method='nuts'"
        )
    if weights is not None:
        raise OptionError(f"model={model!r} weighs the fitted tasks equally: weights= is not taken")
    if priors is not None and not isinstance(priors, JointPriors):
        raise OptionError(
            f"model={model!r} takes priors=JointPriors(...) (passhat.model.joint_build)"
        )
    return fit_joint(data, priors=priors, model=model, **kw)


def _notes(rule: str, empty: NDArray[np.bool_], excluded: pd.DataFrame) -> list[str]:
    """What the fit says about tasks with no decided run (see :func:`fit_notes`)."""
    count = int(empty.sum())
    if not count:
        return []
    if rule == "impute":
        return [
            f"{count} task(s) have no decided run (every run unscored): kept in the benchmark "
            "scope with their rates drawn from the fitted distribution (unscored_tasks='impute'; "
            "estimate leaves them out)"
        ]
    shown = ", ".join(f"{r.task} ({r.system})" for r in excluded.head(5).itertuples())
    return [
        f"{count} task(s) have no decided run (every run unscored) and are left out of the "
        f"benchmark scope: {shown}{' ...' if count > 5 else ''} (unscored_tasks='exclude', "
        "the default of estimate and fit; 'impute' keeps them with rates drawn from the "
        "fitted distribution)"
    ]


def _weight_zero_notes(ds: xr.Dataset, zero_w: NDArray[np.bool_]) -> list[str]:
    """The tasks of weight 0, named once (with their systems when not every system's)."""
    systems = [str(s) for s in ds["system"].values]
    tasks = ds["task"].values  # only the tasks named are turned into text
    shown = []
    for t in np.flatnonzero(zero_w.any(axis=0)).tolist():
        who = [systems[s] for s in np.flatnonzero(zero_w[:, t]).tolist()]
        name = str(tasks[t])
        shown.append(name if len(who) == len(systems) else f"{name} ({', '.join(who)})")
    return weight_zero_notes(shown)


def fit_notes(result: Fit) -> list[str]:
    """Plain-language notes a fit's output states (tasks with no decided run, ...).

    Examples
    --------
    >>> import passhat as ph
    >>> ds = ph.counts_from_arrays([4, 4, 0], [3, 1, 0], tasks=["a", "b", "c"], unscored=[0, 0, 4])
    >>> notes = fit_notes(ph.fit(ds, method="grid", draws=100, chains=1))
    >>> notes[0][-30:]  # the unscored runs first, then the task left out
    'are not counted in n: system 4'
    >>> notes[1][:60]
    '1 task(s) have no decided run (every run unscored) and are l'
    """
    raw = result.idata.posterior.attrs.get("passhat_notes")
    return list(json.loads(raw)) if raw else []


def _store_metrics(result: Fit, ks: list[int]) -> None:
    """Add ``icc`` and every metric in both scopes for ``ks`` to the fit's posterior group."""
    post = result.idata.posterior
    new: dict[str, xr.DataArray] = {
        "icc": result._as_array(
            "icc", ks, result._compute([("icc", 1)], scope="population"), "population"
        )
    }
    for scope in SCOPES:
        requests = [("mean", 1)] + [(m, k) for m in K_METRICS for k in ks]
        vals = result._compute(requests, scope=scope)
        new[f"mean_{scope}"] = result._as_array("mean", ks, vals, scope)
        for m in K_METRICS:
            new[f"{m}_{scope}"] = result._as_array(m, ks, vals, scope)
    attrs = dict(post.attrs)
    merged = post.assign(new)
    merged.attrs = attrs
    result.idata.posterior = merged
