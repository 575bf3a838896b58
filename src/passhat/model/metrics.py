"""Closed-form posterior metrics per draw of the hyperparameters.

For a draw (a, b) (and, in the inflated model, the shares π₁ of
always-pass and π₀ of always-fail tasks; in the discrete model, weights w_j on
nodes p_j: :mod:`passhat.model.mixing`; π_B = 1 − π₁ − π₀ − Σ w_j):

* population scope (a new task from the same distribution):
  pass^k = π₁ + π_B Π_{j<k} (a+j)/(a+b+j) + Σ_j w_j p_j^k,
  pass@k = π₁ + π_B (1 − Π_{j<k} (b+j)/(a+b+j)) + Σ_j w_j (1 − (1 − p_j)^k),
  mean = π₁ + π_B a/(a+b) + Σ_j w_j p_j;
  ICC = Var(p)/(m(1 − m)) which is 1/(κ+1) for the plain model.
* benchmark scope (these tasks, weights w_i summing to one): task i's rate
  given (a, b) and its data is Beta(a + c_i, b + n_i − c_i) (a mixture with
  point masses at 1 and 0 in the inflated model), so the Rao–Blackwellised
  value is Σ w_i E[p_i^k | a, b, data] = Σ w_i Π_{j<k} (a+c_i+j)/(a+b+n_i+j)
  (with the other parts, the mixture of :func:`passhat.model.mixing.mixture_weights`).
  The full posterior of Σ w_i p_i^k (used for intervals) adds the
  conditional spread of each p_i: :func:`benchmark_draws`.

All functions are vectorised over draws, pairs and k.

Examples
--------
>>> import numpy as np
>>> from passhat.model.metrics import rising_ratio
>>> round(float(rising_ratio(2.0, 5.0, 3)), 12) == round(24 / 210, 12)   # (2·3·4)/(5·6·7)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from passhat.model.mixing import MixtureWeights, Nodes, beta_share, mixture_weights

if TYPE_CHECKING:
    from passhat.model.build import Compressed

__all__ = [
    "METRIC_NAMES",
    "Groups",
    "Nodes",
    "benchmark_draws",
    "benchmark_expected",
    "component_probs",
    "draw_rates",
    "mixed_moments",
    "mixture_parts",
    "node_part",
    "population_metrics",
    "rising_ratio",
    "system_metrics",
]

#: Metrics with a k (pass^k, pass@k) and without (mean, icc).
METRIC_NAMES = ("mean", "pass_at_k", "pass_hat_k", "icc")

#: Groups with more tasks than this are summed by a moment-matched normal draw.
EXACT_GROUP_MAX = 30


def rising_ratio(x: ArrayLike, y: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Π_{j<k} (x+j)/(y+j) = Γ(x+k)Γ(y)/(Γ(x)Γ(y+k)), elementwise with broadcasting.

    This is E[p^k] for p ~ Beta(x, y − x).
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    ka = np.asarray(k, dtype=float)
    return np.asarray(
        np.exp(
            special.gammaln(xa + ka)
            - special.gammaln(xa)
            - special.gammaln(ya + ka)
            + special.gammaln(ya)
        )
    )


def population_metrics(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    k: Sequence[int],
    *,
    pi_pass: NDArray[np.float64] | None = None,
    pi_fail: NDArray[np.float64] | None = None,
    nodes: Nodes | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Population-scope metrics per draw.

    Returns ``mean`` and ``icc`` with the shape of ``a`` and ``pass_hat_k``,
    ``pass_at_k`` with an extra trailing k axis.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.metrics import population_metrics
    >>> m = population_metrics(np.array([1.0]), np.array([1.0]), [2])
    >>> round(float(m["pass_hat_k"][0, 0]), 4), round(float(m["icc"][0]), 4)   # E[U²], 1/3
    (0.3333, 0.3333)
    >>> two = Nodes(p=np.array([0.0, 0.5, 1.0]), weight=np.array([[0.0, 0.5, 0.5]]))
    >>> population_metrics(np.ones(1), np.ones(1), [2], nodes=two)["pass_hat_k"].tolist()
    [[0.625]]
    """
    aa = np.asarray(a, dtype=float)
    bb = np.asarray(b, dtype=float)
    kk = np.asarray(list(k), dtype=float)
    kappa = aa + bb
    hat = rising_ratio(aa[..., None], kappa[..., None], kk)
    at = 1.0 - rising_ratio(bb[..., None], kappa[..., None], kk)
    mean = aa / kappa
    m2 = rising_ratio(aa, kappa, 2.0)
    if pi_pass is not None or pi_fail is not None or nodes is not None:
        pb = beta_share(aa.size, pi_pass, pi_fail, nodes).reshape(aa.shape)
        p1 = np.zeros_like(pb) if pi_pass is None else np.asarray(pi_pass, dtype=float)
        hat = p1[..., None] + pb[..., None] * hat
        at = p1[..., None] + pb[..., None] * at
        mean = p1 + pb * mean
        m2 = p1 + pb * m2
        if nodes is not None:
            pj = nodes.p[:, None]
            hat = hat + nodes.weight @ pj ** kk[None, :]
            at = at + nodes.weight @ (1.0 - (1.0 - pj) ** kk[None, :])
            mean = mean + nodes.weight @ nodes.p
            m2 = m2 + nodes.weight @ nodes.p**2
    with np.errstate(invalid="ignore", divide="ignore"):
        icc = (m2 - mean * mean) / (mean * (1.0 - mean))
    return {"mean": mean, "pass_at_k": at, "pass_hat_k": hat, "icc": icc}


