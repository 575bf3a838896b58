"""The benchmark scope's variance below 2k runs: three rules, paired on the same replicates.

With n < 2k runs a task's variance Var(U | p) of the unbiased pass@k / pass^k estimator has no
unbiased estimate. The rules compared (each gives the normal interval U ± z · se of the
benchmark scope; nothing else changes):

* **shrunk** — the exact variance at the task's shrunk rate (c + ½)/(n + 1) (``fit``'s rule
  before this study);
* **beta** — its posterior expectation under the hierarchical Beta model (``estimate``'s rule
  before this study: :func:`passhat.scopes.task_variances` with the model's nodes);
* **bound** — the conservative model-free bound (:mod:`passhat.variance_bound`): U² − b_c with
  b the Bernstein coefficients of the largest polynomial of degree n below p^{2k}, an unbiased
  estimate of an upper bound of the variance.

Where n ≥ 2k all three are the unbiased estimate (identical cells are left out).

Two parts, each on the data and seeds of a committed study, so "before" reproduces it:

1. ``fit``: the benchmark cells of ``studies/fit_shapes`` (its ``--benchmark-reps`` path:
   the fit's own stream of U + se · z draws), shrunk vs bound, every truth and design,
   ``--fit-reps`` replicates;
2. ``estimate``: the benchmark cells of ``studies/coverage`` where the normal rule can apply
   (T ≥ 30) and some k has n < 2k, beta vs bound, on that study's own replicates (its seeds,
   its ``scope_intervals`` call: where the rule falls back on the posterior the interval is
   the same for both), ``--cov-reps`` replicates.

Each cell: coverage of both rules with its Monte-Carlo s.e., the paired difference with the
s.e. of the mean of the per-replicate differences, and mean widths. Output:
``reports/bench_variance/{fit_shapes,coverage}_paired.csv`` and ``README.md``.

Run (one process, background)::

    nice .venv/bin/python studies/bench_variance/bench_variance.py --part fit
    nice .venv/bin/python studies/bench_variance/bench_variance.py --part coverage
    .venv/bin/python studies/bench_variance/bench_variance.py --render
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "bench_variance"


def _study(name: str) -> Any:
    """The study script ``studies/<name>/<name>.py`` as a module, under a name of its own (the
    coverage study's file name would shadow the ``coverage`` package if put on sys.path)."""
    import importlib.util

    key = f"_bench_variance_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, ROOT / "studies" / name / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod


def shrunk_variance(n: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
    """Per task: the unbiased estimate where n ≥ 2k, else the exact variance at (s + ½)/(n + 1)."""
    from passhat.estimators import pass_hat_k_variance, pass_hat_k_variance_estimate

    v = np.zeros(n.shape)
    ok = n >= 2 * k
    if ok.any():
        v[ok] = pass_hat_k_variance_estimate(n[ok], s[ok], k)
    if (~ok).any():
        v[~ok] = pass_hat_k_variance(n[~ok], (s[~ok] + 0.5) / (n[~ok] + 1.0), k)
    return v


def bound_variance(n: np.ndarray, s: np.ndarray, k: int, nonneg: bool = False) -> np.ndarray:
    """Per task: U² − b_s (:mod:`passhat.variance_bound`, whose per-task values can be
    negative; ``nonneg=True``: the minorant with b_s ≤ U_s² too, every value ≥ 0)."""
    from passhat.estimators import pass_hat_k
    from passhat.variance_bound import _coefficients

    u = np.asarray(pass_hat_k(n, s, k), dtype=float)
    b = np.empty(n.shape)
    for m in np.unique(n):
        b[n == m] = np.array(_coefficients(int(m), int(k), nonneg))[s[n == m]]
    return u * u - b


#: fit's rules by name: a per-task variance (n, successes, k) → V̂ (n ≥ 2k: all unbiased).
#: ``bound_nn``: the bound with b_s ≤ U_s² (no negative V̂; looser).
FIT_RULES = {
    "shrunk": shrunk_variance,
    "bound": bound_variance,
    "bound_nn": lambda n, s, k: bound_variance(n, s, k, nonneg=True),
}
#: The combined rules: per column the larger of the plug-in's sum and a bound's.
MAX = "max"
COMBINED = {MAX: "bound", "max_nn": "bound_nn"}


@contextmanager
def fit_rule(rule: str) -> Iterator[None]:
    """fit's benchmark standard error (``benchmark_se`` as :mod:`passhat.model.histogram` calls
    it, for its draws and for :func:`~passhat.model.histogram.informative`) set to a rule
    (``max``: the larger of the two rules' sums)."""
    import passhat.model.histogram as hist

    keep = hist.benchmark_se

    def se(n: Any, c: Any, *, k: int, metric: str = "pass_hat_k", weights: Any = None) -> Any:
        nn, cc = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
        kk = 1 if metric == "mean" else int(k)
        w = np.ones(nn.shape) if weights is None else np.asarray(weights, dtype=float)
        w = w / w.sum()
        succ = nn - cc if metric == "pass_at_k" else cc
        parts = ("shrunk", COMBINED[rule]) if rule in COMBINED else (rule,)
        var = max(float(np.sum(w * w * FIT_RULES[r](nn, succ, kk))) for r in parts)
        return float(np.sqrt(max(var, 0.0))), int((nn < 2 * kk).sum())

    hist.benchmark_se = se  # type: ignore[assignment]
    try:
        yield
    finally:
        hist.benchmark_se = keep  # type: ignore[assignment]


def fit_part(
    reps: int, rules: tuple[str, ...] = ("shrunk", "bound", MAX, "bound_nn", "max_nn")
) -> pd.DataFrame:
    """Part 1: per replicate and benchmark cell with n < 2k, each rule (same stream). A cell
    the rule leaves to the model (its se sum ≤ 0) has covered = NaN and ``fallback_<rule>``."""
    fs = _study("fit_shapes")

    rows: list[dict[str, Any]] = []
    for ti in range(len(fs.TRUTHS)):
        for t, n in fs.DESIGNS:
            for rep in range(reps):
                got = {}
                for rule in rules:
                    with fit_rule(rule):
                        got[rule] = {
                            (r["metric"], r["k"]): r for r in fs.benchmark_rows(ti, t, n, rep)
                        }
                for metric, k in fs.cells(n):
                    kk = 1 if metric == "mean" else int(k)
                    if n >= 2 * kk:
                        continue
                    row: dict[str, Any] = {"truth": fs.TRUTHS[ti].name, "T": t, "n": n,
                                           "rep": rep, "metric": metric, "k": k}  # fmt: skip
                    for rule in rules:
                        r, tag = got[rule].get((metric, k)), "old" if rule == "shrunk" else rule
                        row[f"cov_{tag}"] = np.nan if r is None else float(r["covered"])
                        row[f"w_{tag}"] = np.nan if r is None else r["width"]
                    rows.append(row)
            print(f"fit part: {fs.TRUTHS[ti].name} done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


_SIDE: dict[tuple[str, int], dict[str, tuple[float, float] | None]] = {}


def _benchmark_both(original: Any) -> Any:
    """A wrapper of :func:`passhat.scopes._benchmark` that also records, for the columns the
    normal rule takes, the interval under the Beta model's variance and under the bound."""
    from scipy import special

    from passhat.scopes import MIN_FLAKY, MIN_TASKS, task_variances

    def wrapped(out: dict, setup: Any, *, rng: np.random.Generator) -> None:
        original(out, setup, rng=rng)
        _SIDE.clear()
        cats, cols, n_j, c_j = setup.cats, setup.cols, setup.n_j, setup.c_j
        flaky = int(cats.freq[(c_j > 0) & (c_j < n_j)].sum())
        if not (setup.tasks >= MIN_TASKS and flaky >= MIN_FLAKY):
            return
        z = float(-special.ndtri(setup.alpha / 2))
        v_old = task_variances(n_j, c_j, cols, setup.model.coarse)
        for j, (metric, k) in enumerate(cols):
            kk = 1 if metric == "mean" else int(k)
            succ = n_j - c_j if metric == "pass_at_k" else c_j
            # the bound with b_s ≤ U_s² (the run was made with it; labelled bound_nn)
            v_new = bound_variance(n_j.astype(np.int64), succ.astype(np.int64), kk, nonneg=True)
            var = {r: float(np.sum(cats.freq * setup.w_norm**2 * v))
                   for r, v in (("old", v_old[:, j]), ("bound_nn", v_new))}  # fmt: skip
            var["max_nn"] = max(var.values())
            if var["old"] <= 0:  # the rule falls back on the posterior: the same for all
                continue
            th = float(setup.theta[j])
            _SIDE[(metric, int(k))] = {
                r: (max(0.0, th - z * np.sqrt(v)), min(1.0, th + z * np.sqrt(v))) if v > 0 else None
                for r, v in var.items()
            }

    return wrapped


def coverage_cells() -> list[tuple[str, int, str]]:
    """The cells of ``studies/coverage`` whose benchmark rule can use a variance below 2k."""
    cv = _study("coverage")

    return [(name, t, d) for name, t, d in cv.cells() if t >= 30]


def coverage_part(reps: int, n_boot: int, seed: int) -> pd.DataFrame:
    """Part 2: per replicate and benchmark column with some n < 2k, beta vs bound, on the
    coverage study's own replicates."""
    cv = _study("coverage")

    import passhat.scopes as sc

    sc._benchmark = _benchmark_both(sc._benchmark)  # type: ignore[assignment]
    full = cv.cells()
    rows: list[dict[str, Any]] = []
    for name, t, design in coverage_cells():
        start = time.perf_counter()
        truth = cv.TRUTHS[name]
        rng = np.random.default_rng(seed + 101 * full.index((name, t, design)))
        ns = cv.DESIGNS[design]
        n = np.array([ns[i % len(ns)] for i in range(t)], dtype=np.int64)
        ks = cv._ks(ns)
        cols = [c for c in sc.columns(ks) if (c[0] == "mean" or c[1] > 1)
                and n.min() < 2 * (1 if c[0] == "mean" else c[1])]  # fmt: skip
        cache: dict[bytes, tuple[pd.DataFrame, dict]] = {}
        for rep in range(reps):
            p = truth.sample(rng, t)
            c = rng.binomial(n, p)
            truth.sample(rng, t)  # the study's fresh tasks (its stream)
            key = np.sort(n * 1000 + c).tobytes()
            if key not in cache:
                iv = sc.scope_intervals(n, c, np.ones(t), ks, ci=cv.LEVEL, n_boot=n_boot,
                                        rng=rng, predictive=t)  # fmt: skip
                cache[key] = (iv[iv["scope"] == "benchmark"], dict(_SIDE))
            bench, side = cache[key]
            for metric, k in cols:
                value = float(np.mean(cv._g(metric, k)(p)))
                row = bench[(bench["metric"] == metric) & (bench["k"] == k)].iloc[0]
                got = side.get((metric, k), {})
                out = {"truth": name, "T": t, "n": design, "rep": rep, "metric": metric,
                       "k": k, "normal": bool(got)}  # fmt: skip
                for rule in ("old", "bound_nn", "max_nn"):
                    iv_r = got.get(rule, (row.lower, row.upper))
                    if iv_r is None:  # this rule's sum ≤ 0: a fall-back on the posterior
                        out[f"cov_{rule}"], out[f"w_{rule}"] = np.nan, np.nan
                        continue
                    lo, hi = iv_r
                    out[f"cov_{rule}"] = float(lo - 1e-12 <= value <= hi + 1e-12)
                    out[f"w_{rule}"] = hi - lo
                rows.append(out)
        print(f"coverage part: {name} T={t} n={design} {time.perf_counter() - start:.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip
    return pd.DataFrame(rows)


def population_part(replicates: pd.DataFrame) -> pd.DataFrame:
    """Part 3: fit's population cells at k = n that it leaves to its model because
    ``estimate``'s rule would not resample tasks there (fewer than 10 tasks on a side of the
    estimate) while every task's value is 0 or 1, read by ``estimate``'s rule for them (the
    Clopper–Pearson-type bound, :func:`passhat.scopes.bound_interval`) on the same data, beside
    the model's committed row for that replicate (``replicates``: fit_shapes' rows)."""
    fs = _study("fit_shapes")

    from passhat.bootstrap import compress
    from passhat.model.histogram import population_bound, task_values
    from passhat.model.metrics import Groups
    from passhat.scopes import bound_interval

    ti_of = {t.name: i for i, t in enumerate(fs.TRUTHS)}
    pop = replicates[replicates["scope"] == "population"].set_index(
        ["truth", "T", "n", "rep", "metric", "k"]
    )
    rows: list[dict[str, Any]] = []
    for (name, t, n), reps in pop.reset_index().groupby(["truth", "T", "n"], sort=False)["rep"]:
        ti, t, n = ti_of[name], int(t), int(n)
        for rep in sorted(set(reps)):
            rng = np.random.default_rng([ti, t, n, rep])
            p = fs.TRUTHS[ti].sample(rng, t)
            c = rng.binomial(n, p)
            groups = Groups.from_tasks(np.full(t, n), c, np.ones(t))
            for m in ("pass_at_k", "pass_hat_k"):
                if not population_bound(groups, m, n):  # the cells the rule changed
                    continue
                v = np.repeat(task_values(groups, m, n), groups.mult.astype(int))[:, None]
                lo, hi = bound_interval(compress(v, v, np.ones(t)), alpha=0.1, n_boot=1,
                                        rng=np.random.default_rng(0))[:, 0]  # fmt: skip
                value = fs.TRUTHS[ti].expected(m, n)
                model = pop.loc[(name, t, n, rep, m, n)]
                rows.append({"truth": name, "T": t, "n": n, "rep": rep, "metric": m, "k": n,
                             "cov_old": float(model["covered"]), "w_old": float(model["width"]),
                             "cov_estimate": float(lo <= value <= hi), "w_estimate": hi - lo,
                             "below_old": float(model["below"]),
                             "below_estimate": float(value < lo)})  # fmt: skip
        print(f"population part: {name} T={t} n={n}", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per cell and rule: coverage with its Monte-Carlo s.e., the paired difference from the
    old rule with the s.e. of the mean per-replicate difference, mean width, and the share of
    replicates where the rule's variance sum was ≤ 0 (a fall-back: no coverage counted)."""
    rules = [c[4:] for c in raw.columns if c.startswith("cov_")]
    g = raw.groupby(keys, sort=False)
    out = g.size().rename("reps").reset_index()
    for rule in rules:
        cov = g[f"cov_{rule}"]
        out[f"cov_{rule}"] = cov.mean().to_numpy()
        m = cov.count().to_numpy()
        out[f"se_{rule}"] = np.sqrt(out[f"cov_{rule}"] * (1 - out[f"cov_{rule}"]) / m)
        out[f"w_{rule}"] = g[f"w_{rule}"].mean().to_numpy()
        out[f"fallback_{rule}"] = 1.0 - m / out["reps"]
        if rule != "old":
            d = (raw[f"cov_{rule}"] - raw["cov_old"]).groupby([raw[k] for k in keys], sort=False)
            out[f"diff_{rule}"] = d.mean().to_numpy()
            out[f"se_diff_{rule}"] = (d.std() / np.sqrt(d.count())).fillna(0.0).to_numpy()
    if "normal" in raw:
        out["normal_share"] = g["normal"].mean().to_numpy()
    return out


def _table(df: pd.DataFrame, rules: list[str], *, n_col: str = "n") -> list[str]:
    """A Markdown table: per cell each rule's coverage ± s.e. and width, and its paired
    difference from the old rule ± s.e."""
    head = (
        "| truth | T | n | metric | k | reps | "
        + " | ".join(
            f"{r} coverage | {r} width" + ("" if r == "old" else f" | {r} − old") for r in rules
        )
        + " |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in df.itertuples():
        cells = []
        for rule in rules:
            cov, se, w = (getattr(r, f"{x}_{rule}") for x in ("cov", "se", "w"))
            fb = getattr(r, f"fallback_{rule}")
            cells.append(f"{cov:.3f}±{se:.3f}" + (f" ({fb:.0%} fell back)" if fb > 0 else ""))
            cells.append(f"{w:.3f}")
            if rule != "old":
                d, sd = getattr(r, f"diff_{rule}"), getattr(r, f"se_diff_{rule}")
                cells.append(f"{d:+.3f}±{sd:.3f}")
        lines.append(f"| {r.truth} | {r.T} | {getattr(r, n_col)} | {r.metric} | {r.k} | "
                     f"{r.reps} | " + " | ".join(cells) + " |")  # fmt: skip
    return lines


def _verdict(out: Path) -> list[str]:
    """The decision the tables support, with the counts it rests on."""
    lines = ["## Verdict", ""]
    path = out / "fit_shapes_paired.csv"
    if path.exists():
        f = pd.read_csv(path)
        worst = f.loc[f["cov_old"].idxmin()]
        lines.append(
            f"- **fit** ({len(f)} benchmark cells below 2k runs, {int(f['reps'].min())} "
            f"replicates): coverage {f['cov_old'].min():.3f}–{f['cov_old'].max():.3f} with the "
            f"plug-in, {f['cov_bound'].min():.3f}–{f['cov_bound'].max():.3f} with the bound "
            f"alone (it falls back where its sum is ≤ 0), "
            f"{f['cov_max'].min():.3f}–{f['cov_max'].max():.3f} with the larger of the "
            f"two (never below the plug-in, replicate by replicate); the plug-in's worst cell, "
            f"{worst['truth']} T = {worst['T']} n = {worst['n']} {worst['metric']} k = "
            f"{worst['k']}: {worst['cov_old']:.3f}±{worst['se_old']:.3f} → "
            f"{worst['cov_max']:.3f}±{worst['se_max']:.3f} (width {worst['w_old']:.3f} → "
            f"{worst['w_max']:.3f}). fit now takes the larger of the two. Its price: "
            f"{int((f['cov_max'] > 0.97).sum())} cells above 0.97 (with the plug-in "
            f"{int((f['cov_old'] > 0.97).sum())}), widths up to "
            f"{(f['w_max'] / f['w_old']).max() - 1:+.0%} (at k = n = 3, where the bound is "
            "loosest). The bound with b_s ≤ U_s² (every task's V̂ ≥ 0) is looser: with it the "
            f"larger of the two covers {f['cov_max_nn'].min():.3f}–{f['cov_max_nn'].max():.3f}, "
            f"{int((f['cov_max_nn'] > 0.97).sum())} cells above 0.97, so it was not taken."
        )
    path = out / "coverage_paired.csv"
    if path.exists():
        c = pd.read_csv(path)

        def count(rule: str) -> str:
            x = c[f"cov_{rule}"]
            return (f"{int(((x >= 0.85) & (x <= 0.97)).sum())}/{len(c)} in [0.85, 0.97], "
                    f"{int((x < 0.85).sum())} below, {int((x > 0.97).sum())} above")  # fmt: skip

        lines.append(
            f"- **estimate** ({len(c)} benchmark cells of studies/coverage with some task below "
            f"2k runs, {int(c['reps'].min())} replicates; `old` reproduces the committed "
            f"table): Beta model's variance {count('old')}; the bound (run with b_s ≤ U_s², "
            f"`bound_nn`) {count('bound_nn')}; the larger of the two {count('max_nn')}. The "
            "bound pushes many cells, Beta truths among them, above the study's range (at n = 2 "
            "and 3, where both forms of the bound are the same), so estimate keeps the Beta "
            "model's expected variance."
        )
    path = out / "population_paired.csv"
    if path.exists():
        lines.append(
            "- **fit's population scope at k = n** with every task's value 0 or 1 and fewer "
            "than 10 tasks on a side: estimate's Clopper–Pearson-type bound instead of the "
            "model (section 3; the whole cells with this rule are in `../fit_shapes/`)."
        )
    return [*lines, ""]


def render(out: Path) -> str:
    """The README of ``out`` from the paired CSVs there."""
    lines = [
        "# The benchmark scope's variance below 2k runs, and fit's population bound: paired",
        "",
        "Made by `studies/bench_variance/bench_variance.py` (issue 28; its docstring says how "
        "each part reads the committed studies' own replicates and seeds, so `old` reproduces "
        "them). Every coverage is of a 90% interval, with its Monte-Carlo s.e. "
        "sqrt(c(1 − c)/R); `− old` is the mean per-replicate difference from the old rule on "
        "the same replicates, with the s.e. of that mean. `fell back`: replicates where the "
        "rule's variance sum was ≤ 0, so the interval would be the model's (not counted).",
        "",
    ]
    lines += _verdict(out)
    path = out / "fit_shapes_paired.csv"
    if path.exists():
        df = pd.read_csv(path)
        lines += [
            "## 1. fit's benchmark cells below 2k runs (studies/fit_shapes)",
            "",
            "`old`: the exact variance at each task's shrunk rate (c + ½)/(n + 1); `bound`: "
            "the model-free bound alone; `max`: per column the larger of the two sums "
            "(the rule fit now uses); `bound_nn`, `max_nn`: the same with b_s ≤ U_s² (every "
            "task's V̂ ≥ 0, a looser bound; identical at n = 3). "
            f"{int(df['reps'].min())} replicates per cell.",
            "",
            *_table(df, ["old", "bound", "max", "bound_nn", "max_nn"]),
            "",
        ]
    path = out / "coverage_paired.csv"
    if path.exists():
        df = pd.read_csv(path)
        lines += [
            "## 2. estimate's benchmark cells with some task below 2k runs (studies/coverage)",
            "",
            "`old`: the hierarchical Beta model's expected variance (estimate's rule); "
            "`bound_nn`: the model-free bound with b_s ≤ U_s² alone (the form this run used; "
            "at n = 2 and 3 the same as fit's); `max_nn`: the larger of the two sums. The "
            "goal of that "
            "study is coverage in [0.85, 0.97]. Where fewer than 10 tasks show both outcomes "
            "the rule takes the posterior (the same for all). "
            f"{int(df['reps'].min())} replicates per cell.",
            "",
            *_table(df, ["old", "bound_nn", "max_nn"]),
            "",
        ]
    path = out / "population_paired.csv"
    if path.exists():
        df = pd.read_csv(path)
        lines += [
            "## 3. fit's population cells at k = n with few tasks on a side (studies/fit_shapes)",
            "",
            "Only the replicates where every task's value is 0 or 1 and fewer than 10 tasks "
            "lie on a side of the estimate (where fit used its model): `old` the model's "
            "committed row, `estimate` estimate's Clopper–Pearson-type bound on the same data "
            "(the rule fit now uses there).",
            "",
            *_table(df, ["old", "estimate"]),
            "",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--part", choices=("fit", "coverage", "population"), action="append",
                    default=[])  # fmt: skip
    ap.add_argument("--replicates", type=Path, action="append", default=[],
                    help="(population) fit_shapes per-replicate CSVs to read")  # fmt: skip
    ap.add_argument("--fit-reps", type=int, default=400)
    ap.add_argument("--cov-reps", type=int, default=500)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true", help="only write README.md from the CSVs")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.render:
        (args.out / "README.md").write_text(render(args.out))
        return 0
    if "fit" in args.part:
        raw = fit_part(args.fit_reps)
        raw.to_csv(args.out / "fit_shapes_replicates.csv.gz", index=False)
        summarise(raw, ["truth", "T", "n", "metric", "k"]).to_csv(
            args.out / "fit_shapes_paired.csv", index=False
        )
    if "coverage" in args.part:
        raw = coverage_part(args.cov_reps, args.n_boot, args.seed)
        raw.to_csv(args.out / "coverage_replicates.csv.gz", index=False)
        summarise(raw, ["truth", "T", "n", "metric", "k"]).to_csv(
            args.out / "coverage_paired.csv", index=False
        )
    if "population" in args.part:
        keys = ["truth", "T", "n", "rep", "metric", "k", "scope"]
        reps = pd.concat([pd.read_csv(x) for x in args.replicates]).drop_duplicates(keys)
        raw = population_part(reps)
        raw.to_csv(args.out / "population_replicates.csv.gz", index=False)
        summarise(raw, ["truth", "T", "n", "metric", "k"]).to_csv(
            args.out / "population_paired.csv", index=False
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
