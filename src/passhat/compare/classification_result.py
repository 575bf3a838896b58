"""The result of :func:`passhat.classify`: per-task verdicts, and what they show.

:class:`Classification` holds one row per task in both builds (its verdict, counts,
p-values and a note), the tasks not compared and the settings. One display
(:meth:`Classification.view`) serves the terminal (``passhat compare --classify``), a
notebook and ``repr``: the tasks that changed, flaked or cannot be decided, the one-line
summary fit for a CI log, and what the verdicts control. The words of the verdicts (each
task's note, the guarantee of the correction) are written here too (:func:`task_notes`,
:func:`guarantee_text`). Nothing here tests a task.

Examples
--------
>>> import passhat as ph
>>> base = ph.counts_from_arrays([10, 10, 10], [10, 10, 0], tasks=["a", "b", "c"])
>>> cand = ph.counts_from_arrays([10, 10, 10], [10, 0, 0], tasks=["a", "b", "c"])
>>> res = ph.classify(base, cand)
>>> print(res.view().parts[0].frame[["task", "verdict", "base c/n"]].to_string(index=False))
task    verdict base c/n
   b regression    10/10
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.errors import OptionError

__all__ = [
    "BUILD_NOTE",
    "CORRECTIONS",
    "VERDICTS",
    "Classification",
    "guarantee_text",
    "task_notes",
]

#: Printed with every classification: per-task flags are not the build's verdict.
BUILD_NOTE = (
    "Per-task verdicts point at tasks to inspect; whether the build's pass^k got worse is "
    "decided by the paired comparison (passhat compare) or the sequential gate (passhat gate "
    "--baseline), not by counting flagged tasks."
)

#: Per correction across tasks: its name and the error rate it controls.
CORRECTIONS = {
    "holm": ("Holm across tasks", "FWER"),
    "bh": ("Benjamini–Hochberg across tasks", "FDR"),
    "none": ("per task, no correction", "α"),
}

#: The verdicts, in the order they are counted.
VERDICTS = (
    "regression",
    "possible_regression",
    "fixed",
    "possible_fix",
    "flaky",
    "redefined",
    "undecided",
    "stable_fail",
    "stable_pass",
)


@dataclass(frozen=True, repr=False, eq=False)
class Classification(Result):
    """Per-task verdicts of a baseline vs candidate comparison.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per task in both builds: ``task, verdict, n_base, c_base,
        n_cand, c_cand, unscored_base, unscored_cand, p_regression, p_fixed,
        p_regression_adj, p_fixed_adj, more_runs_base, more_runs_cand, note``.
    excluded : pandas.DataFrame
        Tasks not compared (``task``, ``reason``).
    settings : dict
        ``alpha``, ``min_runs``, ``multiplicity``, the test, the error rate it
        controls (``error_rate``), the systems compared.
    """

    schema: ClassVar[str] = "classification"

    table: pd.DataFrame
    excluded: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The per-task table (one row per task in both builds)."""
        return self.table.copy()

    def _document(self, *, fail_on: Sequence[str] = ()) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "counts": self.counts,
            "summary": self.summary(),
            "note": self.settings_text(),
            "verdicts": records(self.table),
            "excluded": records(self.excluded),
            "fail_on": list(fail_on),
            "failed": self.found(fail_on),
        }

    def to_dict(self, *, fail_on: Sequence[str] = ()) -> dict[str, Any]:
        """The JSON document (``passhat compare --classify --json``); ``fail_on`` names the
        verdicts a gate fails on, and ``failed`` lists those some task got.

        Examples
        --------
        >>> import passhat as ph
        >>> base = ph.counts_from_arrays([10, 10], [10, 10], tasks=["a", "b"])
        >>> cand = ph.counts_from_arrays([10, 10], [10, 0], tasks=["a", "b"])
        >>> doc = ph.classify(base, cand).to_dict(fail_on=["regression", "flaky"])
        >>> doc["schema"], doc["counts"]["regression"], doc["failed"]
        ('passhat.classification', 1, ['regression'])
        """
        return self._with_header(self._document(fail_on=fail_on))

    def view(self, *, changed: bool = True) -> Display:
        """The tasks that changed, flaked or cannot be decided (``changed``; none: no table),
        the tasks not compared (notes), the one-line summary and what the verdicts control
        (a note)."""
        parts = []
        shown = self.table[~self.table["verdict"].isin(["stable_pass", "stable_fail"])]
        if changed and len(shown):
            parts.append(_changed_view(shown))
        parts.append(View("", None, notes=tuple(_excluded_lines(self.excluded))))
        parts.append(View("", None, lines=(self.summary(),), notes=(self.settings_text(),)))
        return Display(tuple(parts), min_width=120)

    @property
    def counts(self) -> dict[str, int]:
        """Tasks per verdict (every verdict listed, zeros included)."""
        vc = self.table["verdict"].value_counts()
        return {v: int(vc.get(v, 0)) for v in VERDICTS}

    def has(self, verdict: str) -> bool:
        """Whether any task got this verdict."""
        if verdict not in VERDICTS:
            raise OptionError(f"unknown verdict {verdict!r}; verdicts: {', '.join(VERDICTS)}")
        return bool((self.table["verdict"] == verdict).any())

    def found(self, verdicts: Sequence[str]) -> list[str]:
        """Those of ``verdicts`` that some task got (a gate's ``--fail-on``), in their order.

        Examples
        --------
        >>> import passhat as ph
        >>> base = ph.counts_from_arrays([10, 10], [10, 10], tasks=["a", "b"])
        >>> ph.classify(base, base).found(["regression", "stable_pass"])
        ['stable_pass']
        """
        return [v for v in verdicts if self.has(v)]

    def tasks(self, verdict: str) -> list[str]:
        """Tasks with this verdict."""
        self.has(verdict)
        return self.table.loc[self.table["verdict"] == verdict, "task"].tolist()

    def summary(self) -> str:
        """One line fit for a CI log."""
        c = self.counts
        parts = ", ".join(f"{c[v]} {v}" for v in VERDICTS)
        s = self.settings
        line = (
            f"passhat classify: {len(self.table)} tasks compared "
            f"({s.get('base', 'base')} → {s.get('cand', 'cand')}; "
            f"Fisher exact one-sided, {s.get('correction', 'per task')}, "
            f"{s.get('error_rate', 'α')}={s.get('alpha')}, "
            f"min_runs={s.get('min_runs')}): {parts}"
        )
        if len(self.excluded):
            line += f"; {len(self.excluded)} task(s) in one build only, not compared"
        regs = self.tasks("regression")
        if regs:
            shown = ", ".join(regs[:5]) + (" ..." if len(regs) > 5 else "")
            line += f"; regressed: {shown}"
        return line

    def settings_text(self) -> str:
        """What the verdicts control, in one sentence (printed under the table)."""
        s = self.settings
        return f"{s.get('guarantee', '')} {BUILD_NOTE}".strip()