@dataclass(frozen=True)
class Groups:
    """Tasks grouped by identical (n, c, weight), for benchmark-scope metrics.

    Attributes
    ----------
    n, c : ndarray
        Counts of each group.
    weight : ndarray
        The (normalised) weight of *one* task of the group; weights of all
        tasks sum to one.
    mult : ndarray of int
        Tasks in the group.
    """

    n: NDArray[np.float64]
    c: NDArray[np.float64]
    weight: NDArray[np.float64]
    mult: NDArray[np.int64]

    @classmethod
    def from_tasks(
        cls, n: ArrayLike, c: ArrayLike, weight: ArrayLike, *, comp: Compressed | None = None
    ) -> Groups:
        """Group tasks; ``weight`` is normalised to sum to one.

        ``comp``: ``compress(n, c)`` when the caller already has it.

        Examples
        --------
        >>> from passhat.model.metrics import Groups
        >>> g = Groups.from_tasks([5, 5, 5], [5, 5, 0], [1, 1, 2])
        >>> g.c.tolist(), g.weight.tolist(), g.mult.tolist()
        ([0.0, 5.0], [0.5, 0.25], [1, 2])
        """
        from passhat.model.build import compress

        w = np.asarray(weight, dtype=float).ravel()
        total = w.sum()
        w = w / total if total > 0 else np.full_like(w, 1.0 / max(len(w), 1))
        if comp is None:
            comp = compress(n, c)
        if len(w) == 0 or np.all(w == w[0]):  # equal weights: groups are the (n, c) pairs
            wg = np.full(len(comp), w[0] if len(w) else 0.0)
            return cls(n=comp.n.astype(float), c=comp.c.astype(float), weight=wg, mult=comp.mult)
        w_vals, w_idx = np.unique(w, return_inverse=True)
        key = comp.inverse.astype(np.int64) * len(w_vals) + w_idx.ravel()
        uniq, mult = np.unique(key, return_counts=True)
        pair, wi = uniq // len(w_vals), uniq % len(w_vals)
        return cls(
            n=comp.n[pair].astype(float),
            c=comp.c[pair].astype(float),
            weight=w_vals[wi],
            mult=mult.astype(np.int64),
        )


