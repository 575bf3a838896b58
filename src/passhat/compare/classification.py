"""Baseline vs candidate: classify each task's change between two run sets.

Each task present in both builds gets exactly one verdict, decided in this
order:

1. ``redefined``: the scenario fingerprint (``scenario_hash``) differs between
   the builds, so the runs answer different questions (τ-bench's reader
   fingerprints ``info.task``). Nothing else is said about it.
2. ``undecided``: a build has fewer than ``min_runs`` decided runs of it.
3. ``regression`` / ``fixed``: Fisher's exact test, one-sided, on the 2×2
   table (successes, failures) × (base, candidate) finds the candidate's
   success rate lower / higher, and the finding survives the correction
   across tasks (``multiplicity``, :mod:`passhat.compare.multiplicity`):
   by default Holm's, so that P(any task falsely flagged ``regression``) ≤
   ``alpha`` when nothing changed; ``"bh"`` bounds the false discovery rate
   instead; ``"none"`` tests each task at ``alpha`` alone. ``p_regression`` is
   P(X ≥ c_base) and ``p_fixed`` P(X ≤ c_base) for X hypergeometric with the
   table's margins (exact, conditional on the margins); ``p_regression_adj``
   and ``p_fixed_adj`` are the adjusted p-values (1 for tasks whose margins
   cannot reach significance: Tarone's screen for Holm, p_min > alpha for BH).
4. ``possible_regression`` / ``possible_fix``: significant at ``alpha`` on
   the task's own test, not after the correction: a lead to rerun, not a
   finding.
5. ``stable_pass`` / ``stable_fail``: every decided run passed / failed in
   both builds.
6. ``flaky``: both outcomes within a build (the same scenario, unchanged),
   and no significant change.
7. ``undecided``: the rest, one build all-pass and the other all-fail with
   too few runs for the test. ``more_runs_cand`` says how many more candidate
   runs, continuing the candidate's outcome, would make the task's own test
   significant (the smallest m with one-sided p ≤ alpha), and
   ``more_runs_base`` how many base runs bring a build to ``min_runs``.

Per-task verdicts say *which tasks* to look at; they do not decide whether
the build got worse. That is a question about the benchmark's pass^k, which
the paired comparison (:func:`passhat.compare`) and the sequential gate
(:func:`passhat.plan.sequential`) answer with an interval or an anytime-valid
decision; counting flagged tasks answers neither.

Tasks in only one build and runs without a verdict are never dropped
silently: the first are listed in ``excluded`` with the reason, the second
counted in ``unscored_base`` / ``unscored_cand``.

Examples
--------
>>> import passhat as ph
>>> base = ph.counts_from_arrays([10, 10, 10], [10, 10, 0], tasks=["a", "b", "c"])
>>> cand = ph.counts_from_arrays([10, 10, 10], [10, 0, 0], tasks=["a", "b", "c"])
>>> res = ph.classify(base, cand)
>>> res.table["verdict"].tolist()
['stable_pass', 'regression', 'stable_fail']
>>> res.has("regression")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from passhat._validate import check_method, check_min_runs
from passhat.compare.classification_result import (
    CORRECTIONS,
    VERDICTS,
    Classification,
    guarantee_text,
    task_notes,
)
from passhat.compare.multiplicity import MULTIPLICITY, adjust
from passhat.compare.selection import Selection, select_systems
from passhat.errors import OptionError
from passhat.inputs import as_input
from passhat.trials import Trials

__all__ = [
    "MULTIPLICITY",
    "VERDICTS",
    "Classification",
    "classify",
    "fisher_tails",
    "runs_to_significance",
]

#: p ≤ α is judged with this relative slack: exact p-values such as 1/20 at α = 0.05
#: must not fail the test by a rounding error of the hypergeometric tail.
_REL_TOL = 1 + 1e-9


def runs_to_significance(
    n_base: int, c_base: int, n_cand: int, c_cand: int, *, alpha: float = 0.05, limit: int = 10_000
) -> int | None:
    """Smallest number of extra candidate runs, continuing the candidate's outcome, to reach p ≤ α.

    For a task that passed every base run and failed every candidate run (or
    the reverse), adds m candidate runs with the candidate's outcome and
    returns the smallest m for which Fisher's exact one-sided test in that
    direction reaches ``alpha``; ``None`` if not reached within ``limit``.

    Examples
    --------
    >>> runs_to_significance(2, 2, 2, 0)   # 2/2 vs 0/2: p = 1/6; 2/2 vs 0/5: p = 1/21
    3
    """
    m = np.arange(limit + 1)
    regress = c_base / max(n_base, 1) >= c_cand / max(n_cand, 1)
    nc = n_cand + m
    if regress:
        p = stats.hypergeom.sf(c_base - 1, n_base + nc, c_base + c_cand, n_base)
    else:
        p = stats.hypergeom.cdf(c_base, n_base + nc, c_base + c_cand + m, n_base)
    hit = np.flatnonzero(p <= alpha * _REL_TOL)
    return int(hit[0]) if len(hit) else None


def fisher_tails(
    nb: ArrayLike, cb: ArrayLike, nc: ArrayLike, cc: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """One-sided Fisher p-values per task, and the smallest ones the margins allow.

    X, the base's successes given both builds' totals, is hypergeometric; the
    regression p-value is P(X ≥ c_base), the fix p-value P(X ≤ c_base). Their
    floors ``p_min`` put every success in the base (or in the candidate): a task
    whose floor exceeds the corrected level can never be flagged (Tarone).
    Vectorised over tasks.

    Returns
    -------
    p_regression, p_fixed, p_min_regression, p_min_fixed : ndarray

    Examples
    --------
    >>> [round(float(x[0]), 4) for x in fisher_tails([5], [5], [5], [0])]
    [0.004, 1.0, 0.004, 0.004]
    """
    nb_, cb_, nc_, cc_ = (np.asarray(x, dtype=np.int64) for x in (nb, cb, nc, cc))
    M = nb_ + nc_
    K = cb_ + cc_
    top = np.minimum(K, nb_)
    bottom = np.maximum(0, K - nc_)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_reg = np.where(M > 0, stats.hypergeom.sf(cb_ - 1, M, K, nb_), 1.0)
        p_fix = np.where(M > 0, stats.hypergeom.cdf(cb_, M, K, nb_), 1.0)
        min_reg = np.where(M > 0, stats.hypergeom.sf(top - 1, M, K, nb_), 1.0)
        min_fix = np.where(M > 0, stats.hypergeom.cdf(bottom, M, K, nb_), 1.0)
    return tuple(  # type: ignore[return-value]
        np.clip(np.nan_to_num(x, nan=1.0), 0.0, 1.0) for x in (p_reg, p_fix, min_reg, min_fix)
    )


def _fingerprints(data: Trials | xr.Dataset, system: str, tasks: list[str]) -> list[Any] | None:
    """One system's scenario fingerprint per task, from its own runs (None: not from trials).

    A count table keeps one fingerprint per task for all its systems, so two builds in one
    file would look alike whatever their hashes. A task whose runs carry several fingerprints
    within the build gets them all joined, so it differs from either one.

    Examples
    --------
    >>> import pandas as pd, passhat as ph
    >>> t = ph.Trials.from_frame(pd.DataFrame({"system": ["a", "b", "b"], "task_id": "x",
    ...     "trial": [0, 0, 1], "success": 1, "scenario_hash": ["h1", "h2", "h3"]}))
    >>> _fingerprints(t, "a", ["x"]), _fingerprints(t, "b", ["x"])
    (['h1'], ['h2|h3'])
    """
    if not isinstance(data, Trials) or "scenario_hash" not in data.frame.columns:
        return None
    f = data.frame
    if f["system"].nunique() > 1:
        f = f[f["system"] == system]
    per = (
        f.dropna(subset=["scenario_hash"])
        .groupby("task_id", sort=False)["scenario_hash"]
        .agg(lambda x: "|".join(sorted(map(str, pd.unique(x)))))
    )
    return [per.get(t) for t in tasks]


def _coord(ds: xr.Dataset, name: str, default: list[Any]) -> list[Any]:
    """A task coordinate's values as a list, or ``default`` when the table has none."""
    return list(ds.coords[name].values) if name in ds.coords else default


