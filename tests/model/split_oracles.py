"""Brute-force quadrature of the hierarchical Beta-Binomial model on two tasks (a test oracle).

Independent of ``passhat.model``: Gauss–Legendre nodes over μ ∈ (0, 1), λ = log κ ∈ [−10, 10]
(another parameterisation than passhat's logit μ, with its own Jacobian-free prior density) and
over each task's rate p_i ∈ (0, 1); densities from ``scipy.stats``; the likelihood of a task is
the Bernoulli-sequence term p^c (1 − p)^(n − c) with p integrated numerically (no Beta-Binomial
closed form, no sufficient statistics, no sampling). Everything follows from the joint density of
(μ, λ, p_1, p_2) on that tensor grid:

* Var(θ | y) from the marginal of (μ, λ);
* E[θ | p] = Σ_φ θ joint / Σ_φ joint at each p node, then Var(E[θ | p] | y) over the p marginal;
* after m more runs per task, every outcome (c'_1, c'_2) is enumerated with its predictive
  probability C(m, c'_1) C(m, c'_2) Z(y + y') / Z(y).
"""

from __future__ import annotations

from itertools import product

import numpy as np
from scipy import special, stats

LAM_RANGE = (-10.0, 10.0)


def _gl(lo: float, hi: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(m)
    return lo + (hi - lo) * (x + 1) / 2, w * (hi - lo) / 2


class TwoTasks:
    """Joint quadrature of prior × Π Beta(p_i | a, b) p_i^c_i (1 − p_i)^f_i for two tasks."""

    def __init__(self, n, c, *, mu_prior=(1.0, 1.0), log_kappa=(0.0, 2.0), n_phi=100, n_p=40):
        self.n = np.asarray(n, float)
        self.c = np.asarray(c, float)
        mu, wmu = _gl(0.0, 1.0, n_phi)
        lam, wlam = _gl(*LAM_RANGE, n_phi)
        M, L = np.meshgrid(mu, lam, indexing="ij")
        self.mu, self.lam = M.ravel(), L.ravel()
        self.a = self.mu * np.exp(self.lam)
        self.b = (1 - self.mu) * np.exp(self.lam)
        self.log_prior = (
            stats.beta.logpdf(self.mu, *mu_prior)
            + stats.norm.logpdf(self.lam, *log_kappa)
            + np.log(np.outer(wmu, wlam).ravel())
        )
        self.p, wp = _gl(0.0, 1.0, n_p)
        self.log_wp = np.log(wp)
        # log Beta(p_j | a, b) at every (φ, p node): (Φ, P)
        self.log_beta_pdf = stats.beta.logpdf(self.p[None, :], self.a[:, None], self.b[:, None])

    def joint(self, c, n) -> np.ndarray:
        """Unnormalised joint weights over (φ, p_1 node, p_2 node), with the quadrature weights."""
        per = []
        for ci, ni in zip(c, n, strict=True):
            lik = special.xlogy(ci, self.p) + special.xlog1py(ni - ci, -self.p) + self.log_wp
            per.append(self.log_beta_pdf + lik[None, :])
        lj = self.log_prior[:, None, None] + per[0][:, :, None] + per[1][:, None, :]
        top = lj.max()
        return np.exp(lj - top), top

    def theta(self, metric: str, k: int) -> np.ndarray:
        """The population value of a metric at each φ node."""
        a, b = self.a, self.b
        if metric == "mean":
            return a / (a + b)
        j = np.arange(k)[None, :]
        if metric == "pass_hat_k":
            return np.prod((a[:, None] + j) / (a[:, None] + b[:, None] + j), axis=1)
        return 1 - np.prod((b[:, None] + j) / (a[:, None] + b[:, None] + j), axis=1)

    def g(self, metric: str, k: int) -> np.ndarray:
        """The metric of a task with rate p, at the p nodes."""
        if metric == "mean":
            return self.p
        return self.p**k if metric == "pass_hat_k" else 1 - (1 - self.p) ** k

    def summary(self, metric: str, k: int, *, c=None, n=None, ci: float = 0.95) -> dict:
        """Var(θ | data), Var(E[θ | p] | data), the interval width of θ and Var of the benchmark."""
        c = self.c if c is None else np.asarray(c, float)
        n = self.n if n is None else np.asarray(n, float)
        J, _ = self.joint(c, n)
        J /= J.sum()
        th = self.theta(metric, k)
        w_phi = J.sum(axis=(1, 2))
        e_th = w_phi @ th
        var_total = w_phi @ (th * th) - e_th**2
        w_p = J.sum(axis=0)  # (P, P)
        e_given_p = np.einsum("f,fij->ij", th, J) / w_p
        var_within = (w_p * e_given_p**2).sum() - ((w_p * e_given_p).sum()) ** 2
        order = np.argsort(th)
        cdf = np.cumsum(w_phi[order]) - 0.5 * w_phi[order]
        lo, hi = np.interp([(1 - ci) / 2, 1 - (1 - ci) / 2], cdf, th[order])
        g = self.g(metric, k)
        bench = (g[:, None] + g[None, :]) / 2
        var_bench = (w_p * bench**2).sum() - ((w_p * bench).sum()) ** 2
        return {
            "var_total": var_total,
            "var_within": var_within,
            "width": hi - lo,
            "sd": np.sqrt(var_total),
            "sd_bench": np.sqrt(var_bench),
        }

    def log_evidence(self, c, n) -> float:
        J, top = self.joint(np.asarray(c, float), np.asarray(n, float))
        return float(np.log(J.sum()) + top)

    def after_runs(self, metric: str, k: int, m: int, *, ci: float = 0.95) -> dict:
        """Expected posterior sd, width and benchmark sd after m more runs on each task."""
        z0 = self.log_evidence(self.c, self.n)
        out = {"sd": 0.0, "width": 0.0, "sd_bench": 0.0, "prob": 0.0}
        for cp in product(range(m + 1), repeat=2):
            cc = self.c + np.asarray(cp, float)
            nn = self.n + m
            logp = sum(np.log(special.comb(m, x)) for x in cp) + self.log_evidence(cc, nn) - z0
            prob = float(np.exp(logp))
            s = self.summary(metric, k, c=cc, n=nn, ci=ci)
            out["prob"] += prob
            for key in ("sd", "width", "sd_bench"):
                out[key] += prob * float(s[key])
        return out
