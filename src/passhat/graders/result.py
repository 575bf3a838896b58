"""The grader-corrected estimate (a result): mean, pass@k and pass^k corrected for a grader's
sensitivity and specificity, per system and k, beside the grader's own (uncorrected) values,
with both scopes' intervals (:func:`passhat.graders.correct` computes it).

Examples
--------
>>> import passhat as ph
>>> r = ph.correct_grader(ph.load_example("abcd"), sensitivity=0.95, specificity=0.9, k=2)
>>> r.to_frame().columns.tolist()[:6]
['system', 'k', 'metric', 'value', 'observed', 'tasks']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import num
from passhat._labels import METRIC_LABELS
from passhat._repr import Display, View
from passhat._result import Result, records
from passhat.clusters import BOOTSTRAP, FEW_CLUSTERS, cluster_notes
from passhat.graders.spec import GraderSpec, rate_text

__all__ = ["ASSUMPTION", "GraderCorrection", "population_method"]

#: The assumption every corrected number rests on, in words.
ASSUMPTION = (
    "assumes non-differential grader error: the grader passes a truly passing run with "
    "probability se and fails a truly failing run with probability sp on every task, "
    "independently of its other labels (and an audit is a random sample of runs)"
)

#: How each scope's interval was computed.
METHODS = {
    "benchmark": "parametric run bootstrap (c* ~ Binomial(n, (c+1/2)/(n+1))) x posterior "
    "(se, sp) draws, centred on the estimate, ends cut to [0, 1]",
    "population": "task bootstrap x posterior (se, sp) draws (percentile), ends cut to [0, 1]",
}


def population_method(clusters: int | None) -> str:
    """How the population interval was computed: the task bootstrap, or with ``clusters``
    the cluster bootstrap (not computed with one cluster).

    Examples
    --------
    >>> population_method(12)[:40]
    'cluster bootstrap (12 clusters, each res'
    """
    if clusters is None:
        return METHODS["population"]
    if clusters < 2:
        return "not computed: one cluster (the cluster bootstrap needs >= 2 clusters)"
    few = ""
    if clusters < FEW_CLUSTERS:
        few = f"; fewer than {FEW_CLUSTERS} clusters: may be too narrow"
    return (
        f"cluster bootstrap ({clusters} clusters, each resampled with all its tasks) x "
        f"posterior (se, sp) draws (percentile), ends cut to [0, 1]{few}"
    )


@dataclass(frozen=True, repr=False, eq=False)
class GraderCorrection(Result):
    """Mean, pass@k and pass^k corrected for grader error, with intervals.

    The correction: with q = a·p + b (a = se + sp − 1, b = 1 − sp) the grader's pass rate of a
    task whose true rate is p, p^k = a^{−k} Σ_j C(k, j) q^j (−b)^{k−j}, and C(c, j)/C(n, j) is
    unbiased for q^j; so each task's corrected value is unbiased for known (se, sp)
    (:mod:`passhat.graders.estimators`). Values are averaged with the task weights.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, k, metric[, scope]): value (corrected), observed (the grader's
        uncorrected unbiased value), tasks; with ``ci`` also scope, lower, upper, method.
    per_task : pandas.DataFrame
        system, task, n, c (grader passes), observed_rate (c / n) and corrected_rate
        ((c/n − b)/a: unbiased, not clipped to [0, 1]).
    grader : GraderSpec
        The grader's sensitivity and specificity and the audit behind them, if any.
    excluded : pandas.DataFrame
        Tasks left out (system, task, reason): no decided run.
    ci : float or None
        Level of the intervals; None without.
    n_boot, seed : int
        Draws of each scope's interval and their seed.
    invalid_draws : int
        Posterior draws with se + sp ≤ 1 (no correction exists there), left out of the
        intervals.
    audit_notes : tuple of str
        Notes on the audit column, if any.
    weights : str
        The task weights: equal, declared, category or mapping.
    effective_tasks : dict
        Per system whose weights differ, Kish's effective number of tasks.
    clusters : dict
        Per system, the number of clusters its tasks fall in ({} without clusters).
    rate_intervals : tuple, optional
        The equal-tailed intervals of se and sp at ``ci`` (0.95 without) from their Beta
        posteriors (:meth:`GraderSpec.intervals`; points when stated), computed with the rest.
    source : dict
        Where the data came from.
    """

    schema: ClassVar[str] = "grader_correction"

    table: pd.DataFrame
    per_task: pd.DataFrame
    grader: GraderSpec
    excluded: pd.DataFrame
    ci: float | None = None
    n_boot: int = 0
    seed: int = 0
    invalid_draws: int = 0
    audit_notes: tuple[str, ...] = ()
    weights: str = "equal"
    effective_tasks: dict[str, float] = field(default_factory=dict)
    clusters: dict[str, int] = field(default_factory=dict)
    rate_intervals: tuple[tuple[float, float], tuple[float, float]] | None = None
    source: dict[str, str] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def value(self, metric: str, k: int = 1, *, system: str | None = None) -> float:
        """The corrected value of ``metric`` at ``k`` (of the first system unless named)."""
        t = self.table
        system = t["system"].iloc[0] if system is None else system
        at_k = t["k"].isna() if metric == "mean" else t["k"].eq(k).fillna(False)
        rows = t[(t["system"] == system) & (t["metric"] == metric) & at_k.to_numpy(dtype=bool)]
        if rows.empty:
            raise KeyError(f"no {metric} at k = {k} for system {system!r}")
        return float(rows["value"].iloc[0])

    @property
    def notes(self) -> list[str]:
        """What the output states under the table: the grader, the method, the assumption."""
        g = self.grader
        out = [self.grader_line()]
        if g.stated:
            out.append(
                "se and sp were stated as points: the intervals ignore the grader's own "
                "uncertainty (give audit counts to include it)"
            )
        out += list(self.audit_notes)
        out.append(
            "correction: p^k = a^-k sum_j C(k,j) q^j (-b)^(k-j) with a = se + sp - 1, "
            "b = 1 - sp, q^j estimated by C(c,j)/C(n,j): unbiased per task for known se, sp "
            "(a measurement-error correction); corrected values may fall outside [0, 1]"
        )
        out.append(ASSUMPTION)
        if self.ci is not None:
            pops = dict.fromkeys(population_method(g) for g in self.clusters.values())
            out.append(f"benchmark: {METHODS['benchmark']}")
            out += [f"population: {m}" for m in (pops or [METHODS["population"]])]
            out.append(f"intervals: {self.n_boot} draws, seed {self.seed}; {self.weights_text()}")
        elif self.weights != "equal":
            out.append(self.weights_text())
        out += cluster_notes(self.clusters, ci=self.ci is not None, how=BOOTSTRAP)
        if self.invalid_draws:
            out.append(
                f"{self.invalid_draws} of {self.n_boot} posterior draws had se + sp <= 1 "
                "(no correction there) and are left out of the intervals"
            )
        outside = self.outside_tasks()
        if outside:
            out.append(
                f"{outside} of {len(self.per_task)} task(s) have a corrected rate outside "
                "[0, 1] (the grader's pass rate lies outside [1 - sp, se]): expected with few "
                "runs (a task that always passes shows n of n grader passes with probability "
                "se^n), else a sign that se and sp do not fit these data; the averages stay "
                "unbiased, interval ends are cut to [0, 1]"
            )
        for reason, count in self.excluded["reason"].astype(str).value_counts(sort=False).items():
            out.append(f"excluded {count} task(s): {reason}")
        return out

    @property
    def level(self) -> float:
        """The level of the grader's rate intervals: ``ci``, 0.95 without."""
        return self.ci if self.ci is not None else 0.95

    def weights_text(self) -> str:
        """The task weights in words (with Kish's effective tasks where they differ)."""
        if self.weights == "equal":
            return "equal task weights"
        eff = ", ".join(f"{s}: {v:.1f}" for s, v in self.effective_tasks.items())
        return (
            f"task weights {self.weights} (weighted mean of the tasks' corrected values"
            + (f"; Kish's effective tasks {eff}" if eff else "; all equal")
            + ")"
        )

    def outside_tasks(self) -> int:
        """Tasks (system, task cells) whose corrected rate lies outside [0, 1]."""
        r = self.per_task["corrected_rate"].to_numpy(dtype=float)
        return int(((r < -1e-12) | (r > 1 + 1e-12)).sum())

    def grader_line(self) -> str:
        """The grader's sensitivity and specificity, with their intervals or 'stated'."""
        g = self.grader
        if g.audit is None:
            return (
                f"grader: sensitivity {rate_text(g.sensitivity)}, specificity "
                f"{rate_text(g.specificity)} (stated)"
            )
        a = g.audit
        level = self.level
        (se_lo, se_hi), (sp_lo, sp_hi) = self.rate_intervals or g.intervals(level)
        return (
            f"grader: sensitivity {rate_text(g.sensitivity)} [{rate_text(se_lo)}, "
            f"{rate_text(se_hi)}] (TP {a.tp}, FN {a.fn}), specificity "
            f"{rate_text(g.specificity)} [{rate_text(sp_lo)}, {rate_text(sp_hi)}] "
            f"(TN {a.tn}, FP {a.fp}); {level:g} Beta posterior intervals ({g.source})"
        )

    def _grader_doc(self) -> dict[str, Any]:
        g = self.grader
        doc: dict[str, Any] = {
            "sensitivity": g.sensitivity,
            "specificity": g.specificity,
            "stated": g.stated,
            "source": g.source,
        }
        if g.audit is not None:
            a = g.audit
            doc["audit"] = {"tp": a.tp, "fn": a.fn, "tn": a.tn, "fp": a.fp}
        return doc

    def _document(self, *, per_task: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "input": dict(self.source),
            "grader": self._grader_doc(),
            "settings": self._settings(),
            "estimates": records(self.table),
            "excluded": records(self.excluded),
            "notes": self.notes,
        }
        if self.clusters:
            doc["clusters"] = dict(self.clusters)
        if per_task:
            doc["tasks"] = records(self.per_task)
        return doc

    def _settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ci": self.ci, "n_boot": self.n_boot, "seed": self.seed}
        if self.weights != "equal":
            out["weights"] = self.weights
        return out

    def to_dict(self, *, per_task: bool = False) -> dict[str, Any]:
        """The JSON document; ``per_task`` adds the per-task table."""
        return self._with_header(self._document(per_task=per_task))

    def view(self, *, per_task: bool = False) -> Display:
        """The corrected table (value beside the grader's observed value), then per task."""
        parts = [self._main_view()]
        if per_task:
            p = self.per_task
            frame = pd.DataFrame(
                {
                    "system": p["system"].astype(str),
                    "task": p["task"].astype(str),
                    "n": p["n"].astype(str),
                    "grader passes": p["c"].astype(str),
                    "observed rate": [num(v) for v in p["observed_rate"]],
                    "corrected rate": [num(v) for v in p["corrected_rate"]],
                }
            )
            parts.append(View("per task (corrected rate unbiased, not clipped)", frame))
        return Display(tuple(parts))

    def _main_view(self) -> View:
        t = self.table
        one = t[t["scope"] == "benchmark"] if self.ci is not None else t
        one = one.reset_index(drop=True)
        frame = pd.DataFrame(
            {
                "system": one["system"].astype(str),
                "k": ["—" if pd.isna(k) else str(k) for k in one["k"]],
                "metric": [METRIC_LABELS.get(m, m) for m in one["metric"]],
                "corrected": [num(v) for v in one["value"]],
                "grader's": [num(v) for v in one["observed"]],
            }
        )
        if self.ci is not None:
            for scope in ("benchmark", "population"):
                part = t[t["scope"] == scope].reset_index(drop=True)
                frame[scope] = [
                    _interval(lo, hi) for lo, hi in zip(part["lower"], part["upper"], strict=True)
                ]
        title = "mean, pass@k and pass^k corrected for grader error (grader's: uncorrected)"
        if self.ci is not None:
            title += f", {self.ci:g} intervals in two scopes"
        return View(
            title,
            frame,
            lines=(self.grader_line(),),
            notes=tuple(self.notes[1:]),
            section_by="system",
        )


def _interval(lo: float, hi: float) -> str:
    """``[lo, hi]`` with the table's number format, "—" where undefined."""
    if math.isnan(lo) or math.isnan(hi):
        return "—"
    return f"[{num(lo)}, {num(hi)}]"
