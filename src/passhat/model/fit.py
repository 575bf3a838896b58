"""The fit() entry point: check the options, then fit each system or all of them jointly.

:func:`fit` turns a trial or count table into a :class:`~passhat.Fit`: it
checks the options and hands the count table to :mod:`passhat.model.single_fit`,
which compresses each system's tasks to distinct (n, c) pairs, has
:mod:`passhat.model.sampler` draw the hyperparameters (NUTS or the exact grid),
and stores draws, count data, settings and the metrics for the asked k in one
ArviZ InferenceData; ``model="joint"`` or ``"rasch"`` goes to
:mod:`passhat.model.joint_fit` (a :class:`~passhat.JointFit`).

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

from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
import xarray as xr

from passhat._validate import DEFAULT_SEED, norm_k
from passhat.errors import OptionError
from passhat.estimators import as_counts
from passhat.exclusions import default_ks
from passhat.model.build import MODELS, Priors, check_model
from passhat.model.joint_build import JOINT_FORMS, JointPriors
from passhat.model.joint_result import JointFit
from passhat.model.result import Fit
from passhat.model.sampler import (
    METHODS,
    resolve_method,
    resolve_progress,
    resolve_sampler,
    resolve_seed,
)
from passhat.model.single_fit import UNSCORED_TASK_RULES, Sampling, fit_systems, fitted_counts
from passhat.trials import Trials

__all__ = ["SIZE_BOUNDS", "UNSCORED_TASK_RULES", "check_sizes", "fit", "fit_notes"]

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
            raise OptionError(
                f"{{param}} must be a whole number {bounds} (got {v!r}){hint}", param=name
            )
    total = int(sizes.get("draws", 1)) * int(sizes.get("chains", 1))
    if total > SIZE_BOUNDS["draws"][1]:
        raise OptionError(
            f"{{param}} × {{draws}} must be at most {SIZE_BOUNDS['draws'][1]:,} (got {total:,})",
            param="chains",
            also=("draws",),
        )


@overload
def fit(  # type: ignore[overload-overlap]
    data: Trials | xr.Dataset,
    *,
    k: int | Sequence[int] | None = ...,
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
    k: int | Sequence[int] | None = ...,
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
    k: int | Sequence[int] | None = None,
    method: str = "auto",
    model: str = "auto",
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
    k : int or list of int, optional
        The k whose metrics are stored in ``idata`` (any k can be asked of
        :meth:`passhat.Fit.metric` later; k may exceed n). Default: the one
        default of every entry point, :func:`passhat.exclusions.default_ks`
        (1, 2 and 5, capped at the fewest decided runs of a task).
    method : {"auto", "grid", "nuts"}, default "auto"
        ``"grid"``: each single-system model on its grid, returned as independent draws in
        the same shape as NUTS' (the plain model on (logit μ, log κ), the inflated model on a
        four-dimensional grid, the discrete model by its Bayesian bootstrap). ``"nuts"``: NUTS
        sampling of the Beta or inflated model (compiles the model first: seconds to a minute
        in a new process). ``"auto"``: the grid for every single-system model; for
        ``model="joint"`` (with ``sampler="auto"``) independence Metropolis–Hastings from a
        multivariate t at the posterior's mode when its PSIS k̂ ≤ 0.7 and its chains mix
        (:mod:`passhat.model.joint_imh`), else NUTS; NUTS for ``"rasch"``. The method that
        ran is :attr:`Fit.method` (and in ``Fit.method_label``).
    model : {"auto", "beta", "inflated", "discrete", "joint", "rasch"}
        How task rates spread, one fit per system: ``"beta"`` (Beta-Binomial), ``"inflated"``
        (with shares of always-pass / always-fail tasks), ``"discrete"`` (a distribution on a
        grid of p of any shape: :mod:`passhat.model.discrete`), or ``"auto"`` (the default):
        the three stacked by exact leave-one-task-out (:mod:`passhat.model.stacking`), so the
        fit bends to data that are not Beta-distributed (two kinds of task, most tasks always
        passing, ...) and says which models it used, with what weights
        (:attr:`Fit.stacking`). Or ``"joint"``: one model of all systems with
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
        "auto" uses nutpie when installed, else PyMC's NUTS (``model="joint"``: see
        ``method``); a named sampler always runs NUTS.
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
        Unknown method/model/sampler, ``method="nuts"`` with the discrete or stacked
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
            f"{{param}} must be one of {', '.join((*MODELS, *JOINT_FORMS))} (got {model!r})",
            param="model",
        )
    check_sizes(draws=draws, chains=chains, tune=tune, grid_size=grid_size)
    if model in JOINT_FORMS:
        if method not in METHODS:
            raise OptionError(
                f"{{param}} must be one of {', '.join(METHODS)} (got {method!r})", param="method"
            )
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
    ran = _check_single(model, method, priors, target_accept)
    ks = None if k is None else norm_k(k)
    ds = as_counts(data)
    ks = default_ks(ds) if ks is None else ks
    counts = fitted_counts(ds, unscored_tasks, weights)
    seed = resolve_seed(seed)
    run = Sampling(
        model=model,
        method=ran,
        sampler=resolve_sampler(sampler, ran),
        priors=priors or Priors(),  # type: ignore[arg-type]  # checked: Priors or None
        chains=chains,
        draws=draws,
        tune=tune,
        seed=seed,
        progress=resolve_progress(progress),
        target_accept=target_accept,
        grid_size=grid_size,
    )
    return fit_systems(counts, run, ks=ks, method_requested=method, weights=weights)


def _check_single(model: str, method: str, priors: Any, target_accept: float) -> str:
    """Check the options of a single-system fit; the method that runs (grid or NUTS)."""
    check_model(model)
    if priors is not None and not isinstance(priors, Priors):
        raise OptionError(
            f"model={model!r} takes {{param}}=Priors(...) (got {type(priors).__name__})",
            param="priors",
        )
    ran = resolve_method(method, model)
    if not 0 < target_accept < 1:
        raise OptionError(
            f"{{param}} must lie in (0, 1) (got {target_accept})", param="target_accept"
        )
    return ran


def _fit_joint(
    data: Any, *, model: str, method: str, priors: Any, weights: Any, **kw: Any
) -> JointFit:
    """``model="joint"`` or ``"rasch"``: the crossed model of :mod:`passhat.model.joint_fit`
    (NUTS only)."""
    from passhat.model.joint_fit import fit_joint

    if method == "grid":
        raise OptionError(
            f"{{param}}='grid' does not apply to {{model}}={model!r}: the grid evaluates the "
            "2-parameter single-system posterior exactly, the joint model has one parameter per "
            "system and per task; use {param}='nuts'",
            param="method",
            also=("model",),
        )
    if weights is not None:
        raise OptionError(
            f"{{model}}={model!r} weighs the fitted tasks equally: {{param}} is not taken",
            param="weights",
            also=("model",),
        )
    if priors is not None and not isinstance(priors, JointPriors):
        raise OptionError(
            f"model={model!r} takes {{param}}=JointPriors(...) (passhat.model.joint_build)",
            param="priors",
        )
    return fit_joint(data, priors=priors, model=model, method=method, **kw)


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
    return result.notes
