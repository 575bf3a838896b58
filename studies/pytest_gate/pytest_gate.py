"""The reliability marker's error rates: a test whose pass^k sits exactly at the goal.

``@pytest.mark.reliability(k=…, min_pass_hat=r, ci=…, max_runs=…)`` reruns a test and looks
after every run; it must pass a test whose true pass^k is r (or below) at most α = 1 − ci of
the time, and fail one whose pass^k is r (or above) at most α of the time, although it looks
after every run. This study simulates the marker's own stopping rule
(:func:`passhat.pytest_plugin.rule.stopping_rule`, the rule the plugin applies after every
run; the tests check it against ``passhat gate``'s decisions) on streams of independent runs
with known truth:

1. **At the goal**: per-run rate p = r^(1/k) exactly, so pass^k = r. Both errors must stay
   ≤ α (each within α + 3 Monte-Carlo standard errors).
2. **Just beside it**: pass^k = r − 0.03 (a pass is wrong) and r + 0.03 (a fail is wrong).
3. **Peeking at a fixed-n test**: the exact one-sided Clopper–Pearson test (the planner's
   ``runs_to_certify`` bound) applied after every run of the same streams at the goal: how often
   it ever "passes" — what looking after every run costs a test built for one look.

Each cell has its own seed (``SEED`` and the cell's index), so one cell can be recomputed alone
and compared with the committed CSV (the default test suite does that for the cheapest cell).

Run: ``python studies/pytest_gate/pytest_gate.py [--quick]`` (``make study`` runs it in full);
writes ``reports/pytest_gate/results.csv`` and ``README.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from passhat.pytest_plugin.rule import stopping_rule
from passhat.pytest_plugin.spec import ReliabilitySpec, reliability_spec

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "pytest_gate"
SEED = 2030
REPS = 20_000
CHUNK = 4_000


@dataclass(frozen=True)
class Cell:
    """One simulated setting: the marker's options and the truth's offset from the goal."""

    k: int
    min_pass_hat: float
    ci: float
    max_runs: int
    offset: float  # true pass^k − goal

    def spec(self) -> ReliabilitySpec:
        return reliability_spec(
            k=self.k, min_pass_hat=self.min_pass_hat, ci=self.ci, max_runs=self.max_runs
        )

    @property
    def true_rate(self) -> float:
        return float((self.min_pass_hat + self.offset) ** (1 / self.k))


#: (k, min_pass_hat, ci, max_runs): the issue's example (k = 5, 0.9, 0.95, 200 is the fewest
#: runs it can pass in; 1,000 gives room), the pytester tests' goal, and a spread of others.
SETTINGS = [
    (1, 0.8, 0.95, 200),
    (2, 0.7, 0.95, 200),
    (5, 0.9, 0.95, 1000),
    (3, 0.5, 0.90, 300),
    (1, 0.95, 0.99, 800),
    (10, 0.5, 0.95, 500),
]
CELLS = [Cell(*s, offset=o) for s in SETTINGS for o in (0.0, -0.03, 0.03)]


def simulate(cell: Cell, index: int, reps: int) -> dict[str, object]:
    """The marker's rule on ``reps`` streams of the cell's truth (seeded by the index)."""
    spec = cell.spec()
    rule = stopping_rule(spec)
    rng = np.random.default_rng([SEED, index])
    n = spec.max_runs
    fixed = cp_pass_most(n, spec.max_failure_rate, spec.alpha) if cell.offset == 0 else None
    passed = failed = runs_sum = peek = 0
    done = 0
    while done < reps:
        m = min(CHUNK, reps - done)
        streams = rng.random((m, n)) < cell.true_rate
        runs, what = rule.stop(streams)
        passed += int((what == "pass").sum())
        failed += int((what == "fail").sum())
        runs_sum += int(runs.sum())
        if fixed is not None:
            fails = np.cumsum(~streams, axis=1)
            peek += int((fails <= fixed[1:]).any(axis=1).sum())
        done += m
    alpha = spec.alpha
    return {
        "k": cell.k,
        "min_pass_hat": cell.min_pass_hat,
        "ci": cell.ci,
        "max_runs": n,
        "true_pass_hat": round(cell.min_pass_hat + cell.offset, 6),
        "true_rate": round(cell.true_rate, 6),
        "reps": reps,
        "seed": f"{SEED},{index}",
        "share_pass": passed / reps,
        "share_fail": failed / reps,
        "share_undecided": (reps - passed - failed) / reps,
        "mean_runs": runs_sum / reps,
        "alpha": alpha,
        "limit": alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps),
        "fixed_n_peeking_pass": peek / reps if fixed is not None else float("nan"),
    }


def cp_pass_most(n_max: int, f0: float, alpha: float) -> np.ndarray:
    """Fixed-n exact test after n runs: the most failures whose one-sided (1 − α) Clopper–Pearson
    upper bound on the failure rate is below f0 (−1 when none), for n = 0 … n_max."""
    out = np.full(n_max + 1, -1)
    for n in range(1, n_max + 1):
        s = np.arange(n + 1)
        ok = np.flatnonzero(stats.beta.ppf(1 - alpha, s + 1, n - s) < f0)
        out[n] = ok[-1] if ok.size else -1
    return out


def run(reps: int) -> pd.DataFrame:
    """Every cell (``reps`` streams each)."""
    return pd.DataFrame([simulate(c, i, reps) for i, c in enumerate(CELLS)])


def check(df: pd.DataFrame) -> list[str]:
    """The study's claims; an empty list when all hold."""
    problems = []
    for _, r in df.iterrows():
        if r["true_pass_hat"] <= r["min_pass_hat"] and r["share_pass"] > r["limit"]:
            problems.append(f"wrong passes above α: {dict(r)}")
        if r["true_pass_hat"] >= r["min_pass_hat"] and r["share_fail"] > r["limit"]:
            problems.append(f"wrong fails above α: {dict(r)}")
    at_goal = df[df["true_pass_hat"] == df["min_pass_hat"]]
    if not (at_goal["fixed_n_peeking_pass"] > 2 * at_goal["alpha"]).all():
        problems.append("the fixed-n test peeked at after every run is not visibly above α")
    return problems


