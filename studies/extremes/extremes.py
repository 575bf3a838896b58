"""Coverage of the population rule where most tasks sit at 0 or 1: the old and the new rule.

With ≥ 30 tasks but fewer than 10 on a side of the estimate the rule takes a Bayesian bootstrap.
Until 2026-12-06 it had half a pseudo-task at 0 and at 1 (a Jeffreys-type interval, whose lower
end stays above 0 when every task's estimate is 0), and below 30 tasks the hierarchical
posterior alone. Now, in columns whose task values are all 0 or 1, one whole pseudo-task at 0
for the lower end and at 1 for the upper (:func:`passhat.bootstrap.bound_bootstrap_draws`,
Clopper–Pearson on 0/1 values), and below 30 tasks, where no task shows both outcomes, the hull
of the posterior's interval and that one. ``_intervals`` lists the candidates compared.

Cells: the analytic_interval study's grid (studies/analytic_interval: its truths, T, n and
per-cell seeds; the data sets differ from that study's after the first, as the methods draw
differently), 90% intervals of the mean, pass@n and pass^n; coverage ± sqrt(c(1 − c)/R).

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
from passhat.bootstrap import Categories, bayesian_bootstrap_draws, bound_bootstrap_draws, compress
from passhat.hierarchical import population_values
from passhat.scopes import column_values, weighted_quantiles

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "extremes"
METHODS = ("old", "rule", "bound", "range", "jeffreys")


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


def _model(n: np.ndarray, c: np.ndarray, cols: list) -> np.ndarray:
    """The hierarchical posterior's (2, columns) interval: the rule below 30 tasks until now."""
    n_j, c_j, w_j, freq, inverse = scopes._categories(
        n.astype(float), c.astype(float), np.ones(n.size)
    )
    cats = Categories(freq=freq, values=column_values(n_j, c_j, cols), weights=w_j, inverse=inverse)
    nodes = scopes._Model(cats, n_j, c_j, scopes.DEFAULT_PRIOR).population_nodes
    a = 1 - AI.LEVEL
    return weighted_quantiles(population_values(nodes, cols), nodes.weight, [a / 2, 1 - a / 2])


