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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import xarray as xr
from numpy.typing import NDArray
from scipy import optimize, special

from passhat.errors import InputError, OptionError
from passhat.estimators import as_counts
from passhat.planner._checks import prob as _prob
from passhat.trials import Trials, provenance

__all__ = ["Assumptions", "FitError", "Fitted", "earlier_prior", "from_counts"]

#: The search range of log κ in :func:`from_counts` (a fit at either end is at a limit).
LOG_KAPPA_LIMITS = (-6.0, 12.0)
#: What to do when runs have no spread to fit: state the prior (the parameters of
#: :class:`Assumptions`, which a command shows as its options).
STATE_PRIOR = "state the prior with {mean} and {kappa} or {icc}"
_STATED = ("mean", "kappa", "icc")


class FitError(InputError, OptionError):
    """Runs from which the prior cannot be fitted: an :class:`~passhat.errors.InputError` whose
    message names the parameters that state the prior instead (``{mean}``, ``{kappa}``, as an
    :class:`~passhat.errors.OptionError` does: a command shows its options)."""


@dataclass(frozen=True)
class Fitted:
    """What a fit of (μ, κ) was made from (:func:`from_counts`).

    Attributes
    ----------
    system : str
        The system fitted.
    tasks, runs : int
        Tasks with decided runs, and their decided runs.
    at_limit : {"lower", "upper"} or None
        κ at the lower or upper end of its search range (:data:`LOG_KAPPA_LIMITS`): the runs
        do not tell how the tasks' rates spread.
    source : dict
        Where the runs came from (path, format, sha256), as the reader recorded it.
    """

    system: str
    tasks: int
    runs: int
    at_limit: Literal["lower", "upper"] | None = None
    source: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Assumptions:
    """Stated two-level assumptions: mean success μ and task heterogeneity.

    Per-task success rates p_i ~ Beta(μκ, (1−μ)κ); give either ``icc`` (the
    run-to-run correlation within a task, 1/(κ+1)) or ``kappa``. ``fitted`` says what a
    fit (:func:`from_counts`) was made from; None for stated values.

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
    fitted: Fitted | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _prob("mean", self.mean)
        if (self.icc is None) == (self.kappa is None):
            raise OptionError("with {mean} give exactly one of {icc} or {kappa}", also=_STATED)
        if self.icc is not None:
            icc = _prob("icc", self.icc)
            object.__setattr__(self, "kappa", 1 / icc - 1)
        else:
            kap = float(self.kappa)  # type: ignore[arg-type]
            if not (math.isfinite(kap) and kap > 0):
                raise OptionError(
                    f"{{param}} must be a positive number (got {self.kappa!r})", param="kappa"
                )
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


def _pick_system(
    systems: list[str],
    system: str | None,
    source: Literal["data", "fit"],
    *,
    param: str = "system",
) -> str:
    """The system named (by the parameter ``param``), or the only one of ``systems``;
    OptionError naming the ``source``."""
    if system is None:
        if len(systems) != 1:
            holds = "the data hold" if source == "data" else "the fit holds"
            raise OptionError(
                f"{holds} {len(systems)} systems ({', '.join(systems[:5])}); name one with "
                "{param}",
                param=param,
            )
        return systems[0]
    if system not in systems:
        raise OptionError(
            f"{{param}} {system!r} is not in the {source} (have {', '.join(systems)})",
            param=param,
        )
    return system


def from_counts(data: Trials | xr.Dataset, *, system: str | None = None) -> Assumptions:
    """Maximum-likelihood Beta-Binomial (μ, κ) of one system's count table.

    The likelihood is compressed over the distinct (n, c) pairs. κ is kept
    within [e^-6, e^12]; a fit at a limit is reported in ``source`` and
    ``fitted.at_limit`` (:func:`passhat.plan.next_runs` refuses such a prior).

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
        raise FitError(
            f"system {system!r}: every decided run {word} ({int(n.sum())} runs, {len(n)} tasks), "
            "so the Beta-Binomial likelihood has its maximum at μ = "
            f"{0 if c.sum() == 0 else 1} for any κ: there is no spread to fit; " + STATE_PRIOR,
            also=_STATED,
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
    at_limit: Literal["lower", "upper"] | None = None
    if lk <= LOG_KAPPA_LIMITS[0] + 1e-6 or lk >= LOG_KAPPA_LIMITS[1] - 1e-6:
        note = f", κ at the search limit e^{lk:.0f}"
        at_limit = "lower" if lk <= LOG_KAPPA_LIMITS[0] + 1e-6 else "upper"
    mu = min(max(mu, 1e-6), 1 - 1e-6)
    fitted = Fitted(system, len(n), int(n.sum()), at_limit, provenance(data))
    return Assumptions(
        mean=mu,
        kappa=math.exp(lk),
        source=f"Beta-Binomial ML fit to {len(n)} tasks of {system!r}{note}",
        fitted=fitted,
    )


def _where(data_source: Mapping[str, str]) -> str:
    """`` PATH`` of the runs a prior is fitted to (empty when they have no path): the message
    reads ``prior PATH: …`` (``--prior-from PATH: …`` on the command line)."""
    path = data_source.get("path")
    return f" {path}" if path else ""


def refuse_at_limit(prior: Assumptions) -> None:
    """Refuse a prior fitted (:func:`from_counts`) with κ at a limit of its search range: the
    runs it was fitted to do not tell how the tasks' rates spread, so a batch planned under it
    rests on an arbitrary κ. Stated priors pass.

    Examples
    --------
    >>> import passhat as ph
    >>> clean = ph.counts_from_arrays([2] * 6, [2, 0] * 3)   # no flaky task
    >>> refuse_at_limit(ph.plan.from_counts(clean))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    passhat.planner.assumptions.FitError: prior: the fit of system ... puts κ at its lower limit ...
    """
    fit = prior.fitted
    if fit is None or fit.at_limit is None:
        return
    low, high = LOG_KAPPA_LIMITS
    head = (
        f"{{prior}}{_where(fit.source)}: the fit of system {fit.system!r} ({fit.tasks} tasks, "
        f"{fit.runs} runs) puts κ at its {fit.at_limit} limit "
    )
    if fit.at_limit == "lower":
        why = (
            f"e^{low:.0f}: (nearly) every task passed all its runs or failed all of them (no "
            "flaky task), so the fit cannot tell how the tasks' rates spread; use an earlier "
            "evaluation with flaky tasks, or "
        )
    else:
        why = (
            f"e^{high:.0f}: the tasks' rates do not differ beyond run-to-run chance here, so any "
            "larger κ fits as well; use an earlier evaluation with more tasks or runs per task, "
            "or "
        )
    raise FitError(head + why + STATE_PRIOR, also=("prior", *_STATED))


def earlier_prior(data: Trials | xr.Dataset, *, system: str | None = None) -> Assumptions:
    """The prior of the task rates fitted to an earlier evaluation (:func:`from_counts`), for
    :func:`passhat.plan.next_runs`'s ``prior=`` given as runs.

    Its ``source`` names the runs ("fitted to PATH (system 'x'): T tasks, N runs"); every error
    names the parameters ``prior`` and ``prior_system`` (``--prior-from`` and
    ``--prior-system`` on the command line), and a fit with κ at a search limit is refused
    (:func:`refuse_at_limit`).

    Examples
    --------
    >>> import passhat as ph
    >>> p = earlier_prior(ph.load_example("agents"), system="baseline")
    >>> p.source.split(": ")[1], round(p.mean, 3)
    ('168 tasks, 840 runs', 0.76)
    """
    ds = as_counts(data)
    where = _where(provenance(data))
    systems = [str(x) for x in ds["system"].values]
    if system is None and len(systems) > 1:
        raise OptionError(
            f"{{prior}}{where} holds {len(systems)} systems ({', '.join(systems[:5])}); name one "
            "with {prior_system}",
            also=("prior", "prior_system"),
        )
    if system is not None and system not in systems:
        raise OptionError(
            f"{{prior_system}} {system!r} is not in {{prior}}{where} (have "
            f"{', '.join(systems[:5])})",
            also=("prior_system", "prior"),
        )
    name = system if system is not None else systems[0]
    try:
        fit = from_counts(data, system=name)
    except InputError as err:  # which runs: the earlier ones
        template = err.template if isinstance(err, OptionError) else str(err)
        params = err.params if isinstance(err, OptionError) else ()
        raise FitError(f"{{prior}}{where}: " + template, also=("prior", *params)) from err
    refuse_at_limit(fit)
    path = where.strip() or "the earlier runs"
    named = f"{path} (system {name!r})" if len(systems) > 1 else path
    fitted = fit.fitted
    if fitted is None:  # from_counts records it
        raise RuntimeError("plan.from_counts returned assumptions without their fit")
    return Assumptions(
        mean=fit.mean,
        kappa=fit.kappa,
        source=f"fitted to {named}: {fitted.tasks:,} tasks, {fitted.runs:,} runs",
        fitted=fitted,
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
        raise OptionError(
            "give {prior} (Assumptions(mean=, icc=|kappa=), a fit, or count data)",
            also=("prior",),
        )
    ab, where = _posterior_ab(prior, system)
    mu_d = ab[:, 0] / ab.sum(axis=1)
    kap_d = ab.sum(axis=1)
    summary = Assumptions(
        mean=float(mu_d.mean()), kappa=float(kap_d.mean()), source=f"{where}, posterior mean"
    )
    if posterior == "mean":
        return summary, np.array([[summary.a, summary.b]])
    if posterior != "integrate":
        raise OptionError(
            f"{{param}} must be 'mean' or 'integrate' (got {posterior!r})", param="posterior"
        )
    idx = np.linspace(0, len(ab) - 1, min(draws, len(ab))).round().astype(int)
    summary = Assumptions(
        mean=summary.mean,
        kappa=float(summary.kappa),  # type: ignore[arg-type]
        source=f"{where}, averaged over {len(idx)} posterior draws",
    )
    return summary, ab[idx]
