"""Which sections of the report use the task weights, and why the others do not.

With task weights (``report(weights=...)``, ``passhat report --weights``) the "Data" section
carries a table with one row per section of the report: whether its numbers are weighted,
read from the weights each result recorded when it was computed (never assumed), and for a
section that is not weighted the reason. Without weights (or ``"equal"``) there is no table and
the report is unchanged. Nothing is computed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from passhat.report.document import Column, Table
from passhat.report.sections._rows import weighted
from passhat.report.sections.categories import CATEGORY_TITLE
from passhat.report.sections.cost import COST_TITLE, DURATION_TITLE
from passhat.report.sections.cost_comparison import COST_COMPARISON_TITLE, DURATION_COMPARISON_TITLE
from passhat.report.sections.divergence import DIVERGENCE_TITLE
from passhat.report.sections.graders import GRADER_TITLE
from passhat.report.sections.model import MODEL_TITLE, MODEL_WEIGHTS
from passhat.report.sections.plan import PLAN_TITLE, PLAN_WEIGHTS
from passhat.report.sections.scores import SCORES_TITLE

if TYPE_CHECKING:
    from passhat.report.results import ReportResults

__all__ = ["weights_sentence", "weights_table", "weights_words"]

#: What each kind of task weights means, in words.
_WORDS = {
    "declared": "the runs' weight column",
    "category": "every category the same total weight, shared equally by its tasks",
    "mapping": "a weight per task (or per category) given to report()",
}


def _no_average(what: str) -> tuple[str, str]:
    """A section without averages over tasks: weights do not apply."""
    return "not applicable", f"{what}, no average over tasks"


def weights_words(label: Any) -> str:
    """The task weights in words.

    Examples
    --------
    >>> weights_words("category")
    'category (every category the same total weight, shared equally by its tasks)'
    """
    key = str(label)
    return f"{key} ({_WORDS[key]})" if key in _WORDS else key


def _label(weights: Any) -> str:
    """The label a result records for its weights (equal, declared, category, mapping)."""
    if weights is None:
        return "equal"
    return weights if isinstance(weights, str) else "mapping"


def _said(label: Any, *, how: str) -> tuple[str, str]:
    """A computed section's row: weighted (and how) or not, from the label it recorded."""
    if weighted(label):
        return "yes", how
    return "no", f"computed with {_label(label)} weights"


def _model_row(results: ReportResults) -> tuple[str, str]:
    label = results.model.weights if results.model is not None else None
    if weighted(label):
        return "benchmark scope only", MODEL_WEIGHTS
    return "no", f"the fit was made with {_label(label)} weights"


def _rows(results: ReportResults) -> list[tuple[str, str, str]]:
    """(section, weighted, how or why) for every section the report holds, in report order."""
    est = results.estimate.settings.get("weights")
    how = "the tasks' unbiased values averaged with the weights; intervals with them"
    rows = [
        ("1. Data", *_no_average("counts of runs and tasks")),
        ("2. Headline", *_said(est, how=how + "; the paired comparison and the k-curve too")),
    ]
    if results.ranking is not None:
        rows.append(("Leaderboard", *_said(results.ranking.settings.get("weights"), how=how)))
    ex = results.extras
    if ex.scores:
        rows.append((SCORES_TITLE, *_said(est, how=how)))
    if ex.by_category:
        rows.append(
            (
                CATEGORY_TITLE,
                *_said(
                    est,
                    how="each category's tasks with their weights renormalised within it; the "
                    "test of whether the categories differ weighs tasks equally (it asks "
                    "whether the categories' tasks differ)",
                ),
            )
        )
    if ex.cost and results.cost is not None:
        timed = results.cost.cost_of == "duration"
        rows.append(
            (DURATION_TITLE if timed else COST_TITLE,
             *_said(est, how=f"each task's mean {'duration' if timed else 'cost'} per run "
                    "averaged with them"))
        )  # fmt: skip
    cmp = results.cost_comparison
    if cmp is not None and not isinstance(cmp, str):
        rows.append(
            (
                DURATION_COMPARISON_TITLE
                if cmp.settings.cost_of == "duration"
                else COST_COMPARISON_TITLE,
                *_said(
                    cmp.settings.weights,
                    how="both systems' averages over the matched tasks with them; each "
                    "resampled task brings its weight",
                ),
            )
        )
    if results.grader is not None:
        rows.append((GRADER_TITLE, *_said(results.grader.weights, how=how)))
    rows.append(
        ("3. Clustered vs uniform spread", *_said(results.spread.settings.get("weights"), how=how))
    )
    if results.model is not None:
        rows.append((MODEL_TITLE, *_model_row(results)))
    rows.append(("5. Flaky tasks", *_no_average("one row per task")))
    if results.plan is not None:
        rows.append((PLAN_TITLE, "no", PLAN_WEIGHTS))
    if results.divergence is not None:
        rows.append((DIVERGENCE_TITLE, *_no_average("counts of runs")))
    return rows


def weights_table(results: ReportResults) -> Table | None:
    """The table of which sections use the task weights, or None without unequal weights.

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("agents"), k=[1, 2], model=False, plan=False,
    ...                       n_boot=200, weights="category", by=False, cost=False)
    >>> [r["weighted"] for r in weights_table(res).rows]  # data, headline, spread, flaky
    ['not applicable', 'yes', 'yes', 'not applicable']
    """
    if not weighted(results.settings.weights):
        return None
    return Table(
        id="data_weights",
        caption="Which sections use the task weights",
        columns=[
            Column("section", "Section"),
            Column("weighted", "Weighted"),
            Column("why", "How, or why not"),
        ],
        rows=[{"section": s, "weighted": w, "why": why} for s, w, why in _rows(results)],
        note="Each section's row is read from the weights its result recorded.",
    )


def weights_sentence(results: ReportResults) -> list[str]:
    """The Data section's sentence on the task weights (none without unequal weights).

    Examples
    --------
    >>> import passhat as ph
    >>> from passhat.report.build import compute_results
    >>> res = compute_results(ph.load_example("abcd"), k=[1, 2], model=False, plan=False,
    ...                       n_boot=200)
    >>> weights_sentence(res)
    []
    """
    label = results.settings.weights
    if not weighted(label):
        return []
    return [
        f"Task weights: {weights_words(_label(label))}. The sections that average over tasks "
        "use them, except where the Data section's table 'Which sections use the task "
        "weights' says not and why."
    ]
