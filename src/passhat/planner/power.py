"""Power and sample size for comparing two systems on matched tasks (paired).

The paired analysis tests the mean of per-task differences of the unbiased
estimator; everything depends on σ_d(n), the SD of one task's difference with
n runs per system. It comes from one of two sources:

* **pilot runs** of both systems on the same tasks (``pilot=``): measured by
  the moment estimator of :mod:`passhat.planner.pilot` (no Beta, no copula);
* **a model** (``prior=``, :mod:`passhat.planner.copula`): A has the prior's
  (μ, κ), B the same κ and the μ whose population metric is A's + δ, and a
  task's rates under the two systems are linked by a Gaussian copula with
  latent correlation ``correlation`` — measured elsewhere (e.g. a joint model
  of both systems) or, when not given, **assumed** 0.5 and said so.

The between-system correlation decides the answer (τ-bench-like stated
assumptions: 883 / 608 / 429 tasks at ρ = 0 / 0.5 / 0.8), so every answer of
:func:`power` carries a sensitivity table over ρ (``quantities["sensitivity"]``).
One function answers every form of the question (:class:`PowerResult`): leave one of
``delta``, ``tasks``, ``runs_per_task``, ``power`` out; leave out both ``tasks`` and
``runs_per_task`` for the tasks each runs-per-task choice needs, the cheapest marked; give
``tasks`` and ``runs_per_task`` as sequences for a grid, simulated with
``method="simulation"`` (in parallel, :func:`~passhat.planner.sweep.sweep_options`).

The power is that of the test ``passhat compare`` runs, the sign-flip permutation test:
``method="sign-flip"`` (the default) computes it (:mod:`passhat.planner.flip_approx`, within
about half a point of simulation at the designs plans ask for, milliseconds),
``method="simulation"`` simulates it (:mod:`passhat.planner.power_search`), and
``method="t-test"`` gives the paired t-test's power instead (noncentral t; 1–3 points higher
than the sign-flip test's at a few runs per task; ``"analytic"`` is its deprecated old name).

Examples
--------
>>> from passhat import plan
>>> r = plan.power(delta=0.1, tasks=60, runs_per_task=5,
...     prior=plan.Assumptions(mean=0.6, icc=0.3))
>>> r.solved_for, 0.5 < float(r) < 1, r.quantities["correlation_source"]
('power', True, 'assumed')
>>> t = plan.power(delta=0.1, power=0.8, prior=plan.Assumptions(mean=0.6, icc=0.3))
>>> t.kind, int(t) == t.optimum["tasks"], int(t.table["optimal"].sum())
('designs', True, 1)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from passhat._format import fixed, pct, plural
from passhat._validate import check_k, resolve_seed
from passhat.errors import OptionError
from passhat.planner._checks import MODEL_ASSUMPTIONS, MetricName, check_metric
from passhat.planner._checks import ceil as _ceil
from passhat.planner._checks import label as _label
from passhat.planner._checks import prob as _prob
from passhat.planner._checks import whole as _whole
from passhat.planner.assumptions import Assumptions, _resolve_prior
from passhat.planner.copula import RHO_GRID, CopulaSpread, analytic_power, copula_model
from passhat.planner.flip_approx import (
    EXACT_MAX_RUNS,
    DifferenceMoments,
    difference_moments,
    fallback_share,
    flip_power,
    normal_moments,
)
from passhat.planner.flip_power import simulate_compare_power
from passhat.planner.pilot import PairedPilot, paired_pilot
from passhat.planner.power_result import (
    PowerResult,
    designs_reasoning,
    grid_reasoning,
    power_method,
    power_reasoning,
)
from passhat.planner.power_search import Question, SimSettings, simulated_answer
from passhat.planner.sweep import current_sweep_options, sweep

__all__ = ["power"]

#: The four quantities of a power question, one of which is solved for.
_QUANTITIES = ("delta", "tasks", "runs_per_task", "power")
#: The methods: compare's test computed (default) or simulated, or the paired t-test.
METHODS = ("sign-flip", "simulation", "t-test")
#: Most tasks a computed search for the number of tasks tries (the t-test's search has none).
_MAX_TASKS = 2**60


def _method_name(method: Any) -> str:
    """The method asked for, its deprecated name ``"analytic"`` (the t-test) mapped with a
    :class:`DeprecationWarning`."""
    if method == "analytic":
        warnings.warn(
            "plan.power(method='analytic') is deprecated: use method='t-test' (the paired t-test "
            "approximation), or the default 'sign-flip' (compare's test); 'analytic' goes in the "
            "next release",
            DeprecationWarning,
            stacklevel=3,
        )
        return "t-test"
    if method not in METHODS:
        raise OptionError(
            f"{{param}} must be 'sign-flip', 'simulation' or 't-test' (got {method!r})",
            param="method",
        )
    return str(method)


def _moments(spread: Any, delta: float, runs: int, rho: float | None) -> DifferenceMoments:
    """The per-task difference's moments at a design: the copula model's (up to
    :data:`~passhat.planner.flip_approx.EXACT_MAX_RUNS` runs per task), or a normal D with the
    measured (or the model's exact) SD — a pilot's spread, or more runs than that."""
    if isinstance(spread, CopulaSpread) and runs <= EXACT_MAX_RUNS:
        r = spread.rho if rho is None else float(rho)
        model = copula_model(spread.assumed, delta, spread.k, spread.metric, r)
        return difference_moments(model, runs=runs)
    k, metric = int(getattr(spread, "k", 1)), str(getattr(spread, "metric", "mean"))
    sd = spread.sd(delta, runs, rho)
    return normal_moments(delta, sd, runs=runs, k=1 if metric == "mean" else k, metric=metric)


class _PowerFunction:
    """power(δ, T, n) of one test at one correlation (sign-flip: moments cached per (δ, n))."""

    def __init__(self, test: str, spread: Any, rho: float | None, alpha: float) -> None:
        self.test, self.spread, self.rho, self.alpha = test, spread, rho, alpha
        self._seen: dict[tuple[float, int], DifferenceMoments] = {}

    def moments(self, delta: float, runs: int) -> DifferenceMoments:
        key = (float(delta), int(runs))
        if key not in self._seen:
            self._seen[key] = _moments(self.spread, key[0], key[1], self.rho)
        return self._seen[key]

    def __call__(self, delta: float, tasks: int, runs: int) -> float:
        if self.test == "t-test":
            sd = self.spread.sd(delta, runs, self.rho)
            return analytic_power(delta, sd, tasks, self.alpha)
        return flip_power(self.moments(delta, runs), tasks=int(tasks), alpha=self.alpha)


def _fewest_tasks(pw: Any, delta: float, runs: int, start: int, target: float) -> int | None:
    """The fewest tasks (≥ 2) whose power reaches ``target`` (power taken as increasing in
    the tasks): doubling from ``start``, then bisection; None beyond :data:`_MAX_TASKS`."""
    lo, hi = 1, max(2, start)
    while pw(delta, hi, runs) < target:
        if hi >= _MAX_TASKS:
            return None
        lo, hi = hi, min(2 * hi, _MAX_TASKS)
    while hi - lo > 1:  # pw(hi) reaches the target, pw(lo) does not (or lo = 1)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if pw(delta, mid, runs) >= target else (mid, hi)
    return hi


def _spread(
    prior: Any, pilot: Any, k: int, metric: str, rho: float | None, system: str | None
) -> CopulaSpread | PairedPilot | Any:
    """Where σ_d comes from: the pilot (measured) or the prior's copula model."""
    if pilot is not None and prior is not None:
        raise OptionError(
            "give {pilot} (paired pilot runs: the spread is measured) or {prior} (a model of "
            "one system plus an assumed correlation), not both",
            also=("pilot", "prior"),
        )
    if pilot is None:
        assumed, _ = _resolve_prior(prior, system=system)
        return CopulaSpread(assumed, k=k, metric=metric, correlation=rho)
    if callable(getattr(pilot, "sd", None)) and hasattr(pilot, "baseline"):
        if getattr(pilot, "metric", metric) != metric or getattr(pilot, "k", k) != k:
            raise OptionError(
                f"the pilot's spread is of {_label(pilot.metric, pilot.k)}, not of "
                f"{_label(metric, k)}: measure it for the metric to test"
            )
        return pilot  # a PairedPilot, or any spread with sd(delta, n, rho) and baseline
    return paired_pilot(pilot, metric=metric, k=k)


def _fewest_runs(
    pw: _PowerFunction, dl: float, t: int, *, k: int, max_runs: int, target: float, label: str
) -> int:
    """The fewest runs per task (≥ k) whose power reaches ``target`` on ``t`` tasks. The
    t-test's answer (doubling, then a scan) starts the sign-flip test's search: its power is
    close above, so the answer is a few runs up (doubling steps, then bisection)."""

    def unreachable(test: _PowerFunction) -> OptionError:
        return OptionError(
            f"{t} tasks cannot reach power {target:g} for {fixed(dl, sign=True)} in "
            f"{label}: even {max_runs} runs per task give {pct(test(dl, t, max_runs))} (task "
            "spread dominates); add tasks"
        )

    if pw.test == "t-test":
        n = k
        while pw(dl, t, n) < target:
            n = n * 2 if n < 64 else n + 64
            if n > max_runs:
                raise unreachable(pw)
        return next(
            (
                c
                for c in range(max(k, n // 2 if n <= 64 else n - 64), n + 1)
                if pw(dl, t, c) >= target
            ),
            n,
        )
    try:
        n = _fewest_runs(
            _PowerFunction("t-test", pw.spread, pw.rho, pw.alpha), dl, t, k=k,
            max_runs=max_runs, target=target, label=label,
        )  # fmt: skip
    except OptionError:
        if pw(dl, t, max_runs) < target:
            raise unreachable(pw) from None
        n = max_runs
    if pw(dl, t, n) >= target:
        while n > k and pw(dl, t, n - 1) >= target:
            n -= 1
        return n
    lo, step = n, 1
    while True:
        if lo >= max_runs:
            raise unreachable(pw)
        hi = min(max_runs, lo + step)
        if pw(dl, t, hi) >= target:
            break
        lo, step = hi, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if pw(dl, t, mid) >= target else (mid, hi)
    return hi


def _solve(
    solve: str,
    spread: Any,
    rho: float | None,
    *,
    delta: float | None,
    tasks: int | None,
    runs: int | None,
    target: float | None,
    alpha: float,
    k: int,
    label: str,
    max_runs: int,
    test: str = "t-test",
) -> dict[str, Any]:
    """The computed answer of one test (``"t-test"`` or ``"sign-flip"``) at one correlation
    (None: the spread's own)."""
    pw = _PowerFunction(test, spread, rho, alpha)
    if solve == "power":
        dl, t, n = float(delta), int(tasks), int(runs)  # type: ignore[arg-type]
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    if solve == "tasks":
        dl, n = float(delta), int(runs)  # type: ignore[arg-type]
        sd = spread.sd(dl, n, rho)
        zsum = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(target)
        t = max(2, _ceil((zsum * sd / abs(dl)) ** 2))
        if test == "t-test":
            while analytic_power(dl, sd, t, alpha) < target:  # type: ignore[operator]
                t += 1
        else:
            found = _fewest_tasks(pw, dl, n, t, float(target))  # type: ignore[arg-type]
            if found is None:
                raise OptionError(
                    f"no number of tasks up to {_MAX_TASKS:,} reaches power {target:g} for "
                    f"{fixed(dl, sign=True)} in {label} with compare's sign-flip test"
                )
            t = found
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    if solve == "runs_per_task":
        dl, t = float(delta), int(tasks)  # type: ignore[arg-type]
        n = _fewest_runs(pw, dl, t, k=k, max_runs=max_runs, target=float(target), label=label)  # type: ignore[arg-type]
        return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}
    t, n = int(tasks), int(runs)  # type: ignore[arg-type]
    base = float(spread.baseline)
    hi = min(0.999 - base, 0.999)
    if hi <= 1e-6 or pw(hi, t, n) < target:  # type: ignore[operator]
        raise OptionError(
            f"no improvement in {label} above {fixed(base)} reaches power {target:g} with "
            f"{plural(int(t), 'task')} × {plural(int(n), 'run')}"
        )
    goal = float(target)  # type: ignore[arg-type]
    if pw(1e-6, t, n) >= goal:  # so large a design detects any difference (no sign change)
        raise OptionError(
            f"{t:,} task{'' if t == 1 else 's'} × {n:,} run{'' if n == 1 else 's'} reach power "
            f"{target:g} for every improvement in {label} "
            "down to 10⁻⁶: there is no smallest detectable difference to report"
        )
    dl = float(optimize.brentq(lambda x: pw(x, t, n) - goal, 1e-6, hi, xtol=1e-6))
    return {"delta": dl, "tasks": t, "runs_per_task": n, "power": pw(dl, t, n)}


def _sensitivity(solve: str, spread: Any, rho_used: float, **kw: Any) -> list[dict[str, Any]]:
    """The answer over :data:`RHO_GRID` (and the correlation used), computed (``kw["test"]``)."""
    grid = sorted({*RHO_GRID, round(rho_used, 4)} if math.isfinite(rho_used) else set(RHO_GRID))
    rows = []
    for r in grid:
        try:
            ans = _solve(solve, spread, r, **kw)
            value: float | int | None = ans[solve]
            sd = spread.sd(ans["delta"], ans["runs_per_task"], r)
        except OptionError:
            value, sd = None, math.nan
        rows.append(
            {"correlation": r, "sd_difference": sd, solve: value, "used": r == round(rho_used, 4)}
        )
    return rows


def _is_seq(x: Any) -> bool:
    return isinstance(x, Sequence | np.ndarray) and not isinstance(x, str | bytes)


def _question(delta: Any, tasks: Any, runs: Any, power: Any) -> tuple[str, str]:
    """The form of the question (answer, designs, grid) and the quantity solved for."""
    values = dict(zip(_QUANTITIES, (delta, tasks, runs, power), strict=True))
    unset = [name for name, v in values.items() if v is None]
    if unset == ["tasks", "runs_per_task"]:
        return "designs", "tasks"
    if len(unset) != 1:
        given = [name for name, v in values.items() if v is not None]
        raise OptionError(
            "give three of {delta}, {tasks}, {runs_per_task} and {power} and the fourth is "
            "solved for, or leave out {tasks} and {runs_per_task} for a table of designs "
            f"(given: {', '.join('{' + n + '}' for n in given) or 'none'})",
            also=_QUANTITIES,
            example="power(delta=0.1, power=0.8, prior=plan.Assumptions(mean=0.6, icc=0.3))",
        )
    solve = unset[0]
    if solve == "tasks" and _is_seq(runs) and not _is_seq(tasks):
        return "designs", "tasks"
    return ("grid" if _is_seq(tasks) or _is_seq(runs) else "answer"), solve


def _check_inputs(
    *, k: Any, metric: Any, alpha: Any, correlation: Any, method: Any, power: Any, delta: Any
) -> tuple[int, float, float | None, float | None]:
    """k, α, ρ and the target power, checked (with the metric, the method and δ)."""
    kk = check_k(k)
    check_metric(metric)
    a_ = _prob("alpha", alpha)
    rho = None if correlation is None else float(correlation)
    if rho is not None and not (-1 < rho < 1):
        raise OptionError(f"{{param}} must lie in (−1, 1) (got {rho:g})", param="correlation")
    if method not in METHODS:
        raise OptionError(
            f"{{param}} must be 'sign-flip', 'simulation' or 't-test' (got {method!r})",
            param="method",
        )
    target = None
    if power is not None:
        target = _prob("power", power)
        if target <= a_:
            raise OptionError(
                f"{{param}} {target:g} must exceed {{alpha}} {a_:g}", param="power", also=("alpha",)
            )
    if delta is not None:
        dlt = float(delta)
        if not math.isfinite(dlt) or dlt == 0 or abs(dlt) >= 1:
            raise OptionError(
                f"{{param}} must be non-zero and in (−1, 1) (got {delta!r})", param="delta"
            )
    return kk, a_, rho, target


def _check_designs(tasks: Any, runs: Any, kk: int) -> None:
    """Every number of tasks (≥ 2) and of runs per task (≥ k), sequences included."""
    for t in tasks if _is_seq(tasks) else [] if tasks is None else [tasks]:
        _whole("tasks", t, minimum=2)
    for n in runs if _is_seq(runs) else [] if runs is None else [runs]:
        _whole("runs_per_task", n, minimum=kk)


def power(
    *,
    delta: float | None = None,
    tasks: int | Sequence[int] | None = None,
    runs_per_task: int | Sequence[int] | None = None,
    power: float | None = None,
    prior: Any = None,
    pilot: Any = None,
    k: int = 1,
    metric: MetricName = "mean",
    alpha: float = 0.05,
    correlation: float | None = None,
    method: Literal["sign-flip", "simulation", "t-test", "analytic"] = "sign-flip",
    replicates: int = 2000,
    seed: int | None = 0,
    system: str | None = None,
    max_runs_per_task: int = 1000,
) -> PowerResult:
    """Tasks × runs to detect a difference between two systems on matched tasks (paired).

    The paired analysis tests the mean of per-task differences of the unbiased
    estimator, as ``passhat compare`` does: by the sign-flip permutation test. Its power is
    computed by default (``method="sign-flip"``, :mod:`passhat.planner.flip_approx`: a
    normal approximation with the test's own conditional variance Σ Dᵢ², a lattice
    correction and Edgeworth terms; within about half a point of simulation at the designs
    plans ask for). ``method="simulation"`` simulates it: benchmarks drawn from the prior's
    model, each tested as compare tests it (:mod:`passhat.planner.flip_power`), the unknown
    searched with the same simulated benchmarks at every design
    (:mod:`passhat.planner.power_search`). ``method="t-test"`` gives the power of the
    two-sided paired t-test instead, noncentral t with T − 1 df and noncentrality
    ``|δ|√T/σ_d`` — 1–3 points above the sign-flip test's at a few runs per task (coarse
    differences); ``"analytic"`` is its old name (deprecated). Every answer carries both
    computed powers (``quantities["power_sign_flip"]``, ``quantities["power_t_test"]``).
    Give three of
    ``delta``, ``tasks``, ``runs_per_task``, ``power`` and the fourth is solved for.
    Solving for ``tasks`` starts from the normal-approximation
    sample size of a paired design, T = ((z_{1−α/2} + z_{power})·σ_d / δ)² [1]_,
    and searches from there for the fewest tasks whose power reaches the target.

    Two more forms of the question (``kind`` of the result): leave out both ``tasks`` and
    ``runs_per_task`` (or give ``runs_per_task`` as a sequence) for the tasks each choice of
    runs per task needs (default k … k + 15), the cheapest marked (the fewest runs per
    system; computed, the cheapest simulated with ``method="simulation"``); give ``tasks``
    and/or ``runs_per_task`` as sequences for the answer at every design of the grid — with
    ``method="simulation"`` the power of each design is simulated too, point i with seed
    ``seed + i``, in parallel through dask (:func:`~passhat.planner.sweep.sweep_options`
    picks the scheduler).

    σ_d(n), the SD of one task's difference with n runs per system, comes from
    ``pilot`` (paired pilot runs, measured: :func:`paired_pilot`) or from
    ``prior`` (one system's (μ, κ), B = A shifted by δ, rates linked by a
    Gaussian copula with latent ``correlation``). ``correlation=None`` with a
    prior means **assumed** 0.5 (stated in the answer); with a pilot, the
    pilot's own spread; a value is a what-if (or a joint model's estimate).
    ``quantities["sensitivity"]`` gives the answer at ρ = 0 … 0.9.

    Parameters
    ----------
    tasks, runs_per_task : int or sequence of int, optional
        Matched tasks and runs per task per system (sequences: a grid, or designs).
    pilot : Trials, count table, PairedPilot or spread, optional
        Paired pilot runs of both systems (one input with two systems), a
        :class:`PairedPilot`, or any object with ``sd(delta, n, rho)``,
        ``baseline`` and ``assumptions()`` (e.g. a joint model's).
    prior : Assumptions, fit or count table, optional
        One system's (μ, κ), when there is no pilot.
    k : int
        The k of pass^k / pass@k (1 by default: the mean's; a pilot needs 2k runs per task).
    method : {"sign-flip", "simulation", "t-test"}
        "sign-flip" (default): compare's test, computed. "simulation": ``replicates``
        benchmarks simulated from the prior's model, each tested by compare's sign-flip
        test, solved for that test (Monte-Carlo error reported); not with a pilot.
        "t-test": the paired t-test approximation (``"analytic"``, deprecated, is the same).
        With a pilot, "sign-flip" takes D normal with the measured SD (the lattice
        correction kept).

    Returns
    -------
    PowerResult
        ``solved_for``, the answer (``int()``/``float()``), ``reasoning``,
        ``assumptions``, ``quantities`` (with ``sensitivity``), ``table``.

    References
    ----------
    .. [1] S.-C. Chow, J. Shao and H. Wang, *Sample Size Calculations in Clinical
       Research*, 2nd ed., Chapman & Hall/CRC (2008), §3.1 (one-sample and paired
       designs: the test on the mean of paired differences, normal and t power).

    Examples
    --------
    >>> from passhat import plan
    >>> r = plan.power(delta=0.05, runs_per_task=5, power=0.8,
    ...     prior=plan.Assumptions(mean=0.77, icc=0.4))
    >>> r.solved_for, int(r) > 10
    ('tasks', True)
    >>> [row["correlation"] for row in r.quantities["sensitivity"]][:3]
    [0.0, 0.2, 0.4]
    """
    kind, solve = _question(delta, tasks, runs_per_task, power)
    how = _method_name(method)
    kk, a_, rho, target = _check_inputs(
        k=k, metric=metric, alpha=alpha, correlation=correlation, method=how, power=power,
        delta=delta,
    )  # fmt: skip
    _check_designs(tasks, runs_per_task, kk)
    ask = {
        "prior": prior, "pilot": pilot, "k": k, "metric": metric, "alpha": alpha,
        "correlation": correlation, "system": system, "max_runs_per_task": max_runs_per_task,
    }  # fmt: skip
    sim = {"method": how, "replicates": replicates, "seed": seed}
    if kind == "designs":
        return _designs(delta, power, runs_per_task, sim, **ask)  # type: ignore[arg-type]
    if kind == "grid":
        return _grid(solve, delta, tasks, runs_per_task, power, sim, **ask)
    kk = 1 if metric == "mean" else kk
    spread = _spread(prior, pilot, kk, metric, rho, system)
    kw: dict[str, Any] = {
        "delta": delta, "tasks": tasks, "runs": runs_per_task, "target": target, "alpha": a_,
        "k": kk, "label": _label(metric, kk), "max_runs": max_runs_per_task,
        "test": "t-test" if how == "t-test" else "sign-flip",
    }  # fmt: skip
    return _answer(solve, spread, rho, kw, sim, metric)


def _method(method: str, measured: bool) -> str:
    """The method asked for, refused where it cannot run (simulation needs the prior's model)."""
    if method == "simulation" and measured:
        raise OptionError(
            "{method}='simulation' simulates from the prior's Beta model; with pilot data use the "
            "computed power, method='sign-flip' or 't-test' (the pilot's spread is the "
            "measurement)",
            also=("method",),
        )
    return method


def _answer(
    solve: str,
    spread: Any,
    rho: float | None,
    kw: dict[str, Any],
    sim: dict[str, Any],
    metric: str,
) -> PowerResult:
    """One answer: solve by computation (compare's sign-flip test, or the t-test), then —
    with ``method="simulation"`` — solve again by simulating compare's own test; then both
    computed powers at the design, its sensitivity to ρ, its reasoning and assumptions."""
    measured = not isinstance(spread, CopulaSpread)
    method = _method(sim["method"], measured)
    ans = _solve(solve, spread, rho, **kw)
    if method == "simulation":
        seed = resolve_seed(sim["seed"])
        question = Question(spread, kw["alpha"], kw["target"], kw["max_runs"], kw["label"])
        settings = SimSettings(_whole("replicates", sim["replicates"], minimum=1), seed)
        ans = simulated_answer(solve, question, ans, settings)
    dl, t, n, pw = ans["delta"], ans["tasks"], ans["runs_per_task"], ans["power"]
    at = {**kw, "delta": dl, "tasks": t, "runs": n}
    computed = {
        name: _solve("power", spread, rho, **{**at, "test": name})["power"]
        for name in ("sign-flip", "t-test")
    }
    kk, a_ = kw["k"], kw["alpha"]
    sd = spread.sd(dl, n, rho)
    rho_used = float(spread.rho) if rho is None else rho
    source = "measured" if measured and rho is None else "assumed" if rho is None else "given"
    q: dict[str, Any] = {
        "metric": metric, "k": kk, "alpha": a_, "correlation": rho_used,
        "correlation_source": source, "method": method, "delta": dl, "tasks": t,
        "runs_per_task": n, "power": pw, "power_sign_flip": computed["sign-flip"],
        "power_t_test": computed["t-test"], "power_analytic": computed["t-test"],
        "sd_difference": sd,
        "fallback_share": fallback_share(_moments(spread, dl, n, rho), tasks=t),
        "baseline_value": float(spread.baseline),
        "sensitivity": _sensitivity(solve, spread, rho_used, **kw),
    }  # fmt: skip
    if method == "simulation":
        q.update({k: ans[k] for k in ("mc_error", "replicates", "seed", "n_flips", "branches")})
    if measured and isinstance(spread, PairedPilot):
        q["pilot"] = {
            "systems": list(spread.systems),
            "tasks": spread.tasks,
            "left_out": dict(spread.left_out),
            "var_task_spread": [spread.var_g_a, spread.var_g_b],
            "var_difference": spread.var_g_diff,
        }
    reasoning = power_reasoning(
        solve, q, target=kw["target"], measured_on=getattr(spread, "tasks", ""),
        kind=getattr(spread, "correlation_kind", ""),
    )  # fmt: skip
    assumptions = tuple(spread.assumptions())
    if rho is not None and measured:
        assumptions += (f"what-if: {spread.correlation_kind} set to ρ = {rho:g}",)
    if not measured:
        assumptions += MODEL_ASSUMPTIONS
    row = {
        k: q[k]
        for k in ("delta", "tasks", "runs_per_task", "power", "power_sign_flip", "power_t_test")
    } | {"power_analytic": q["power_t_test"]}  # its old name (the schema keeps keys)
    if method == "simulation":
        row["mc_error"] = q["mc_error"]
    return PowerResult(
        "power", solve, ans[solve], q, reasoning, assumptions=assumptions,
        method=power_method(q, measured=measured),
        source=_source(spread, pilot_given=measured),
        table=pd.DataFrame([row]).assign(sd_difference=sd),
    )  # fmt: skip


def _source(spread: Any, *, pilot_given: bool) -> dict[str, Any]:
    """Where the runs behind the spread came from (pilot runs, or the prior's)."""
    if pilot_given:
        return dict(getattr(spread, "source", {}) or {})
    fitted = getattr(getattr(spread, "assumed", None), "fitted", None)
    return dict(fitted.source) if fitted is not None else {}


def _designs(
    delta: float,
    target: float,
    runs_per_task: Sequence[int] | None,
    sim: dict[str, Any],
    *,
    cost_per_run: float = 1.0,
    cost_per_task: float = 0.0,
    **ask: Any,
) -> PowerResult:
    """The tasks each runs-per-task choice needs to detect ``delta`` (computed: compare's
    sign-flip test, or the t-test with ``method="t-test"``), the cheapest marked — solved again
    for compare's test by simulation when asked."""
    kk = check_k(ask["k"])
    ns = list(range(kk, kk + 16)) if runs_per_task is None else list(runs_per_task)
    if not ns:
        raise OptionError(
            "{param}: give at least one number of runs per task", param="runs_per_task"
        )
    # the first answer checks every argument and names the assumptions; the others reuse its spread
    max_runs = ask.pop("max_runs_per_task")
    test: Literal["t-test", "sign-flip"] = "t-test" if sim["method"] == "t-test" else "sign-flip"
    res = power(delta=delta, runs_per_task=ns[0], power=target, method=test, **ask)
    kk = int(res.quantities["k"])
    metric, correlation = ask["metric"], ask["correlation"]
    spread = _spread(ask["prior"], ask["pilot"], kk, metric, correlation, ask["system"])
    rows = []
    for n in ns:
        _whole("runs_per_task", n, minimum=kk)
        ans = _solve(
            "tasks", spread, correlation, delta=float(delta), tasks=None, runs=int(n),
            target=float(target), alpha=float(ask["alpha"]), k=kk, label=_label(metric, kk),
            max_runs=n, test=test,
        )  # fmt: skip
        t = int(ans["tasks"])
        rows.append(
            {
                "runs_per_task": n,
                "tasks": t,
                "runs": t * n,
                "cost": t * (cost_per_task + n * cost_per_run),
                "sd_difference": spread.sd(float(delta), int(n), correlation),
                "power": ans["power"],
                "method": test,
            }
        )
    df = pd.DataFrame(rows)
    df["optimal"] = False
    if _method(sim["method"], measured=not isinstance(spread, CopulaSpread)) == "simulation":
        costs = (cost_per_task, cost_per_run)
        res = _simulate_cheapest(df, delta, target, sim, costs, max_runs_per_task=max_runs, **ask)
    best_i = int(np.lexsort((df["runs"].to_numpy(), df["cost"].to_numpy()))[0])
    df.loc[best_i, "optimal"] = True
    best = df.loc[best_i].to_dict()
    q = {key: res.quantities[key] for key in ("correlation", "correlation_source", "sensitivity")}
    q |= {
        key: res.quantities[key]
        for key in ("mc_error", "replicates", "seed")
        if key in res.quantities
    }
    return PowerResult(
        "power", "tasks", int(best["tasks"]), {**q, "delta": delta, "power": target},
        designs_reasoning(delta, target, ask["alpha"], _label(metric, kk), best),
        assumptions=tuple(res.assumptions), method=res.method, source=res.source,
        kind="designs", table=df,
    )  # fmt: skip


def _simulate_cheapest(
    df: pd.DataFrame,
    delta: float,
    target: float,
    sim: dict[str, Any],
    costs: tuple[float, float],
    **ask: Any,
) -> PowerResult:
    """Solve the cheapest design again for compare's test (in place in ``df``), and again
    while another row's computed answer is cheaper than the simulated one: the computed
    sign-flip power is within about half a point of the simulated, so a row it already prices
    higher is taken to stay dearer (rows are simulated only when they could be the cheapest).
    Returns the cheapest row's simulated answer."""
    answers: dict[int, PowerResult] = {}
    while True:
        i = int(np.lexsort((df["runs"].to_numpy(), df["cost"].to_numpy()))[0])
        if i in answers:
            return answers[i]
        n = int(df.loc[i, "runs_per_task"])
        res = answers[i] = power(
            delta=delta, runs_per_task=n, power=target, method="simulation",
            replicates=sim["replicates"], seed=sim["seed"], **ask,
        )  # fmt: skip
        t = int(res)
        df.loc[i, ["tasks", "runs", "cost", "power", "method"]] = [
            t, t * n, t * (costs[0] + n * costs[1]), res.quantities["power"], "simulation"
        ]  # fmt: skip


def _grid(
    solve: str,
    delta: Any,
    tasks: Any,
    runs: Any,
    power_: Any,
    sim: dict[str, Any],
    **ask: Any,
) -> PowerResult:
    """The answer at every design of a grid (and, simulated, the power of each)."""
    ts = list(tasks) if _is_seq(tasks) else [tasks]
    ns = list(runs) if _is_seq(runs) else [runs]
    if sim["method"] == "simulation":
        if solve != "power":
            raise OptionError(
                "a simulated grid simulates the power: give {delta}, not {power}",
                also=("delta", "power"),
            )
        return _simulated_grid(delta, ts, ns, sim, **ask)
    answers = [  # computed (the rule: a grid simulates when asked)
        power(delta=delta, tasks=t, runs_per_task=n, power=power_, method=sim["method"], **ask)
        for t in ts
        for n in ns
    ]
    table = pd.concat([a.table for a in answers], ignore_index=True)
    first = answers[0]
    lab = _label(ask["metric"], int(first.quantities["k"]))
    q = {
        key: first.quantities[key]
        for key in ("correlation", "correlation_source", "alpha", "method")
    }
    q |= {"delta": delta, "power": power_}
    return PowerResult(
        "power", solve, math.nan, q,
        grid_reasoning(delta, q["alpha"], lab, None, solve=solve, power=power_,
                       method=sim["method"]),
        assumptions=first.assumptions, method=first.method, source=first.source,
        kind="grid", table=table,
    )  # fmt: skip


def _simulated_grid(
    delta: float, ts: list[int], ns: list[int], sim: dict[str, Any], **ask: Any
) -> PowerResult:
    """Analytic and simulated power over a (tasks × runs per task) grid (through dask)."""
    if ask["pilot"] is not None:
        raise OptionError(
            "{method}='simulation' simulates from the prior's Beta model; with pilot data use the "
            "computed power, method='sign-flip' or 't-test' (the pilot's spread is the "
            "measurement)",
            also=("method",),
        )
    seed = sim["seed"] or 0
    points = [
        {"tasks": int(t), "runs_per_task": int(n), "seed": seed + i}
        for i, (t, n) in enumerate((t, n) for t in ts for n in ns)
    ]
    k, metric, alpha = ask["k"], ask["metric"], ask["alpha"]
    correlation, prior = ask["correlation"], ask["prior"]
    scheduler, progress = current_sweep_options()
    df = sweep(
        simulate_compare_power, points, scheduler=scheduler, progress=progress, delta=delta,
        prior=prior, k=k, metric=metric, alpha=alpha, correlation=correlation,
        replicates=sim["replicates"],
    )  # fmt: skip
    tests: tuple[tuple[str, Literal["sign-flip", "t-test"]], ...] = (
        ("power_sign_flip", "sign-flip"),
        ("power_t_test", "t-test"),
    )
    for name, test in tests:
        df[name] = [
            float(
                power(
                    delta=delta, tasks=p["tasks"], runs_per_task=p["runs_per_task"], prior=prior,
                    k=k, metric=metric, alpha=alpha, correlation=correlation, method=test,
                )
            )
            for p in points
        ]  # fmt: skip
    df["power_analytic"] = df["power_t_test"]  # its old name (the schema keeps keys)
    df["seed"] = [p["seed"] for p in points]
    assumed, _ = _resolve_prior(prior)
    spread = CopulaSpread(assumed, k=k, metric=metric, correlation=correlation)
    return PowerResult(
        "power", "power", math.nan,
        {"delta": delta, "correlation": spread.rho, "alpha": alpha,
         "correlation_source": "assumed" if correlation is None else "given"},
        grid_reasoning(delta, alpha, _label(metric, k), sim["replicates"]),
        assumptions=(*spread.assumptions(), *MODEL_ASSUMPTIONS), method="simulation",
        source=_prior_source(assumed), kind="grid", table=df, replicates=sim["replicates"],
    )  # fmt: skip


def _prior_source(assumed: Assumptions) -> dict[str, Any]:
    return dict(assumed.fitted.source) if assumed.fitted is not None else {}
