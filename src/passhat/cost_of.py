"""What the cost figures measure: the runs' ``cost`` column (money, in its own unit) or their
``duration_s`` column (seconds): ``cost_of="cost"`` (the default) or ``cost_of="duration"``.

The same computations run on either column (cost per run, per success, per all-k-pass, pass^k
per unit); only the column read and the words change: with ``duration`` every label says
duration and seconds, never cost. Plain Python (no numpy, no pandas): the CLI imports it.

Examples
--------
>>> check_cost_of("duration"), COLUMN["duration"]
('duration', 'duration_s')
>>> label("cost_per_success", "duration")
'duration / success (s)'
>>> label("pass_hat_k_per_cost", "cost")
'pass^k / cost'
"""

from __future__ import annotations

from typing import Literal

from passhat.errors import OptionError

__all__ = ["COLUMN", "COST_OF", "CostOf", "check_cost_of", "label", "missing_column"]

CostOf = Literal["cost", "duration"]

#: The accepted values, in order (the first is the default).
COST_OF: tuple[str, ...] = ("cost", "duration")

#: The column each reads.
COLUMN = {"cost": "cost", "duration": "duration_s"}

#: Short labels of the figures (terminal tables), per quantity.
_LABELS = {
    "cost": {
        "runs": "runs paid",
        "total_cost": "total cost",
        "cost_per_run": "cost / run",
        "cost_per_success": "cost / success",
        "cost_per_all_k_pass": "cost / all-k-pass",
        "pass_hat_k_per_cost": "pass^k / cost",
    },
    "duration": {
        "runs": "runs timed",
        "total_cost": "total duration (s)",
        "cost_per_run": "duration / run (s)",
        "cost_per_success": "duration / success (s)",
        "cost_per_all_k_pass": "duration / all-k-pass (s)",
        "pass_hat_k_per_cost": "pass^k / second",
    },
}


def check_cost_of(cost_of: object) -> str:
    """``cost_of`` if it is ``"cost"`` or ``"duration"``, else an error naming the choices.

    Examples
    --------
    >>> check_cost_of("time")
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: cost_of must be 'cost' or 'duration' (got 'time')
    """
    if cost_of not in COST_OF:
        raise OptionError(
            f"{{param}} must be 'cost' or 'duration' (got {cost_of!r})", param="cost_of"
        )
    return str(cost_of)


def label(metric: str, cost_of: str) -> str:
    """The short label of ``metric`` (a cost table's column) for the quantity ``cost_of``."""
    return _LABELS[cost_of][metric]


def missing_column(cost_of: str, where: str = "") -> str:
    """The message for runs without the column ``cost_of`` reads (``where``: "path: ").

    Examples
    --------
    >>> missing_column("duration", "runs.csv: ")
    'runs.csv: duration per success needs a duration_s column (seconds per run); the runs have none'
    """
    if cost_of == "duration":
        return (
            f"{where}duration per success needs a duration_s column (seconds per run); "
            "the runs have none"
        )
    return f"{where}cost per success needs a cost column (a cost per run); the runs have none"
