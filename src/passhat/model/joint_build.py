"""Joint model of several systems on shared tasks: priors, data cells, the PyMC model.

The crossed model for systems s = 1..S and tasks i = 1..T is

    c_si | p_si ~ Binomial(n_si, p_si),
    p_si | μ_si ~ Beta(μ_si κ, (1 − μ_si) κ),   logit μ_si = θ_s + β_i,
    β_i ~ Normal(0, σ_β),

with θ_s the system's level, β_i the task's effect (shared by every system
that ran task i) and the Beta the system × task deviation: how far system s's
rate on task i strays from what its level and the task's effect predict. κ
is its concentration (κ → ∞: no deviation, the Rasch model; fitted as ``model="rasch"``
by :mod:`passhat.model.joint_rasch`, whose likelihood compresses exactly).

Only the cells (s, i) with a decided run enter the likelihood, so unequal n
per system and tasks missing for some systems need nothing special: a task
effect is estimated from the systems that ran the task.

What is sampled. The task effects are integrated out of the likelihood, so
NUTS samples only θ_s, σ_β and κ (S + 2 parameters, whatever the number of
tasks): each task's likelihood Π_s BB(c_si | ...) is integrated against
N(β_i | 0, σ_β) by a trapezoid rule on a uniform grid, summed per distinct
count row over a window of nodes that covers the row's integrand
(:mod:`passhat.model.joint_quad`), in one PyTensor Op with a numba kernel
for the value and gradient (:mod:`passhat.model.joint_ops`). The deviation
needs no second quadrature: given β it is the Beta-Binomial of each cell.
After sampling, each β_i is drawn from its conditional given each posterior
draw (exactly, on the quadrature nodes), so everything that uses per-task
rates (benchmark scope, ranks) works as if β had been sampled. Tasks compress
only when their whole count rows coincide (all systems failed, all passed,
…): with many systems, distinct rows are nearly as many as tasks, so a
gradient costs about S × K additions per distinct row (K ≈ 50 window
nodes) and the cost of a fit grows linearly in the tasks, while the number
of leapfrog steps per draw does not (measured in
``benchmarks/bench_joint.py``).

PyMC and PyTensor are imported inside :func:`build_joint_model` only.

References
----------
.. [1] Gelman, A. and Hill, J. (2007). *Data Analysis Using Regression and
   Multilevel/Hierarchical Models*. Cambridge University Press, ch. 13–14
   (non-nested, crossed random effects).
.. [2] De Boeck, P. and Wilson, M. (2004). *Explanatory Item Response
   Models*. Springer, ch. 2 (the Rasch model as a crossed logistic model).

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_build import JointData
>>> n, c = np.array([[4, 4, 0], [2, 2, 2]]), np.array([[4, 1, 0], [2, 0, 1]])
>>> d = JointData.from_arrays(n, c, n > 0, ["A", "B"], ["t1", "t2", "t3"])
>>> d.cells, d.tasks_fitted
(5, 3)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from passhat.errors import ModelError, OptionError
from passhat.trials import validate_counts

__all__ = [
    "JOINT_FORMS",
    "JointData",
    "JointPriors",
    "build_joint_model",
    "joint_counts",
    "quad_model_data",
]


#: The forms of the joint model: with the Beta system × task deviation, or without (κ = ∞,
#: :mod:`passhat.model.joint_rasch`).
JOINT_FORMS = ("joint", "rasch")


@dataclass(frozen=True)
class JointPriors:
    """Prior hyperparameters of the joint model (all proper).

    Parameters
    ----------
    theta_sd : float, default 2
        θ_s ~ Normal(0, theta_sd): each system's level on the logit scale,
        independently (no pooling across systems: a leaderboard should not
        shrink systems towards each other).
    task_sd_scale : float, default 2.5
        σ_β ~ HalfNormal(task_sd_scale): the spread of task effects on the
        logit scale (agent benchmarks mix easy and hard tasks: σ_β of 2–3 is
        common).
    log_kappa_mean, log_kappa_sd : float, default 2, 1.5
        log κ ~ Normal(log_kappa_mean, log_kappa_sd): the concentration of
        the system × task deviation; 95% prior mass on κ ∈ [0.4, 140].

    Examples
    --------
    >>> from passhat.model.joint_build import JointPriors
    >>> JointPriors(theta_sd=1.0).theta_sd
    1.0
    """

    theta_sd: float = 2.0
    task_sd_scale: float = 2.5
    log_kappa_mean: float = 2.0
    log_kappa_sd: float = 1.5

    def __post_init__(self) -> None:
        for name in ("theta_sd", "task_sd_scale", "log_kappa_sd"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and np.isfinite(v) and v > 0):
                raise OptionError(f"joint prior {name} must be a positive number (got {v!r})")
        if not np.isfinite(self.log_kappa_mean):
            raise OptionError(
                f"joint prior log_kappa_mean must be finite ({self.log_kappa_mean!r})"
            )

    def to_json(self) -> str:
        """JSON text (stored in the fit's attributes)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> JointPriors:
        """Inverse of :meth:`to_json`."""
        return cls(**json.loads(text))


@dataclass(frozen=True, eq=False)
class JointData:
    """The observed (system, task) cells of a joint fit.

    Attributes
    ----------
    systems, tasks : list of str
        All systems; the tasks with at least one decided run (the fitted tasks).
    task_index : ndarray of int
        Position of each fitted task in the count table's task axis.
    sys_idx, task_idx, n, c : ndarray of int
        One entry per cell with a decided run (``task_idx`` indexes ``tasks``).
    """

    systems: list[str]
    tasks: list[str]
    task_index: NDArray[np.intp]
    sys_idx: NDArray[np.int64]
    task_idx: NDArray[np.int64]
    n: NDArray[np.int64]
    c: NDArray[np.int64]

    @property
    def cells(self) -> int:
        """Number of observed (system, task) cells."""
        return len(self.n)

    @property
    def tasks_fitted(self) -> int:
        """Number of tasks with at least one decided run."""
        return len(self.tasks)

    @classmethod
    def from_arrays(
        cls,
        n: Any,
        c: Any,
        present: Any,
        systems: list[str],
        tasks: list[str],
        *,
        model: str = "joint",
    ) -> JointData:
        """Cells from (system, task) arrays; checks what the joint model needs.

        Raises
        ------
        ModelError
            Fewer than two systems, a system with no decided run, or a system
            sharing no task with any other system (its level and the task
            effects would not be separable).
        """
        n_arr = np.asarray(n, dtype=np.int64)
        c_arr = np.asarray(c, dtype=np.int64)
        obs = np.asarray(present, dtype=bool) & (n_arr > 0)
        if len(systems) < 2:
            only = f" ({systems[0]!r})" if systems else ""
            raise ModelError(
                f"model={model!r} needs at least two systems on shared tasks; the data hold "
                f"{len(systems)}{only}: use the single-system model (model='beta')"
            )
        for si, s in enumerate(systems):
            if not obs[si].any():
                raise ModelError(f"system {s!r}: no task has a decided run; nothing to fit")
            others = np.delete(obs, si, axis=0).any(axis=0)
            if not (obs[si] & others).any():
                raise ModelError(
                    f"system {s!r} shares no task with the other systems: the joint model "
                    "separates a system's level from task effects only on shared tasks"
                )
        keep = obs.any(axis=0)
        task_index = np.flatnonzero(keep)
        sub = obs[:, keep]
        s_idx, t_idx = np.nonzero(sub)
        return cls(
            systems=list(systems),
            tasks=[tasks[i] for i in task_index],
            task_index=task_index.astype(np.intp),
            sys_idx=s_idx.astype(np.int64),
            task_idx=t_idx.astype(np.int64),
            n=n_arr[:, keep][s_idx, t_idx],
            c=c_arr[:, keep][s_idx, t_idx],
        )


def joint_counts(
    n: Any, c: Any, *, systems: list[str], tasks: list[str] | None = None, present: Any = None
) -> Any:
    """A count table of several systems from (systems, tasks) arrays of runs and successes.

    ``present`` (default: n > 0) marks the cells a system ran.

    Examples
    --------
    >>> from passhat.model.joint_build import joint_counts
    >>> ds = joint_counts([[4, 4], [3, 0]], [[4, 1], [2, 0]], systems=["A", "B"])
    >>> ds["present"].values.tolist()
    [[True, True], [True, False]]
    """
    import xarray as xr

    n_arr = np.asarray(n, dtype=np.int64)
    c_arr = np.asarray(c, dtype=np.int64)
    if n_arr.ndim != 2 or n_arr.shape != c_arr.shape or n_arr.shape[0] != len(systems):
        raise OptionError(
            f"joint counts: n and c must be (systems, tasks) arrays with one row per system "
            f"(got {n_arr.shape} and {c_arr.shape} for {len(systems)} systems)"
        )
    names = [str(t) for t in (tasks if tasks is not None else range(n_arr.shape[1]))]
    pres = n_arr > 0 if present is None else np.asarray(present, dtype=bool)
    ds = xr.Dataset(
        {
            "n": (("system", "task"), n_arr),
            "c": (("system", "task"), c_arr),
            "unscored": (("system", "task"), np.zeros_like(n_arr)),
            "present": (("system", "task"), pres),
            "weight": (("system", "task"), np.ones(n_arr.shape)),
        },
        coords={
            "system": np.array([str(s) for s in systems], dtype=object),
            "task": np.array(names, dtype=object),
        },
    )
    return validate_counts(ds)


def build_joint_model(
    data: JointData, *, priors: JointPriors | None = None, quad: Any = None
) -> Any:
    """The PyMC model of the joint crossed model, task effects integrated out (see the module).

    Returns
    -------
    quad : Quadrature, optional
        The quadrature of ``data`` (:func:`passhat.model.joint_quad.design`),
        when already made.

    Returns
    -------
    pymc.Model
        Free variables ``theta`` (system), ``task_sd`` (σ_β) and ``kappa``.
        The likelihood is a ``pm.Potential`` named ``loglik``: per distinct
        count row, the log of the quadrature of Π_s BB(c_si | ...) N(β | 0,
        σ_β) over its window of grid nodes (:mod:`passhat.model.joint_quad`),
        times the row's multiplicity (without the binomial coefficients).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, build_joint_model
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> sorted(v.name for v in build_joint_model(d).free_RVs)
    ['kappa', 'task_sd', 'theta']
    """
    import pymc as pm

    from passhat.model.joint_ops import QuadLogLik
    from passhat.model.joint_quad import design

    pri = priors or JointPriors()
    q = quad if quad is not None else design(data)
    vals = quad_model_data(q)
    coords = {"system": data.systems}
    with pm.Model(coords=coords) as m:
        box = {name: pm.Data(name, v) for name, v in vals.items()}
        theta = pm.Normal("theta", mu=0.0, sigma=pri.theta_sd, dims="system")
        task_sd = pm.HalfNormal("task_sd", sigma=pri.task_sd_scale)
        kappa = pm.LogNormal("kappa", mu=pri.log_kappa_mean, sigma=pri.log_kappa_sd)
        data_in = ("grid", "pair_n", "pair_c", "base", "stride", "log_step", "mult", "width")
        ll = QuadLogLik().make_node(theta, task_sd, kappa, *(box[k] for k in data_in)).outputs[0]
        # the prior N(β | 0, σ_β) normalised on the grid: a σ_β narrower than the spacing is a
        # point mass at the node 0, not a spike that the trapezoid rule over-weights (the
        # normaliser is 1 to ~1e-9 once σ_β ≥ the spacing)
        pm.Potential("loglik", ll - box["mult"].sum() * grid_log_norm(box["grid"], task_sd))
    return m


def grid_log_norm(grid: Any, task_sd: Any) -> Any:
    """log(h · Σ_q N(β_q | 0, σ_β)) on a uniform grid: the trapezoid rule's total prior mass,
    as a PyTensor expression (the numpy quadrature normalises by the same sum:
    ``joint_quad._log_prior_on_grid``).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import grid_log_norm
    >>> g = 0.5 * np.arange(-20, 21)
    >>> wide, narrow = (float(grid_log_norm(g, sd).eval()) for sd in (1.0, 0.05))
    >>> abs(wide) < 1e-9, round(narrow, 3)
    (True, 1.384)
    """
    import pytensor.tensor as pt

    z = -0.5 * (grid / task_sd) ** 2
    top = pt.max(z)
    lse = top + pt.log(pt.sum(pt.exp(z - top)))
    return lse - pt.log(task_sd * np.sqrt(2 * np.pi)) + pt.log(grid[1] - grid[0])


def quad_model_data(q: Any) -> dict[str, NDArray[Any]]:
    """The values of the ``pm.Data`` containers of :func:`build_joint_model` from a quadrature.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, quad_model_data
    >>> from passhat.model.joint_quad import design
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> sorted(quad_model_data(design(d)))
    ['base', 'grid', 'log_step', 'mult', 'pair_c', 'pair_n', 'stride', 'width']
    """
    S, P, Q = q.rows.shape[1], len(q.pair_n), len(q.grid)
    return {
        "grid": q.grid.astype(np.float64),
        "pair_n": q.pair_n.astype(np.int64),
        "pair_c": q.pair_c.astype(np.int64),
        "log_step": q.log_step().astype(np.float64),
        "mult": q.mult.astype(np.float64),
        "base": ((np.arange(S)[None, :] * P + q.rows) * Q + q.start[:, None]).astype(np.int64),
        "stride": q.stride.astype(np.int64),
        "width": np.arange(q.width, dtype=np.int64),
    }