def _intervals(
    n: np.ndarray, c: np.ndarray, cols: list, *, n_boot: int, rng: np.random.Generator
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each method's (2, columns) interval for one data set, and the rule's method labels.

    ``rule`` is the library's now. ``old`` is the rule before: the hierarchical posterior
    below 30 tasks, half a pseudo-task at 0 and at 1 where the rule takes the Bayesian
    bootstrap. The other candidates replace the rule's Bayesian bootstrap (≥ 30 tasks) or
    are joined with the hierarchical posterior where no task shows both outcomes (< 30):
    ``bound`` one pseudo-task at 0 (lower end) / 1 (upper end) in every column; ``range`` one
    at the column's observed minimum / maximum (0 / 1 where every task is alike);
    ``jeffreys`` half a pseudo-task at 0 and at 1 (below 30 tasks; the old one above)."""
    ks = sorted({k for _, k in cols})
    t = n.size
    pop = AI._rule_population(n, c, ks, n_boot=n_boot, rng=rng)
    rule = np.array([pop[(col, "population")][:2] for col in cols]).T
    labels = [pop[(col, "population")][2] for col in cols]
    vals = column_values(n.astype(float), c.astype(float), cols)
    cats = compress(np.column_stack([n, c]), vals, np.ones(t))
    a = 1 - AI.LEVEL
    bb = bayesian_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
    jeff = np.quantile(bb, [a / 2, 1 - a / 2], axis=0)
    lo_d, hi_d = bound_bootstrap_draws(cats, n_boot=n_boot, rng=rng)
    bound = np.array([np.quantile(lo_d, a / 2, axis=0), np.quantile(hi_d, 1 - a / 2, axis=0)])
    vmin, vmax = vals.min(axis=0), vals.max(axis=0)
    alike = vmin == vmax
    lo_d, hi_d = bound_bootstrap_draws(
        cats,
        n_boot=n_boot,
        rng=rng,
        low=np.where(alike, 0.0, vmin),
        high=np.where(alike, 1.0, vmax),
    )
    rng_ = np.array([np.quantile(lo_d, a / 2, axis=0), np.quantile(hi_d, 1 - a / 2, axis=0)])
    if t >= scopes.MIN_TASKS:
        is_bb = np.array([lab.startswith("Bayesian bootstrap") for lab in labels])[None, :]
        binary = np.all((vals == 0.0) | (vals == 1.0), axis=0)[None, :]
        out = {"old": np.where(is_bb & binary, jeff, rule), "rule": rule}
        for m, iv in {"bound": bound, "range": rng_, "jeffreys": jeff}.items():
            out[m] = np.where(is_bb, iv, rule)
        return out, labels
    hier = _model(n, c, cols)
    out = {"old": hier, "rule": rule}
    flaky = bool(np.any((c > 0) & (c < n)))
    for m, iv in {"bound": bound, "range": rng_, "jeffreys": jeff}.items():
        out[m] = (
            hier if flaky else np.array([np.minimum(hier[0], iv[0]), np.maximum(hier[1], iv[1])])
        )
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
        row["reps where rule differs"] = float(
            np.mean(np.any(width["rule"] != width["old"], axis=1))
        )
        row["diff rule-old"] = float(d.mean())
        row["diff se"] = float(d.std(ddof=1) / np.sqrt(reps))
        rows.append(row)
    return rows


#: The rule's rows below 0.85 in reports/analytic_interval (before this change).
TARGETS = (
    (50, 1, "Beta(0.2, 5) near 0", "mean"), (50, 10, "Beta(0.2, 5) near 0", "pass_hat_k"),
    (50, 10, "Beta(5, 0.2) near 1", "pass_at_k"), (30, 2, "Beta(0.2, 5) near 0", "pass_at_k"),
    (30, 2, "Beta(5, 0.2) near 1", "pass_hat_k"), (30, 10, "Beta(0.2, 5) near 0", "pass_hat_k"),
    (30, 10, "Beta(5, 0.2) near 1", "pass_at_k"), (20, 1, "Beta(0.2, 5) near 0", "mean"),
    (20, 2, "Beta(5, 0.2) near 1", "pass_at_k"),
)  # fmt: skip


MEAN = [("mean", 1)]


def exact_binary(ts: tuple[int, ...] = (10, 20, 25, 29, 30, 50, 100)) -> pd.DataFrame:
    """Exact coverage, by enumerating x ones of T, of the intervals of a share p from 0/1 task
    values (one run per task; every task all-pass or all-fail), min and mean over p on a grid
    of 0.001–0.5, and the mean width at p = 0.5: below 30 tasks the hierarchical posterior
    (old) and its hull with Clopper–Pearson (now) and with Jeffreys (a candidate); from 30 the
    Jeffreys interval (old: half a pseudo-task at 0 and 1) and Clopper–Pearson (now), as the
    rule uses them where fewer than 10 tasks lie on a side."""
    from scipy import stats

    a = 1 - AI.LEVEL
    ps = np.linspace(0.001, 0.5, 1000)
    rows = []
    for t in ts:
        x = np.arange(t + 1)
        jl, ju = stats.beta.ppf([[a / 2], [1 - a / 2]], x + 0.5, t - x + 0.5)
        cl = np.where(x > 0, stats.beta.ppf(a / 2, np.maximum(x, 1), t - x + 1), 0.0)
        cu = np.where(x < t, stats.beta.ppf(1 - a / 2, x + 1, np.maximum(t - x, 1)), 1.0)
        if t < scopes.MIN_TASKS:
            ones = np.ones(t, np.int64)
            h = np.array(
                [_model(ones, (np.arange(t) < xi).astype(np.int64), MEAN)[:, 0] for xi in x]
            )
            ivs = {
                "old: hierarchical": (h[:, 0], h[:, 1]),
                "now: hull with Clopper–Pearson": (
                    np.minimum(h[:, 0], cl),
                    np.maximum(h[:, 1], cu),
                ),
                "candidate: hull with Jeffreys": (np.minimum(h[:, 0], jl), np.maximum(h[:, 1], ju)),
            }
        else:
            ivs = {"old: Jeffreys": (jl, ju), "now: Clopper–Pearson": (cl, cu)}
        pm = stats.binom.pmf(x[None, :], t, ps[:, None])
        half = stats.binom.pmf(x, t, 0.5)
        for name, (lo, hi) in ivs.items():
            cov = (pm * ((lo[None] <= ps[:, None]) & (ps[:, None] <= hi[None]))).sum(axis=1)
            rows.append({
                "T": t, "interval": name, "min coverage": cov.min(), "at p": ps[cov.argmin()],
                "mean coverage": cov.mean(), "share of p below 0.85": float(np.mean(cov < 0.85)),
                "width at p = 0.5": float(half @ (hi - lo)),
            })  # fmt: skip
    return pd.DataFrame(rows)


def _verdict(table: pd.DataFrame) -> list[str]:
    ch = table["width rule"] != table["width old"]
    ratio = (table["width rule"] / table["width old"])[ch]
    worse = table["diff rule-old"] < -2 * table["diff se"]
    low = table[table["cov rule"] < 0.85]
    far = low[low["cov rule"] + 2 * low["se rule"] < 0.85]
    return [
        f"* Rows below 0.85: {int((table['cov old'] < 0.85).sum())} (old) → {len(low)} (rule) of "
        f"{len(table)}; below 0.85 by more than 2 s.e.: {len(far)}.",
        f"* Rows where the rule covers less than the old one by more than 2 s.e. of the paired "
        f"difference: {int(worse.sum())}.",
        f"* Intervals changed in {int(ch.sum())} rows; width rule / old there: median "
        f"{ratio.median():.2f}, max {ratio.max():.2f}. The new intervals contain the old ones on "
        "0/1 values (Clopper–Pearson contains Jeffreys; a hull contains its parts), so coverage "
        "can only rise, up to the Monte-Carlo noise of the draws.",
    ]


def _pm(c: float, se: float) -> str:
    return f"{c:.3f} ± {se:.3f}"


def to_markdown(table: pd.DataFrame, exact: pd.DataFrame, *, seconds: float, cmd: str) -> str:
    """The report: the target rows, every changed row, a summary by T, the candidates."""
    reps = int(table["reps"].max())
    lines = [
        "# The population rule near 0 and 1: Clopper–Pearson-type ends",
        "",
        f"Nominal level 90%; {reps} replicates per cell, 1000 draws per interval; ± is the "
        "Monte-Carlo s.e. sqrt(c(1 − c)/R). `old` = the rule before 2026-12-06 (half a "
        "pseudo-task at 0 and at 1 with ≥ 30 tasks and fewer than 10 on a side; the "
        "hierarchical posterior alone below 30 tasks); `rule` = `passhat.scopes` now (one "
        "pseudo-task at the bound where every task's value is 0 or 1; below 30 tasks the hull "
        "with it where no task shows both outcomes). Both on the same data sets. Made by "
        f"`{cmd}` ({seconds:.0f} s of CPU); every number is in `extremes.csv`. A distinct data "
        "set's intervals are computed once per cell and reused (as in "
        "studies/analytic_interval), so a cell whose misses come from one data set (x = 0 of "
        "T) moves by more than its s.e.: the exact table below does not. The committed run "
        "(2026-12-06) drew the library's Clopper–Pearson-type draws from a spawned side stream; "
        "the library now draws them from the same stream after the others (the "
        "analytic_interval study replays that stream): the same method, other Monte-Carlo draws.",
        "",
        "## Verdict",
        "",
        *_verdict(table),
        "",
        "## The rows below 0.85 in reports/analytic_interval",
        "",
        "| T | n | truth | metric | old | rule | width old → rule |",
        "|---:|---:|---|---|---:|---:|---|",
    ]
    for t, n, truth, metric in TARGETS:
        r = table[(table["T"] == t) & (table["n"] == n) & (table["truth"] == truth)]
        r = r[r["metric"] == metric]
        if r.empty:
            lines.append(f"| {t} | {n} | {truth} | {metric} | not run | | |")
            continue
        r = r.iloc[0]
        lines.append(
            f"| {t} | {n} | {truth} | {metric} | {_pm(r['cov old'], r['se old'])} | "
            f"{_pm(r['cov rule'], r['se rule'])} | {r['width old']:.4f} → {r['width rule']:.4f} |"
        )
    lines += ["", "## Exact coverage for 0/1 task values (one run per task)", ""]
    lines.append(exact.to_markdown(index=False, floatfmt=".3f"))
    lines += ["", "## Summary by T (all truths, n and metrics run)", ""]
    lines += [
        "| T | rows | old: min / mean / < 0.85 | rule: min / mean / < 0.85 | rows changed | "
        "rule > old + 2 s.e. | rule < old − 2 s.e. | mean width ratio rule / old where changed |",
        "|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    for t, g in table.groupby("T", sort=False):
        ch = (g["width rule"] != g["width old"]) | (g["cov rule"] != g["cov old"])
        d = g["diff rule-old"]
        ratio = (g["width rule"] / g["width old"])[ch].mean() if ch.any() else float("nan")
        lines.append(
            f"| {t} | {len(g)} | {g['cov old'].min():.3f} / {g['cov old'].mean():.3f} / "
            f"{int((g['cov old'] < 0.85).sum())} | {g['cov rule'].min():.3f} / "
            f"{g['cov rule'].mean():.3f} / {int((g['cov rule'] < 0.85).sum())} | {int(ch.sum())} | "
            f"{int((d > 2 * g['diff se']).sum())} | {int((d < -2 * g['diff se']).sum())} | "
            f"{ratio:.2f} |"
        )
    lines += ["", "## Candidates (same data sets; see `_intervals`)", ""]
    lines += [
        "| T | method | min coverage | mean coverage | < 0.85 | mean width |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for t, g in table.groupby("T", sort=False):
        for m in METHODS:
            lines.append(
                f"| {t} | {m} | {g[f'cov {m}'].min():.3f} | {g[f'cov {m}'].mean():.3f} | "
                f"{int((g[f'cov {m}'] < 0.85).sum())} | {g[f'width {m}'].mean():.4f} |"
            )
    lines += ["", "## Every row whose interval changed", ""]
    lines += [
        "| T | n | truth | metric | k | old | rule | width old → rule |",
        "|---:|---:|---|---|---:|---:|---:|---|",
    ]
    for _, r in table.iterrows():
        if r["width rule"] == r["width old"] and r["cov rule"] == r["cov old"]:
            continue
        lines.append(
            f"| {r['T']} | {r['n']} | {r['truth']} | {r['metric']} | {r['k']} | "
            f"{_pm(r['cov old'], r['se old'])} | {_pm(r['cov rule'], r['se rule'])} | "
            f"{r['width old']:.4f} → {r['width rule']:.4f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--ts", type=int, nargs="*", default=list(AI.TS))
    ap.add_argument("--ns", type=int, nargs="*", default=list(AI.NS))
    ap.add_argument("--truths", type=int, nargs="*", default=list(range(len(AI.TRUTH_NAMES))))
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT / "extremes.csv")
    ap.add_argument(
        "--report-only",
        type=float,
        metavar="SECONDS",
        default=None,
        help="write extremes.md from --out (its run's CPU seconds)",
    )
    ap.add_argument("--command", default="", help="(--report-only) the run command to state")
    args = ap.parse_args(argv)
    if args.report_only is not None:
        table = pd.read_csv(args.out)
        md = to_markdown(table, exact_binary(), seconds=args.report_only, cmd=args.command)
        (args.out.parent / "extremes.md").write_text(md)
        return 0
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
        print(
            f"[{i + 1}/{len(grid)}] T={t} n={n} {name}: {time.process_time() - s0:.1f} s",
            flush=True,
        )
        pd.DataFrame(rows).to_csv(args.out, index=False)
    seconds = time.process_time() - start
    cmd = "nice .venv/bin/python studies/extremes/extremes.py " + " ".join(sys.argv[1:])
    md = to_markdown(pd.DataFrame(rows), exact_binary(), seconds=seconds, cmd=cmd.strip())
    (args.out.parent / "extremes.md").write_text(md)
    print(f"done: {seconds:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
