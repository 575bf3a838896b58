"""Joint model of several systems on shared tasks: priors, data cells, the PyMC model.

The crossed model for systems s = 1..S and tasks i = 1..T is

    c_si | p_si ~ Binomial(n_si, p_si),
    p_si | μ_si ~ Beta(μ_si κ, (1 − μ_si) κ),   logit μ_si = θ_s + β_i,
    β_i ~ Normal(0, σ_β),

with θ_s the system's level, β_i the task's effect (shared by every system
that ran task i) and the Beta the system × task deviation: how far system s's
rate on task i strays from what its level and the task's effect predict. κ
is its concentration (κ → ∞: no deviation, the Rasch model).

Only the cells (s, i) with a decided run enter the likelihood, so unequal n
per system and tasks missing for some systems need nothing special: a task
effect is estimated from the systems that ran the task.

What compresses. With a task effect shared across systems, tasks no longer
reduce to distinct (n, c) pairs per system: a task's information is the
vector of every system's (n_si, c_si), and distinct vectors are nearly as
many as tasks. Integrating β_i out by a fixed quadrature (one shared table
over distinct (s, n, c)) would make the sampler's dimension S + 2, but the
integrand of a task run S·n times is as narrow as 1/√(S·n) on the logit
scale, which a 20–30-node rule does not resolve (errors of percents in a
task's likelihood at 20 systems × 5 runs). So β_i is sampled (non-centred,
β_i = σ_β z_i) and only the deviation is integrated, exactly: each cell
is a Beta-Binomial term. What does compress: cells with c = 0 carry no
success term and cells with c = n no failure term, and the normalising
term Σ lnΓ(κ + n_si) − lnΓ(κ) depends on κ alone, so it reduces to the
distinct n with their cell counts. With up to 50 runs per cell the
success and failure terms are written as sums of logs,
lnΓ(a + c) − lnΓ(a) = Σ_{j<c} log(a + j) (half the cost of log-gammas and
their digamma gradients here). A gradient then costs about one log per
run plus one sigmoid per cell: linear in the number of cells, so the cost
of a fit grows with the tasks (measured in ``benchmarks/bench_joint.py``);
nutpie's low-rank mass-matrix adaptation handles the one direction the
model leaves weakly identified (all θ_s up, all β_i down).

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

__all__ = ["JointData", "JointPriors", "build_joint_model", "joint_counts", "joint_model_data"]


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
                f"model='joint' needs at least two systems on shared tasks; the data hold "
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


#: Up to this many runs per cell the Beta-Binomial terms are sums of logs (cheaper than
#: log-gammas and their digamma gradients); above it, log-gamma differences.
EXPANDED_MAX_RUNS = 50


def joint_model_data(data: JointData, *, expanded: bool = False) -> dict[str, NDArray[Any]]:
    """The values of the ``pm.Data`` containers of :func:`build_joint_model`.

    ``s_*``/``t_*``/``v_*``: cells with c > 0 (success terms lnΓ(a + c) −
    lnΓ(a)); ``fs_*``/``ft_*``/``fv_*``: cells with f = n − c > 0 (failure
    terms); ``nv``/``nw``: the distinct n and their cell counts (the κ terms).
    With ``expanded``, also ``s_cell``/``s_j`` (and ``f_cell``/``f_j``): one
    entry per success (failure) j < c of each cell, for the sum-of-logs form.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, joint_model_data
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> m = joint_model_data(d)
    >>> m["v"].tolist(), m["fv"].tolist(), m["nv"].tolist(), m["nw"].tolist()
    ([3.0, 1.0, 2.0], [3.0, 2.0, 1.0], [3.0], [4.0])
    """
    f = data.n - data.c
    succ = data.c > 0
    fail = f > 0
    nv, nw = np.unique(data.n, return_counts=True)
    out = {
        "s_s": data.sys_idx[succ],
        "s_t": data.task_idx[succ],
        "v": data.c[succ].astype(np.float64),
        "f_s": data.sys_idx[fail],
        "f_t": data.task_idx[fail],
        "fv": f[fail].astype(np.float64),
        "nv": nv.astype(np.float64),
        "nw": nw.astype(np.float64),
    }
    if expanded:
        # lnΓ(a + c) − lnΓ(a) = Σ_{j<c} log(a + j): one log per run instead of two log-gammas
        for pre, cnt in (("s", data.c[succ]), ("f", f[fail])):
            out[f"{pre}_cell"] = np.repeat(np.arange(len(cnt)), cnt)
            out[f"{pre}_j"] = (np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)).astype(
                np.float64
            )
    return out


def build_joint_model(data: JointData, *, priors: JointPriors | None = None) -> Any:
    """The PyMC model of the joint crossed model (see the module).

    Returns
    -------
    pymc.Model
        Free variables ``theta`` (system), ``task_sd`` (σ_β), ``kappa`` and
        ``z`` (task, standard normal; β = σ_β z is the deterministic
        ``beta``). The likelihood is a ``pm.Potential`` named ``loglik``
        (Beta-Binomial of every observed cell, without the binomial
        coefficient).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData, build_joint_model
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> sorted(v.name for v in build_joint_model(d).free_RVs)
    ['kappa', 'task_sd', 'theta', 'z']
    """
    import pymc as pm
    import pytensor.tensor as pt

    pri = priors or JointPriors()
    expanded = int(data.n.max(initial=0)) <= EXPANDED_MAX_RUNS
    vals = joint_model_data(data, expanded=expanded)
    coords = {"system": data.systems, "task": data.tasks}
    with pm.Model(coords=coords) as m:
        box = {name: pm.Data(name, v) for name, v in vals.items()}
        theta = pm.Normal("theta", mu=0.0, sigma=pri.theta_sd, dims="system")
        task_sd = pm.HalfNormal("task_sd", sigma=pri.task_sd_scale)
        kappa = pm.LogNormal("kappa", mu=pri.log_kappa_mean, sigma=pri.log_kappa_sd)
        z = pm.Normal("z", 0.0, 1.0, dims="task")
        beta = pm.Deterministic("beta", task_sd * z, dims="task")
        # a = κ μ and b = κ (1 − μ) from the logit, each by its own stable log-sigmoid
        x_s = theta[box["s_s"]] + beta[box["s_t"]]
        x_f = theta[box["f_s"]] + beta[box["f_t"]]
        a = kappa * pt.sigmoid(x_s)
        b = kappa * pt.sigmoid(-x_f)
        norm = pt.sum(box["nw"] * (pt.gammaln(kappa + box["nv"]) - pt.gammaln(kappa)))
        if expanded:
            ll = (
                pt.sum(pt.log(a[box["s_cell"]] + box["s_j"]))
                + pt.sum(pt.log(b[box["f_cell"]] + box["f_j"]))
                - norm
            )
        else:
            ll = (
                pt.sum(pt.gammaln(a + box["v"]) - pt.gammaln(a))
                + pt.sum(pt.gammaln(b + box["fv"]) - pt.gammaln(b))
                - norm
            )
        pm.Potential("loglik", ll)
    return m
