"""The answer every planner query returns (:class:`PlanResult`) and the checks the planner shares.

:class:`PlanResult` compares equal to its answer and carries the reasoning and
the assumptions behind it. The helpers here check arguments the same way in
every planner module (a probability in (0, 1), a whole number, exactly one
quantity left ``None`` to solve for) and raise :class:`~passhat.errors.OptionError`
with the rule.

Examples
--------
>>> from passhat.planner import PlanResult
>>> r = PlanResult("runs_to_detect", "runs", 29, {"runs": 29}, "29 runs.")
>>> r == 29, int(r), r.to_dict()["solved_for"]
(True, 29, 'runs')
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from passhat._repr import View, as_html, as_text
from passhat._validate import memory_text
from passhat.errors import OptionError
from passhat.estimators import METRIC_LABELS

__all__ = ["ASSUMPTIONS", "MetricName", "PlanResult"]

#: What every closed form assumes about the runs.
ASSUMPTIONS: tuple[str, ...] = (
    "runs are independent",
    "runs are identically distributed (one fixed per-run rate)",
    "every run starts from a clean state",
)

#: What design and power assume about tasks and runs (the two-level Beta-Binomial model).
_MODEL_ASSUMPTIONS: tuple[str, ...] = (
    "tasks are a random sample from the population the benchmark represents",
    "per-task success rates follow a Beta(μκ, (1−μ)κ) distribution",
    "runs of a task are independent given its rate, each from a clean state",
)

MetricName = Literal["mean", "pass_at_k", "pass_hat_k"]
_METRICS: tuple[str, ...] = ("mean", "pass_at_k", "pass_hat_k")
_LABEL = METRIC_LABELS


def _label(metric: str, k: int) -> str:
    """The metric's name with its k: "mean", "pass@3", "pass^5"."""
    return _LABEL[metric].replace("k", str(k))


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class PlanResult:
    """The answer of a planning query, with the numbers, reasoning and assumptions.

    Compares equal to its answer (``runs_to_detect(...) == 29``) and converts
    with ``int()``/``float()``.

    Attributes
    ----------
    query : str
        The planner function that answered.
    solved_for : str
        The quantity that was ``None`` and got solved for.
    value : float or int
        The answer.
    quantities : dict
        Every input and derived quantity by name.
    reasoning : str
        One or two sentences built from the numbers.
    assumptions : tuple of str
        What the answer assumes.
    method : str
        How it was computed.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.runs_to_detect(flip_rate=0.05)
    >>> r == 59, r.solved_for, r > 50, f"{r:d} runs"
    (True, 'runs', True, '59 runs')
    """

    query: str
    solved_for: str
    value: float | int
    quantities: dict[str, Any]
    reasoning: str
    assumptions: tuple[str, ...] = ASSUMPTIONS
    method: str = "closed form"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PlanResult):
            return (self.query, self.solved_for, self.value, self.quantities) == (
                other.query,
                other.solved_for,
                other.value,
                other.quantities,
            )
        if isinstance(other, numbers.Number):
            return bool(self.value == other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.query, self.solved_for, self.value))

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __lt__(self, other: float) -> bool:
        return bool(self.value < float(other))

    def __le__(self, other: float) -> bool:
        return bool(self.value <= float(other))

    def __gt__(self, other: float) -> bool:
        return bool(self.value > float(other))

    def __ge__(self, other: float) -> bool:
        return bool(self.value >= float(other))

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def _view(self) -> View:
        frame = pd.DataFrame(
            {
                "quantity": list(self.quantities),
                "value": [
                    f"{v:.6g}" if isinstance(v, float) else str(v) for v in self.quantities.values()
                ],
            }
        )
        notes = (
            self.reasoning,
            f"Method: {self.method}.",
            "Assumes: " + "; ".join(self.assumptions) + ".",
        )
        return View(f"{self.query}: {self.solved_for} = {self.value}", frame, notes)

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "query": self.query,
            "solved_for": self.solved_for,
            "value": self.value,
            "quantities": dict(self.quantities),
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "method": self.method,
        }


# --------------------------------------------------------------- validation
def _prob(name: str, x: Any, *, closed_low: bool = False) -> float:
    """A number strictly inside (0, 1) (or [0, 1) when closed_low)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{name} must be a number in (0, 1) (got {x!r})")
    v = float(x)
    lo_ok = v >= 0 if closed_low else v > 0
    if not (math.isfinite(v) and lo_ok and v < 1):
        bounds = "[0, 1)" if closed_low else "(0, 1)"
        raise OptionError(f"{name} must lie in {bounds} (got {v:g})")
    return v


def _whole(name: str, x: Any, *, minimum: int = 0) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise OptionError(f"{name} must be a whole number ≥ {minimum} (got {x!r})")
    v = float(x)
    if not math.isfinite(v) or v != math.floor(v) or v < minimum:
        raise OptionError(f"{name} must be a whole number ≥ {minimum} (got {x!r})")
    return int(v)


#: The most simulated values one call holds at once (replicates × tasks): 10^8 floats, 0.8 GB.
MAX_SIMULATED = 100_000_000


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


def _one_none(query: str, **values: Any) -> str:
    missing = [k for k, v in values.items() if v is None]
    if len(missing) != 1:
        names = ", ".join(f"{k}=" for k in values)
        got = "none" if not missing else ", ".join(missing)
        raise OptionError(
            f"{query}: leave exactly one of {names} as None to solve for it (None: {got})"
        )
    return missing[0]


def _ceil(x: float) -> int:
    """Ceiling that ignores floating-point noise just above an integer.

    The slack is relative (1e-9) up to 10^4 and at most 10^-5: a slack of 1e-9·x cut
    3,000 runs off 2,995,732,273,552.5 (runs to detect a flip rate of 10^-12).
    """
    return math.ceil(x - 1e-9 * min(max(1.0, abs(x)), 1e4))