def component_probs(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    pi_pass: NDArray[np.float64] | None,
    pi_fail: NDArray[np.float64] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Posterior probabilities (draws, groups) that a task is always-pass, always-fail, Beta.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.metrics import component_probs
    >>> # 5/5 with π₁ = 1/2, π₀ = 0, a = b = 1: P(always-pass) = ½ / (½ + ½ · 1/6) = 6/7
    >>> r1, r0, rb = component_probs(np.array([5.0]), np.array([5.0]), np.ones(1), np.ones(1),
    ...                              np.array([0.5]), np.array([0.0]))
    >>> round(float(r1[0, 0]), 6) == round(6 / 7, 6), float(r0[0, 0])
    (True, 0.0)
    """
    w = mixture_weights(n, c, a, b, pi_pass=pi_pass, pi_fail=pi_fail)
    return w.one, w.zero, w.beta


def _metric_of_p(metric: str, p: NDArray[np.float64], k: float) -> NDArray[np.float64]:
    """f(p) for the metric: p^k, 1 − (1 − p)^k or p."""
    if metric == "pass_hat_k":
        return np.asarray(np.power(p, k))
    if metric == "pass_at_k":
        return np.asarray(1.0 - np.power(1.0 - p, k))
    return p


def _cond_moments(
    metric: str, k: float, a1: NDArray[np.float64], b1: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """E[X] and E[X²] of X = f(p) for p ~ Beta(a1, b1)."""
    kap = a1 + b1
    if metric == "pass_hat_k":
        return rising_ratio(a1, kap, k), rising_ratio(a1, kap, 2 * k)
    if metric == "pass_at_k":
        q1 = rising_ratio(b1, kap, k)
        q2 = rising_ratio(b1, kap, 2 * k)
        return 1.0 - q1, 1.0 - 2.0 * q1 + q2
    return a1 / kap, rising_ratio(a1, kap, 2.0)


class _MomentCache:
    """_cond_moments of p ~ Beta(a + c, b + n − c) for every group at once.

    The log-gamma terms depend on a group only through c (the a side), n − c
    (the b side) or n (the a + b side), so they are evaluated once per
    distinct value of each (at most max n + 1 values, however many groups
    and tasks) and shared across metrics and k; only the final combination
    is per group.
    """

    def __init__(
        self,
        a: NDArray[np.float64],
        b: NDArray[np.float64],
        c: NDArray[np.float64],
        n: NDArray[np.float64],
    ) -> None:
        self.parts: dict[str, tuple[NDArray[np.float64], NDArray[np.intp]]] = {}
        for which, base, vals in (("a", a, c), ("b", b, n - c), ("k", a + b, n)):
            u, inv = np.unique(vals, return_inverse=True)
            self.parts[which] = (base[:, None] + u[None, :], np.asarray(inv).ravel())
        self.gl: dict[tuple[str, float], NDArray[np.float64]] = {}

    def _gl(self, which: str, shift: float) -> NDArray[np.float64]:
        key = (which, shift)
        if key not in self.gl:
            self.gl[key] = special.gammaln(self.parts[which][0] + shift)
        return self.gl[key]

    def _full(self, which: str) -> NDArray[np.float64]:
        x, idx = self.parts[which]
        return x[:, idx]

    def _log_rise(self, which: str, k: float) -> NDArray[np.float64]:
        """lnΓ(x + k) − lnΓ(x) per draw and distinct value."""
        key = (which, -k)
        if key not in self.gl:
            self.gl[key] = self._gl(which, k) - self._gl(which, 0.0)
        return self.gl[key]

    def _ratio(self, which: str, k: float) -> NDArray[np.float64]:
        """A fresh (draws, groups) array of the rising ratio."""
        out = self._log_rise(which, k)[:, self.parts[which][1]]
        out -= self._log_rise("k", k)[:, self.parts["k"][1]]
        return np.asarray(np.exp(out, out=out))

    def __call__(self, metric: str, k: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if metric == "pass_hat_k":
            return self._ratio("a", k), self._ratio("a", 2 * k)
        if metric == "pass_at_k":
            q1, q2 = self._ratio("b", k), self._ratio("b", 2 * k)
            return 1.0 - q1, 1.0 - 2.0 * q1 + q2
        return self._full("a") / self._full("k"), self._ratio("a", 2.0)


def mixture_parts(
    groups: Groups,
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    pi_pass: NDArray[np.float64] | None,
    pi_fail: NDArray[np.float64] | None,
    nodes: Nodes | None,
) -> MixtureWeights | None:
    """The posterior weights of the mixing distribution's parts per draw and group; None for
    the plain model (every task a Beta task)."""
    if (pi_pass is None or pi_fail is None) and nodes is None:
        return None
    return mixture_weights(groups.n, groups.c, a, b, pi_pass=pi_pass, pi_fail=pi_fail, nodes=nodes)


def mixed_moments(
    mw: MixtureWeights | None,
    m1: NDArray[np.float64],
    m2: NDArray[np.float64],
    metric: str,
    k: float,
    cols: NDArray[np.intp] | slice = slice(None),
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """E[f(p)] and E[f(p)²] under the mixture, from the Beta part's m1, m2 (f(1) = 1, f(0) = 0
    for every metric)."""
    if mw is None:
        return m1, m2
    e1 = mw.one[:, cols] + mw.beta[:, cols] * m1
    e2 = mw.one[:, cols] + mw.beta[:, cols] * m2
    if mw.nodes is not None:
        fp = _metric_of_p(metric, mw.nodes.nodes.p, k)
        e1 = e1 + mw.node[:, cols] * mw.nodes.expect(fp)[:, cols]
        e2 = e2 + mw.node[:, cols] * mw.nodes.expect(fp * fp)[:, cols]
    return e1, e2


def benchmark_expected(
    groups: Groups,
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    requests: Sequence[tuple[str, int]],
    *,
    pi_pass: NDArray[np.float64] | None = None,
    pi_fail: NDArray[np.float64] | None = None,
    nodes: Nodes | None = None,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """Rao–Blackwellised benchmark metrics: Σ w_i E[f(p_i) | a, b, data] per draw.

    ``requests`` lists (metric, k) with metric in mean / pass_at_k / pass_hat_k.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.metrics import Groups, benchmark_expected
    >>> g = Groups.from_tasks([4, 4], [4, 0], [1, 1])   # a = b = 1: E[p] = 5/6 and 1/6
    >>> benchmark_expected(g, np.ones(1), np.ones(1), [("mean", 1)])[("mean", 1)]
    array([0.5])
    """
    moments = _MomentCache(a, b, groups.c, groups.n)
    mw = mixture_parts(groups, a, b, pi_pass, pi_fail, nodes)
    tw = groups.weight * groups.mult
    out: dict[tuple[str, int], NDArray[np.float64]] = {}
    for metric, k in requests:
        ex, _ = moments(metric, float(k))
        e1, _ = mixed_moments(mw, ex, ex, metric, float(k))
        out[(metric, k)] = e1 @ tw
    return out


def draw_rates(
    groups: Groups,
    ex_idx: NDArray[np.intp],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    mw: MixtureWeights | None,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """One draw of p_i per task of the small groups (draws × tasks): from its part of the
    mixture, picked with the part's posterior weight."""
    c_ex, f_ex = groups.c[ex_idx], (groups.n - groups.c)[ex_idx]
    pe = rng.beta(a[:, None] + c_ex[None, :], b[:, None] + f_ex[None, :])
    if mw is None:
        return np.asarray(pe)
    u = rng.random(pe.shape)
    c1, c0 = mw.one[:, ex_idx], mw.zero[:, ex_idx]
    pe = np.where(u < c1, 1.0, np.where(u < c1 + c0, 0.0, pe))
    if mw.nodes is None:
        return np.asarray(pe)
    from_nodes = (u >= c1 + c0) & (u < c1 + c0 + mw.node[:, ex_idx])
    p = mw.nodes.nodes.p
    for g in np.unique(ex_idx):
        cols = np.flatnonzero(ex_idx == g)
        cum = mw.nodes.cumulative(int(g))
        v = rng.random((len(a), len(cols)))
        j = np.minimum((cum[:, None, :] < v[..., None]).sum(axis=-1), len(p) - 1)
        pe[:, cols] = np.where(from_nodes[:, cols], p[j], pe[:, cols])
    return np.asarray(pe)


