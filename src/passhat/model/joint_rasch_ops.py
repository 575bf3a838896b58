"""The Rasch form's compressed log likelihood as one PyTensor Op with a numba kernel.

The value is that of :mod:`passhat.model.joint_rasch` (the same sums as its
numpy :func:`~passhat.model.joint_rasch.rasch_loglik`):

    ℓ = Σ_s θ_s C_s + Σ_r m_r log Σ_q exp(L_rq) − M log Σ_q exp(z_q),
    L_rq = r_r β_q − Σ_s n_{g_r s} softplus(θ_s + β_q) + z_q,   z_q = −½ (β_q / σ_β)²,

with M = Σ_r m_r, and its gradient in one pass of plain loops
(w_rq = softmax_q(L_r), π_q = softmax_q(z)):

    ∂ℓ/∂θ_s = C_s − Σ_r m_r Σ_q w_rq n_{g_r s} logistic(θ_s + β_q),
    ∂ℓ/∂σ_β = Σ_r m_r Σ_q w_rq β_q² / σ³ − M Σ_q π_q β_q² / σ³.

The same graph written with PyTensor operations (softplus, a gather per row,
log-sum-exp) took about four times as long per gradient under nutpie's numba
backend. PyTensor and numba are imported here: import this module only where
a model is built.

Examples
--------
>>> import numpy as np
>>> from passhat.model.joint_rasch_ops import rasch_kernel
>>> grid = np.linspace(-10.0, 10.0, 401)
>>> ll, dth, dsd = rasch_kernel(np.zeros(1), 1.0, grid, np.array([[2.0]]), np.array([0]),
...                             np.array([1.0]), np.array([1.0]), np.array([1.0]))
>>> from scipy import integrate, special, stats
>>> ref = integrate.quad(lambda b: special.expit(b) * special.expit(-b) * stats.norm.pdf(b),
...                      -10, 10)[0]
>>> bool(abs(ll - np.log(ref)) < 1e-8)
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

__all__ = ["RaschLogLik", "rasch_kernel"]


@njit_cached
def _kernel(
    theta: Any,
    sd: float,
    grid: Any,
    patterns: Any,
    row_pattern: Any,
    row_r: Any,
    mult: Any,
    totals: Any,
) -> Any:
    S, Q, G, R = theta.shape[0], grid.shape[0], patterns.shape[0], row_r.shape[0]
    sp = np.empty((S, Q))
    sig = np.empty((S, Q))
    for s in range(S):
        for q in range(Q):
            x = theta[s] + grid[q]
            if x > 0:
                e = np.exp(-x)
                sp[s, q] = x + np.log1p(e)
                sig[s, q] = 1.0 / (1.0 + e)
            else:
                e = np.exp(x)
                sp[s, q] = np.log1p(e)
                sig[s, q] = e / (1.0 + e)
    a = np.zeros((G, Q))
    for g in range(G):
        for s in range(S):
            ng = patterns[g, s]
            if ng != 0.0:
                for q in range(Q):
                    a[g, q] += ng * sp[s, q]
    z = np.empty(Q)
    ztop = -np.inf
    for q in range(Q):
        z[q] = -0.5 * (grid[q] / sd) ** 2
        ztop = max(ztop, z[q])
    zsum = 0.0
    zb2 = 0.0
    for q in range(Q):
        e = np.exp(z[q] - ztop)
        zsum += e
        zb2 += e * grid[q] * grid[q]
    zlse = ztop + np.log(zsum)
    sd3 = sd * sd * sd
    wg = np.zeros((G, Q))
    lw = np.empty(Q)
    ll = 0.0
    dsd = 0.0
    total_m = 0.0
    for r in range(R):
        g = row_pattern[r]
        top = -np.inf
        for q in range(Q):
            lw[q] = row_r[r] * grid[q] - a[g, q] + z[q]
            top = max(top, lw[q])
        tot = 0.0
        for q in range(Q):
            lw[q] = np.exp(lw[q] - top)
            tot += lw[q]
        m = mult[r]
        total_m += m
        ll += m * (top + np.log(tot))
        b2 = 0.0
        for q in range(Q):
            w = m * lw[q] / tot
            wg[g, q] += w
            b2 += w * grid[q] * grid[q]
        dsd += b2 / sd3
    ll -= total_m * zlse
    dsd -= total_m * (zb2 / zsum) / sd3
    dtheta = np.empty(S)
    for s in range(S):
        ll += theta[s] * totals[s]
        acc = 0.0
        for g in range(G):
            ng = patterns[g, s]
            if ng != 0.0:
                for q in range(Q):
                    acc += wg[g, q] * ng * sig[s, q]
        dtheta[s] = totals[s] - acc
    return ll, dtheta, dsd


def rasch_kernel(
    theta: Any,
    task_sd: float,
    grid: Any,
    patterns: Any,
    row_pattern: Any,
    row_r: Any,
    mult: Any,
    totals: Any,
) -> tuple[float, Any, float]:
    """ℓ and its gradient (θ, σ_β) by the kernel of :class:`RaschLogLik` (see the module)."""
    ll, dth, dsd = _kernel(
        np.ascontiguousarray(theta, dtype=np.float64),
        float(task_sd),
        np.ascontiguousarray(grid, dtype=np.float64),
        np.ascontiguousarray(patterns, dtype=np.float64),
        np.ascontiguousarray(row_pattern, dtype=np.int64),
        np.ascontiguousarray(row_r, dtype=np.float64),
        np.ascontiguousarray(mult, dtype=np.float64),
        np.ascontiguousarray(totals, dtype=np.float64),
    )
    return float(ll), dth, float(dsd)


class RaschLogLik(Op):  # type: ignore[misc]
    """ℓ(θ, σ_β) of the Rasch form with its gradient (see the module).

    Inputs: ``theta`` (S,), ``task_sd``, then the data ``grid``, ``patterns``,
    ``row_pattern``, ``row_r``, ``mult`` and ``totals``
    (:func:`passhat.model.joint_rasch.rasch_model_data`). Outputs: ℓ,
    ∂ℓ/∂θ, ∂ℓ/∂σ_β; :meth:`grad` uses the last two.
    """

    __props__ = ()

    def make_node(self, *inputs: Any) -> Apply:
        ins = [pt.as_tensor_variable(v) for v in inputs]
        return Apply(self, ins, [pt.dscalar(), pt.dvector(), pt.dscalar()])

    def perform(self, node: Any, inputs: Any, outputs: Any) -> None:
        ll, dth, dsd = rasch_kernel(*inputs)
        outputs[0][0] = np.asarray(ll)
        outputs[1][0] = np.asarray(dth, dtype=np.float64)
        outputs[2][0] = np.asarray(dsd)

    def grad(self, inputs: Any, output_grads: Any) -> list[Any]:
        _, dth, dsd = self.make_node(*inputs).outputs
        g = output_grads[0]
        return [g * dth, g * dsd] + [disconnected_type() for _ in inputs[2:]]

    def connection_pattern(self, node: Any) -> list[list[bool]]:
        return [[True, False, False]] * 2 + [[False] * 3] * (len(node.inputs) - 2)


def _register_numba() -> None:
    """The numba implementation of :class:`RaschLogLik` (nutpie's backend)."""

    def _funcify(op: Any, node: Any = None, **kwargs: Any) -> Any:
        @numba.njit(cache=False)  # type: ignore[misc]
        def run(
            theta: Any,
            sd: Any,
            grid: Any,
            patterns: Any,
            row_pattern: Any,
            row_r: Any,
            mult: Any,
            totals: Any,
        ) -> Any:
            ll, dth, dsd = _kernel(
                theta, sd.item(), grid, patterns, row_pattern, row_r, mult, totals
            )
            return np.asarray(ll), dth, np.asarray(dsd)

        return run

    register_numba_op(RaschLogLik, _funcify, __file__)  # cached on disk with the compiled model


_register_numba()
