"""Sampler plumbing: NUTS through nutpie or PyMC, the exact grid path, seeds, progress.

One call of :func:`sample_system` gives the posterior draws of one system's
hyperparameters from its compressed counts, whichever way they are made:

* ``method="nuts"``: the PyMC model of :func:`passhat.model.build_model`,
  sampled by nutpie when it is installed (compiled once per model and
  priors, then reused with new data) or by PyMC's own NUTS;
* ``method="grid"``: independent draws from the model's quadrature —
  :func:`passhat.model.grid_posterior` (plain model),
  :func:`passhat.model.inflated_grid.inflated_grid` (zero/one-inflated),
  :func:`passhat.model.discrete.discrete_posterior` (discrete mixing distribution) —
  shaped like chains × draws so that both paths fill the same InferenceData;
* ``method="auto"`` (:func:`resolve_method`): the grid; NUTS only when asked.

With progress on (a terminal), compiling the model for NUTS shows a spinner
on stderr before the sampler's own progress bar: compiling is most of a first
fit's time.

Every system gets its own seed, derived from the fit's seed and the system's
position (:func:`sub_seed`), so a fit is reproduced from one recorded number.
PyMC, PyTensor and nutpie are imported only inside the functions that sample:
importing this module (or :mod:`passhat.model`) does not import them.

Examples
--------
>>> from passhat.model.build import compress
>>> from passhat.model.sampler import sample_system
>>> comp = compress([5, 5, 5], [5, 0, 3])
>>> d = sample_system(comp, method="grid", sampler="grid", chains=2, draws=100, seed=0)
>>> sorted(d), d["mu"].shape
(['diverging', 'kappa', 'mu'], (2, 100))
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat._validate import resolve_seed
from passhat.errors import DependencyError, OptionError
from passhat.model.build import Compressed, Priors, build_model, model_data
from passhat.model.discrete import discrete_posterior
from passhat.model.grid import grid_posterior
from passhat.model.inflated_grid import inflated_grid

__all__ = [
    "GRID_ONLY",
    "METHODS",
    "SAMPLERS",
    "announce",
    "compiling",
    "nutpie_sample",
    "pymc_sample",
    "quiet_pymc",
    "resolve_method",
    "resolve_progress",
    "resolve_sampler",
    "resolve_seed",
    "sample_system",
    "sub_seed",
]

#: How the posterior is computed: the grid where it applies (auto), NUTS sampling, or the grid.
METHODS = ("auto", "nuts", "grid")
#: The single-system models fitted on a grid only (no PyMC model): the discrete mixing
#: distribution and the stacked fit.
GRID_ONLY = ("discrete", "auto")
#: Which NUTS implementation: nutpie when installed ("auto"), or the one named.
SAMPLERS = ("auto", "nutpie", "pymc")

# Compiled nutpie models by (model, priors): compiling costs seconds, new data costs nothing.
_NUTPIE_CACHE: dict[tuple[str, str], Any] = {}


@contextmanager
def quiet_pymc(quiet: bool) -> Iterator[None]:
    """Silence PyMC's logger and warnings inside the block when ``quiet`` is true.

    Examples
    --------
    >>> from passhat.model.sampler import quiet_pymc
    >>> with quiet_pymc(True):
    ...     pass
    """
    import pymc  # noqa: F401  (its import sets the logger's level: do it before setting ours)

    logger = logging.getLogger("pymc")
    old = logger.level
    if quiet:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(old)


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def announce(show: bool, text: str) -> None:
    """One line on stderr saying what long work starts (nothing when ``show`` is false).

    Examples
    --------
    >>> from passhat.model.sampler import announce
    >>> announce(False, "compiling")
    """
    if show:
        _stderr_console().print(text, highlight=False, markup=False)


@contextmanager
def compiling(show: bool, text: str) -> Iterator[None]:
    """A spinner saying ``text`` on stderr while the block runs, then how long it took.

    Nothing is shown when ``show`` is false (tests, pipes, ``--quiet``).

    Examples
    --------
    >>> from passhat.model.sampler import compiling
    >>> with compiling(False, "compiling"):
    ...     pass
    """
    if not show:
        yield
        return
    console = _stderr_console()
    t0 = time.perf_counter()
    with console.status(text):
        yield
    took = time.perf_counter() - t0
    console.print(f"{text.rstrip(' .…')}: done in {took:.1f} s", highlight=False)


def sub_seed(seed: int, *keys: int) -> int:
    """A seed for one part of a fit (e.g. one system), derived from the fit's seed.

    Examples
    --------
    >>> from passhat.model.sampler import sub_seed
    >>> sub_seed(0, 0) == sub_seed(0, 0) != sub_seed(0, 1)
    True
    """
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def resolve_method(method: str, model: str) -> str:
    """The method that runs: ``"grid"`` or ``"nuts"``.

    ``"auto"`` is the grid for every single-system model (the plain Beta on
    (logit μ, log κ), the zero/one-inflated model on a four-dimensional grid, the discrete
    mixing distribution and the stacked fit by their own quadratures): no sampling, no
    compiling; NUTS runs only when asked, for the Beta and inflated models.

    Raises
    ------
    OptionError
        Unknown method, or ``"nuts"`` with the discrete or stacked model.

    Examples
    --------
    >>> from passhat.model.sampler import resolve_method
    >>> resolve_method("auto", "beta"), resolve_method("auto", "inflated")
    ('grid', 'grid')
    >>> resolve_method("nuts", "inflated")
    'nuts'
    """
    if method not in METHODS:
        raise OptionError(
            f"{{param}} must be one of {', '.join(METHODS)} (got {method!r})", param="method"
        )
    if method == "nuts" and model in GRID_ONLY:
        raise OptionError(
            f"{{param}}='nuts' samples the Beta and inflated models; {{model}}={model!r} is "
            "fitted on its grid only: name {model}='beta' or 'inflated' to sample it, or use "
            "{param}='grid' (or 'auto')",
            param="method",
            also=("model",),
        )
    return "grid" if method == "auto" else method


def resolve_progress(progress: bool | None) -> bool:
    """Whether to show progress bars: as asked, else when stderr is a terminal.

    Examples
    --------
    >>> from passhat.model.sampler import resolve_progress
    >>> resolve_progress(False)
    False
    """
    return sys.stderr.isatty() if progress is None else bool(progress)


def resolve_sampler(sampler: str, method: str = "nuts") -> str:
    """The NUTS implementation to use: ``"nutpie"`` or ``"pymc"`` (``"grid"`` for the grid).

    ``"auto"`` is nutpie when it can be imported, else PyMC. With
    ``method="grid"`` the name is checked and ``"grid"`` returned, without
    importing a sampler.

    Raises
    ------
    OptionError
        Unknown sampler name.
    DependencyError
        ``sampler="nutpie"`` and nutpie is not installed.

    Examples
    --------
    >>> from passhat.model.sampler import resolve_sampler
    >>> resolve_sampler("pymc"), resolve_sampler("auto") in ("nutpie", "pymc")
    ('pymc', True)
    >>> resolve_sampler("auto", method="grid")
    'grid'
    """
    if sampler not in SAMPLERS:
        raise OptionError(
            f"{{param}} must be one of {', '.join(SAMPLERS)} (got {sampler!r})", param="sampler"
        )
    if method == "grid":
        return "grid"
    if sampler == "pymc":
        return "pymc"
    try:
        import nutpie  # noqa: F401
    except ImportError as err:
        if sampler == "nutpie":
            raise DependencyError(
                "sampler='nutpie' needs nutpie: pip install 'passhat[fast]'"
            ) from err
        return "pymc"
    return "nutpie"


def sample_system(
    comp: Compressed,
    *,
    method: str,
    sampler: str,
    model: str = "beta",
    priors: Priors | None = None,
    chains: int,
    draws: int,
    tune: int = 1000,
    seed: int,
    progress: bool = False,
    target_accept: float = 0.9,
    grid_size: int = 256,
) -> dict[str, NDArray[Any]]:
    """Posterior draws of one system's hyperparameters, shape (chains, draws) each.

    Parameters
    ----------
    comp : Compressed
        The system's distinct (n, c) pairs with multiplicities
        (:func:`passhat.model.compress`).
    method : {"nuts", "grid"}
        NUTS sampling, or independent draws from the posterior on the model's grid.
    sampler : {"nutpie", "pymc", "grid"}
        The resolved sampler (:func:`resolve_sampler`); ignored for the grid.
    model : {"beta", "inflated", "discrete"}
        NUTS samples the first two (checked by :func:`resolve_method`); the stacked fit
        (``"auto"``) is :func:`passhat.model.stacking.stack_system`.
    priors : Priors, optional
    chains, draws, tune : int
    seed : int
        This system's seed (:func:`sub_seed`).
    progress : bool
        Progress bars (NUTS only).
    target_accept : float
        NUTS target acceptance rate.
    grid_size : int
        Points per axis of the final grid.

    Returns
    -------
    dict of str to ndarray
        ``mu``, ``kappa``, ``diverging`` (all False for the grid) and, for
        the inflated model, ``pi_pass``, ``pi_fail``; the discrete model: ``node_weight``
        (chains, draws, nodes) and ``diverging``.

    Examples
    --------
    >>> from passhat.model.build import compress
    >>> from passhat.model.sampler import sample_system
    >>> d = sample_system(compress([4, 4], [4, 1]), method="grid", sampler="grid",
    ...                   chains=1, draws=50, seed=3)
    >>> bool(d["diverging"].any()), d["kappa"].shape
    (False, (1, 50))
    """
    pri = priors or Priors()
    if method == "grid":
        return _grid_draws(comp, model, pri, chains=chains, draws=draws, seed=seed,
                           grid_size=grid_size)  # fmt: skip
    run = _sample_nutpie if sampler == "nutpie" else _sample_pymc
    return run(
        model,
        pri,
        comp.n,
        comp.c,
        comp.mult,
        chains=chains,
        draws=draws,
        tune=tune,
        seed=seed,
        progress=progress,
        target_accept=target_accept,
    )


def _grid_draws(
    comp: Compressed,
    model: str,
    priors: Priors,
    *,
    chains: int,
    draws: int,
    seed: int,
    grid_size: int,
) -> dict[str, NDArray[Any]]:
    """Independent draws from a model's posterior on its grid, shaped (chains, draws)."""
    rng = np.random.default_rng(seed)
    total = chains * draws
    if model == "beta":
        g = grid_posterior(
            comp.n, comp.c, comp.mult, priors=priors, n_draws=total, rng=rng, size=grid_size
        )
        flat: dict[str, NDArray[Any]] = {"mu": g.mu, "kappa": g.kappa}
    elif model == "inflated":
        flat = inflated_grid(comp.n, comp.c, comp.mult, priors=priors).draws(total, rng)
    else:
        d = discrete_posterior(comp.n, comp.c, comp.mult, n_draws=total, rng=rng)
        flat = {"node_weight": d.weight}
    out = {k: v.reshape(chains, draws, *v.shape[1:]) for k, v in flat.items()}
    out["diverging"] = np.zeros((chains, draws), dtype=bool)
    return out