def classify(
    base: Trials | xr.Dataset | Sequence[Trials | xr.Dataset],
    cand: Trials | xr.Dataset | None = None,
    *,
    alpha: float = 0.05,
    min_runs: int = 3,
    multiplicity: str = "holm",
    base_system: str | None = None,
    cand_system: str | None = None,
    names: tuple[str, str] | None = None,
) -> Classification:
    """Sort each task into stable_pass, stable_fail, regression, fixed, flaky, redefined, undecided.

    Parameters
    ----------
    base, cand : Trials or count table
        The baseline and candidate run sets of the same scenarios (one system
        each), or ``base`` alone holding two systems (the first, or
        ``base_system``, is the baseline). The rule is
        :func:`passhat.compare.select_systems`'.
    alpha : float
        The error rate to control: with ``multiplicity="holm"`` the chance of
        flagging any unchanged task as ``regression`` (and, separately, as
        ``fixed``); with ``"bh"`` the expected share of false flags among the
        flags; with ``"none"`` each task's own level.
    min_runs : int
        Fewer decided runs than this in a build leaves the task undecided (a
        whole number ≥ 1, the rule of :func:`passhat._validate.check_min_runs`).
    multiplicity : "holm", "bh" or "none"
        The correction across tasks (see :mod:`passhat.compare.multiplicity`;
        Tarone's screen first drops tasks whose margins cannot reach it).
        Default "holm": a CI gate on ``regression`` then blocks an unchanged
        build with probability ≤ ``alpha``.
    base_system, cand_system : str, optional
        Which system to use when a run set holds several.
    names : (str, str), optional
        Labels of the two builds when ``base`` and ``cand`` hold one system
        each (e.g. their file names); two builds whose systems share a name
        are otherwise labelled "NAME (A)" and "NAME (B)".

    Returns
    -------
    Classification

    References
    ----------
    .. [1] Fisher, R. A. (1935). *The Design of Experiments*. Oliver & Boyd
       (the exact test of a 2×2 table, conditional on its margins).
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure",
       *Scand. J. Statist.* 6(2), 65–70 (1979); R. E. Tarone, "A modified
       Bonferroni method for discrete data", *Biometrics* 46(2), 515–522 (1990).

    Examples
    --------
    >>> import passhat as ph
    >>> base = ph.counts_from_arrays([2, 4], [2, 2], tasks=["a", "b"])
    >>> cand = ph.counts_from_arrays([2, 4], [0, 2], tasks=["a", "b"])
    >>> r = ph.classify(base, cand, min_runs=2)
    >>> r.table[["task", "verdict", "more_runs_cand"]].values.tolist()
    [['a', 'undecided', 3], ['b', 'flaky', 0]]
    """
    if isinstance(alpha, bool | str | bytes) or not (0 < alpha < 1):  # NaN fails the test too
        raise OptionError(f"{{param}} must be in (0, 1) (got {alpha!r})", param="alpha")
    runs = check_min_runs(min_runs, optional=False)
    multiplicity = check_method(multiplicity, MULTIPLICITY, "multiplicity")
    if not isinstance(base, Trials | xr.Dataset) and cand is None and 1 <= len(base) <= 2:
        items = list(base)  # one or two inputs in a list: as given apart
        base, cand = items[0], (items[1] if len(items) == 2 else None)
    sel = select_systems(
        base,
        cand,
        baseline=base_system,
        candidate=cand_system,
        names=names,
        one_candidate=True,
        keywords=("base_system", "cand_system"),
    )
    builds = _builds(sel)
    whole = as_input(base)  # several inputs: as one, their systems named as sel names them
    found = _fingerprints_differ(whole, whole if cand is None else cand, sel, builds)
    tests = _tests(builds, found[0], runs, alpha=alpha, multiplicity=multiplicity)
    table = _table(builds, tests, runs, alpha=alpha)
    correction, rate_name = CORRECTIONS[multiplicity]
    n_reg, n_fix = int(tests.testable_reg.sum()), int(tests.testable_fix.sum())
    table["note"] = task_notes(
        table,
        half=found[1] & ~found[0],
        alpha=alpha,
        min_runs=runs,
        correction=correction,
        testable=(n_reg, n_fix),
    )
    settings = {
        "alpha": alpha,
        "min_runs": runs,
        "multiplicity": multiplicity,
        "correction": correction,
        "error_rate": rate_name,
        "testable_regression": n_reg,
        "testable_fixed": n_fix,
        "guarantee": guarantee_text(multiplicity, alpha, n_reg),
        "test": "Fisher's exact test, one-sided (hypergeometric), per task",
        "base": sel.baseline,
        "cand": sel.candidates[0],
    }
    return Classification(table=table, excluded=builds.excluded, settings=settings)


