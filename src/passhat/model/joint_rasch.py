"""The joint model without the system × task deviation (the Rasch form): exact compression.

With κ → ∞ in :mod:`passhat.model.joint_build` the model is

    c_si ~ Binomial(n_si, p_si),   logit p_si = θ_s + β_i,   β_i ~ Normal(0, σ_β),

and a task's likelihood given β depends on its counts only through the
vector of its runs (n_si, 0 where s did not run it: its *pattern*) and its
total successes r_i = Σ_s c_si:

    Π_s p_si^c_si (1 − p_si)^(n_si − c_si)
        = exp(Σ_s θ_s c_si) · exp(β r_i) / Π_s (1 + e^(θ_s + β))^n_si.

So, without the binomial coefficients,

    ℓ = Σ_s θ_s C_s + Σ_rows m_r log ∫ exp(β r − Σ_s n_gs softplus(θ_s + β)) N(β | 0, σ_β) dβ,

with C_s system s's total successes and one row per distinct (pattern, r)
(multiplicity m_r). With equal n and every system on every task there are at
most S · n + 1 rows whatever the number of tasks: the cost of a gradient does
not grow with the tasks (only the O(tasks) compression and the task effects'
draws after sampling do). NUTS samples θ_s and σ_β only.

The integral is a trapezoid rule on one uniform grid shared by every row (so
Σ_s n_gs softplus(θ_s + β_q) is computed once per pattern and node), with
the prior normalised on the grid as in the crossed model
(:func:`passhat.model.joint_build.grid_log_norm`). The spacing is at most
the narrowest a row's integrand can be, 1/√(N/4 + 1) for N runs in the
pattern (the trapezoid rule's relative error is then below ~1e-8), and at
most σ_β's plausible lower end / 1.5; the grid spans ±(6.5 × σ_β's plausible
upper end + 1) shifted by the systems' levels. Both ends come from the
maximum of the marginal likelihood on a wide grid. After sampling, each β_i
is drawn from its conditional on the grid nodes given each posterior draw,
and the integrand at the grid's ends relative to its peak is reported (a
note when above 1e-4).

The Rasch form is the crossed model with κ = ∞: the result is a
:class:`~passhat.model.joint_result.JointFit` whose metrics put p_si =
logistic(θ_s + β_i) exactly. It assumes every system finds the same tasks
hard in the same proportion; a deviation (κ finite) changes how each
system's rates spread across tasks (what pass^k measures) and makes the
systems less alike task by task (wider intervals of differences).
:meth:`JointFit.dispersion_check` tests it on the counts
(:func:`conditional_check_draws`).

References
----------
.. [1] Rasch, G. (1960). *Probabilistic Models for Some Intelligence and
   Attainment Tests*. Danish Institute for Educational Research.
.. [2] De Boeck, P. and Wilson, M. (2004). *Explanatory Item Response
   Models*. Springer, ch. 2 (the marginal likelihood over a normal item effect).

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_build import JointData
>>> from passhat.model.joint_rasch import rasch_design
>>> n = np.full((2, 4), 3)
>>> d = JointData.from_arrays(n, [[3, 1, 0, 1], [2, 2, 0, 2]], n > 0, ["A", "B"], list("wxyz"))
>>> q = rasch_design(d)
>>> q.row_r.tolist(), q.mult.tolist(), q.totals.tolist()
([0, 3, 5], [1, 2, 1], [5, 6])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special, stats

from passhat.model.joint_build import JointData, JointPriors
from passhat.model.joint_quad import plausible_sd, step_and_span, uniform_grid

__all__ = [
    "RaschQuadrature",
    "build_rasch_model",
    "conditional_check_draws",
    "draw_rasch_effects",
    "rasch_design",
    "rasch_loglik",
    "rasch_model_data",
]

#: Elements per chunk when the task effects are drawn (bounds the memory of a draw).
_DRAW_CHUNK = 4_000_000


@dataclass(frozen=True, eq=False)
class RaschQuadrature:
    """Compressed counts of the Rasch form and its grid.

    Attributes
    ----------
    grid : ndarray (Q,)
        Uniform nodes β_q (β = 0 is a node).
    patterns : ndarray (G, S)
        Distinct vectors of runs per system (0: not run).
    row_pattern, row_r, mult : ndarray (R,)
        Per distinct (pattern, total successes) row: its pattern, its total
        and how many tasks have it.
    row_of_task : ndarray (T,)
        Row of each fitted task.
    totals : ndarray (S,)
        Successes of each system over the fitted tasks (C_s).
    """

    grid: NDArray[np.float64]
    patterns: NDArray[np.int64]
    row_pattern: NDArray[np.int64]
    row_r: NDArray[np.int64]
    mult: NDArray[np.int64]
    row_of_task: NDArray[np.int64]
    totals: NDArray[np.int64]

    @property
    def h(self) -> float:
        """Node spacing."""
        return float(self.grid[1] - self.grid[0]) if len(self.grid) > 1 else 1.0


def _compress(data: JointData) -> tuple[NDArray[np.int64], ...]:
    """Patterns, rows (pattern, r), multiplicities, each task's row and the totals C_s."""
    S, T = len(data.systems), data.tasks_fitted
    n = np.zeros((S, T), dtype=np.int64)
    n[data.sys_idx, data.task_idx] = data.n
    r = np.bincount(data.task_idx, weights=data.c, minlength=T).astype(np.int64)
    totals = np.bincount(data.sys_idx, weights=data.c, minlength=S).astype(np.int64)
    patterns, pat = np.unique(n.T, axis=0, return_inverse=True)
    pat = np.asarray(pat).reshape(-1)
    keys, row_of_task, mult = np.unique(
        np.stack([pat, r], axis=1), axis=0, return_inverse=True, return_counts=True
    )
    return (
        patterns.astype(np.int64),
        keys[:, 0].astype(np.int64),
        keys[:, 1].astype(np.int64),
        mult.astype(np.int64),
        np.asarray(row_of_task).reshape(-1).astype(np.int64),
        totals,
    )


