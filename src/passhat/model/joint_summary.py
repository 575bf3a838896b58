"""What a joint fit shows and writes: :class:`JointFitSummary`.

:meth:`passhat.JointFit.summarize` builds it once: per system the posterior of mean, pass@k
and pass^k in both scopes, the model's parameters (θ_s, σ_β, κ), the between-system
correlations, the dispersion check, the diagnostics, the notes and the settings. Its one
display is what ``passhat fit --model joint`` (or ``rasch``) prints, and what a notebook and
``repr`` show of a joint fit; :meth:`JointFitSummary.to_dict` is its ``--json``.

Examples
--------
>>> from passhat.model.joint_build import joint_counts
>>> from passhat.model.joint_fit import fit_joint
>>> ds = joint_counts([[4] * 6, [4] * 6], [[4, 4, 3, 1, 0, 0], [4, 3, 1, 0, 0, 0]],
...                   systems=["A", "B"])
>>> s = fit_joint(ds, k=2, seed=0, chains=1, draws=100, tune=100).summarize()
>>> s.view().parts[0].frame["metric"].tolist()
['mean', 'pass@k', 'pass^k', 'mean', 'pass@k', 'pass^k']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._paper import PaperTable, level_words
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.estimators import METRIC_LABELS
from passhat.model.diagnostics import Diagnostics
from passhat.model.fit_summary import FitSettings
from passhat.model.text import (
    JOINT_SCOPES_NOTE,
    dispersion_line,
    interval,
    joint_diagnostics_line,
    saved_note,
    task_effects_line,
)

__all__ = ["JointFitSummary"]


@dataclass(frozen=True, repr=False, eq=False)
class JointFitSummary(Result):
    """A joint fit summarised for some k and interval level (see the module).

    Attributes
    ----------
    table : pandas.DataFrame
        :meth:`passhat.JointFit.summary`: per system, metric, k and scope the posterior mean,
        sd and interval.
    parameters : pandas.DataFrame
        :meth:`passhat.JointFit.hyper_summary`: θ_s per system, σ_β and κ.
    correlation : pandas.DataFrame
        :meth:`passhat.JointFit.correlation`: per pair of systems.
    dispersion : pandas.DataFrame
        :meth:`passhat.JointFit.dispersion_check`: per system and ``(all)``.
    diagnostics : Diagnostics
    settings : FitSettings
    method_label : str
    tasks : int
        The tasks fitted.
    notes : list of str
        Cells left out or not run, posterior means outside their interval.
    source : dict
        Where the data came from (path, format, sha256).
    """

    schema: ClassVar[str] = "joint_fit"

    table: pd.DataFrame
    parameters: pd.DataFrame
    correlation: pd.DataFrame
    dispersion: pd.DataFrame
    diagnostics: Diagnostics
    settings: FitSettings
    method_label: str
    tasks: int
    notes: list[str] = field(default_factory=list)
    source: dict[str, str] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        """The systems, in the table's order."""
        return [str(s) for s in pd.unique(self.table["system"])]

    def to_frame(self) -> pd.DataFrame:
        """The posterior table (:attr:`table`)."""
        return self.table.copy()

    def _document(self, *, output: str | None = None) -> dict[str, Any]:
        return {
            "input": dict(self.source),
            "settings": self.settings.joint_document(output=output),
            "notes": list(self.notes),
            "summary": records(self.table),
            "parameters": records(self.parameters),
            "correlation": records(self.correlation),
            "dispersion_check": records(self.dispersion),
            "diagnostics": self.diagnostics._document(),
        }

    def to_dict(self, *, output: str | None = None) -> dict[str, Any]:
        """The JSON document (``passhat fit --model joint --json``); ``output``: where the fit
        was saved."""
        return self._with_header(self._document(output=output))

    def _paper(self) -> PaperTable:
        """The table for papers: per system and metric (pass@k and pass^k at each k > 1) the
        posterior mean with its interval in each scope; the caption says the level, the model,
        the method and whether the diagnostics passed."""
        st = self.settings
        frame = _posterior_frame(self.table, st.k)
        metric = [
            m.replace("k", k) if k != "—" else m
            for m, k in zip(frame["metric"], frame["k"], strict=True)
        ]
        frame = frame.drop(columns="k").assign(metric=metric)
        diag = "passed" if self.diagnostics.passed else "FAILED (see passhat fit's output)"
        ones = " (pass@1 = pass^1 = mean)" if 1 in st.k else ""
        caption = (
            f"Posterior means with {level_words(st.ci)} equal-tailed intervals{ones}, "
            f"{len(self.systems)} systems × {self.tasks} tasks in one model ({st.model}): "
            f"{self.method_label}, seed {st.seed}, {st.chains} chains × {st.draws} draws. "
            "Benchmark scope: these tasks (cells a system did not run predicted from the "
            "task's effect); population scope: a new task like these. Intervals are marginal, "
            f"one system at a time. Sampler diagnostics {diag}."
        )
        return PaperTable(frame, caption, group="system")

    def view(self, *, output: str | None = None) -> Display:
        """Per system the posterior in both scopes; the task effects, the dispersion check and
        the diagnostics; then (left out by ``--quiet``) the scopes in words, the notes and,
        with ``output``, where the fit was saved."""
        st = self.settings
        notes = [JOINT_SCOPES_NOTE, *self.notes]
        if output is not None:
            notes.append(saved_note(output))
        diag = self.diagnostics
        lines = (
            task_effects_line(self.parameters, self.correlation),
            dispersion_line(self.dispersion, st.model),
            joint_diagnostics_line(
                diag.status(),
                diag.table,
                None if st.sampler == "imh" else diag.divergences["(all)"],  # IMH: none to count
            ),
        )
        title = (
            f"passhat fit --model {st.model} ({self.method_label}; {st.ci:.0%} posterior "
            f"intervals, seed {st.seed}; {len(self.systems)} systems × {self.tasks} tasks)"
        )
        view = View(
            title,
            _posterior_frame(self.table, st.k),
            notes=tuple(notes),
            lines=lines,
            left=frozenset({"system", "metric"}),
            section_by="system",
        )
        return Display((view,), min_width=110)


def _posterior_frame(summary: pd.DataFrame, ks: list[int]) -> pd.DataFrame:
    """One row per system and shown (metric, k): the benchmark and population intervals."""
    shown = [("mean", ks[0])] + [
        (m, kk) for kk in ks if kk > 1 for m in ("pass_at_k", "pass_hat_k")
    ]
    rows = []
    for s in pd.unique(summary["system"]):
        part = summary[summary["system"] == s]
        for m, kk in shown:
            got = part[(part["metric"] == m) & (part["k"] == (1 if m == "mean" else kk))]
            b = got[got["scope"] == "benchmark"].iloc[0]
            p = got[got["scope"] == "population"].iloc[0]
            k_text = "—" if m == "mean" else str(kk)
            rows.append([str(s), k_text, METRIC_LABELS[m], interval(b), interval(p)])
    return pd.DataFrame(rows, columns=["system", "k", "metric", "benchmark", "population"])