@dataclass(frozen=True)
class _Builds:
    """The two builds on the tasks both ran: per task decided runs, successes, unscored."""

    common: list[str]
    excluded: pd.DataFrame
    base: xr.Dataset
    cand: xr.Dataset

    def counts(self) -> tuple[NDArray[np.int64], ...]:
        """n_base, c_base, n_cand, c_cand per common task."""
        return tuple(
            np.asarray(ds[v].values, dtype=np.int64)
            for ds in (self.base, self.cand)
            for v in ("n", "c")
        )


def _builds(sel: Selection) -> _Builds:
    """The tasks both builds ran (in the base's order); those in one build only listed."""
    b = sel.table(sel.baseline)
    c = sel.table(sel.candidates[0])
    b_tasks = [str(t) for t in b["task"].values]
    c_tasks = [str(t) for t in c["task"].values]
    b_present = dict(zip(b_tasks, np.asarray(b["present"].values[0], bool), strict=True))
    c_present = dict(zip(c_tasks, np.asarray(c["present"].values[0], bool), strict=True))
    in_b = {t for t, p in b_present.items() if p}
    in_c = {t for t, p in c_present.items() if p}
    common = [t for t in b_tasks if t in in_b and t in in_c]
    excluded = pd.DataFrame(
        [
            {"task": t, "reason": "only in base (no candidate run)"}
            for t in b_tasks
            if t in in_b and t not in in_c
        ]
        + [
            {"task": t, "reason": "only in candidate (no base run)"}
            for t in c_tasks
            if t in in_c and t not in in_b
        ],
        columns=["task", "reason"],
    )
    if not common:
        raise OptionError(
            "base and candidate have no task in common; nothing to compare "
            f"(base {len(in_b)} tasks, candidate {len(in_c)} tasks)"
        )
    return _Builds(
        common, excluded, b.isel(system=0).sel(task=common), c.isel(system=0).sel(task=common)
    )


