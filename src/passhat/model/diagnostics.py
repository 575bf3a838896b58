"""Sampler diagnostics: R-hat, bulk/tail ESS, divergences, checked against thresholds.

Thresholds follow Vehtari et al. (2021, "Rank-normalization, folding, and
localization"): R-hat ≤ 1.01 and at least 100 effective draws per chain
(bulk and tail); any divergent transition fails the fit. Grid fits produce
independent draws: R-hat and divergences do not apply to them (R-hat is
reported but not checked); ESS is still checked.

References
----------
.. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C.
   (2021). Rank-normalization, folding, and localization: an improved R-hat
   for assessing convergence of MCMC. *Bayesian Analysis* 16(2), 667–718.

Examples
--------
>>> from passhat.model.diagnostics import THRESHOLDS
>>> THRESHOLDS["r_hat_max"]
1.01
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from passhat._format import num
from passhat._repr import View
from passhat._result import Result, records

__all__ = [
    "ONE_CHAIN",
    "THRESHOLDS",
    "Diagnostics",
    "compute_diagnostics",
    "import_arviz",
    "joint_diagnostics",
    "rhat_or_nan",
]

THRESHOLDS: dict[str, float] = {"r_hat_max": 1.01, "ess_per_chain_min": 100.0, "divergences_max": 0}


def import_arviz() -> Any:
    """Import ArviZ without its refactor FutureWarning.

    Examples
    --------
    >>> from passhat.model.diagnostics import import_arviz
    >>> import_arviz().__name__
    'arviz'
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import arviz as az
    return az