def _sample_nutpie(
    model: str,
    priors: Priors,
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    w: NDArray[np.int64],
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    import nutpie

    key = (model, priors.to_json())
    if key not in _NUTPIE_CACHE:
        what = f"compiling the {model} model for NUTS (nutpie)"
        with quiet_pymc(True), compiling(progress, what):
            pm_model = build_model(n, c, w, model=model, priors=priors)
            _NUTPIE_CACHE[key] = nutpie.compile_pymc_model(pm_model)
    compiled = _NUTPIE_CACHE[key].with_data(**model_data(n, c, w, model=model))
    tr = nutpie_sample(
        compiled,
        chains=chains,
        draws=draws,
        tune=tune,
        seed=seed,
        progress=progress,
        target_accept=target_accept,
    )
    return _extract(tr, model)


def nutpie_sample(
    compiled: Any,
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
    **extra: Any,
) -> Any:
    """Sample a compiled nutpie model with passhat's settings (no warm-up kept, warnings off).

    ``extra`` goes to :func:`nutpie.sample` (e.g. the joint model's
    ``low_rank_modified_mass_matrix=True``). Used by the single-system and the
    joint fit alike.
    """
    import nutpie

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nutpie.sample(
            compiled,
            chains=chains,
            draws=draws,
            tune=tune,
            seed=seed,
            progress_bar=progress,
            save_warmup=False,
            target_accept=target_accept,
            cores=min(chains, os.cpu_count() or 1),
            **extra,
        )


def pymc_sample(
    pm_model: Any,
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> Any:
    """Sample a PyMC model with PyMC's NUTS and passhat's settings (one core per chain in
    turn, no convergence checks: passhat's diagnostics run on the result).

    Used by the single-system and the joint fit alike when nutpie is not installed.
    """
    import pymc as pm

    with pm_model:
        return pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=1,
            random_seed=seed,
            progressbar=progress,
            compute_convergence_checks=False,
            target_accept=target_accept,
            return_inferencedata=True,
        )


def _sample_pymc(
    model: str,
    priors: Priors,
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    w: NDArray[np.int64],
    *,
    chains: int,
    draws: int,
    tune: int,
    seed: int,
    progress: bool,
    target_accept: float,
) -> dict[str, NDArray[Any]]:
    with quiet_pymc(not progress):
        # PyMC compiles inside pm.sample, before its own progress bar appears
        announce(
            progress, f"compiling the {model} model for NUTS (PyMC; PyTensor caches the C code)..."
        )
        pm_model = build_model(n, c, w, model=model, priors=priors)
        tr = pymc_sample(
            pm_model,
            chains=chains,
            draws=draws,
            tune=tune,
            seed=seed,
            progress=progress,
            target_accept=target_accept,
        )
    return _extract(tr, model)


def _extract(tr: Any, model: str) -> dict[str, NDArray[Any]]:
    """The hyperparameter draws and divergence flags of a sampler's InferenceData."""
    post = tr.posterior
    out = {
        "mu": np.asarray(post["mu"].values, dtype=float),
        "kappa": np.asarray(post["kappa"].values, dtype=float),
        "diverging": np.asarray(tr.sample_stats["diverging"].values, dtype=bool),
    }
    if model == "inflated":
        out["pi_pass"] = np.asarray(post["pi_pass"].values, dtype=float)
        out["pi_fail"] = np.asarray(post["pi_fail"].values, dtype=float)
    return out
