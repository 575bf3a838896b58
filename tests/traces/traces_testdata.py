"""Trace test data built from action lists (imported by the tests in tests/traces/)."""

from __future__ import annotations

import random

import pandas as pd

import passhat as ph


def traces_of(runs: list[tuple[str, int, bool, list[str]]], args: dict | None = None) -> ph.Traces:
    """Build traces from (task, trial, success, [action, ...]) rows."""
    steps, trials = [], []
    for task, trial, ok, actions in runs:
        trials.append({"task_id": task, "trial": trial, "success": ok})
        for i, a in enumerate(actions):
            name, _, arg = a.partition(":")
            steps.append(
                {
                    "task_id": task,
                    "trial": trial,
                    "step": i,
                    "action": name,
                    "args": {"id": arg} if arg else {},
                }
            )
    return ph.Traces.from_frames(
        pd.DataFrame(steps, columns=["task_id", "trial", "step", "action", "args"]),
        pd.DataFrame(trials),
    )


def planted(seed: int = 0, tasks: int = 6, per_task: int = 8) -> ph.Traces:
    """Passing: lookups (any order), check_permission, refund, notify.

    Failing: the same lookups (any order) and then refund without the check:
    the planted divergence is step 3 (1-based), kind ``skips``, marker
    ``check_permission``. Control failures ``ctl`` make exactly a passing run's
    calls with the lookups reordered: no divergence may be reported for them.
    """
    rng = random.Random(seed)
    runs = []
    for t in range(tasks):
        task = f"task{t}"
        for trial in range(per_task):
            lookups = [f"get_user:u{t}", f"get_order:o{t}"]
            rng.shuffle(lookups)
            tail = [f"check_permission:o{t}", f"refund:o{t}", f"notify:u{t}"]
            role = trial % 4  # 0, 1 pass; 2 skips the check; 3 reorders only (control)
            if role in (0, 1):
                runs.append((task, trial, True, lookups + tail))
            elif role == 2:
                runs.append((task, trial, False, [*lookups, tail[1], tail[2]]))
            else:
                runs.append((task, trial, False, lookups[::-1] + tail))
    return traces_of(runs)