def _normal_sums(
    e1: NDArray[np.float64], e2: NDArray[np.float64], m: NDArray[np.float64], z: Any
) -> NDArray[np.float64]:
    """Each large group's sum of f(p_i) ~ Normal(m e1, m (e2 − e1²)), clipped to [0, m]."""
    sd = np.multiply(e1, e1)
    np.subtract(e2, sd, out=sd)
    np.maximum(sd, 0.0, out=sd)
    sd *= m
    np.sqrt(sd, out=sd)
    sd *= z
    total = np.multiply(e1, m)
    total += sd
    np.clip(total, 0.0, m, out=total)
    return total


def benchmark_draws(
    groups: Groups,
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    requests: Sequence[tuple[str, int]],
    *,
    rng: np.random.Generator,
    pi_pass: NDArray[np.float64] | None = None,
    pi_fail: NDArray[np.float64] | None = None,
    nodes: Nodes | None = None,
    chunk: int = 512,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """Draws from the full posterior of the benchmark metrics Σ w_i f(p_i).

    For each hyperparameter draw, every task's p_i is drawn from its
    conditional posterior (Beta(a + c_i, b + n_i − c_i), or the mixture of
    the model's parts: point masses, Beta, nodes), and all requested metrics
    are computed from the *same* p_i, so they stay coherent across metrics
    and k. Tasks that share (n, c, w) are exchangeable; for a group of more
    than 30 such tasks the sum of their f(p_i) is drawn from a normal with
    the exact conditional mean and variance (central limit theorem), with one
    standard-normal deviate per group and draw shared by all metrics. The
    cost is therefore bounded by the number of groups, not the number of tasks.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.metrics import Groups, benchmark_draws
    >>> g = Groups.from_tasks([4, 4], [4, 0], [1, 1])
    >>> d = benchmark_draws(g, np.ones(4000), np.ones(4000), [("mean", 1)],
    ...                     rng=np.random.default_rng(0))
    >>> bool(abs(d[("mean", 1)].mean() - 0.5) < 0.01)   # the Rao–Blackwellised value, 1/2
    True
    """
    S = len(a)
    exact = groups.mult <= EXACT_GROUP_MAX
    ex_idx = np.repeat(np.flatnonzero(exact), groups.mult[exact])
    clt_idx = np.flatnonzero(~exact)
    # at k = 1, pass^k and pass@k are the mean: compute it once
    canon = {req: (("mean", 1) if req[1] == 1 else req) for req in requests}
    unique = list(dict.fromkeys(canon.values()))
    out = {req: np.empty(S) for req in unique}
    we = groups.weight[ex_idx]
    m = groups.mult[clt_idx][None, :].astype(float)
    w_clt = groups.weight[clt_idx]
    c_clt, n_clt = groups.c[clt_idx], groups.n[clt_idx]
    block = max(1, min(chunk, 16_384 // max(len(clt_idx), 1)))
    for lo in range(0, S, chunk):
        hi = min(S, lo + chunk)
        aa, bb = a[lo:hi], b[lo:hi]
        mw = mixture_parts(
            groups, aa, bb,
            None if pi_pass is None else pi_pass[lo:hi],
            None if pi_fail is None else pi_fail[lo:hi],
            None if nodes is None else nodes.take(slice(lo, hi)),
        )  # fmt: skip
        pe = draw_rates(groups, ex_idx, aa, bb, mw, rng)  # exact part: one p per task
        z = rng.standard_normal((hi - lo, len(clt_idx)))
        for metric, k in unique:
            out[(metric, k)][lo:hi] = _metric_of_p(metric, pe, float(k)) @ we
        # normal part, in blocks of draws small enough for the CPU cache (same numbers)
        for blo in range(0, (hi - lo) if len(clt_idx) else 0, block):
            rows = slice(blo, min(hi - lo, blo + block))
            moments = _MomentCache(aa[rows], bb[rows], c_clt, n_clt)
            part = None if mw is None else _rows_of(mw, rows)
            for metric, k in unique:
                m1, m2 = moments(metric, float(k))
                e1, e2 = mixed_moments(part, m1, m2, metric, float(k), clt_idx)
                total = _normal_sums(e1, e2, m, z[rows])
                out[(metric, k)][lo + rows.start : lo + rows.stop] += total @ w_clt
    return {req: out[canon[req]] for req in requests}


def _rows_of(mw: MixtureWeights, rows: slice) -> MixtureWeights:
    """The mixture weights of some draws."""
    from dataclasses import replace

    nodes = None
    if mw.nodes is not None:
        nodes = replace(mw.nodes, nodes=mw.nodes.nodes.take(rows), total=mw.nodes.total[rows])
    return MixtureWeights(
        one=mw.one[rows], zero=mw.zero[rows], beta=mw.beta[rows], node=mw.node[rows], nodes=nodes
    )


def system_metrics(
    hyper: Mapping[str, NDArray[np.float64]],
    requests: Sequence[tuple[str, int]],
    *,
    scope: str,
    groups: Groups | None = None,
    rng: np.random.Generator | None = None,
    rao_blackwell: bool = False,
    hist_rng: np.random.Generator | None = None,
    identified: str = "discrete",
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """One system's metrics per hyperparameter draw, in one scope.

    ``hyper``: draws ``a``, ``b`` (and ``pi_pass``, ``pi_fail``; ``node_weight`` (draws, nodes)
    with ``node_p``). Population scope: the closed
    forms of :func:`population_metrics` (``icc`` too). Benchmark scope (needs ``groups``, the
    system's tasks): :func:`benchmark_draws` with ``rng``, or with ``rao_blackwell``
    :func:`benchmark_expected`. With ``groups`` and ``hist_rng``, the draws of the discrete
    model (node share > ½) take, where the histogram of successes fixes them (k up to the fewest
    runs of a task), the values of :func:`passhat.model.histogram.identified_values`; with
    ``identified="all"`` every draw takes them where ``estimate``'s rule trusts a model-free
    interval (:func:`passhat.model.histogram.informative`; any model: the rule of
    :class:`passhat.Fit`, where the model then matters only above the runs and where few
    tasks or few on a side leave ``estimate`` a model too).

    Examples
    --------
    >>> out = system_metrics({"a": np.ones(3), "b": np.ones(3)}, [("mean", 1), ("icc", 1)],
    ...                      scope="population")
    >>> out[("mean", 1)].tolist(), out[("icc", 1)].round(6).tolist()   # ICC 1/(κ + 1) = 1/3
    ([0.5, 0.5, 0.5], [0.333333, 0.333333, 0.333333])
    """
    a, b = hyper["a"], hyper["b"]
    pi_pass, pi_fail = hyper.get("pi_pass"), hyper.get("pi_fail")
    nodes = node_part(hyper)
    if scope == "population":
        kk = sorted({k for m, k in requests if m in ("pass_at_k", "pass_hat_k")} or {1})
        pop = population_metrics(a, b, kk, pi_pass=pi_pass, pi_fail=pi_fail, nodes=nodes)
        out = {
            (m, k): pop[m] if m in ("mean", "icc") else pop[m][:, kk.index(k)] for m, k in requests
        }
    elif groups is None:
        raise ValueError("benchmark-scope metrics need the system's task groups")
    elif rao_blackwell:
        out = benchmark_expected(
            groups, a, b, requests, pi_pass=pi_pass, pi_fail=pi_fail, nodes=nodes
        )
    elif rng is None:
        raise ValueError("benchmark-scope draws need a random generator")
    else:
        out = benchmark_draws(
            groups, a, b, requests, rng=rng, pi_pass=pi_pass, pi_fail=pi_fail, nodes=nodes
        )
    if groups is None or hist_rng is None:
        return out
    share = nodes.share() if nodes is not None else np.zeros(_draws_of(out))
    every: set[tuple[str, int]] = set()
    if identified == "all":
        from passhat.model.histogram import informative

        every = {req for req in requests if informative(groups, *req, scope=scope)}
    if not every and not (share > 0.5).any():
        return out
    return _with_identified(
        out, share > 0.5, every, groups, requests, scope, hist_rng, rao_blackwell
    )


def _draws_of(out: Mapping[tuple[str, int], NDArray[np.float64]]) -> int:
    """The number of draws of a system's metrics."""
    return int(next(iter(out.values())).shape[0]) if out else 0


def _with_identified(
    out: dict[tuple[str, int], NDArray[np.float64]],
    mask: NDArray[np.bool_],
    every: set[tuple[str, int]],
    groups: Groups,
    requests: Sequence[tuple[str, int]],
    scope: str,
    rng: np.random.Generator,
    rao_blackwell: bool,
) -> dict[tuple[str, int], NDArray[np.float64]]:
    """The histogram's identified values in the draws of ``mask`` (the discrete model's: node
    share > ½), and in every draw for the requests of ``every``."""
    from passhat.model.histogram import identified_values

    rb = rao_blackwell and scope != "population"  # the population scope has no such option
    fixed = identified_values(groups, requests, mask.size, scope=scope, rng=rng, rao_blackwell=rb)
    return {
        req: fixed[req] if req in every else np.where(mask, fixed[req], v) if req in fixed else v
        for req, v in out.items()
    }


def node_part(hyper: Mapping[str, NDArray[np.float64]]) -> Nodes | None:
    """The discrete part of a system's draws (``node_weight``, ``node_p``), if it has one."""
    if "node_weight" not in hyper:
        return None
    return Nodes(p=np.asarray(hyper["node_p"], float), weight=np.asarray(hyper["node_weight"]))
