"""Cost in the paired comparison: what each system pays per success and per all-k-pass on the
matched tasks, and the candidate's difference and ratio to the baseline.

Per system over the tasks both ran (equal weights, or task weights shared by both systems:
then every mean over tasks below is the weighted mean): the cost per run c̄ = mean over tasks of
each task's cost per run (the mean cost of its runs that carry one, every status counted: an
unscored run was paid for too); cost per success = c̄ / mean success; cost per all-k-pass =
k·c̄ / pass^k; pass^k per unit cost = pass^k / (k·c̄) — the definitions of
:class:`passhat.cost_result.CostEstimate`. The candidate is compared with the baseline by the
difference (candidate − baseline) and the ratio (candidate / baseline) of each.

Their intervals are population-scope (tasks like these): from
:data:`~passhat.compare.cost_result.FEW_TASKS` (100) units up a percentile bootstrap over the
matched tasks that draws each task with both systems' values, so the pairing is kept (with a
cluster coordinate, whole clusters are the units and are drawn whole); below, where that
bootstrap is too narrow, the symmetric bootstrap-t on the leave-one-unit-out jackknife
standard error (:mod:`passhat.compare.cost_small`; ratios on the log scale). Each row's
``interval`` names the rule. Resamples where a value is undefined (both systems with no
all-k-pass: ∞ − ∞, or 0 / 0) are counted; any such resample makes that interval unbounded
rather than silently dropped. There is no benchmark-scope interval: the
costs' run-to-run spread is not modelled.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "task_id": list("xxyy") * 2,
...                    "trial": [1, 2] * 4, "success": [1, 0, 1, 1, 1, 1, 1, 1],
...                    "cost": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0]})
>>> r = ph.compare_cost(ph.Trials.from_frame(df), k=1, n_boot=200)
>>> row = r.table.set_index("metric").loc["cost_per_success"]
>>> float(row["base_value"]), float(row["cand_value"]), float(row["ratio"])
(2.0, 3.0, 1.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_flag,
    check_n_boot,
    named_rng,
    norm_k,
    resolve_seed,
)
from passhat.clusters import cluster_codes, cluster_notes, clusters_of
from passhat.compare.cost_ratios import compare_values, metric_values
from passhat.compare.cost_result import FEW_TASKS, CostComparison, CostSettings, interval_rule
from passhat.compare.cost_small import pair_bootstrap_t
from passhat.compare.paired import _matched_tasks, _pair_weights, _refuse_short, _sources
from passhat.compare.scores import score_trials
from passhat.compare.selection import Selection, select_systems
from passhat.cost_of import COLUMN, CostOf, check_cost_of, missing_column
from passhat.errors import OptionError, ValidationError
from passhat.estimators import WeightSpec, mean_success, pass_hat_k
from passhat.exclusions import WEIGHT_ZERO, default_ks
from passhat.trials import Trials

__all__ = ["COST_METRICS", "RunCosts", "compare_cost", "pair_bootstrap", "run_costs"]

#: The metrics compared, in order (cost per run and per success do not depend on k).
COST_METRICS = ("cost_per_run", "cost_per_success", "cost_per_all_k_pass", "pass_hat_k_per_cost")

#: Most resampled cluster counts held at once (resamples × clusters) in the bootstrap.
_CHUNK = 4_000_000


@dataclass(frozen=True, eq=False)
class RunCosts:
    """Per (system, task) cell of a count table: the total of its runs' costs, its runs with a
    cost, and its runs without one (every status counted)."""

    total: NDArray[np.float64]
    costed: NDArray[np.int64]
    missing: NDArray[np.int64]

    def per_run(self) -> NDArray[np.float64]:
        """Each cell's mean cost per run over its runs with a cost (NaN where none has one)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.costed > 0, self.total / np.maximum(self.costed, 1), np.nan)


