"""The joint model's integrated likelihood as one PyTensor Op, with numba kernels.

With the task effects integrated out (:mod:`passhat.model.joint_quad`), the
log likelihood of the joint model given (θ, σ_β, κ) is

    ℓ = Σ_r m_r log Σ_k exp(L_rk),
    L_rk = log(h · stride_r) + log N(β_rk | 0, σ_β) + Σ_s t[s, p_rs, β_rk],

over the distinct count rows r (multiplicity m_r) and the nodes β_rk of
their windows, with t[s, p, β] the log Beta-Binomial term of system s's
(n, c) pair p at β (a = κ logistic(θ_s + β), b = κ − a; lnΓ(a + c) −
lnΓ(a) written as Σ_{j<c} log(a + j)). :class:`QuadLogLik` computes ℓ and
its gradient in (θ, σ_β, κ) in one pass of plain loops: the table t and its
derivatives (S × P × Q entries), the row sums at the window nodes, and the
gradient scattered back through the table:

    ∂ℓ/∂L_rk = m_r softmax_k(L_r),
    ∂t/∂θ_s = ψ_c(a) a (1 − μ) − ψ_f(b) b μ,  ∂t/∂κ = ψ_c(a) μ + ψ_f(b) (1 − μ) − ψ_n(κ),
    ψ_c(a) = Σ_{j<c} 1/(a + j).

Written as a PyTensor graph (cumulative sums, advanced indexing) the same
function took about twice as long per gradient and three times as long to
compile under nutpie's numba backend. The Op's ``perform`` calls the same
kernel (PyMC's own sampler).

PyTensor and numba are imported here: import this module only where a
model is built or its task effects are drawn.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_ops import quad_loglik
>>> # one system, one task with 1 success in 2 runs, κ → ∞, a fine grid around β = 0
>>> grid = np.linspace(-12.0, 12.0, 481)
>>> ll, dth, dsd, dka = quad_loglik(np.zeros(1), 1.0, 1e6, grid, np.array([0, 2]),
...     np.array([0, 1]), np.array([[481]]), np.array([1]), np.log([0.05]), np.ones(1), 481)
>>> from scipy import integrate, stats, special
>>> ref = integrate.quad(lambda b: special.expit(b) * special.expit(-b)
...                     * stats.norm.pdf(b), -12, 12)[0]
>>> bool(abs(ll - np.log(ref)) < 1e-5)
True
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import disconnected_type
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from passhat.model._numba import njit_cached, register_numba_op

__all__ = ["QuadLogLik", "quad_loglik", "window_draws"]

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


@njit_cached
def _table(
    theta: Any,
    kappa: float,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    tab: Any,
    dth: Any,
    dka: Any,
    grad: bool,
) -> None:
    """Fill the (S, P, Q) table of cell terms (flat) and, with ``grad``, its derivatives."""
    S, Q, P = theta.shape[0], grid.shape[0], pair_n.shape[0]
    top = 0
    for p in range(P):
        top = max(top, pair_n[p])
    ga = np.ones(top + 1)  # Π_{j<c} (a + j): one log per pair, not one per factor
    gb = np.ones(top + 1)
    pa = np.zeros(top + 1)
    pb = np.zeros(top + 1)
    kn = np.zeros(top + 1)
    kd = np.zeros(top + 1)
    for j in range(top):
        kn[j + 1] = kn[j] + np.log(kappa + j)
        kd[j + 1] = kd[j] + 1.0 / (kappa + j)
    for s in range(S):
        for q in range(Q):
            x = theta[s] + grid[q]
            if x >= 0:
                e = np.exp(-x)
                mu = 1.0 / (1.0 + e)
                nu = e / (1.0 + e)
            else:
                e = np.exp(x)
                mu = e / (1.0 + e)
                nu = 1.0 / (1.0 + e)
            a = kappa * mu
            b = kappa * nu
            for j in range(top):
                ga[j + 1] = ga[j] * (a + j)
                gb[j + 1] = gb[j] * (b + j)
                if grad:
                    pa[j + 1] = pa[j] + 1.0 / (a + j)
                    pb[j + 1] = pb[j] + 1.0 / (b + j)
            for p in range(P):
                n = pair_n[p]
                c = pair_c[p]
                i = (s * P + p) * Q + q
                tab[i] = np.log(ga[c] * gb[n - c]) - kn[n]
                if grad:
                    dth[i] = pa[c] * a * nu - pb[n - c] * b * mu
                    dka[i] = pa[c] * mu + pb[n - c] * nu - kd[n]


@njit_cached
def _row_weights(
    tab: Any, base: Any, stride: Any, log_step: Any, grid: Any, r: int, sd: float, lw: Any
) -> tuple[float, float]:
    """Row r's terms at its window nodes into ``lw`` as exp(L_rk − peak); (peak, Σ)."""
    K, S, Q = lw.shape[0], base.shape[1], grid.shape[0]
    m = stride[r]
    first = base[r, 0] % Q
    lsd = np.log(sd)
    for k in range(K):
        lw[k] = log_step[r] - 0.5 * (grid[first + m * k] / sd) ** 2 - lsd - _HALF_LOG_2PI
    if m == 1:  # contiguous: the loop vectorises
        for s in range(S):
            b0 = base[r, s]
            for k in range(K):
                lw[k] += tab[b0 + k]
    else:
        for s in range(S):
            b0 = base[r, s]
            for k in range(K):
                lw[k] += tab[b0 + m * k]
    peak = lw[0]
    for k in range(1, K):
        peak = max(peak, lw[k])
    total = 0.0
    for k in range(K):
        lw[k] = np.exp(lw[k] - peak)
        total += lw[k]
    return peak, total


