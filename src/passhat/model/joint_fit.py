"""Fit the joint crossed model: cells from the count table, NUTS (nutpie or PyMC), the JointFit.

Called by :func:`passhat.fit` with ``model="joint"`` (or ``"rasch"``, the same
model without the system × task deviation: :mod:`passhat.model.joint_rasch`). The
sampler is the one
of the single-system fit (:func:`passhat.model.sampler.resolve_sampler`:
nutpie when installed, else PyMC's NUTS); a compiled nutpie model is kept
per (form, priors, number of systems) and reused with new data.

Examples
--------
>>> from passhat.model.joint_fit import fit_joint
>>> from passhat.model.joint_build import joint_counts
>>> ds = joint_counts([[4, 4, 4], [4, 4, 4]], [[4, 2, 0], [3, 1, 0]], systems=["A", "B"])
>>> f = fit_joint(ds, seed=1, chains=1, draws=50, tune=50)
>>> f.systems, f.metric_draws("mean", 1, scope="population").shape
(['A', 'B'], (50, 2))
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import DEFAULT_SEED, norm_k, resolve_seed
from passhat._version import __version__
from passhat.errors import OptionError
from passhat.estimators import as_counts
from passhat.exclusions import default_ks, unscored_runs_note, unscored_task_rule
from passhat.model.diagnostics import import_arviz
from passhat.model.joint_build import (
    JOINT_FORMS,
    JointData,
    JointPriors,
    build_joint_model,
    quad_model_data,
)
from passhat.model.joint_imh import sample_joint_imh
from passhat.model.joint_quad import design, draw_task_effects
from passhat.model.joint_rasch import (
    build_rasch_model,
    draw_rasch_effects,
    rasch_design,
    rasch_model_data,
)
from passhat.model.joint_result import JointFit
from passhat.model.sampler import (
    compiling,
    nutpie_sample,
    pymc_sample,
    quiet_pymc,
    resolve_progress,
    resolve_sampler,
)
from passhat.model.text import joint_cell_notes
from passhat.trials import Trials

__all__ = ["fit_joint"]

_NUTPIE_CACHE: dict[tuple[str, str, int], Any] = {}
#: Seed stream of the task effects' conditional draws (after sampling).
_BETA_SALT = 7_113


def fit_joint(
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = None,
    priors: JointPriors | None = None,
    unscored_tasks: str = "exclude",
    seed: int | None = DEFAULT_SEED,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    sampler: str = "auto",
    target_accept: float = 0.9,
    progress: bool | None = None,
    model: str = "joint",
    method: str = "auto",
) -> JointFit:
    """Fit the joint crossed model of several systems (see :mod:`passhat.model.joint_build`).

    Parameters are those of :func:`passhat.fit` (``model="joint"``, or
    ``"rasch"``: the same model without the system × task deviation, κ = ∞,
    :mod:`passhat.model.joint_rasch`); tasks with no decided run for a system
    are cells left out (``unscored_tasks`` "exclude", the default, or
    "error"). Returns a :class:`JointFit`.

    Which sampler: with ``method`` and ``sampler`` both "auto", the joint form is
    sampled by independence Metropolis–Hastings from a t fitted at the mode
    (:mod:`passhat.model.joint_imh`) when its Pareto k̂ ≤ 0.7, else by NUTS; the Rasch
    form, ``method="nuts"`` or a named sampler always run NUTS.

    Raises
    ------
    ModelError
        Fewer than two systems, a system with no decided run or sharing no
        task with the others.
    OptionError
        Bad sizes or an unscored-tasks rule the joint model does not take.
    """
    _check_options(draws, chains, tune, target_accept, model, unscored_tasks)
    ks = None if k is None else norm_k(k)
    pri = priors or JointPriors()
    ds = as_counts(data)
    ks = default_ks(ds) if ks is None else ks
    jd, present = _cells(ds, unscored_tasks, model)
    seed = resolve_seed(seed)
    show = resolve_progress(progress)
    quad: Any = rasch_design(jd) if model == "rasch" else design(jd)
    res, imh = None, None
    if model == "joint" and method == "auto" and sampler == "auto":
        res, imh = sample_joint_imh(quad, pri, chains=chains, draws=draws, seed=seed)
    used = "imh" if res is not None else resolve_sampler(sampler)
    if res is None:
        run = _sample_nutpie if used == "nutpie" else _sample_pymc
        res = run(jd, quad, pri, model=model, chains=chains, draws=draws, tune=tune, seed=seed,
                  progress=show, target_accept=target_accept)  # fmt: skip
    loss = _draw_task_effects(res, quad, model=model, seed=seed)
    left_out = int((np.asarray(ds["present"].values, dtype=bool) & ~present).sum())
    ran = np.asarray(ds["present"].values, dtype=bool)
    notes = unscored_runs_note(ds) + joint_cell_notes(
        left_out=left_out,
        not_run=int((~ran[:, jd.task_index]).sum()),
        window_edge=loss,
        rasch=model == "rasch",
    )
    posterior = _posterior(res, jd, rasch=model == "rasch")
    settings = {"tune": tune, "target_accept": target_accept}
    posterior.attrs.update(
        {
            "passhat_model": model,
            "passhat_method": "imh" if used == "imh" else "nuts",
            "passhat_sampler": used,
            "passhat_seed": seed,
            "passhat_priors": pri.to_json(),
            "passhat_k": json.dumps(ks),
            "passhat_version": str(__version__),
            "passhat_unscored_tasks": unscored_tasks,
            "passhat_notes": json.dumps(notes),
            "passhat_quadrature": _quadrature(quad, loss, rasch=model == "rasch"),
            "passhat_settings": json.dumps(settings),
        }
    )
    if imh is not None:  # the independence sampler was tried: what its check found
        finite = {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in imh.items()
        }
        posterior.attrs["passhat_imh"] = json.dumps(finite)
    sample_stats = xr.Dataset(
        {"diverging": (("chain", "draw"), res["diverging"])},
        coords={"chain": posterior["chain"].values, "draw": posterior["draw"].values},
    )
    az = import_arviz()
    idata = az.InferenceData(
        posterior=posterior, sample_stats=sample_stats, constant_data=_constant(ds, jd, present)
    )
    return JointFit(idata)


def _check_options(
    draws: Any, chains: Any, tune: Any, target_accept: float, model: str, unscored_tasks: str
) -> None:
    """Refuse sizes, a target acceptance, a form or an unscored-tasks rule the joint model does
    not take."""
    for name, v, lo in (("draws", draws, 1), ("chains", chains, 1), ("tune", tune, 0)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < lo:
            raise OptionError(f"{{param}} must be a whole number ≥ {lo} (got {v!r})", param=name)
    if not 0 < target_accept < 1:
        raise OptionError(
            f"{{param}} must lie in (0, 1) (got {target_accept})", param="target_accept"
        )
    if model not in JOINT_FORMS:
        raise OptionError(
            f"the joint model's form is 'joint' or 'rasch' (got {model!r})", param="model"
        )
    if unscored_tasks not in ("exclude", "error"):
        raise OptionError(
            f"{{model}}={model!r} takes {{param}}='exclude' or 'error' (got {unscored_tasks!r}): "
            "a cell with no decided run is simply left out of the likelihood",
            param="unscored_tasks",
            also=("model",),
        )


def _cells(ds: xr.Dataset, unscored_tasks: str, model: str) -> tuple[JointData, NDArray[np.bool_]]:
    """The cells the joint model fits (a decided run, not left out by ``unscored_tasks``), and
    the (system, task) mask of them."""
    empty, _ = unscored_task_rule(ds, unscored_tasks, allowed=("exclude", "error"))
    systems = [str(s) for s in ds["system"].values]
    tasks = [str(t) for t in np.asarray(ds["task"].values)]
    n_all = np.asarray(ds["n"].values, dtype=np.int64)
    present = np.asarray(ds["present"].values, dtype=bool) & ~np.asarray(empty, dtype=bool)
    present &= n_all > 0
    jd = JointData.from_arrays(ds["n"].values, ds["c"].values, present, systems, tasks, model=model)
    return jd, present


def _draw_task_effects(res: dict[str, NDArray[Any]], quad: Any, *, model: str, seed: int) -> float:
    """Draw the task effects (integrated out while sampling) from their conditionals into
    ``res["beta"]``; the largest share of a task's integrand left at the quadrature's edge."""
    chains, draws = res["task_sd"].shape
    theta_flat, sd_flat = res["theta"].reshape(chains * draws, -1), res["task_sd"].reshape(-1)
    rng = np.random.default_rng([seed, _BETA_SALT])
    if model == "rasch":
        beta, loss = draw_rasch_effects(quad, theta_flat, sd_flat, rng=rng)
    else:
        kappa = res["kappa"].reshape(-1)
        beta, loss = draw_task_effects(quad, theta_flat, sd_flat, kappa, rng=rng)
    res["beta"] = beta.reshape(chains, draws, -1)
    return float(loss)


def _posterior(res: dict[str, NDArray[Any]], jd: JointData, *, rasch: bool) -> xr.Dataset:
    """The posterior group: θ_s, σ_β, β_i and (not in the Rasch form) κ."""
    chains, draws = res["task_sd"].shape
    coords = {
        "chain": np.arange(chains),
        "draw": np.arange(draws),
        "system": list(jd.systems),
        "task": jd.tasks,
    }
    sampled = {
        "theta": (("chain", "draw", "system"), res["theta"]),
        "task_sd": (("chain", "draw"), res["task_sd"]),
        "beta": (("chain", "draw", "task"), res["beta"]),
    }
    if not rasch:  # the Rasch form has no deviation: κ = ∞, not a variable
        sampled["kappa"] = (("chain", "draw"), res["kappa"])
    return xr.Dataset(sampled, coords=coords)


def _quadrature(quad: Any, loss: float, *, rasch: bool) -> str:
    """The shape of the quadrature over the task effects, as JSON text (an attribute)."""
    shape = {
        "nodes": len(quad.grid),
        "spacing": quad.h,
        "rows": len(quad.row_r) if rasch else len(quad.rows),
        "window": len(quad.grid) if rasch else quad.width,
        "window_edge": loss,
    }
    return json.dumps(shape)


def _constant(ds: xr.Dataset, jd: JointData, present: NDArray[np.bool_]) -> xr.Dataset:
    """The fitted cells' counts over (system, task), with where the data came from (path,
    format, SHA-256: ``to_netcdf`` never writes over it)."""
    sub = np.asarray(jd.task_index)
    constant = xr.Dataset(
        {
            "n": (("system", "task"), np.asarray(ds["n"].values, dtype=np.int64)[:, sub]),
            "c": (("system", "task"), np.asarray(ds["c"].values, dtype=np.int64)[:, sub]),
            "present": (("system", "task"), present[:, sub].astype(np.int8)),
        },
        coords={"system": [str(s) for s in ds["system"].values], "task": jd.tasks},
    )
    constant.attrs.update({k: str(v) for k, v in ds.attrs.items() if k.startswith("source_")})
    return constant


def _build(jd: JointData, quad: Any, pri: JointPriors, model: str) -> Any:
    if model == "rasch":
        return build_rasch_model(jd, priors=pri, quad=quad)
    return build_joint_model(jd, priors=pri, quad=quad)


def _sample_nutpie(
    jd: JointData,
    quad: Any,
    pri: JointPriors,
    *,
    model: str,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    import nutpie

    key = (model, pri.to_json(), len(jd.systems))
    if key not in _NUTPIE_CACHE:
        what = f"compiling the {model} model for NUTS (nutpie)"
        with quiet_pymc(True), compiling(progress, what):
            _NUTPIE_CACHE[key] = nutpie.compile_pymc_model(_build(jd, quad, pri, model))
    base = _NUTPIE_CACHE[key]
    vals = rasch_model_data(quad) if model == "rasch" else quad_model_data(quad)
    compiled = base.with_data(**{k: v for k, v in vals.items() if k in base.shared_data})
    tr = nutpie_sample(
        compiled,
        chains=chains,
        draws=draws,
        tune=tune,
        seed=seed,
        progress=progress,
        target_accept=target_accept,
        # the levels θ_s move together (their common shift is pinned only by the task
        # effects' prior): a low-rank correction to the diagonal mass matrix follows it
        low_rank_modified_mass_matrix=True,
    )
    return _extract(tr)


def _sample_pymc(
    jd: JointData,
    quad: Any,
    pri: JointPriors,
    *,
    model: str,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    with quiet_pymc(not progress):
        tr = pymc_sample(
            _build(jd, quad, pri, model),
            chains=chains,
            draws=draws,
            tune=tune,
            seed=seed,
            progress=progress,
            target_accept=target_accept,
        )
    return _extract(tr)


def _extract(tr: Any) -> dict[str, NDArray[Any]]:
    post = tr.posterior
    return {
        "theta": np.asarray(post["theta"].values, dtype=float),
        "task_sd": np.asarray(post["task_sd"].values, dtype=float),
        **({"kappa": np.asarray(post["kappa"].values, dtype=float)} if "kappa" in post else {}),
        "diverging": np.asarray(tr.sample_stats["diverging"].values, dtype=bool),
    }


def joint_input_table(fit: JointFit) -> pd.DataFrame:
    """Per system: tasks run, cells, runs and successes in the fit (what the model saw).

    Examples
    --------
    >>> from passhat.model.joint_fit import fit_joint, joint_input_table
    >>> from passhat.model.joint_build import joint_counts
    >>> ds = joint_counts([[4, 4], [2, 0]], [[4, 2], [1, 0]], systems=["A", "B"])
    >>> f = fit_joint(ds, chains=1, draws=20, tune=20)
    >>> joint_input_table(f)["tasks"].tolist()
    [2, 1]
    """
    cd = fit.idata.constant_data
    pres = np.asarray(cd["present"].values, dtype=bool)
    n = np.where(pres, cd["n"].values, 0)
    c = np.where(pres, cd["c"].values, 0)
    return pd.DataFrame(
        {
            "system": fit.systems,
            "tasks": pres.sum(axis=1),
            "runs": n.sum(axis=1),
            "successes": c.sum(axis=1),
        }
    )
