"""The reliability marker's runs against a fixed-n plan at the same error rates.

``@pytest.mark.reliability(k, min_pass_hat=r, ci)`` stops as soon as passhat's anytime-valid
gate decides. The baseline is the fixed-n plan a user would otherwise run: one look after n
runs with the exact one-sided Clopper–Pearson test at level α = 1 − ci (the planner's
``plan.runs_to_certify`` bound for a pass; the same bound's lower side for a fail), n the
fewest runs that decide correctly with probability ≥ 1 − α at the true rate. Same error rates:
a wrong decision at the goal ≤ α for both (the gate's is measured in
``reports/pytest_gate/``), and a correct decision at the true rate ≥ 1 − α (the gate's is
printed; a row where it falls short is marked, its ratio not a like-for-like comparison).
The fixed-n plan also needs the true rate in advance; the gate does not.

Per setting and true rate: the marker's mean / median / 90th-percentile runs over 4,000
seeded streams (its own stopping rule, :func:`passhat.pytest_plugin.rule.stopping_rule`), the
fixed n, and the ratio mean runs / fixed n. Then the plugin's cost per run in a real pytest
session against the same test run as plain tests.

Run: ``.venv/bin/python benchmarks/bench_pytest_plugin.py``.
"""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from passhat import plan
from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import ReliabilitySpec, reliability_spec

STREAMS = 4_000

#: (marker options, true per-run pass rates): the pytester tests' goal (95% passes, 70%
#: fails), a plain pass-rate goal, the issue's example goal, and one more.
CASES: list[tuple[dict[str, float | int], tuple[float, ...]]] = [
    ({"k": 2, "min_pass_hat": 0.7, "max_runs": 200}, (0.99, 0.95, 0.70)),
    ({"k": 1, "min_pass_hat": 0.8, "max_runs": 400}, (0.95, 0.60)),
    ({"k": 5, "min_pass_hat": 0.9, "max_runs": 1500}, (0.995, 0.95, 0.90)),
    ({"k": 3, "min_pass_hat": 0.8, "max_runs": 600}, (0.99, 0.85)),
]


def fixed_n_pass(spec: ReliabilitySpec, p: float) -> int:
    """Fewest runs of the planner's certification plan (``runs_to_certify`` with some allowed
    failures x) that pass with probability ≥ 1 − α at the true rate p."""
    f0, f, a = spec.max_failure_rate, 1 - p, spec.alpha
    best = math.inf
    for x in range(0, 400):
        n = int(plan.runs_to_certify(max_failure_rate=f0, allowed_failures=x, ci=spec.ci))
        if n >= best:
            break
        if stats.binom.cdf(x, n, f) >= 1 - a:
            best = n
    return int(best)


def fixed_n_fail(spec: ReliabilitySpec, p: float) -> int:
    """Fewest runs n whose exact one-look test (Clopper–Pearson lower bound on the failure rate
    above f0 at level α) fails the test with probability ≥ 1 − α at the true rate p."""
    f0, f, a = spec.max_failure_rate, 1 - p, spec.alpha
    for n in range(1, 20_000):
        s = np.arange(1, n + 1)
        lower = stats.beta.ppf(a, s, n - s + 1)
        need = s[lower > f0]
        if need.size and stats.binom.sf(need[0] - 1, n, f) >= 1 - a:
            return n
    raise RuntimeError("no fixed n below 20,000")


def gate_runs(spec: ReliabilitySpec, p: float, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    runs, what = stopping_rule(spec).stop(rng.random((STREAMS, spec.max_runs)) < p)
    right = "pass" if p**spec.k > spec.min_pass_hat else "fail"
    return {
        "mean": float(runs.mean()),
        "median": float(np.median(runs)),
        "p90": float(np.quantile(runs, 0.9)),
        "correct": float((what == right).mean()),
        "undecided": float((what == "undecided").mean()),
    }


def ratios() -> list[float]:
    print(
        f"{'goal':<22} {'true p':>6} {'pass^k':>7} {'gate: mean':>10} {'median':>6} {'p90':>5} "
        f"{'correct':>7} {'fixed n':>7} {'ratio':>6}"
    )
    out = []
    for i, (kw, rates) in enumerate(CASES):
        spec = reliability_spec(**kw)
        goal = f"pass^{spec.k} ≥ {spec.min_pass_hat:g} ({spec.max_runs})"
        for j, p in enumerate(rates):
            g = gate_runs(spec, p, seed=1000 * i + j)
            above = p**spec.k > spec.min_pass_hat
            n = fixed_n_pass(spec, p) if above else fixed_n_fail(spec, p)
            ratio = g["mean"] / n
            short = g["correct"] < 1 - spec.alpha
            out.append(ratio) if not short else None
            mark = "  (gate correct < 1 − α: not like for like)" if short else ""
            print(
                f"{goal:<22} {p:>6.3f} {p**spec.k:>7.3f} {g['mean']:>10.1f} {g['median']:>6.0f} "
                f"{g['p90']:>5.0f} {g['correct']:>7.3f} {n:>7d} {ratio:>6.2f}{mark}"
            )
    return out


TEST = """
import random
import pytest

R = random.Random(1)

@pytest.mark.reliability(min_pass_hat=0.8, max_runs={runs})
def test_marked():
    assert R.random() < 0.8

@pytest.mark.parametrize("i", range({runs}))
def test_plain(i):
    assert R.random() < 0.8
"""


def per_run_cost(runs: int = 400) -> None:
    """Seconds per run: the marked test (undecided at the goal: all ``runs`` runs) against the
    same test as ``runs`` plain parametrized tests, each in a pytest session of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "test_cost.py"
        path.write_text(textwrap.dedent(TEST.format(runs=runs)))
        quiet = ["-q", "--tb=short", "-p", "no:cacheprovider", "-W", "ignore", str(path)]
        stopping_rule(reliability_spec(min_pass_hat=0.8, max_runs=runs))  # the rule: once
        times = {}
        for name in ("test_marked", "test_marked", "test_plain"):  # the first warms up
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                pytest.main([*quiet, "-k", name])
            times[name] = (time.perf_counter() - t0) / runs
    print(
        f"\nper run in a pytest session ({runs} runs): marked {1e3 * times['test_marked']:.2f} ms, "
        f"plain parametrized {1e3 * times['test_plain']:.2f} ms "
        f"({times['test_marked'] / times['test_plain']:.2f}×)"
    )


def main() -> None:
    print(f"marker runs vs a fixed-n plan at the same error rates ({STREAMS} streams per row)\n")
    out = ratios()
    print(
        f"\nratio mean runs / fixed n over the like-for-like rows: median {np.median(out):.2f}, "
        f"range {min(out):.2f}–{max(out):.2f}"
    )
    per_run_cost()


if __name__ == "__main__":
    main()
