"""Trace container: per-trial tool calls and outcomes (Traces), canonical arguments, normalising.

A **trace** is the ordered list of tool calls one trial made: per step the tool
name, its arguments (canonical JSON), the observation and a status (``ok`` or
``error``). :class:`Traces` holds two tables: ``steps`` (one row per tool call)
and ``trials`` (one row per trial: outcome, status, termination reason,
scenario fingerprint). The trace readers (:func:`passhat.read_traces`) build it
from τ-bench, τ²-bench, Inspect AI and generic JSONL step logs;
:meth:`Traces.from_frames` builds it from two tables.

:func:`normalise` prepares a trace for alignment: each step gets a comparison
**token** (tool name plus canonical arguments: keys sorted, no whitespace,
integral floats written as integers; ``ignore_keys`` dropped at any depth, or
the tool name alone with ``ignore_args``), a semantic **stage** (the user's
tool → stage mapping, else the tool name) and a **lookup** flag (read-only
tools, by the stage mapping when a tool's stage is ``lookup``, otherwise by
name: :data:`DEFAULT_LOOKUP_PATTERN`). Scratch-pad tools whose argument is
free text (``think`` by default, ``skip_tools``) are flagged ``skip``.

Examples
--------
>>> import pandas as pd
>>> steps = pd.DataFrame({"task_id": "t", "trial": [0, 0, 1], "action": ["get_user", "pay", "pay"]})
>>> trials = pd.DataFrame({"task_id": ["t", "t"], "trial": [0, 1], "success": [True, False]})
>>> Traces.from_frames(steps, trials)
Traces(2 trials, 3 steps, 1 tasks, 0 excluded)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from passhat._frames import show_value, to_numbers
from passhat._ids import check_spaced_ids, clean_ids
from passhat.errors import FormatError, OptionError, ValidationError

__all__ = [
    "DEFAULT_LOOKUP_PATTERN",
    "DEFAULT_SKIP_TOOLS",
    "STEP_COLUMNS",
    "TRIAL_COLUMNS",
    "Traces",
    "canonical_args",
    "is_lookup_name",
    "normalise",
]

#: Tool names treated as harmless, read-only lookups when no stage mapping says otherwise.
DEFAULT_LOOKUP_PATTERN = re.compile(
    r"^(get|search|list|find|lookup|look_up|read|query|fetch|describe|view|show|"
    r"calculate|think)(_|$)",
    re.IGNORECASE,
)
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
    try:
        if isinstance(args, str):
            text = args.strip()
            if text == "":
                args = {}
            else:
                try:
                    args = json.loads(text)
                except ValueError:  # not JSON (or a number too long to convert): the text
                    args = text
        if args is None:
            args = {}
        obj = _canon(args, frozenset(ignore_keys))
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except RecursionError as err:
        raise FormatError(
            "tool-call arguments nested too deeply to read (over ~1,000 levels of [ or {)"
        ) from err


def _canonical_column(
    values: Iterable[Any], where: str, ignore_keys: Iterable[str] = ()
) -> list[str]:
    """:func:`canonical_args` of every step, an error naming the step row."""
    out = []
    for row, a in enumerate(values, start=1):
        try:
            out.append(canonical_args(a, ignore_keys=ignore_keys))
        except FormatError as err:
            raise FormatError(f"{where}: step row {row}: {err}") from err
    return out


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
            for col in ("system", "task_id"):
                df[col] = clean_ids(df[col], column=col, where=where)
            check_spaced_ids(df, where)  # 't' and 't ' are not two tasks, as in the trial readers
            t = to_numbers(df["trial"]).astype(float)
            bad = t.isna() | (t != np.floor(t)) | (t < 0) | (t > 2.0**53)  # inf too
            if len(df) and bad.any():
                row = int(np.flatnonzero(bad.to_numpy())[0])
                raise ValidationError(
                    f"{where}: row {row + 1}: trial {show_value(df['trial'].iloc[row])} is not a "
                    "whole number from 0 to 2^53"
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
            st["args"] = _canonical_column(st["args"], where)
        if len(st):
            s = to_numbers(st["step"]).astype(float)
            if (s.isna() | np.isinf(s)).any():
                row = int(np.flatnonzero((s.isna() | np.isinf(s)).to_numpy())[0])
                raise ValidationError(f"{where}: step row {row + 1}: step is not a finite number")
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
        """Keep only some tasks (an unknown task is an error).

        Examples
        --------
        >>> steps = pd.DataFrame({"task_id": ["a", "b"], "trial": 0, "action": "pay"})
        >>> trials = pd.DataFrame({"task_id": ["a", "b"], "trial": 0, "success": True})
        >>> Traces.from_frames(steps, trials).select(tasks=["b"])
        Traces(1 trials, 1 steps, 1 tasks, 0 excluded)
        """
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
            where = str(traces.source.get("path", "traces"))
            args = pd.Series(_canonical_column(args, where, keys), index=args.index)
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
