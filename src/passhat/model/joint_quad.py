"""The task effects of the joint model integrated out by quadrature on a shared grid.

For task i with counts (n_si, c_si) over the systems that ran it, the
likelihood with its task effect integrated out is

    L_i = ∫ Π_s BB(c_si | n_si, κ μ_s(β), κ (1 − μ_s(β))) N(β | 0, σ_β) dβ,
    μ_s(β) = logistic(θ_s + β),

where BB is the Beta-Binomial term of one cell (the system × task deviation
is already integrated exactly; it does not nest a second quadrature). The
integral is a trapezoid rule on a uniform grid β_q = β_lo + h q fixed from
the data (not scaled by σ_β): for a smooth, nearly Gaussian integrand of
standard deviation σ the rule's relative error is about 2 exp(−2π²σ²/h²)
(2·10⁻⁹ at h = σ). The spacing h is the narrowest a task's integrand can
be, 1/√(Σ_s n_si / 4) (every cell informative as a Binomial at μ = ½). A
task run 20 × 5 times has an integrand as narrow as 0.2 on the logit scale,
which a Gauss–Hermite rule scaled by σ_β does not resolve with 20–80 nodes
(the reason this is not the fixed-node plan).

What makes it cheap. Given (θ, κ) the term of one cell depends on the
system, the cell's (n, c) pair and the node only: a table of S × P × Q
values (P distinct (n, c) pairs) per evaluation. A task's log integrand at
node q is the sum of S table entries, and identical count rows (same pair
for every system) are one row with a multiplicity. Each row is summed only
over a window of K nodes (start_r + stride_r · j, j < K) that covers its
integrand for any plausible (θ, σ_β, κ): the grid and the windows are fixed
once from a plug-in fit (θ from additive logits corrected on a wide grid,
σ_β's plausible range from its profile likelihood) with margins for its
error and for κ from 0.5 (broad) to 10⁴ (narrow, the Rasch limit); the
stride keeps a row's node spacing below its narrowest width. The cost of a
log-density gradient is then one S × P × Q table and R × S × K additions
(R distinct rows): linear in the tasks, with K ≈ 50 instead of the sampler
carrying one dimension per task. Small problems use the whole grid for
every row.

After sampling, each task effect is drawn from its conditional given each
posterior draw, exactly on the quadrature nodes (a node of the row's window
with probability ∝ its term in the sum), which also checks the windows: the
largest integrand at a window's end relative to its peak is reported
(``window_edge``; a note when it exceeds 10⁻⁴).

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_build import JointData
>>> from passhat.model.joint_quad import design, row_loglik
>>> d = JointData.from_arrays([[5, 5], [5, 5]], [[1, 4], [0, 5]], np.ones((2, 2), bool),
...                           ["A", "B"], ["x", "y"])
>>> q = design(d)
>>> q.rows.shape, q.mult.tolist()
((2, 2), [1, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

__all__ = [
    "Quadrature",
    "cell_table",
    "design",
    "draw_task_effects",
    "marginal_loglik",
    "row_loglik",
]

#: Below this many (row, system, node) terms every row is summed over the whole grid.
FULL_GRID_MAX = 200_000
#: Half-width of a window in integrand standard deviations, and the margin (logit) added
#: for the plug-in's error.
_WIDTH_SD = 6.0
_MARGIN = 0.5
#: The grid covers ± this many times σ_β's plausible upper end (the prior's tail mass
#: beyond is below 1e-9 of a row's integrand).
_SPAN_SD = 6.5
#: The κ range the windows cover: broad (little information per cell) to the Rasch limit.
_KAPPA_BROAD, _KAPPA_NARROW = 0.5, 1e4
#: Nodes per σ_β at its plausible lower end, and the finest spacing used.
_SD_PER_STEP, _H_MIN = 1.5, 0.02
#: Up to this many runs per cell the cell terms are cumulative sums of logs (as in the model).
_EXPANDED_MAX_RUNS = 50


@dataclass(frozen=True, eq=False)
class Quadrature:
    """The quadrature of a joint fit: grid, distinct count rows and their windows.

    Attributes
    ----------
    grid : ndarray (Q,)
        Nodes β_q (uniform, spacing ``h``).
    h : float
        Node spacing.
    pair_n, pair_c : ndarray (P,)
        The distinct (n, c) pairs of the cells; pair 0 is (0, 0): a task the
        system did not run (its term is 0).
    rows : ndarray (R, S)
        Pair index per distinct count row and system.
    mult : ndarray (R,)
        How many tasks have each row.
    row_of_task : ndarray (T,)
        Row index of each fitted task.
    start, stride : ndarray (R,)
        Each row's window: nodes start + stride · j, j < ``width``.
    width : int
        Nodes per window.
    """

    grid: NDArray[np.float64]
    h: float
    pair_n: NDArray[np.int64]
    pair_c: NDArray[np.int64]
    rows: NDArray[np.int64]
    mult: NDArray[np.int64]
    row_of_task: NDArray[np.int64]
    start: NDArray[np.int64]
    stride: NDArray[np.int64]
    width: int

    @property
    def nodes(self) -> NDArray[np.int64]:
        """Grid index of every window node: (R, K)."""
        return self.start[:, None] + self.stride[:, None] * np.arange(self.width)[None, :]

    def gather_index(self) -> NDArray[np.int64]:
        """Flat index into an (S, P, Q) table of each row's terms at its nodes: (R, S, K)."""
        S = self.rows.shape[1]
        P, Q = len(self.pair_n), len(self.grid)
        base = (np.arange(S)[None, :] * P + self.rows) * Q  # (R, S)
        return base[:, :, None] + self.nodes[:, None, :]

    def log_step(self) -> NDArray[np.float64]:
        """log(h · stride) per row: the trapezoid weight of a window node, (R,)."""
        return np.log(self.h * self.stride.astype(float))


