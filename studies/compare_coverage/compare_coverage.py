"""Coverage of the paired comparison's intervals when the two systems differ, by simulation.

The H0 part of ``studies/coverage`` checks the size of ``passhat compare``'s
tests when nothing changed. This study checks the other half: when the
candidate really is better or worse, does the 90% interval of the
difference hold the true difference? For every cell (truth of the
baseline's task rates, change, T tasks, n runs per task) it simulates
``reps`` pairs of run tables, calls :func:`passhat.compare.engine.paired_table`
(the engine behind :func:`passhat.compare`) and counts, per metric and scope:

* **coverage** — the interval holds its truth: for the **benchmark** scope
  the mean of g(p_B,i) − g(p_A,i) over the simulated tasks; for the
  **population** scope E[g(p_B) − g(p_A)] over the truth (by Monte Carlo
  with 2·10⁶ tasks);
* **power** — the share of replicates whose interval excludes 0;
* **disagree** — replicates where the interval excludes 0 but the p-value is
  above α, or the reverse (goal 0);
* **method** — the share of replicates where the benchmark interval came from
  the error distribution simulated from the hierarchical posterior (the rule
  below 30 tasks or 10 flaky tasks).

Changes: the candidate's rate on every task moved by +1 or −1 on the logit
scale, or 25% of tasks fixed (their rate set to 1, the others unchanged: a
few tasks improve, the case where every task difference is ≥ 0). Metrics:
the mean, and pass@k and pass^k at k = 2 and k = n.

Run::

    .venv/bin/python studies/compare_coverage/compare_coverage.py   # → reports/compare_coverage/
    .venv/bin/python studies/compare_coverage/compare_coverage.py --reps 60   # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from passhat.compare.engine import paired_table

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "compare_coverage"
LEVEL = 0.90
ALPHA = round(1 - LEVEL, 12)
LOW = 0.85  # the goal: every cell at least this, within Monte-Carlo error
TRUTHS = {
    "Beta(5, 0.2) near 1": (5.0, 0.2),
    "Beta(0.2, 5) near 0": (0.2, 5.0),
    "Beta(1, 1) uniform": (1.0, 1.0),
}
TS = (10, 20, 50)
NS = (3, 5)

Change = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _logit_shift(delta: float) -> Change:
    def change(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.asarray(special.expit(special.logit(p) + delta))

    return change


def _fix_share(share: float) -> Change:
    def change(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(p.size) < share, 1.0, p)

    return change


CHANGES: dict[str, Change] = {
    "logit +1": _logit_shift(1.0),
    "logit −1": _logit_shift(-1.0),
    "25% of tasks fixed": _fix_share(0.25),
}


def _g(metric: str, k: int, p: np.ndarray) -> np.ndarray:
    if metric == "pass_at_k":
        return 1.0 - (1.0 - p) ** k
    if metric == "pass_hat_k":
        return p**k
    return p


def population_truth(truth: str, change: str, metric: str, k: int, *, seed: int = 0) -> float:
    """E[g(p_B) − g(p_A)] under the truth, by Monte Carlo with 2·10⁶ tasks (s.e. < 5e-4)."""
    rng = np.random.default_rng(seed)
    a, b = TRUTHS[truth]
    p = rng.beta(a, b, size=2_000_000)
    q = CHANGES[change](p, rng)
    return float(np.mean(_g(metric, k, q) - _g(metric, k, p)))


def cells() -> list[tuple[str, str, int, int]]:
    return [(tr, ch, t, n) for tr in TRUTHS for ch in CHANGES for t in TS for n in NS]


def run_cell(
    truth: str, change: str, t: int, n: int, *, reps: int, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """The rows (metric, k, scope) of one cell."""
    rng = np.random.default_rng(seed)
    a, b = TRUTHS[truth]
    ks = sorted({1, 2, n})  # k = 2 < n: pass^k's steps differ near all-pass
    acc: dict[tuple[str, int, str], list[float]] = {}
    pop: dict[tuple[str, int], float] = {}
    for _ in range(reps):
        p_a = rng.beta(a, b, size=t)
        p_b = CHANGES[change](p_a, rng)
        nn = np.full((2, t), n)
        cc = rng.binomial(nn, np.vstack([p_a, p_b]))
        tab = paired_table(nn, cc, np.ones(t), [(0, 1)], ks, ci=LEVEL, n_boot=n_boot, rng=rng)
        for r in tab.itertuples():
            metric, k, scope = str(r.metric), int(r.k), str(r.scope)
            if (metric == "mean") != (k == 1):
                continue  # pass@1 = pass^1 = the mean: one estimand, one row
            if scope == "benchmark":
                target = float(np.mean(_g(metric, k, p_b) - _g(metric, k, p_a)))
            else:
                if (metric, k) not in pop:
                    pop[(metric, k)] = population_truth(truth, change, metric, k)
                target = pop[(metric, k)]
            lo, hi = float(r.lower), float(r.upper)  # type: ignore[arg-type]
            excl = lo > 0 or hi < 0
            rej = float(r.p_value) <= ALPHA  # type: ignore[arg-type]
            row = acc.setdefault((metric, k, scope), [0, 0, 0, 0, 0.0, target])
            row[0] += int(lo <= target <= hi)
            row[1] += int(excl)
            row[2] += int(excl != rej)
            row[3] += int("simulated from the hierarchical posterior" in str(r.method))
            row[4] += hi - lo
    out = []
    for (metric, k, scope), (cov, power, dis, model, width, target) in acc.items():
        c = cov / reps
        out.append(
            {
                "truth": truth,
                "change": change,
                "T": t,
                "n": n,
                "metric": metric,
                "k": k,
                "scope": scope,
                "coverage": c,
                "mc_se": float(np.sqrt(LEVEL * (1 - LEVEL) / reps)),
                "power": power / reps,
                "disagreements": int(dis),
                "error_draws_share": model / reps,
                "mean_width": width / reps,
                "population_truth": target if scope == "population" else float("nan"),
                "reps": reps,
            }
        )
    return out


def run(
    *,
    reps: int = 150,
    n_boot: int = 1000,
    seed: int = 11,
    only: Iterable[tuple[str, str, int, int]] | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Every cell (or the ``only`` ones, each with the seed it has in the full run)."""
    rows: list[dict[str, object]] = []
    keep = None if only is None else set(only)
    todo = cells()
    for i, cell in enumerate(todo):
        if keep is not None and cell not in keep:
            continue
        start = time.perf_counter()
        rows += run_cell(*cell, reps=reps, n_boot=n_boot, seed=seed + 97 * i)
        if progress:
            print(f"[{i + 1}/{len(todo)}] {cell} {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(rows)


def to_markdown(df: pd.DataFrame, *, seconds: float | None = None) -> str:
    reps = int(df["reps"].iloc[0])
    ok = df["coverage"] + 2 * df["mc_se"] >= LOW
    lines = [
        "# Coverage of `compare`'s intervals when the systems differ",
        "",
        f"Nominal level 90%; {reps} replicates per cell (± is the Monte-Carlo s.e.). Goal: every "
        "cell's coverage at least 0.85 within Monte-Carlo error (✗ marks a cell below "
        "0.85 − 2 s.e.); `disagree` counts replicates where the interval and the p-value "
        "decide differently (goal 0); `power` is the share of replicates whose interval "
        "excludes 0; `error draws` is the "
        "share where the benchmark interval came from the estimate's error simulated from the "
        "hierarchical posterior (the rule below 30 tasks or 10 flaky tasks). Made by "
        "`studies/compare_coverage/compare_coverage.py`.",
        "",
    ]
    if seconds is not None:
        lines += [f"Run time: {seconds / 60:.1f} min (wall, cells split over 2 processes).", ""]
    lines += [
        "Before commit ec0989b the benchmark interval below 30 tasks was the difference of the "
        "two systems' rates drawn from one pooled posterior, which pulls them together: at 20 "
        "tasks × 3 runs (uniform truth, every rate +0.2) it held the true difference in 22% of "
        "replicates (`tests/compare/test_engine.py` keeps that case). Now it is the unbiased "
        "difference minus the quantiles of its error, simulated from that posterior, widened "
        "by the largest step one success moves the estimate (at k = 2 < n the smallest step "
        "left pass^2 rejecting where the exact conditional test does not).",
        "",
    ]
    for scope in ("benchmark", "population"):
        part = df[df["scope"] == scope]
        good = ok[df["scope"] == scope]
        lines += [
            f"**{scope}**: {int(good.sum())}/{len(part)} cells at least 0.85 within MC error; "
            f"coverage {part['coverage'].min():.3f}–{part['coverage'].max():.3f}; "
            f"disagreements {int(part['disagreements'].sum())}.",
            "",
        ]
        for small, label in ((True, "below 30 tasks"), (False, "50 tasks")):
            sub = part[(part["T"] < 30) == small]
            if len(sub):
                lines += [
                    f"- {label}: mean coverage {sub['coverage'].mean():.3f}, "
                    f"{int((sub['coverage'] > 0.97).sum())}/{len(sub)} cells above 0.97, "
                    f"mean power {sub['power'].mean():.2f}",
                ]
        lines += [""]
    lines += [
        "Below 30 tasks both scopes are conservative: the benchmark interval is widened by the "
        "largest step one more or one fewer success on a task moves the estimate (a continuity "
        "correction for an estimate that moves in steps: 1/(T·n) for the mean, k/(T·n) for "
        "pass^k near all-pass; with half a step the test rejected at p = 0.099 where the exact "
        "conditional test gives 0.25, and with pass^k's smallest step 1/(T·C(n, k)) at "
        "p = 0.04–0.09 where it gives 0.125–0.25), and where the candidate's change is small "
        "against 10–20 tasks' noise "
        "(near all-pass, logit ±1) the interval is wide and holds the truth in nearly every "
        "replicate, with power near 0: too few tasks to tell, said honestly. The cells use "
        "k = n, where pass^k's largest and smallest steps coincide: rerun after the step "
        "changed (commit 4d0bcc5), every row came out the same; k < n near all-pass is "
        "checked in tests/compare/test_engine.py.",
        "",
    ]
    lines += [
        "| truth | change | T | n | metric | k | scope | coverage | power | mean width "
        "| disagree | error draws |",
        "|---|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r, good in zip(df.itertuples(), ok, strict=True):
        mark = "" if good else " ✗"
        lines.append(
            f"| {r.truth} | {r.change} | {r.T} | {r.n} | {r.metric} | {r.k} | {r.scope} | "
            f"{r.coverage:.3f}±{r.mc_se:.3f}{mark} | {r.power:.2f} | {r.mean_width:.3f} | "
            f"{r.disagreements} | {r.error_draws_share:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--render", action="store_true", help="only redraw the report from the CSV in --out"
    )
    ap.add_argument("--seconds", type=float, default=None, help="run time to state (--render)")
    args = ap.parse_args(argv)
    if args.render:
        df = pd.read_csv(args.out / "compare_coverage.csv")
        text = to_markdown(df, seconds=args.seconds)
        (args.out / "compare_coverage.md").write_text(text)
        return 0
    start = time.perf_counter()
    df = run(reps=args.reps, n_boot=args.n_boot, seed=args.seed, progress=True)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "compare_coverage.csv", index=False)
    (args.out / "compare_coverage.md").write_text(to_markdown(df, seconds=seconds))
    print(f"wrote {args.out / 'compare_coverage.md'} in {seconds / 60:.1f} min")
    low = df["coverage"] + 2 * df["mc_se"] < LOW
    return 0 if not low.any() and (df["disagreements"] == 0).all() else 1


if __name__ == "__main__":
    sys.exit(main())
