"""Trajectory normalisation, alignment and divergence points (pure computation).

A **trace** is the ordered list of tool calls one trial made: per step the tool
name, its arguments (canonical JSON), the observation and a status (``ok`` or
``error``). :class:`Traces` holds two tables: ``steps`` (one row per tool call)
and ``trials`` (one row per trial: outcome, status, termination reason,
scenario fingerprint). Readers in :mod:`passhat.io.traces` build it from
τ-bench, τ²-bench, Inspect AI and generic JSONL step logs.

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

A divergence point is a lead to inspect, not proof of cause.

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> rows = []
>>> for trial, ok, acts in [(0, True, ["get_user", "check_permission", "refund"]),
...                         (1, False, ["get_user", "refund"])]:
...     rows += [{"task_id": "t", "trial": trial, "step": i, "action": a, "args": {}}
...              for i, a in enumerate(acts)]
>>> steps = pd.DataFrame(rows)
>>> trials = pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, False]})
>>> div = ph.divergence(ph.Traces.from_frames(steps, trials))
>>> div.table[["trial", "step", "kind", "marker"]].to_dict("records")
[{'trial': 1, 'step': 2, 'kind': 'skips', 'marker': 'check_permission'}]
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from passhat.errors import OptionError, ValidationError

__all__ = [
    "DEFAULT_LOOKUP_PATTERN",
    "DEFAULT_SKIP_TOOLS",
    "Divergence",
    "Traces",
    "canonical_args",
    "divergence",
    "is_lookup_name",
    "normalise",
]

#: Tool names treated as harmless, read-only lookups when no stage mapping says otherwise.
DEFAULT_LOOKUP_PATTERN = re.compile(
    r"^(get|search|list|find|lookup|look_up|read|query|fetch|describe|view|show|"
    r"calculate|think)(_|$)",
    re.IGNORECASE,
)
END = "<end>"
#: Tools left out of the alignment by default (free-text scratch pads).
DEFAULT_SKIP_TOOLS = ("think",)
STEP_COLUMNS = ("system", "task_id", "trial", "step", "action", "args", "observation", "status")
TRIAL_COLUMNS = ("system", "task_id", "trial", "success", "status", "termination", "scenario_hash")


# ------------------------------------------------------------- normalising
def _canon(obj: Any, drop: frozenset[str]) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _canon(v, drop) for k, v in obj.items() if str(k) not in drop}
    if isinstance(obj, list | tuple):
        return [_canon(v, drop) for v in obj]
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        x = float(obj)
        if math.isfinite(x) and x == math.floor(x) and abs(x) < 2**53:
            return int(x)
        return x
    if isinstance(obj, str):
        return obj.strip()
    return str(obj)


def canonical_args(args: Any, *, ignore_keys: Iterable[str] = ()) -> str:
    """Canonical JSON text of a tool call's arguments.

    Keys are sorted at every depth, whitespace between tokens removed,
    surrounding whitespace of string values stripped, integral floats written
    as integers (``2.0`` → ``2``); keys in ``ignore_keys`` are dropped at any
    depth. A string is parsed as JSON first (τ-bench stores arguments as JSON
    text); a string that is not JSON is kept as a string value.

    Examples
    --------
    >>> canonical_args('{"b": 2.0,  "a": " x "}')
    '{"a":"x","b":2}'
    >>> canonical_args({"id": 7, "when": "now", "q": 1}, ignore_keys=["id", "when"])
    '{"q":1}'
    """
    if isinstance(args, str):
        text = args.strip()
        if text == "":
            args = {}
        else:
            try:
                args = json.loads(text)
            except json.JSONDecodeError:
                args = text
    if args is None:
        args = {}
    obj = _canon(args, frozenset(ignore_keys))
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def is_lookup_name(name: str) -> bool:
    """Whether a tool name looks read-only by the default naming rule.

    Examples
    --------
    >>> is_lookup_name("get_user_details"), is_lookup_name("cancel_reservation")
    (True, False)
    """
    return bool(DEFAULT_LOOKUP_PATTERN.match(name))


@dataclass
class Traces:
    """Per-trial ordered tool-call steps plus each trial's outcome.

    Attributes
    ----------
    steps : pandas.DataFrame
        ``system, task_id, trial, step, action, args, observation, status``
        (``step`` 0-based within the trial, in call order; ``args`` canonical
        JSON text); after :func:`normalise` also ``token``, ``stage`` and
        ``lookup``.
    trials : pandas.DataFrame
        ``system, task_id, trial, success`` (nullable boolean), ``status``,
        ``termination``, ``scenario_hash``, ``n_steps``.
    source : dict
        Provenance (path, format, ...).
    excluded : pandas.DataFrame
        Trials a reader could not use, with ``reason`` (never dropped silently).
    """

    steps: pd.DataFrame
    trials: pd.DataFrame
    source: dict[str, Any] = field(default_factory=dict)
    excluded: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["system", "task_id", "trial", "reason"])
    )
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_frames(
        cls,
        steps: pd.DataFrame,
        trials: pd.DataFrame,
        *,
        source: Mapping[str, Any] | None = None,
        excluded: pd.DataFrame | None = None,
        where: str = "traces",
    ) -> Traces:
        """Validate a step table and a trial table.

        ``steps`` needs ``task_id, trial, action`` (``system`` defaults to
        ``"system"``; ``step`` to the row order within a trial; ``args`` to
        ``{}``; ``observation`` to ``""``; ``status`` to ``"ok"``). ``trials``
        needs ``task_id, trial, success``. Every step must belong to a listed
        trial; duplicate (system, task_id, trial) trials or (…, step) steps are
        errors.
        """
        st = steps.copy()
        tr = trials.copy()
        for name, df, req in (
            ("steps", st, ("task_id", "trial", "action")),
            ("trials", tr, ("task_id", "trial", "success")),
        ):
            missing = [c for c in req if c not in df.columns]
            if missing:
                raise ValidationError(
                    f"{where}: {name} table lacks column(s) {', '.join(missing)} "
                    f"(columns: {', '.join(map(str, df.columns))})"
                )
        if len(tr) == 0:
            raise ValidationError(f"{where}: no trials")
        for df in (st, tr):
            if "system" not in df.columns:
                df["system"] = "system"
            df["system"] = df["system"].astype(str)
            df["task_id"] = df["task_id"].astype(str)
            t = pd.to_numeric(df["trial"], errors="coerce")
            if len(df) and (t.isna().any() or (t != np.floor(t)).any()):
                row = int(np.flatnonzero((t.isna() | (t != np.floor(t))).to_numpy())[0])
                raise ValidationError(
                    f"{where}: row {row + 1}: trial {df['trial'].iloc[row]!r} is not a whole number"
                )
            df["trial"] = t.astype(np.int64)
        key = ["system", "task_id", "trial"]
        dup = tr.duplicated(key, keep=False)
        if dup.any():
            r = tr[dup].iloc[0]
            raise ValidationError(
                f"{where}: duplicate trial (system, task_id, trial) = "
                f"({r['system']}, {r['task_id']}, {r['trial']})"
            )
        succ = tr["success"]
        if not pd.api.types.is_bool_dtype(succ.dtype):
            bad = ~succ.isna() & ~succ.isin([True, False, 0, 1])
            if bad.any():
                raise ValidationError(
                    f"{where}: trial row {int(np.flatnonzero(bad.to_numpy())[0]) + 1}: "
                    f"success {succ[bad].iloc[0]!r} is not boolean"
                )
        tr["success"] = succ.astype("boolean")
        if "status" not in tr.columns:
            tr["status"] = np.where(tr["success"].isna(), "unscored", "ok")
        if "termination" not in tr.columns:
            tr["termination"] = None
        if "scenario_hash" not in tr.columns:
            tr["scenario_hash"] = None
        if "step" not in st.columns:
            st["step"] = st.groupby(key, sort=False).cumcount()
        if "args" not in st.columns:
            st["args"] = "{}"
        if "observation" not in st.columns:
            st["observation"] = ""
        if "status" not in st.columns:
            st["status"] = "ok"
        st["action"] = st["action"].astype(str)
        if st["args"].map(lambda a: not isinstance(a, str)).any():
            st["args"] = [canonical_args(a) for a in st["args"]]
        if len(st):
            s = pd.to_numeric(st["step"], errors="coerce")
            if s.isna().any():
                row = int(np.flatnonzero(s.isna().to_numpy())[0])
                raise ValidationError(f"{where}: step row {row + 1}: step is not a number")
            st["step"] = s
            dups = st.duplicated([*key, "step"], keep=False)
            if dups.any():
                r = st[dups].iloc[0]
                raise ValidationError(
                    f"{where}: duplicate step {r['step']} in trial "
                    f"({r['system']}, {r['task_id']}, {r['trial']})"
                )
            known = pd.MultiIndex.from_frame(tr[key])
            have = pd.MultiIndex.from_frame(st[key])
            orphan = ~have.isin(known)
            if orphan.any():
                r = st[orphan].iloc[0]
                raise ValidationError(
                    f"{where}: steps of trial ({r['system']}, {r['task_id']}, {r['trial']}) "
                    "have no outcome in the trials table"
                )
        st = st.sort_values([*key, "step"], kind="stable").reset_index(drop=True)
        st["step"] = st.groupby(key, sort=False).cumcount().astype(np.int64)
        cols = list(STEP_COLUMNS) + [c for c in st.columns if c not in STEP_COLUMNS]
        st = st[cols]
        n_steps = st.groupby(key, sort=False).size()
        tr = tr.merge(n_steps.rename("n_steps").reset_index(), on=key, how="left")
        tr["n_steps"] = tr["n_steps"].fillna(0).astype(np.int64)
        tcols = list(TRIAL_COLUMNS) + [c for c in tr.columns if c not in TRIAL_COLUMNS]
        exc = (
            excluded
            if excluded is not None
            else pd.DataFrame(columns=["system", "task_id", "trial", "reason"])
        )
        return cls(steps=st, trials=tr[tcols], source=dict(source or {}), excluded=exc)

    def __repr__(self) -> str:
        return (
            f"Traces({len(self.trials)} trials, {len(self.steps)} steps, "
            f"{self.trials['task_id'].nunique()} tasks, {len(self.excluded)} excluded)"
        )

    def select(self, *, tasks: Sequence[str] | None = None) -> Traces:
        """Keep only some tasks (an unknown task is an error)."""
        if tasks is None:
            return self
        tasks = [str(t) for t in tasks]
        missing = sorted(set(tasks) - set(self.trials["task_id"]))
        if missing:
            raise OptionError(f"task(s) {', '.join(missing)} not in the traces")
        return Traces(
            steps=self.steps[self.steps["task_id"].isin(tasks)].reset_index(drop=True),
            trials=self.trials[self.trials["task_id"].isin(tasks)].reset_index(drop=True),
            source=self.source,
            excluded=self.excluded[self.excluded["task_id"].astype(str).isin(tasks)],
            settings=self.settings,
        )


def normalise(
    traces: Traces,
    *,
    stages: Mapping[str, str] | None = None,
    ignore_args: bool = False,
    ignore_keys: Iterable[str] = (),
    lookups: Iterable[str] | Callable[[str], bool] | None = None,
    lookup_stages: Iterable[str] = ("lookup",),
    skip_tools: Iterable[str] = DEFAULT_SKIP_TOOLS,
) -> Traces:
    """Add the comparison token, the semantic stage and the lookup flag to each step.

    Parameters
    ----------
    traces : Traces
    stages : mapping, optional
        Tool name → semantic stage (e.g. ``{"get_user_details": "lookup"}``);
        unmapped tools get their own name as stage.
    ignore_args : bool
        Compare tool names only.
    ignore_keys : iterable of str
        Argument keys (ids, timestamps, ...) dropped at any depth before comparing.
    lookups : iterable of str or callable, optional
        The tools that are harmless lookups (order-free within a stretch).
        Default: tools whose stage is in ``lookup_stages``, and unmapped tools
        matching :data:`DEFAULT_LOOKUP_PATTERN`.
    lookup_stages : iterable of str
        Stage names that mean "read-only lookup".
    skip_tools : iterable of str
        Tools left out of the alignment (kept in ``steps`` with ``skip``
        true). Default ``("think",)``: a scratch-pad tool whose only argument
        is free text; comparing it would compare message text.

    Returns
    -------
    Traces
        A copy with ``token``, ``stage`` and ``lookup`` step columns.

    Examples
    --------
    >>> import pandas as pd
    >>> st = pd.DataFrame({"task_id": "t", "trial": 0, "action": ["get_user", "pay"],
    ...                    "args": ['{"id": 1, "x": 2.0}', "{}"]})
    >>> tr = pd.DataFrame({"task_id": ["t"], "trial": [0], "success": [True]})
    >>> n = normalise(Traces.from_frames(st, tr), ignore_keys=["id"],
    ...               stages={"pay": "payment"})
    >>> n.steps[["token", "stage", "lookup"]].values.tolist()
    [['get_user({"x":2})', 'get_user', True], ['pay({})', 'payment', False]]
    """
    steps = traces.steps.copy()
    stage_map = {str(k): str(v) for k, v in (stages or {}).items()}
    lstages = set(lookup_stages)
    keys = list(ignore_keys)
    if ignore_args:
        steps["token"] = steps["action"]
    else:
        args = steps["args"]
        if keys:
            args = pd.Series([canonical_args(a, ignore_keys=keys) for a in args], index=args.index)
        steps["token"] = steps["action"] + "(" + args + ")"
    names = pd.Series(pd.unique(steps["action"]))
    stage_of = {n: stage_map.get(n, n) for n in names}
    steps["stage"] = steps["action"].map(stage_of)
    if lookups is None:
        is_l = {
            n: (stage_map[n] in lstages) if n in stage_map else is_lookup_name(n) for n in names
        }
    elif callable(lookups):
        is_l = {n: bool(lookups(n)) for n in names}
    else:
        lset = set(lookups)
        is_l = {n: n in lset for n in names}
    steps["lookup"] = steps["action"].map(is_l).astype(bool)
    skip = set(skip_tools)
    steps["skip"] = steps["action"].isin(skip)
    settings = {
        "skip_tools": sorted(skip),
        "ignore_args": ignore_args,
        "ignore_keys": keys,
        "stages": stage_map,
        "lookups": sorted(n for n, v in is_l.items() if v),
    }
    return Traces(
        steps=steps,
        trials=traces.trials,
        source=traces.source,
        excluded=traces.excluded,
        settings=settings,
    )


# ------------------------------------------------------------- divergence
@dataclass
class Divergence:
    """Divergence points of failing runs, per run and aggregated.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per failing decided run of a task with mixed outcomes:
        ``system, task_id, trial, step`` (1-based; ``n_steps + 1`` when the run
        stops), ``kind``, ``failing_action``, ``failing_args``,
        ``passing_actions`` (what the passing runs that reach the point do
        there), ``n_passing_at_point``, ``marker`` (the tool that marks the
        divergence: the passing runs' action for ``skips``/``stops``, the
        failing run's otherwise), ``stage`` (the marker's stage),
        ``termination``, ``n_steps``, ``extra_lookups`` (lookups of the
        failing run before its point that the passing run it follows did not
        make: tolerated under ``tolerate_extra_lookups``, else always 0).
    tasks : pandas.DataFrame
        Per task with mixed outcomes: passing/failing runs, the earliest and
        most common divergence step and marker.
    by_action : pandas.DataFrame
        Failing runs per marker tool (and kind), with the number of tasks.
    by_stage : pandas.DataFrame
        The same per semantic stage.
    counts : dict
        What was analysed and what was left out, with reasons.
    settings : dict
        Normalisation settings used.
    """

    table: pd.DataFrame
    tasks: pd.DataFrame
    by_action: pd.DataFrame
    by_stage: pd.DataFrame
    counts: dict[str, int]
    settings: dict[str, Any]

    @property
    def sentences(self) -> list[str]:
        """Plain-language summary (used by the report's "Where failing runs diverge")."""
        c = self.counts
        out = [
            f"{c.get('failing_runs', 0)} failing run(s) of the {c.get('tasks_mixed', 0)} task(s) "
            "with both outcomes were aligned against the passing runs of the same task (tool "
            "calls with canonical arguments; reordering read-only lookups is not a divergence"
            + (
                "; nor is an extra read-only lookup: "
                f"{c.get('tolerated_extra_lookups', 0)} tolerated before the points)."
                if self.settings.get("tolerate_extra_lookups")
                else ")."
            )
        ]
        kinds = self.table["kind"].value_counts()
        if len(kinds):
            out.append(
                "At its divergence point the failing run: "
                + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
                + "."
            )
        out.extend(self.notes())
        out.append("A divergence point is a lead to inspect, not proof of cause.")
        return out

    def notes(self) -> list[str]:
        """Plain-language notes on what was left out and why."""
        c = self.counts
        out = []
        if c.get("unscored_trials"):
            out.append(
                f"{c['unscored_trials']} unscored trial(s) are neither pass nor fail: left out."
            )
        if c.get("excluded_trials"):
            out.append(
                f"{c['excluded_trials']} trial(s) excluded by the reader (reasons in excluded)."
            )
        if c.get("failing_runs_without_tool_calls"):
            out.append(
                f"{c['failing_runs_without_tool_calls']} failing run(s) made no tool call "
                "(divergence 'stops' at step 1)."
            )
        if c.get("points_at_lookup") and not self.settings.get("tolerate_extra_lookups"):
            out.append(
                f"{c['points_at_lookup']} divergence point(s) are at a read-only lookup of the "
                "failing run; tolerate_extra_lookups (CLI --tolerate-extra-lookups) looks past "
                "extra lookups to the next difference in what the run does."
            )
        if c.get("no_action_divergence"):
            same = (
                "the tool calls of a passing run, apart from extra read-only lookups"
                if self.settings.get("tolerate_extra_lookups")
                else "exactly the tool calls of a passing run"
            )
            out.append(
                f"{c['no_action_divergence']} failing run(s) made {same} "
                "(kind 'none': the failure is not in the actions)."
            )
        return out


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


def _block_keys(steps: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block index of each step and each block's integer key and trial-local order.

    Consecutive lookup steps of one trial form one block keyed by the multiset
    of their tokens (an order-free 64-bit sum of per-token random keys); any
    other step is a block of its own.
    """
    codes, uniques = pd.factorize(steps["token"], sort=False)
    rng = np.random.default_rng(20260511)
    r_lookup = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
    r_single = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
    trial_start = np.ones(len(steps), dtype=bool)
    if len(steps):
        tid = steps["_tid"].to_numpy()
        trial_start[1:] = tid[1:] != tid[:-1]
    lookup = steps["lookup"].to_numpy(dtype=bool)
    prev_lookup = np.zeros(len(steps), dtype=bool)
    prev_lookup[1:] = lookup[:-1]
    new_block = trial_start | ~lookup | ~prev_lookup
    block = np.cumsum(new_block) - 1
    starts = np.flatnonzero(new_block)
    with np.errstate(over="ignore"):
        lk = np.where(lookup, r_lookup[codes], np.uint64(0))
        sums = np.add.reduceat(lk, starts) if len(starts) else np.zeros(0, np.uint64)
    single = r_single[codes[starts]] if len(starts) else np.zeros(0, np.uint64)
    key = np.where(lookup[starts], sums, single) if len(starts) else np.zeros(0, np.uint64)
    block_codes, _ = pd.factorize(key)
    return block, block_codes.astype(np.int64), starts


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
    if not isinstance(traces, Traces):
        raise ValidationError(
            f"divergence needs passhat.Traces (from passhat.read_traces), got "
            f"{type(traces).__name__}"
        )
    skip_tools = tuple(skip_tools)
    if traces.settings and (
        stages
        or ignore_args
        or list(ignore_keys)
        or lookups is not None
        or skip_tools != DEFAULT_SKIP_TOOLS
    ):
        raise OptionError(
            "these traces are normalised already; give normalisation options to "
            "normalise() or to divergence(), not both"
        )
    if tasks is not None:
        traces = traces.select(tasks=tasks)
    norm = (
        traces
        if "token" in traces.steps.columns
        else normalise(
            traces,
            stages=stages,
            ignore_args=ignore_args,
            ignore_keys=ignore_keys,
            lookups=lookups,
            skip_tools=skip_tools,
        )
    )
    trials = norm.trials.reset_index(drop=True)
    key = ["system", "task_id", "trial"]
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

    steps = norm.steps[~norm.steps["skip"]].rename(columns={"step": "_orig"})
    steps = steps.merge(sel[[*key, "_tid"]], on=key, how="inner")
    steps = steps.sort_values("_tid", kind="stable").reset_index(drop=True)
    n_trials = len(sel)
    # pairs (failing, passing) within each task
    sel["_g"] = sel.groupby(["system", "task_id"], sort=False).ngroup()
    fail = sel.loc[~sel["success"].astype(bool), ["_g", "_tid"]]
    pas = sel.loc[sel["success"].astype(bool), ["_g", "_tid"]]
    pairs = fail.merge(pas, on="_g", suffixes=("_f", "_p"))
    pf = pairs["_tid_f"].to_numpy()
    pp = pairs["_tid_p"].to_numpy()
    tok = steps["token"].to_numpy(dtype=object)
    act = steps["action"].to_numpy(dtype=object)
    islk = steps["lookup"].to_numpy(dtype=bool)
    trial_first_step = np.searchsorted(steps["_tid"].to_numpy(), np.arange(n_trials))
    n_steps_of: np.ndarray = np.bincount(steps["_tid"].to_numpy(), minlength=n_trials)
    refine: _Refine
    if tolerate_extra_lookups:
        mat, lcp, refine = _tolerant(steps, n_trials, pf, pp, tok, act, trial_first_step, chunk)
    else:
        mat, lcp, refine = _strict(
            steps, n_trials, pf, pp, tok, act, islk, trial_first_step, n_steps_of, chunk
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

    # refine each failing run against the passing runs that reach its point
    argv = steps["args"].to_numpy(dtype=object)
    stg = steps["stage"].to_numpy(dtype=object)
    orig = steps["_orig"].to_numpy(dtype=np.int64)
    first_of_action = norm.steps.drop_duplicates("action")
    stage_of = dict(zip(first_of_action["action"], first_of_action["stage"], strict=True))
    sys_a = sel["system"].to_numpy(dtype=object)
    task_a = sel["task_id"].to_numpy(dtype=object)
    trial_a = sel["trial"].to_numpy(dtype=np.int64)
    term_a = (
        sel["termination"].to_numpy(dtype=object)
        if "termination" in sel.columns
        else np.full(n_trials, None, dtype=object)
    )
    nst_a = sel["n_steps"].to_numpy(dtype=np.int64)

    rows: list[dict[str, Any]] = []
    u_f = uniq["_tid_f"].to_numpy()
    u_p = uniq["_tid_p"].to_numpy()
    u_w = uniq["_w"].to_numpy()
    u_b = uniq["lcp"].to_numpy()
    bounds = (
        np.flatnonzero(np.r_[True, u_f[1:] != u_f[:-1], True])
        if len(u_f)
        else np.zeros(0, dtype=np.int64)
    )
    for lo, hi in pairwise(bounds.tolist()):
        tid_f = int(u_f[lo])
        f0 = int(trial_first_step[tid_f])
        nsf = int(n_steps_of[tid_f])
        b = int(u_b[lo])
        # (local step, kind, passing actions, marker), weight = passing runs with that sequence
        outcomes = [(refine(tid_f, int(u_p[i]), b), int(u_w[i])) for i in range(lo, hi)]
        top = max(o[0][0] for o in outcomes)
        at = [o for o in outcomes if o[0][0] == top]
        kinds: Counter[str] = Counter()
        for o, w in at:
            kinds[o[1]] += w
        kind = kinds.most_common(1)[0][0]
        if top >= nsf and kind == "skips":  # F left out the rest and ended: it stops
            kind = "stops"
        passing = sorted({p for o, _ in at for p in o[2]})
        marker = next(o[3] for o, _ in at if o[1] == kind or kind == "stops")
        n_at = sum(w for _, w in at)
        extra_lookups = min(o[4] for o, _ in at)
        nst = int(nst_a[tid_f])
        if kind == "none":
            step: int | None = None
            f_action = f_args = None
        elif top >= nsf:
            step = nst + 1
            f_action, f_args = END, None
        else:
            step = int(orig[f0 + top]) + 1
            f_action, f_args = act[f0 + top], argv[f0 + top]
        if kind in ("skips", "stops"):
            mstage = stage_of.get(marker, marker) if marker is not None else None
        elif kind == "none":
            mstage = None
        else:
            mstage = stg[f0 + top]
        rows.append(
            {
                "system": sys_a[tid_f],
                "task_id": task_a[tid_f],
                "trial": int(trial_a[tid_f]),
                "step": step,
                "kind": kind,
                "failing_action": f_action,
                "failing_args": f_args,
                "passing_actions": passing,
                "n_passing_at_point": n_at,
                "marker": marker,
                "stage": mstage,
                "termination": term_a[tid_f],
                "n_steps": nst,
                "extra_lookups": extra_lookups,
            }
        )
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
    counts["failing_runs_without_tool_calls"] = int((table["n_steps"] == 0).sum())
    counts["no_action_divergence"] = int((table["kind"] == "none").sum())
    counts["divergence_points"] = int((table["kind"] != "none").sum())
    lk_names = set(norm.settings.get("lookups", []))
    counts["points_at_lookup"] = int(
        ((table["kind"] != "none") & table["failing_action"].isin(lk_names)).sum()
    )
    counts["tolerated_extra_lookups"] = int(table["extra_lookups"].sum())
    return Divergence(
        table=table,
        tasks=_task_summary(table, sel),
        by_action=_aggregate(table, "marker"),
        by_stage=_aggregate(table, "stage"),
        counts=counts,
        settings={**norm.settings, "tolerate_extra_lookups": bool(tolerate_extra_lookups)},
    )


def _lcp_chunks(mat: np.ndarray, pf: np.ndarray, pp: np.ndarray, chunk: int) -> np.ndarray:
    """Longest common prefix (in columns) of rows pf and pp of ``mat`` (-1 = padding)."""
    width = mat.shape[1]
    lcp = np.empty(len(pf), dtype=np.int64)
    step_rows = max(1, chunk // width)
    for lo in range(0, len(pf), step_rows):
        hi = min(len(pf), lo + step_rows)
        a = mat[pf[lo:hi]]
        b = mat[pp[lo:hi]]
        b = np.where(b < 0, -2, b)  # padding never matches padding
        eq = np.concatenate([a == b, np.zeros((hi - lo, 1), dtype=bool)], axis=1)
        lcp[lo:hi] = np.argmin(eq, axis=1)
    return lcp


_Refine = Callable[[int, int, int], tuple[int, str, list[str], str | None, int]]


def _strict(
    steps: pd.DataFrame,
    n_trials: int,
    pf: np.ndarray,
    pp: np.ndarray,
    tok: np.ndarray,
    act: np.ndarray,
    islk: np.ndarray,
    trial_first_step: np.ndarray,
    n_steps_of: np.ndarray,
    chunk: int,
) -> tuple[np.ndarray, np.ndarray, _Refine]:
    """Block matrix (lookup stretches as order-free blocks), prefix lengths, refinement."""
    _block, bcode, bstart = _block_keys(steps)
    btid = steps["_tid"].to_numpy()[bstart] if len(bstart) else np.zeros(0, np.int64)
    nblocks = np.bincount(btid, minlength=n_trials) if n_trials else np.zeros(0, np.int64)
    first_block = np.concatenate([[0], np.cumsum(nblocks)[:-1]]) if n_trials else nblocks
    width = int(nblocks.max()) + 1 if n_trials and len(bstart) else 1
    mat = np.full((n_trials, width), -1, dtype=np.int64)
    if len(bstart):
        col = np.arange(len(bstart)) - first_block[btid]
        mat[btid, col] = bcode
    lcp = _lcp_chunks(mat, pf, pp, chunk)

    def block_steps(tid: int, b: int) -> range:
        """Step rows (global) of block b of trial tid."""
        gb = first_block[tid] + b
        s0 = bstart[gb]
        s1 = (
            bstart[gb + 1]
            if gb + 1 < len(bstart) and btid[gb + 1] == tid
            else (trial_first_step[tid] + n_steps_of[tid])
        )
        return range(s0, s1)

    def refine(tid_f: int, tid_p: int, b: int) -> tuple[int, str, list[str], str | None, int]:
        out = _refine(
            tid_f,
            tid_p,
            b,
            int(nblocks[tid_f]),
            int(nblocks[tid_p]),
            int(trial_first_step[tid_f]),
            mat,
            block_steps,
            tok,
            act,
            islk,
        )
        return (*out, 0)

    return mat, lcp, refine


def _tolerant(
    steps: pd.DataFrame,
    n_trials: int,
    pf: np.ndarray,
    pp: np.ndarray,
    tok: np.ndarray,
    act: np.ndarray,
    trial_first_step: np.ndarray,
    chunk: int,
) -> tuple[np.ndarray, np.ndarray, _Refine]:
    """Alignment under which extra lookups of the failing run are not a divergence.

    Each trial is read as alternating columns ``L0 A1 L1 A2 ... An Ln``: ``Ai``
    its i-th non-lookup action, ``Li`` the multiset of lookups between ``Ai``
    and ``Ai+1`` (possibly empty). A failing run F follows a passing run P at
    an action column when the tokens are equal, at a lookup column when F's
    multiset contains P's (F may look up more, never less or otherwise). The
    prefix length is the first column where F stops following P.
    """
    n = len(steps)
    tid = steps["_tid"].to_numpy().astype(np.int64)
    lookup = steps["lookup"].to_numpy(dtype=bool)
    is_act = (~lookup).astype(np.int64)
    codes, uniques = pd.factorize(steps["token"], sort=False)
    cum = np.cumsum(is_act)
    base = np.concatenate([[0], cum])[trial_first_step] if n_trials else np.zeros(0, np.int64)
    col = 2 * (cum - is_act - base[tid]) + is_act if n else np.zeros(0, np.int64)
    n_acts = np.bincount(tid[is_act == 1], minlength=n_trials) if n_trials else np.zeros(0)
    replen = (2 * n_acts + 1).astype(np.int64)
    width = int(replen.max()) if n_trials else 1
    flat = tid * width + col
    cnt = np.bincount(flat, minlength=n_trials * width).reshape(n_trials, width)
    cend = trial_first_step[:, None] + np.cumsum(cnt, axis=1)
    cstart = cend - cnt
    # lookup columns: order-free 64-bit key of the multiset (0 = empty); action columns: token
    rng = np.random.default_rng(20260511)
    r_lookup = rng.integers(1, 2**63, size=len(uniques), dtype=np.uint64)
    h = np.zeros(n_trials * width, dtype=np.uint64)
    lk_rows = np.flatnonzero(lookup)
    if len(lk_rows):
        lflat = flat[lk_rows]
        starts = np.flatnonzero(np.r_[True, lflat[1:] != lflat[:-1]])
        with np.errstate(over="ignore"):
            h[lflat[starts]] = np.add.reduceat(r_lookup[codes[lk_rows]], starts)
    h2 = h.reshape(n_trials, width)
    colidx = np.arange(width)
    valid = colidx[None, :] < replen[:, None]
    mat = np.full((n_trials, width), -1, dtype=np.int64)
    even = valid & (colidx[None, :] % 2 == 0)
    mat[even] = pd.factorize(h2[even])[0]
    acts = np.flatnonzero(is_act)
    mat[tid[acts], col[acts]] = codes[acts]

    cache: dict[tuple[int, int], bool] = {}

    def contains(tf: int, tp: int, c: int) -> bool:
        """Whether F's lookup multiset at column c contains P's."""
        k = (int(mat[tf, c]), int(mat[tp, c]))
        v = cache.get(k)
        if v is None:
            have = Counter(codes[cstart[tf, c] : cend[tf, c]].tolist())
            need = Counter(codes[cstart[tp, c] : cend[tp, c]].tolist())
            v = not (need - have)
            cache[k] = v
        return v

    lcp = np.empty(len(pf), dtype=np.int64)
    step_rows = max(1, chunk // width)
    for lo in range(0, len(pf), step_rows):
        hi = min(len(pf), lo + step_rows)
        a = mat[pf[lo:hi]]
        b = mat[pp[lo:hi]]
        b = np.where(b < 0, -2, b)
        eq = np.concatenate([a == b, np.zeros((hi - lo, 1), dtype=bool)], axis=1)
        pos = np.argmin(eq, axis=1)
        both = np.minimum(replen[pf[lo:hi]], replen[pp[lo:hi]])
        active = np.arange(hi - lo)
        while len(active):
            q = pos[active]
            active = active[(q % 2 == 0) & (q < both[active])]
            if not len(active):
                break
            ok = np.fromiter(
                (contains(int(pf[lo + r]), int(pp[lo + r]), int(pos[r])) for r in active),
                dtype=bool,
                count=len(active),
            )
            active = active[ok]
            eq[active, pos[active]] = True
            pos[active] = np.argmin(eq[active], axis=1)
        lcp[lo:hi] = pos
    size = cend - cstart

    def refine(tid_f: int, tid_p: int, c: int) -> tuple[int, str, list[str], str | None, int]:
        f0 = int(trial_first_step[tid_f])
        lf, lp = int(replen[tid_f]), int(replen[tid_p])
        extra = int((size[tid_f, 0:c:2] - size[tid_p, 0:c:2]).sum())
        if c >= lf and c >= lp:
            return (10**9, "none", [], None, extra)
        if c % 2 == 0:  # F's lookups here lack some of P's
            fs = range(int(cstart[tid_f, c]), int(cend[tid_f, c]))
            ps = range(int(cstart[tid_p, c]), int(cend[tid_p, c]))
            pool = Counter(str(tok[s]) for s in ps)
            left = []
            for s in fs:
                t = str(tok[s])
                if pool.get(t, 0) > 0:
                    pool[t] -= 1
                else:
                    left.append(s)
            missing = sorted(set(pool.elements()))
            for i, s in enumerate(left):
                same_tool = [m for m in missing if m.split("(", 1)[0] == act[s]]
                if same_tool:
                    return (s - f0, "differs", same_tool, str(act[s]), extra + i)
            first = next(str(act[s]) for s in ps if pool.get(str(tok[s]), 0) > 0)  # P's order
            return (fs.stop - f0, "skips", missing, first, extra + len(left))
        if c >= lf:  # F ended after following P: it stops
            pa = int(cstart[tid_p, c])
            return (int(cend[tid_f, lf - 1]) - f0, "stops", [str(tok[pa])], str(act[pa]), extra)
        fa = int(cstart[tid_f, c])
        if c >= lp:  # P ended, F acts
            return (fa - f0, "continues", [END], str(act[fa]), extra)
        pa = int(cstart[tid_p, c])
        p_tokens = [str(tok[pa])]
        f_rest = mat[tid_f, c + 2 : lf : 2]
        p_rest = mat[tid_p, c + 2 : lp : 2]
        fi = np.flatnonzero(p_rest == mat[tid_f, c])  # F's action comes later in P: F skipped
        pi = np.flatnonzero(f_rest == mat[tid_p, c])  # P's action comes later in F: F inserted
        if len(fi) and (not len(pi) or fi[0] <= pi[0]):
            return (fa - f0, "skips", p_tokens, str(act[pa]), extra)
        if len(pi):
            return (fa - f0, "extra", p_tokens, str(act[fa]), extra)
        if act[fa] == act[pa]:
            return (fa - f0, "differs", p_tokens, str(act[fa]), extra)
        return (fa - f0, "substitutes", p_tokens, str(act[fa]), extra)

    return mat, lcp, refine


def _refine(
    tid_f: int,
    tid_p: int,
    b: int,
    nb_f: int,
    nb_p: int,
    f0: int,
    mat: np.ndarray,
    block_steps: Callable[[int, int], range],
    tok: np.ndarray,
    act: np.ndarray,
    islk: np.ndarray,
) -> tuple[int, str, list[str], str | None]:
    """Local step of F where it leaves P (first unmatched column b), what P does, the kind."""
    if b >= nb_f and b >= nb_p:
        return (10**9, "none", [], None)  # identical block sequences
    if b >= nb_f:  # F ended, P continues
        ps = block_steps(tid_p, b)
        return (
            int(block_steps(tid_f, nb_f - 1).stop - f0) if nb_f else 0,
            "stops",
            [str(tok[s]) for s in ps],
            str(act[ps[0]]),
        )
    fs = block_steps(tid_f, b)
    if b >= nb_p:  # P ended, F continues
        return (fs.start - f0, "continues", [END], str(act[fs.start]))
    ps = block_steps(tid_p, b)
    f_lk, p_lk = bool(islk[fs.start]), bool(islk[ps.start])
    if f_lk and p_lk:
        pool = Counter(str(tok[s]) for s in ps)
        for s in fs:
            t = str(tok[s])
            if pool.get(t, 0) > 0:
                pool[t] -= 1
                continue
            same_tool = [p for p in pool.elements() if p.split("(", 1)[0] == act[s]]
            if same_tool:
                return (s - f0, "differs", sorted(set(same_tool)), str(act[s]))
            return (
                s - f0,
                "extra",
                sorted(set(pool.elements())) or [str(tok[ps.stop - 1])],
                str(act[s]),
            )
        missing = sorted(set(pool.elements()))
        return (fs.stop - f0, "skips", missing, missing[0].split("(", 1)[0])
    p_tokens = [str(tok[s]) for s in ps]
    # which gap does the alignment of the remainder prefer? the nearest rejoin
    f_rest = mat[tid_f, b + 1 : nb_f]
    p_rest = mat[tid_p, b + 1 : nb_p]
    fi = np.flatnonzero(p_rest == mat[tid_f, b])  # F's block appears later in P: F skipped
    pi = np.flatnonzero(f_rest == mat[tid_p, b])  # P's block appears later in F: F inserted
    if len(fi) and (not len(pi) or fi[0] <= pi[0]):
        return (fs.start - f0, "skips", p_tokens, str(act[ps.start]))
    if len(pi):
        return (fs.start - f0, "extra", p_tokens, str(act[fs.start]))
    if not f_lk and not p_lk and act[fs.start] == act[ps.start]:
        return (fs.start - f0, "differs", p_tokens, str(act[fs.start]))
    return (fs.start - f0, "substitutes", p_tokens, str(act[fs.start]))


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
