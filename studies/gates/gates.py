"""Anytime-valid gates and the per-task regression gate: error rates, power, stopping times.

Four simulations with known truth, written to ``reports/gates/`` (README.md, results.json):

1. **Optional stopping under the null.** A stream checked after every run (one task) or
   every round (ten or twenty unequal tasks) up to 1,000 runs, with the failure rate exactly
   at the bound, or the candidate equal to the baseline: how often does the gate ever pass
   (or fail)? Beside it, the fixed-n exact test (the planner's Clopper–Pearson bound; a
   one-sided sign test for the comparison) peeked at the same way.
2. **Power of the failure-bound gate.** Ten tasks whose failures cluster (half fail at
   twice the rate, half never): the median and 90th percentile of the runs until the gate
   decides, beside the fixed-n plan (``ph.plan.runs_to_certify`` with the allowed failures
   chosen for 50% and 80% power at the true rate).
3. **Power of the comparison gate.** Fifty tasks, baseline rates ~ Beta(4, 1), margin
   0.05: runs until the gate decides, beside a fixed-n one-sided z-test on the same
   rounds (known variance) at 50% and 80% power.
4. **The per-task regression gate against an unchanged build.** 168 × 5, 200 × 10,
   500 × 20 tasks × runs with agents-like rates: the share of builds with any false
   "regression" under no correction, Holm and Benjamini–Hochberg, and the power (share of
   ten planted regressions found) with the realised false discovery proportion.
5. **Unequal runs per task (unscored runs).** The failure rate exactly at the bound, the
   tasks that fail more losing runs to "infrastructure errors" (the case where using the
   decided runs as they come would mislead): the gate's own rule — the complete rounds, and
   every decided run up to the most rounds a task has with each missing run counted against
   the decision tested — checked after every pass over the tasks; beside it, the pooled
   decided runs read as one stream.

Run: ``python studies/gates/gates.py [--quick]`` (``make study`` runs it in full);
``--only unequal`` runs section 5 alone and updates it in ``reports/gates/``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import passhat as ph
from passhat.compare.classification import fisher_tails
from passhat.compare.multiplicity import adjust
from passhat.planner.betting import failure_boundary, log_evalue_path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "gates"
ALPHA = 0.05


def mc_bound(reps: int) -> float:
    """α plus three Monte-Carlo standard errors of a share estimated from ``reps`` runs."""
    return ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)


# ------------------------------------------------------------------ 1. null
def cp_boundary(ns: np.ndarray, f0: float) -> np.ndarray:
    """Fixed-n exact test: most failures in n runs whose one-sided CP bound is below f0."""
    out = np.full(ns.size, -1)
    for i, n in enumerate(ns):
        s = np.arange(n + 1)
        ok = np.flatnonzero(stats.beta.ppf(1 - ALPHA, s + 1, n - s) < f0)
        out[i] = ok[-1] if ok.size else -1
    return out


def sign_boundary(n_max: int) -> np.ndarray:
    """Comparison at margin 0: fewest n+ (candidate-only passes) that pass, for each n−."""
    n_minus = np.arange(n_max + 1)
    lo, hi = np.full(n_max + 1, -1), np.full(n_max + 1, n_max + 1)
    target = math.log(1 / ALPHA)
    while np.any(hi - lo > 1):
        mid = np.clip((lo + hi) // 2, 0, n_max)
        counts = np.stack([n_minus, np.zeros_like(mid), mid], axis=1)
        ok = log_evalue_path([-1, 0, 1], counts, null=0.0, side="above", lo=-1, hi=1) >= target
        active = hi - lo > 1
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid, lo)
    return hi


def null_bound(f0: float, tasks: int, reps: int, rng: np.random.Generator) -> dict[str, object]:
    """Failure rate at the bound; tasks unequal (half at 0.5·f0, half at 1.5·f0) when T > 1."""
    rounds = 1000 // tasks
    rates = np.full(tasks, f0) if tasks == 1 else np.repeat([0.5 * f0, 1.5 * f0], tasks // 2)
    fails = np.cumsum((rng.random((reps, rounds, tasks)) < rates).sum(axis=2), axis=1)
    ns = tasks * np.arange(1, rounds + 1)
    seq = failure_boundary(ns, null=f0, side="below", alpha=ALPHA)
    seq_fail = failure_boundary(ns, null=f0, side="above", alpha=ALPHA)
    fixed = cp_boundary(ns, f0)
    return {
        "gate": "failure bound",
        "truth": f"failure rate = bound = {f0:g}",
        "tasks": tasks,
        "checked": "every run" if tasks == 1 else f"every round ({tasks} runs)",
        "reps": reps,
        "sequential_pass": float((fails <= seq).any(axis=1).mean()),
        "sequential_fail": float((fails >= seq_fail).any(axis=1).mean()),
        "fixed_n_pass": float((fails <= fixed).any(axis=1).mean()),
    }


def null_paired(tasks: int, reps: int, rng: np.random.Generator) -> dict[str, object]:
    """Candidate = baseline (rates ~ Beta(2, 1)), margin 0, checked every round to 1,000 runs."""
    rounds = 1000 // tasks
    rates = rng.beta(2, 1, size=tasks)
    d = (rng.random((reps, rounds, tasks)) < rates).astype(np.int8) - (
        rng.random((reps, rounds, tasks)) < rates
    ).astype(np.int8)
    n_plus = np.cumsum((d == 1).sum(axis=2), axis=1)
    n_minus = np.cumsum((d == -1).sum(axis=2), axis=1)
    bnd = sign_boundary(1000)
    disc = n_plus + n_minus
    p_sign = stats.binom.sf(n_plus - 1, disc, 0.5)
    return {
        "gate": "comparison, margin 0",
        "truth": "candidate = baseline",
        "tasks": tasks,
        "checked": "every pair of runs" if tasks == 1 else f"every round ({tasks} pairs)",
        "reps": reps,
        "sequential_pass": float((n_plus >= bnd[n_minus]).any(axis=1).mean()),
        "sequential_fail": float((n_minus >= bnd[n_plus]).any(axis=1).mean()),
        "fixed_n_pass": float(((p_sign <= ALPHA) & (disc > 0)).any(axis=1).mean()),
    }


# --------------------------------------------------------- 5. unequal runs
def _first_decided(fail: np.ndarray, dec: np.ndarray) -> np.ndarray:
    """Per (rep, task): failures among the first r decided runs, r = 0 … passes."""
    reps, passes, tasks = fail.shape
    out = np.zeros((reps, tasks, passes + 1), dtype=np.int64)
    for i in range(reps):
        for t in range(tasks):
            seq = fail[i, dec[i, :, t], t]
            out[i, t, 1 : seq.size + 1] = np.cumsum(seq)
            out[i, t, seq.size + 1 :] = out[i, t, seq.size]
    return out


def null_unequal(
    f0: float,
    tasks: int,
    unscored: float,
    reps: int,
    rng: np.random.Generator,
    attempts: int = 1000,
) -> dict[str, object]:
    """Failure rate = bound (half the tasks at 0.5·f0, half at 1.5·f0); the failing half loses
    each run with probability ``unscored``. Checked after every pass over the tasks (one run
    attempt each) up to ``attempts``: the gate's looks (k = 1) and the pooled stream."""
    passes = attempts // tasks
    half = tasks // 2
    rates = np.repeat([0.5 * f0, 1.5 * f0], [half, tasks - half])
    loss = np.repeat([0.0, unscored], [half, tasks - half])
    fail = rng.random((reps, passes, tasks)) < rates
    dec = rng.random((reps, passes, tasks)) >= loss
    n = np.cumsum(dec, axis=1)  # decided runs per task after each pass
    F = _first_decided(fail, dec)  # (reps, tasks, passes + 1)
    r_c, r_top = n.min(axis=2), n.max(axis=2)
    at = np.take_along_axis  # failures among the first r decided runs of every task
    f_c = at(F, np.broadcast_to(r_c[:, None, :], F.shape[:2] + r_c.shape[1:]), axis=2).sum(1)
    f_all = at(F, np.swapaxes(n, 1, 2), axis=2).sum(axis=1)  # every decided run
    open_runs = (r_top[:, :, None] - n).sum(axis=2)  # runs missing up to the top round
    target = math.log(1 / ALPHA)

    def le(fails: np.ndarray, total: np.ndarray, side: str) -> np.ndarray:
        counts = np.stack([total - fails, fails], axis=-1)
        return log_evalue_path([0.0, 1.0], counts, null=f0, side=side)  # type: ignore[arg-type]

    e_pass = np.maximum(
        le(f_c, tasks * r_c, "below"), le(f_all + open_runs, tasks * r_top, "below")
    )
    e_fail = np.maximum(le(f_c, tasks * r_c, "above"), le(f_all, tasks * r_top, "above"))
    naive = le(f_all, n.sum(axis=2), "below")
    return {
        "gate": "failure bound, k = 1",
        "truth": f"failure rate = bound = {f0:g}",
        "tasks": tasks,
        "unscored_in_failing_half": unscored,
        "checked": f"every pass ({tasks} run attempts) to {attempts}",
        "reps": reps,
        "sequential_pass": float(((e_pass >= target) & (e_fail < target)).any(axis=1).mean()),
        "sequential_fail": float((e_fail >= target).any(axis=1).mean()),
        "complete_rounds_only_pass": float(
            (le(f_c, tasks * r_c, "below") >= target).any(axis=1).mean()
        ),
        "pooled_stream_pass": float((naive >= target).any(axis=1).mean()),
    }