@njit_cached
def _quad_loglik(
    theta: Any,
    sd: float,
    kappa: float,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    base: Any,
    stride: Any,
    log_step: Any,
    mult: Any,
    K: int,
) -> Any:
    S, Q, P = theta.shape[0], grid.shape[0], pair_n.shape[0]
    R = base.shape[0]
    # K: nodes per window (given by the length of the ``width`` input of the Op)
    size = S * P * Q
    tab = np.empty(size)
    dth = np.empty(size)
    dka = np.empty(size)
    _table(theta, kappa, grid, pair_n, pair_c, tab, dth, dka, True)
    G = np.zeros(size)
    lw = np.empty(K)
    ll = 0.0
    dsd = 0.0
    for r in range(R):
        m = stride[r]
        first = base[r, 0] % Q
        peak, total = _row_weights(tab, base, stride, log_step, grid, r, sd, lw)
        ll += mult[r] * (peak + np.log(total))
        for k in range(K):
            g = mult[r] * lw[k] / total
            beta = grid[first + m * k]
            dsd += g * (beta * beta / (sd * sd * sd) - 1.0 / sd)
            lw[k] = g
        if m == 1:
            for s in range(S):
                b0 = base[r, s]
                for k in range(K):
                    G[b0 + k] += lw[k]
        else:
            for s in range(S):
                b0 = base[r, s]
                for k in range(K):
                    G[b0 + m * k] += lw[k]
    dtheta = np.zeros(S)
    dkappa = 0.0
    for s in range(S):
        acc = 0.0
        for i in range(s * P * Q, (s + 1) * P * Q):
            acc += G[i] * dth[i]
            dkappa += G[i] * dka[i]
        dtheta[s] = acc
    return ll, dtheta, dsd, dkappa


