"""Divergence points: where each failing run leaves what the passing runs did (:func:`divergence`).

Divergence points
-----------------
For every (system, task) with both passing and failing decided runs, each
failing run is aligned against every passing run:

1. **Tokens.** A step's token is its tool name plus its canonical arguments
   (keys sorted, no whitespace, integral floats written as integers; optional
   ``ignore_keys`` dropped at any depth, or ``ignore_args`` to use the tool
   name alone). Message text is never compared: text similarity is not a
   success measure and never decides anything here.
2. **Harmless lookups are order-free.** Each maximal run of consecutive
   *lookup* steps (read-only tools: by the user's stage mapping when a tool's
   stage is ``lookup``, otherwise by name, ``get_…``, ``search_…``,
   ``list_…``, ``find_…``, ``read_…``, ``query_…``, ``fetch_…``, ``think``,
   ``calculate``, …) becomes one *block* compared as a multiset. Reordering
   lookups inside such a stretch is therefore never a divergence; skipping,
   adding or changing a lookup still is. Scratch-pad tools whose argument is
   free text (``think`` by default, ``skip_tools``) are left out.
3. **Alignment.** The block sequences are aligned by longest common
   subsequence (LCS). An optimal LCS alignment can always match equal leading
   blocks, so the first unmatched column of the alignment of a failing run F
   with a passing run P is their longest common block prefix; the step of F
   there is ``d(F, P)``.
4. **Divergence point.** ``step(F) = max_P d(F, P)``: up to that step at least
   one passing run did exactly what F did; at that step F does something *no*
   passing run does at that point (or stops). ``step`` is 1-based (the n-th
   tool call of F); a run that stops has ``step = n_steps + 1``.
5. **What differs** is read off the alignment with the passing runs that
   reach the point: ``differs`` (same tool, different arguments),
   ``substitutes`` (a different tool), ``extra`` (F inserts an action and the
   passing run's action follows later in F), ``skips`` (F leaves out the
   passing run's action, which it would otherwise have matched later),
   ``stops`` (F ends while passing runs continue; its termination reason is
   given), ``continues`` (F keeps acting after passing runs ended) and
   ``none`` (F made exactly the tool calls of some passing run: the failure is
   not in the actions).

Extra lookups (``tolerate_extra_lookups=True``)
-----------------------------------------------
By default a lookup the failing run makes and no passing run makes at that
point *is* its divergence point (kind ``extra``). Often it is harmless: τ-bench
gpt-4o airline task 39, trial 1, looks up the user before the reservation and
is reported at that extra lookup (step 1), while what made it fail is the
cancellation at step 3 that the passing run never makes. With
``tolerate_extra_lookups=True`` each run is read as alternating columns
``L0 A1 L1 … An Ln`` (``Ai`` its i-th non-lookup action, ``Li`` the multiset of
lookups between two actions, possibly empty); F follows P at an action column
when the tokens are equal and at a lookup column when F's lookups *contain*
P's (F may look up more, never less). The divergence point is again the
latest, over passing runs, first column where F stops following P, so it is
never earlier than without the option. Skipped or changed lookups are still
divergences (``skips`` at the action that follows the stretch, ``differs`` at
the changed call), and so is every skipped, changed or extra non-lookup
action. The lookups tolerated before the point are counted in the column
``extra_lookups``, so nothing is hidden. It is off by default: the point
stays the *earliest* difference (reading on from an early lead reaches the
consequential one; a lead past the cause cannot be read backwards), and a
tool counted as a lookup by its name alone (``get_…``) may still have side
effects. Turn it on when the stage mapping marks the read-only tools, or to
ask which *action* goes wrong.


See :func:`divergence` for examples; the alignment itself is in
:mod:`passhat.traces.alignment`, the trace container in
:mod:`passhat.traces.container`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat.errors import OptionError, ValidationError
from passhat.traces.alignment import END, Refine, align_strict, align_tolerant
from passhat.traces.container import DEFAULT_SKIP_TOOLS, Traces, normalise
from passhat.traces.result import Divergence, TraceInput

__all__ = ["Divergence", "divergence"]


_EMPTY_TABLE_COLUMNS = [
    "system",
    "task_id",
    "trial",
    "step",
    "kind",
    "failing_action",
    "failing_args",
    "passing_actions",
    "n_passing_at_point",
    "marker",
    "stage",
    "termination",
    "n_steps",
    "extra_lookups",
]


def divergence(
    traces: Traces,
    *,
    stages: Mapping[str, str] | None = None,
    ignore_args: bool = False,
    ignore_keys: Iterable[str] = (),
    lookups: Iterable[str] | Callable[[str], bool] | None = None,
    skip_tools: Iterable[str] = DEFAULT_SKIP_TOOLS,
    tolerate_extra_lookups: bool = False,
    tasks: Sequence[str] | None = None,
    chunk: int = 2_000_000,
    where: str | None = None,
) -> Divergence:
    """Divergence point of every failing run of every task with mixed outcomes.

    The rule is in the module docstring: lookups are compared as order-free
    blocks, block sequences are aligned by LCS, and the divergence point of a
    failing run is the latest first-unmatched step over all passing runs.

    Parameters
    ----------
    traces : Traces
        From :func:`passhat.read_traces` (normalised here unless
        :func:`normalise` was applied already, in which case the options
        below must be left at their defaults).
    stages, ignore_args, ignore_keys, lookups, skip_tools
        Normalisation options, see :func:`normalise`.
    tolerate_extra_lookups : bool
        When true, a lookup the failing run makes in addition to the passing
        run's lookups is not a divergence point by itself; skipped or changed
        lookups and any skipped, changed or extra non-lookup action still are
        (module docstring). The tolerated lookups before each point are
        counted in ``table["extra_lookups"]``. Default false: the earliest
        difference, extra lookups included.
    tasks : sequence of str, optional
        Only these tasks.
    chunk : int
        Bound on (pairs × blocks) compared at once (memory).
    where : str, optional
        How notes name the input (``passhat traces`` passes the path as given); default
        ``example NAME`` for an example, else the reader's path, else "the traces".

    Returns
    -------
    Divergence

    Examples
    --------
    >>> import pandas as pd
    >>> st = pd.DataFrame({"task_id": "t", "trial": [0, 0, 1, 1],
    ...                    "action": ["get_a", "get_b", "get_b", "get_a"]})
    >>> tr = pd.DataFrame({"task_id": ["t", "t", "t"], "trial": [0, 1, 2],
    ...                    "success": [True, False, False]})
    >>> d = divergence(Traces.from_frames(st, tr))
    >>> d.table[["trial", "step", "kind"]].values.tolist()
    [[1, <NA>, 'none'], [2, 1, 'stops']]

    An extra lookup before the action that matters:

    >>> st = pd.DataFrame({"task_id": "t", "trial": [0, 0, 1, 1, 1],
    ...                    "action": ["get_order", "pay", "get_user", "get_order", "refund"]})
    >>> tr = pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, False]})
    >>> divergence(Traces.from_frames(st, tr)).table[["step", "kind", "marker"]].values.tolist()
    [[1, 'extra', 'get_user']]
    >>> d = divergence(Traces.from_frames(st, tr), tolerate_extra_lookups=True)
    >>> d.table[["step", "kind", "marker", "extra_lookups"]].values.tolist()
    [[3, 'substitutes', 'refund', 1]]
    """
    ignore_keys = tuple(ignore_keys)
    norm, chosen = _prepared(
        traces,
        tasks=tasks,
        stages=stages,
        ignore_args=ignore_args,
        ignore_keys=ignore_keys,
        lookups=lookups,
        skip_tools=tuple(skip_tools),
    )
    counts, sel = _mixed_runs(norm)
    runs = _Runs.of(norm, sel)
    table = _points(runs, sel, tolerate=tolerate_extra_lookups, chunk=chunk)
    counts.update(_point_counts(table, norm))
    return Divergence(
        table=table,
        tasks=_task_summary(table, sel),
        by_action=_aggregate(table, "marker"),
        by_stage=_aggregate(table, "stage"),
        counts=counts,
        settings={**norm.settings, "tolerate_extra_lookups": bool(tolerate_extra_lookups)},
        trace_input=_trace_input(traces, chosen, norm, tasks=tasks, where=where),
    )


def _prepared(
    traces: Traces,
    *,
    tasks: Sequence[str] | None,
    stages: Mapping[str, str] | None,
    ignore_args: bool,
    ignore_keys: tuple[str, ...],
    lookups: Iterable[str] | Callable[[str], bool] | None,
    skip_tools: tuple[str, ...],
) -> tuple[Traces, Traces]:
    """The traces of the chosen tasks, normalised (unless they were), and the chosen ones."""
    if not isinstance(traces, Traces):
        raise ValidationError(
            f"divergence needs passhat.Traces (from passhat.read_traces), got "
            f"{type(traces).__name__}"
        )
    if traces.settings and (
        stages
        or ignore_args
        or ignore_keys
        or lookups is not None
        or skip_tools != DEFAULT_SKIP_TOOLS
    ):
        raise OptionError(
            "these traces are normalised already; give normalisation options to "
            "normalise() or to divergence(), not both"
        )
    chosen = traces.select(tasks=tasks) if tasks is not None else traces
    if "token" in chosen.steps.columns:
        return chosen, chosen
    norm = normalise(
        chosen,
        stages=stages,
        ignore_args=ignore_args,
        ignore_keys=ignore_keys,
        lookups=lookups,
        skip_tools=skip_tools,
    )
    return norm, chosen


def _mixed_runs(norm: Traces) -> tuple[dict[str, int], pd.DataFrame]:
    """What the trials hold (counts), and the decided runs of the tasks with mixed outcomes:
    one row each, numbered ``_tid``, their task numbered ``_g``."""
    trials = norm.trials.reset_index(drop=True)
    decided = trials["success"].notna().to_numpy()
    counts: dict[str, int] = {
        "trials": len(trials),
        "unscored_trials": int((~decided).sum()),
        "excluded_trials": len(norm.excluded),
    }
    dec = trials[decided].copy()
    grp = dec.groupby(["system", "task_id"], sort=False)["success"]
    n_pass = grp.sum().astype(int)
    n_all = grp.size()
    mixed_idx = n_pass[(n_pass > 0) & (n_pass < n_all)].index
    counts["tasks"] = int(trials.groupby(["system", "task_id"]).ngroups)
    counts["tasks_all_pass"] = int((n_pass == n_all).sum())
    counts["tasks_all_fail"] = int((n_pass == 0).sum())
    counts["tasks_mixed"] = len(mixed_idx)
    counts["tasks_no_decided_run"] = counts["tasks"] - len(n_all)
    mixed = dec.set_index(["system", "task_id"]).index.isin(mixed_idx)
    sel = dec[mixed].reset_index(drop=True)
    if "n_steps" not in sel.columns:
        sel["n_steps"] = 0
    sel["_tid"] = np.arange(len(sel))
    counts["failing_runs"] = int((~sel["success"].astype(bool)).sum())
    counts["passing_runs"] = int(sel["success"].astype(bool).sum())
    sel["_g"] = sel.groupby(["system", "task_id"], sort=False).ngroup()
    return counts, sel


@dataclass(frozen=True)
class _Runs:
    """The compared runs (trial number ``tid`` = row of the selection) and their steps, as
    arrays: per trial its names, termination, steps in the trace, first compared step's row
    and number of steps compared; per step its token, tool, arguments, stage, lookup flag and
    step number in the original trace."""

    system: NDArray[np.object_]
    task: NDArray[np.object_]
    trial: NDArray[np.int64]
    termination: NDArray[np.object_]
    n_steps: NDArray[np.int64]
    steps: pd.DataFrame
    first_step: NDArray[np.int64]
    n_compared: NDArray[np.int64]
    token: NDArray[np.object_]
    action: NDArray[np.object_]
    args: NDArray[np.object_]
    stage: NDArray[np.object_]
    lookup: NDArray[np.bool_]
    orig: NDArray[np.int64]
    stage_of: dict[str, str]

    @classmethod
    def of(cls, norm: Traces, sel: pd.DataFrame) -> _Runs:
        key = ["system", "task_id", "trial"]
        steps = norm.steps[~norm.steps["skip"]].rename(columns={"step": "_orig"})
        steps = steps.merge(sel[[*key, "_tid"]], on=key, how="inner")
        steps = steps.sort_values("_tid", kind="stable").reset_index(drop=True)
        tid = steps["_tid"].to_numpy()
        first_of_action = norm.steps.drop_duplicates("action")
        term = (
            sel["termination"].to_numpy(dtype=object)
            if "termination" in sel.columns
            else np.full(len(sel), None, dtype=object)
        )
        return cls(
            system=sel["system"].to_numpy(dtype=object),
            task=sel["task_id"].to_numpy(dtype=object),
            trial=sel["trial"].to_numpy(dtype=np.int64),
            termination=term,
            n_steps=sel["n_steps"].to_numpy(dtype=np.int64),
            steps=steps,
            first_step=np.searchsorted(tid, np.arange(len(sel))),
            n_compared=np.bincount(tid, minlength=len(sel)),
            token=steps["token"].to_numpy(dtype=object),
            action=steps["action"].to_numpy(dtype=object),
            args=steps["args"].to_numpy(dtype=object),
            stage=steps["stage"].to_numpy(dtype=object),
            lookup=steps["lookup"].to_numpy(dtype=bool),
            orig=steps["_orig"].to_numpy(dtype=np.int64),
            stage_of=dict(zip(first_of_action["action"], first_of_action["stage"], strict=True)),
        )


def _align(
    runs: _Runs, sel: pd.DataFrame, *, tolerate: bool, chunk: int
) -> tuple[pd.DataFrame, Refine]:
    """Each failing run against the passing runs of its task: the passing runs that follow it
    furthest, one per distinct block sequence (``_w`` counts them), and how to read off what
    differs there."""
    fail = sel.loc[~sel["success"].astype(bool), ["_g", "_tid"]]
    pas = sel.loc[sel["success"].astype(bool), ["_g", "_tid"]]
    pairs = fail.merge(pas, on="_g", suffixes=("_f", "_p"))
    pf, pp = pairs["_tid_f"].to_numpy(), pairs["_tid_p"].to_numpy()
    n_trials = len(sel)
    refine: Refine
    if tolerate:
        mat, lcp, refine = align_tolerant(
            runs.steps, n_trials, pf, pp, runs.token, runs.action, runs.first_step, chunk
        )
    else:
        mat, lcp, refine = align_strict(
            runs.steps,
            n_trials,
            pf,
            pp,
            runs.token,
            runs.action,
            runs.lookup,
            runs.first_step,
            runs.n_compared,
            chunk,
        )
    pairs["lcp"] = lcp
    best = pairs.groupby("_tid_f")["lcp"].transform("max")
    cand = pairs[pairs["lcp"] == best]
    # passing runs with the same block sequence give the same answer: refine once, count them
    sig = pd.factorize(np.array([row.tobytes() for row in mat], dtype=object))[0]
    cand = cand.assign(_sig=sig[cand["_tid_p"].to_numpy()])
    uniq = (
        cand.groupby(["_tid_f", "_sig"], sort=True)
        .agg(_tid_p=("_tid_p", "first"), _w=("_tid_p", "size"), lcp=("lcp", "first"))
        .reset_index()
    )
    return uniq, refine


def _points(runs: _Runs, sel: pd.DataFrame, *, tolerate: bool, chunk: int) -> pd.DataFrame:
    """The divergence point of every failing run, in the order of the tasks, then trials."""
    uniq, refine = _align(runs, sel, tolerate=tolerate, chunk=chunk)
    u_f, u_p, u_w = (uniq[c].to_numpy() for c in ("_tid_f", "_tid_p", "_w"))
    u_b = uniq["lcp"].to_numpy()
    bounds = (
        np.flatnonzero(np.r_[True, u_f[1:] != u_f[:-1], True])
        if len(u_f)
        else np.zeros(0, dtype=np.int64)
    )
    rows = []
    for lo, hi in pairwise(bounds.tolist()):
        tid_f, b = int(u_f[lo]), int(u_b[lo])
        # (local step, kind, passing actions, marker), weight = passing runs with that sequence
        outcomes = [(refine(tid_f, int(u_p[i]), b), int(u_w[i])) for i in range(lo, hi)]
        rows.append(_point(runs, tid_f, outcomes))
    table = pd.DataFrame(rows, columns=_EMPTY_TABLE_COLUMNS)
    if len(table):
        order = sel[["system", "task_id"]].drop_duplicates().reset_index(drop=True)
        order["_o"] = np.arange(len(order))
        table = (
            table.merge(order, on=["system", "task_id"])
            .sort_values(["_o", "trial"], kind="stable")
            .drop(columns="_o")
            .reset_index(drop=True)
        )
    table["step"] = table["step"].astype("Int64")
    return table


def _point(
    runs: _Runs,
    tid_f: int,
    outcomes: list[tuple[tuple[int, str, list[str], str | None, int], int]],
) -> dict[str, Any]:
    """One failing run's divergence point from what each passing run that follows it furthest
    says (weighted by the passing runs with that block sequence)."""
    f0, nsf = int(runs.first_step[tid_f]), int(runs.n_compared[tid_f])
    top = max(o[0][0] for o in outcomes)
    at = [o for o in outcomes if o[0][0] == top]
    kinds: Counter[str] = Counter()
    for o, w in at:
        kinds[o[1]] += w
    kind = kinds.most_common(1)[0][0]
    if top >= nsf and kind == "skips":  # F left out the rest and ended: it stops
        kind = "stops"
    marker = next(o[3] for o, _ in at if o[1] == kind or kind == "stops")
    nst = int(runs.n_steps[tid_f])
    if kind == "none":
        step: int | None = None
        f_action = f_args = None
    elif top >= nsf:
        step = nst + 1
        f_action, f_args = END, None
    else:
        step = int(runs.orig[f0 + top]) + 1
        f_action, f_args = runs.action[f0 + top], runs.args[f0 + top]
    if kind in ("skips", "stops"):
        mstage = runs.stage_of.get(marker, marker) if marker is not None else None
    elif kind == "none":
        mstage = None
    else:
        mstage = runs.stage[f0 + top]
    return {
        "system": runs.system[tid_f],
        "task_id": runs.task[tid_f],
        "trial": int(runs.trial[tid_f]),
        "step": step,
        "kind": kind,
        "failing_action": f_action,
        "failing_args": f_args,
        "passing_actions": sorted({p for o, _ in at for p in o[2]}),
        "n_passing_at_point": sum(w for _, w in at),
        "marker": marker,
        "stage": mstage,
        "termination": runs.termination[tid_f],
        "n_steps": nst,
        "extra_lookups": min(o[4] for o, _ in at),
    }


def _point_counts(table: pd.DataFrame, norm: Traces) -> dict[str, int]:
    """How the points fall: runs without a tool call, no divergence, at a lookup, lookups
    tolerated."""
    lk_names = set(norm.settings.get("lookups", []))
    hit = table["kind"] != "none"
    return {
        "failing_runs_without_tool_calls": int((table["n_steps"] == 0).sum()),
        "no_action_divergence": int((~hit).sum()),
        "divergence_points": int(hit.sum()),
        "points_at_lookup": int((hit & table["failing_action"].isin(lk_names)).sum()),
        "tolerated_extra_lookups": int(table["extra_lookups"].sum()),
    }


def _trace_input(
    traces: Traces,
    chosen: Traces,
    norm: Traces,
    *,
    tasks: Sequence[str] | None,
    where: str | None,
) -> TraceInput:
    """What the traces held: the whole input's exclusions and stage-tool typos, the chosen
    tasks' runs and tool calls."""
    src = traces.source
    if where is None:
        where = (
            f"example {src['example']}"
            if src.get("example")
            else str(src.get("path", "the traces"))
        )
    called = set(traces.steps["action"].dropna().astype(str))
    stage_tools = set(norm.settings.get("stages") or {})
    return TraceInput(
        where=where,
        source={str(k): str(v) for k, v in src.items()},
        excluded=traces.excluded,
        tasks=tuple(str(t) for t in tasks or ()),
        trials=len(chosen.trials),
        tool_calls=len(chosen.steps),
        trials_without_tool_calls=int(src.get("trials_without_tool_calls") or 0),
        unknown_stage_tools=tuple(sorted(stage_tools - called)),
    )


