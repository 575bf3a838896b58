"""Trace analysis: per-trial tool calls, their alignment, and where failing runs diverge.

A **trace** is the ordered list of tool calls one trial made. For every task
with both passing and failing runs, each failing run is aligned against the
passing runs, and its *divergence point* is the earliest step where it does
something no passing run does at that point (or stops): a lead to inspect,
not proof of cause. Pure computation; :func:`passhat.read_traces` reads the
traces.

Modules
-------
:mod:`~passhat.traces.container`
    :class:`Traces` (steps and outcomes per trial, validated), canonical
    arguments, :func:`normalise` (tokens, stages, lookups).
:mod:`~passhat.traces.alignment`
    Aligning a failing run against passing runs (strict, or tolerating extra
    lookups) and reading off what differs.
:mod:`~passhat.traces.divergence_points`
    The rules and :func:`divergence`.
:mod:`~passhat.traces.result`
    Its result :class:`Divergence` (per run, per task, per tool and per
    stage), what it shows and every sentence it says.

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

from passhat.traces.container import (
    DEFAULT_LOOKUP_PATTERN,
    DEFAULT_SKIP_TOOLS,
    Traces,
    canonical_args,
    is_lookup_name,
    normalise,
)
from passhat.traces.divergence_points import divergence
from passhat.traces.result import Divergence, TraceInput

__all__ = [
    "DEFAULT_LOOKUP_PATTERN",
    "DEFAULT_SKIP_TOOLS",
    "Divergence",
    "TraceInput",
    "Traces",
    "canonical_args",
    "divergence",
    "is_lookup_name",
    "normalise",
]
