"""Bundled example data: one real benchmark, one simulation, one worked example.

* ``"tau-airline"``: τ-bench's published results of GPT-4o on the airline
  domain (Sierra, MIT licence: ``tau_airline/LICENSE``), 50 tasks × 4 trials.
  Its published pass^1..4 are 0.420, 0.273, 0.220, 0.200. The bundled copy
  keeps what passhat reads of each of the 200 records (``task_id``, ``trial``,
  ``reward``, ``info.source`` and the last message of the conversation, which
  says how it ended: 35 KB instead of 4.1 MB); the task definitions, user
  costs, the agent's system prompt and the rest of the conversations are left
  out. Trajectories of six tasks with mixed outcomes (5, 15, 21, 41, 44, 45;
  24 runs, 141 KB) are kept whole, less the system prompt, for the traces
  example (:func:`load_example_traces`). 177 KB in all.
* ``"agents"``: two simulated systems (``baseline`` and ``guided``) on the
  same 168 tasks × 5 decided runs, in 8 categories. Per-task success rates
  cluster the way real agents' do: many tasks always pass or always fail and
  a minority flip. Made by :func:`passhat.examples.simulate.simulate_agents`
  with its default seed; ``tests/test_examples.py`` regenerates it and checks
  that the bundled file is exactly that output.
* ``"leaderboard"``: six simulated systems on the same 120 tasks × 5 runs,
  with a task effect shared by all systems (hard tasks are hard for all) and
  known system effects, two of them equal (a tie a leaderboard must not
  split). Made by
  :func:`passhat.examples.simulate_leaderboard.simulate_leaderboard` with its
  default seed; ``tests/test_examples.py`` checks the bundled file.
* ``"abcd"``: the seeds' four-task example, tasks A–D with 5, 4, 2 and 0
  successes in 5 runs.

The CLI reads them with ``--example NAME`` (``passhat traces --example
tau-airline`` for the trajectories).

Examples
--------
>>> import passhat as ph
>>> ph.load_example("abcd")
Trials(20 runs, 1 system(s), 4 tasks, 0 unscored)
>>> ph.load_example("tau-airline")
Trials(200 runs, 1 system(s), 50 tasks, 0 unscored)
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from passhat.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd

    from passhat.traces import Traces
    from passhat.trials import Trials

__all__ = ["EXAMPLES", "TRACE_EXAMPLES", "example_path", "load_example", "load_example_traces"]

#: Example name → bundled file (None: built in code) and its format.
EXAMPLES: dict[str, tuple[str | None, str | None]] = {
    "tau-airline": ("tau_airline/gpt-4o-airline.json", "tau-bench"),
    "agents": ("agents.csv", "csv"),
    "leaderboard": ("leaderboard.csv", "csv"),
    "abcd": (None, None),
}

#: Example name → bundled trace file (the trajectories of some of its runs).
TRACE_EXAMPLES: dict[str, tuple[str, str]] = {
    "tau-airline": ("tau_airline/traces/gpt-4o-airline.json", "tau-bench"),
}


def _unknown(name: str, known: Iterable[str], what: str = "example") -> OptionError:
    return OptionError(f"unknown {what} {name!r}; choose one of {', '.join(known)}")


def example_path(name: str, *, traces: bool = False) -> Path:
    """Path of a bundled example file (``traces=True``: of its trajectories).

    Examples
    --------
    >>> example_path("tau-airline").name, example_path("tau-airline", traces=True).parent.name
    ('gpt-4o-airline.json', 'traces')
    """
    if traces and name not in TRACE_EXAMPLES:
        raise _unknown(name, TRACE_EXAMPLES, "trace example")
    if name not in EXAMPLES:
        raise _unknown(name, EXAMPLES)
    rel = TRACE_EXAMPLES[name][0] if traces else EXAMPLES[name][0]
    if rel is None:
        raise OptionError(
            f"no bundled file for example {name!r}; file-backed examples: "
            f"{', '.join(k for k, v in EXAMPLES.items() if v[0])}"
        )
    return Path(str(resources.files("passhat.examples").joinpath(rel)))


def _abcd() -> pd.DataFrame:
    import pandas as pd

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
    name : {"tau-airline", "agents", "leaderboard", "abcd"}
        See the module docstring.

    Examples
    --------
    >>> import passhat as ph
    >>> est = ph.estimate(ph.load_example("tau-airline"), k=[1, 2, 3, 4])
    >>> est.wide()["pass_hat_k"].round(3).tolist()  # τ-bench's published pass^1..4
    [0.42, 0.273, 0.22, 0.2]
    """
    if name not in EXAMPLES:
        raise _unknown(name, EXAMPLES)
    if name == "abcd":
        from passhat.trials import Trials

        return Trials.from_frame(_abcd(), where="example abcd", source={"example": "abcd"})
    from passhat.io import read_trials

    trials = read_trials(example_path(name), format=EXAMPLES[name][1])
    trials.source["example"] = name
    return trials


def load_example_traces(name: str = "tau-airline") -> Traces:
    """Load the bundled trajectories of an example as :class:`~passhat.traces.Traces`.

    Parameters
    ----------
    name : {"tau-airline"}
        ``"tau-airline"``: six tasks with mixed outcomes (24 runs) of τ-bench's
        GPT-4o airline results, the same runs as in ``load_example("tau-airline")``.

    Examples
    --------
    >>> import passhat as ph
    >>> tr = ph.load_example_traces("tau-airline")
    >>> sorted(tr.trials["task_id"].unique().tolist())
    ['15', '21', '41', '44', '45', '5']
    """
    if name not in TRACE_EXAMPLES:
        raise _unknown(name, TRACE_EXAMPLES, "trace example")
    from passhat.io import read_traces

    traces = read_traces(example_path(name, traces=True), format=TRACE_EXAMPLES[name][1])
    traces.source["example"] = name
    return traces