def _pairs(data: Any) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Distinct (n, c) pairs (pair 0 = (0, 0)) and the (S, T) pair index of every cell."""
    S, T = len(data.systems), data.tasks_fitted
    base = int(data.n.max(initial=0)) + 1
    key = data.n * base + data.c
    uniq, inv = np.unique(np.concatenate([[0], key]), return_inverse=True)
    idx = np.zeros((S, T), dtype=np.int64)
    idx[data.sys_idx, data.task_idx] = inv[1:]
    return (uniq // base).astype(np.int64), (uniq % base).astype(np.int64), idx


def _plugin(data: Any) -> tuple[NDArray[np.float64], float]:
    """Rough θ_s and σ_β from additive empirical logits (a start for :func:`_refine`)."""
    S, T = len(data.systems), data.tasks_fitted
    lg = np.log((data.c + 0.5) / (data.n - data.c + 0.5))
    theta, beta = np.zeros(S), np.zeros(T)
    cnt_s = np.bincount(data.sys_idx, minlength=S)
    cnt_t = np.bincount(data.task_idx, minlength=T)
    for _ in range(30):
        theta = np.bincount(data.sys_idx, lg - beta[data.task_idx], minlength=S) / cnt_s
        beta = np.bincount(data.task_idx, lg - theta[data.sys_idx], minlength=T) / cnt_t
        shift = beta.mean()
        beta -= shift
        theta += shift
    return theta, float(max(beta.std(), 0.5))


def _refine(
    q: Quadrature, theta: NDArray[np.float64], sd: float, *, steps: int = 6
) -> tuple[NDArray[np.float64], float]:
    """Correct the empirical logits' shrinkage: match each system's observed success rate
    (and σ_β the task effects' second moment) under the rows' conditionals on the grid."""
    n_cells = q.pair_n[q.rows]  # (R, S)
    c_cells = q.pair_c[q.rows]
    obs = (q.mult @ c_cells + 0.5) / (q.mult @ n_cells + 1.0)
    for _ in range(steps):
        rl = row_loglik(q, theta[None, :], np.array([8.0]))[0]
        rl = rl + _log_prior(q.grid, np.array([sd]))
        w = np.exp(rl - rl.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)  # (R, Q)
        mu = special.expit(theta[:, None] + q.grid[None, :])  # (S, Q)
        pred = np.einsum("rs,rq,sq->s", n_cells * q.mult[:, None], w, mu) / (q.mult @ n_cells)
        pred = np.clip(pred, 1e-9, 1 - 1e-9)
        theta = theta + special.logit(obs) - special.logit(pred)
        sd = float(max(np.sqrt((w @ q.grid**2) @ q.mult / q.mult.sum()), 0.3))
    return theta, sd


def _profile_sd(q: Quadrature, theta: NDArray[np.float64]) -> tuple[float, float, float]:
    """σ_β maximising the integrated likelihood at θ (κ = 8), and the range where the
    profile log likelihood is within 8 of its maximum (widened by a step of the τ grid)."""
    rl = row_loglik(q, theta[None, :], np.array([8.0]))[0] + np.log(q.h)  # (R, Q)
    rl -= rl.max(axis=1, keepdims=True)
    lik = np.exp(rl)  # (R, Q), each row's peak 1
    taus = np.exp(np.linspace(np.log(0.05), np.log(30.0), 40))
    prior = np.exp(_log_prior_on_grid(q.grid, taus, q.h))  # (taus, Q)
    with np.errstate(divide="ignore"):
        prof = np.log(lik @ prior.T).T @ q.mult  # (taus,)
    best = float(taus[np.argmax(prof)])
    return (best, *plausible_sd(taus, prof))


def plausible_sd(taus: NDArray[np.float64], prof: NDArray[np.float64]) -> tuple[float, float]:
    """σ_β's plausible range: the τ where the profile log likelihood is within 8 of its top,
    widened by a step of the τ grid (shared by the crossed and the Rasch grids)."""
    ok = taus[prof >= prof.max() - 8.0]
    return float(ok.min()) / 1.25, float(ok.max()) * 1.25


def step_and_span(h: float, sd_lo: float, sd_hi: float) -> tuple[float, float]:
    """Node spacing and grid half-span for σ_β's plausible range [sd_lo, sd_hi].

    The spacing also resolves the prior N(β | 0, σ_β) at σ_β's plausible lower end (a
    trapezoid rule coarser than σ_β mis-weights it); below that the prior, normalised on
    the grid, tends to a point mass at the node 0. The half-span covers _SPAN_SD σ_β at
    its plausible upper end.
    """
    return min(h, max(sd_lo / _SD_PER_STEP, _H_MIN)), _SPAN_SD * max(sd_hi, 1.0) + 1.0


def uniform_grid(lo: float, hi: float, h: float) -> NDArray[np.float64]:
    """Integer multiples of h covering [lo, hi]: β = 0 is a node (where a σ_β narrower than h
    puts its mass)."""
    return h * np.arange(np.floor(lo / h), np.ceil(hi / h) + 1)


def cell_table(
    theta: NDArray[np.float64],
    kappa: NDArray[np.float64],
    grid: NDArray[np.float64],
    pair_n: NDArray[np.int64],
    pair_c: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Log Beta-Binomial term (without the binomial coefficient) per system, pair and node.

    ``theta`` is (D, S), ``kappa`` (D,); returns (D, S, P, Q).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_quad import cell_table
    >>> t = cell_table(np.zeros((1, 1)), np.array([1e9]), np.zeros(1), np.array([2]),
    ...                np.array([1]))
    >>> round(float(np.exp(t[0, 0, 0, 0])), 6)   # κ → ∞, μ = ½: p(1 − p) = 0.25
    0.25
    """
    x = theta[:, :, None] + grid[None, None, :]  # (D, S, Q)
    kap = kappa[:, None, None]
    a = kap * special.expit(x)
    b = kap * special.expit(-x)
    top = int(pair_n.max(initial=0))
    if top <= _EXPANDED_MAX_RUNS:
        # lnΓ(a + c) − lnΓ(a) = Σ_{j<c} log(a + j): cumulative sums, one slice per c
        j = np.arange(top, dtype=float)[:, None, None, None]
        zero = np.zeros((1, *a.shape))
        ga = np.concatenate([zero, np.cumsum(np.log(a[None] + j), axis=0)])[pair_c]
        gb = np.concatenate([zero, np.cumsum(np.log(b[None] + j), axis=0)])[pair_n - pair_c]
        kn = np.concatenate(
            [np.zeros((1, len(kappa))), np.cumsum(np.log(kappa[None, :] + j[:, :, 0, 0]), axis=0)]
        )[pair_n]  # (P, D)
        out = ga + gb - kn[:, :, None, None]  # (P, D, S, Q)
        return np.asarray(out.transpose(1, 2, 0, 3))
    c = pair_c[None, None, :, None].astype(float)
    f = (pair_n - pair_c)[None, None, :, None].astype(float)
    n = pair_n[None, None, :, None].astype(float)
    a, b, kap = a[:, :, None, :], b[:, :, None, :], kap[:, :, None, :]
    return np.asarray(
        special.gammaln(a + c)
        - special.gammaln(a)
        + special.gammaln(b + f)
        - special.gammaln(b)
        - (special.gammaln(kap + n) - special.gammaln(kap))
    )