def quad_loglik(
    theta: Any,
    task_sd: float,
    kappa: float,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    base: Any,
    stride: Any,
    log_step: Any,
    mult: Any,
    width: int,
) -> tuple[float, Any, float, float]:
    """ℓ and its gradient (θ, σ_β, κ) by the kernel of :class:`QuadLogLik` (see the module).

    ``base`` (R, S) is (s · P + p_rs) · Q + start_r, ``stride`` (R,) the
    windows' strides, ``log_step`` (R,) log(h · stride_r), ``mult`` (R,) the
    rows' multiplicities, ``width`` the nodes per window. The prior's weights are the
    trapezoid rule's h · N(β_q | 0, σ_β); the model subtracts Σ mult ·
    :func:`~passhat.model.joint_build.grid_log_norm` to normalise them on the grid.
    """
    ll, dth, dsd, dka = _quad_loglik(
        np.ascontiguousarray(theta, dtype=np.float64),
        float(task_sd),
        float(kappa),
        np.ascontiguousarray(grid, dtype=np.float64),
        np.ascontiguousarray(pair_n, dtype=np.int64),
        np.ascontiguousarray(pair_c, dtype=np.int64),
        np.ascontiguousarray(base, dtype=np.int64),
        np.ascontiguousarray(stride, dtype=np.int64),
        np.ascontiguousarray(log_step, dtype=np.float64),
        np.ascontiguousarray(mult, dtype=np.float64),
        int(width),
    )
    return float(ll), dth, float(dsd), float(dka)


class QuadLogLik(Op):  # type: ignore[misc]
    """ℓ(θ, σ_β, κ) of the integrated joint model with its gradient (see the module).

    Inputs: ``theta`` (S,), ``task_sd``, ``kappa`` (scalars), then the data
    ``grid``, ``pair_n``, ``pair_c``, ``base``, ``stride``, ``log_step``,
    ``mult`` and ``width`` (an array whose length is the nodes per window, so
    that a compiled model takes data with another width). Outputs: ℓ,
    ∂ℓ/∂θ, ∂ℓ/∂σ_β, ∂ℓ/∂κ; :meth:`grad` uses the last three (the same apply
    node, merged by PyTensor).
    """

    __props__ = ()

    def make_node(self, *inputs: Any) -> Apply:
        ins = [pt.as_tensor_variable(v) for v in inputs]
        outs = [pt.dscalar(), pt.dvector(), pt.dscalar(), pt.dscalar()]
        return Apply(self, ins, outs)

    def perform(self, node: Any, inputs: Any, outputs: Any) -> None:
        theta, sd, kappa, grid, pn, pc, base, stride, log_step, mult, width = inputs
        ll, dth, dsd, dka = quad_loglik(
            theta, sd, kappa, grid, pn, pc, base, stride, log_step, mult, len(width)
        )
        outputs[0][0] = np.asarray(ll)
        outputs[1][0] = np.asarray(dth, dtype=np.float64)
        outputs[2][0] = np.asarray(dsd)
        outputs[3][0] = np.asarray(dka)

    def grad(self, inputs: Any, output_grads: Any) -> list[Any]:
        _, dth, dsd, dka = self.make_node(*inputs).outputs
        g = output_grads[0]
        return [g * dth, g * dsd, g * dka] + [disconnected_type() for _ in inputs[3:]]

    def connection_pattern(self, node: Any) -> list[list[bool]]:
        return [[True, False, False, False]] * 3 + [[False] * 4] * (len(node.inputs) - 3)


def _register_numba() -> None:
    """The numba implementation of :class:`QuadLogLik` (nutpie's backend)."""

    def _funcify(op: Any, node: Any = None, **kwargs: Any) -> Any:
        @numba.njit(cache=False)  # type: ignore[misc]
        def run(
            theta: Any,
            sd: Any,
            kappa: Any,
            grid: Any,
            pair_n: Any,
            pair_c: Any,
            base: Any,
            stride: Any,
            log_step: Any,
            mult: Any,
            width: Any,
        ) -> Any:
            ll, dth, dsd, dka = _quad_loglik(
                theta,
                sd.item(),
                kappa.item(),
                grid,
                pair_n,
                pair_c,
                base,
                stride,
                log_step,
                mult,
                width.shape[0],
            )
            return np.asarray(ll), dth, np.asarray(dsd), np.asarray(dka)

        return run

    register_numba_op(QuadLogLik, _funcify, __file__)  # cached on disk with the compiled model


