"""The answer of a planner question (:class:`PlanResult`): what was solved for, the numbers, the
reasoning and the assumptions, and how it shows itself.

Every planner question leaves one quantity ``None`` and solves for it (pingouin's
``power_ttest(d=None, n=…)``); the result says which (``solved_for``), compares equal to its
answer and converts with ``int()``/``float()``. Its view is what ``passhat plan …`` prints: the
answer first, then the reasoning built from the numbers, the method and the assumptions; its
:meth:`~passhat._result.Result.to_dict` is the command's ``--json``.

Examples
--------
>>> from passhat import plan
>>> r = plan.runs_to_detect(flip_rate=0.1)
>>> r == 29, int(r), r.to_dict()["solved_for"]
(True, 29, 'runs')
>>> print(r.view().parts[0].title)
29 runs
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from passhat._format import fixed
from passhat._repr import Display, View
from passhat._result import Result
from passhat.planner._checks import ASSUMPTIONS, MetricName

# the checks lived here: their old names stay importable (planner.sequential uses _prob)
from passhat.planner._checks import METRICS as _METRICS  # noqa: F401
from passhat.planner._checks import MODEL_ASSUMPTIONS as _MODEL_ASSUMPTIONS  # noqa: F401
from passhat.planner._checks import ceil as _ceil  # noqa: F401
from passhat.planner._checks import check_simulation as check_simulation

if TYPE_CHECKING:  # pandas only for a table: a closed form's answer needs none
    import pandas as pd
from passhat.planner._checks import label as _label  # noqa: F401
from passhat.planner._checks import prob as _prob  # noqa: F401
from passhat.planner._checks import whole as _whole  # noqa: F401

__all__ = ["ASSUMPTIONS", "MetricName", "PlanResult", "answer_text", "cells", "explain_lines"]


def answer_text(solved_for: str, value: float | int, quantities: Mapping[str, Any]) -> str:
    """The answer as the first line of the output: ``29 runs``, ``failure rate ≤ 9.5%``.

    Examples
    --------
    >>> answer_text("half_width", 0.0499, {}), answer_text("ci", 0.6513, {})
    ('±4.99%', 'confidence = 65.13%')
    """
    s, v = solved_for, value
    if s in ("runs", "runs_per_task"):
        return f"{v} runs" + (" per task" if s == "runs_per_task" else "")
    if s == "tasks":
        return f"{v} tasks"
    if s == "k":
        return f"k = {v}"
    if s == "delta":
        return f"delta = {fixed(float(v), 4, sign=True)}"
    if s == "half_width":
        return f"±{v:.2%}"
    if s == "all_must_pass":
        q = quantities
        return (
            f"retry-until-green {q['retry_until_green']:.1%} vs all-must-pass "
            f"{q['all_must_pass']:.1%}"
        )
    if s == "failure_rate":
        return f"failure rate ≤ {v:.1%}"
    word = "confidence" if s == "ci" else s.replace("_", " ")
    return f"{word} = {v:.2%}"


def cells(df: pd.DataFrame, cols: tuple[tuple[str, str, str], ...]) -> pd.DataFrame:
    """The columns ``cols`` of ``df`` as display text: whole numbers, ``.4g``, ``.4f`` (never
    "-0.0000"), ``★`` for the optimum; headers renamed (two columns may share a header)."""
    import pandas as pd

    out = {}
    for i, (col, _, spec) in enumerate(cols):
        values = df[col].tolist()
        if col == "optimal":
            text = ["★" if v else "" for v in values]
        elif spec == "d":
            text = [str(int(v)) for v in values]
        elif spec.endswith("f"):
            text = [fixed(v, int(spec[1:-1])) for v in values]
        else:
            text = [f"{v:{spec}}" if spec else str(v) for v in values]
        out[i] = text
    frame = pd.DataFrame(out)
    frame.columns = [head for _, head, _ in cols]
    return frame


def explain_lines(
    reasoning: str, method: str | None, assumptions: tuple[str, ...]
) -> tuple[str, ...]:
    """The reasoning, the method (when there is one) and the assumptions, one line each."""
    lines = [reasoning]
    if method is not None:
        lines.append(f"Method: {method}.")
    lines.append("Assumes: " + "; ".join(assumptions) + ".")
    return tuple(lines)


@dataclass(frozen=True, repr=False, eq=False)
class PlanResult(Result):
    """The answer of a planning question, with the numbers, reasoning and assumptions.

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
    source : dict, optional
        Where the data behind the answer came from (path, format, sha256, as the reader
        recorded them; ``{}`` for data built in Python or stated assumptions); None for a
        closed form, which reads no data.

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.runs_to_detect(flip_rate=0.05)
    >>> r == 59, r.solved_for, r > 50, f"{r:d} runs"
    (True, 'runs', True, '59 runs')
    """

    schema: ClassVar[str] = "plan"

    query: str
    solved_for: str
    value: float | int
    quantities: Mapping[str, Any]
    reasoning: str
    assumptions: tuple[str, ...] = ASSUMPTIONS
    method: str = "closed form"
    source: Mapping[str, str] | None = field(default=None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PlanResult):
            return (self.query, self.solved_for, self.value, dict(self.quantities)) == (
                other.query,
                other.solved_for,
                other.value,
                dict(other.quantities),
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

    def to_frame(self) -> pd.DataFrame:
        """Every scalar quantity by name (one row each: quantity, value)."""
        import pandas as pd

        rows = [
            {"quantity": name, "value": v}
            for name, v in self.quantities.items()
            if not isinstance(v, list | dict | tuple)
        ]
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def _document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {} if self.source is None else {"input": dict(self.source)}
        doc.update(
            {
                "query": self.query,
                "solved_for": self.solved_for,
                "value": self.value,
                "quantities": dict(self.quantities),
                "reasoning": self.reasoning,
                "assumptions": list(self.assumptions),
                "method": self.method,
            }
        )
        return doc

    def answer(self) -> str:
        """The answer in words, as the output's first line (``29 runs``)."""
        return answer_text(self.solved_for, self.value, self.quantities)

    def view(self) -> Display:
        """The answer, then the reasoning, the method and the assumptions (``passhat plan``)."""
        lines = explain_lines(self.reasoning, self.method, self.assumptions)
        return Display((View(self.answer(), None, lines=lines),))
