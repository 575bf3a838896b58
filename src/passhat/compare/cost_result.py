"""The result of :func:`passhat.compare_cost`: each system's cost per success and per
all-k-pass on the matched tasks, and the candidate's paired difference and ratio to the
baseline with their intervals.

Examples
--------
>>> import passhat as ph
>>> r = ph.compare_cost(ph.load_example("agents"), k=1, n_boot=200)
>>> r.to_dict()["schema"], r.to_frame()["metric"].iloc[0]
('passhat.comparison_cost', 'cost_per_run')
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import pandas as pd

from passhat._format import plural
from passhat._repr import Display, View
from passhat._result import Result, records

__all__ = [
    "FEW_FOR_DIFFERENCES",
    "FEW_TASKS",
    "CostComparison",
    "CostSettings",
    "cost_method",
    "interval_rule",
]

#: Below this many units (matched tasks, or clusters with a cluster coordinate) the intervals
#: are the symmetric bootstrap-t on the jackknife SE rather than the percentile bootstrap
#: (study compare_cost_coverage, 1,000 replicates: the percentile bootstrap covered 0.77–0.89
#: at 90% with 20 tasks, 0.83–0.90 with 50, 0.87–0.90 with 150, 0.72–0.79 with 5 clusters and
#: 0.84–0.89 with 25; the bootstrap-t 0.83–0.98, 0.85–0.92, 0.88–0.90, 0.89–0.93, 0.88–0.92).
FEW_TASKS = 100

#: Below this many units the notes warn that the differences' intervals may still be too narrow
#: when costs are skewed (study compare_cost_coverage: 0.83 for cost per run's difference with
#: 20 tasks and log-normal costs; every ratio ≥ 0.90 there).
FEW_FOR_DIFFERENCES = 50

#: What the study measured where the notes warn (filled from reports/compare_cost_coverage),
#: per quantity (the study drew costs; the same computation runs on durations).
_SHORT_DIFFERENCES = {
    "cost": "with 20 tasks and log-normal costs the differences covered 0.83–0.92 at 90%, "
    "cost / run's 0.83, with 50 tasks 0.85–0.91",
    "duration": "with 20 tasks and log-normal values per run the differences covered "
    "0.83–0.92 at 90%, the mean per run's 0.83, with 50 tasks 0.85–0.91",
}

#: Display labels of the metrics (with k where it enters), per quantity (``cost_of``).
_LABELS = {
    "cost": {
        "cost_per_run": "cost / run",
        "cost_per_success": "cost / success",
        "cost_per_all_k_pass": "cost / all-{k}-pass",
        "pass_hat_k_per_cost": "pass^{k} / cost",
    },
    "duration": {
        "cost_per_run": "duration / run (s)",
        "cost_per_success": "duration / success (s)",
        "cost_per_all_k_pass": "duration / all-{k}-pass (s)",
        "pass_hat_k_per_cost": "pass^{k} / second",
    },
}

#: The definitions under the view's table, per quantity ({mean}: mean or weighted mean).
_HOW = {
    "cost": "cost / run: the tasks' {mean} cost per run, every run counted (unscored ones "
    "too); cost / success = cost per run / mean; cost / all-k-pass = k × cost per run / "
    "pass^k; pass^k / cost = its inverse",
    "duration": "duration / run: the tasks' {mean} seconds per run (the duration_s column), "
    "every run counted (unscored ones too); duration / success = duration per run / mean; "
    "duration / all-k-pass = k × duration per run / pass^k; pass^k / second = its inverse",
}


@dataclass(frozen=True)
class CostSettings:
    """The options a cost comparison used (``clusters``: per pair, its number of clusters
    when the tasks are clustered; ``weights``: the task weights, equal, declared, category
    or mapping; ``cost_of``: what was compared, the ``cost`` column or ``duration``, the
    ``duration_s`` column)."""

    ks: tuple[int, ...]
    ci: float
    n_boot: int
    seed: int
    baseline: str
    intersect: bool
    clusters: dict[str, int] = field(default_factory=dict)
    weights: str = "equal"
    cost_of: str = "cost"


def cost_method(settings: CostSettings) -> str:
    """How the intervals were computed, with their scope (each row's ``interval`` names the
    rule its pair used).

    Examples
    --------
    >>> cost_method(CostSettings(ks=(1,), ci=0.9, n_boot=500, seed=0, baseline="a",
    ...                          intersect=False))[:40]
    'population scope (tasks like these): per'
    """
    unit = "clusters (each with all its tasks)" if settings.clusters else "matched tasks"
    weighted = (
        f" and its task weights ({settings.weights}, shared by both systems)"
        if settings.weights != "equal"
        else ""
    )
    return (
        f"population scope (tasks like these): percentile bootstrap over the {unit}, each "
        f"drawn with both systems' values{weighted} (the pairing kept), from {FEW_TASKS} of "
        f"them up; below {FEW_TASKS}, the symmetric bootstrap-t on the leave-one-out "
        "(jackknife) standard error (ratios on the log scale); "
        f"{settings.n_boot} resamples, seed {settings.seed}; no benchmark-scope interval (the "
        f"run-to-run spread of {_PLURAL[settings.cost_of]} is not modelled)"
    )


#: The quantity in the plural, per ``cost_of``.
_PLURAL = {"cost": "costs", "duration": "durations"}


def interval_rule(units: int, *, clustered: bool) -> str:
    """The rule of a pair's intervals in plain words, from its number of units.

    Examples
    --------
    >>> interval_rule(20, clustered=False)[:46]
    'symmetric bootstrap-t over 20 matched tasks (l'
    >>> interval_rule(150, clustered=True)
    'percentile bootstrap over 150 clusters'
    """
    unit, one = ("clusters", "cluster") if clustered else ("matched tasks", "task")
    if units < 2:
        return f"no interval (one {one})"
    if units >= FEW_TASKS:
        return f"percentile bootstrap over {units} {unit}"
    return (
        f"symmetric bootstrap-t over {units} {unit} (leave-one-{one}-out jackknife standard "
        "error, studentised by resampling; ratios on the log scale)"
    )


def _amount(x: float) -> str:
    """A number (4 significant digits), "—" when missing, "∞" / "−∞" when unbounded."""
    if x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA:
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.4g}"


def _with_interval(v: float, lo: float, hi: float) -> str:
    return f"{_amount(v)} [{_amount(lo)}, {_amount(hi)}]"


@dataclass(frozen=True, repr=False, eq=False)
class CostComparison(Result):
    """What each system pays per success and per all-k-pass, compared on matched tasks.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (baseline, candidate, metric, k): metric is cost_per_run,
        cost_per_success (k empty: neither depends on k), cost_per_all_k_pass or
        pass_hat_k_per_cost; base_value, cand_value (each system on the pair's tasks);
        difference (candidate − baseline) and ratio (candidate / baseline) with
        ``_lower`` / ``_upper`` ends at ``settings.ci``; difference_undefined and
        ratio_undefined (resamples where it was undefined, which makes its interval
        unbounded: resamples, and with the bootstrap-t also leave-one-out values); tasks;
        runs_without_cost (the pair's runs left out of their task's cost per run); interval
        (the rule of the pair's intervals in plain words, :func:`interval_rule`).
    missing : pandas.DataFrame
        Per system: runs_with_cost, runs_without_cost, tasks_without_cost.
    dropped : pandas.DataFrame
        The tasks left out of a pair (baseline, candidate, task, reason).
    settings : CostSettings
    notes : tuple of str
    source : dict
        The inputs' provenance by role.
    """

    schema: ClassVar[str] = "comparison_cost"

    table: pd.DataFrame
    missing: pd.DataFrame
    dropped: pd.DataFrame
    settings: CostSettings
    notes: tuple[str, ...] = ()
    source: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """How the intervals were computed, with their scope."""
        return cost_method(self.settings)

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def _document(self) -> dict[str, Any]:
        s = asdict(self.settings)
        s["k"] = list(s.pop("ks"))
        return {
            "inputs": dict(self.source),
            "settings": s,
            "method": self.method,
            # each row names its intervals' scope and method (a --csv row is read on its own)
            "cost": records(self.table.assign(scope="population", method=self.method)),
            "missing_cost": records(self.missing),
            "dropped": records(self.dropped),
            "notes": list(self.all_notes()),
        }

    def all_notes(self) -> tuple[str, ...]:
        """The notes: the inputs', missing costs, tasks left out, undefined resamples."""
        out = list(self.notes)
        of = self.settings.cost_of
        word = "a cost" if of == "cost" else "a duration_s"
        gone = self.missing[self.missing["runs_without_cost"] > 0]
        if len(gone):
            who = "; ".join(
                f"{s}: {plural(int(r), 'run')}, {plural(int(t), 'task')} with none"
                for s, r, t in zip(gone["system"], gone["runs_without_cost"],
                                   gone["tasks_without_cost"], strict=True)
            )  # fmt: skip
            out.append(
                f"runs without {word} ({who}): each task's {of} per run is the mean of its "
                "runs that have one; a task with none for a system is left out of that pair"
            )
        if len(self.dropped):
            out.append(
                f"{plural(len(self.dropped), 'task')} left out of the pairs (see dropped), e.g. "
                f"{self.dropped['task'].iloc[0]}: {self.dropped['reason'].iloc[0]}"
            )
        few = self.table.groupby(["baseline", "candidate"], sort=False)["tasks"].first()
        units = {p: self.settings.clusters.get(f"{p[0]} vs {p[1]}", t) for p, t in few.items()}
        small = {p: u for p, u in units.items() if 2 <= u < FEW_FOR_DIFFERENCES}
        if small:
            pairs = ", ".join(f"{b} vs {c}: {u}" for (b, c), u in small.items())
            unit = "clusters" if self.settings.clusters else "matched tasks"
            out.append(
                f"few {unit} ({pairs}): below {FEW_FOR_DIFFERENCES} {unit} the intervals of the "
                f"differences (candidate − baseline) may be too narrow when {_PLURAL[of]} are "
                f"skewed (study compare_cost_coverage: {_SHORT_DIFFERENCES[of]}); the ratios' held"
            )
        one = self.table.groupby(["baseline", "candidate"], sort=False)["tasks"].first()
        one = [f"{b} vs {c}" for (b, c), t in one.items()
               if t == 1 and f"{b} vs {c}" not in self.settings.clusters]  # fmt: skip
        if one:
            out.append(
                f"one matched task ({', '.join(one)}): no interval (a bootstrap over one task "
                "says nothing of how tasks differ)"
            )
        und = self.table[(self.table["difference_undefined"] > 0)
                         | (self.table["ratio_undefined"] > 0)]  # fmt: skip
        if len(und):
            out.append(
                f"{len(und)} value(s) undefined in some resamples (no all-k-pass for either "
                "system: ∞ − ∞ or 0 / 0); their intervals are unbounded"
            )
        return tuple(out)

    def _rules(self) -> list[str]:
        """Per pair, the rule its intervals used (the ``interval`` column)."""
        rules = self.table.groupby(["baseline", "candidate"], sort=False)["interval"].first()
        return [f"{b} vs {c}: {rule}" for (b, c), rule in rules.items()]

    def _mean_word(self) -> str:
        """The average over tasks, in words: "weighted mean" with task weights, else "mean"."""
        return "mean" if self.settings.weights == "equal" else "weighted mean"

    def view(self) -> Display:
        """Per pair: both systems' values and the difference and ratio with intervals."""
        t, of = self.table, self.settings.cost_of
        label = [
            _LABELS[of][m].format(k="k" if pd.isna(kv) else int(kv))
            for m, kv in zip(t["metric"], t["k"], strict=True)
        ]
        frame = pd.DataFrame({
            "candidate": t["candidate"].astype(str),
            "metric": label,
            "baseline value": [_amount(v) for v in t["base_value"]],
            "candidate value": [_amount(v) for v in t["cand_value"]],
            "difference [ci]": [_with_interval(*r) for r in zip(
                t["difference"], t["difference_lower"], t["difference_upper"], strict=True)],
            "ratio [ci]": [_with_interval(*r) for r in zip(
                t["ratio"], t["ratio_lower"], t["ratio_upper"], strict=True)],
            "tasks": t["tasks"].astype(str),
        })  # fmt: skip
        title = (
            f"{of if of == 'cost' else 'duration (seconds)'} compared with "
            f"{self.settings.baseline} (paired, matched tasks; "
            "difference = candidate − baseline, ratio = candidate / baseline)"
        )
        return Display((
            View(
                title, frame, left=frozenset({"candidate", "metric"}), section_by="candidate",
                notes=(f"{self.settings.ci:g} intervals, {self.method}",
                       *self._rules(),
                       _HOW[of].format(mean=self._mean_word()),
                       *self.all_notes()),
            ),
        ))  # fmt: skip
