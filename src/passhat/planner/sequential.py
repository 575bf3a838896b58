"""Anytime-valid gates: pass, fail or continue, valid however often the data are checked.

:func:`sequential` answers a release gate from the runs so far, and can be called again
after every batch: its error rates hold at whatever point the user stops. Two questions:

* **a failure bound** (``max_failure_rate=f₀``): is the benchmark's failure rate of the
  metric — 1 − pass^k, the chance that a task fails at least one of k runs, averaged over
  these tasks (1 − pass@k: fails all k; with k = 1, the per-run failure rate 1 − mean) —
  below f₀ (pass) or above it (fail)?
* **a baseline** (``margin=δ``): is the candidate's pass^k (or pass@k, mean) over these
  tasks at most δ below the baseline's (pass), or more than δ below it (fail)?

The data are cut into rounds (:mod:`~passhat.planner.rounds`): round r holds every task's
r-th block of k decided runs (in a comparison, paired with the baseline's r-th block of
the same task). Round means are independent across rounds with expectation the benchmark
value, so the wealth of a mixture of constant bets (:mod:`~passhat.planner.betting`) is a
nonnegative supermartingale under the null at the end of every complete round; Ville's
inequality bounds the chance that it ever reaches 1/α by α. Each decision is therefore a
sequential test at level α:

* P(pass) ≤ α when the true rate is ≥ f₀ (or the candidate is more than δ worse);
* P(fail) ≤ α when the true rate is ≤ f₀ (or the candidate is at most δ worse);

however many times the gate is called and whenever the caller stops. The confidence
sequence [lower, upper] holds each of its sides with probability ≥ 1 − α at all rounds at
once. A fixed-n test (the planner's ``runs_to_certify``, a paired z-test) gives none of
this: checked after every run of a stream with the failure rate exactly at the bound, a
fixed-n 5% test "passes" about 22% of the time (``tests/planner/test_sequential.py``).

Examples
--------
>>> import pandas as pd
>>> import passhat as ph
>>> runs = pd.DataFrame({"task_id": [f"t{i}" for i in range(10)] * 40,
...                      "trial": [r for r in range(40) for _ in range(10)],
...                      "success": True})
>>> g = ph.plan.sequential(ph.Trials.from_frame(runs), k=1, max_failure_rate=0.05)
>>> g.decision, g.rounds, g.exit_code
('pass', 40, 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray

from passhat._format import pct
from passhat._repr import View, as_html, as_text
from passhat.errors import InputError, OptionError
from passhat.estimators import METRIC_LABELS, WeightSpec
from passhat.planner.betting import Side, bounds, further_steps, log_evalue
from passhat.planner.rounds import BlockRounds, block_rounds
from passhat.trials import Trials

__all__ = ["EXIT_CODES", "SequentialResult", "sequential"]

Decision = Literal["pass", "fail", "continue"]

#: Exit status of each decision (docs/guide/cli.md): 0 pass, 1 fail, 3 continue.
EXIT_CODES: dict[str, int] = {"pass": 0, "fail": 1, "continue": 3}

_ASSUMPTIONS = (
    "runs of a task are independent given the task's success rate, each from a clean state",
    "the tasks are fixed in advance: the estimand is the (weighted) mean over these tasks "
    "(benchmark scope)",
    "round r is every task's r-th block of k decided runs in trial order; only complete "
    "rounds count",
    "whether a run goes unscored does not depend on the outcome it would have had",
)
_PAIRED = (
    "the baseline's and the candidate's runs of a task are independent of each other; round r "
    "pairs the r-th block of a task in both builds",
)


@dataclass(frozen=True, eq=False)
class SequentialResult:
    """A gate's decision with its e-values, confidence sequence and projection.

    Attributes
    ----------
    decision : "pass", "fail" or "continue"
    mode : "bound" or "baseline"
        A failure bound (``max_failure_rate``) or a comparison with a baseline (``margin``).
    estimand : str
        What is bounded, in words.
    metric, k, alpha : str, int, float
    null : float
        The failure bound f₀, or −δ (the candidate-minus-baseline difference at the margin).
    estimate : float
        The estimand's value from the complete rounds (a failure rate, or a difference).
    lower, upper : float
        The confidence sequence: each side holds with probability ≥ 1 − α at every round.
    e_pass, e_fail : float
        E-values for "pass" and "fail"; either decides when it reaches ``1 / alpha``.
    rounds, tasks : int
        Complete rounds used and tasks per round.
    runs_used, runs_set_aside : int
        Decided runs inside the complete rounds and beyond them (both builds together).
    further_rounds, further_runs : int or None
        If the data keep arriving at the current estimate: rounds, and decided runs to
        take (both builds), until the gate decides; None when it is not expected to
        (the estimate sits at the bound) or already decided (0).
    projected : "pass", "fail" or None
        The decision that projection reaches.
    reasoning : str
    assumptions, warnings : tuple of str
    systems : dict
        ``{"candidate": name}`` (and ``"baseline"``).
    """

    decision: Decision
    mode: Literal["bound", "baseline"]
    estimand: str
    metric: str
    k: int
    alpha: float
    null: float
    estimate: float
    lower: float
    upper: float
    e_pass: float
    e_fail: float
    rounds: int
    tasks: int
    runs_used: int
    runs_set_aside: int
    further_rounds: int | None
    further_runs: int | None
    projected: Decision | None
    reasoning: str
    assumptions: tuple[str, ...] = _ASSUMPTIONS
    warnings: tuple[str, ...] = ()
    systems: dict[str, str] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail, 3 continue (the CLI's exit status)."""
        return EXIT_CODES[self.decision]

    @property
    def threshold(self) -> float:
        """The e-value that decides: 1/α."""
        return 1.0 / self.alpha

    def summary(self) -> str:
        """One line fit for a CI log."""
        line = f"passhat gate: {self.decision}: {self.reasoning.split(': ', 1)[-1].split('. ')[0]}"
        return line.rstrip(".") + "."

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (every field, plus the exit code and threshold)."""
        return {
            "decision": self.decision,
            "exit_code": self.exit_code,
            "mode": self.mode,
            "estimand": self.estimand,
            "metric": self.metric,
            "k": self.k,
            "alpha": self.alpha,
            "null": self.null,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "e_pass": self.e_pass,
            "e_fail": self.e_fail,
            "threshold": self.threshold,
            "rounds": self.rounds,
            "tasks": self.tasks,
            "runs_used": self.runs_used,
            "runs_set_aside": self.runs_set_aside,
            "further_rounds": self.further_rounds,
            "further_runs": self.further_runs,
            "projected": self.projected,
            "reasoning": self.reasoning,
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
            **{f"{k}_system": v for k, v in self.systems.items()},
        }

    def table(self) -> pd.DataFrame:
        """The decision's numbers as a two-column table (quantity, value) of display text."""
        rows = [
            ("estimand", self.estimand),
            ("estimate", _num(self.estimate, self.mode)),
            (
                f"{1 - self.alpha:.0%} anytime bounds",
                f"{_num(self.lower, self.mode)} … {_num(self.upper, self.mode)}",
            ),
            ("e-value for pass / fail", f"{_e(self.e_pass)} / {_e(self.e_fail)} (decide at {self.threshold:g})"),
            ("complete rounds", f"{self.rounds} × {self.tasks} tasks × {self.k} run(s)"),
            ("runs used / set aside", f"{self.runs_used} / {self.runs_set_aside}"),
            (
                "further runs to decide",
                "—" if self.further_runs is None else f"{self.further_runs} ({self.projected})",
            ),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def _view(self) -> View:
        notes = (self.reasoning, *self.warnings, "Assumes: " + "; ".join(self.assumptions) + ".")
        return View(f"gate: {self.decision}", self.table(), notes)

    def __repr__(self) -> str:
        return as_text(self._view())

    def _repr_html_(self) -> str:
        return as_html(self._view())


def _e(x: float) -> str:
    if not math.isfinite(x) or x >= 1e6:
        return f"{x:.3g}"
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _num(x: float, mode: str) -> str:
    return pct(x, 2) if mode == "bound" else f"{x:+.4f}"


def _label(metric: str, k: int) -> str:
    return METRIC_LABELS[metric].replace("k", str(k)) if metric != "mean" else "mean"


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.floating):
        raise OptionError(f"alpha must be a number in (0, 1) (got {alpha!r})")
    a = float(alpha)
    if not (math.isfinite(a) and 0 < a < 1):
        raise OptionError(f"alpha must lie strictly between 0 and 1, e.g. 0.05 (got {alpha!r})")
    return a


