"""The single-system fit: each system sampled on its own tasks, assembled in one InferenceData.

:func:`passhat.fit` checks the options and calls :func:`fit_systems` for ``model="beta"`` or
``"inflated"``: the count table is prepared (:func:`fitted_counts`: tasks with no decided run
and tasks of weight 0 left out, with notes), each system's distinct (n, c) pairs are sampled
(:func:`sample_systems`: NUTS or the exact grid of :mod:`passhat.model.sampler`), and the draws,
the settings, the count data and the metrics for the asked k are stored in one ArviZ
InferenceData, wrapped by a :class:`~passhat.Fit`.

Examples
--------
>>> import passhat as ph
>>> from passhat.model.build import Priors
>>> ds = ph.counts_from_arrays([4, 4, 4], [4, 2, 0])
>>> run = Sampling(model="beta", method="grid", sampler="grid", priors=Priors(), chains=1,
...                draws=100, tune=0, seed=0, progress=False, target_accept=0.9, grid_size=64)
>>> f = fit_systems(fitted_counts(ds, "exclude", None), run, ks=[1, 2], method_requested="grid",
...                 weights=None)
>>> f.k, f.idata.posterior["pass_hat_k_benchmark"].sizes["k"]
([1, 2], 2)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._version import __version__
from passhat.errors import ModelError
from passhat.estimators import task_weights
from passhat.exclusions import unscored_runs_note, unscored_task_rule
from passhat.model.build import Compressed, Priors, compress
from passhat.model.diagnostics import import_arviz
from passhat.model.discrete import node_grid
from passhat.model.metrics import Groups
from passhat.model.result import K_METRICS, Fit
from passhat.model.sampler import sample_system, sub_seed
from passhat.model.stacking import stack_system
from passhat.model.summaries import SCOPES
from passhat.model.text import unscored_task_notes, weight_zero_task_notes

__all__ = ["UNSCORED_TASK_RULES", "Counts", "Drawn", "Sampling", "fit_systems",
           "fitted_counts", "sample_systems"]  # fmt: skip

#: The rules a single-system fit accepts for tasks with no decided run:
#: :func:`passhat.estimate`'s ("exclude", the default of both, or "error") and "impute" (keep
#: the task in the benchmark scope, its rate drawn from the fitted distribution of task rates).
UNSCORED_TASK_RULES = ("exclude", "error", "impute")


def fit_systems(
    counts: Counts, run: Sampling, *, ks: list[int], method_requested: str, weights: Any
) -> Fit:
    """Sample every system of ``counts`` as ``run`` says and assemble the :class:`Fit`, with
    the metrics for ``ks`` stored and the settings recorded (``method_requested`` and the
    ``weights`` option as given)."""
    got = sample_systems(counts, run)
    settings = {
        "method_requested": method_requested,
        "tune": run.tune,
        "weights": weights_label(weights),
        "target_accept": run.target_accept,
        "grid_size": run.grid_size,
    }
    idata = _inference_data(counts, run, got, ks=ks, settings=settings)
    return _with_metrics(idata, got.groups, ks)


@dataclass(frozen=True)
class Counts:
    """The count table a single-system fit fits: tasks with no decided run (rule "exclude")
    and tasks of weight 0 marked not present; the raw task weights; the rule for tasks with
    no decided run; the notes."""

    ds: xr.Dataset
    weights: NDArray[np.float64]
    rule: str
    notes: list[str]


@dataclass(frozen=True)
class Sampling:
    """How each system is sampled (the arguments of :func:`sample_system` but its data)."""

    model: str
    method: str
    sampler: str
    priors: Priors
    chains: int
    draws: int
    tune: int
    seed: int
    progress: bool
    target_accept: float
    grid_size: int


def weights_label(weights: Any) -> str:
    """The task weights as the settings record them: equal, declared, category or mapping."""
    if weights is None:
        return "equal"
    return weights if isinstance(weights, str) else "mapping"


def fitted_counts(ds: xr.Dataset, unscored_tasks: str, weights: Any) -> Counts:
    """The count table to fit: tasks with no decided run left out (``unscored_tasks``
    "exclude") and tasks of weight 0 left out (as :func:`passhat.estimate` does), each said in
    a note; a system whose weights sum to zero is refused."""
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
    shown = [(str(r.task), str(r.system)) for r in excluded.head(5).itertuples()]
    notes = (
        unscored_runs_note(ds)
        + unscored_task_notes(unscored_tasks, int(empty.sum()), shown)
        + _weight_zero_notes(ds, zero_w)
    )
    return Counts(ds, w_all, unscored_tasks, notes)


@dataclass(frozen=True)
class Drawn:
    """What :func:`sample_systems` drew: the draws per variable (one array per system), each
    system's benchmark-scope task groups, the normalised task weights and (a stacked fit) the
    model comparison rows of every system."""

    draws: dict[str, list[NDArray[Any]]]
    groups: dict[int, Groups]
    weight_norm: NDArray[np.float64]
    stacking: list[dict[str, Any]]


def sample_systems(counts: Counts, run: Sampling) -> Drawn:
    """Sample each system on its distinct (n, c) pairs (:class:`Drawn`)."""
    ds = counts.ds
    n_all = np.asarray(ds["n"].values, dtype=np.int64)
    c_all = np.asarray(ds["c"].values, dtype=np.int64)
    present_all = np.asarray(ds["present"].values, dtype=bool)
    weight_norm = np.zeros_like(counts.weights)
    drawn: dict[str, list[NDArray[Any]]] = {}
    groups: dict[int, Groups] = {}
    stacking: list[dict[str, Any]] = []
    for si, s in enumerate(str(x) for x in ds["system"].values):
        present = present_all[si]
        n, c = n_all[si][present], c_all[si][present]
        if len(n) == 0 or n.sum() == 0:
            raise ModelError(f"system {s!r}: no task has a decided run; nothing to fit")
        w = counts.weights[si][present]
        if w.sum() <= 0:
            raise ModelError(f"system {s!r}: task weights sum to zero")
        weight_norm[si, present] = w / w.sum()
        comp = compress(n, c)
        res = _sample_one(comp, run, sub_seed(run.seed, si))
        if isinstance(res, tuple):  # the stacked fit: its draws and its comparison rows
            res, rows = res
            stacking += [{"system": s, **r} for r in rows]
        for key, val in res.items():
            drawn.setdefault(key, []).append(val)
        groups[si] = Groups.from_tasks(n, c, weight_norm[si][present], comp=comp)
    return Drawn(drawn, groups, weight_norm, stacking)


def _sample_one(comp: Compressed, run: Sampling, seed: int) -> Any:
    """One system's draws as ``run`` says (the stacked fit: with its comparison rows)."""
    if run.model == "auto":
        return stack_system(comp, priors=run.priors, chains=run.chains, draws=run.draws,
                            seed=seed, grid_size=run.grid_size)  # fmt: skip
    return sample_system(
        comp,
        method=run.method,
        sampler=run.sampler,
        model=run.model,
        priors=run.priors,
        chains=run.chains,
        draws=run.draws,
        tune=run.tune,
        seed=seed,
        progress=run.progress,
        target_accept=run.target_accept,
        grid_size=run.grid_size,
    )


