"""The planner's shared argument checks, each raising :class:`~passhat.errors.OptionError` with
the rule and the parameter it concerns.

A probability in (0, 1), a whole number, exactly one quantity left ``None`` to solve for, a
simulation that fits in memory, a keyword renamed for one release. Every message names the
parameter as ``{param}``: Python shows its name (``flip_rate``), a command its option
(``--flip-rate``).

Examples
--------
>>> one_left_out({"flip_rate": 0.1, "ci": None, "runs": None}, call="runs_to_detect",
...              default=("ci", 0.95))
('runs', {'flip_rate': 0.1, 'ci': 0.95, 'runs': None})
>>> one_left_out({"half_width": None, "runs": None}, call="runs_for_width", example="runs=9")
Traceback (most recent call last):
...
passhat.errors.OptionError: give one of half_width or runs; the other is solved for (given: \
none); e.g. runs_for_width(runs=9)
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Literal

from passhat._labels import METRIC_LABELS
from passhat._validate import memory_text
from passhat.errors import OptionError

__all__ = [
    "ASSUMPTIONS",
    "MAX_SIMULATED",
    "METRICS",
    "MODEL_ASSUMPTIONS",
    "MetricName",
    "ceil",
    "check_metric",
    "check_simulation",
    "label",
    "one_left_out",
    "prob",
    "renamed_keyword",
    "whole",
]

#: What every closed form assumes about the runs.
ASSUMPTIONS: tuple[str, ...] = (
    "runs are independent",
    "runs are identically distributed (one fixed per-run rate)",
    "every run starts from a clean state",
)

#: What design and power assume about tasks and runs (the two-level Beta-Binomial model).
MODEL_ASSUMPTIONS: tuple[str, ...] = (
    "tasks are a random sample from the population the benchmark represents",
    "per-task success rates follow a Beta(μκ, (1−μ)κ) distribution",
    "runs of a task are independent given its rate, each from a clean state",
)

MetricName = Literal["mean", "pass_at_k", "pass_hat_k"]
METRICS: tuple[str, ...] = ("mean", "pass_at_k", "pass_hat_k")

#: The most simulated values one call holds at once (replicates × tasks): 10^8 floats, 0.8 GB.
MAX_SIMULATED = 100_000_000


def label(metric: str, k: int) -> str:
    """The metric's name with its k: "mean", "pass@3", "pass^5"."""
    return METRIC_LABELS[metric].replace("k", str(k))


def check_metric(metric: Any) -> str:
    """One of :data:`METRICS`, or the rule."""
    if metric not in METRICS:
        raise OptionError(
            f"{{param}} must be one of {', '.join(METRICS)} (got {metric!r})", param="metric"
        )
    return str(metric)


def prob(name: str, x: Any, *, closed_low: bool = False) -> float:
    """A number strictly inside (0, 1) (or [0, 1) when ``closed_low``)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{{param}} must be a number in (0, 1) (got {x!r})", param=name)
    v = float(x)
    lo_ok = v >= 0 if closed_low else v > 0
    if not (math.isfinite(v) and lo_ok and v < 1):
        bounds = "[0, 1)" if closed_low else "(0, 1)"
        raise OptionError(f"{{param}} must lie in {bounds} (got {v:g})", param=name)
    return v


def whole(name: str, x: Any, *, minimum: int = 0) -> int:
    """A whole number ≥ ``minimum`` (3.0 passes as 3)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{{param}} must be a whole number ≥ {minimum} (got {x!r})", param=name)
    v = float(x)
    if not math.isfinite(v) or v != math.floor(v) or v < minimum:
        raise OptionError(f"{{param}} must be a whole number ≥ {minimum} (got {x!r})", param=name)
    return int(v)


def check_simulation(replicates: int, tasks: int, *, arrays: int = 1) -> None:
    """Refuse a simulation of ``replicates`` × ``tasks`` values (per array) beyond
    :data:`MAX_SIMULATED`, naming the memory it would need, before anything is drawn.

    Examples
    --------
    >>> check_simulation(2000, 50)
    >>> check_simulation(10**12, 10)
    Traceback (most recent call last):
    ...
    passhat.errors.OptionError: replicates × tasks = 10,000,000,000,000 simulated values is more \
than 100,000,000 (it would need about 72.8 TiB of memory); lower replicates or tasks
    """
    cells = int(replicates) * int(tasks)
    if cells > MAX_SIMULATED:
        raise OptionError(
            f"replicates × tasks = {cells:,} simulated values is more than {MAX_SIMULATED:,} "
            f"(it would need about {memory_text(8 * cells * arrays)} of memory); lower "
            "replicates or tasks"
        )


def _names(names: list[str]) -> str:
    """``{a}, {b} and {c}``: placeholders for the parameters, listed."""
    shown = [f"{{{n}}}" for n in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def one_left_out(
    values: dict[str, Any],
    *,
    call: str,
    example: str | None = None,
    default: tuple[str, float] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The one quantity of ``values`` left ``None`` (to solve for), and the values.

    ``default`` fills a quantity left out together with another one (``ci`` 0.95:
    ``runs_to_detect(flip_rate=0.1)`` solves for the runs). Otherwise the rule, naming every
    quantity as a parameter and the ones given, with an example call ``call(example)``.
    """
    values = dict(values)
    missing = [name for name, v in values.items() if v is None]
    if default is not None and len(missing) == 2 and default[0] in missing:
        values[default[0]] = default[1]
        missing.remove(default[0])
    if len(missing) == 1:
        return missing[0], values
    names = list(values)
    if len(names) == 2:
        rule = f"give one of {{{names[0]}}} or {{{names[1]}}}; the other is solved for"
    else:
        rule = f"give all but one of {_names(names)}"
        if default is not None:
            rule += f" ({{{default[0]}}} defaults to {default[1]:g})"
        rule += "; the one left out is solved for"
    given = [name for name in names if values[name] is not None]
    raise OptionError(
        f"{rule} (given: {', '.join('{' + n + '}' for n in given) or 'none'})",
        also=tuple(names),
        example=f"{call}({example})" if example is not None else None,
    )


def renamed_keyword(old: str, value: Any, new: str, current: Any, *, default: Any = None) -> Any:
    """The value of keyword ``new`` when its old name ``old`` may still be given: the old
    value (with a :class:`DeprecationWarning`) when given, else ``current``. Giving both (``new``
    not at its ``default``) is an error."""
    if value is None:
        return current
    warnings.warn(
        f"{old}= is deprecated: use {new}= (the old name goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )
    if current is not None and current != default:
        raise OptionError(f"give {{{new}}} or {old} (its old name), not both", also=(new,))
    return value


def ceil(x: float) -> int:
    """Ceiling that ignores floating-point noise just above an integer.

    The slack is relative (1e-9) up to 10^4 and at most 10^-5: a slack of 1e-9·x cut
    3,000 runs off 2,995,732,273,552.5 (runs to detect a flip rate of 10^-12).
    """
    return math.ceil(x - 1e-9 * min(max(1.0, abs(x)), 1e4))
