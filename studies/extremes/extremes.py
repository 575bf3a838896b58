"""Coverage of the population rule where most tasks sit at 0 or 1: the old and the new near end.

The rule (:func:`passhat.scopes.scope_intervals`) takes, with ≥ 30 tasks but fewer than 10 on
a side of the estimate, a Bayesian bootstrap. Until 2026-12-06 it had half a pseudo-task at 0
and at 1 (``old``: a Jeffreys-type interval, whose lower end stays above 0 when every task's
estimate is 0); now (``rule``) one whole pseudo-task at 0 for the lower end and at 1 for the
upper end (:func:`passhat.bootstrap.bound_bootstrap_draws`, Clopper–Pearson on 0/1 values).
Candidates (see ``_intervals``) replace the rule's Bayesian bootstrap with ≥ 30 tasks and are
joined with its hierarchical posterior (the hull) below 30 tasks.

Cells: the analytic_interval study's grid (studies/analytic_interval, its truths, T, n and
per-cell seeds), 90% intervals of the mean, pass@n and pass^n. Coverage ± sqrt(c(1 − c)/R).

Run::

    nice .venv/bin/python studies/extremes/extremes.py                 # the full grid
    nice .venv/bin/python studies/extremes/extremes.py --ts 30 50 --reps 200
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from passhat import scopes
from passhat.bootstrap import bayesian_bootstrap_draws, bound_bootstrap_draws, compress
from passhat.scopes import column_values

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "extremes"
METHODS = ("rule", "old", "bound", "range", "binary", "noflaky", "side")


def _load(name: str, rel: str) -> ModuleType:
    path = ROOT / rel
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


AI = _load("analytic_interval_study", "studies/analytic_interval/analytic_interval.py")


def _intervals(
    n: np.ndarray, c: np.ndarray, cols: list, *, n_boot: int, rng: np.random.Generator
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each method's (2, columns) interval for one data set, and the rule's method labels.

    ``rule`` is the library's; the candidates replace the rule's Bayesian bootstrap columns
    (T ≥ 30) or are joined with the hierarchical posterior (hull; T < 30): ``old`` half a
    pseudo-task at 0 and at 1; ``bound`` one at 0 (lower end) / 1 (upper end); ``range`` one at
    the column's observed minimum / maximum (at 0 / 1 where every task is alike); ``binary``
    ``bound`` where the column's values are all 0 or 1, ``old`` otherwise; ``noflaky`` is
    ``binary`` with ≥ 30 tasks, and below the hull only where no task shows both outcomes;
    ``side`` that and fewer than 10 tasks on a side of the estimate."""
    ks = sorted({k for _, k in cols})
    pop = AI._rule_population(n, c, ks, n_boot=n_boot, rng=rng)
    rule = np.array([pop[(col, "population")][:2] for col in cols]).T
    labels = [pop[(col, "population")][2] for col in cols]
    vals = column_values(n.astype(float), c.astype(float), cols)
    cats = compress(np.column_stack([n, c]), vals, np.ones(n.size))
    a = 1 - AI.LEVEL
    bb = bayesian_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
    old = np.quantile(bb, [a / 2, 1 - a / 2], axis=0)
    lo_d, hi_d = bound_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
    bound = np.array([np.quantile(lo_d, a / 2, axis=0), np.quantile(hi_d, 1 - a / 2, axis=0)])
    vmin, vmax = vals.min(axis=0), vals.max(axis=0)
    alike = vmin == vmax
    lo_d, hi_d = bound_bootstrap_draws(
        cats, n_boot=n_boot, rng=rng, low=np.where(alike, 0.0, vmin), high=np.where(alike, 1.0, vmax)
    )
    rng_ = np.array([np.quantile(lo_d, a / 2, axis=0), np.quantile(hi_d, 1 - a / 2, axis=0)])
    binary = np.all((vals == 0) | (vals == 1), axis=0)
    cand = {"old": old, "bound": bound, "range": rng_, "binary": np.where(binary, bound, old)}
    is_bb = np.array([lab.startswith("Bayesian bootstrap") for lab in labels])
    out = {"rule": rule}
    for m, iv in cand.items():
        if n.size >= scopes.MIN_TASKS:
            out[m] = np.where(is_bb[None, :], iv, rule)
        else:
            out[m] = np.array([np.minimum(rule[0], iv[0]), np.maximum(rule[1], iv[1])])
    flaky = bool(np.any((c > 0) & (c < n)))
    out["noflaky"] = out["binary"] if n.size >= scopes.MIN_TASKS or not flaky else rule
    theta = vals.mean(axis=0)
    side = np.minimum((vals < theta - 1e-12).sum(axis=0), (vals > theta + 1e-12).sum(axis=0))
    few = (side < scopes.MIN_SIDE) & (not flaky)
    out["side"] = out["binary"] if n.size >= scopes.MIN_TASKS else np.where(few, out["bound"], rule)
    return out, labels