def _row_terms(
    q: RaschQuadrature, theta: NDArray[np.float64], task_sd: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Log integrand of each row at each node with the grid-normalised prior (D, R, Q), and
    the normalised prior's log weights (D, Q)."""
    x = theta[:, :, None] + q.grid[None, None, :]  # (D, S, Q)
    a = np.einsum("gs,dsq->dgq", q.patterns.astype(float), np.logaddexp(0.0, x))
    z = -0.5 * (q.grid[None, :] / task_sd[:, None]) ** 2
    z = z - special.logsumexp(z, axis=1, keepdims=True)
    terms = q.row_r[None, :, None] * q.grid[None, None, :] - a[:, q.row_pattern, :]
    return terms + z[:, None, :], z


def rasch_loglik(
    q: RaschQuadrature,
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    *,
    per_row: bool = False,
) -> NDArray[np.float64]:
    """ℓ per draw by the grid (the model's value), or log ∫ … of each row: (D,) or (D, R).

    ``theta`` is (D, S), ``task_sd`` (D,). The row terms leave out Σ_s θ_s C_s.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_rasch import rasch_design, rasch_loglik
    >>> d = JointData.from_arrays([[2, 2], [2, 2]], [[1, 2], [0, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> rasch_loglik(rasch_design(d), np.zeros((3, 2)), np.ones(3)).shape
    (3,)
    """
    terms, _ = _row_terms(q, np.atleast_2d(theta), np.atleast_1d(task_sd))
    rows = special.logsumexp(terms, axis=2)
    if per_row:
        return np.asarray(rows)
    return np.asarray(rows @ q.mult + np.atleast_2d(theta) @ q.totals)


def _fit_plugin(q: RaschQuadrature, S: int) -> tuple[NDArray[np.float64], float]:
    """θ and log σ_β maximising the marginal likelihood (analytic gradient, L-BFGS)."""
    nq = q.patterns.astype(float)

    def neg(par: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        th, sd = par[:S], np.exp(par[S])
        terms, z = _row_terms(q, th[None], np.array([sd]))
        lse = special.logsumexp(terms[0], axis=1)
        w = np.exp(terms[0] - lse[:, None]) * q.mult[:, None]  # (R, Q)
        wg = np.zeros((len(nq), len(q.grid)))
        np.add.at(wg, q.row_pattern, w)  # (G, Q): the rows' weights per pattern
        sig = special.expit(th[:, None] + q.grid[None, :])  # (S, Q)
        d_th = q.totals - np.einsum("gq,gs,sq->s", wg, nq, sig)
        b2 = q.grid**2 / sd**2
        d_lsd = w.sum(axis=0) @ b2 - q.mult.sum() * (np.exp(z[0]) @ b2)
        val = lse @ q.mult + th @ q.totals
        return -float(val), -np.concatenate([d_th, [d_lsd]])

    # bounded: a system that passed (or failed) everything has no finite maximum
    bounds = [(-8.0, 8.0)] * S + [(np.log(0.02), np.log(30.0))]
    res = optimize.minimize(neg, np.zeros(S + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return res.x[:S], float(np.exp(res.x[S]))


def rasch_design(data: JointData) -> RaschQuadrature:
    """Compressed rows and the grid of a Rasch-form fit (see the module).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_rasch import rasch_design
    >>> n = np.full((3, 500), 5)
    >>> c = np.random.default_rng(0).binomial(5, 0.6, n.shape)
    >>> names = [str(i) for i in range(500)]
    >>> q = rasch_design(JointData.from_arrays(n, c, n > 0, list("ABC"), names))
    >>> len(q.row_r) <= 3 * 5 + 1, bool(q.h <= 1 / np.sqrt(15 / 4 + 1))
    (True, True)
    """
    patterns, row_pattern, row_r, mult, row_of_task, totals = _compress(data)
    S = len(data.systems)
    n_max = float(patterns.sum(axis=1).max(initial=1))
    h = 1.0 / np.sqrt(n_max / 4.0 + 1.0)

    def on_grid(lo: float, hi: float, step: float) -> RaschQuadrature:
        return RaschQuadrature(
            grid=uniform_grid(lo, hi, step),
            patterns=patterns,
            row_pattern=row_pattern,
            row_r=row_r,
            mult=mult,
            row_of_task=row_of_task,
            totals=totals,
        )

    wide = on_grid(-30.0, 30.0, min(h, 0.1))
    theta, _ = _fit_plugin(wide, S)
    # σ_β's plausible range: its profile log likelihood (θ at the maximum) within 8 of the top
    taus = np.exp(np.linspace(np.log(0.02), np.log(30.0), 48))
    prof = rasch_loglik(wide, np.repeat(theta[None], len(taus), axis=0), taus)
    h, span = step_and_span(h, *plausible_sd(taus, prof))
    return on_grid(-span - max(float(theta.max()), 0.0), span - min(float(theta.min()), 0.0), h)


def rasch_model_data(q: RaschQuadrature) -> dict[str, NDArray[Any]]:
    """The values of the ``pm.Data`` containers of :func:`build_rasch_model`.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_rasch import rasch_design, rasch_model_data
    >>> d = JointData.from_arrays([[2, 2], [2, 2]], [[1, 2], [0, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> sorted(rasch_model_data(rasch_design(d)))
    ['grid', 'mult', 'patterns', 'row_pattern', 'row_r', 'totals']
    """
    return {
        "grid": q.grid.astype(np.float64),
        "patterns": q.patterns.astype(np.float64),
        "row_pattern": q.row_pattern.astype(np.int64),
        "row_r": q.row_r.astype(np.float64),
        "mult": q.mult.astype(np.float64),
        "totals": q.totals.astype(np.float64),
    }


def build_rasch_model(
    data: JointData, *, priors: JointPriors | None = None, quad: RaschQuadrature | None = None
) -> Any:
    """The PyMC model of the Rasch form, task effects integrated out (see the module).

    Free variables ``theta`` (system) and ``task_sd`` (σ_β), priors as in
    :class:`~passhat.model.joint_build.JointPriors` (its κ prior is unused);
    the likelihood is the ``pm.Potential`` ``loglik`` (without the binomial
    coefficients): one Op with a numba kernel for value and gradient
    (:mod:`passhat.model.joint_rasch_ops`).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_rasch import build_rasch_model
    >>> d = JointData.from_arrays([[3, 3], [3, 3]], [[0, 3], [1, 2]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> sorted(v.name for v in build_rasch_model(d).free_RVs)
    ['task_sd', 'theta']
    """
    import pymc as pm

    from passhat.model.joint_rasch_ops import RaschLogLik

    pri = priors or JointPriors()
    q = quad if quad is not None else rasch_design(data)
    names = ("grid", "patterns", "row_pattern", "row_r", "mult", "totals")
    with pm.Model(coords={"system": data.systems}) as m:
        box = {name: pm.Data(name, v) for name, v in rasch_model_data(q).items()}
        theta = pm.Normal("theta", mu=0.0, sigma=pri.theta_sd, dims="system")
        task_sd = pm.HalfNormal("task_sd", sigma=pri.task_sd_scale)
        ll = RaschLogLik().make_node(theta, task_sd, *(box[k] for k in names)).outputs[0]
        pm.Potential("loglik", ll)
    return m


def draw_rasch_effects(
    q: RaschQuadrature,
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    *,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], float]:
    """One β_i per posterior draw from its conditional on the grid; and the grid ends' check.

    Returns the task effects (D, T) and the largest integrand at a grid end
    relative to its row's peak (over rows and draws): small when the grid covers.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_rasch import rasch_design, draw_rasch_effects
    >>> d = JointData.from_arrays([[5, 5], [5, 5]], [[1, 4], [0, 5]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> b, edge = draw_rasch_effects(rasch_design(d), np.zeros((3, 2)), np.ones(3),
    ...                              rng=np.random.default_rng(0))
    >>> b.shape, edge < 1e-6
    ((3, 2), True)
    """
    D = theta.shape[0]
    R, Q = len(q.row_r), len(q.grid)
    T = len(q.row_of_task)
    out = np.empty((D, T))
    edge = 0.0
    step = max(1, _DRAW_CHUNK // max(R * Q + theta.shape[1] * Q, 1))
    for lo in range(0, D, step):
        hi = min(D, lo + step)
        terms, _ = _row_terms(q, theta[lo:hi], task_sd[lo:hi])
        terms -= terms.max(axis=2, keepdims=True)
        w = np.exp(terms)
        edge = max(edge, float(w[:, :, [0, -1]].max()))
        cdf = np.cumsum(w, axis=2)
        cdf /= cdf[:, :, -1:]
        # one searchsorted over all (draw, row) CDFs, each offset by its index
        offs = np.arange((hi - lo) * R, dtype=float).reshape(hi - lo, R)
        flat = (cdf + offs[:, :, None]).ravel()
        row = offs[:, q.row_of_task]  # (d, T)
        u = rng.random((hi - lo, T))
        pos = np.searchsorted(flat, row + u) - row.astype(np.int64) * Q
        out[lo:hi] = q.grid[np.clip(pos, 0, Q - 1)]
    return out, edge


def _convolve(a: NDArray[np.float64], pmf: NDArray[np.float64]) -> NDArray[np.float64]:
    """Distribution of a sum plus one more system's count: (D, M) ⊛ (D, n + 1) → (D, M + n)."""
    out = np.zeros((a.shape[0], a.shape[1] + pmf.shape[1] - 1))
    for c in range(pmf.shape[1]):
        out[:, c : c + a.shape[1]] += a * pmf[:, c, None]
    return out


def conditional_check_draws(
    theta: NDArray[np.float64],
    n: NDArray[np.int64],
    c: NDArray[np.int64],
    observed: NDArray[np.bool_],
    *,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """X² of each system's cells given each task's total, observed and replicated: 2 × (D, S).

    Under the Rasch form a task's counts given their total r_i do not depend
    on its effect β_i: P(c_i | r_i) ∝ Π_s Binomial(c_si | n_si, logistic(θ_s))
    on Σ_s c_si = r_i (sufficiency of r_i [1]_). Per draw of θ, X² = Σ_i
    (c_si − E[c_si | r_i])² / Var(c_si | r_i), for the observed cells and for
    cells replicated from that conditional (so no task effect can absorb a
    deviation, and every task's total is kept). A system × task deviation
    makes the observed X² larger. Exact sums over the counts (convolutions);
    ``theta`` (D, S), ``n``, ``c``, ``observed`` (S, T).

    References
    ----------
    .. [1] Andersen, E. B. (1973). A goodness of fit test for the Rasch model.
       *Psychometrika* 38, 123–140.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_rasch import conditional_check_draws
    >>> n = np.full((2, 3), 2)
    >>> obs, rep = conditional_check_draws(np.zeros((1, 2)), n, np.array([[2, 0, 1], [0, 2, 1]]),
    ...                                    n > 0, rng=np.random.default_rng(0))
    >>> # r = 2: c ∈ {0, 1, 2} ∝ C(2, c) C(2, 2 − c) = 1, 4, 1 (mean 1, var ⅓): (1 + 1 + 0)/⅓
    >>> round(float(obs[0, 0]), 9)
    6.0
    """
    D, S = theta.shape
    nn = np.where(observed, n, 0).astype(np.int64)
    cc = np.where(observed, c, 0).astype(np.int64)
    pats, pat_of_task = np.unique(nn.T, axis=0, return_inverse=True)
    pat_of_task = np.asarray(pat_of_task).reshape(-1)
    p = special.expit(theta)
    obs, rep = np.zeros((D, S)), np.zeros((D, S))
    for g, pattern in enumerate(pats):
        tasks = np.flatnonzero(pat_of_task == g)
        r = cc[:, tasks].sum(axis=0)  # (Tg,)
        ks = np.arange(int(pattern.max()) + 1)
        pmf = stats.binom.pmf(ks[None, None, :], pattern[None, :, None], p[:, :, None])  # D,S,K
        pre = [np.ones((D, 1))]  # distribution of the sum over systems < s
        for s in range(S):
            pre.append(_convolve(pre[-1], pmf[:, s, : pattern[s] + 1]))
        suf = [np.ones((D, 1))]  # over systems ≥ s, built from the end
        for s in range(S - 1, -1, -1):
            suf.insert(0, _convolve(suf[0], pmf[:, s, : pattern[s] + 1]))
        total = pre[S][:, r]  # (D, Tg)
        left = r.copy()
        u = rng.random((S, D, len(tasks)))
        for s in range(S):
            if pattern[s] == 0:
                continue
            rest = _convolve(pre[s], suf[s + 1])  # the sum over the other systems
            cs = np.arange(pattern[s] + 1)
            idx = r[None, :] - cs[:, None]  # (C, Tg)
            ok = (idx >= 0) & (idx < rest.shape[1])
            w = pmf[:, s, cs][:, :, None] * np.where(
                ok, rest[:, np.clip(idx, 0, rest.shape[1] - 1)], 0.0
            )
            w = w / np.maximum(total[:, None, :], 1e-300)  # P(c_s = c | r): (D, C, Tg)
            mean = (w * cs[None, :, None]).sum(axis=1)
            var = (w * cs[None, :, None] ** 2).sum(axis=1) - mean**2
            good = var > 1e-12
            safe = np.where(good, var, 1.0)
            obs[:, s] += np.where(good, (cc[s, tasks][None, :] - mean) ** 2 / safe, 0.0).sum(1)
            # replicate: c_s given what the systems ≥ s must add up to (sequentially)
            nxt = suf[s + 1]
            lft = np.broadcast_to(left, (D, len(tasks))) if left.ndim == 1 else left
            j = lft[:, None, :] - cs[None, :, None]  # (D, C, Tg)
            okj = (j >= 0) & (j < nxt.shape[1])
            wr = pmf[:, s, cs][:, :, None] * np.where(
                okj, np.take_along_axis(nxt[:, :, None], np.clip(j, 0, nxt.shape[1] - 1), 1), 0.0
            )
            cdf = np.cumsum(wr, axis=1)
            pick = (cdf < u[s][:, None, :] * cdf[:, -1:, :]).sum(axis=1)
            pick = np.minimum(pick, pattern[s])
            rep[:, s] += np.where(good, (pick - mean) ** 2 / safe, 0.0).sum(axis=1)
            left = lft - pick
    return obs, rep
