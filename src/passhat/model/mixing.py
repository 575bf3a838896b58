"""The mixing distribution of task rates as a sum of parts, per posterior draw.

Every single-system model passhat fits says how task rates p are spread (the mixing
distribution G), and in every one G is a sum of at most four parts, with shares summing to one:

* a point mass at p = 1 (share π₁: tasks that always pass) and one at p = 0 (π₀);
* a Beta(a, b) (share π_B);
* a discrete part on a fixed grid of nodes p_j with weights w_j (share Σ_j w_j).

The plain Beta model is π_B = 1; the zero/one-inflated model has π₁, π₀ and π_B; the discrete
model (:mod:`passhat.model.discrete`) has only the nodes; a stacked fit's draws each come from
one of them. So every metric has one formula: population pass^k = π₁ + π_B E_Beta[p^k] +
Σ_j w_j p_j^k, and a task with c successes in n runs has, given a draw, the posterior mixture
of the same parts with weights proportional to share × likelihood of its c
(:func:`mixture_weights`).

This module holds the discrete part (:class:`Nodes`, :class:`NodePosterior`) and the posterior
weights of the parts; :mod:`passhat.model.metrics` builds the metrics on them.

Examples
--------
>>> import numpy as np
>>> from passhat.model.mixing import Nodes, mixture_weights
>>> nodes = Nodes(p=np.array([0.0, 0.5, 1.0]), weight=np.array([[0.25, 0.5, 0.25]]))
>>> w = mixture_weights(np.array([2.0]), np.array([2.0]), np.ones(1), np.ones(1), nodes=nodes)
>>> round(float(w.node[0, 0]), 6)    # p = ½ gives 2 of 2 with ¼, p = 1 with 1: all node mass
1.0
>>> # E[p | 2 of 2] = (½ · ¼ · ½ + ¼ · 1 · 1) / (½ · ¼ + ¼ · 1) = 5/6
>>> round(float(w.nodes.expect(np.array([0.0, 0.5, 1.0]))[0, 0]), 6)
0.833333
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.model.discrete import log_node_lik

__all__ = ["MixtureWeights", "NodePosterior", "Nodes", "beta_share", "mixture_weights"]


@dataclass(frozen=True)
class Nodes:
    """The discrete part of the mixing distribution: ``weight`` (draws, nodes) on ``p`` (nodes,).

    A draw's weights sum to its share of the discrete part (one in the discrete model, zero in
    a draw of another model).
    """

    p: NDArray[np.float64]
    weight: NDArray[np.float64]

    def share(self) -> NDArray[np.float64]:
        """The discrete part's share per draw."""
        return np.asarray(self.weight.sum(axis=1))

    def take(self, rows: slice | NDArray[np.intp]) -> Nodes:
        """The same nodes for some of the draws."""
        return Nodes(p=self.p, weight=self.weight[rows])

    def given(self, n: NDArray[np.float64], c: NDArray[np.float64]) -> NodePosterior:
        """Each draw's node part given groups of tasks with (n, c): :class:`NodePosterior`."""
        ll = log_node_lik(n, c, self.p)
        top = ll.max(axis=1) if ll.size else np.zeros(len(n))
        lik = np.exp(ll - top[:, None])
        return NodePosterior(nodes=self, lik=lik, top=top, total=self.weight @ lik.T)


@dataclass(frozen=True)
class NodePosterior:
    """The node part given groups (n, c): ``total`` (draws, groups) = Σ_j w_j L_gj with
    ``lik`` = L (groups, nodes) the likelihood p_j^c (1 − p_j)^(n − c) scaled by e^−top per
    group."""

    nodes: Nodes
    lik: NDArray[np.float64]
    top: NDArray[np.float64]
    total: NDArray[np.float64]

    def log_total(self) -> NDArray[np.float64]:
        """log Σ_j w_j p_j^c (1 − p_j)^(n − c) per draw and group (−inf where the draw has no
        node part)."""
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.total) + self.top[None, :])

    def expect(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """E[f(p) | c, node part] per draw and group, ``values`` = f at the nodes (0 where the
        draw has no node part)."""
        num = self.nodes.weight @ (self.lik * values[None, :]).T
        with np.errstate(invalid="ignore", divide="ignore"):
            out = num / self.total
        return np.asarray(np.where(self.total > 0, out, 0.0))

    def cumulative(self, group: int) -> NDArray[np.float64]:
        """The node posterior's cumulative distribution of one group per draw, (draws, nodes)."""
        prob = self.nodes.weight * self.lik[group][None, :]
        cum = np.cumsum(prob, axis=1)
        return np.asarray(cum / np.maximum(cum[:, -1:], 1e-300))


@dataclass(frozen=True)
class MixtureWeights:
    """Posterior weights (draws, groups) of the parts of the mixing distribution for a task:
    always-pass (``one``), always-fail (``zero``), Beta (``beta``) and nodes (``node``), with
    the node part's posterior (``nodes``, or None)."""

    one: NDArray[np.float64]
    zero: NDArray[np.float64]
    beta: NDArray[np.float64]
    node: NDArray[np.float64]
    nodes: NodePosterior | None


def beta_share(
    size: int,
    pi_pass: NDArray[np.float64] | None,
    pi_fail: NDArray[np.float64] | None,
    nodes: Nodes | None,
) -> NDArray[np.float64]:
    """π_B = 1 − π₁ − π₀ − Σ_j w_j per draw (clipped at 0)."""
    pb = np.ones(size)
    for part in (pi_pass, pi_fail):
        if part is not None:
            pb = pb - np.asarray(part, dtype=float)
    if nodes is not None:
        pb = pb - nodes.share()
    return np.asarray(np.clip(pb, 0.0, 1.0))


def mixture_weights(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    pi_pass: NDArray[np.float64] | None = None,
    pi_fail: NDArray[np.float64] | None = None,
    nodes: Nodes | None = None,
) -> MixtureWeights:
    """The posterior weight of each part of the mixing distribution for groups (n, c), per draw.

    Each part's weight is proportional to its share times the likelihood of c under it: 1 for
    the point mass at 1 when c = n (else 0), likewise at 0 when c = 0, the Beta-Binomial
    probability, and Σ_j w_j p_j^c (1 − p_j)^(n − c) for the nodes (binomial coefficients cancel).
    """
    shape = (len(a), len(n))
    pb = beta_share(len(a), pi_pass, pi_fail, nodes)
    aa = np.asarray(a, dtype=float)[:, None]
    bb = np.asarray(b, dtype=float)[:, None]
    with np.errstate(divide="ignore"):
        lb = np.log(pb)[:, None] + (
            special.betaln(aa + c[None, :], bb + (n - c)[None, :]) - special.betaln(aa, bb)
        )
        l1 = np.full(shape, -np.inf)
        l0 = np.full(shape, -np.inf)
        if pi_pass is not None:
            l1 = np.where((c == n)[None, :], np.log(np.asarray(pi_pass, float))[:, None], -np.inf)
        if pi_fail is not None:
            l0 = np.where((c == 0)[None, :], np.log(np.asarray(pi_fail, float))[:, None], -np.inf)
    post = nodes.given(n, c) if nodes is not None else None
    ln = post.log_total() if post is not None else np.full(shape, -np.inf)
    top = np.maximum(np.maximum(l1, l0), np.maximum(lb, ln))
    top = np.where(np.isfinite(top), top, 0.0)
    e1, e0, eb, en = (np.exp(x - top) for x in (l1, l0, lb, ln))
    tot = e1 + e0 + eb + en
    return MixtureWeights(one=e1 / tot, zero=e0 / tot, beta=eb / tot, node=en / tot, nodes=post)