def _inference_data(
    counts: Counts, run: Sampling, got: Drawn, *, ks: list[int], settings: dict[str, Any]
) -> Any:
    """The fit's InferenceData: the draws with the fit's settings and notes as attributes, the
    divergences, and the count data (with the count table's attributes: where it came from).
    The discrete part's weights have a ``node`` dimension (its coordinate: the node's p)."""
    ds = counts.ds
    systems = [str(s) for s in ds["system"].values]
    coords = {"chain": np.arange(run.chains), "draw": np.arange(run.draws), "system": systems}
    variables: dict[str, Any] = {}
    for key, v in got.draws.items():
        if key == "node_weight":
            variables[key] = (("chain", "draw", "system", "node"), np.stack(v, axis=2))
        elif key != "diverging":
            variables[key] = (("chain", "draw", "system"), np.stack(v, axis=-1))
    if "node_weight" in variables:
        coords["node"] = node_grid(variables["node_weight"][1].shape[-1])  # type: ignore[assignment]
    posterior = xr.Dataset(variables, coords=coords)
    posterior.attrs.update(
        {
            "passhat_model": run.model,
            "passhat_method": run.method,
            "passhat_sampler": run.sampler,
            "passhat_seed": run.seed,
            "passhat_priors": run.priors.to_json(),
            "passhat_k": json.dumps(ks),
            "passhat_version": str(__version__),
            "passhat_unscored_tasks": counts.rule,
            "passhat_notes": json.dumps(counts.notes),
            "passhat_settings": json.dumps(settings),
        }
    )
    if got.stacking:
        posterior.attrs["passhat_stacking"] = json.dumps(got.stacking)
    coords.pop("node", None)
    sample_stats = xr.Dataset(
        {"diverging": (("chain", "draw", "system"), np.stack(got.draws["diverging"], -1))},
        coords=coords,
    )
    az = import_arviz()
    return az.InferenceData(
        posterior=posterior,
        sample_stats=sample_stats,
        constant_data=_constant_data(ds, got.weight_norm),
    )


