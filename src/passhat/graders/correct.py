"""Mean, pass@k and pass^k corrected for a noisy grader, with intervals in both scopes.

:func:`correct` takes runs (or a count table) whose pass/fail labels came from a grader of
known error (stated sensitivity and specificity, audit counts, or an audit column of true
labels), and returns :class:`~passhat.graders.result.GraderCorrection`. The method is a
measurement-error correction (:mod:`passhat.graders.estimators`: unbiased per task for known
se and sp) whose intervals draw se and sp from their Beta posteriors jointly with the task or
run bootstrap (:mod:`passhat.graders.draws`). With an audit column, the audited runs give the
counts TP, FN, TN, FP and every run's grader label enters the estimate; the audited runs' true
labels are not substituted for their grader labels (a prediction-powered estimator would; this
loses a little precision, not validity).

It assumes non-differential error: the grader errs with the same probabilities on every task,
independently of its other labels, and the audited runs are a random sample of runs.

Examples
--------
>>> import passhat as ph
>>> r = ph.correct_grader(ph.load_example("abcd"), sensitivity=1.0, specificity=1.0, k=2)
>>> round(r.value("pass_hat_k", 2), 12) == round(ph.estimate(ph.load_example("abcd"), k=2)
...     .value("pass_hat_k", 2), 12)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._validate import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    check_ci,
    check_n_boot,
    named_rng,
    norm_k,
    resolve_seed,
)
from passhat.clusters import cluster_codes, clusters_of
from passhat.errors import OptionError
from passhat.estimators import WeightSpec, as_counts, task_weights
from passhat.exclusions import WEIGHT_ZERO, default_ks
from passhat.graders.draws import (
    Draws,
    benchmark_draws,
    population_draws,
    values_from_powers,
    weighted_mean,
)
from passhat.graders.estimators import observed_powers
from passhat.graders.result import METHODS, GraderCorrection, population_method
from passhat.graders.spec import GraderSpec, audit_from_labels
from passhat.trials import Trials, coerce_success, provenance

__all__ = [
    "correct",
    "correct_grader",
    "correct_with",
    "grader_spec",
    "kept_cells",
    "system_rows",
]

METRICS = ("mean", "pass_at_k", "pass_hat_k")


def grader_spec(
    data: Trials | xr.Dataset,
    *,
    sensitivity: float | None = None,
    specificity: float | None = None,
    audit: Sequence[int] | None = None,
    truth: str | None = None,
    keep: AbstractSet[tuple[str, str]] | None = None,
) -> tuple[GraderSpec, tuple[str, ...]]:
    """The grader's error from exactly one of: sensitivity with specificity, audit counts
    (TP, FN, TN, FP), or the name of a column of true labels; and notes on the audit.

    With ``truth``, ``keep`` (the (system, task) pairs the estimate averages,
    :func:`kept_cells`) restricts the audit to the runs of those tasks: the audit is of the
    runs the correction applies to, and a note counts the audited runs left out."""
    given = [name for name, v in (("sensitivity", sensitivity), ("specificity", specificity),
             ("audit", audit), ("truth", truth)) if v is not None]  # fmt: skip
    if not given:
        raise OptionError(
            "give the grader's error: {param} with specificity, audit counts, or a truth column",
            param="sensitivity",
        )
    rates = {"sensitivity", "specificity"} & set(given)
    if rates and len(rates) == 1:
        other = ({"sensitivity", "specificity"} - rates).pop()
        raise OptionError(f"{{param}} needs {{{other}}} too", param=rates.pop(), also=(other,))
    sources = [g for g in given if g != "specificity"]
    if len(sources) > 1:
        first, second = sources[:2]
        raise OptionError(
            f"give one source of the grader's error: {{param}} or {{{second}}}, not both",
            param=first,
            also=(second,),
        )
    if audit is not None:
        return GraderSpec.from_audit(audit), ()
    if truth is not None:
        return _audit_column(data, truth, keep=keep)
    return GraderSpec.from_rates(sensitivity=sensitivity, specificity=specificity), ()


def _audit_column(
    data: Trials | xr.Dataset, column: str, *, keep: AbstractSet[tuple[str, str]] | None = None
) -> tuple[GraderSpec, tuple[str, ...]]:
    """Audit counts from the runs whose column ``column`` holds their true label (only the
    runs of the (system, task) pairs in ``keep`` when given)."""
    if not isinstance(data, Trials):
        raise OptionError(
            "{param} needs runs (a file of runs), not a count table: the true labels are per run",
            param="truth",
        )
    df = data.frame
    if column not in df.columns:
        raise OptionError(
            f"{{param}}: no column {column!r} in the input; its columns: "
            f"{', '.join(map(str, df.columns))}",
            param="truth",
        )
    where = str(data.source.get("path", "the input")) + f", column {column!r}"
    true = coerce_success(df[column], where=where)
    audited = true.notna().to_numpy()
    decided = df["success"].notna().to_numpy()
    kept = _kept_rows(df, keep)
    use = audited & decided & kept
    if not use.any():
        raise OptionError(
            f"{{param}}: column {column!r} holds no true label of a decided run"
            + ("" if keep is None else " of the tasks the estimate averages"),
            param="truth",
        )
    counts = audit_from_labels(
        df["success"].to_numpy()[use].astype(bool), true.to_numpy()[use].astype(bool), where=where
    )
    notes = [f"audit: {int(use.sum())} run(s) with a true label in column {column!r}"]
    if (audited & ~decided & kept).any():
        notes.append(
            f"{int((audited & ~decided & kept).sum())} audited run(s) have no grader label "
            "(unscored) and are not counted in the audit"
        )
    if (audited & ~kept).any():
        notes.append(
            f"{int((audited & ~kept).sum())} audited run(s) of tasks the estimate leaves out "
            "(excluded, weight 0 or not matched) are not counted in the audit: it is of the "
            "runs the correction applies to"
        )
    spec = GraderSpec.from_audit(counts, source=f"audit column {column!r}")
    return spec, tuple(notes)


def _kept_rows(df: pd.DataFrame, keep: AbstractSet[tuple[str, str]] | None) -> NDArray[np.bool_]:
    """Which runs belong to a (system, task) pair of ``keep`` (every run without ``keep``)."""
    if keep is None:
        return np.ones(len(df), dtype=bool)
    if not keep:
        return np.zeros(len(df), dtype=bool)
    pairs = pd.MultiIndex.from_arrays([df["system"].astype(str), df["task_id"].astype(str)])
    return np.asarray(pairs.isin(list(keep)), dtype=bool)


def kept_cells(ds: xr.Dataset, weights: WeightSpec = None) -> frozenset[tuple[str, str]]:
    """The (system, task) pairs a correction of ``ds`` averages (present, a decided run,
    weight > 0): the runs a ``truth`` column's audit is counted on (:func:`grader_spec`).

    Examples
    --------
    >>> import passhat as ph
    >>> sorted(kept_cells(ph.load_example("abcd").counts(), {"A": 1, "B": 0, "C": 1, "D": 1}))
    [('seed-example', 'A'), ('seed-example', 'C'), ('seed-example', 'D')]
    """
    cells, _ = _cells(ds, weights)
    return frozenset(zip(map(str, cells["system"]), map(str, cells["task"]), strict=True))


#: Why a task without a decided run is left out.
NO_RUN = "no decided run (every run unscored)"


def _cells(ds: xr.Dataset, weights: WeightSpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Included (system, task, n, c, weight[, cluster]) cells and the excluded ones (no decided
    run, weight 0)."""
    n = ds["n"].to_pandas().stack()
    c = ds["c"].to_pandas().stack()
    w = task_weights(ds, weights).to_pandas().stack()
    present = ds["present"].to_pandas().stack().astype(bool)
    cells = pd.DataFrame({"n": n, "c": c, "weight": w})[present.to_numpy()]
    cells.index.names = ["system", "task"]
    cells = cells.reset_index()
    groups = clusters_of(ds)
    if groups is not None:
        where = pd.Series(groups, index=ds["task"].values, dtype=object)
        cells["cluster"] = where.loc[cells["task"].to_numpy()].to_numpy()
    none = cells["n"].to_numpy() == 0
    zero = ~none & (cells["weight"].to_numpy() <= 0)
    excluded = pd.concat(
        [
            cells.loc[none, ["system", "task"]].assign(reason=NO_RUN),
            cells.loc[zero, ["system", "task"]].assign(reason=WEIGHT_ZERO),
        ]
    )
    kept = cells.loc[~none & ~zero].reset_index(drop=True)
    if empty := sorted(set(map(str, cells["system"])) - set(map(str, kept["system"]))):
        raise OptionError(
            f"no task of system(s) {', '.join(map(repr, empty))} is left to average: every task "
            "has weight 0 or no decided run; check {param}",
            param="weights",
        )
    return kept, excluded.reset_index(drop=True)