def _changed_view(shown: pd.DataFrame) -> View:
    """One row per task that changed, flaked or is undecided: counts, p-values, note."""
    rows = [
        [
            str(r.task),
            str(r.verdict),
            f"{r.c_base}/{r.n_base}",
            f"{r.c_cand}/{r.n_cand}",
            f"{r.p_regression:.3f}",
            f"{r.p_regression_adj:.3f}",
            f"{r.p_fixed:.3f}",
            f"{r.p_fixed_adj:.3f}",
            str(r.note),
        ]
        for r in shown.itertuples(index=False)
    ]
    heads = ["task", "verdict", "base c/n", "cand c/n", "p (regr.)", "adj.", "p (fixed)", "adj."]
    return View(
        "Tasks that changed, flaked or cannot be decided yet",
        pd.DataFrame(rows, columns=[*heads, "note"]),
        left=frozenset({"task", "verdict", "note"}),
    )


def _excluded_lines(excluded: pd.DataFrame) -> list[str]:
    """The tasks not compared, per reason (the first ten of each)."""
    return [
        f"not compared, {reason}: {', '.join(map(str, part['task'].tolist()[:10]))}"
        + (" ..." if len(part) > 10 else "")
        for reason, part in excluded.groupby("reason")
    ]


def guarantee_text(multiplicity: str, alpha: float, n_reg: int) -> str:
    """What the correction across tasks guarantees, in one sentence.

    Examples
    --------
    >>> guarantee_text("none", 0.05, 3)[:40]
    'No correction: each task is tested at 0.'
    """
    return {
        "holm": f"With Holm's correction, an unchanged build gets any false regression flag "
        f"with probability ≤ {alpha:g} (over {n_reg} testable tasks; Tarone's screen drops "
        "tasks whose runs cannot reach significance).",
        "bh": f"With Benjamini–Hochberg, false flags are on average ≤ {alpha:g} of the "
        f"regression flags (over {n_reg} tasks whose runs can reach {alpha:g}).",
        "none": f"No correction: each task is tested at {alpha:g} alone, so among many "
        "unchanged tasks some are flagged by chance.",
    }[multiplicity]