def _table(df: pd.DataFrame) -> str:
    def cell(v: object) -> str:
        if isinstance(v, float):
            return "—" if math.isnan(v) else f"{v:.4g}"
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def to_markdown(df: pd.DataFrame, seconds: float) -> str:
    cols = ["k", "min_pass_hat", "ci", "max_runs", "true_pass_hat", "reps", "share_pass",
            "share_fail", "share_undecided", "mean_runs", "limit"]  # fmt: skip
    at = df[df["true_pass_hat"] == df["min_pass_hat"]]
    beside = df[df["true_pass_hat"] != df["min_pass_hat"]]
    peek = at[["k", "min_pass_hat", "ci", "max_runs", "share_pass", "fixed_n_peeking_pass"]]
    worst = float((np.maximum(at["share_pass"], at["share_fail"]) / at["alpha"]).max())
    return (
        "\n\n".join(
            [
                "# The reliability marker's error rates (pytest plugin)",
                f"Generated by `studies/pytest_gate/pytest_gate.py` (`make study`) in "
                f"{seconds:.0f} s. The marker's own stopping rule (passhat's anytime-valid gate "
                "after every run) on simulated streams of independent runs with known truth; "
                "`limit` = α + 3 Monte-Carlo standard errors, the acceptance bound. Seeds per "
                "cell in `results.csv`.",
                "## 1. Truth exactly at the goal (pass^k = min_pass_hat)",
                "`share_pass` is a wrong pass, `share_fail` a wrong fail: each must stay ≤ α "
                "although the rule looks after every run. The larger of the two is at most "
                f"{worst:.2f} α.",
                _table(at[cols]),
                "## 2. Truth 0.03 below and above the goal",
                "Below the goal a pass is wrong; above it a fail is wrong.",
                _table(beside[cols]),
                "## 3. A fixed-n test peeked at after every run (same streams at the goal)",
                "`fixed_n_peeking_pass`: how often the exact one-sided Clopper–Pearson test, "
                "built for one look, 'passes' at some run when applied after every run up to "
                "max_runs — what the gate's construction avoids.",
                _table(peek),
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,000 streams per cell (a smoke run)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    df = run(reps=2_000 if args.quick else REPS)
    seconds = time.perf_counter() - t0
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "results.csv", index=False)
    (OUT / "README.md").write_text(to_markdown(df, seconds), encoding="utf-8")
    problems = check(df)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"wrote {OUT / 'README.md'} in {seconds:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