def _system_arrays(
    part: pd.DataFrame,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None,
           NDArray[np.int64] | None]:  # fmt: skip
    """One system's n, c, weights (None when all equal; else scaled to a largest of 1, so
    equal weights give the unweighted numbers exactly) and cluster codes (None: no clusters)."""
    w = part["weight"].to_numpy(dtype=float)
    scaled = None if np.ptp(w) == 0 else w / w.max()
    codes = cluster_codes(part["cluster"].to_numpy(dtype=object)) if "cluster" in part else None
    return part["n"].to_numpy(dtype=float), part["c"].to_numpy(dtype=float), scaled, codes


def _check_k(cells: pd.DataFrame, ks: list[int]) -> None:
    """k ≤ n for every task (the unbiased correction needs k runs)."""
    short = cells[cells["n"] < max(ks)]
    if len(short):
        shown = ", ".join(f"{r.task} ({r.system}, n = {r.n})" for r in short.head(5).itertuples())
        raise OptionError(
            f"{{param}} = {max(ks)} exceeds the decided runs of {len(short)} task(s): {shown}"
            f"{' ...' if len(short) > 5 else ''}; the correction needs k <= n",
            param="k",
        )


def system_rows(
    n: NDArray[np.float64],
    c: NDArray[np.float64],
    ks: list[int],
    grader: GraderSpec,
    ci: float | None,
    rng: tuple[np.random.Generator, np.random.Generator] | None,
    n_boot: int,
    *,
    weights: NDArray[np.float64] | None = None,
    clusters: NDArray[np.int64] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The table rows of one system, and its count of invalid posterior draws.

    ``weights``: the tasks' weights (None: equal); ``clusters``: their cluster codes 0 … G − 1
    (None: independent tasks), used by the population scope only.
    """
    top = max(ks)
    hits = weighted_mean(observed_powers(n, c, top), weights)[None, :]
    misses = weighted_mean(observed_powers(n, n - c, top), weights)[None, :]
    one = np.ones(1)
    point = values_from_powers(hits, misses, ks, one * grader.sensitivity, one * grader.specificity)
    raw = values_from_powers(hits, misses, ks, one, one)
    base: list[dict[str, Any]] = [{"k": None, "metric": "mean", "value": float(point[0][0]),
             "observed": float(raw[0][0]), "tasks": n.size}]  # fmt: skip
    for i, k in enumerate(ks):
        for metric, v, r in zip(METRICS[1:], point[1:], raw[1:], strict=True):
            base.append({"k": k, "metric": metric, "value": float(v[0, i]),
                         "observed": float(r[0, i]), "tasks": n.size})  # fmt: skip
    if ci is None or rng is None:
        return base, 0
    n_cl = None if clusters is None else int(clusters.max()) + 1
    scopes: dict[str, Draws | None] = {
        "benchmark": benchmark_draws(n, c, ks, grader, n_boot=n_boot, rng=rng[0], weights=weights),
        "population": None
        if n_cl is not None and n_cl < 2
        else population_draws(
            n, c, ks, grader, n_boot=n_boot, rng=rng[1], weights=weights, clusters=clusters
        ),
    }
    methods = {"benchmark": METHODS["benchmark"], "population": population_method(n_cl)}
    rows = []
    for scope, d in scopes.items():
        for row in base:
            lo, hi = _ends(d, row, ks, ci, centre=scope == "benchmark")
            rows.append({**row, "scope": scope, "lower": lo, "upper": hi,
                         "method": methods[scope]})  # fmt: skip
    pop = scopes["population"]
    return rows, 0 if pop is None else pop.invalid


def _ends(
    d: Draws | None, row: dict[str, Any], ks: list[int], ci: float, *, centre: bool
) -> tuple[float, float]:
    """The interval of one row from the draws (NaN without draws); ``centre``: shifted to
    centre on the estimate; ends cut to [0, 1], where the truth lies."""
    if d is None:
        return float("nan"), float("nan")
    tail = (1.0 - ci) / 2.0
    col = getattr(d, row["metric"])
    x = col if row["k"] is None else col[:, ks.index(row["k"])]
    lo, hi = np.nanquantile(x, [tail, 1.0 - tail])
    shift = row["value"] - float(np.nanmean(x)) if centre else 0.0
    lo, hi = np.clip([lo + shift, hi + shift], 0.0, 1.0)
    return float(lo), float(hi)


def correct(
    data: Trials | xr.Dataset,
    *,
    sensitivity: float | None = None,
    specificity: float | None = None,
    audit: Sequence[int] | None = None,
    truth: str | None = None,
    weights: WeightSpec = None,
    k: int | Sequence[int] | None = None,
    ci: float | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
) -> GraderCorrection:
    """Mean, pass@k and pass^k per system corrected for a grader's sensitivity and specificity.

    Each task's c grader passes of n runs give an unbiased estimate of its true pass^k
    (k ≤ n) for known se and sp (:mod:`passhat.graders.estimators`); the tasks are averaged
    with their ``weights`` (the weighted macro-average, as :func:`passhat.estimate`'s). With
    ``ci``, each value gets a benchmark-scope interval (these tasks: a parametric run bootstrap)
    and a population-scope interval (tasks like these: the task bootstrap, or the cluster
    bootstrap when the data carry a cluster column: clusters resampled with all their tasks),
    both with se and sp drawn from their Beta posteriors (Jeffreys prior) when an
    audit gives them, so the intervals include the grader's uncertainty; stated point values
    are taken as exact (the notes say the intervals ignore their uncertainty). Assumes
    non-differential error: the grader errs with the same probabilities on every task,
    independently of its other labels; an audit is a random sample of runs.

    Parameters
    ----------
    data : Trials or xarray.Dataset
        Runs labelled by the grader (``success``), or their count table.
    sensitivity, specificity : float, optional
        Stated point values in [0, 1] with se + sp > 1 (give both).
    audit : sequence of 4 int, optional
        Audit counts TP, FN (grader pass / fail among truly passing runs), TN, FP (grader
        fail / pass among truly failing runs).
    truth : str, optional
        A column of the runs holding each audited run's true label (empty where not audited);
        the audit counts are taken from it.
    weights : None, "equal", "declared", "category", or mapping
        Task weights of the average, as :func:`passhat.estimate` takes them; tasks of weight 0
        are left out and listed.
    k : int or sequence of int, optional
        Default :func:`passhat.exclusions.default_ks`; every k must be ≤ every task's n.
    ci : float, optional
        Level of the intervals in (0, 1); none without it.
    n_boot : int
        Draws per scope (≥ 100).
    seed : int or None
        Seed of the draws (None: a fresh one, recorded).

    Returns
    -------
    GraderCorrection

    Raises
    ------
    OptionError
        No or several sources of the grader's error, values outside [0, 1], se + sp ≤ 1,
        k > n, a truth column that is missing or holds no label.

    Examples
    --------
    >>> import passhat as ph
    >>> r = correct(ph.load_example("agents"), audit=(95, 5, 90, 10), k=[1, 2], ci=0.9,
    ...             n_boot=200)
    >>> r.table["scope"].unique().tolist()
    ['benchmark', 'population']
    """
    keep = kept_cells(as_counts(data), weights) if truth is not None else None
    grader, audit_notes = grader_spec(
        data, sensitivity=sensitivity, specificity=specificity, audit=audit, truth=truth,
        keep=keep,
    )  # fmt: skip
    return correct_with(
        data, grader, audit_notes=audit_notes, weights=weights, k=k, ci=ci, n_boot=n_boot,
        seed=seed,
    )  # fmt: skip


def correct_with(
    data: Trials | xr.Dataset,
    grader: GraderSpec,
    *,
    audit_notes: tuple[str, ...] = (),
    weights: WeightSpec = None,
    k: int | Sequence[int] | None = None,
    ci: float | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = DEFAULT_SEED,
) -> GraderCorrection:
    """:func:`correct` for a grader whose error is known already (``grader``, e.g. from
    :func:`grader_spec` on other runs): the report corrects its matched count table with it.

    Examples
    --------
    >>> import passhat as ph
    >>> g = GraderSpec.from_rates(sensitivity=0.9, specificity=0.9)
    >>> data = ph.load_example("abcd")
    >>> correct_with(data, g, k=2).value("pass_hat_k", 2) == correct(
    ...     data, sensitivity=0.9, specificity=0.9, k=2).value("pass_hat_k", 2)
    True
    """
    ds = as_counts(data)
    ks = norm_k(k) if k is not None else default_ks(ds)
    cells, excluded = _cells(ds, weights)
    _check_k(cells, ks)
    if ci is not None:
        ci = check_ci(ci)
        n_boot = check_n_boot(n_boot)
    root = resolve_seed(seed)
    rows, invalid, clusters = [], 0, {}
    for system, part in cells.groupby("system", sort=False):  # systems, not tasks
        n, c, w, codes = _system_arrays(part)
        rngs = (named_rng(root, "grader", str(system), "benchmark"),
                named_rng(root, "grader", str(system), "population"))  # fmt: skip
        got, bad = system_rows(
            n, c, ks, grader, ci, rngs if ci is not None else None, n_boot, weights=w,
            clusters=codes,
        )  # fmt: skip
        rows += [{"system": system, **r} for r in got]
        invalid = max(invalid, bad)
        if codes is not None:
            clusters[str(system)] = int(codes.max()) + 1
    _check_invalid(invalid, n_boot, ci)
    table = pd.DataFrame(rows)
    table["k"] = table["k"].astype("Int64")
    return GraderCorrection(
        table=table,
        per_task=_per_task(cells, grader),
        grader=grader,
        excluded=excluded,
        ci=ci,
        n_boot=n_boot if ci is not None else 0,
        seed=root,
        invalid_draws=invalid,
        audit_notes=audit_notes,
        weights=weights_label(weights),
        effective_tasks=_effective(cells),
        clusters=clusters,
        rate_intervals=grader.intervals(ci if ci is not None else 0.95),
        source=provenance(data),
    )


def _check_invalid(invalid: int, n_boot: int, ci: float | None) -> None:
    """Refuse when more than 1% of the (se, sp) posterior draws have se + sp ≤ 1."""
    if ci is not None and invalid > 0.01 * n_boot:
        raise OptionError(
            f"{{param}}: {invalid} of {n_boot} posterior draws of (se, sp) have se + sp <= 1: "
            "the audit is too small to tell the grader from chance (passhat plan audit says "
            "how many runs to audit)",
            param="audit",
        )


def _per_task(cells: pd.DataFrame, grader: GraderSpec) -> pd.DataFrame:
    """Each task's observed and corrected (unbiased, unclipped) pass rate (with its weight when
    the weights differ, and its cluster when there are clusters)."""
    a = grader.sensitivity + grader.specificity - 1.0
    observed = cells["c"] / cells["n"]
    out = cells.assign(
        observed_rate=observed, corrected_rate=(observed - (1.0 - grader.specificity)) / a
    )
    if np.ptp(cells["weight"].to_numpy(dtype=float)) == 0:
        out = out.drop(columns="weight")
    return out


def _effective(cells: pd.DataFrame) -> dict[str, float]:
    """Kish's effective number of tasks per system, where the weights differ ({} if none)."""
    out = {}
    for system, part in cells.groupby("system", sort=False):
        w = part["weight"].to_numpy(dtype=float)
        if np.ptp(w) > 0:
            out[str(system)] = float(w.sum() ** 2 / np.sum(w**2))  # Kish
    return out


def weights_label(weights: WeightSpec) -> str:
    """The task weights in words: equal, declared, category or mapping."""
    if weights is None:
        return "equal"
    return weights if isinstance(weights, str) else "mapping"


#: :func:`correct` under its top-level name (``passhat.correct_grader``).
correct_grader = correct