# ----------------------------------------------------------------- 2. power
def fixed_certify(f: float, f0: float, power: float) -> int | None:
    """The planner's fixed-n certification with the allowed failures giving ``power`` at f."""
    for x in range(0, 200):
        n = int(ph.plan.runs_to_certify(max_failure_rate=f0, allowed_failures=x))
        if stats.binom.cdf(x, n, f) >= power:
            return n
    return None


def fixed_exceed(f: float, f0: float, power: float) -> int:
    """Fixed-n exact test that the rate exceeds f0 (CP lower bound > f0) with ``power`` at f."""
    n = 1
    while True:
        s = np.arange(n + 1)
        lower = stats.beta.ppf(ALPHA, np.maximum(s, 1e-12), n - s + 1)
        need = np.flatnonzero((lower > f0) & (s > 0))
        if need.size and stats.binom.sf(need[0] - 1, n, f) >= power:
            return n
        n += 1 if n < 200 else max(1, n // 50)


def power_bound(f0: float, f: float, reps: int, rng: np.random.Generator) -> dict[str, object]:
    tasks, cap_runs = 10, 40_000
    rounds = cap_runs // tasks
    ns = tasks * np.arange(1, rounds + 1)
    seq = failure_boundary(ns, null=f0, side="below", alpha=ALPHA)
    seq_fail = failure_boundary(ns, null=f0, side="above", alpha=ALPHA)
    per_round = rng.binomial(tasks // 2, min(2 * f, 1.0), size=(reps, rounds))
    fails = np.cumsum(per_round, axis=1)
    passed = fails <= seq
    failed = fails >= seq_fail
    done = passed | failed
    decided = done.any(axis=1)
    stop = np.where(decided, done.argmax(axis=1), rounds - 1)
    runs = (stop + 1) * tasks
    verdict = np.where(passed[np.arange(reps), stop], "pass", "fail")
    row: dict[str, object] = {
        "bound": f0,
        "true_rate": f,
        "reps": reps,
        "decided": float(decided.mean()),
        "share_pass": float((decided & (verdict == "pass")).mean()),
        "median_runs": float(np.median(runs[decided])) if decided.any() else None,
        "p90_runs": float(np.quantile(runs[decided], 0.9)) if decided.any() else None,
    }
    if f < f0:
        row["fixed_n_50"] = fixed_certify(f, f0, 0.5)
        row["fixed_n_80"] = fixed_certify(f, f0, 0.8)
    else:
        row["fixed_n_50"] = fixed_exceed(f, f0, 0.5)
        row["fixed_n_80"] = fixed_exceed(f, f0, 0.8)
    return row


def power_paired(
    shift: float, margin: float, reps: int, rng: np.random.Generator
) -> dict[str, object]:
    """Fifty tasks; the candidate's rate is the baseline's + shift (clipped to [0, 1])."""
    tasks, rounds = 50, 400
    b = rng.beta(4, 1, size=tasks)
    c = np.clip(b + shift, 0, 1)
    truth = float((c - b).mean())
    n_minus = np.zeros((reps, rounds))
    n_zero = np.zeros((reps, rounds))
    n_plus = np.zeros((reps, rounds))
    for r0 in range(0, rounds, 50):
        xb = rng.random((reps, 50, tasks)) < b
        xc = rng.random((reps, 50, tasks)) < c
        d = xc.astype(np.int8) - xb.astype(np.int8)
        n_minus[:, r0 : r0 + 50] = (d == -1).sum(axis=2)
        n_zero[:, r0 : r0 + 50] = (d == 0).sum(axis=2)
        n_plus[:, r0 : r0 + 50] = (d == 1).sum(axis=2)
    counts = np.stack([np.cumsum(n_minus, 1), np.cumsum(n_zero, 1), np.cumsum(n_plus, 1)], axis=2)
    kw = {"null": -margin, "lo": -1.0, "hi": 1.0}
    target = math.log(1 / ALPHA)
    passed = log_evalue_path([-1, 0, 1], counts, side="above", **kw) >= target
    failed = log_evalue_path([-1, 0, 1], counts, side="below", **kw) >= target
    done = passed | failed
    decided = done.any(axis=1)
    stop = np.where(decided, done.argmax(axis=1), rounds - 1)
    runs = (stop + 1) * tasks  # per build
    var_round = float((c * (1 - c) + b * (1 - b)).sum()) / tasks**2
    gap = abs(truth + margin)
    z_a = stats.norm.ppf(1 - ALPHA)

    def fixed(power: float) -> int:
        return math.ceil(((z_a + stats.norm.ppf(power)) ** 2) * var_round / gap**2) * tasks

    return {
        "margin": margin,
        "true_difference": round(truth, 4),
        "tasks": tasks,
        "reps": reps,
        "decided": float(decided.mean()),
        "share_pass": float((decided & passed[np.arange(reps), stop]).mean()),
        "median_runs_per_build": float(np.median(runs[decided])) if decided.any() else None,
        "p90_runs_per_build": float(np.quantile(runs[decided], 0.9)) if decided.any() else None,
        "fixed_n_50": fixed(0.5),
        "fixed_n_80": fixed(0.8),
    }


# ---------------------------------------------------------- 4. classification
def agents_rates(rng: np.random.Generator, tasks: int) -> np.ndarray:
    """The bundled example's mixture: 48% always pass, 12% never, 40% flip ~ Beta(2.6, 1.2)."""
    kind = rng.choice(3, size=tasks, p=(0.48, 0.12, 0.40))
    return np.where(kind == 0, 1.0, np.where(kind == 1, 0.0, rng.beta(2.6, 1.2, tasks)))


def regression_flags(
    nb: np.ndarray, cb: np.ndarray, nc: np.ndarray, cc: np.ndarray, method: str
) -> np.ndarray:
    """What ``ph.classify(..., multiplicity=method)`` labels ``regression`` (rows = builds)."""
    p_reg, _, min_reg, _ = fisher_tails(nb, cb, nc, cc)
    out = np.zeros(p_reg.shape, dtype=bool)
    drop = cb * nc > cc * nb
    for i in range(p_reg.shape[0]):
        adj, _ = adjust(p_reg[i], min_reg[i], alpha=ALPHA, method=method)
        out[i] = drop[i] & (p_reg[i] <= ALPHA * (1 + 1e-9)) & (adj <= ALPHA * (1 + 1e-9))
    return out


def classification(
    tasks: int, runs: int, reps: int, rng: np.random.Generator
) -> list[dict[str, object]]:
    rates = np.stack([agents_rates(rng, tasks) for _ in range(reps)])
    n = np.full((reps, tasks), runs)
    base = rng.binomial(runs, rates)
    same = rng.binomial(runs, rates)
    planted = np.zeros((reps, tasks), dtype=bool)
    cand_rates = rates.copy()
    for i in range(reps):  # ten regressions on tasks that pass at least half the time
        eligible = np.flatnonzero(rates[i] >= 0.5)
        pick = rng.choice(eligible, size=10, replace=False)
        planted[i, pick] = True
        cand_rates[i, pick] = rates[i, pick] - 0.5
    changed = rng.binomial(runs, cand_rates)
    rows = []
    for method in ("none", "holm", "bh"):
        null_flags = regression_flags(n, base, n, same, method)
        alt_flags = regression_flags(n, base, n, changed, method)
        false = alt_flags & ~planted
        fdp = np.where(alt_flags.sum(1) > 0, false.sum(1) / np.maximum(alt_flags.sum(1), 1), 0.0)
        rows.append(
            {
                "tasks": tasks,
                "runs": runs,
                "multiplicity": method,
                "reps": reps,
                "any_false_regression": float(null_flags.any(axis=1).mean()),
                "mean_false_flags": float(null_flags.sum(axis=1).mean()),
                "planted_found": float((alt_flags & planted).sum() / planted.sum()),
                "fdr_with_planted": float(fdp.mean()),
                "fwer_with_planted": float(false.any(axis=1).mean()),
            }
        )
    return rows


# ------------------------------------------------------------------- report
def _table(df: pd.DataFrame) -> str:
    def cell(v: object) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "—"
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def to_markdown(res: dict[str, pd.DataFrame], seconds: float) -> str:
    return (
        "\n\n".join(
            [
                "# Anytime-valid gates and the per-task regression gate",
                "Generated by `studies/gates/gates.py` (`make study`); α = 0.05 everywhere, "
                f"{seconds:.0f} s. Simulations with known truth; the limit α + 3 Monte-Carlo "
                "standard errors is the tests' acceptance bound.",
                "## 1. Optional stopping under the null",
                "Checked after every run (one task) or every complete round (unequal tasks) "
                "up to 1,000 runs. `sequential_*`: the share of null streams the gate ever "
                "passes / fails (each must stay ≤ α). `fixed_n_pass`: the fixed-n exact test "
                "(Clopper–Pearson, the planner's bound; a one-sided sign test for the "
                "comparison) peeked at the same way.",
                _table(res["null"]),
                "## 2. Power of the failure-bound gate (10 tasks, failures clustered in half)",
                "Runs until the gate decides (checked after every round of 10 runs, at most "
                "40,000), beside the fixed-n plan with 50% and 80% power at the true rate: "
                "`ph.plan.runs_to_certify` with the allowed failures that give that power (for "
                "a rate above the bound, the fixed-n exact test that the rate exceeds it). The "
                "fixed-n plan needs the true rate in advance and holds only if the data are "
                "checked once, at n; the gate needs neither, and pays for it with a median "
                "stopping time above the fixed-n plan's n at 50% power (compare the columns).",
                _table(res["power_bound"]),
                "## 3. Power of the comparison gate (50 tasks, margin 0.05, runs per build)",
                "`fixed_n_*`: one-sided z-test on the same rounds with the variance known, at "
                "50% / 80% power.",
                _table(res["power_paired"]),
                "## 4. Per-task regression flags on an unchanged build",
                "`any_false_regression`: share of builds (candidate = baseline) with at least one "
                "task flagged `regression` (a CI gate blocked for nothing). `planted_found`: share "
                "of ten planted regressions (rate − 0.5) flagged; `fdr_with_planted` / "
                "`fwer_with_planted`: false flags among them. Holm keeps the first ≤ α; BH keeps "
                "the false discovery rate ≤ α.",
                _table(res["classification"]),
                *(_unequal_text(res) if "unequal" in res else []),
            ]
        )
        + "\n"
    )


def _unequal_text(res: dict[str, pd.DataFrame]) -> list[str]:
    return [
        "## 5. Unequal runs per task: unscored runs in the tasks that fail more",
        "The failure rate exactly at the bound (half the tasks at 0.5 × bound, half at 1.5 × "
        "bound); each run of the failing half is lost (unscored) with the probability shown. "
        "Checked after every pass over the tasks (one run attempt each) up to 1,000 attempts. "
        "`sequential_*`: the gate (`ph.plan.sequential`, k = 1): the larger e-value of the "
        "complete rounds and of every decided run up to the most rounds a task has, each "
        "missing run counted against the decision tested (failing for pass, passing for fail) "
        "— each must stay ≤ α. `complete_rounds_only_pass`: the complete rounds alone (the gate "
        "before it used every decided run). `pooled_stream_pass`: every decided run read as one "
        "stream (what a harness that drops unscored runs would compute): the failing tasks are "
        "under-represented, so it passes a system at the bound far more often than α."
        + (f" Run on its own ({res['unequal_seconds']} s)." if "unequal_seconds" in res else ""),
        _table(res["unequal"]),
    ]


def run(reps: int, seed: int = 2026) -> dict[str, pd.DataFrame]:
    """All four simulations: ``reps`` null streams per cell, fewer for power and builds."""
    rng = np.random.default_rng(seed)
    null = [null_bound(f0, t, reps, rng) for f0 in (0.01, 0.05, 0.2) for t in (1, 10)]
    null += [null_paired(t, reps, rng) for t in (1, 20)]
    pb = [
        power_bound(f0, f, max(reps // 10, 200), rng)
        for f0 in (0.01, 0.05)
        for f in (0.0, f0 / 4, f0 / 2, 2 * f0, 4 * f0)
    ]
    pp = [power_paired(s, 0.05, max(reps // 20, 100), rng) for s in (0.05, 0.0, -0.15)]
    cl: list[dict[str, object]] = []
    for tasks, runs in ((168, 5), (200, 10), (500, 20)):
        cl += classification(tasks, runs, max(reps // 4, 100), rng)
    return {
        "null": pd.DataFrame(null),
        "power_bound": pd.DataFrame(pb),
        "power_paired": pd.DataFrame(pp),
        "classification": pd.DataFrame(cl),
        "unequal": run_unequal(reps, rng),
    }


def run_unequal(reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """Section 5: the null with unscored runs in the failing tasks."""
    rows = [null_unequal(f0, 10, u, reps, rng) for f0 in (0.05, 0.2) for u in (0.1, 0.3, 0.6)]
    return pd.DataFrame(rows)


def check(res: dict[str, pd.DataFrame]) -> list[str]:
    """The study's claims; an empty list when all hold."""
    problems = []
    null = res["null"]
    for _, r in null.iterrows():
        lim = mc_bound(int(r["reps"]))
        if r["sequential_pass"] > lim or r["sequential_fail"] > lim:
            problems.append(f"null exceeded: {dict(r)}")
        if r["fixed_n_pass"] <= 2 * ALPHA:
            problems.append(f"fixed-n peeking not visibly above α: {dict(r)}")
    for _, r in res.get("unequal", pd.DataFrame()).iterrows():
        lim = mc_bound(int(r["reps"]))
        if r["sequential_pass"] > lim or r["sequential_fail"] > lim:
            problems.append(f"null exceeded with unequal runs: {dict(r)}")
    for _, r in res["classification"].iterrows():
        lim = mc_bound(int(r["reps"]))
        if r["multiplicity"] == "holm" and r["any_false_regression"] > lim:
            problems.append(f"Holm FWER exceeded: {dict(r)}")
        if r["multiplicity"] == "bh" and r["fdr_with_planted"] > lim:
            problems.append(f"BH FDR exceeded: {dict(r)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer replicates (a smoke run)")
    ap.add_argument(
        "--only",
        choices=["unequal"],
        help="run this section alone and update it in the report (the others kept as measured)",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.only == "unequal":
        return _update_unequal(400 if args.quick else 2000, t0)
    res = run(reps=400 if args.quick else 2000)
    seconds = time.perf_counter() - t0
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "README.md").write_text(to_markdown(res, seconds), encoding="utf-8")
    doc = {k: v.to_dict(orient="records") for k, v in res.items()}
    (OUT / "results.json").write_text(json.dumps(doc, indent=2, default=float) + "\n")
    problems = check(res)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"wrote {OUT / 'README.md'} in {seconds:.0f} s")
    return 1 if problems else 0


def _update_unequal(reps: int, t0: float) -> int:
    """Run section 5 alone and rewrite the report with the other sections as they were."""
    doc = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
    res = {k: pd.DataFrame(v) for k, v in doc.items() if k != "unequal"}
    res["unequal"] = run_unequal(reps, np.random.default_rng(2027))
    seconds = time.perf_counter() - t0
    readme = (OUT / "README.md").read_text(encoding="utf-8")
    total = readme.split("α = 0.05 everywhere, ", 1)[1].split(" s.", 1)[0]
    text = to_markdown({**res, "unequal_seconds": f"{seconds:.0f}"}, float(total))  # type: ignore[dict-item]
    (OUT / "README.md").write_text(text, encoding="utf-8")
    doc = {k: v.to_dict(orient="records") for k, v in res.items()}
    (OUT / "results.json").write_text(json.dumps(doc, indent=2, default=float) + "\n")
    problems = check(res)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"updated section 5 of {OUT / 'README.md'} in {seconds:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
