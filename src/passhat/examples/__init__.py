"""Bundled example data.

* ``"agents"``: two simulated systems (``baseline`` and ``guided``) on the
  same 168 tasks × 5 decided runs, in 8 categories. Per-task success rates
  cluster the way real agents' do: many tasks always pass or always fail and
  a minority flip. Made by :func:`passhat.examples.simulate.simulate_agents`
  with its default seed; ``tests/examples`` regenerates it and checks that the
  bundled file is exactly that output.
* ``"abcd"``: the seeds' four-task example, tasks A–D with 5, 4, 2 and 0
  successes in 5 runs.

Examples
--------
>>> import passhat as ph
>>> ph.load_example("abcd")
Trials(20 runs, 1 system(s), 4 tasks, 0 unscored)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from passhat.errors import OptionError
from passhat.trials import Trials

__all__ = ["EXAMPLES", "example_path", "load_example"]

EXAMPLES = {
    "agents": "agents.csv",
    "abcd": None,
}


def example_path(name: str) -> Path:
    """Path of a bundled example file."""
    if name not in EXAMPLES or EXAMPLES[name] is None:
        raise OptionError(
            f"no bundled file for example {name!r}; file-backed examples: "
            f"{', '.join(k for k, v in EXAMPLES.items() if v)}"
        )
    return Path(str(resources.files("passhat.examples") / str(EXAMPLES[name])))


def _abcd() -> pd.DataFrame:
    rows = []
    for task, c in zip("ABCD", (5, 4, 2, 0), strict=True):
        for trial in range(5):
            rows.append(
                {"system": "seed-example", "task_id": task, "trial": trial, "success": trial < c}
            )
    return pd.DataFrame(rows)


def load_example(name: str) -> Trials:
    """Load a bundled example as :class:`~passhat.trials.Trials`.

    Parameters
    ----------
    name : {"agents", "abcd"}
    """
    if name not in EXAMPLES:
        raise OptionError(f"unknown example {name!r}; choose one of {', '.join(EXAMPLES)}")
    if name == "abcd":
        return Trials.from_frame(_abcd(), where="example abcd", source={"example": "abcd"})
    from passhat.io import read_trials

    trials = read_trials(example_path(name), format="csv")
    trials.source["example"] = name
    return trials