def run_costs(trials: Trials, ds: xr.Dataset, *, cost_of: str = "cost") -> RunCosts:
    """The cost sums per cell of ``ds`` from ``trials``' cost column (``duration_s`` with
    ``cost_of="duration"``); a negative value is an error naming the file, the task, the
    system and the trial (a missing one is counted).

    Examples
    --------
    >>> import pandas as pd
    >>> import passhat as ph
    >>> df = pd.DataFrame({"task_id": ["x", "x", "y"], "success": [1, 0, 1],
    ...                    "cost": [1.0, None, 4.0]})
    >>> t = ph.Trials.from_frame(df)
    >>> rc = run_costs(t, t.counts())
    >>> rc.per_run().tolist(), rc.missing.tolist()
    ([[1.0, 4.0]], [[1, 0]])
    """
    df = trials.frame
    where = f"{trials.source['path']}: " if "path" in trials.source else ""
    column = COLUMN[cost_of]
    if column not in df.columns:
        if cost_of == "duration":
            raise OptionError(missing_column("duration", where))
        raise OptionError(
            where + "{param} needs a cost column (a cost per run); the runs have none",
            param="cost",
        )
    x = pd.to_numeric(df[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    tasks = pd.Index(ds["task"].values)
    s_idx = pd.Index(ds["system"].values).get_indexer(df["system"])
    t_idx = tasks.get_indexer(df["task_id"])
    keep = (s_idx >= 0) & (t_idx >= 0)
    bad = np.flatnonzero(keep & (x < 0))
    if bad.size:
        row = df.iloc[int(bad[0])]
        raise ValidationError(
            f"{where}task {row['task_id']!r} (system {row['system']!r}), trial {row['trial']}: "
            f"{column} {x[bad[0]]:g} is negative ({bad.size} negative {column}(s) in all); "
            f"a {column} must be a number ≥ 0"
        )
    cell = (s_idx * len(tasks) + t_idx)[keep]
    xs = x[keep]
    gone = np.isnan(xs)
    size, shape = ds["n"].size, ds["n"].shape
    return RunCosts(
        total=np.bincount(cell, weights=np.where(gone, 0.0, xs), minlength=size)
        .astype(np.float64)
        .reshape(shape),
        costed=np.bincount(cell[~gone], minlength=size).astype(np.int64).reshape(shape),
        missing=np.bincount(cell[gone], minlength=size).astype(np.int64).reshape(shape),
    )


_ratios = metric_values
_compare = compare_values


def pair_bootstrap(
    base: NDArray[np.float64],
    cand: NDArray[np.float64],
    groups: NDArray[np.int64],
    ks: Sequence[int],
    *,
    n_boot: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Resampled differences and ratios of the cost metrics: ``n_boot`` × metrics × 2.

    ``base`` and ``cand`` are tasks × (1, cost per run, mean success, pass^k per k); each
    resample draws ``groups``' clusters (0, 1, …; each task its own for a task bootstrap)
    with replacement and sums both systems' rows of the drawn clusters' tasks, so each task
    keeps both systems' values (the pairing).

    Examples
    --------
    >>> x = np.array([[1.0, 1.0, 0.5, 0.5], [1.0, 2.0, 1.0, 1.0]])
    >>> out = pair_bootstrap(x, x, np.array([0, 1]), [1], n_boot=50,
    ...                      rng=np.random.default_rng(0))
    >>> out.shape, bool(np.all(out[..., 0] == 0)), bool(np.all(out[..., 1] == 1))
    ((50, 4, 2), True, True)
    """
    g = int(groups.max()) + 1
    per = np.zeros((g, 2 * base.shape[1]))
    np.add.at(per, groups, np.hstack([base, cand]))
    q = base.shape[1]
    out = np.empty((n_boot, 2 + 2 * len(ks), 2))
    step = max(1, _CHUNK // g)
    for start in range(0, n_boot, step):
        m = min(step, n_boot - start)
        idx = rng.integers(0, g, size=(m, g))
        draws = np.bincount((np.arange(m)[:, None] * g + idx).ravel(), minlength=m * g)
        sums = draws.reshape(m, g).astype(float) @ per
        out[start : start + m] = _compare(_ratios(sums[:, :q], ks), _ratios(sums[:, q:], ks))
    return out


def _percentile(draws: NDArray[np.float64], ci: float) -> tuple[NDArray, NDArray, NDArray]:
    """Percentile ends of each column of ``draws`` (resamples first) without interpolation
    (an end may be ±∞), and how many resamples were undefined (NaN): such a column's
    interval is unbounded."""
    undefined = np.isnan(draws).sum(axis=0)
    filled = np.where(np.isnan(draws), 0.0, draws)
    lo = np.quantile(filled, (1 - ci) / 2, axis=0, method="inverted_cdf")
    hi = np.quantile(filled, (1 + ci) / 2, axis=0, method="inverted_cdf")
    lo = np.where(undefined > 0, -np.inf, lo)
    hi = np.where(undefined > 0, np.inf, hi)
    return lo, hi, undefined


def _task_rows(
    n: NDArray[np.float64], c: NDArray[np.float64], cpr: NDArray[np.float64], ks: Sequence[int]
) -> NDArray[np.float64]:
    """Tasks × (1, cost per run, mean success, pass^k for each k) of one system."""
    hats = [pass_hat_k(n, c, kv) for kv in ks]
    return np.column_stack([np.ones_like(cpr), cpr, mean_success(n, c), *hats])


@dataclass(frozen=True)
class _Options:
    ks: list[int]
    ci: float
    n_boot: int
    seed: int
    intersect: bool
    weights: WeightSpec = None
    cost_of: str = "cost"


def _pair_rows(
    sel: Selection, cand: str, costs: RunCosts, opts: _Options
) -> tuple[pd.DataFrame, list[dict[str, str]], int | None]:
    """One candidate against the baseline: its rows, the tasks left out, its clusters."""
    ds, base = sel.counts, sel.baseline
    systems = [str(s) for s in ds["system"].values]
    ib, ic = systems.index(base), systems.index(cand)
    tasks = np.asarray(ds["task"].values, dtype=object).astype(str)
    present = np.asarray(ds["present"].values, dtype=bool)
    both, unmatched = _matched_tasks(present[ib], present[ic], tasks, base, cand, opts.intersect)
    dropped = [{"baseline": base, "candidate": cand, "task": tasks[i],
                "reason": f"only {base if present[ib, i] else cand} ran it"}
               for i in np.flatnonzero(unmatched)]  # fmt: skip
    cpr = costs.per_run()
    no_cost = both & (np.isnan(cpr[ib]) | np.isnan(cpr[ic]))
    dropped += [{"baseline": base, "candidate": cand, "task": tasks[i],
                 "reason": f"no run with a {COLUMN[opts.cost_of]} for "
                 + " and ".join(s for s, j in ((base, ib), (cand, ic)) if np.isnan(cpr[j, i]))}
                for i in np.flatnonzero(no_cost)]  # fmt: skip
    n_all = np.asarray(ds["n"].values, dtype=float)
    undecided = both & ~no_cost & ((n_all[ib] == 0) | (n_all[ic] == 0))
    dropped += [{"baseline": base, "candidate": cand, "task": tasks[i],
                 "reason": "no decided run for "
                 + " and ".join(s for s, j in ((base, ib), (cand, ic)) if n_all[j, i] == 0)
                 + " (every run unscored)"}
                for i in np.flatnonzero(undecided)]  # fmt: skip
    keep = both & ~no_cost & ~undecided
    if not keep.any():
        raise ValidationError(
            f"systems {base!r} and {cand!r} have no matched task with a {COLUMN[opts.cost_of]} "
            "for both"
        )
    w = _pair_weights(sel, base, cand, tasks[keep], opts.weights)
    zero = np.flatnonzero(keep)[w <= 0]  # in no average: left out and listed
    dropped += [{"baseline": base, "candidate": cand, "task": tasks[i], "reason": WEIGHT_ZERO}
                for i in zero]  # fmt: skip
    keep[zero], w = False, w[w > 0]
    n = n_all[:, keep]
    c = np.asarray(ds["c"].values, dtype=float)[:, keep]
    _refuse_short(n[ib], n[ic], tasks[keep], max(opts.ks))
    # each task's row times its weight: every sum below is a weighted sum (equal: unchanged)
    xb = _task_rows(n[ib], c[ib], cpr[ib, keep], opts.ks) * w[:, None]
    xc = _task_rows(n[ic], c[ic], cpr[ic, keep], opts.ks) * w[:, None]
    labels = clusters_of(ds)
    groups = cluster_codes(labels[keep]) if labels is not None else np.arange(int(keep.sum()))
    n_groups = int(np.unique(groups).size)
    lo, hi, undefined = _intervals(xb, xc, groups, n_groups, (base, cand), opts)
    vb, vc = _ratios(xb.sum(axis=0), opts.ks), _ratios(xc.sum(axis=0), opts.ks)
    point = _compare(vb, vc)
    metric = [*COST_METRICS[:2], *[m for m in COST_METRICS[2:] for _ in opts.ks]]
    kcol = [pd.NA, pd.NA, *[kv for _ in COST_METRICS[2:] for kv in opts.ks]]
    rows = pd.DataFrame({
        "baseline": base, "candidate": cand, "metric": metric,
        "k": pd.array(kcol, dtype="Int64"), "base_value": vb, "cand_value": vc,
        "difference": point[:, 0], "difference_lower": lo[:, 0], "difference_upper": hi[:, 0],
        "ratio": point[:, 1], "ratio_lower": lo[:, 1], "ratio_upper": hi[:, 1],
        "difference_undefined": undefined[:, 0].astype(int),
        "ratio_undefined": undefined[:, 1].astype(int),
        "tasks": int(keep.sum()), "runs_without_cost": int(costs.missing[[ib, ic]][:, keep].sum()),
        "interval": interval_rule(n_groups, clustered=labels is not None),
    })  # fmt: skip
    return rows, dropped, n_groups if labels is not None else None


def _intervals(
    xb: NDArray[np.float64],
    xc: NDArray[np.float64],
    groups: NDArray[np.int64],
    n_groups: int,
    pair: tuple[str, str],
    opts: _Options,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The pair's interval ends (metrics × (difference, ratio)) and undefined counts: the
    percentile bootstrap from :data:`FEW_TASKS` units (tasks or clusters) up, the symmetric
    bootstrap-t on the jackknife SE below; no ends with one unit."""
    rng = named_rng(opts.seed, *pair, "cost")
    if n_groups < FEW_TASKS:
        lo, hi, undefined = pair_bootstrap_t(xb, xc, groups, opts.ks, ci=opts.ci,
                                             n_boot=opts.n_boot, rng=rng)  # fmt: skip
    else:
        boot = pair_bootstrap(xb, xc, groups, opts.ks, n_boot=opts.n_boot, rng=rng)
        lo, hi, undefined = _percentile(boot, opts.ci)
    lo[:, 1] = np.maximum(lo[:, 1], 0.0)  # a ratio of costs and rates is ≥ 0
    if n_groups < 2:  # one unit: nothing says how units differ
        lo, hi = np.full_like(lo, np.nan), np.full_like(hi, np.nan)
    return lo, hi, undefined


def _missing_table(sel: Selection, costs: RunCosts) -> pd.DataFrame:
    """Per system: its runs with a cost, its runs without one, its tasks with no cost."""
    ds = sel.counts
    present = np.asarray(ds["present"].values, dtype=bool)
    return pd.DataFrame({
        "system": [str(s) for s in ds["system"].values],
        "runs_with_cost": costs.costed.sum(axis=1),
        "runs_without_cost": costs.missing.sum(axis=1),
        "tasks_without_cost": (present & (costs.costed == 0)).sum(axis=1),
    })  # fmt: skip


def compare_cost(
    a: Trials | Sequence[Trials],
    b: Trials | None = None,
    *,
    k: int | Sequence[int] | None = None,
    ci: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
    intersect: bool = False,
    baseline: str | None = None,
    names: tuple[str, str] | None = None,
    weights: WeightSpec = None,
    cost_of: CostOf = "cost",
) -> CostComparison:
    """Paired comparison of what systems pay: cost per run, per success, per all-k-pass and
    pass^k per unit cost of each system on the matched tasks, with the candidate's
    difference and ratio to the baseline and their population-scope intervals.

    The systems are chosen as in :func:`passhat.compare` (``a``, ``b``, ``baseline``,
    ``names``, ``intersect``); the inputs are runs with a ``cost`` column. The construction
    is the module's: every status counts toward the cost (an unscored run was paid for),
    a run without a cost is counted and left out of its task's cost per run, a matched task
    with no costed run for a system is left out of the pair (listed in ``dropped``), and a
    negative cost is an error naming it. Intervals: a percentile bootstrap over the matched
    tasks (whole clusters with a cluster coordinate) drawing both systems' values of a task
    together, ``n_boot`` resamples from ``seed``; below 100 units (tasks or clusters) the
    symmetric bootstrap-t on the jackknife standard error (each row's ``interval`` says which).

    Parameters
    ----------
    a, b : Trials
        Runs, as :func:`passhat.compare`'s ``a`` and ``b`` (count tables hold no cost).
    k : int or sequence of int, optional
        The k of cost per all-k-pass and pass^k per unit cost (default: passhat's default k).
    ci, n_boot, seed
        Interval level, bootstrap resamples (≥ 100) and seed (None draws one, recorded).
    intersect, baseline, names
        As in :func:`passhat.compare`.
    weights : None, "equal", "declared", "category" or mapping
        Task weights shared by both systems, as in :func:`passhat.compare`: every average
        over tasks (cost per run, mean success, pass^k) is the weighted mean, in the values
        and in each resample (a drawn task brings its weight); tasks of weight 0 are left
        out and listed. Equal weights give the unweighted result exactly.
    cost_of : {"cost", "duration"}
        What is compared: the runs' ``cost`` column (default) or their ``duration_s``
        column (seconds: duration per run, per success, per all-k-pass, pass^k per second),
        computed the same way; ``settings.cost_of`` records it.

    Returns
    -------
    CostComparison
        ``table``: one row per (candidate, metric, k) with both systems' values, the
        difference and the ratio with their intervals; ``missing``: runs without a cost per
        system; ``dropped``: the tasks left out of each pair and why.

    Examples
    --------
    >>> import passhat as ph
    >>> r = ph.compare_cost(ph.load_example("agents"), k=2, n_boot=200)
    >>> r.table["metric"].tolist()
    ['cost_per_run', 'cost_per_success', 'cost_per_all_k_pass', 'pass_hat_k_per_cost']
    """
    level, nb = check_ci(ci), check_n_boot(n_boot)
    check_flag(intersect, "intersect")
    of = check_cost_of(cost_of)
    sel = select_systems(a, b, baseline=baseline, names=names)
    ks = default_ks(sel.counts) if k is None else norm_k(k)
    inputs: list[Trials | xr.Dataset] = [a] if isinstance(a, Trials | xr.Dataset) else list(a)
    inputs += [b] if b is not None else []
    trials = score_trials(inputs, [str(s) for s in sel.counts["system"].values], param="cost",
                          need=f"a {COLUMN[of]}")  # fmt: skip
    costs = run_costs(trials, sel.counts, cost_of=of)
    opts = _Options(ks=ks, ci=level, n_boot=nb, seed=resolve_seed(seed), intersect=intersect,
                    weights=weights, cost_of=of)  # fmt: skip
    parts = [_pair_rows(sel, cand, costs, opts) for cand in sel.candidates]
    clusters = {
        f"{sel.baseline} vs {c}": p[2]
        for c, p in zip(sel.candidates, parts, strict=True)
        if p[2] is not None
    }
    return CostComparison(
        table=pd.concat([p[0] for p in parts], ignore_index=True),
        missing=_missing_table(sel, costs),
        dropped=pd.DataFrame([r for p in parts for r in p[1]],
                             columns=["baseline", "candidate", "task", "reason"]),
        settings=CostSettings(ks=tuple(ks), ci=level, n_boot=nb, seed=opts.seed,
                              baseline=sel.baseline, intersect=intersect, clusters=clusters,
                              weights=_label(weights), cost_of=of),
        notes=tuple(sel.notes) + _cost_cluster_notes(clusters, of),
        source=_sources(a, b),
    )  # fmt: skip


def _label(weights: WeightSpec) -> str:
    """The task weights as the settings record them (equal, declared, category, mapping)."""
    if weights is None:
        return "equal"
    return weights if isinstance(weights, str) else "mapping"


#: How the cost (or duration) intervals use clusters (the notes' words).
_CLUSTER_HOW = (
    "the {of} intervals resample clusters, each with all its tasks (percentile cluster "
    f"bootstrap from {FEW_TASKS} clusters up; below, the symmetric bootstrap-t on the "
    "leave-one-cluster-out jackknife standard error)"
)


def _cost_cluster_notes(clusters: dict[str, int], of: str = "cost") -> tuple[str, ...]:
    """The clusters' notes without the generic warning that the cluster bootstrap may be too
    narrow below 20 clusters: below :data:`FEW_TASKS` clusters the cost intervals are the
    bootstrap-t, and :meth:`CostComparison.all_notes` says where that may still fall short."""
    notes = cluster_notes(clusters, ci=True, how=_CLUSTER_HOW.format(of=of))
    return tuple(n for n in notes if not (n.startswith("only ") and "may be too narrow" in n))