def _log_prior(grid: NDArray[np.float64], task_sd: NDArray[np.float64]) -> NDArray[np.float64]:
    """log N(β_q | 0, σ_β) per draw and node: (D, Q)."""
    sd = task_sd[:, None]
    return np.asarray(-0.5 * (grid[None, :] / sd) ** 2 - np.log(sd) - 0.5 * np.log(2 * np.pi))


def _log_prior_on_grid(
    grid: NDArray[np.float64], task_sd: NDArray[np.float64], h: float
) -> NDArray[np.float64]:
    """log N(β_q | 0, σ_β) normalised on the grid (mass 1 with node weight h): a σ_β
    narrower than the spacing is a point mass at the node 0, not a spike the trapezoid rule
    over-weights. The model's form is :func:`passhat.model.joint_build.grid_log_norm`."""
    lp = _log_prior(grid, task_sd)
    return np.asarray(lp - special.logsumexp(lp, axis=1, keepdims=True) - np.log(h))


def row_loglik(
    q: Quadrature,
    theta: NDArray[np.float64],
    kappa: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Log likelihood of each distinct row at every grid node, given β there: (D, R, Q)."""
    tab = cell_table(theta, kappa, q.grid, q.pair_n, q.pair_c)  # (D, S, P, Q)
    D, S, P, Q = tab.shape
    R = len(q.rows)
    onehot = np.zeros((R, S * P))
    onehot[np.arange(R)[:, None], np.arange(S)[None, :] * P + q.rows] = 1.0
    # one matrix product for all draws: (R, S·P) @ (S·P, D·Q)
    flat = tab.reshape(D, S * P, Q).transpose(1, 0, 2).reshape(S * P, D * Q)
    return np.asarray((onehot @ flat).reshape(R, D, Q).transpose(1, 0, 2))


def marginal_loglik(
    q: Quadrature,
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    *,
    windows: bool = True,
    per_row: bool = False,
) -> NDArray[np.float64]:
    """Σ_i log L_i per draw by the quadrature, over the windows (as sampled) or the whole grid.

    With ``per_row``, log L of each distinct count row instead: (D, R).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_quad import design, marginal_loglik
    >>> d = JointData.from_arrays([[5, 5], [5, 5]], [[1, 4], [0, 5]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> ll = marginal_loglik(design(d), np.zeros((1, 2)), np.ones(1), np.full(1, 5.0))
    >>> ll.shape
    (1,)
    """
    rl = row_loglik(q, theta, kappa) + _log_prior_on_grid(q.grid, task_sd, q.h)[:, None, :]
    if windows:
        nodes = q.nodes
        rl = np.take_along_axis(rl, np.broadcast_to(nodes, rl.shape[:2] + nodes.shape[1:]), 2)
        rl = rl + q.log_step()[None, :, None]
    else:
        rl = rl + np.log(q.h)
    rows = special.logsumexp(rl, axis=2)
    return np.asarray(rows if per_row else rows @ q.mult)


def design(data: Any, *, full_grid_max: int = FULL_GRID_MAX) -> Quadrature:
    """Grid, distinct rows and windows for a joint fit's data (see the module).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_quad import design
    >>> d = JointData.from_arrays([[4, 4, 4], [4, 4, 4]], [[4, 0, 4], [3, 0, 3]],
    ...                           np.ones((2, 3), bool), ["A", "B"], ["x", "y", "z"])
    >>> q = design(d)
    >>> q.mult.tolist(), q.row_of_task.tolist()
    ([1, 2], [1, 0, 1])
    """
    pair_n, pair_c, idx = _pairs(data)
    rows, row_of_task, mult = np.unique(idx.T, axis=0, return_inverse=True, return_counts=True)
    row_of_task = np.asarray(row_of_task).reshape(-1)
    n_row = pair_n[rows].sum(axis=1)
    h = float(1.0 / np.sqrt(max(n_row.max(initial=1), 1) / 4.0 + 1.0))
    theta, sd = _plugin(data)
    R, S = rows.shape

    def on_grid(lo: float, hi: float) -> Quadrature:
        grid = uniform_grid(lo, hi, h)
        return Quadrature(
            grid=grid,
            h=h,
            pair_n=pair_n,
            pair_c=pair_c,
            rows=rows.astype(np.int64),
            mult=mult.astype(np.int64),
            row_of_task=row_of_task.astype(np.int64),
            start=np.zeros(R, dtype=np.int64),
            stride=np.ones(R, dtype=np.int64),
            width=len(grid),
        )

    # place θ and σ_β on a wide grid first (empirical logits understate σ_β when many
    # tasks are all-pass or all-fail), then size the grid by σ_β's plausible upper end
    span = 8.0 * max(sd, 3.0) + 1.0
    wide = on_grid(-span - float(theta.max()), span - float(theta.min()))
    for _ in range(2):
        theta, _ = _refine(wide, theta, sd, steps=3)
        sd, sd_lo, sd_hi = _profile_sd(wide, theta)
    h, span = step_and_span(h, sd_lo, sd_hi)
    full = on_grid(-span, span)
    grid, Q = full.grid, len(full.grid)
    lo = float(grid[0])
    if R * S * Q <= full_grid_max:
        return full
    margin = _MARGIN + 3.0 * sd_hi / np.sqrt(data.tasks_fitted)
    # each row's integrand at the plug-in θ, for σ_β and κ at their plausible extremes
    means, sds = [], []
    for kap in (_KAPPA_BROAD, _KAPPA_NARROW):
        rl_k = row_loglik(full, theta[None, :], np.array([kap]))[0]
        for tau in (sd_lo, sd_hi):
            rl = rl_k + _log_prior(grid, np.array([tau]))
            w = np.exp(rl - rl.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            m = w @ grid
            means.append(m)
            sds.append(np.sqrt(np.clip(w @ grid**2 - m**2, h * h, None)))
    mean_a, sd_a = np.array(means), np.array(sds)
    lo_r = (mean_a - _WIDTH_SD * sd_a).min(axis=0) - margin
    hi_r = (mean_a + _WIDTH_SD * sd_a).max(axis=0) + margin
    sds = [sd_a.min(axis=0)] * 2
    # node spacing at most the row's narrowest width; K nodes cover every row's range
    stride = np.maximum(1, np.floor(np.minimum(sds[0], sds[1]) / h)).astype(np.int64)
    K = int((np.ceil((hi_r - lo_r) / (stride * h)) + 1).max())
    if K >= Q // 2:
        return full
    # the smallest stride with which K nodes still cover the row (finer is more accurate)
    stride = np.clip(np.ceil((hi_r - lo_r) / ((K - 1) * h)), 1, stride).astype(np.int64)
    stride = np.minimum(stride, (Q - 1) // (K - 1))
    # centre each window on its row's range, kept inside the grid
    centre = np.round(((lo_r + hi_r) / 2 - lo) / h).astype(np.int64)
    start = centre - stride * ((K - 1) // 2)
    start = np.clip(start, 0, Q - 1 - stride * (K - 1))
    return Quadrature(
        grid=grid,
        h=h,
        pair_n=pair_n,
        pair_c=pair_c,
        rows=full.rows,
        mult=full.mult,
        row_of_task=full.row_of_task,
        start=start.astype(np.int64),
        stride=stride,
        width=K,
    )


def draw_task_effects(
    q: Quadrature,
    theta: NDArray[np.float64],
    task_sd: NDArray[np.float64],
    kappa: NDArray[np.float64],
    *,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], float]:
    """One β_i per posterior draw from its conditional on the grid; and the windows' loss.

    ``theta`` is (D, S), ``task_sd`` and ``kappa`` (D,). Returns the task
    effects (D, T) and the largest share of a row's integrand mass (over rows
    and draws) that its window leaves out: the sampled likelihood's
    truncation error, which should be negligible (< 1e-6).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_build import JointData
    >>> from passhat.model.joint_quad import design, draw_task_effects
    >>> d = JointData.from_arrays([[5, 5], [5, 5]], [[1, 4], [0, 5]], np.ones((2, 2), bool),
    ...                           ["A", "B"], ["x", "y"])
    >>> b, loss = draw_task_effects(design(d), np.zeros((3, 2)), np.ones(3), np.full(3, 5.0),
    ...                             rng=np.random.default_rng(0))
    >>> b.shape, loss < 1e-6
    ((3, 2), True)
    """
    from passhat.model.joint_ops import window_draws

    D = theta.shape[0]
    S = q.rows.shape[1]
    P, Q = len(q.pair_n), len(q.grid)
    base = (np.arange(S)[None, :] * P + q.rows) * Q + q.start[:, None]
    node_beta = q.grid[q.nodes]
    u = rng.random((D, len(q.row_of_task)))
    pick, edge = window_draws(
        theta,
        kappa,
        task_sd,
        q.grid,
        q.pair_n,
        q.pair_c,
        base,
        q.stride,
        q.width,
        q.log_step(),
        u,
        q.row_of_task,
    )
    return node_beta[q.row_of_task[None, :], pick], edge


def quadrature_info(q: Quadrature) -> dict[str, Any]:
    """Sizes of the quadrature (for notes and benchmarks)."""
    return {
        "nodes": len(q.grid),
        "spacing": q.h,
        "rows": len(q.rows),
        "window": q.width,
        "pairs": len(q.pair_n),
    }
