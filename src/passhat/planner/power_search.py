"""Solving a power question for the test ``passhat compare`` runs: its simulated power
(:mod:`passhat.planner.flip_power`) searched over the quantity left out.

The computed answer (compare's sign-flip test, :func:`passhat.planner.power.power` with
``method="sign-flip"``, :mod:`passhat.planner.flip_approx`) starts every search. The simulated
benchmarks are drawn once per question (common random numbers: the same latent rates and
uniforms whatever the design), so the simulated power moves smoothly with δ, the tasks and the
runs per task, and a bracket then a bisection find

* ``tasks``: the fewest tasks whose simulated power reaches the target;
* ``runs_per_task``: the fewest runs per task (≥ k) that do;
* ``delta``: the smallest improvement detected with the target power (to 10⁻⁴);
* ``power``: the power itself, at the design given.

Examples
--------
>>> from passhat import plan
>>> from passhat.planner.copula import CopulaSpread
>>> s = CopulaSpread(plan.Assumptions(mean=0.6, icc=0.3), k=1, metric="mean", correlation=None)
>>> q = Question(spread=s, alpha=0.05, target=None, max_runs=1000, label="mean")
>>> a = simulated_answer("power", q, {"delta": 0.1, "tasks": 60, "runs_per_task": 5},
...                      SimSettings(replicates=400, seed=1))
>>> 0.45 < a["power"] < 0.65, a["replicates"]
(True, 400)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from passhat._format import fixed, pct
from passhat._validate import DEFAULT_N_BOOT
from passhat.errors import OptionError
from passhat.planner._checks import check_simulation
from passhat.planner.copula import CopulaSpread, copula_model
from passhat.planner.flip_power import Draws, FlipPower, FlipSettings, compare_power

__all__ = ["Question", "SimSettings", "simulated_answer"]

#: Most tasks a search for the number of tasks tries.
MAX_TASKS = 1_000_000


@dataclass(frozen=True)
class SimSettings:
    """How the simulated power is drawn: benchmarks, seed and compare's random flips."""

    replicates: int
    seed: int
    n_flips: int = DEFAULT_N_BOOT


@dataclass(frozen=True)
class Question:
    """The parts of a power question a search needs: the model, the level, the target."""

    spread: CopulaSpread
    alpha: float
    target: float | None
    max_runs: int
    label: str


class _Power:
    """The simulated power at a design (δ, tasks, runs per task), each design computed once."""

    def __init__(self, q: Question, sim: SimSettings) -> None:
        self.q, self.sim = q, sim
        self.draws = Draws(seed=sim.seed, replicates=sim.replicates)
        self.settings = FlipSettings(alpha=q.alpha, n_flips=sim.n_flips, seed=sim.seed)
        self.seen: dict[tuple[float, int, int], FlipPower] = {}

    def __call__(self, delta: float, tasks: int, runs: int) -> FlipPower:
        key = (float(delta), int(tasks), int(runs))
        if key not in self.seen:
            check_simulation(self.sim.replicates, int(tasks), arrays=4)
            s = self.q.spread
            model = copula_model(s.assumed, float(delta), s.k, s.metric, s.rho)
            self.seen[key] = compare_power(
                model, self.draws, tasks=int(tasks), runs=int(runs), sim=self.settings
            )
        return self.seen[key]


def _smallest(ok: Callable[[int], bool], start: int, lowest: int, highest: int) -> int | None:
    """The smallest whole number in [lowest, highest] where ``ok`` holds (taken as monotone),
    bracketed from ``start`` by doubling steps, then bisected; None when ``highest`` fails."""
    if ok(start := min(max(start, lowest), highest)):
        hi, step = start, max(1, start // 5)
        while True:
            lo = max(lowest, hi - step)
            if lo == hi:
                return hi
            if not ok(lo):
                break
            hi, step = lo, step * 2
    else:
        lo, step = start, max(1, start // 4)
        while True:
            if lo >= highest:
                return None
            hi = min(highest, lo + step)
            if ok(hi):
                break
            lo, step = hi, step * 2
    while hi - lo > 1:  # ok(hi) and not ok(lo)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _solve_delta(pw: _Power, q: Question, start: dict[str, Any], target: float) -> float:
    """The smallest δ > 0 whose simulated power reaches ``target`` at the design (to 10⁻⁴)."""
    t, n = int(start["tasks"]), int(start["runs_per_task"])
    hi_limit = min(0.999 - q.spread.baseline, 0.999)

    def ok(d: float) -> bool:
        return pw(d, t, n).power >= target

    lo, hi = 0.0, min(max(float(start["delta"]), 1e-4), hi_limit)
    while not ok(hi):
        if hi >= hi_limit:
            raise OptionError(
                f"no improvement in {q.label} above {fixed(q.spread.baseline)} reaches power "
                f"{target:g} with {t} tasks × {n} runs with compare's test"
            )
        lo, hi = hi, min(hi_limit, hi * 1.25 + 1e-4)
    while hi - lo > 1e-4:
        mid = round((lo + hi) / 2, 6)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def simulated_answer(
    solve: str, q: Question, start: dict[str, Any], sim: SimSettings
) -> dict[str, Any]:
    """The answer of the power question for compare's test, by simulation.

    Parameters
    ----------
    solve : {"power", "tasks", "runs_per_task", "delta"}
        The quantity left out.
    q : Question
    start : dict
        The computed answer (delta, tasks, runs_per_task, power): the search starts there.
    sim : SimSettings

    Returns
    -------
    dict
        delta, tasks, runs_per_task, power (simulated), mc_error, replicates, seed, n_flips
        and ``branches`` (the share of benchmarks compare tested by each of its branches).
    """
    pw = _Power(q, sim)
    dl, t, n = float(start["delta"]), int(start["tasks"]), int(start["runs_per_task"])
    target = float(q.target) if q.target is not None else math.nan
    if solve == "tasks":
        found = _smallest(lambda x: pw(dl, x, n).power >= target, t, 2, MAX_TASKS)
        if found is None:
            raise OptionError(
                f"no number of tasks up to {MAX_TASKS:,} reaches power {target:g} for "
                f"{fixed(dl, sign=True)} in {q.label} with compare's test"
            )
        t = found
    elif solve == "runs_per_task":
        found = _smallest(lambda x: pw(dl, t, x).power >= target, n, q.spread.k, q.max_runs)
        if found is None:
            best = pw(dl, t, q.max_runs).power
            raise OptionError(
                f"{t} tasks cannot reach power {target:g} for {fixed(dl, sign=True)} in "
                f"{q.label} with compare's test: even {q.max_runs} runs per task give "
                f"{pct(best)} (task spread dominates); add tasks"
            )
        n = found
    elif solve == "delta":
        dl = _solve_delta(pw, q, start, target)
    res = pw(dl, t, n)
    return {
        "delta": dl,
        "tasks": t,
        "runs_per_task": n,
        "power": res.power,
        "mc_error": res.mc_error,
        "replicates": sim.replicates,
        "seed": sim.seed,
        "n_flips": sim.n_flips,
        "branches": dict(res.shares),
    }