def run_cell(truth: object, t: int, n_runs: int, *, reps: int, n_boot: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    n = np.full(t, n_runs, dtype=np.int64)
    cols = AI._cols(n_runs)
    target = np.array([truth.expected(m, k) for m, k in cols])  # type: ignore[attr-defined]
    hit = {m: np.zeros((reps, len(cols)), bool) for m in METHODS}
    width = {m: np.zeros((reps, len(cols))) for m in METHODS}
    which = np.empty((reps, len(cols)), object)
    cache: dict[bytes, tuple[dict[str, np.ndarray], list[str]]] = {}
    for r in range(reps):
        c = rng.binomial(n, truth.sample(rng, t))  # type: ignore[attr-defined]
        key = np.sort(c).tobytes()
        if key not in cache:
            cache[key] = _intervals(n, c, cols, n_boot=n_boot, rng=rng)
        got, labels = cache[key]
        which[r] = [lab.split(" (")[0].split(",")[0][:24] for lab in labels]
        for m in METHODS:
            lo, hi = got[m]
            hit[m][r] = (lo - 1e-12 <= target) & (target <= hi + 1e-12)
            width[m][r] = hi - lo
    rows = []
    for j, (metric, k) in enumerate(cols):
        share = pd.Series(which[:, j]).value_counts(normalize=True)
        row: dict[str, object] = {
            "truth": truth.name, "T": t, "n": n_runs, "metric": metric, "k": k,  # type: ignore[attr-defined]
            "reps": reps, "truth value": float(target[j]),
            "bayes share": float(sum(v for s, v in share.items() if s.startswith("Bayesian"))),
        }  # fmt: skip
        for m in METHODS:
            cov = float(hit[m][:, j].mean())
            row[f"cov {m}"] = cov
            row[f"se {m}"] = float(np.sqrt(max(cov * (1 - cov), 1e-12) / reps))
            row[f"width {m}"] = float(np.mean(width[m][:, j]))
        d = hit["rule"][:, j].astype(float) - hit["old"][:, j]
        row["diff rule-old"] = float(d.mean())
        row["diff se"] = float(d.std(ddof=1) / np.sqrt(reps))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--ts", type=int, nargs="*", default=list(AI.TS))
    ap.add_argument("--ns", type=int, nargs="*", default=list(AI.NS))
    ap.add_argument("--truths", type=int, nargs="*", default=list(range(len(AI.TRUTH_NAMES))))
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT / "extremes.csv")
    args = ap.parse_args(argv)
    truths = AI._coverage_module().TRUTHS
    grid = [(name, t, n) for t in AI.TS for n in AI.NS for name in AI.TRUTH_NAMES]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows: list = []
    start = time.process_time()
    for i, (name, t, n) in enumerate(grid):
        if t not in args.ts or n not in args.ns or AI.TRUTH_NAMES.index(name) not in args.truths:
            continue
        s0 = time.process_time()
        rows += run_cell(truths[name], t, n, reps=args.reps, n_boot=args.n_boot, seed=args.seed + i)
        print(f"[{i + 1}/{len(grid)}] T={t} n={n} {name}: {time.process_time() - s0:.1f} s", flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)
    print(f"done: {time.process_time() - start:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