def _task_summary(table: pd.DataFrame, sel: pd.DataFrame) -> pd.DataFrame:
    cols = [
        "system",
        "task_id",
        "passing_runs",
        "failing_runs",
        "with_divergence",
        "earliest_step",
        "typical_step",
        "top_marker",
        "top_kind",
    ]
    if not len(sel):
        return pd.DataFrame(columns=cols)
    g = sel.groupby(["system", "task_id"], sort=False)["success"]
    out = pd.DataFrame(
        {
            "passing_runs": g.sum().astype(int),
            "failing_runs": (g.size() - g.sum()).astype(int),
        }
    ).reset_index()
    key = ["system", "task_id"]
    hit = table[table["kind"] != "none"]

    def mode(col: str) -> pd.DataFrame:
        """Most frequent value per task (ties: the smallest)."""
        vc = hit.groupby([*key, col], sort=False).size().reset_index(name="_n")
        vc = vc.sort_values([*key, "_n", col], ascending=[True, True, False, True])
        return vc.drop_duplicates(key)[[*key, col]]

    summ = (
        hit.groupby(key, sort=False)
        .agg(with_divergence=("kind", "size"), earliest_step=("step", "min"))
        .reset_index()
    )
    summ = (
        summ.merge(mode("step").rename(columns={"step": "typical_step"}), on=key, how="left")
        .merge(mode("marker").rename(columns={"marker": "top_marker"}), on=key, how="left")
        .merge(mode("kind").rename(columns={"kind": "top_kind"}), on=key, how="left")
    )
    out = out.merge(summ, on=key, how="left")
    out["with_divergence"] = out["with_divergence"].fillna(0).astype(int)
    out["top_kind"] = out["top_kind"].fillna("none")
    for col in ("earliest_step", "typical_step"):
        out[col] = out[col].astype("Int64")
    return out[cols]


def _kinds_text(kinds: pd.Series) -> str:
    counter: Counter[str] = Counter(map(str, kinds))
    return ", ".join(f"{a} {n}" for a, n in counter.most_common())


def _aggregate(table: pd.DataFrame, by: str) -> pd.DataFrame:
    name = "action" if by == "marker" else "stage"
    hit = table[table["kind"] != "none"]
    cols = [name, "runs", "tasks", "share", "kinds"]
    if not len(hit):
        return pd.DataFrame(columns=cols)
    g = hit.groupby(by, sort=False)
    out = (
        pd.DataFrame(
            {
                "runs": g.size(),
                "tasks": g["task_id"].nunique(),
                "kinds": g["kind"].agg(_kinds_text),
            }
        )
        .reset_index()
        .rename(columns={by: name})
    )
    out["share"] = out["runs"] / len(hit)
    return out.sort_values(["runs", "tasks", name], ascending=[False, False, True]).reset_index(
        drop=True
    )[cols]
