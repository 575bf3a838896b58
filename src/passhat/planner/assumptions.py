"""Where the planner's two-level model gets μ and κ: stated assumptions, counts, or a fit.

Design and power assume per-task success rates p_i ~ Beta(μκ, (1−μ)κ) and
c_i | p_i ~ Binomial(n_i, p_i). :class:`Assumptions` states (μ, κ) directly
(or μ and the within-task correlation ICC = 1/(κ+1)); :func:`from_counts`
fits them to a count table by maximum likelihood; a fitted model
(``fit.idata.posterior`` with ``mu`` and ``kappa``) gives them as posterior
means or draws.

Examples
--------
>>> import passhat as ph
>>> a = ph.plan.Assumptions(mean=0.6, kappa=4.0)
>>> round(a.icc, 2), round(a.a, 2), round(a.b, 2)
(0.2, 2.4, 1.6)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import xarray as xr
from numpy.typing import NDArray
from scipy import optimize, special

from passhat.errors import InputError, OptionError
from passhat.estimators import as_counts
from passhat.planner.result import _prob
from passhat.trials import Trials

__all__ = ["Assumptions", "from_counts"]

#: The search range of log κ in :func:`from_counts` (a fit at either end is at a limit).
LOG_KAPPA_LIMITS = (-6.0, 12.0)
#: What to do when the counts have no spread to fit (the CLI rewrites the option names).
FIT_HINT = "give --mean with --icc/--kappa (prior=Assumptions(...)) instead"


@dataclass(frozen=True)
class Assumptions:
    """Stated two-level assumptions: mean success μ and task heterogeneity.

    Per-task success rates p_i ~ Beta(μκ, (1−μ)κ); give either ``icc`` (the
    run-to-run correlation within a task, 1/(κ+1)) or ``kappa``.

    Examples
    --------
    >>> from passhat.planner import Assumptions
    >>> a = Assumptions(mean=0.77, icc=0.4)
    >>> round(a.kappa, 3), round(a.a, 3)
    (1.5, 1.155)
    """

    mean: float
    icc: float | None = None
    kappa: float | None = None
    source: str = "stated assumptions"

    def __post_init__(self) -> None:
        _prob("mean", self.mean)
        if (self.icc is None) == (self.kappa is None):
            raise OptionError("Assumptions: give exactly one of icc= or kappa=")
        if self.icc is not None:
            icc = _prob("icc", self.icc)
            object.__setattr__(self, "kappa", 1 / icc - 1)
        else:
            kap = float(self.kappa)  # type: ignore[arg-type]
            if not (math.isfinite(kap) and kap > 0):
                raise OptionError(f"kappa must be a positive number (got {self.kappa!r})")
            object.__setattr__(self, "icc", 1 / (kap + 1))

    @property
    def a(self) -> float:
        """Beta shape a = μκ."""
        return float(self.mean * self.kappa)  # type: ignore[operator]

    @property
    def b(self) -> float:
        """Beta shape b = (1 − μ)κ."""
        return float((1 - self.mean) * self.kappa)  # type: ignore[operator]

    def describe(self) -> str:
        """One line: μ, κ and ICC with their source."""
        where = self.source if self.source.startswith("fitted to") else f"from {self.source}"
        return f"mean μ = {self.mean:.3f}, κ = {self.kappa:.3g} (ICC = {self.icc:.3f}), {where}"


def _pick_system(systems: list[str], system: str | None, source: Literal["data", "fit"]) -> str:
    """The system named, or the only one of ``systems``; OptionError naming the ``source``."""
    if system is None:
        if len(systems) != 1:
            holds = "the data hold" if source == "data" else "the fit holds"
            raise OptionError(
                f"{holds} {len(systems)} systems ({', '.join(systems[:5])}); name one with system="
            )
        return systems[0]
    if system not in systems:
        raise OptionError(f"system {system!r} is not in the {source} (have {', '.join(systems)})")
    return system


def from_counts(data: Trials | xr.Dataset, *, system: str | None = None) -> Assumptions:
    """Maximum-likelihood Beta-Binomial (μ, κ) of one system's count table.

    The likelihood is compressed over the distinct (n, c) pairs. κ is kept
    within [e^-6, e^12]; a fit at a limit is reported in ``source``.

    References
    ----------
    .. [1] D. A. Griffiths, "Maximum likelihood estimation for the beta-binomial
       distribution and an application to the household distribution of the total number
       of cases of a disease", *Biometrics* 29(4), 637–648 (1973).

    Examples
    --------
    >>> import passhat as ph
    >>> a = ph.plan.from_counts(ph.counts_from_arrays([4] * 6, [0, 0, 4, 4, 2, 1]))
    >>> 0 < a.mean < 1 and a.kappa > 0
    True
    """
    ds = as_counts(data)
    system = _pick_system([str(s) for s in ds["system"].values], system, "data")
    sub = ds.sel(system=system)
    keep = sub["n"].values > 0
    n = sub["n"].values[keep].astype(float)
    c = sub["c"].values[keep].astype(float)
    if len(n) < 2:
        raise InputError(f"system {system!r}: need at least two tasks with decided runs to fit")
    if c.sum() == 0 or (c == n).all():
        word = "fails" if c.sum() == 0 else "passes"
        raise InputError(
            f"system {system!r}: every decided run {word} ({int(n.sum())} runs, {len(n)} tasks), "
            "so the Beta-Binomial likelihood has its maximum at μ = "
            f"{0 if c.sum() == 0 else 1} for any κ: there is no spread to fit; " + FIT_HINT
        )
    pairs, mult = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    nn, cc, w = pairs[:, 0], pairs[:, 1], mult.astype(float)

    def nll(theta: NDArray[np.float64]) -> float:
        mu = special.expit(theta[0])
        kap = math.exp(theta[1])
        a, b = mu * kap, (1 - mu) * kap
        return float(-(w * (special.betaln(cc + a, nn - cc + b) - special.betaln(a, b))).sum())

    pbar = (c.sum() + 0.5) / (n.sum() + 1)
    best = None
    for lk in (-2.0, 0.0, 2.0, 5.0):
        res = optimize.minimize(
            nll,
            np.array([special.logit(pbar), lk]),
            method="L-BFGS-B",
            bounds=[(-15, 15), LOG_KAPPA_LIMITS],
        )
        if best is None or res.fun < best.fun:
            best = res
    if best is None:  # pragma: no cover - the loop always runs
        raise InputError("Beta-Binomial fit failed")
    mu = float(special.expit(best.x[0]))
    lk = float(best.x[1])
    note = ""
    if lk <= LOG_KAPPA_LIMITS[0] + 1e-6 or lk >= LOG_KAPPA_LIMITS[1] - 1e-6:
        note = f", κ at the search limit e^{lk:.0f}"
    mu = min(max(mu, 1e-6), 1 - 1e-6)
    return Assumptions(
        mean=mu,
        kappa=math.exp(lk),
        source=f"Beta-Binomial ML fit to {len(n)} tasks of {system!r}{note}",
    )


def _posterior_ab(prior: Any, system: str | None) -> tuple[NDArray[np.float64], str]:
    """(draws, 2) array of (a, b) from a fit object with posterior mu, kappa."""
    idata = getattr(prior, "idata", prior)
    post = getattr(idata, "posterior", None)
    if post is None or "mu" not in post or "kappa" not in post:
        raise OptionError(
            "prior must be Assumptions, a count table/Trials, or a fit whose "
            "idata.posterior has variables 'mu' and 'kappa'"
        )
    mu, kap = post["mu"], post["kappa"]
    if "system" in mu.dims:
        system = _pick_system([str(s) for s in mu["system"].values], system, "fit")
        mu = mu.sel(system=system)
        kap = kap.sel(system=system)
    m = np.asarray(mu.values, dtype=float).ravel()
    k = np.asarray(kap.values, dtype=float).ravel()
    return np.stack([m * k, (1 - m) * k], axis=1), f"posterior of a fit ({system or 'one system'})"


def _resolve_prior(
    prior: Any, *, system: str | None = None, posterior: str = "mean", draws: int = 100
) -> tuple[Assumptions, NDArray[np.float64]]:
    """Assumptions (for the text) and the (a, b) rows to average the design over."""
    if isinstance(prior, Assumptions):
        return prior, np.array([[prior.a, prior.b]])
    if isinstance(prior, Trials | xr.Dataset):
        a = from_counts(prior, system=system)
        return a, np.array([[a.a, a.b]])
    if prior is None:
        raise OptionError("give prior= (Assumptions(mean=, icc=|kappa=), a fit, or count data)")
    ab, where = _posterior_ab(prior, system)
    mu_d = ab[:, 0] / ab.sum(axis=1)
    kap_d = ab.sum(axis=1)
    summary = Assumptions(
        mean=float(mu_d.mean()), kappa=float(kap_d.mean()), source=f"{where}, posterior mean"
    )
    if posterior == "mean":
        return summary, np.array([[summary.a, summary.b]])
    if posterior != "integrate":
        raise OptionError(f"posterior must be 'mean' or 'integrate' (got {posterior!r})")
    idx = np.linspace(0, len(ab) - 1, min(draws, len(ab))).round().astype(int)
    summary = Assumptions(
        mean=summary.mean,
        kappa=float(summary.kappa),  # type: ignore[arg-type]
        source=f"{where}, averaged over {len(idx)} posterior draws",
    )
    return summary, ab[idx]
