"""Model definition: priors, likelihood compression, the PyMC model and its exact log density.

The model for one system with tasks i = 1..T is

    c_i | p_i ~ Binomial(n_i, p_i),   p_i ~ Beta(a, b),   a = μκ, b = (1 − μ)κ,

with p_i integrated out (Beta-Binomial likelihood). The two free parameters
are sampled on the unconstrained scale θ = logit μ, λ = log κ. The
zero/one-inflated variant (``model="inflated"``) lets a share π₁ of tasks
always pass and a share π₀ always fail; the remaining share π_B has
p_i ~ Beta(a, b) with a, b ≥ 1 (see :func:`build_model`: the point masses,
not the Beta, carry the tasks piled at 0 and 1).

Because a task enters the likelihood only through its (n_i, c_i), the
likelihood is a weighted sum over the *distinct* (n, c) pairs with their
multiplicities: the cost of evaluating it (and of sampling) depends on the
number of distinct pairs (at most Σ (n+1) over distinct n), not on the
number of tasks. The plain model goes one step further: its log-gamma terms
separate over the distinct numbers of successes, failures and runs
(:func:`model_data`), so a gradient costs about 3 · max n log-gamma terms.

PyMC and PyTensor are imported inside :func:`build_model` only.

References
----------
.. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. and
   Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press, ch. 5:
   the hierarchical Beta-Binomial model with p_i integrated out.

Examples
--------
>>> import numpy as np
>>> from passhat.model.build import compress
>>> comp = compress(np.array([5, 5, 5, 3]), np.array([5, 5, 0, 3]))
>>> comp.n.tolist(), comp.c.tolist(), comp.mult.tolist()
([3, 5, 5], [3, 0, 5], [1, 1, 2])
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special

from passhat.betabinom import log_prior as _betabinom_log_prior
from passhat.errors import OptionError
from passhat.model.mixing import Nodes, beta_share

__all__ = [
    "MODELS",
    "Compressed",
    "Priors",
    "build_model",
    "compress",
    "log_prior",
    "model_data",
    "pair_loglik",
]

ModelName = Literal["beta", "inflated", "discrete", "auto"]
#: The single-system models: plain Beta, zero/one-inflated Beta, the discrete mixing
#: distribution on a grid of p (:mod:`passhat.model.discrete`), and ``auto``: the three stacked
#: by exact leave-one-task-out (:mod:`passhat.model.stacking`). The PyMC model of
#: :func:`build_model` covers the first two.
MODELS: tuple[str, ...] = ("beta", "inflated", "discrete", "auto")


@dataclass(frozen=True)
class Priors:
    """Prior hyperparameters (all proper).

    Parameters
    ----------
    mu_alpha, mu_beta : float, default 1, 1
        μ ~ Beta(mu_alpha, mu_beta): the population mean success rate,
        uniform by default.
    log_kappa_mean, log_kappa_sd : float, default 0, 2
        log κ ~ Normal(log_kappa_mean, log_kappa_sd). κ = a + b is the
        concentration of task success rates; the run-to-run correlation
        within a task (ICC) is 1/(κ + 1). The default puts κ = 1 (ICC 0.5)
        at the centre and gives 95% prior mass to κ ∈ [0.02, 50], i.e.
        ICC ∈ [0.02, 0.98]: from almost homogeneous tasks to tasks that
        nearly always pass or always fail.
    mix_concentration : tuple of 3 floats, default (2, 2, 2)
        Inflated model only: (π₁, π₀, π_B) ~ Dirichlet(mix_concentration)
        for the shares of always-pass, always-fail and Beta tasks. The
        default is mildly informative: a share near 0 is unlikely a priori
        (the density vanishes linearly there), as the inflated model is the
        claim that all three kinds of task exist; each share's prior mean is
        1/3 and its 95% interval 0.05–0.72. With (1, 1, 1) a share may sit
        at 0 while the Beta's tails stand in for it, and NUTS mixes slowly
        along that trade-off (see :func:`build_model`).

    Notes
    -----
    Why the prior on κ must be proper: when every task is all-pass (or
    every task all-fail), the Beta-Binomial likelihood does not vanish as
    κ → 0 or κ → ∞ (it tends to μ^T and μ^(Σn) respectively, both bounded
    away from zero for μ near 1). The likelihood is then bounded but not
    integrable in log κ, so an improper prior such as the popular
    (a + b)^(−5/2) — flat-ish in log κ at one end — leaves the posterior
    improper, and a sampler drifts forever. Such data are common in agent
    evaluations. A Normal prior on log κ makes the posterior proper for
    every data set (bounded likelihood × proper prior) and, in that
    degenerate case, the posterior of κ simply stays close to the prior:
    wide, as it should be.

    The (μ, κ) parameterisation of the Beta (a = μκ, b = (1 − μ)κ) with a
    prior on the concentration κ follows Kruschke (2015); the improper prior
    p(a, b) ∝ (a + b)^(−5/2) it replaces is the one of Gelman et al. (2013,
    §5.3), which suits their rat-tumour data (no all-pass or all-fail
    majority) but not agent evaluations.

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A.
       and Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press,
       §5.3: the hierarchical Beta-Binomial model and its prior on (a, b).
    .. [2] Kruschke, J. K. (2015). *Doing Bayesian Data Analysis*, 2nd ed.
       Academic Press, §6.2.1 (a Beta by its mean and concentration) and ch. 9
       (hierarchical models with a prior on the concentration).

    Examples
    --------
    >>> from passhat.model import Priors
    >>> Priors(log_kappa_sd=1.0).log_kappa_sd
    1.0
    """

    mu_alpha: float = 1.0
    mu_beta: float = 1.0
    log_kappa_mean: float = 0.0
    log_kappa_sd: float = 2.0
    mix_concentration: tuple[float, float, float] = (2.0, 2.0, 2.0)

    def __post_init__(self) -> None:
        for name in ("mu_alpha", "mu_beta", "log_kappa_sd"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and np.isfinite(v) and v > 0):
                raise OptionError(f"prior {name} must be a positive number (got {v!r})")
        if not np.isfinite(self.log_kappa_mean):
            raise OptionError(f"prior log_kappa_mean must be finite (got {self.log_kappa_mean!r})")
        mix = tuple(float(x) for x in self.mix_concentration)
        if len(mix) != 3 or not all(np.isfinite(x) and x > 0 for x in mix):
            raise OptionError(
                "prior mix_concentration must be 3 positive numbers "
                f"(got {self.mix_concentration!r})"
            )
        object.__setattr__(self, "mix_concentration", mix)

    def to_json(self) -> str:
        """JSON text (stored in the fit's attributes)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Priors:
        """Inverse of :meth:`to_json`."""
        d = json.loads(text)
        d["mix_concentration"] = tuple(d.get("mix_concentration", (1.0, 1.0, 1.0)))
        return cls(**d)


@dataclass(frozen=True)
class Compressed:
    """Distinct (n, c) pairs of a set of tasks.

    Attributes
    ----------
    n, c : ndarray of int
        The distinct pairs (sorted by n, then c).
    mult : ndarray of int
        How many tasks have each pair.
    inverse : ndarray of int
        For each task, the index of its pair.
    """

    n: NDArray[np.int64]
    c: NDArray[np.int64]
    mult: NDArray[np.int64]
    inverse: NDArray[np.intp]

    def __len__(self) -> int:
        return len(self.n)


def compress(n: Any, c: Any) -> Compressed:
    """Compress per-task counts to distinct (n, c) pairs with multiplicities.

    Examples
    --------
    >>> from passhat.model.build import compress
    >>> len(compress([5] * 1000, [5] * 600 + [0] * 400))
    2
    """
    n_arr = np.asarray(n, dtype=np.int64).ravel()
    c_arr = np.asarray(c, dtype=np.int64).ravel()
    if len(n_arr) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Compressed(n=empty, c=empty, mult=empty, inverse=np.zeros(0, dtype=np.intp))
    width = int(c_arr.max()) + 1
    if int(n_arr.max()) >= (2**62) // width:  # n × width would overflow int64 (n near 2^53)
        pairs, inverse, mult = np.unique(
            np.stack([n_arr, c_arr], axis=1), axis=0, return_inverse=True, return_counts=True
        )  # rows ordered by n then c, as the keys below
        return Compressed(
            n=pairs[:, 0].astype(np.int64),
            c=pairs[:, 1].astype(np.int64),
            mult=np.asarray(mult, dtype=np.int64),
            inverse=np.asarray(inverse).ravel().astype(np.intp),
        )
    key = n_arr * width + c_arr  # one integer per (n, c), ordered by n then c
    top = int(key.max()) + 1
    if top <= 4 * len(key) + 1_000_000:  # small key range: counting, O(tasks)
        counts = np.bincount(key, minlength=top)
        uniq = np.flatnonzero(counts)
        lookup = np.zeros(top, dtype=np.intp)
        lookup[uniq] = np.arange(len(uniq))
        inverse = lookup[key]
        mult = counts[uniq]
    else:
        uniq, inverse, mult = np.unique(key, return_inverse=True, return_counts=True)
    return Compressed(
        n=(uniq // width).astype(np.int64),
        c=(uniq % width).astype(np.int64),
        mult=np.asarray(mult, dtype=np.int64),
        inverse=np.asarray(inverse).ravel().astype(np.intp),
    )


def check_model(model: str) -> str:
    """Validate a model name (one of :data:`MODELS`).

    Examples
    --------
    >>> from passhat.model.build import check_model
    >>> check_model("beta")
    'beta'
    """
    if model not in MODELS:
        raise OptionError(f"model must be one of {', '.join(MODELS)} (got {model!r})")
    return model


# ------------------------------------------------------------------- PyMC
def _value_weights(vals: NDArray[np.float64], w: NDArray[np.float64]) -> tuple[Any, Any]:
    """Distinct positive values and their total weights."""
    keep = vals > 0
    u, inv = np.unique(vals[keep], return_inverse=True)
    tot = np.bincount(np.asarray(inv).ravel(), weights=w[keep], minlength=len(u))
    return u.astype(np.float64), np.asarray(tot, dtype=np.float64)


def model_data(n: Any, c: Any, mult: Any | None = None, *, model: str = "beta") -> dict[str, Any]:
    """The values of the ``pm.Data`` containers of :func:`build_model`.

    Plain model: the log-likelihood separates over distinct values,

        Σ_pairs w log BB(c | n, a, b) = Σ_c W_c [lnΓ(a+c) − lnΓ(a)]
                                       + Σ_f W_f [lnΓ(b+f) − lnΓ(b)]
                                       − Σ_n W_n [lnΓ(κ+n) − lnΓ(κ)]   (+ const),

    where W_c is the number of tasks with c successes (W_f: f = n − c
    failures, W_n: n runs); zero values add nothing and are left out. The
    three sums are stacked into one: ``v`` (the values c, f, n), ``w`` (W_c,
    W_f, −W_n) and ``sel`` (0, 1, 2: whether the term's x is a, b or κ), at
    most 3 · max n terms, so a gradient costs that many log-gamma terms
    whatever the number of tasks or pairs (one elementwise sum also compiles
    faster than three). Inflated model (a mixture per task, which does not
    separate): ``n``, ``c``, ``w`` per distinct pair.

    Examples
    --------
    >>> from passhat.model.build import model_data
    >>> d = model_data([5, 5, 3], [5, 0, 3], [10, 4, 2])
    >>> d["v"].tolist(), d["w"].tolist(), d["sel"].tolist()
    ([3.0, 5.0, 5.0, 3.0, 5.0], [2.0, 10.0, 4.0, -2.0, -14.0], [0, 0, 1, 2, 2])
    """
    check_model(model)
    n_arr = np.asarray(n, dtype=np.float64).ravel()
    c_arr = np.asarray(c, dtype=np.float64).ravel()
    w_arr = np.ones_like(n_arr) if mult is None else np.asarray(mult, dtype=np.float64).ravel()
    if model != "beta":
        return {"n": n_arr, "c": c_arr, "w": w_arr}
    vals, weights, sel = [], [], []
    for i, (x, sign) in enumerate(((c_arr, 1.0), (n_arr - c_arr, 1.0), (n_arr, -1.0))):
        u, tot = _value_weights(x, w_arr)
        vals.append(u)
        weights.append(sign * tot)
        sel.append(np.full(len(u), i, dtype=np.int64))
    return {"v": np.concatenate(vals), "w": np.concatenate(weights), "sel": np.concatenate(sel)}


def build_model(
    n: Any,
    c: Any,
    mult: Any | None = None,
    *,
    model: str = "beta",
    priors: Priors | None = None,
) -> Any:
    """The PyMC model for one system, on compressed counts.

    Parameters
    ----------
    n, c : array_like of int
        Decided runs and successes per distinct pair (or per task).
    mult : array_like of int, optional
        Multiplicity of each pair (default 1 each).
    model : {"beta", "inflated"}
        Plain Beta-Binomial, or the zero/one-inflated mixture.
    priors : Priors, optional
        Defaults: see :class:`Priors`.

    Returns
    -------
    pymc.Model
        Free variables ``mu`` (Beta prior, sampled on logit μ) and ``kappa``
        (LogNormal prior, sampled on log κ). The inflated model has ``mu``,
        ``kappa_excess`` (κ = κ_min(μ) + κ_e, deterministic ``kappa``: see
        Notes), ``pi_beta`` (π_B) and ``pass_share`` (π₁ / (π₁ + π₀)), with
        deterministic ``pi_pass`` and ``pi_fail``: the Dirichlet prior on
        (π₁, π₀, π_B) written as its two independent Betas, which compiles
        to a smaller graph than a Dirichlet's stick-breaking.
        The data are ``pm.Data`` containers (their values:
        :func:`model_data`), so one compiled model serves every data set:
        for the plain model the distinct numbers of successes, failures and
        runs with their task counts (the likelihood separates over them); for
        the inflated model ``n``, ``c``, ``w`` per distinct pair.
        The likelihood is a ``pm.Potential`` named ``loglik``:
        Σ_pairs w · log BetaBinomial(c | n, a, b), without the binomial
        coefficient (a constant).

    Notes
    -----
    The inflated model's Beta part has a, b ≥ 1: no pole at 0 or 1, so
    the tasks piled at 0 and 1 are the point masses' to explain. It is
    sampled as κ = κ_min(μ) + κ_e with κ_min(μ) = max(1/μ, 1/(1 − μ)) (then
    min(a, b) ≥ 1), log κ_e ~ Normal(log_kappa_mean, log_kappa_sd) and μ
    the Beta part's mean (same prior as in the plain model). Without that
    floor a U-shaped Beta (a or b < 1) explains all-pass and all-fail tasks
    as well as the shares do: π₁ then trades off against κ along a curved
    ridge (π₁ → 0 as κ → 0), and NUTS mixed slowly along it (tail ESS ≈ 330
    from 4 × 1000 draws on the bundled example, diagnostics failed). With
    the floor and the Dirichlet(2, 2, 2) default on the shares
    (:class:`Priors`), bulk and tail ESS exceed 1000 from the default draws
    on the example and on τ-bench (``benchmarks/bench_inflated.py``), and a
    simulation with known shares recovers them
    (``tests/model/test_model_build.py``).

    Examples
    --------
    >>> from passhat.model import build_model
    >>> m = build_model([5, 5], [5, 0], [3, 1])
    >>> sorted(v.name for v in m.free_RVs)
    ['kappa', 'mu']
    >>> sorted(v.name for v in build_model([5, 5], [5, 0], model="inflated").free_RVs)
    ['kappa_excess', 'mu', 'pass_share', 'pi_beta']
    """
    if model not in ("beta", "inflated"):
        raise OptionError(
            f"build_model covers the beta and inflated models; {model!r} has no PyMC model"
        )
    import pymc as pm
    import pytensor.tensor as pt

    pri = priors or Priors()
    data = model_data(n, c, mult, model=model)
    with pm.Model() as m:
        box = {name: pm.Data(name, vals) for name, vals in data.items()}
        mu = pm.Beta("mu", alpha=pri.mu_alpha, beta=pri.mu_beta)
        if model == "beta":
            kappa = pm.LogNormal("kappa", mu=pri.log_kappa_mean, sigma=pri.log_kappa_sd)
        else:  # a, b ≥ 1 (Notes)
            excess = pm.LogNormal("kappa_excess", mu=pri.log_kappa_mean, sigma=pri.log_kappa_sd)
            kappa = pm.Deterministic("kappa", pt.maximum(1.0 / mu, 1.0 / (1.0 - mu)) + excess)
        a = mu * kappa
        b = (1.0 - mu) * kappa
        if model == "beta":
            x = pt.stack([a, b, kappa])[box["sel"]]
            pm.Potential("loglik", pt.sum(box["w"] * (pt.gammaln(x + box["v"]) - pt.gammaln(x))))
        else:
            nd, cd, wd = box["n"], box["c"], box["w"]
            fd = nd - cd
            bb = (
                pt.gammaln(cd + a)
                + pt.gammaln(fd + b)
                - pt.gammaln(nd + kappa)
                + pt.gammaln(kappa)
                - pt.gammaln(a)
                - pt.gammaln(b)
            )
            # (π₁, π₀, π_B) ~ Dirichlet(α₁, α₀, α_B), written as its two independent Betas:
            # π_B ~ Beta(α_B, α₁ + α₀) and π₁ / (π₁ + π₀) ~ Beta(α₁, α₀)
            a1, a0, ab = pri.mix_concentration
            pi_beta = pm.Beta("pi_beta", alpha=ab, beta=a1 + a0)
            pass_share = pm.Beta("pass_share", alpha=a1, beta=a0)
            pi_pass = pm.Deterministic("pi_pass", (1.0 - pi_beta) * pass_share)
            pi_fail = pm.Deterministic("pi_fail", (1.0 - pi_beta) * (1.0 - pass_share))
            neg = -np.inf
            lp_pass = pt.switch(pt.eq(cd, nd), pt.log(pi_pass), neg)
            lp_fail = pt.switch(pt.eq(cd, 0), pt.log(pi_fail), neg)
            lp_beta = pt.log(pi_beta) + bb
            terms = pt.stack([lp_pass, lp_fail, lp_beta], axis=0)
            pm.Potential("loglik", pt.sum(wd * pm.math.logsumexp(terms, axis=0)))
    return m


# ----------------------------------------------------------------- numpy
def log_prior(
    theta: NDArray[np.float64], lam: NDArray[np.float64], priors: Priors
) -> NDArray[np.float64]:
    """Log prior density of the beta model on (θ = logit μ, λ = log κ), Jacobians included.

    Identical (constants included) to the density PyMC samples.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.build import Priors, log_prior
    >>> # at μ = 1/2, κ = 1: log(μ(1 − μ)) from Beta(1, 1) + the Normal(0, 2) density at 0
    >>> bool(np.isclose(log_prior(np.array(0.0), np.array(0.0), Priors()),
    ...                 np.log(0.25) - 0.5 * np.log(2 * np.pi * 4)))
    True
    """
    return _betabinom_log_prior(theta, lam, priors)


def pair_loglik(
    n: NDArray[Any],
    c: NDArray[Any],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    pi_pass: NDArray[np.float64] | None = None,
    pi_fail: NDArray[np.float64] | None = None,
    binom_coef: bool = True,
    nodes: Nodes | None = None,
) -> NDArray[np.float64]:
    """Log-likelihood of each pair at each draw, shape (draws, pairs).

    ``a``, ``b`` (and the mixture shares, the node part) have shape (draws,) ((draws, nodes)
    for the node weights). With ``binom_coef`` the binomial coefficient is included (a proper
    pmf, for LOO); without it the value matches the PyMC potential. The mixing distribution's
    parts (:mod:`passhat.model.mixing`): π₁ at p = 1, π₀ at p = 0, the node weights, and the
    Beta with the rest.

    Examples
    --------
    >>> import numpy as np
    >>> from passhat.model.build import pair_loglik
    >>> # a = b = 1 (uniform p): c of 2 runs is uniform on 0, 1, 2
    >>> ll = pair_loglik(np.array([2, 2, 2]), np.array([0, 1, 2]), np.ones(1), np.ones(1))
    >>> np.exp(ll).round(4)
    array([[0.3333, 0.3333, 0.3333]])
    """
    nn = np.asarray(n, dtype=float)[None, :]
    cc = np.asarray(c, dtype=float)[None, :]
    aa = np.asarray(a, dtype=float)[:, None]
    bb_ = np.asarray(b, dtype=float)[:, None]
    kk = aa + bb_
    ll = (
        special.gammaln(cc + aa)
        + special.gammaln(nn - cc + bb_)
        - special.gammaln(nn + kk)
        + special.gammaln(kk)
        - special.gammaln(aa)
        - special.gammaln(bb_)
    )
    coef = special.gammaln(nn + 1) - special.gammaln(cc + 1) - special.gammaln(nn - cc + 1)
    if pi_pass is None and pi_fail is None and nodes is None:
        return np.asarray(ll + coef if binom_coef else ll)
    pb = beta_share(len(aa), pi_pass, pi_fail, nodes)[:, None]
    with np.errstate(divide="ignore"):
        terms = [np.log(pb) + ll]
        if pi_pass is not None:
            terms.append(np.where(cc == nn, np.log(np.asarray(pi_pass, float))[:, None], -np.inf))
        if pi_fail is not None:
            terms.append(np.where(cc == 0, np.log(np.asarray(pi_fail, float))[:, None], -np.inf))
    if nodes is not None:
        terms.append(nodes.given(nn.ravel(), cc.ravel()).log_total())
    out = special.logsumexp(np.stack(np.broadcast_arrays(*terms)), axis=0)
    return np.asarray(out + coef if binom_coef else out)