@dataclass(frozen=True, repr=False, eq=False)
class Diagnostics(Result):
    """Convergence diagnostics of a fit.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, variable): r_hat, ess_bulk, ess_tail.
    divergences : dict
        Divergent transitions per system (a joint fit: ``"(all)"``).
    thresholds : dict
        r_hat_max, ess_min (= 100 × chains), divergences_max.
    problems : list of str
        Human-readable failures, empty when all checks pass.
    method : str
        "nuts" or "grid".

    Examples
    --------
    >>> import passhat as ph
    >>> f = ph.fit(ph.load_example("abcd"), model="beta", method="grid", seed=0)
    >>> d = f.diagnostics
    >>> d.passed, d.to_dict()["schema"], d.to_frame()["variable"].tolist()
    (True, 'passhat.diagnostics', ['mu', 'kappa'])
    >>> print(repr(d).splitlines()[0])
    Diagnostics (grid): passed
    """

    schema: ClassVar[str] = "diagnostics"

    table: pd.DataFrame
    divergences: dict[str, int]
    thresholds: dict[str, float]
    problems: list[str] = field(default_factory=list)
    method: str = "nuts"

    @property
    def passed(self) -> bool:
        """True when every check passes."""
        return not self.problems

    def problems_for(self, system: str) -> list[str]:
        """Failures of one system."""
        return [p for p in self.problems if p.startswith(f"{system}:")]

    def status(self, system: str | None = None) -> str:
        """``"ok"`` or ``"FAILED: ..."``."""
        probs = self.problems if system is None else self.problems_for(system)
        return "ok" if not probs else "FAILED: " + "; ".join(probs)

    def to_frame(self) -> pd.DataFrame:
        """One row per (system, variable): r_hat, ess_bulk, ess_tail."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "problems": list(self.problems),
            "thresholds": dict(self.thresholds),
            "divergences": dict(self.divergences),
            "table": records(self.table),
        }

    def view(self) -> View:
        """The table of R-hat and ESS, the problems, the thresholds."""
        frame = pd.DataFrame(
            {
                "system": self.table["system"].astype(str),
                "variable": self.table["variable"].astype(str),
                "r_hat": [num(v) for v in self.table["r_hat"]],
                "ess_bulk": [num(v, 0) for v in self.table["ess_bulk"]],
                "ess_tail": [num(v, 0) for v in self.table["ess_tail"]],
            }
        )
        th = self.thresholds
        rule = f"pass when ESS ≥ {th['ess_min']:g} (bulk and tail)"
        if self.method == "grid":
            rule += "; grid draws are independent: R-hat and divergences are not checked"
        else:
            rule += (
                f", R-hat ≤ {th['r_hat_max']:g} and at most {th['divergences_max']:g} divergent "
                "transitions; divergences: "
                + ", ".join(f"{s} {n}" for s, n in self.divergences.items())
            )
        return View(
            f"Diagnostics ({self.method}): {'passed' if self.passed else 'FAILED'}",
            frame,
            notes=(rule,),
            lines=tuple(self.problems),
            left=frozenset({"system", "variable"}),
        )


#: The problem a single-chain NUTS fit reports instead of a NaN R-hat per variable.
ONE_CHAIN = "r_hat not computed: 1 chain (R-hat compares chains; use chains ≥ 2)"


def rhat_or_nan(az: Any, ds: xr.Dataset, chains: int) -> xr.Dataset:
    """ArviZ's R-hat of every variable, or NaN without a warning when there is one chain.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> ds = xr.Dataset({"mu": (("chain", "draw"), np.zeros((1, 10)))})
    >>> float(rhat_or_nan(import_arviz(), ds, 1)["mu"])
    nan
    """
    if chains >= 2:
        return az.rhat(ds)
    return xr.full_like(ds.isel(chain=0, draw=0, drop=True), np.nan, dtype=float)


def compute_diagnostics(
    posterior: Any, diverging: Any, *, variables: list[str], method: str
) -> Diagnostics:
    """Diagnostics from a posterior Dataset (chain, draw, system) and divergence flags.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from passhat.model.diagnostics import compute_diagnostics
    >>> post = xr.Dataset({"mu": (("chain", "draw", "system"),
    ...                           np.random.default_rng(0).random((2, 500, 1)))},
    ...                   coords={"system": ["A"]})
    >>> compute_diagnostics(post, np.ones((2, 500, 1), bool), variables=["mu"],
    ...                     method="nuts").problems
    ['A: 1000 divergent transition(s)']
    """
    az = import_arviz()
    chains = int(posterior.sizes["chain"])
    ds = posterior[variables]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rhat = rhat_or_nan(az, ds, chains)
        bulk = az.ess(ds, method="bulk")
        tail = az.ess(ds, method="tail")
    systems = [str(s) for s in posterior["system"].values]
    thresholds = _thresholds(chains)
    # grid draws are independent, split into chains only to fill the same InferenceData: their
    # ESS is about chains × draws, so a shortfall means too few draws per chain, not poor mixing
    grid_hint = (
        f" ({THRESHOLDS['ess_per_chain_min']:.0f} per chain; grid draws are independent, so "
        f"{chains} chain(s) need about {THRESHOLDS['ess_per_chain_min']:.0f} draws each or more)"
    )
    rows = []
    problems: list[str] = []
    divs: dict[str, int] = {}
    for si, s in enumerate(systems):
        n_div = int(np.asarray(diverging)[..., si].sum()) if diverging is not None else 0
        divs[s] = n_div
        if method == "nuts" and n_div > thresholds["divergences_max"]:
            problems.append(f"{s}: {n_div} divergent transition(s)")
        if method == "nuts" and chains < 2:
            problems.append(f"{s}: {ONE_CHAIN}")
        for v in variables:
            r = float(rhat[v].values[si])
            eb = float(bulk[v].values[si])
            et = float(tail[v].values[si])
            rows.append({"system": s, "variable": v, "r_hat": r, "ess_bulk": eb, "ess_tail": et})
            if method == "nuts" and chains >= 2 and not r <= thresholds["r_hat_max"]:
                problems.append(f"{s}: r_hat({v}) = {r:.3f} > {thresholds['r_hat_max']}")
            for name, val in (("bulk", eb), ("tail", et)):
                if not val >= thresholds["ess_min"]:
                    problems.append(
                        f"{s}: {name} ESS({v}) = {val:.0f} < {thresholds['ess_min']:.0f}"
                        + (grid_hint if method == "grid" else "")
                    )
    return Diagnostics(
        table=pd.DataFrame(rows, columns=["system", "variable", "r_hat", "ess_bulk", "ess_tail"]),
        divergences=divs,
        thresholds=thresholds,
        problems=problems,
        method=method,
    )


def _thresholds(chains: int) -> dict[str, float]:
    return {
        "r_hat_max": THRESHOLDS["r_hat_max"],
        "ess_min": THRESHOLDS["ess_per_chain_min"] * chains,
        "divergences_max": THRESHOLDS["divergences_max"],
    }


def _joint_rows(
    posterior: xr.Dataset, sampled: Sequence[str], systems: Sequence[str]
) -> list[dict[str, Any]]:
    """R-hat and ESS of θ_s per system, of each shared hyperparameter, and of the worst task
    effect (all variables at once: :mod:`passhat.model.joint_mcmc`, ArviZ's formulas)."""
    from passhat.model.joint_mcmc import diagnose

    chains = int(posterior.sizes["chain"])
    names = ["theta", *sampled, "beta"]
    cols = [
        np.asarray(posterior[v].transpose("chain", "draw", ...).values, dtype=float) for v in names
    ]
    sizes = [int(np.prod(c.shape[2:], dtype=int)) for c in cols]
    x = np.concatenate([c.reshape(c.shape[0], c.shape[1], -1) for c in cols], axis=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        stats = diagnose(x)
    cuts = np.cumsum(sizes)[:-1]
    rhat, bulk, tail = (dict(zip(names, np.split(a, cuts), strict=True)) for a in stats)
    if chains < 2:
        rhat = {v: np.full_like(a, math.nan) for v, a in rhat.items()}

    def row(system: str, variable: str, r: Any, b: Any, t: Any) -> dict[str, Any]:
        return {"system": system, "variable": variable, "r_hat": float(r), "ess_bulk": float(b),
                "ess_tail": float(t)}  # fmt: skip

    rows = [
        row(s, "theta", rhat["theta"][si], bulk["theta"][si], tail["theta"][si])
        for si, s in enumerate(systems)
    ]
    rows += [row("(all)", v, rhat[v][0], bulk[v][0], tail[v][0]) for v in sampled]
    worst_rhat = float(np.nanmax(rhat["beta"])) if chains >= 2 else math.nan
    rows.append(
        row("(all)", "beta (worst task)", worst_rhat, np.nanmin(bulk["beta"]),
            np.nanmin(tail["beta"]))
    )  # fmt: skip
    return rows


def joint_diagnostics(
    posterior: xr.Dataset, diverging: Any, *, sampled: Sequence[str]
) -> Diagnostics:
    """Diagnostics of a joint fit: R-hat, bulk/tail ESS of θ_s, the shared hyperparameters
    ``sampled`` (σ_β, κ) and the worst task effect; divergences over the whole model.

    Thresholds as for the single-system fit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> post = xr.Dataset({"theta": (("chain", "draw", "system"), rng.normal(size=(2, 500, 2))),
    ...                    "task_sd": (("chain", "draw"), rng.random((2, 500))),
    ...                    "beta": (("chain", "draw", "task"), rng.normal(size=(2, 500, 3)))},
    ...                   coords={"system": ["A", "B"]})
    >>> d = joint_diagnostics(post, np.zeros((2, 500), bool), sampled=["task_sd"])
    >>> d.passed, d.table["variable"].tolist()
    (True, ['theta', 'theta', 'task_sd', 'beta (worst task)'])
    """
    chains = int(posterior.sizes["chain"])
    systems = [str(s) for s in posterior["system"].values]
    rows = _joint_rows(posterior, sampled, systems)
    thr = _thresholds(chains)
    n_div = int(np.asarray(diverging).sum())
    problems = [f"joint: {n_div} divergent transition(s)"] if n_div else []
    if chains < 2:
        problems.append(ONE_CHAIN)
    for r in rows:
        where = f"{r['system']}: " if r["system"] != "(all)" else "joint: "
        if chains >= 2 and not r["r_hat"] <= thr["r_hat_max"]:
            problems.append(f"{where}r_hat({r['variable']}) = {r['r_hat']:.3f} > 1.01")
        for name in ("bulk", "tail"):
            if not r[f"ess_{name}"] >= thr["ess_min"]:
                problems.append(
                    f"{where}{name} ESS({r['variable']}) = "
                    f"{r[f'ess_{name}']:.0f} < {thr['ess_min']:.0f}"
                )
    return Diagnostics(
        table=pd.DataFrame(rows, columns=["system", "variable", "r_hat", "ess_bulk", "ess_tail"]),
        divergences={"(all)": n_div},
        thresholds=thr,
        problems=problems,
        method="nuts",
    )