def _fingerprints_differ(
    base: Trials | xr.Dataset, cand: Trials | xr.Dataset, sel: Selection, builds: _Builds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per common task: whether its scenario fingerprint differs between the builds
    (``redefined``), and whether only one build has one."""
    common = builds.common
    fb = _fingerprints(base, sel.baseline, common)
    fc = _fingerprints(cand, sel.candidates[0], common)
    none: list[Any] = [None] * len(common)
    hb: list[Any] = fb if fb is not None else _coord(builds.base, "scenario_hash", none)
    hc: list[Any] = fc if fc is not None else _coord(builds.cand, "scenario_hash", none)
    has_b = np.array([h is not None and h == h for h in hb])
    has_c = np.array([h is not None and h == h for h in hc])
    redefined = has_b & has_c & np.array([str(x) != str(y) for x, y in zip(hb, hc, strict=True)])
    return redefined, has_b ^ has_c


@dataclass(frozen=True)
class _Tests:
    """Per task: Fisher's p-values, adjusted ones, the verdict and the tasks each correction
    ran over."""

    p_reg: NDArray[np.float64]
    p_fix: NDArray[np.float64]
    adj_reg: NDArray[np.float64]
    adj_fix: NDArray[np.float64]
    testable_reg: NDArray[np.bool_]
    testable_fix: NDArray[np.bool_]
    verdict: NDArray[np.str_]


def _tests(
    builds: _Builds,
    redefined: NDArray[np.bool_],
    min_runs: int,
    *,
    alpha: float,
    multiplicity: str,
) -> _Tests:
    """Fisher's one-sided tests per task, corrected across the tasks that can be tested
    (not redefined, enough runs in both builds), and the verdict they give (in the order of
    the module docstring)."""
    nb, cb, nc, cc = builds.counts()
    p_reg, p_fix, min_reg, min_fix = fisher_tails(nb, cb, nc, cc)
    short = (nb < min_runs) | (nc < min_runs)
    family = ~redefined & ~short
    adj_reg, test_reg = adjust(p_reg, min_reg, alpha=alpha, method=multiplicity, within=family)
    adj_fix, test_fix = adjust(p_fix, min_fix, alpha=alpha, method=multiplicity, within=family)
    raw_reg = (p_reg <= alpha * _REL_TOL) & (cb * nc > cc * nb)
    raw_fix = (p_fix <= alpha * _REL_TOL) & (cb * nc < cc * nb)
    reg = raw_reg & (adj_reg <= alpha * _REL_TOL)
    fix = raw_fix & (adj_fix <= alpha * _REL_TOL)
    all_pass = (cb == nb) & (cc == nc)
    all_fail = (cb == 0) & (cc == 0)
    mixed = ((cb > 0) & (cb < nb)) | ((cc > 0) & (cc < nc))
    verdict = np.select(
        [redefined, short, reg, fix, raw_reg, raw_fix, all_pass, all_fail, mixed],
        [
            "redefined",
            "undecided",
            "regression",
            "fixed",
            "possible_regression",
            "possible_fix",
            "stable_pass",
            "stable_fail",
            "flaky",
        ],
        default="undecided",
    )
    return _Tests(p_reg, p_fix, adj_reg, adj_fix, test_reg, test_fix, verdict)


def _more_runs(
    tests: _Tests, counts: tuple[NDArray[np.int64], ...], min_runs: int, alpha: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per undecided task the base and candidate runs it needs: up to ``min_runs`` in each
    build, or the candidate runs that would make its own test significant (-1: none)."""
    nb, cb, nc, cc = counts
    more_b = np.zeros(nb.size, dtype=np.int64)
    more_c = np.zeros(nb.size, dtype=np.int64)
    for i in np.flatnonzero(tests.verdict == "undecided"):  # the few undecided tasks
        if nb[i] < min_runs or nc[i] < min_runs:
            more_b[i] = max(0, min_runs - nb[i])
            more_c[i] = max(0, min_runs - nc[i])
            continue
        m = runs_to_significance(int(nb[i]), int(cb[i]), int(nc[i]), int(cc[i]), alpha=alpha)
        more_c[i] = m if m is not None else -1
    return more_b, more_c


def _table(builds: _Builds, tests: _Tests, min_runs: int, *, alpha: float) -> pd.DataFrame:
    """The verdict table (without the notes): one row per common task."""
    counts = builds.counts()
    more_b, more_c = _more_runs(tests, counts, min_runs, alpha)
    nb, cb, nc, cc = counts
    return pd.DataFrame(
        {
            "task": builds.common,
            "verdict": tests.verdict,
            "n_base": nb,
            "c_base": cb,
            "n_cand": nc,
            "c_cand": cc,
            "unscored_base": builds.base["unscored"].values.astype(np.int64),
            "unscored_cand": builds.cand["unscored"].values.astype(np.int64),
            "p_regression": tests.p_reg,
            "p_fixed": tests.p_fix,
            "p_regression_adj": tests.adj_reg,
            "p_fixed_adj": tests.adj_fix,
            "more_runs_base": more_b,
            "more_runs_cand": more_c,
        }
    )