def _kinds(
    per_task: NDArray[np.float64], values: NDArray[np.float64], scale: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Counts per (task scale, value): the e-value depends on nothing else."""
    cls, inv = np.unique(np.round(scale, 12), return_inverse=True)
    counts = np.zeros((cls.size, values.size))
    np.add.at(counts, inv, per_task)
    return (
        np.tile(values, cls.size),
        np.repeat(cls, values.size),
        counts.ravel(),
    )


def sequential(
    runs: Trials | xr.Dataset,
    baseline: Trials | xr.Dataset | None = None,
    *,
    k: int = 1,
    metric: str = "pass_hat_k",
    max_failure_rate: float | None = None,
    margin: float | None = None,
    alpha: float = 0.05,
    system: str | None = None,
    baseline_system: str | None = None,
    weights: WeightSpec = None,
) -> SequentialResult:
    """Decide a release gate from the runs so far: pass, fail or continue (anytime-valid).

    Give exactly one of ``max_failure_rate`` (a bound on the failure rate of ``runs``)
    or ``margin`` (a comparison with a baseline: ``baseline`` runs, or
    ``baseline_system`` inside ``runs``). Call it again after every batch of runs: the
    error rates below hold however often it is called (see the module docstring).

    Parameters
    ----------
    runs : Trials or count table
        The candidate's runs. A count table works only for k = 1 with equal runs per
        task and without a baseline (a gate needs trial order to cut blocks and pairs).
    baseline : Trials, optional
        The baseline's runs of the same tasks (one system, or name it with
        ``baseline_system``).
    k : int
        Runs per block: the gate bounds pass^k (or pass@k) of k-run blocks.
    metric : "pass_hat_k", "pass_at_k" or "mean"
        A block fails when any of its k runs fails (pass^k), when all do (pass@k); "mean"
        is the per-run rate (k = 1; the three coincide there).
    max_failure_rate : float in (0, 1), optional
        Pass when the benchmark failure rate (1 − metric) is shown below this; fail when
        shown above it.
    margin : float in [0, 1), optional
        Pass when the candidate's metric is shown at most ``margin`` below the
        baseline's; fail when shown more than ``margin`` below it. With 0 the gate
        passes only a candidate shown better.
    alpha : float in (0, 1)
        P(pass) ≤ α under the null of "pass", and P(fail) ≤ α under that of "fail".
    system, baseline_system : str, optional
        Which system of ``runs`` is the candidate; which is the baseline (in ``runs``
        when ``baseline`` is not given, else in ``baseline``).
    weights : None, "equal", "declared", "category" or mapping
        Task weights (the candidate's; :func:`passhat.estimators.task_weights`).

    Returns
    -------
    SequentialResult
        ``decision``, ``exit_code`` (0/1/3), e-values, the confidence sequence, and the
        further runs expected to decide if the estimate holds.

    Raises
    ------
    OptionError
        Both or neither of ``max_failure_rate`` and ``margin``; values out of range; a
        system not named or not found.
    InputError
        A count table where trial order is needed; builds with different tasks.

    References
    ----------
    .. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables
       by betting", *J. R. Stat. Soc. B* 86(1), 1–27 (2024).
    .. [2] A. Ramdas, P. Grünwald, V. Vovk and G. Shafer, "Game-theoretic statistics and
       safe anytime-valid inference", *Statist. Sci.* 38(4), 576–601 (2023).

    Examples
    --------
    >>> import passhat as ph
    >>> agents = ph.load_example("agents")
    >>> g = ph.plan.sequential(agents, baseline_system="baseline", system="guided",
    ...                        margin=0.02, k=1)
    >>> g.decision, g.rounds
    ('pass', 5)
    """
    a = _check_alpha(alpha)
    if (max_failure_rate is None) == (margin is None):
        raise OptionError(
            "give exactly one of max_failure_rate (a bound on the failure rate) and margin "
            "(how far below a baseline the candidate may be)"
        )
    with_baseline = baseline is not None or baseline_system is not None
    if max_failure_rate is not None:
        if with_baseline:
            raise OptionError(
                "max_failure_rate bounds one system; to compare with a baseline give margin"
            )
        f0 = _prob(max_failure_rate, "max_failure_rate")
        cand = block_rounds(runs, k=k, metric=metric, system=system, weights=weights)
        return _bound_gate(cand, f0, a, metric)
    d = _margin(margin)
    if not with_baseline:
        raise OptionError(
            "margin compares with a baseline: give its runs (baseline=…) or its system "
            "(baseline_system=…)"
        )
    if baseline is None:
        base_src, cand_src = runs, runs
        if system is None and isinstance(runs, Trials):
            others = [s for s in runs.systems if s != baseline_system]
            system = others[0] if len(others) == 1 else None
    else:
        base_src, cand_src = baseline, runs
    for src in (base_src, cand_src):
        if not isinstance(src, Trials):
            raise InputError(
                "a comparison with a baseline pairs the r-th runs of each task in both "
                "builds, so it needs trial tables (runs in order), not count tables"
            )
    base = block_rounds(
        base_src, k=k, metric=metric, system=baseline_system, what="baseline", option="--baseline-system"
    )
    cand = block_rounds(cand_src, k=k, metric=metric, system=system, weights=weights)
    if baseline is None and base.system == cand.system:
        raise OptionError(
            f"baseline and candidate are the same system ({cand.system!r}); name the candidate"
        )
    return _baseline_gate(base, cand, d, a, metric)


def _prob(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float | np.floating):
        raise OptionError(f"{name} must be a number in (0, 1) (got {x!r})")
    v = float(x)
    if not (math.isfinite(v) and 0 < v < 1):
        raise OptionError(f"{name} must lie strictly between 0 and 1, e.g. 0.01 (got {x!r})")
    return v


def _margin(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float | np.floating):
        raise OptionError(f"margin must be a number in [0, 1) (got {x!r})")
    v = float(x)
    if not (math.isfinite(v) and 0 <= v < 1):
        raise OptionError(f"margin must lie in [0, 1), e.g. 0.02 (got {x!r})")
    return v


def _decide(
    values: NDArray[np.float64],
    scale: NDArray[np.float64],
    counts: NDArray[np.float64],
    per_round: NDArray[np.float64],
    *,
    null: float,
    pass_side: Side,
    alpha: float,
    lo: float,
    hi: float,
) -> tuple[Decision, float, float, float, float, int | None, Decision | None]:
    fail_side: Side = "above" if pass_side == "below" else "below"
    kw = {"scale": scale, "lo": lo, "hi": hi}
    le_pass = log_evalue(values, counts, null=null, side=pass_side, **kw)
    le_fail = log_evalue(values, counts, null=null, side=fail_side, **kw)
    target = math.log(1 / alpha)
    decision: Decision = (
        "pass" if le_pass >= target and le_fail < target else "fail" if le_fail >= target else "continue"
    )
    lower, upper = bounds(values, counts, alpha=alpha, **kw) if counts.sum() > 0 else (lo, hi)
    steps: int | None = None
    projected: Decision | None = None
    if decision == "continue" and per_round.sum() > 0:
        steps, side = further_steps(
            values, counts, per_round, null=null, alpha=alpha, **kw
        )
        if side is not None:
            projected = "pass" if side == pass_side else "fail"
    return decision, math.exp(le_pass), math.exp(le_fail), lower, upper, steps, projected


def _set_aside_warning(b: BlockRounds, label: str) -> list[str]:
    if b.set_aside == 0:
        return []
    lo, hi = int(b.decided.min()), int(b.decided.max())
    return [
        f"{label}decided runs per task differ ({lo} to {hi}): the gate uses {b.rounds} complete "
        f"round(s) of {b.k} run(s) per task and sets {b.set_aside} run(s) aside until every "
        "task has them"
    ]


def _short_task(b: BlockRounds) -> str:
    i = int(np.argmin(b.decided))
    return f"task {b.tasks[i]!r} has {int(b.decided[i])} decided run(s) and a round needs {b.k}"


def _bound_gate(cand: BlockRounds, f0: float, alpha: float, metric: str) -> SequentialResult:
    T, R, k = len(cand.tasks), cand.rounds, cand.k
    label = _label(metric, k)
    if k == 1:
        estimand = f"per-run failure rate (1 − mean) over these {T} tasks"
    elif metric == "pass_at_k":
        estimand = f"chance a task fails all {k} runs (1 − {label}), mean over these {T} tasks"
    else:
        estimand = (
            f"chance a task fails at least one of {k} runs (1 − {label}), mean over these {T} tasks"
        )
    fails = (R - cand.passes).astype(float)
    per_task = np.stack([R - fails, fails], axis=1)
    values, scale, counts = _kinds(per_task, np.array([0.0, 1.0]), T * cand.weights)
    per_round = counts / R if R else np.zeros_like(counts)
    decision, e_pass, e_fail, lower, upper, steps, projected = _decide(
        values, scale, counts, per_round, null=f0, pass_side="below", alpha=alpha, lo=0.0, hi=1.0
    )
    estimate = float(np.dot(cand.weights, fails / R)) if R else float("nan")
    further = None if steps is None else cand.runs_to_reach(R + steps)
    warnings = _set_aside_warning(cand, "")
    reasoning = _reasoning(
        decision,
        f"the {estimand}",
        f"below {pct(f0)}",
        f"above {pct(f0)}",
        f"{pct(estimate, 2)} (anytime {1 - alpha:.0%} bounds {pct(lower, 2)}–{pct(upper, 2)})",
        e_pass,
        e_fail,
        alpha,
        R,
        cand.used,
        steps,
        further,
        projected,
        short=_short_task(cand) if R == 0 and T else None,
        guarantee=(
            f"the chance that this gate ever passes a system whose rate is {pct(f0)} or more "
            f"is at most {alpha:.0%}, however often it is checked"
        ),
    )
    return SequentialResult(
        decision=decision,
        mode="bound",
        estimand=estimand,
        metric=metric,
        k=k,
        alpha=alpha,
        null=f0,
        estimate=estimate,
        lower=lower,
        upper=upper,
        e_pass=e_pass,
        e_fail=e_fail,
        rounds=R,
        tasks=T,
        runs_used=cand.used,
        runs_set_aside=cand.set_aside,
        further_rounds=steps,
        further_runs=further,
        projected=projected,
        reasoning=reasoning,
        warnings=tuple(warnings),
        systems={"candidate": cand.system},
    )


def _baseline_gate(
    base: BlockRounds, cand: BlockRounds, margin: float, alpha: float, metric: str
) -> SequentialResult:
    only_b = sorted(set(base.tasks) - set(cand.tasks))
    only_c = sorted(set(cand.tasks) - set(base.tasks))
    if only_b or only_c:
        parts = []
        if only_b:
            parts.append(f"{len(only_b)} only in the baseline ({', '.join(only_b[:5])})")
        if only_c:
            parts.append(f"{len(only_c)} only in the candidate ({', '.join(only_c[:5])})")
        raise InputError(
            "a gate compares the same tasks in both builds; tasks differ: " + "; ".join(parts)
        )
    T, k = len(cand.tasks), cand.k
    R = min(base.rounds, cand.rounds)
    idx = pd.Index(base.tasks).get_indexer(cand.tasks)
    assert base.blocks is not None and cand.blocks is not None
    zb = base.blocks[idx, :R].astype(np.int8)
    zc = cand.blocks[:, :R].astype(np.int8)
    diff = zc - zb
    per_task = np.stack([(diff == v).sum(axis=1) for v in (-1, 0, 1)], axis=1).astype(float)
    values, scale, counts = _kinds(per_task, np.array([-1.0, 0.0, 1.0]), T * cand.weights)
    per_round = counts / R if R else np.zeros_like(counts)
    label = _label(metric, k)
    decision, e_pass, e_fail, lower, upper, steps, projected = _decide(
        values, scale, counts, per_round, null=-margin, pass_side="above", alpha=alpha, lo=-1.0, hi=1.0
    )
    estimate = float(np.dot(cand.weights, diff.mean(axis=1))) if R else float("nan")
    estimand = f"{label} of {cand.system} − {label} of {base.system}, mean over these {T} tasks"
    further = None
    if steps is not None:
        further = cand.runs_to_reach(R + steps) + base.runs_to_reach(R + steps)
    warnings = _set_aside_warning(base, "baseline: ") + _set_aside_warning(cand, "candidate: ")
    if base.rounds != cand.rounds:
        more, less = (base, cand) if base.rounds > cand.rounds else (cand, base)
        who = "baseline" if more is base else "candidate"
        warnings.append(
            f"the {who} has {more.rounds} complete rounds and the other build {less.rounds}: "
            f"the gate pairs the first {R}"
        )
    used = 2 * R * k * T
    aside = int(base.decided.sum() + cand.decided.sum()) - used
    short = None
    if R == 0 and T:
        short = _short_task(base if base.rounds == 0 else cand)
    shown = "at most" if margin > 0 else "not"
    reasoning = _reasoning(
        decision,
        f"{label} of {cand.system} against {base.system} ({T} tasks)",
        f"{shown} {margin:g} below the baseline" if margin > 0 else "above the baseline",
        f"more than {margin:g} below the baseline" if margin > 0 else "below the baseline",
        f"difference {estimate:+.4f} (anytime {1 - alpha:.0%} bounds {lower:+.4f} … {upper:+.4f})",
        e_pass,
        e_fail,
        alpha,
        R,
        used,
        steps,
        further,
        projected,
        short=short,
        guarantee=(
            f"the chance that this gate ever passes a candidate more than {margin:g} below the "
            f"baseline is at most {alpha:.0%}, however often it is checked"
        ),
    )
    return SequentialResult(
        decision=decision,
        mode="baseline",
        estimand=estimand,
        metric=metric,
        k=k,
        alpha=alpha,
        null=-margin,
        estimate=estimate,
        lower=lower,
        upper=upper,
        e_pass=e_pass,
        e_fail=e_fail,
        rounds=R,
        tasks=T,
        runs_used=used,
        runs_set_aside=aside,
        further_rounds=steps,
        further_runs=further,
        projected=projected,
        reasoning=reasoning,
        assumptions=_ASSUMPTIONS + _PAIRED,
        warnings=tuple(warnings),
        systems={"candidate": cand.system, "baseline": base.system},
    )


def _reasoning(
    decision: Decision,
    subject: str,
    pass_text: str,
    fail_text: str,
    estimate_text: str,
    e_pass: float,
    e_fail: float,
    alpha: float,
    rounds: int,
    used: int,
    steps: int | None,
    further: int | None,
    projected: Decision | None,
    *,
    short: str | None,
    guarantee: str,
) -> str:
    t = 1 / alpha
    if rounds == 0:
        return (
            f"continue: no complete round yet ({short}); the gate counts complete rounds only, "
            "so that it stays valid however often it is checked."
        )
    where = f"after {rounds} complete round(s) ({used} runs)"
    if decision == "pass":
        return (
            f"pass: {subject} is shown {pass_text}: e-value {_e(e_pass)} ≥ 1/α = {t:g} {where}; "
            f"{estimate_text}. Anytime-valid: {guarantee}."
        )
    if decision == "fail":
        return (
            f"fail: {subject} is shown {fail_text}: e-value {_e(e_fail)} ≥ 1/α = {t:g} {where}; "
            f"{estimate_text}."
        )
    text = (
        f"continue: {subject} is not yet shown {pass_text} nor {fail_text} {where}: "
        f"{estimate_text}; e-values {_e(e_pass)} for pass and {_e(e_fail)} for fail, "
        f"either decides at {t:g}."
    )
    if steps is not None and further is not None:
        text += (
            f" If the estimate holds, about {further} more run(s) ({steps} more round(s)) "
            f"decide: {projected}."
        )
    else:
        text += " At the current estimate no number of further runs is expected to decide."
    return text