def _constant_data(ds: xr.Dataset, weight_norm: NDArray[np.float64]) -> xr.Dataset:
    """The count data of a fit over (system, task): n, c, normalised weight, present; the
    tasks' other coordinates; the count table's attributes (netCDF-safe)."""
    task_coords = {
        name: ("task", _str_labels(crd.values))
        for name, crd in ds.coords.items()
        if name not in ("system", "task") and crd.dims == ("task",)
    }
    constant = xr.Dataset(
        {
            "n": (("system", "task"), np.asarray(ds["n"].values, dtype=np.int64)),
            "c": (("system", "task"), np.asarray(ds["c"].values, dtype=np.int64)),
            "weight": (("system", "task"), weight_norm),
            "present": (("system", "task"), np.asarray(ds["present"].values, dtype=np.int8)),
        },
        coords={
            "system": [str(s) for s in ds["system"].values],
            "task": _str_labels(ds.indexes["task"]),
            **task_coords,
        },
    )
    constant.attrs.update({k: _jsonable_attr(v) for k, v in ds.attrs.items()})
    return constant


def _with_metrics(idata: Any, groups: dict[int, Groups], ks: list[int]) -> Fit:
    """The Fit, with ``icc`` and every metric in both scopes for ``ks`` stored in its
    posterior (computed on a draft of it that shares the task groups)."""
    draft = Fit(idata)
    draft._group_cache.update(groups)
    post = idata.posterior
    new: dict[str, xr.DataArray] = {
        "icc": draft._as_array(
            "icc", ks, draft._compute([("icc", 1)], scope="population"), "population"
        )
    }
    for scope in SCOPES:
        requests = [("mean", 1)] + [(m, k) for m in K_METRICS for k in ks]
        vals = draft._compute(requests, scope=scope)
        new[f"mean_{scope}"] = draft._as_array("mean", ks, vals, scope)
        for m in K_METRICS:
            new[f"{m}_{scope}"] = draft._as_array(m, ks, vals, scope)
    attrs = dict(post.attrs)
    merged = post.assign(new)
    merged.attrs = attrs
    idata.posterior = merged
    result = Fit(idata)
    result._group_cache.update(groups)
    return result


def _weight_zero_notes(ds: xr.Dataset, zero_w: NDArray[np.bool_]) -> list[str]:
    """The tasks of weight 0, named once (with their systems when not every system's)."""
    systems = [str(s) for s in ds["system"].values]
    tasks = ds["task"].values  # only the tasks named are turned into text
    named = [
        (str(tasks[t]), [systems[s] for s in np.flatnonzero(zero_w[:, t]).tolist()])
        for t in np.flatnonzero(zero_w.any(axis=0)).tolist()
    ]
    return weight_zero_task_notes(named, len(systems))


def _jsonable_attr(v: Any) -> Any:
    """A count-table attribute as a netCDF attribute: lists, tuples and dicts as JSON text.

    netCDF attributes hold strings, numbers and flat numeric arrays, not nested
    or mixed containers, so a container is stored as its JSON text and a scalar
    as it is (the fit's file must save). This is not :func:`passhat._format.jsonable`,
    which makes values JSON-safe for JSON output and keeps containers as containers.

    Examples
    --------
    >>> from passhat.model.single_fit import _jsonable_attr
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
