"""Which sections that follow the data's columns the report computes: partial credit (a
``score`` column), per category (a ``category`` task attribute) and cost (a ``cost`` column).

Each has an option of :func:`passhat.report` that mirrors :func:`passhat.estimate`'s:
``scores`` (True, False, or the threshold curve's thresholds), ``by`` ("category" or False)
and ``cost`` (True or False). Left at None (the default), the section is **detected**: on
when the data carry the column, and for scores only when they give partial credit (some
decided run's score is neither 0 nor 1: 0/1 scores would repeat the headline). A detected
column that cannot be used (a score outside [0, 1], a task without a category, a run without
a cost) leaves its section out with the reason as the section's note; the same column asked
for explicitly is an error naming the row. False turns a section off whatever the data hold.

:func:`plan_extras` decides from the data alone (it reads columns, computes no estimate);
:func:`passhat.report.build.compute_results` then asks :func:`passhat.estimate` for those
extras in its one call.

Examples
--------
>>> import passhat as ph
>>> plan = plan_extras(ph.load_example("agents"), scores=None, by=None, cost=None)
>>> plan.extras.scores, plan.extras.by_category, plan.extras.cost
(False, True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import xarray as xr

from passhat.cost_of import COLUMN, check_cost_of, missing_column
from passhat.errors import OptionError, ValidationError
from passhat.report.results import Extras
from passhat.trials import Trials

__all__ = ["ExtrasPlan", "plan_extras"]


@dataclass(frozen=True)
class ExtrasPlan:
    """What the report's estimate is asked for: ``scores`` and ``by`` as
    :func:`passhat.estimate` takes them, and the sections' record (``extras``)."""

    scores: bool | list[float]
    by: str | None
    extras: Extras


def _scores_option(value: Any) -> bool | list[float] | None:
    """``scores`` checked: None, a bool, or a sequence of thresholds (as a list)."""
    if value is None or isinstance(value, bool | np.bool_):
        return None if value is None else bool(value)
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise OptionError(
            f"{{param}} must be None (detect), True, False or a sequence of thresholds "
            f"(got {value!r})",
            param="scores",
        )
    return [float(t) for t in value]


def _detect_scores(data: Any) -> tuple[bool, str | None]:
    """(on, why not) for a detected score column: on when its scores give partial credit."""
    if not isinstance(data, Trials) or "score" not in data.frame.columns:
        return False, None
    from passhat.scores.table import partial_credit

    try:
        return partial_credit(data), None
    except ValidationError as err:
        return False, f"{err} (scores=False, --no-scores: this section left out without a word)"


def _detect_categories(ds: xr.Dataset) -> tuple[bool, str | None]:
    """(on, why not) for a detected category: on with two categories or more, every task
    naming one."""
    if "category" not in ds.coords:
        return False, None
    from passhat.groups.estimate import category_codes

    try:
        names, _ = category_codes(ds, "category")
    except ValidationError as err:
        return False, f"{err} (by=False, --no-by: this section left out without a word)"
    return len(names) >= 2, None


def plan_extras(
    data: Trials | xr.Dataset,
    *,
    scores: Any,
    by: Any,
    cost: Any,
    ds: xr.Dataset | None = None,
    cost_of: str = "cost",
) -> ExtrasPlan:
    """The extras the report computes, from the options (None: detect) and the data's
    columns (``ds``: its count table, built when not given).

    Raises
    ------
    OptionError
        An option of the wrong kind; ``cost=True`` for data without a cost column (a count
        table has none); ``cost_of="duration"`` (which turns the section on unless
        ``cost=False`` says otherwise: then an error) for data without a duration_s column.
    """
    asked = {"scores": _scores_option(scores), "by": by, "cost": cost}
    if by not in (None, False, "category"):
        raise OptionError(
            f"{{param}} must be None (detect), 'category' or False (got {by!r})", param="by"
        )
    if cost not in (None, True, False):
        raise OptionError(
            f"{{param}} must be None (detect), True or False (got {cost!r})", param="cost"
        )
    cost_of = check_cost_of(cost_of)
    if cost_of == "duration":  # asked for: on, and an error without the column
        if cost is False:
            raise OptionError("cost=False (--no-cost) and cost_of='duration' (--cost-of "
                              "duration) contradict each other; give one")  # fmt: skip
        cost = True
    has_cost = isinstance(data, Trials) and COLUMN[cost_of] in data.frame.columns
    if cost is True and not has_cost:
        if cost_of == "duration":
            where = f"{data.source['path']}: " if "path" in getattr(data, "source", {}) else ""
            raise OptionError(missing_column("duration", where))
        raise OptionError("{param} needs runs with a cost column", param="cost")
    skipped: list[tuple[str, str]] = []
    score_arg: bool | list[float]
    if asked["scores"] is None:
        score_arg, why = _detect_scores(data)
        skipped += [("scores", why)] if why else []
    else:
        score_arg = asked["scores"]
    on_by: bool = by == "category"
    if by is None:
        from passhat.estimators import as_counts

        on_by, why = _detect_categories(ds if ds is not None else as_counts(data))
        skipped += [("by_category", why)] if why else []
    extras = Extras(
        scores=score_arg is not False,
        by_category=on_by,
        cost=bool(cost) if cost is not None else has_cost,
        cost_of=cost_of,
        asked=asked,
        skipped=tuple(skipped),
    )
    return ExtrasPlan(scores=score_arg, by="category" if on_by else None, extras=extras)


def without_cost(plan: Extras, why: str) -> Extras:
    """The record with the cost section left out for ``why`` (a detected cost column whose
    runs cannot be priced)."""
    return replace(
        plan,
        cost=False,
        skipped=(
            *plan.skipped,
            ("cost", f"{why} (cost=False, --no-cost: this section left out without a word)"),
        ),
    )