def task_notes(
    table: pd.DataFrame,
    *,
    half: NDArray[np.bool_],
    alpha: float,
    min_runs: int,
    correction: str,
    testable: tuple[int, int],
) -> list[str]:
    """Each task's note, from its row of the verdict table (everything but ``note``).

    ``half`` marks tasks whose scenario fingerprint is in one build only; ``testable`` is
    the number of tasks each correction (regression, fix) ran over.
    """
    t = table
    nb, cb = t["n_base"].to_numpy(), t["c_base"].to_numpy()
    nc, cc = t["n_cand"].to_numpy(), t["c_cand"].to_numpy()
    p_reg, p_fix = t["p_regression"].to_numpy(), t["p_fixed"].to_numpy()
    verdict = t["verdict"].to_numpy()
    notes = [""] * len(t)
    for i in np.flatnonzero(verdict == "undecided"):
        if nb[i] < min_runs or nc[i] < min_runs:
            notes[i] = f"fewer than min_runs={min_runs} decided runs in a build"
            continue
        m = int(t["more_runs_cand"].iat[i])
        direction = "regression" if cb[i] * nc[i] > cc[i] * nb[i] else "fix"
        notes[i] = (
            f"{m} more candidate run(s) with the same outcome would make the {direction} "
            f"significant at α={alpha}"
            if m >= 0
            else "no number of extra candidate runs reaches significance"
        )
    for i in np.flatnonzero(verdict == "flaky"):
        if cb[i] * nc[i] > cc[i] * nb[i]:
            notes[i] = f"success rate fell, not significant (p_regression = {p_reg[i]:.3f})"
        elif cb[i] * nc[i] < cc[i] * nb[i]:
            notes[i] = f"success rate rose, not significant (p_fixed = {p_fix[i]:.3f})"
    adj_reg, adj_fix = t["p_regression_adj"].to_numpy(), t["p_fixed_adj"].to_numpy()
    for i in np.flatnonzero(verdict == "possible_regression"):
        notes[i] = (
            f"p_regression = {p_reg[i]:.4f} ≤ α on this task alone; not after {correction} "
            f"(adjusted {adj_reg[i]:.3f}, {testable[0]} testable task(s)): rerun it"
        )
    for i in np.flatnonzero(verdict == "possible_fix"):
        notes[i] = (
            f"p_fixed = {p_fix[i]:.4f} ≤ α on this task alone; not after {correction} "
            f"(adjusted {adj_fix[i]:.3f}, {testable[1]} testable task(s))"
        )
    for i in np.flatnonzero(verdict == "redefined"):
        notes[i] = "scenario fingerprint changed: runs are not comparable"
    for i in np.flatnonzero(half & (verdict != "redefined")):
        notes[i] = (notes[i] + "; " if notes[i] else "") + "scenario fingerprint in one build only"
    return notes