_register_numba()


def window_draws(
    theta: Any,
    kappa: Any,
    task_sd: Any,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    base: Any,
    stride: Any,
    width: int,
    log_step: Any,
    u: Any,
    row_of_task: Any,
) -> tuple[Any, float]:
    """Per draw d and task t, the index k of a node of its row's window, drawn from the
    task's conditional (tasks with the same count row get independent draws).

    ``theta`` (D, S), ``kappa`` and ``task_sd`` (D,) are the posterior draws;
    ``grid`` (Q,) the nodes, ``pair_n``/``pair_c`` (P,) the distinct (n, c)
    pairs; ``base`` (R, S) and ``stride`` (R,) index a (S, P, Q) table of cell
    terms (``base`` includes the window's start, whose grid index is
    ``base[r, 0] % Q``); ``log_step`` (R,) are the trapezoid weights, ``u``
    (D, T) uniform numbers and ``row_of_task`` (T,) each task's row. The table of each draw is made
    inside (cumulative sums of logs, as in the model). Returns the picked k
    (D, T) and the largest ratio of the integrand at a window's end node to
    its peak (truncation check: small when the windows cover).

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.joint_ops import window_draws
    >>> # one system, one task run twice with one success, a wide window around β = 0
    >>> k, edge = window_draws(np.zeros((1, 1)), np.array([1e6]), np.array([1.0]),
    ...                        np.linspace(-12, 12, 241), np.array([0, 2]), np.array([0, 1]),
    ...                        np.array([[241]]), np.array([1]), 241, np.log([0.1]),
    ...                        np.array([[0.5]]), np.array([0]))
    >>> int(k[0, 0]), edge < 1e-16      # the median node: β = 0, the middle of the grid
    (120, True)
    """
    rot = np.asarray(row_of_task, dtype=np.int64)
    order = np.argsort(rot, kind="stable")
    offsets = np.searchsorted(rot[order], np.arange(len(base) + 1))
    pick, edge = _window_draws(
        *(
            np.ascontiguousarray(v, dtype=t)
            for v, t in (
                (theta, np.float64),
                (kappa, np.float64),
                (task_sd, np.float64),
                (grid, np.float64),
                (pair_n, np.int64),
                (pair_c, np.int64),
                (base, np.int64),
                (stride, np.int64),
                (log_step, np.float64),
                (u, np.float64),
                (order, np.int64),
                (offsets, np.int64),
            )
        ),
        int(width),
    )
    return pick, float(edge)


@njit_cached
def _window_draws(
    theta: Any,
    kappa: Any,
    task_sd: Any,
    grid: Any,
    pair_n: Any,
    pair_c: Any,
    base: Any,
    stride: Any,
    log_step: Any,
    u: Any,
    order: Any,
    offsets: Any,
    K: int,
) -> tuple[Any, float]:
    D, S = theta.shape
    Q, P = grid.shape[0], pair_n.shape[0]
    R = base.shape[0]
    tab = np.empty(S * P * Q)
    unused = np.empty(1)
    lw = np.empty(K)
    pick = np.zeros((D, u.shape[1]), dtype=np.int64)
    edge = 0.0
    for d in range(D):
        _table(theta[d], kappa[d], grid, pair_n, pair_c, tab, unused, unused, False)
        sd = task_sd[d]
        for r in range(R):
            _, total = _row_weights(tab, base, stride, log_step, grid, r, sd, lw)
            edge = max(edge, lw[0], lw[K - 1])
            for k in range(1, K):
                lw[k] += lw[k - 1]  # cumulative
            # one independent draw for each task with this row
            for j in range(offsets[r], offsets[r + 1]):
                t = order[j]
                target = u[d, t] * total
                chosen = K - 1
                for k in range(K):
                    if lw[k] >= target:
                        chosen = k
                        break
                pick[d, t] = chosen
    return pick, edge
